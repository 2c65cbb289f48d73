"""Agreement between a subset's mean-rank vector ``r_s`` and the reference ``r_d``.

Both vectors have one entry per model (length M >= 2) and lower = better.  Definitions, with
``rank(v)_i = 1 + #{j: v_j < v_i} + (#{j != i: v_j == v_i}) / 2`` the average rank of entry i:

* ``mae``      = mean_i |r_s_i - r_d_i|                         (lower is better, >= 0)
* ``spearman`` = Pearson correlation of rank(r_s) and rank(r_d)  (= scipy.stats.spearmanr)
* ``kendall``  = Kendall's tau-b = (C - D) / sqrt((P - T_s)(P - T_d)), P = M(M-1)/2 pairs,
  C / D concordant / discordant pairs, T_s / T_d pairs tied in r_s / r_d
  (= scipy.stats.kendalltau)
* ``ndcg5``    = NDCG@5 of the order ascending in r_s against relevances from r_d
  (= sklearn.metrics.ndcg_score([rel], [-r_s], k=5)), see [`ndcg_at_k`][]
* ``mrr``      = 1 / rank(r_s)_w for the reference winner w = argmin r_d, see ``mrr``
* ``ndcg5_paper`` = the paper's code's NDCG@5: relevance = the reference mean-rank *values* r_d,
  order descending in r_s (= sklearn.metrics.ndcg_score([r_d], [r_s], k=5)), see
  [`ndcg_paper`][].  It rewards agreement on the *worst* models; kept for comparison only.

Convention: if r_s or r_d is constant, ``spearman`` and ``kendall`` are defined as 0.0 (no
ordering information; scipy returns NaN) so that averages over trials stay finite.  Ties are
exact float equality.  All functions are plain numpy with O(M^2) work and no sorting-heavy
machinery, since they run ~10^6 times with M <= 40.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "METRICS",
    "METRIC_HIGHER_IS_BETTER",
    "mae",
    "spearman",
    "kendall",
    "ndcg_at_k",
    "mrr",
    "ndcg_paper",
    "rank_metrics",
]

METRICS: tuple[str, ...] = ("mae", "spearman", "kendall", "ndcg5", "mrr", "ndcg5_paper")
METRIC_HIGHER_IS_BETTER: dict[str, bool] = {
    "mae": False,
    "spearman": True,
    "kendall": True,
    "ndcg5": True,
    "mrr": True,
    "ndcg5_paper": True,
}


def _pair(r_s: ArrayLike, r_d: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    a = np.asarray(r_s, dtype=float)
    b = np.asarray(r_d, dtype=float)
    if a.ndim != 1 or a.shape[0] < 2:
        raise ValueError(f"r_s must be a 1-D vector of at least 2 models, got shape {a.shape}")
    if b.shape != a.shape:
        raise ValueError(f"r_d has shape {b.shape}, expected {a.shape} like r_s")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        bad = "r_s" if not np.isfinite(a).all() else "r_d"
        raise ValueError(f"{bad} has a non-finite entry: {a if bad == 'r_s' else b}")
    return a, b


def _signs(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """S[i, j] = sign(v_i - v_j) (0 on ties and on the diagonal)."""
    return np.sign(v[:, None] - v[None, :])


def _spearman(ss: NDArray[np.float64], sd: NDArray[np.float64]) -> float:
    # centred average ranks: rank_i - (M+1)/2 = sum_j sign(v_i - v_j) / 2 (the 1/2 cancels)
    a = ss.sum(axis=1)
    b = sd.sum(axis=1)
    den = np.sqrt((a @ a) * (b @ b))
    if den == 0.0:
        return 0.0
    return float(min(1.0, max(-1.0, (a @ b) / den)))


def _kendall(ss: NDArray[np.float64], sd: NDArray[np.float64]) -> float:
    # over the full matrix every pair counts twice; the factors of 2 cancel
    den = np.sqrt(float(np.count_nonzero(ss)) * float(np.count_nonzero(sd)))
    if den == 0.0:
        return 0.0
    return float(min(1.0, max(-1.0, (ss.ravel() @ sd.ravel()) / den)))


@lru_cache(maxsize=256)
def _discount_cumsum(m: int, k: int) -> NDArray[np.float64]:
    """[0, d_1, d_1 + d_2, ...] with d_pos = 1/log2(pos + 1) for pos <= k, 0 beyond."""
    disc = 1.0 / np.log2(np.arange(m) + 2.0)
    disc[k:] = 0.0
    out = np.concatenate(([0.0], np.cumsum(disc)))
    out.setflags(write=False)
    return out


@lru_cache(maxsize=256)
def _ideal_dcg(m: int, k: int) -> float:
    pos = np.arange(1, min(k, m) + 1)
    return float(np.sum((k + 1 - pos) / np.log2(pos + 1.0)))


def _ndcg(ss: NDArray[np.float64], r_d: NDArray[np.float64], k: int) -> float:
    m = ss.shape[0]
    top = np.argsort(r_d, kind="stable")[:k]  # reference top-k, ties -> lower model index first
    row = ss[top]
    unequal = np.count_nonzero(row, axis=1)
    less = (row.sum(axis=1) + unequal) / 2  # models strictly better (smaller r_s) than each
    tied = m - unequal  # size of its tie group in r_s, itself included
    lo = less.astype(np.intp)
    csum = _discount_cumsum(m, k)
    # a tie group occupying 0-based positions [less, less + tied) shares its summed discount
    rel = k - np.arange(top.shape[0])
    dcg = np.sum(rel * (csum[lo + tied] - csum[lo]) / tied)
    return float(dcg / _ideal_dcg(m, k))


def _mrr(ss: NDArray[np.float64], r_d: NDArray[np.float64]) -> float:
    w = int(np.argmin(r_d))  # first minimum -> lowest model index on ties
    m = ss.shape[0]
    return float(1.0 / ((m + 1) / 2 + ss[w].sum() / 2))


def _cutoff(k: object) -> int:
    """The NDCG cut-off ``k``, checked to be an integer >= 1."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k={k!r} must be an integer >= 1")
    return int(k)


