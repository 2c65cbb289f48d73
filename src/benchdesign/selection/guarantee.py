"""The covering guarantee of farthest-first selection (paper section 4.1, Appendix A.2 and A.5).

The covering radius of a selection ``S`` of a pool ``P`` is ``r(S) = max_{x in P} min_{s in S} d(x, s)``.
For farthest-first with Euclidean ``d`` on ``p``-dimensional points of diameter ``Delta``, Appendix A.2
bounds it by ``r_k <= 2 Delta / (k^(1/p) - 1)`` (k >= 2).  For the cosine variant, Appendix A.5
applies the same bound to the unit-normalised points ``u_x = x / ||x||`` (Euclidean distance between
them, ``||u_x - u_y|| = sqrt(2 (1 - cos(x, y)))``).  The bound is vacuous for large ``p``; the decay a
real representation shows is summarised by ``p_eff`` of a least-squares fit
``log r_k = log c - log(k) / p_eff``: the dimension of a uniform set that would decay as fast.

Over the protocol's dataset-pool trials, ``coverage_curves`` records the mean covering radius of the
selections of farthest-first, random and k-means (``COVERAGE_STRATEGIES``) beside the bound, and
``p_eff_table`` fits ``p_eff`` to those curves (the pipeline's ``coverage`` and ``p_eff_table`` rules,
and ``benchdesign evaluate``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from benchdesign.selection.protocol import dataset_pool_subsets, standardize_rows
from benchdesign.selection.strategies import PREFIX_ORDERS, _span_coordinates

__all__ = ["METRICS", "embed", "covering_radius", "covering_radii", "diameter", "covering_bound", "fit_p_eff",
           "COVERAGE_STRATEGIES", "RADIUS_COLUMNS", "COVERAGE_COLUMNS", "radius_rows", "summarise_coverage",
           "coverage_curves", "p_eff_table"]

METRICS = ("euclidean", "cosine")
COVERAGE_STRATEGIES = ("random", "kmeans", "fafi_cosine", "fafi_euclidean")
"""Strategies whose covering radius is recorded (farthest-first, and random / k-means to compare)."""
RADIUS_COLUMNS = ["strategy", "metric", "trial", "k", "radius", "diameter"]
"""Columns of ``radius_rows``: one covering radius per (strategy, metric, trial, k)."""
COVERAGE_COLUMNS = ["strategy", "metric", "k", "radius", "radius_lo", "radius_hi", "diameter", "bound", "p",
                    "representation"]
"""Columns of a coverage table (``summarise_coverage`` plus the representation)."""


def embed(X: ArrayLike, metric: str) -> NDArray[np.float64]:
    """Points whose Euclidean distances are the metric's: X itself, or its unit-normalised rows
    (a zero row stays zero)."""
    if metric not in METRICS:
        raise ValueError(f"metric={metric!r} must be one of {METRICS}")
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or not np.isfinite(X).all():
        raise ValueError(f"X must be a finite 2-D array, got shape {X.shape}")
    if metric == "euclidean":
        return X
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)


def _pool(pool: ArrayLike | None, n: int) -> NDArray[np.intp]:
    rows = np.arange(n) if pool is None else np.asarray(pool, dtype=np.intp)
    if rows.size == 0 or rows.min() < 0 or rows.max() >= n:
        raise ValueError(f"pool must hold row indices in 0..{n - 1}")
    return rows


def covering_radii(
    X: ArrayLike, order: ArrayLike, ks: Sequence[int], pool: ArrayLike | None = None, metric: str = "euclidean"
) -> NDArray[np.float64]:
    """Covering radius of the pool by the first k rows of ``order``, for every k in ``ks``
    (incremental: O(max(ks) * |pool| * p)).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset.
    order : ArrayLike
        Row indices in selection order.
    ks : Sequence[int]
        Prefix lengths k.
    pool : ArrayLike | None
        Row indices of the pool (None: every row).
    metric : str
        ``'euclidean'`` or ``'cosine'`` (distance 1 - cos).

    Returns
    -------
    NDArray[np.float64]
        Covering radius per entry of ``ks``.

    Examples
    --------
    Five points on a line, chosen in the order 0, 4, 2: the radius halves with each prefix:

    >>> import numpy as np
    >>> from benchdesign.selection import covering_radii
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    >>> covering_radii(X, [0, 4, 2], [1, 2, 3]).tolist()
    [4.0, 2.0, 1.0]
    """
    Z = embed(X, metric)
    rows = _pool(pool, len(Z))
    order = np.asarray(order, dtype=np.intp)
    ks = [int(k) for k in ks]
    if not ks or min(ks) < 1 or max(ks) > len(order):
        raise ValueError(f"ks={ks} must lie in 1..{len(order)} (the length of the order)")
    P = Z[rows]
    nearest = np.full(len(rows), np.inf)
    out, done = {}, 0
    for k in sorted(set(ks)):
        for i in order[done:k]:
            np.minimum(nearest, np.linalg.norm(P - Z[i], axis=1), out=nearest)
        done = k
        out[k] = float(nearest.max())
    return np.array([out[k] for k in ks])


def covering_radius(X: ArrayLike, chosen: ArrayLike, pool: ArrayLike | None = None, metric: str = "euclidean") -> float:
    """Covering radius ``max_{x in pool} min_{s in chosen} d(x, s)`` (pool default: every row).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset.
    chosen : ArrayLike
        Row indices of the selection.
    pool : ArrayLike | None
        Row indices of the pool (None: every row).
    metric : str
        ``'euclidean'`` or ``'cosine'`` (distance 1 - cos).

    Returns
    -------
    float
        The covering radius.

    Examples
    --------
    Four points on a line; rows 2 and 0 chosen, the farthest point from both is row 3 (distance 2 to row 0):

    >>> import numpy as np
    >>> from benchdesign.selection import covering_radius
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0], [2.0, 0.0]])
    >>> covering_radius(X, [2, 0])
    2.0
    """
    chosen = np.asarray(chosen, dtype=np.intp)
    return float(covering_radii(X, chosen, [len(chosen)], pool, metric)[0])


def diameter(X: ArrayLike, pool: ArrayLike | None = None, metric: str = "euclidean") -> float:
    """Largest distance between two pool rows (Delta of the bound).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset.
    pool : ArrayLike | None
        Row indices of the pool (None: every row).
    metric : str
        ``'euclidean'`` or ``'cosine'`` (distance 1 - cos).

    Returns
    -------
    float
        The largest pairwise distance.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.selection import diameter
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    >>> diameter(X), diameter(X, pool=[0, 1, 2])
    (4.0, 2.0)
    """
    Z = embed(X, metric)
    P = Z[_pool(pool, len(Z))]
    sq = np.einsum("ij,ij->i", P, P)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (P @ P.T)
    return float(np.sqrt(max(d2.max(), 0.0)))


def covering_bound(ks: ArrayLike, delta: float, p: int) -> NDArray[np.float64]:
    """Appendix A.2: ``2 Delta / (k^(1/p) - 1)``, infinite for k = 1.

    Parameters
    ----------
    ks : ArrayLike
        Subset sizes k.
    delta : float
        Diameter Delta of the pool.
    p : int
        Dimension of the features.

    Returns
    -------
    NDArray[np.float64]
        The bound per k.

    Examples
    --------
    With p = 1 the bound is 2 Delta / (k - 1):

    >>> from benchdesign.selection import covering_bound
    >>> covering_bound([1, 2, 5], 1.0, 1).tolist()
    [inf, 2.0, 0.5]
    """
    ks = np.asarray(ks, dtype=float)
    if p < 1:
        raise ValueError(f"p={p!r} must be >= 1")
    with np.errstate(divide="ignore"):
        return np.where(ks > 1, 2.0 * delta / (ks ** (1.0 / p) - 1.0), np.inf)


def fit_p_eff(ks: ArrayLike, radii: ArrayLike) -> tuple[float, float]:
    """``(p_eff, c)`` of the least-squares fit ``log r_k = log c - log(k) / p_eff``; ``p_eff`` is
    infinite when the radii do not decrease (slope >= 0).  Radii <= 0 (every point selected) are left out.

    Parameters
    ----------
    ks : ArrayLike
        Subset sizes k.
    radii : ArrayLike
        Covering radius r_k per k.

    Returns
    -------
    p_eff : float
        Effective dimension (infinite when the radii do not decrease).
    c : float
        The fit's constant.

    Examples
    --------
    Radii that halve as k doubles decay as 2 / k (p_eff = 1, c = 2); halving as k quadruples gives p_eff = 2:

    >>> from benchdesign.selection import fit_p_eff
    >>> p_eff, c = fit_p_eff([2, 4, 8], [1.0, 0.5, 0.25])
    >>> round(p_eff, 3), round(c, 3)
    (1.0, 2.0)
    >>> round(fit_p_eff([4, 16, 64], [1.0, 0.5, 0.25])[0], 3)
    2.0
    """
    ks, radii = np.asarray(ks, dtype=float), np.asarray(radii, dtype=float)
    keep = radii > 0
    if keep.sum() < 2:
        raise ValueError("fit_p_eff needs at least two positive radii")
    slope, intercept = np.polyfit(np.log(ks[keep]), np.log(radii[keep]), 1)
    return (float(-1.0 / slope) if slope < 0 else float("inf")), float(np.exp(intercept))


# ------------------------------------------------------------------- over the protocol's trials

def radius_rows(strategy: str, Z: np.ndarray, pool: np.ndarray, subsets: Mapping[int, np.ndarray],
                trial: int) -> list[tuple]:
    """(strategy, metric, trial, k, r_k, diameter) of one trial (``RADIUS_COLUMNS``), Euclidean and
    cosine; prefix orders incrementally."""
    rows = []
    ks = sorted(subsets)
    position = np.full(len(Z), -1)
    position[pool] = np.arange(len(pool))
    if any((position[chosen] < 0).any() for chosen in subsets.values()):
        raise ValueError(f"trial {trial}: a {strategy} subset holds a row outside its pool")
    for metric in ("euclidean", "cosine"):
        # the pool's points in the coordinates of their span: the same distances in at most m columns
        W = _span_coordinates(embed(Z[pool], metric))
        delta = diameter(W)
        if strategy in PREFIX_ORDERS:
            radii = covering_radii(W, position[subsets[ks[-1]]], ks)
        else:
            radii = [covering_radius(W, position[subsets[k]]) for k in ks]
        rows += [(strategy, metric, trial, k, float(r), delta) for k, r in zip(ks, radii)]
    return rows


def summarise_coverage(frame: pd.DataFrame, p: int) -> pd.DataFrame:
    """Rows of ``radius_rows`` -> per (strategy, metric, k): the mean radius, its 95% band over the
    trials, the mean pool diameter and the bound 2Δ/(k^(1/p) - 1) (``p`` features)."""
    out = frame.groupby(["strategy", "metric", "k"], sort=False).agg(
        radius=("radius", "mean"), radius_lo=("radius", lambda v: v.quantile(0.025)),
        radius_hi=("radius", lambda v: v.quantile(0.975)), diameter=("diameter", "mean")).reset_index()
    out["bound"] = covering_bound(out["k"], 1.0, p) * out["diameter"]
    out["p"] = p
    return out


def coverage_curves(
    X: np.ndarray, ks: Sequence[int], n_trials: int, alpha: float, seed: int,
    strategies: Sequence[str] = COVERAGE_STRATEGIES, options: Mapping[str, Any] | None = None,
    standardize: str = "all",
) -> pd.DataFrame:
    """Mean covering radius (Euclidean and cosine) over the dataset-pool trials, per strategy and k,
    with its 95% band, the mean pool diameter Δ and the bound 2Δ/(k^(1/p) - 1) (p = number of features)."""
    rows = []
    Xz = standardize_rows(X)
    for strategy in strategies:
        for trial, pool, subsets in dataset_pool_subsets(X, strategy, ks, n_trials, alpha, seed, options,
                                                          standardize):
            Z = Xz if standardize == "all" else standardize_rows(X, pool)
            rows += radius_rows(strategy, Z, pool, subsets, trial)
    return summarise_coverage(pd.DataFrame(rows, columns=RADIUS_COLUMNS), np.shape(X)[1])


P_EFF_UNDEFINED = "no fit: fewer than two subset sizes leave a positive covering radius (the subsets cover the pool)"
"""The ``fit`` column of :func:`p_eff_table` where p_eff cannot be fitted (p_eff and c are NaN there)."""


def p_eff_table(coverage: pd.DataFrame) -> pd.DataFrame:
    """p_eff and c of the fit r_k = c k^(-1/p_eff) to every strategy's mean covering radius, per
    metric; ``p`` is the number of features. Where fewer than two subset sizes leave a positive radius (a pool
    whose datasets share a few representations, so that small subsets already cover it), p_eff and c are NaN and
    the ``fit`` column says why (:data:`P_EFF_UNDEFINED`; ``ok`` otherwise).

    Parameters
    ----------
    coverage : DataFrame
        The output of :func:`coverage_curves`: columns strategy, metric, k, radius and p.

    Returns
    -------
    DataFrame
        One row per (strategy, metric): strategy, metric, p, p_eff, c, fit.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection.guarantee import p_eff_table
    >>> curves = pd.DataFrame({"strategy": "fafi_cosine", "metric": "cosine", "k": [2, 4, 8, 2, 4, 8],
    ...                        "radius": [1.0, 0.5, 0.25, 0.4, 0.0, 0.0], "p": 3})
    >>> curves.loc[3:, "metric"] = "euclidean"
    >>> p_eff_table(curves).round(3)[["metric", "p_eff", "c"]]
          metric  p_eff    c
    0     cosine    1.0  2.0
    1  euclidean    NaN  NaN
    """
    rows = []
    for (strategy, metric), block in coverage.groupby(["strategy", "metric"], sort=False):
        if (np.asarray(block["radius"], dtype=float) > 0).sum() < 2:
            p_eff, c, fit = float("nan"), float("nan"), P_EFF_UNDEFINED
        else:
            (p_eff, c), fit = fit_p_eff(block["k"], block["radius"]), "ok"
        rows.append((strategy, metric, int(block["p"].iloc[0]), p_eff, c, fit))
    return pd.DataFrame(rows, columns=["strategy", "metric", "p", "p_eff", "c", "fit"])
