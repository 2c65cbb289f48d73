"""Protein representations of the 2-D (drug-target pair) models: composition features or ESM-2 embeddings.

The DataSAIL paper ("Training of supervised machine learning models") concatenates each drug's ECFP4 bits
with "the ESM-2 embedding of the target ... the 12-layer ESM-2 model, producing a 480-dimensional protein
embedding received from the fair-esm v2.0.0 Python package". :data:`PROTEIN_REPRESENTATIONS` names the two
choices of the config key ``molecules.protein_representation``:

- ``composition`` (default; offline, no weights): amino-acid + dipeptide composition, 420 columns
  (:func:`benchdesign.molexp.features.protein_features`);
- ``esm2_t12``: :func:`esm2_embeddings` of ``esm2_t12_35M_UR50D``, 480 columns, the mean over residues of
  the last layer (the paper's; needs the ``esm`` extra, ``fair-esm``, and the weights: downloaded by fair-esm
  into the torch hub cache when online, or a local file, ``molecules.esm_weights``).

Rules: :func:`encode_proteins` is what the feature rule calls.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import pickle
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchdesign.molexp.features import checked_sequence, protein_features

__all__ = [
    "DEFAULT_ESM_MODEL",
    "ESM_MAX_RESIDUES",
    "LONG_SEQUENCE_MODES",
    "PROTEIN_REPRESENTATIONS",
    "REPRESENTATION_PACKAGES",
    "encode_proteins",
    "esm2_embeddings",
    "esm_weights_url",
    "load_esm2",
]

_log = logging.getLogger(__name__)

PROTEIN_REPRESENTATIONS: dict[str, str] = {
    "composition": "amino-acid + dipeptide composition, 420 columns",
    "esm2_t12": "ESM-2 t12 (esm2_t12_35M_UR50D), mean over residues of the last layer, 480 columns",
}
"""Values of ``molecules.protein_representation`` and what each is."""

REPRESENTATION_PACKAGES: dict[str, tuple[str, ...]] = {"composition": (), "esm2_t12": ("torch", "esm")}
"""Modules each representation imports beyond the core ones (checked before a run by
:func:`benchdesign.workflow.preflight.check_packages`)."""

ESM_MODELS: dict[str, str] = {"esm2_t12": "esm2_t12_35M_UR50D"}
DEFAULT_ESM_MODEL = "esm2_t12_35M_UR50D"
ESM_MAX_RESIDUES = 1022
"""Residues per forward pass: ESM-2 was trained on crops of 1024 tokens, BOS and EOS included."""
LONG_SEQUENCE_MODES = ("windows", "truncate")
_WEIGHTS_KEY = "molecules.esm_weights"


def esm_weights_url(model_name: str = DEFAULT_ESM_MODEL) -> str:
    """Where fair-esm downloads the weights of ``model_name`` from.

    Examples
    --------
    >>> esm_weights_url()
    'https://dl.fbaipublicfiles.com/fair-esm/models/esm2_t12_35M_UR50D.pt'
    """
    return f"https://dl.fbaipublicfiles.com/fair-esm/models/{model_name}.pt"


def _read_checkpoint(path: Path) -> dict[str, Any]:
    """torch.load of a fair-esm checkpoint: tensors and argparse.Namespace only (torch's weights_only loader);
    a file holding other objects is unpickled in full, as fair-esm's own hub loader does, with a warning."""
    import torch

    try:
        with torch.serialization.safe_globals([argparse.Namespace]):
            return torch.load(str(path), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        _log.warning(
            "%s holds objects beyond tensors (%s); unpickling it in full: give only a file you trust",
            path,
            str(err).splitlines()[-1][:200],
        )
        return torch.load(str(path), map_location="cpu", weights_only=False)


def _model_from_checkpoint(path: Path) -> tuple[Any, Any]:
    """fair-esm's ESM-2 model and alphabet from a checkpoint file; its contact regression weights are read when
    they lie beside it (``<stem>-contact-regression.pt``) and are not needed for embeddings."""
    import esm

    data = _read_checkpoint(path)
    if not (isinstance(data, dict) and "model" in data and "cfg" in data):
        found = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise ValueError(
            f"{path} is not an ESM-2 checkpoint of fair-esm (a dict with 'model' and 'cfg'; found "
            f"{found}); download {esm_weights_url()} and set {_WEIGHTS_KEY} to its path"
        )
    regression_path = path.with_name(f"{path.stem}-contact-regression.pt")
    regression = _read_checkpoint(regression_path) if regression_path.is_file() else None
    with warnings.catch_warnings():  # no regression weights: only contact prediction suffers, not embeddings
        warnings.filterwarnings("ignore", message="Regression weights not found")
        # the "esm2" prefix picks fair-esm's ESM-2 reader whatever the file is called
        return esm.pretrained.load_model_and_alphabet_core("esm2", data, regression)


def load_esm2(weights: str | os.PathLike | None = None, model_name: str = DEFAULT_ESM_MODEL) -> tuple[Any, Any]:
    """An ESM-2 model (eval mode, CPU) and its alphabet, from a local file or by name.

    Parameters
    ----------
    weights : path, optional
        A fair-esm ESM-2 checkpoint (``<model_name>.pt`` as downloaded from :func:`esm_weights_url`); any file
        name. None: ``<torch hub dir>/checkpoints/<model_name>.pt`` when present (where fair-esm saves its
        downloads; ``TORCH_HOME`` moves it), else fair-esm downloads it there.
    model_name : str
        fair-esm's name of the model, used when ``weights`` is None.

    Returns
    -------
    (torch.nn.Module, esm.data.Alphabet)

    Raises
    ------
    FileNotFoundError
        ``weights`` does not exist, or it is None, the hub cache lacks the file and the download fails
        (offline): the message names the file, where it looked and the config key that gives a local file.
    ValueError
        the file is not an ESM-2 checkpoint.

    Examples
    --------
    >>> model, alphabet = load_esm2("esm2_t12_35M_UR50D.pt")  # doctest: +SKIP
    >>> model.num_layers, model.embed_dim  # doctest: +SKIP
    (12, 480)
    """
    if weights is not None:
        path = Path(weights)
        if not path.is_file():
            raise FileNotFoundError(
                f"ESM-2 weights file {path} ({_WEIGHTS_KEY}) does not exist; download {esm_weights_url(model_name)} "
                f"to that path, or set {_WEIGHTS_KEY}: null to let fair-esm download {model_name} (online)"
            )
        model, alphabet = _model_from_checkpoint(path)
    else:
        model, alphabet = _model_by_name(model_name)
    return model.eval(), alphabet


def _model_by_name(model_name: str) -> tuple[Any, Any]:
    import esm
    import torch

    cached = Path(torch.hub.get_dir()) / "checkpoints" / f"{model_name}.pt"
    if cached.is_file():
        _log.info("ESM-2 weights from the torch hub cache: %s", cached)
        return _model_from_checkpoint(cached)
    _log.info(
        "ESM-2 weights %s not in the torch hub cache (%s): downloading %s", model_name, cached.parent, esm_weights_url(model_name)
    )
    try:
        return esm.pretrained.load_model_and_alphabet_hub(model_name)
    except Exception as err:  # URLError offline, HTTPError, a partial file: all mean "no weights"
        raise FileNotFoundError(
            f"cannot get the ESM-2 weights {model_name}: {cached} does not exist and the download from "
            f"{esm_weights_url(model_name)} failed ({type(err).__name__}: {err}). Run once online (fair-esm saves "
            f"the file there; TORCH_HOME moves the cache), or download that URL elsewhere and set {_WEIGHTS_KEY} "
            "to the file's path"
        ) from err


def _pieces(sequence: str, max_residues: int, long_sequences: str) -> list[str]:
    """The parts of ``sequence`` embedded in one pass each: itself, its first ``max_residues`` (truncate), or
    ceil(L / max_residues) consecutive windows of near-equal length (windows)."""
    if len(sequence) <= max_residues:
        return [sequence]
    if long_sequences == "truncate":
        return [sequence[:max_residues]]
    n = math.ceil(len(sequence) / max_residues)
    bounds = np.linspace(0, len(sequence), n + 1).round().astype(int)
    return [sequence[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def _check_options(batch_tokens: int, max_residues: int, long_sequences: str) -> None:
    if long_sequences not in LONG_SEQUENCE_MODES:
        raise ValueError(f"long_sequences must be one of {LONG_SEQUENCE_MODES}, got {long_sequences!r}")
    if int(batch_tokens) < 1:
        raise ValueError(f"batch_tokens must be >= 1, got {batch_tokens}")
    if not 1 <= int(max_residues) <= ESM_MAX_RESIDUES:
        raise ValueError(f"max_residues must be in [1, {ESM_MAX_RESIDUES}], got {max_residues}")


def _token_batches(lengths: Sequence[int], batch_tokens: int) -> list[list[int]]:
    """Indices of ``lengths`` in batches, longest first, each padding to at most ``batch_tokens`` tokens (BOS and
    EOS included; a longer single sequence is a batch of its own).

    Examples
    --------
    >>> _token_batches([3, 10, 4, 4, 2], 16)
    [[1], [2, 3], [0, 4]]
    """
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    for i in order:
        if batches and (len(batches[-1]) + 1) * (lengths[batches[-1][0]] + 2) <= batch_tokens:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def _residue_sums(
    model: Any, alphabet: Any, pieces: list[tuple[int, str]], batch_tokens: int, device: str, n_rows: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per row of the input, the sum over its residues of the last layer's representation, and its residues."""
    import torch

    sums = np.zeros((n_rows, model.embed_dim), dtype=np.float64)
    counts = np.zeros(n_rows, dtype=np.int64)
    convert = alphabet.get_batch_converter()
    batches = _token_batches([len(p) for _, p in pieces], int(batch_tokens))
    _log.info(
        "ESM-2 (%d layers, %d dimensions) on %s: %d sequences, %d passes in %d batches",
        model.num_layers,
        model.embed_dim,
        device,
        n_rows,
        len(pieces),
        len(batches),
    )
    with torch.no_grad():
        for b, batch in enumerate(batches):
            items = [pieces[i] for i in batch]
            _, _, tokens = convert([(str(row), p) for row, p in items])
            out = model(tokens.to(device), repr_layers=[model.num_layers])
            rep = out["representations"][model.num_layers].to("cpu", torch.float64).numpy()
            for k, (row, p) in enumerate(items):
                sums[row] += rep[k, 1 : len(p) + 1].sum(axis=0)  # token 0 is BOS, len(p) + 1 is EOS
                counts[row] += len(p)
            if (b + 1) % 25 == 0 or b + 1 == len(batches):
                _log.info("ESM-2: %d of %d batches", b + 1, len(batches))
    return sums, counts


def esm2_embeddings(
    sequences: Sequence[object],
    weights: str | os.PathLike | None = None,
    model_name: str = DEFAULT_ESM_MODEL,
    batch_tokens: int = 4096,
    device: str | None = None,
    max_residues: int = ESM_MAX_RESIDUES,
    long_sequences: str = "windows",
    n_jobs: int = 1,
) -> np.ndarray:
    """ESM-2 embedding per protein: the mean over its residues of the last layer's representation.

    The last layer's representation is fair-esm's ``representations[num_layers]`` (after the final layer
    norm, as fair-esm's ``extract.py --include mean``); BOS, EOS and padding tokens are left out of the mean,
    so a protein's embedding does not depend on the others in its batch (up to float rounding).

    Parameters
    ----------
    sequences : sequence of str
        One-letter amino-acid sequences; checked and upper-cased as by
        :func:`benchdesign.molexp.features.protein_features` (its allowed letters; J, not in ESM's alphabet,
        is read as X).
    weights : path, optional
        A local fair-esm checkpoint; None: by ``model_name`` (:func:`load_esm2`).
    model_name : str
        fair-esm's model name (``esm2_t12_35M_UR50D``: 12 layers, 480 dimensions, the paper's).
    batch_tokens : int
        Tokens per forward pass, padding included (fair-esm's ``extract.py`` default, 4096): sequences (or
        windows) are sorted by length, longest first, and batched while the padded batch fits.
    device : str, optional
        torch device; None: ``cuda`` when available, else ``cpu``.
    max_residues : int
        Residues per forward pass, at most 1022 (ESM-2's 1024 tokens with BOS and EOS).
    long_sequences : {"windows", "truncate"}
        A longer sequence: ``windows`` (default) embeds ceil(L / max_residues) consecutive windows of
        near-equal length and averages over all L residues (every residue counts, each seen in the context of
        its window); ``truncate`` keeps the first ``max_residues`` (fair-esm's ``extract.py`` default). The
        paper does not say which it did.
    n_jobs : int
        torch CPU threads while embedding (restored afterwards).

    Returns
    -------
    np.ndarray
        float32 (n, embed_dim); 480 columns for esm2_t12_35M_UR50D.

    Raises
    ------
    ValueError
        a sequence with a character outside the allowed letters, naming the row; bad options.
    FileNotFoundError
        no weights (:func:`load_esm2`).

    Examples
    --------
    >>> emb = esm2_embeddings(["MKTAYIAKQR", "GAVLIPFW"])  # doctest: +SKIP
    >>> emb.shape, emb.dtype  # doctest: +SKIP
    ((2, 480), dtype('float32'))
    """
    import torch

    _check_options(batch_tokens, max_residues, long_sequences)
    clean = [checked_sequence(s, row).replace("J", "X") for row, s in enumerate(sequences)]
    model, alphabet = load_esm2(weights, model_name)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
    pieces = [(row, p) for row, s in enumerate(clean) for p in _pieces(s, int(max_residues), long_sequences)]
    n_long = sum(len(s) > max_residues for s in clean)
    if n_long:
        _log.info(
            "%d sequences longer than %d residues: %s",
            n_long,
            max_residues,
            "averaged over windows" if long_sequences == "windows" else "truncated",
        )
    threads = torch.get_num_threads()
    torch.set_num_threads(int(n_jobs))
    try:
        sums, counts = _residue_sums(model, alphabet, pieces, batch_tokens, device, len(clean))
    finally:
        torch.set_num_threads(threads)
    return (sums / np.maximum(counts, 1)[:, None]).astype(np.float32)


def encode_proteins(
    sequences: Sequence[object], representation: str = "composition", esm_weights: str | os.PathLike | None = None
) -> np.ndarray:
    """The protein features of ``molecules.protein_representation`` (:data:`PROTEIN_REPRESENTATIONS`).

    Parameters
    ----------
    sequences : sequence of str
        Amino-acid sequences.
    representation : str
        ``composition`` (:func:`benchdesign.molexp.features.protein_features`) or ``esm2_t12``
        (:func:`esm2_embeddings` of esm2_t12_35M_UR50D with its defaults).
    esm_weights : path, optional
        ``molecules.esm_weights``: a local checkpoint for ``esm2_t12``; None: fair-esm's download.

    Returns
    -------
    np.ndarray
        float32 (n, 420) or (n, 480).

    Examples
    --------
    >>> encode_proteins(["ACDA", "MKW"]).shape
    (2, 420)
    """
    if representation not in PROTEIN_REPRESENTATIONS:
        raise ValueError(f"protein representation must be one of {sorted(PROTEIN_REPRESENTATIONS)}, got {representation!r}")
    if representation == "composition":
        return protein_features(sequences)
    model_name = ESM_MODELS[representation]
    out = esm2_embeddings(sequences, weights=esm_weights, model_name=model_name)
    if out.shape[1] != 480:
        _log.warning("the ESM-2 weights %s give %d dimensions, not the 480 of %s", esm_weights, out.shape[1], model_name)
    return out