def _ndcg_paper(a: NDArray[np.float64], b: NDArray[np.float64], k: int) -> float:
    m = a.shape[0]
    k = min(k, m)
    disc = 1.0 / np.log2(np.arange(m) + 2.0)
    disc[k:] = 0.0
    csum = np.concatenate(([0.0], np.cumsum(disc)))
    _, group, counts = np.unique(-a, return_inverse=True, return_counts=True)  # descending r_s
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    mean_gain = np.bincount(group, weights=b) / counts
    dcg = np.sum(mean_gain * (csum[first + counts] - csum[first]))
    ideal = np.sum(np.sort(b)[::-1][:k] * disc[:k])
    return float(dcg / ideal) if ideal > 0 else 0.0


def mae(r_s: ArrayLike, r_d: ArrayLike) -> float:
    """Mean absolute error ``mean_i |r_s_i - r_d_i|`` between two (M,) mean-rank vectors.

    Parameters
    ----------
    r_s : ArrayLike
        (M,) mean-rank vector of the subset, lower = better.
    r_d : ArrayLike
        (M,) mean-rank vector of the full benchmark (the reference).

    Returns
    -------
    float
        The mean absolute difference, >= 0.

    Examples
    --------
    Two of four models are off by half a rank:

    >>> from benchdesign.selection import mae
    >>> mae([1.5, 2.0, 3.0, 3.5], [1.0, 2.0, 3.0, 4.0])
    0.25
    """
    a, b = _pair(r_s, r_d)
    return float(np.mean(np.abs(a - b)))


