"""Local improvement of a feasible fold assignment of groups (post-processing of the ILP solution).

The ILP (12)-(18) is solved over K clusters; its solution is optimal for that coarse instance (or
the best found within the time limit). Each cluster is a union of micro-clusters, and the exact
pairwise leakage between micro-clusters is known, so the assignment can be improved further by
moving single micro-clusters to another fold, or swapping two, whenever that lowers L(pi) (eq. 2)
and keeps every constraint (14)/(15) satisfied (a Kernighan-Lin / Fiduccia-Mattheyses style descent).
Every step strictly lowers L(pi), so the result is never worse than the ILP's assignment.
"""

from __future__ import annotations

import numpy as np

from benchdesign.splitting.ilp import lower_bounds, upper_bounds
from benchdesign.splitting.progress import stage

__all__ = ["refine_assignment"]


@stage("refine")
def refine_assignment(
    cross: np.ndarray,
    kappa: np.ndarray,
    folds: np.ndarray,
    fractions: np.ndarray,
    epsilon: float,
    delta: float,
    classes: np.ndarray | None = None,
    max_steps: int = 100_000,
    balanced: bool = False,
) -> np.ndarray:
    """Greedy best-improvement moves and swaps of groups between folds.

    Parameters
    ----------
    cross : (M, M) symmetric leakage weights between groups (zero diagonal)
    kappa : (M,) group cardinalities; classes : (M, C) class cardinalities or None
    folds : (M,) feasible starting assignment; fractions, epsilon, delta : eqs. (14)/(15)
    balanced : also keep every fold at most (1 + epsilon) s_i n (k-fold CV, see ilp.upper_bounds)

    Returns the improved assignment (a new array); L(pi) never increases.
    """
    w = np.asarray(cross, dtype=float)
    kappa = np.asarray(kappa, dtype=float)
    folds = np.asarray(folds, dtype=np.int64).copy()
    s = np.asarray(fractions, dtype=float)
    f = s.size
    m = folds.size
    onehot = np.zeros((m, f))
    onehot[np.arange(m), folds] = 1.0
    conn = w @ onehot  # conn[a, i] = leakage weight between a and fold i
    size = kappa @ onehot
    lb = lower_bounds(kappa.sum(), s, epsilon)
    ub = upper_bounds(kappa.sum(), s, epsilon) if balanced else np.full(f, np.inf)
    if classes is not None:
        cls = np.asarray(classes, dtype=float)
        csize = cls.T @ onehot  # (C, F)
        lbc = (1.0 - delta) * np.outer(cls.sum(axis=0), s) - 1e-9 * max(1.0, cls.sum())
    else:
        cls = np.zeros((m, 0))
        csize = np.zeros((0, f))
        lbc = np.zeros((0, f))
    tol = 1e-12 * max(1.0, float(np.abs(w).sum()))
    rows = np.arange(m)

    def apply(a: int, q: int) -> None:
        p = folds[a]
        conn[:, p] -= w[:, a]
        conn[:, q] += w[:, a]
        size[p] -= kappa[a]
        size[q] += kappa[a]
        csize[:, p] -= cls[a]
        csize[:, q] += cls[a]
        folds[a] = q

    for _ in range(max_steps):
        own = conn[rows, folds]
        # single moves: a leaves fold p (must stay above its lower bounds), joins fold q
        leave_ok = size[folds] - kappa >= lb[folds]
        if cls.shape[1]:
            leave_ok &= np.all(csize[:, folds].T - cls >= lbc[:, folds].T, axis=1)
        gain = conn - own[:, None]
        gain[rows, folds] = -np.inf
        gain[~leave_ok] = -np.inf
        gain[size[None, :] + kappa[:, None] > ub[None, :]] = -np.inf  # the joined fold stays below its bound
        a, q = np.unravel_index(np.argmax(gain), gain.shape)
        if gain[a, q] > tol:
            apply(int(a), int(q))
            continue
        # swaps: a (fold p) <-> b (fold q), sizes change by kappa_b - kappa_a
        best, pair = tol, None
        for p in range(f):
            for q in range(p + 1, f):
                ia = np.flatnonzero(folds == p)
                ib = np.flatnonzero(folds == q)
                if ia.size == 0 or ib.size == 0:
                    continue
                g = (conn[ia, q] - conn[ia, p])[:, None] + (conn[ib, p] - conn[ib, q])[None, :]
                g -= 2.0 * w[np.ix_(ia, ib)]  # the edge between a and b stays cut
                dk = kappa[ib][None, :] - kappa[ia][:, None]  # change of fold p's size
                ok = (size[p] + dk >= lb[p]) & (size[q] - dk >= lb[q])
                ok &= (size[p] + dk <= ub[p]) & (size[q] - dk <= ub[q])
                if cls.shape[1]:
                    dc = cls[ib][None, :, :] - cls[ia][:, None, :]  # (|ia|, |ib|, C)
                    ok &= np.all(csize[:, p] + dc >= lbc[:, p], axis=2) & np.all(csize[:, q] - dc >= lbc[:, q], axis=2)
                g = np.where(ok, g, -np.inf)
                i, j = np.unravel_index(np.argmax(g), g.shape)
                if g[i, j] > best:
                    best, pair = g[i, j], (int(ia[i]), int(ib[j]), p, q)
        if pair is None:
            break
        a, b, p, q = pair
        apply(a, q)
        apply(b, p)
    return folds
