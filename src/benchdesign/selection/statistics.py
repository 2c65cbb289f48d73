"""Paired tests behind Table 3 and the conclusion-stability check: Holm's step-down correction and the
one-sided paired Wilcoxon signed-rank test."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import wilcoxon


def holm(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values (same order as the input)."""
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"p-values must be one-dimensional, got shape {p.shape}")
    bad = ~((p >= 0) & (p <= 1))
    if bad.any():
        raise ValueError(f"p-value {p[bad][0]!r} is not in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="mergesort")
    adjusted = np.minimum(np.maximum.accumulate((m - np.arange(m)) * p[order]), 1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out


def paired_wilcoxon(best: np.ndarray, other: np.ndarray, higher_is_better: bool) -> float:
    """One-sided paired Wilcoxon signed-rank p-value for "``best`` is better than ``other``".

    Returns 1.0 when all paired differences are zero.
    """
    a = np.asarray(best, dtype=float)
    b = np.asarray(other, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"paired samples need equal 1-d non-empty shapes, got {a.shape} and {b.shape}")
    if np.all(a == b):
        return 1.0
    alternative = "greater" if higher_is_better else "less"
    return float(wilcoxon(a, b, alternative=alternative).pvalue)