def spearman(r_s: ArrayLike, r_d: ArrayLike) -> float:
    """Spearman's rho of two (M,) vectors: Pearson correlation of their average ranks.

    Equals ``scipy.stats.spearmanr(r_s, r_d).statistic`` (ties included); 0.0 if either vector
    is constant (scipy: NaN).

    Parameters
    ----------
    r_s : ArrayLike
        (M,) mean-rank vector of the subset, lower = better.
    r_d : ArrayLike
        (M,) mean-rank vector of the full benchmark (the reference).

    Returns
    -------
    float
        rho in [-1, 1].

    Examples
    --------
    Only the order counts: the same order gives 1.0, the reversed order -1.0:

    >>> from benchdesign.selection import spearman
    >>> r_d = [1.0, 2.0, 3.0, 4.0]
    >>> spearman([1.5, 2.5, 3.0, 4.0], r_d), spearman([4.0, 3.0, 2.0, 1.0], r_d)
    (1.0, -1.0)
    """
    a, b = _pair(r_s, r_d)
    return _spearman(_signs(a), _signs(b))


def kendall(r_s: ArrayLike, r_d: ArrayLike) -> float:
    """Kendall's tau-b of two (M,) vectors.

    ``tau_b = sum_{i<j} s_ij d_ij / sqrt(sum_{i<j} s_ij^2 * sum_{i<j} d_ij^2)`` with
    ``s_ij = sign(r_s_i - r_s_j)``, ``d_ij = sign(r_d_i - r_d_j)``; equals
    ``scipy.stats.kendalltau(r_s, r_d).statistic``; 0.0 if either vector is constant (scipy: NaN).

    Parameters
    ----------
    r_s : ArrayLike
        (M,) mean-rank vector of the subset, lower = better.
    r_d : ArrayLike
        (M,) mean-rank vector of the full benchmark (the reference).

    Returns
    -------
    float
        tau-b in [-1, 1].

    Examples
    --------
    The top two models swapped: 5 of the 6 pairs concordant, 1 discordant, tau = (5 - 1) / 6:

    >>> from benchdesign.selection import kendall
    >>> round(kendall([2.0, 1.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]), 3)
    0.667
    """
    a, b = _pair(r_s, r_d)
    return _kendall(_signs(a), _signs(b))


def ndcg_at_k(r_s: ArrayLike, r_d: ArrayLike, k: int = 5) -> float:
    """NDCG@k of the predicted order (ascending r_s) against relevances from the reference r_d.

    Relevance: the model at 1-based reference position j (ascending r_d, ties broken by lower
    model index) gets ``rel = max(0, k + 1 - j)`` (k, k-1, ..., 1 for the reference top-k).
    ``DCG@k = sum_pos rel_(pos) / log2(pos + 1)`` over predicted positions pos <= k; models tied
    in r_s share the mean relevance of their group, spread over the group's positions
    (``sklearn.metrics.ndcg_score(..., ignore_ties=False)``).  Normalised by the ideal DCG
    ``sum_{j <= min(k, M)} (k + 1 - j) / log2(j + 1)``.  Equals
    ``sklearn.metrics.ndcg_score([rel], [-r_s], k=k)``.  Range [0, 1].

    Parameters
    ----------
    r_s : ArrayLike
        (M,) mean-rank vector of the subset, lower = better.
    r_d : ArrayLike
        (M,) mean-rank vector of the full benchmark (the reference).
    k : int
        Cut-off, an integer >= 1.

    Returns
    -------
    float
        NDCG@k in [0, 1].

    Examples
    --------
    The same order scores 1.0; swapping the top two models costs more than swapping the bottom two; at k = 1
    only the predicted best model counts:

    >>> from benchdesign.selection import ndcg_at_k
    >>> r_d = [1.0, 2.0, 3.0, 4.0]
    >>> ndcg_at_k(r_d, r_d)
    1.0
    >>> round(ndcg_at_k([2.0, 1.0, 3.0, 4.0], r_d), 3), round(ndcg_at_k([1.0, 2.0, 4.0, 3.0], r_d), 3)
    (0.963, 0.993)
    >>> ndcg_at_k([4.0, 3.0, 2.0, 1.0], r_d, k=1)
    0.0
    """
    k = _cutoff(k)
    a, b = _pair(r_s, r_d)
    return _ndcg(_signs(a), b, k)


