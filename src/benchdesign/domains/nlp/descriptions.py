"""Structured natural-language descriptions of MTEB tasks and their embeddings (paper section 5.2).

Each task of the English MTEB benchmark is described by eight fields (``FIELDS``: task family,
input format, objective, text granularity, language setup, domain, label/relevance structure,
special properties), kept in ``benchdesign/data/nlp_task_descriptions.yaml`` and rendered into one short text
with a fixed template (``render_description``). The texts are then embedded:

* ``tfidf`` (default; offline, no weights): TF-IDF (sublinear tf, unigrams and bigrams) followed by
  a seeded truncated SVD, each row l2-normalised (``tfidf_svd_embeddings``);
* a Hugging Face encoder given by model id or local path (``bert-base-uncased`` in the paper):
  tokenised with truncation at ``max_length`` (256), final-layer token embeddings mean-pooled over
  the non-padding tokens, l2-normalised (``transformer_embeddings``; needs torch and
  transformers, the optional extra ``nlp-encoder``).

Muennighoff et al., "MTEB: Massive Text Embedding Benchmark", EACL 2023.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from benchdesign.files import package_data

__all__ = [
    "DEFAULT_SETTINGS",
    "FIELDS",
    "FIELD_LABELS",
    "default_descriptions_path",
    "description_texts",
    "encode_descriptions",
    "encoder_packages",
    "load_descriptions",
    "render_description",
    "tfidf_svd_embeddings",
    "transformer_embeddings",
]

FIELDS = ("task_family", "input_format", "objective", "text_granularity", "language_setup", "domain",
          "label_structure", "special_properties")
FIELD_LABELS = {
    "task_family": "Task family",
    "input_format": "Input format",
    "objective": "Objective",
    "text_granularity": "Text granularity",
    "language_setup": "Language setup",
    "domain": "Domain",
    "label_structure": "Label/relevance structure",
    "special_properties": "Special properties",
}
DEFAULT_SETTINGS: dict = {
    "encoder": "tfidf",        # "tfidf", or a Hugging Face model id / local model directory
    "svd_components": 32,      # TF-IDF path: dimensions after truncated SVD
    "max_length": 256,         # transformer path: tokens per description
    "batch_size": 16,          # transformer path
    "seed": None,              # None = the top-level seed
}
"""Defaults of the ``features: nlp:`` section of the pipeline configuration."""


def default_descriptions_path() -> Path:
    """``nlp_task_descriptions.yaml``, shipped inside the package (``benchdesign/data/``)."""
    return package_data("nlp_task_descriptions.yaml")


def load_descriptions(path: str | os.PathLike | None = None) -> dict[str, dict[str, str]]:
    """Read and validate the task descriptions (``tasks: {name: {field: text}}``).

    Raises
    ------
    ValueError naming the task and the missing, unknown or empty field.
    """
    path = Path(path) if path is not None else default_descriptions_path()
    with path.open(encoding="utf-8") as fh:
        doc = yaml.safe_load(fh)
    if not isinstance(doc, dict) or not isinstance(doc.get("tasks"), dict) or not doc["tasks"]:
        raise ValueError(f"{path}: expected a top-level mapping with a non-empty 'tasks' mapping")
    out: dict[str, dict[str, str]] = {}
    for name, fields in doc["tasks"].items():
        if not isinstance(fields, dict):
            raise ValueError(f"{path}: task {name!r}: expected a mapping of fields")
        missing = [f for f in FIELDS if f not in fields]
        unknown = sorted(set(fields) - set(FIELDS))
        if missing or unknown:
            raise ValueError(f"{path}: task {name!r}: missing field(s) {missing}, unknown field(s) "
                             f"{unknown}; expected {list(FIELDS)}")
        empty = [f for f in FIELDS if not isinstance(fields[f], str) or not fields[f].strip()]
        if empty:
            raise ValueError(f"{path}: task {name!r}: empty or non-text field(s) {empty}")
        out[str(name)] = {f: " ".join(fields[f].split()) for f in FIELDS}
    return out


def render_description(fields: Mapping[str, str]) -> str:
    """The fixed template: ``"Task family: ... . Input format: ... . ... Special properties: ... ."``"""
    parts = []
    for f in FIELDS:
        text = str(fields[f]).strip().rstrip(".")
        parts.append(f"{FIELD_LABELS[f]}: {text}.")
    return " ".join(parts)


def description_texts(descriptions: Mapping[str, Mapping[str, str]] | str | os.PathLike | None = None,
                      tasks: Sequence[str] | None = None) -> pd.Series:
    """Rendered description per task (index = task name), optionally restricted to ``tasks`` in order.

    Raises ValueError naming the tasks that have no description.
    """
    if descriptions is None or isinstance(descriptions, (str, os.PathLike)):
        descriptions = load_descriptions(descriptions)
    names = list(descriptions) if tasks is None else [str(t) for t in tasks]
    missing = [t for t in names if t not in descriptions]
    if missing:
        raise ValueError(f"no description for task(s) {missing}")
    return pd.Series({t: render_description(descriptions[t]) for t in names}, dtype=object)


def _l2_normalise(V: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(V, axis=1, keepdims=True)
    return V / np.where(norms > 0, norms, 1.0)


def tfidf_svd_embeddings(texts: pd.Series, n_components: int = 32, seed: int = 0) -> pd.DataFrame:
    """TF-IDF (sublinear tf, English stop words removed, 1-2-grams) -> truncated SVD -> l2 norm.

    ``n_components`` is capped at (number of texts - 1) and (vocabulary size - 1).

    Returns
    -------
    DataFrame (n_texts, n_components) indexed like ``texts``, columns ``svd_<j>``.
    """
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    if len(texts) < 2:
        raise ValueError(f"need at least 2 texts, got {len(texts)}")
    if n_components < 1:
        raise ValueError(f"n_components must be >= 1, got {n_components}")
    tfidf = TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), stop_words="english")
    M = tfidf.fit_transform(list(texts))
    k = int(min(n_components, M.shape[0] - 1, M.shape[1] - 1))
    if k < 1:
        raise ValueError(f"vocabulary too small for an SVD ({M.shape[1]} terms)")
    svd = TruncatedSVD(n_components=k, algorithm="randomized", n_iter=10, random_state=seed)
    V = _l2_normalise(svd.fit_transform(M))
    width = len(str(k - 1))
    return pd.DataFrame(V, index=texts.index, columns=[f"svd_{j:0{width}d}" for j in range(k)])


def transformer_embeddings(texts: pd.Series, model: str = "bert-base-uncased", max_length: int = 256,
                           batch_size: int = 16, device: str = "cpu") -> pd.DataFrame:
    """Mean-pooled final-layer token embeddings of a Hugging Face encoder, l2-normalised.

    Parameters
    ----------
    texts : Series of strings (index = task names).
    model : model id on the Hugging Face hub, or a local directory holding the model and tokenizer
        (loaded with ``local_files_only``, so no network access is attempted for a path).
    max_length : tokens per text (longer texts are truncated).
    batch_size : texts per forward pass; padding tokens are excluded from the mean, so the result does
        not depend on it.
    device : torch device.

    Returns
    -------
    DataFrame (n_texts, hidden_size) indexed like ``texts``, columns ``dim_<j>``.
    """
    try:
        import torch
        from transformers import AutoModel, AutoTokenizer
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("the transformer encoder needs torch and transformers: "
                          "pip install 'benchdesign[nlp-encoder]'") from exc
    local = Path(model).is_dir()
    try:
        tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=local)
        encoder = AutoModel.from_pretrained(model, local_files_only=local).to(device).eval()
    except OSError as exc:
        kind = "local directory" if local else "hub id"
        raise OSError(f"cannot load the encoder {model!r} ({kind}): {str(exc).rstrip('.')}. Without "
                      "internet access, point the encoder at a local directory holding the model "
                      "and its tokenizer (e.g. one written by save_pretrained).") from exc
    chunks = []
    items = [str(t) for t in texts]
    with torch.no_grad():
        for start in range(0, len(items), batch_size):
            batch = tokenizer(items[start:start + batch_size], padding=True, truncation=True,
                              max_length=max_length, return_tensors="pt").to(device)
            hidden = encoder(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
            chunks.append(pooled.cpu().numpy().astype(np.float64))
    V = _l2_normalise(np.vstack(chunks))
    width = len(str(V.shape[1] - 1))
    return pd.DataFrame(V, index=texts.index, columns=[f"dim_{j:0{width}d}" for j in range(V.shape[1])])


def encoder_packages(encoder: str) -> tuple[str, ...]:
    """Modules ``encode_descriptions`` imports beyond the core ones for ``encoder``.

    Parameters
    ----------
    encoder : ``"tfidf"`` or a Hugging Face model id / local directory.

    Returns
    -------
    tuple of str
        Nothing for ``"tfidf"`` (scikit-learn); ``torch`` and ``transformers`` for a transformer encoder.
        The workflow refuses a config whose encoder needs a module that is not installed
        (``benchdesign.workflow.preflight.check_packages``).
    """
    return () if encoder == "tfidf" else ("torch", "transformers")


def encode_descriptions(texts: pd.Series, encoder: str = "tfidf", *, svd_components: int = 32,
                        seed: int = 0, max_length: int = 256, batch_size: int = 16) -> pd.DataFrame:
    """Embed rendered descriptions with ``encoder`` ("tfidf" or a Hugging Face model id / path)."""
    if encoder == "tfidf":
        return tfidf_svd_embeddings(texts, n_components=svd_components, seed=seed)
    return transformer_embeddings(texts, model=encoder, max_length=max_length, batch_size=batch_size)
