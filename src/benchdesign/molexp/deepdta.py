"""DeepDTA, the DataSAIL paper's model for drug-target pairs: two 1-D CNNs over the drug's SMILES string and the
target's amino-acid sequence, and a dense head on their concatenation (Öztürk et al. 2018).

Optional: needs torch (the ``chemprop`` extra brings it, or ``pip install torch==2.13.0``) and is switched on by
listing ``deepdta`` in ``molecules: models:`` of the config; it runs on the 2-D datasets only (DAVIS, KIBA,
LP-PDBBind). The paper retrained DeepDTA with the LP-PDBBind repository's torch implementation
(``model_retraining/deepdta``); its settings are the defaults here (:data:`DEEPDTA_DEFAULTS`):

- each string as characters, one integer per character, padded to 200 (SMILES) and 2,000 (sequence)
  characters with a padding token of its own, embedded in 128 dimensions;
- per encoder three 1-D convolutions with kernel size 8 and 32, 64 and 96 filters, then global max pooling;
- the 192 pooled features concatenated, dense layers of 1024, 1024 and 512 units with ReLU and dropout 0.1,
  one output per target;
- Adam (learning rate 1e-3, weight decay 1e-5), mean squared error, batches of 256, 50 epochs, ``torch.manual_seed``;
  a CUDA GPU when torch sees one, else the CPU.

Differences from that implementation: a ReLU follows each convolution (DeepDTA's architecture, and what the
LP-PDBBind code's docstring describes; its code applies ReLU only after the third); the vocabulary comes from the
training strings, and a character first seen in a test string maps to an unknown-character token (there: from
all rows, so that a test-only character has an untrained embedding, as here); strings longer than the maximum
length are cut (there: an error); the regression targets are standardised on the training rows and predictions
scaled back (there: raw affinities); training runs for the fixed number of epochs and keeps the last weights
(there: the epoch with the lowest loss on the validation rows, which DataSAIL's two-fold splits made the test
rows); labels may be missing (NaN, left out of the loss) and several targets share the network; classification
(0/1 labels) trains on binary cross-entropy and returns probabilities.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["DEEPDTA_DEFAULTS", "DeepDTA", "fit_predict_deepdta", "encode_strings"]

DEEPDTA_DEFAULTS: dict[str, Any] = {
    "epochs": 50,
    "batch_size": 256,
    "learning_rate": 1e-3,
    "weight_decay": 1e-5,
    "embedding_dim": 128,
    "filters": 32,
    "kernel_size": 8,
    "hidden": (1024, 1024, 512),
    "dropout": 0.1,
    "max_smiles_length": 200,
    "max_sequence_length": 2000,
    "device": None,
}
"""The LP-PDBBind repository's DeepDTA settings; ``molecules: model_options: deepdta:`` overrides them.
``filters`` is the first convolution's (then twice and three times as many); ``device`` None picks CUDA when
available, else the CPU."""

PAD, UNKNOWN = 0, 1
"""Token ids of the padding and of a character not in the training vocabulary; characters start at 2."""


def _check_settings(overrides: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(overrides) - set(DEEPDTA_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown deepdta option(s) {unknown}; allowed: {sorted(DEEPDTA_DEFAULTS)}")
    settings = DEEPDTA_DEFAULTS | dict(overrides)
    for key, value in settings.items():
        if key in ("learning_rate", "weight_decay", "dropout"):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"deepdta {key} must be a number >= 0, got {value!r}")
            if key == "dropout" and value >= 1:
                raise ValueError(f"deepdta dropout must be in [0, 1), got {value!r}")
        elif key == "hidden":
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not all(
                    isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1 for v in value):
                raise ValueError(f"deepdta hidden must be a list of positive integers (unit counts), got {value!r}")
            settings[key] = tuple(int(v) for v in value)
        elif key == "device":
            if value is not None and not isinstance(value, str):
                raise ValueError(f"deepdta device must be a torch device name such as 'cpu' or 'cuda', got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"deepdta {key} must be a positive integer, got {value!r}")
    for kind in ("smiles", "sequence"):
        if settings[f"max_{kind}_length"] < 3 * (settings["kernel_size"] - 1) + 1:
            raise ValueError(f"deepdta max_{kind}_length {settings[f'max_{kind}_length']} is shorter than the three "
                             f"convolutions of kernel size {settings['kernel_size']} need "
                             f"({3 * (settings['kernel_size'] - 1) + 1})")
    return settings


def encode_strings(strings: Sequence[str], vocabulary: Mapping[str, int], length: int) -> np.ndarray:
    """Strings as rows of character ids, cut or padded to ``length``.

    Parameters
    ----------
    strings : sequence of str
        SMILES strings or amino-acid sequences.
    vocabulary : mapping of str to int
        Character -> id (ids from 2; 0 pads, 1 stands for a character not in the vocabulary).
    length : int
        Columns of the result: longer strings are cut, shorter ones padded with 0.

    Returns
    -------
    numpy.ndarray
        int64 (len(strings), length).

    Examples
    --------
    >>> encode_strings(["CCO", "CN"], {"C": 2, "O": 3}, 4)
    array([[2, 2, 3, 0],
           [2, 1, 0, 0]])
    """
    out = np.full((len(strings), length), PAD, dtype=np.int64)
    for row, text in enumerate(strings):
        ids = [vocabulary.get(ch, UNKNOWN) for ch in text[:length]]
        out[row, :len(ids)] = ids
    return out


def _vocabulary(strings: Sequence[str]) -> dict[str, int]:
    chars = sorted({ch for text in strings for ch in text})
    return {ch: i + 2 for i, ch in enumerate(chars)}


def _check_strings(values: Sequence[str], name: str) -> list[str]:
    out = list(values)
    for row, text in enumerate(out):
        if not isinstance(text, str) or not text:
            raise ValueError(f"{name}: row {row} is not a non-empty string: {text!r}")
    return out


def _network(settings: dict[str, Any], n_smiles_tokens: int, n_sequence_tokens: int, n_outputs: int):
    """The torch module: forward(drug ids, drug of each pair, target ids, target of each pair) -> (pairs,
    n_outputs) scores; each distinct drug and target of a batch is encoded once (pairs repeat them)."""
    import torch
    from torch import nn

    class Transpose(nn.Module):
        def forward(self, x):  # (batch, length, embedding) -> (batch, embedding, length) for Conv1d
            return x.transpose(1, 2)

    def encoder(n_tokens: int) -> nn.Module:
        f, k = settings["filters"], settings["kernel_size"]
        return nn.Sequential(
            nn.Embedding(n_tokens, settings["embedding_dim"]), Transpose(),
            nn.Conv1d(settings["embedding_dim"], f, k), nn.ReLU(),
            nn.Conv1d(f, 2 * f, k), nn.ReLU(),
            nn.Conv1d(2 * f, 3 * f, k), nn.ReLU(),
            nn.AdaptiveMaxPool1d(1), nn.Flatten(),
        )

    class Network(nn.Module):
        def __init__(self):
            super().__init__()
            self.smiles = encoder(n_smiles_tokens)
            self.sequence = encoder(n_sequence_tokens)
            layers, width = [], 6 * settings["filters"]
            for units in settings["hidden"]:
                layers += [nn.Linear(width, units), nn.ReLU(), nn.Dropout(settings["dropout"])]
                width = units
            self.head = nn.Sequential(*layers, nn.Linear(width, n_outputs))

        def forward(self, drugs, drug_of, targets, target_of):
            return self.head(torch.cat([self.smiles(drugs)[drug_of], self.sequence(targets)[target_of]], dim=1))

    return Network()


def _encode_pairs(strings: Sequence[str], vocabulary: Mapping[str, int], length: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct strings encoded (:func:`encode_strings`), and the row of each pair's string among them."""
    distinct, index = np.unique(np.asarray(strings, dtype=object).astype(str), return_inverse=True)
    return encode_strings(distinct.tolist(), vocabulary, length), index.astype(np.int64)