def mrr(r_s: ArrayLike, r_d: ArrayLike) -> float:
    """Reciprocal rank of the reference winner in the predicted order.

    The winner is ``w = argmin r_d`` (ties -> lowest model index).  Its predicted position is
    ``1 + #{j: r_s_j < r_s_w} + #{j != w: r_s_j == r_s_w} / 2`` (average position of its tie
    group in ascending r_s); the result is 1 / position, in (0, 1].

    Parameters
    ----------
    r_s : ArrayLike
        (M,) mean-rank vector of the subset, lower = better.
    r_d : ArrayLike
        (M,) mean-rank vector of the full benchmark (the reference).

    Returns
    -------
    float
        1 / position, in (0, 1].

    Examples
    --------
    The reference winner (model 0) is predicted second:

    >>> from benchdesign.selection import mrr
    >>> mrr([2.0, 1.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0])
    0.5
    """
    a, b = _pair(r_s, r_d)
    return _mrr(_signs(a), b)


def ndcg_paper(r_s: ArrayLike, r_d: ArrayLike, k: int = 5) -> float:
    """NDCG@k as the paper's code computes it (``utils/get_metrics.py``): the reference mean-rank
    values r_d are the relevances and the predicted order is *descending* r_s, ties sharing their
    group's mean relevance; equals ``sklearn.metrics.ndcg_score([r_d], [r_s], k=min(k, M))``.

    Because a larger mean rank is a worse model, this rewards recovering the bottom of the ranking;
    [`ndcg_at_k`][] (``ndcg5``) is the sound version.  0.0 if every relevance is 0.

    Parameters
    ----------
    r_s : ArrayLike
        (M,) mean-rank vector of the subset, lower = better.
    r_d : ArrayLike
        (M,) mean-rank vector of the full benchmark (the reference).
    k : int
        Cut-off, an integer >= 1.

    Returns
    -------
    float
        The paper's NDCG@k, in [0, 1].

    Examples
    --------
    Unlike [`ndcg_at_k`][], swapping the bottom two models costs more than swapping the top two:

    >>> from benchdesign.selection import ndcg_paper
    >>> r_d = [1.0, 2.0, 3.0, 4.0]
    >>> round(ndcg_paper(r_d, r_d), 3)
    1.0
    >>> round(ndcg_paper([2.0, 1.0, 3.0, 4.0], r_d), 3), round(ndcg_paper([1.0, 2.0, 4.0, 3.0], r_d), 3)
    (0.991, 0.95)
    """
    k = _cutoff(k)
    a, b = _pair(r_s, r_d)
    return _ndcg_paper(a, b, k)


def rank_metrics(r_s: ArrayLike, r_d: ArrayLike) -> dict[str, float]:
    """All metrics of ``METRICS`` for one pair of (M,) mean-rank vectors (lower = better).

    Parameters
    ----------
    r_s : ArrayLike
        (M,) mean-rank vector of the subset, lower = better.
    r_d : ArrayLike
        (M,) mean-rank vector of the full benchmark (the reference).

    Returns
    -------
    dict[str, float]
        Keys ``mae, spearman, kendall, ndcg5, mrr, ndcg5_paper`` (NDCG at k = 5).

    Examples
    --------
    The subset swaps the top two of four models:

    >>> from benchdesign.selection import rank_metrics
    >>> values = rank_metrics([2.0, 1.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0])
    >>> {metric: round(value, 3) for metric, value in values.items()}
    {'mae': 0.5, 'spearman': 0.8, 'kendall': 0.667, 'ndcg5': 0.963, 'mrr': 0.5, 'ndcg5_paper': 0.991}
    """
    a, b = _pair(r_s, r_d)
    ss = _signs(a)
    sd = _signs(b)
    return {
        "mae": float(np.mean(np.abs(a - b))),
        "spearman": _spearman(ss, sd),
        "kendall": _kendall(ss, sd),
        "ndcg5": _ndcg(ss, b, 5),
        "mrr": _mrr(ss, b),
        "ndcg5_paper": _ndcg_paper(a, b, 5),
    }
