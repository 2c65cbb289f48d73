"""Paired tests behind Table 3, the conclusion-stability check and the verdicts: Holm's step-down
correction, the one-sided paired Wilcoxon signed-rank test, two-sided signed-rank p-values of many columns
at once and the one-sided exact McNemar (sign) test on paired pass/fail outcomes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import binomtest, rankdata, wilcoxon

EXACT_SIGN_FLIPS_MAX_N = 13
"""Up to this many paired differences scipy's wilcoxon with ties or zeros enumerates all 2^n sign flips."""


def holm(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values (same order as the input).

    Parameters
    ----------
    pvalues : Sequence[float] | np.ndarray
        The unadjusted p-values.

    Returns
    -------
    np.ndarray
        Holm-adjusted p-values, in the order of the input.
    """
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

    Parameters
    ----------
    best : np.ndarray
        Scores of the candidate, one per paired observation (e.g. dataset).
    other : np.ndarray
        Scores of the other, paired with ``best``.
    higher_is_better : bool
        Whether a higher score is better.

    Returns
    -------
    float
        The one-sided p-value; 1.0 when all paired differences are zero.
    """
    a = np.asarray(best, dtype=float)
    b = np.asarray(other, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"paired samples need equal 1-d non-empty shapes, got {a.shape} and {b.shape}")
    if np.all(a == b):
        return 1.0
    alternative = "greater" if higher_is_better else "less"
    return float(wilcoxon(a, b, alternative=alternative).pvalue)


def signed_rank_pvalues(diff: ArrayLike) -> NDArray[np.float64]:
    """Two-sided Wilcoxon signed-rank p-values of every column of ``diff`` (rows: paired differences; zeros
    dropped), the values of ``scipy.stats.wilcoxon(diff, axis=0, zero_method="wilcox")``.

    With ties or zeros and at most ``EXACT_SIGN_FLIPS_MAX_N`` rows scipy runs a permutation test over all
    2^n sign flips, minutes per call for a few hundred columns; here that null distribution of the signed-rank
    sum is counted exactly instead (sum over the nonzero d_i of 2*rank_i * [flip_i], one convolution per row).
    Beyond that size scipy's exact or normal p-values are fast and used as they are.

    Parameters
    ----------
    diff : ArrayLike
        (n, c) paired differences, one column per test.

    Returns
    -------
    NDArray[np.float64]
        (c,) two-sided p-values.
    """
    d = np.asarray(diff, dtype=float)
    if d.ndim != 2:
        raise ValueError(f"differences must be (n, columns), got shape {d.shape}")
    if d.shape[0] > EXACT_SIGN_FLIPS_MAX_N:
        return np.asarray(wilcoxon(d, axis=0, zero_method="wilcox").pvalue, dtype=float)
    nonzero = d != 0
    ranks = rankdata(np.where(nonzero, np.abs(d), np.nan), method="average", axis=0, nan_policy="omit")
    weights = np.where(nonzero, np.rint(2 * np.nan_to_num(ranks)), 0).astype(np.int64).T  # (columns, n)
    size = int(weights.sum(axis=1).max()) + 1
    counts = np.zeros((weights.shape[0], size), dtype=np.int64)
    counts[:, 0] = 1
    shift = np.arange(size)[None, :]
    for w in weights.T:  # add one difference: its weight is counted or not
        source = shift - w[:, None]
        counts = counts + np.where(source >= 0, np.take_along_axis(counts, np.maximum(source, 0), axis=1), 0)
    observed = np.sum(np.where(d.T > 0, weights, 0), axis=1)
    total = counts.sum(axis=1)
    at_most = np.where(shift <= observed[:, None], counts, 0).sum(axis=1) / total
    at_least = np.where(shift >= observed[:, None], counts, 0).sum(axis=1) / total
    return np.minimum(2 * np.minimum(at_most, at_least), 1.0)


def mcnemar_exact(first: ArrayLike, second: ArrayLike) -> tuple[int, int, float]:
    """One-sided exact McNemar test of "``first`` passes more often than ``second``" on paired booleans.

    Returns (wins, losses, p): wins = pairs where only ``first`` passes, losses = pairs where only
    ``second`` does; p = P(X >= wins) for X ~ Binomial(wins + losses, 1/2) (the sign test on the
    discordant pairs), 1.0 without discordant pairs.

    Parameters
    ----------
    first : ArrayLike
        (n,) booleans: whether ``first`` passes in each paired trial.
    second : ArrayLike
        (n,) booleans of ``second``, paired with ``first``.

    Returns
    -------
    wins : int
        Pairs where only ``first`` passes.
    losses : int
        Pairs where only ``second`` passes.
    p : float
        P(X >= wins) for X ~ Binomial(wins + losses, 1/2) (the sign test on the discordant pairs), 1.0 without
        discordant pairs.
    """
    a, b = np.asarray(first, dtype=bool), np.asarray(second, dtype=bool)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"paired outcomes need equal 1-d non-empty shapes, got {a.shape} and {b.shape}")
    wins, losses = int(np.sum(a & ~b)), int(np.sum(~a & b))
    if wins + losses == 0:
        return wins, losses, 1.0
    return wins, losses, float(binomtest(wins, wins + losses, 0.5, alternative="greater").pvalue)