def _batch(table, index, rows):
    """Token rows of the distinct entities of ``rows`` and each row's position among them."""
    import torch

    distinct, position = torch.unique(index[rows], return_inverse=True)
    return table[distinct], position


class DeepDTA:
    """DeepDTA with a scikit-learn-like interface on (SMILES, sequence) pairs; see the module for the settings.

    Parameters
    ----------
    task_type : {"regression", "classification"}, default "regression"
        Regression on standardised targets (mean squared error), or 0/1 labels (binary cross-entropy).
    seed : int, default 0
        Seeds torch (weights, dropout, batch order): equal seeds give equal predictions on the same device
        and number of threads.
    n_jobs : int, default 1
        CPU threads of torch while fitting and predicting.
    **settings
        Any of :data:`DEEPDTA_DEFAULTS` (epochs, batch_size, learning_rate, weight_decay, embedding_dim,
        filters, kernel_size, hidden, dropout, max_smiles_length, max_sequence_length, device).

    Attributes
    ----------
    settings : dict
        The defaults with the given settings.
    n_targets_ : int
        Targets seen by :meth:`fit` (1 for 1-D labels).

    Examples
    --------
    >>> model = DeepDTA(epochs=2, hidden=(16,), filters=4, embedding_dim=8, max_sequence_length=30)
    >>> smiles, sequences = ["CCO", "c1ccccc1", "CCN", "CC(=O)O"], ["MKV", "MKL", "GAV", "MKV"]
    >>> model.fit(smiles, sequences, [5.0, 6.0, 5.5, 7.0]).predict(["CCO"], ["GAV"]).shape  # doctest: +SKIP
    (1,)
    """

    def __init__(self, task_type: str = "regression", seed: int = 0, n_jobs: int = 1, **settings: Any):
        from benchdesign.molexp.models import TASK_TYPES

        if task_type not in TASK_TYPES:
            raise ValueError(f"unknown task type {task_type!r}; allowed: {', '.join(TASK_TYPES)}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
            raise ValueError(f"n_jobs must be a positive integer, got {n_jobs!r}")
        self.task_type, self.seed, self.n_jobs = task_type, int(seed), int(n_jobs)
        self.settings = _check_settings(settings)

    def _device(self):
        import torch

        name = self.settings["device"] or ("cuda" if torch.cuda.is_available() else "cpu")
        return torch.device(name)

    def _pairs(self, smiles: Sequence[str], sequences: Sequence[str]):
        """The pairs as torch tensors on the model's device: distinct drugs' token rows, drug row per pair, and
        the same for the targets."""
        import torch

        smiles = _check_strings(smiles, "smiles")
        sequences = _check_strings(sequences, "sequences")
        if len(smiles) != len(sequences):
            raise ValueError(f"one sequence per SMILES string: got {len(smiles)} SMILES and {len(sequences)} sequences")
        device = self._device()
        drugs, drug_of = _encode_pairs(smiles, self.smiles_vocabulary_, self.settings["max_smiles_length"])
        targets, target_of = _encode_pairs(sequences, self.sequence_vocabulary_, self.settings["max_sequence_length"])
        return tuple(torch.from_numpy(a).to(device) for a in (drugs, drug_of, targets, target_of))

    def fit(self, smiles: Sequence[str], sequences: Sequence[str], y: np.ndarray) -> DeepDTA:
        """Train on pairs (``smiles[i]``, ``sequences[i]``) with labels ``y[i]``.

        Parameters
        ----------
        smiles, sequences : sequence of str
            One drug SMILES string and one target sequence per pair.
        y : array-like
            (n,) or (n, n_targets) labels, NaN = missing (left out of the loss); 0/1 for classification.

        Returns
        -------
        DeepDTA
            self.
        """
        import torch

        from benchdesign.molexp.models import _as_2d_targets, _check_binary

        labels = _as_2d_targets(y, "y")
        self._one_d = np.ndim(y) == 1
        classification = self.task_type == "classification"
        if classification:
            _check_binary(labels, "y")
        if labels.shape[0] != len(smiles):
            raise ValueError(f"y has {labels.shape[0]} rows but there are {len(smiles)} pairs")
        if labels.shape[0] == 0 or np.isnan(labels).all():
            raise ValueError("y has no label to train on")
        self.smiles_vocabulary_ = _vocabulary(_check_strings(smiles, "smiles"))
        self.sequence_vocabulary_ = _vocabulary(_check_strings(sequences, "sequences"))
        drugs, drug_of, targets, target_of = self._pairs(smiles, sequences)
        self.n_targets_ = labels.shape[1]
        if classification:
            self.y_mean_, self.y_scale_ = np.zeros(self.n_targets_), np.ones(self.n_targets_)
        else:
            with np.errstate(invalid="ignore"):
                self.y_mean_ = np.nan_to_num(np.nanmean(labels, axis=0))
                scale = np.nan_to_num(np.nanstd(labels, axis=0))
            self.y_scale_ = np.where(scale > 0, scale, 1.0)
        scaled = (labels - self.y_mean_) / self.y_scale_
        s = self.settings
        device = self._device()
        threads = torch.get_num_threads()
        torch.set_num_threads(self.n_jobs)
        try:
            torch.manual_seed(self.seed)
            generator = torch.Generator().manual_seed(self.seed)
            net = _network(s, len(self.smiles_vocabulary_) + 2, len(self.sequence_vocabulary_) + 2,
                           self.n_targets_).to(device)
            optimizer = torch.optim.Adam(net.parameters(), lr=s["learning_rate"], weight_decay=s["weight_decay"])
            loss_of = torch.nn.BCEWithLogitsLoss(reduction="sum") if classification else torch.nn.MSELoss(reduction="sum")
            target = torch.from_numpy(np.nan_to_num(scaled).astype(np.float32)).to(device)
            known = torch.from_numpy(~np.isnan(scaled)).to(device)
            net.train()
            for _ in range(s["epochs"]):
                for batch in torch.randperm(len(drug_of), generator=generator).split(s["batch_size"]):
                    batch = batch.to(device)
                    mask = known[batch]
                    if not mask.any():
                        continue
                    out = net(*_batch(drugs, drug_of, batch), *_batch(targets, target_of, batch))
                    loss = loss_of(out[mask], target[batch][mask]) / mask.sum()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
        finally:
            torch.set_num_threads(threads)
        self.network_ = net.eval()
        return self

    def predict(self, smiles: Sequence[str], sequences: Sequence[str]) -> np.ndarray:
        """Predictions for pairs: regression values, or for classification the probability of label 1.

        Parameters
        ----------
        smiles, sequences : sequence of str
            One drug SMILES string and one target sequence per pair.

        Returns
        -------
        numpy.ndarray
            float64, (n,) when :meth:`fit` got 1-D labels, else (n, n_targets).
        """
        import torch

        if not hasattr(self, "network_"):
            raise ValueError("DeepDTA is not fitted yet: call fit first")
        drugs, drug_of, targets, target_of = self._pairs(smiles, sequences)
        threads = torch.get_num_threads()
        torch.set_num_threads(self.n_jobs)
        try:
            parts = []
            with torch.no_grad():
                for rows in torch.arange(len(drug_of), device=drug_of.device).split(self.settings["batch_size"]):
                    out = self.network_(*_batch(drugs, drug_of, rows), *_batch(targets, target_of, rows))
                    parts.append((torch.sigmoid(out) if self.task_type == "classification" else out).double().cpu())
        finally:
            torch.set_num_threads(threads)
        pred = torch.cat(parts).numpy() if parts else np.zeros((0, self.n_targets_))
        pred = pred * self.y_scale_ + self.y_mean_
        return pred[:, 0] if self._one_d else pred


def fit_predict_deepdta(task_type: str, smiles_train: Sequence[str], sequences_train: Sequence[str],
                        Y_train: np.ndarray, smiles_test: Sequence[str], sequences_test: Sequence[str], seed: int,
                        n_jobs: int = 1, **overrides: Any) -> np.ndarray:
    """Train DeepDTA on the training pairs and predict the test pairs, float64 (n_test, n_targets).

    Same contract as :func:`benchdesign.molexp.models.fit_predict`: ``Y_train`` is (n,) or (n, n_targets) with
    NaN = missing; classification (0/1 labels) returns the probability of label 1. A target with no labelled
    training row, or (classification) a single class among them, gets all-NaN predictions.

    Parameters
    ----------
    task_type : {"regression", "classification"}
    smiles_train, sequences_train : sequence of str
        Drug SMILES and target sequence of each training pair.
    Y_train : array-like
        Labels of the training pairs.
    smiles_test, sequences_test : sequence of str
        Drug SMILES and target sequence of each test pair.
    seed : int
        Seeds torch.
    n_jobs : int, default 1
        torch's CPU threads.
    **overrides
        Settings of :data:`DEEPDTA_DEFAULTS` (e.g. ``epochs=10``).

    Returns
    -------
    numpy.ndarray
        float64 (n_test, n_targets).

    Examples
    --------
    >>> pred = fit_predict_deepdta("regression", ["CCO", "CCN"], ["MKV", "GAV"], [5.0, 6.0], ["CCO"], ["GAV"],
    ...                            seed=0, epochs=1, max_sequence_length=30)  # doctest: +SKIP
    >>> pred.shape  # doctest: +SKIP
    (1, 1)
    """
    from benchdesign.molexp.models import _as_2d_targets

    model = DeepDTA(task_type, seed=seed, n_jobs=n_jobs, **overrides)
    y = _as_2d_targets(Y_train, "Y_train")
    if y.shape[0] != len(smiles_train):
        raise ValueError(f"Y_train must have one row per training pair ({len(smiles_train)}), got shape {y.shape}")
    if len(smiles_test) != len(sequences_test):
        raise ValueError(f"one test sequence per test SMILES string: got {len(smiles_test)} and {len(sequences_test)}")
    need = 2 if task_type == "classification" else 1
    fitted = np.array([np.unique(col[~np.isnan(col)]).size >= need for col in y.T])
    out = np.full((len(smiles_test), y.shape[1]), np.nan)
    if not fitted.any() or len(smiles_test) == 0:
        return out
    model.fit(smiles_train, sequences_train, y[:, fitted])
    out[:, fitted] = model.predict(smiles_test, sequences_test)
    return out
