"""The bottom layer of the TSC representations: checks of series and labels, seeded sub-sampling and
class-distribution measures.

Shared by ``benchdesign.domains.tsc.features`` (the project's representations),
``benchdesign.domains.tsc.paper_features`` (the paper code's) and
``benchdesign.domains.tsc.minirocket`` (the shared transform's fit sample); it imports none of them.
The public names are also importable from ``benchdesign.domains.tsc.features``.
"""
from __future__ import annotations

import zlib

import numpy as np

__all__ = [
    "check_labels",
    "check_series",
    "class_entropy",
    "class_gini",
    "dataset_rng",
    "subsample_indices",
]


# ------------------------------------------------------------------------------------ validation

def check_series(X, what: str = "X") -> np.ndarray:
    """``X`` as a float64 array (n_series, length); ValueError, prefixed by ``what``, unless it is a
    non-empty 2-d array without NaN or infinite values."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{what}: expected a non-empty 2-d array (n_series, length), got shape "
                         f"{X.shape}")
    if not np.isfinite(X).all():
        bad = int((~np.isfinite(X)).any(axis=1).sum())
        raise ValueError(f"{what}: {bad} series hold NaN or infinite values; equal-length series "
                         f"without missing values are required")
    return X


def check_labels(y, n: int | None = None, what: str = "y") -> np.ndarray:
    """``y`` as an array; ValueError, prefixed by ``what``, unless it is a non-empty 1-d array (of ``n``
    labels when ``n`` is given)."""
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] == 0:
        raise ValueError(f"{what}: expected a non-empty 1-d array of labels, got shape {y.shape}")
    if n is not None and y.shape[0] != n:
        raise ValueError(f"{what}: {y.shape[0]} labels for {n} series")
    return y


# ------------------------------------------------------------------------------------ sub-sampling

def dataset_rng(seed: int, dataset: str, stream: int = 0) -> np.random.Generator:
    """Generator seeded by (``seed``, CRC32 of ``dataset``[, ``stream``]): independent of the order of
    datasets; ``stream`` > 0 gives further independent draws of the same dataset."""
    key = [int(seed), zlib.crc32(dataset.encode("utf-8"))] + ([int(stream)] if stream else [])
    return np.random.default_rng(key)


def subsample_indices(n: int, max_series: int | None, rng: np.random.Generator) -> np.ndarray:
    """Sorted indices of at most ``max_series`` of ``n`` series, drawn without replacement.

    ``max_series=None`` (or >= n) keeps all of them, in order, and draws nothing from ``rng``.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if max_series is not None and max_series < 1:
        raise ValueError(f"max_series must be >= 1 or None, got {max_series}")
    if max_series is None or max_series >= n:
        return np.arange(n)
    return np.sort(rng.choice(n, size=max_series, replace=False))


# --------------------------------------------------------------------------------- class measures

def _class_proportions(y) -> np.ndarray:
    _, counts = np.unique(np.asarray(y), return_counts=True)
    return counts / counts.sum()


def class_gini(y) -> float:
    """Gini index of the class distribution, 1 - sum_k p_k^2 (0 = one class; 1 - 1/K = balanced)."""
    p = _class_proportions(check_labels(y))
    return float(1.0 - np.sum(p ** 2))


def class_entropy(y, normalise: bool = False) -> float:
    """Shannon entropy of the class distribution in bits, -sum_k p_k log2 p_k.

    With ``normalise=True`` divided by log2(K) (1 = balanced; defined as 1 for a single class).
    """
    p = _class_proportions(check_labels(y))
    h = float(-np.sum(p * np.log2(p)))
    if normalise:
        return h / np.log2(p.size) if p.size > 1 else 1.0
    return h
