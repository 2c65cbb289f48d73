"""Paired tests behind Table 3, the conclusion-stability check and the verdicts: Holm's step-down
correction, the one-sided paired Wilcoxon signed-rank test, two-sided signed-rank p-values of many columns
at once, the one-sided exact McNemar (sign) test on paired pass/fail outcomes, and its generalisation to pass
shares (a random baseline's share of draws meeting the target), the paired sign-flip permutation test."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import binomtest, rankdata, wilcoxon

SHARE_EXACT_MAX_N = 16
"""Up to this many nonzero paired differences [`paired_share_test`][] enumerates all 2^n sign flips."""
SHARE_RESAMPLES = 20_000
"""Random sign flips of [`paired_share_test`][] beyond ``SHARE_EXACT_MAX_N`` nonzero differences."""
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

    Examples
    --------
    Sorted, 0.01, 0.03, 0.04 are multiplied by 3, 2, 1 and made non-decreasing:

    >>> from benchdesign.selection import holm
    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
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

    Examples
    --------
    ``best`` is higher on all five datasets: the exact one-sided p-value is 1 / 2^5:

    >>> from benchdesign.selection import paired_wilcoxon
    >>> best = [0.9, 0.8, 0.85, 0.95, 0.7]
    >>> other = [0.8, 0.78, 0.7, 0.94, 0.5]
    >>> paired_wilcoxon(best, other, higher_is_better=True)
    0.03125
    >>> paired_wilcoxon(best, best, higher_is_better=True)
    1.0
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

    Examples
    --------
    Four paired differences per column: all positive (2 of the 16 sign patterns are as extreme), then
    1, -2, 3, -4 (positive rank sum 4: 14 of 16 patterns are as extreme on one side or the other):

    >>> import numpy as np
    >>> from benchdesign.selection import signed_rank_pvalues
    >>> diff = np.array([[1.0, 1.0], [2.0, -2.0], [3.0, 3.0], [4.0, -4.0]])
    >>> signed_rank_pvalues(diff).round(4).tolist()
    [0.125, 0.875]
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

    Examples
    --------
    ``first`` alone passes in three trials, ``second`` alone in one: p = P(Bin(4, 1/2) >= 3) = 5/16:

    >>> from benchdesign.selection import mcnemar_exact
    >>> mcnemar_exact([True, True, True, True, False], [False, False, False, True, True])
    (3, 1, 0.3125)
    """
    a, b = np.asarray(first, dtype=bool), np.asarray(second, dtype=bool)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"paired outcomes need equal 1-d non-empty shapes, got {a.shape} and {b.shape}")
    wins, losses = int(np.sum(a & ~b)), int(np.sum(~a & b))
    if wins + losses == 0:
        return wins, losses, 1.0
    return wins, losses, float(binomtest(wins, wins + losses, 0.5, alternative="greater").pvalue)


def paired_share_test(first: ArrayLike, second: ArrayLike, seed: int = 0,
                      n_resamples: int = SHARE_RESAMPLES) -> tuple[int, int, float]:
    """One-sided paired test of "``first`` meets the target more often than ``second``" on per-trial pass shares.

    Each value is a pass (1), a fail (0) or a share of passes in [0, 1] (a random baseline's share of its draws
    that meet the target in that trial).  With booleans only this is [`mcnemar_exact`][] (the same numbers).
    Otherwise it is the paired sign-flip permutation test of the mean difference d = first - second (Fisher-Pitman;
    on differences of +-1 it is the sign test): p = P(sum s_i |d_i| >= sum d_i) over independent signs s_i = +-1,
    counted exactly over all 2^n flips of the n nonzero differences up to ``SHARE_EXACT_MAX_N``, else estimated
    from ``n_resamples`` random flips drawn from ``seed`` as (1 + hits) / (1 + n_resamples).

    Parameters
    ----------
    first : ArrayLike
        (n,) pass shares in [0, 1] (or booleans) of ``first``, one per paired trial.
    second : ArrayLike
        (n,) pass shares of ``second``, paired with ``first``.
    seed : int
        Seed of the random sign flips (used beyond ``SHARE_EXACT_MAX_N`` nonzero differences only).
    n_resamples : int
        Number of random sign flips.

    Returns
    -------
    wins : int
        Trials where ``first`` has the larger share.
    losses : int
        Trials where ``second`` has the larger share.
    p : float
        The one-sided p-value, 1.0 without a nonzero difference.

    Examples
    --------
    >>> paired_share_test([1, 1, 1, 0], [0, 0, 0, 0])  # three discordant pairs: the sign test, 1/8
    (3, 0, 0.125)
    >>> paired_share_test([1, 1, 1, 0], [0.5, 0.25, 0.5, 0.0])  # differences 0.5, 0.75, 0.5: 1 flip in 8 as large
    (3, 0, 0.125)
    """
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"paired outcomes need equal 1-d non-empty shapes, got {a.shape} and {b.shape}")
    bad = ~((a >= 0) & (a <= 1) & (b >= 0) & (b <= 1))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"pass shares must lie in [0, 1], got {a[i]!r} and {b[i]!r} at trial {i}")
    if np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all():
        return mcnemar_exact(a.astype(bool), b.astype(bool))
    d = a - b
    wins, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
    size = np.abs(d[d != 0])
    if size.size == 0:
        return wins, losses, 1.0
    observed = float(d.sum()) - 1e-12 * size.size  # flips whose sum equals the observed one count as "as large"
    if size.size <= SHARE_EXACT_MAX_N:
        signs = 1 - 2 * ((np.arange(2 ** size.size)[:, None] >> np.arange(size.size)) & 1)
        return wins, losses, float(np.mean(signs @ size >= observed))
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, n_resamples, 2000):
        signs = rng.choice((-1.0, 1.0), size=(min(2000, n_resamples - start), size.size))
        hits += int(np.sum(signs @ size >= observed))
    return wins, losses, (1 + hits) / (1 + n_resamples)
