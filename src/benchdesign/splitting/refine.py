"""Local improvement of a feasible fold assignment of groups (post-processing of the ILP solution).

The ILP (12)-(18) is solved over K clusters; its solution is optimal for that coarse instance (or
the best found within the time limit). Each cluster is a union of micro-clusters, and the exact
pairwise leakage between micro-clusters is known, so the assignment can be improved further by
moving single micro-clusters to another fold, or swapping two. Three phases, each a greedy descent
that keeps every constraint (14)/(15) satisfied, with the upper class bounds of
``stratification='two_sided'`` (Kernighan-Lin / Fiduccia-Mattheyses style):

1. *fractions* (``fraction_tolerance``): move groups until every fold's size lies within
   ``fraction_tolerance * n`` of its requested size s_i n, at the least leakage cost per unit of size
   moved. eq. (14)'s epsilon is a tolerance, and an ILP that minimises L(pi) ends at its edge (a
   smaller test fold leaks less); this phase brings the folds back to the sizes asked for. From then
   on that band is the size constraint of the next phases.
2. *total*: first global linearised reassignments while L(pi) (eq. 2) drops (``_reassign``: every group to
   the fold it is most connected to, within the size and class bounds, by one LP; kept only when the exact
   L(pi) drops), then moves and swaps while it drops. Moves and swaps exchange one or two groups at a time;
   in an 80/20 split of 10^6 molecules they stop where the small fold could still leak much less with a
   different choice of many groups (MOSES: 0.272 -> 0.267 on the same 1,000 micro-clusters).
3. *fold balance* (``balance_folds``, three or more folds): L(pi) counts each cut pair once, but in
   k-fold cross-validation every fold is tested against the other k - 1, so the figure that matters is
   each fold's own leakage cut_i = sum over a in fold i, b not in i of w_ab (fold i vs the rest). A
   minimal total can leave one fold far leakier than a random fold; this phase lowers
   (max_i cut_i, L(pi)) lexicographically: a step either lowers the leakiest fold's cut, or lowers
   L(pi) without raising any fold above that maximum.

Without phase 1 every step lowers L(pi) or (phase 3) the largest fold cut, so the result is never
worse than the ILP's assignment in the objective of the last phase run.
"""

from __future__ import annotations

import numpy as np

from benchdesign.splitting.ilp import class_bounds, lower_bounds, upper_bounds
from benchdesign.splitting.options import DEFAULT_STRATIFICATION
from benchdesign.splitting.progress import stage

__all__ = ["refine_assignment", "fold_cuts"]


def fold_cuts(cross: np.ndarray, folds: np.ndarray, n_folds: int) -> np.ndarray:
    """cut_i = sum_{a in i, b not in i} w_ab: the leakage of every fold against the rest."""
    onehot = np.zeros((folds.size, n_folds))
    onehot[np.arange(folds.size), folds] = 1.0
    conn = np.asarray(cross, dtype=float) @ onehot
    tot = conn.sum(axis=1)
    return onehot.T @ tot - np.einsum("ai,ai->i", onehot, conn)


class _State:
    """Fold assignment with the running sums the moves need (connection to each fold, sizes, cuts), and the
    (C, F) class bounds ``lbc`` / ``ubc`` every fold's class counts ``csize`` keep."""

    def __init__(self, cross, kappa, folds, n_folds, classes, class_limits=None):
        self.w = np.asarray(cross, dtype=float)
        self.kappa = np.asarray(kappa, dtype=float)
        self.folds = np.asarray(folds, dtype=np.int64).copy()
        self.f = n_folds
        m = self.folds.size
        self.rows = np.arange(m)
        onehot = np.zeros((m, n_folds))
        onehot[self.rows, self.folds] = 1.0
        self.conn = self.w @ onehot  # conn[a, i] = leakage weight between a and fold i
        self.tot = self.w.sum(axis=1)
        self.size = self.kappa @ onehot
        self.cls = np.zeros((m, 0)) if classes is None else np.asarray(classes, dtype=float)
        self.csize = self.cls.T @ onehot  # (C, F)
        self.lbc, self.ubc = class_limits if class_limits is not None else (np.zeros((0, n_folds)),) * 2
        self.cut = fold_cuts(self.w, self.folds, n_folds)
        self.tol = 1e-12 * max(1.0, float(np.abs(self.w).sum()))

    def apply(self, a: int, q: int) -> None:
        p = self.folds[a]
        self.cut[p] += 2.0 * self.conn[a, p] - self.tot[a]
        self.cut[q] += self.tot[a] - 2.0 * self.conn[a, q]
        self.conn[:, p] -= self.w[:, a]
        self.conn[:, q] += self.w[:, a]
        self.size[p] -= self.kappa[a]
        self.size[q] += self.kappa[a]
        self.csize[:, p] -= self.cls[a]
        self.csize[:, q] += self.cls[a]
        self.folds[a] = q

    def move_ok(self, lb, ub) -> np.ndarray:
        """(m, F) mask of the single moves a -> q that keep every size and class bound."""
        ok = np.ones((self.folds.size, self.f), dtype=bool)
        ok[self.rows, self.folds] = False
        leave = self.size[self.folds] - self.kappa >= lb[self.folds]
        if self.cls.shape[1]:
            leave &= np.all(self.csize[:, self.folds].T - self.cls >= self.lbc[:, self.folds].T, axis=1)
        ok[~leave] = False
        ok &= self.size[None, :] + self.kappa[:, None] <= ub[None, :]
        if self.cls.shape[1]:  # a's classes join fold q
            ok &= np.all(self.csize[None, :, :] + self.cls[:, :, None] <= self.ubc[None, :, :], axis=1)
        return ok

    def swap_candidates(self, p: int, q: int, key_p, key_q, lb, ub, top: int | None, members=None):
        """Members of p and q (or the given ``members`` of each; the ``top`` of them by ``key_p(ia)`` /
        ``key_q(ib)``, or all), and the (|ia|, |ib|) mask of the swaps among them that keep every bound."""
        in_p, in_q = members or (np.flatnonzero(self.folds == p), np.flatnonzero(self.folds == q))
        ia = _top(in_p, key_p, top)
        ib = _top(in_q, key_q, top)
        dk = self.kappa[ib][None, :] - self.kappa[ia][:, None]  # change of fold p's size
        ok = (self.size[p] + dk >= lb[p]) & (self.size[q] - dk >= lb[q])
        ok &= (self.size[p] + dk <= ub[p]) & (self.size[q] - dk <= ub[q])
        if self.cls.shape[1]:
            dc = self.cls[ib][None, :, :] - self.cls[ia][:, None, :]  # (|ia|, |ib|, C)
            ok &= np.all(self.csize[:, p] + dc >= self.lbc[:, p], axis=2)
            ok &= np.all(self.csize[:, q] - dc >= self.lbc[:, q], axis=2)
            ok &= np.all(self.csize[:, p] + dc <= self.ubc[:, p], axis=2)
            ok &= np.all(self.csize[:, q] - dc <= self.ubc[:, q], axis=2)
        return ia, ib, ok


REASSIGN_ROUNDS = 20  # linearised global reassignments (phase 2a) at most
SWAP_SHORTLIST = 64  # swaps are first sought among the 64 most promising members of each fold


def _top(members: np.ndarray, key, top: int | None) -> np.ndarray:
    """The ``top`` members with the largest ``key(members)`` (all when top is None or larger)."""
    if top is None or members.size <= top:
        return members
    return members[np.argpartition(-key(members), top - 1)[:top]]


def _shortlist_first(search):
    """Run ``search(top)`` on the shortlists, and on all members when the shortlists hold no step.

    Swap steps cost |fold p| x |fold q| each; the shortlist makes most of them |top|^2, while the final
    full search keeps the result a local optimum over all swaps.
    """
    step = search(SWAP_SHORTLIST)
    return step if step is not None else search(None)


def _reach_fractions(st: _State, target, tolerance: float, lb, ub, max_steps: int) -> tuple:
    """Phase 1: move groups until |size_i - target_i| <= tolerance; returns the new (lb, ub) band."""
    n = st.kappa.sum()
    slack = 1e-9 * max(1.0, n)
    lo = np.maximum(lb, target - tolerance * n - slack)
    hi = np.minimum(ub, target + tolerance * n + slack)

    for _ in range(max_steps):
        before = _viol(st.size, lo, hi)
        if not before.any():
            break
        ok = st.move_ok(lb, ub)
        p = st.folds
        size_p = st.size[p][:, None] - st.kappa[:, None]  # fold p after a leaves
        size_q = st.size[None, :] + st.kappa[:, None]  # fold q after a joins
        gain = before[p][:, None] + before[None, :] - _viol(size_p, lo[p][:, None], hi[p][:, None]) \
            - _viol(size_q, lo[None, :], hi[None, :])
        ok &= gain > 1e-9 * max(1.0, n)
        if not ok.any():
            break
        cost = st.conn[st.rows, p][:, None] - st.conn  # rise of L(pi)
        score = np.where(ok, cost / np.where(ok, gain, 1.0), np.inf)
        a, q = np.unravel_index(np.argmin(score), score.shape)
        st.apply(int(a), int(q))
    # the band becomes the size constraint; a fold that could not reach it keeps its size as its bound
    return np.minimum(lo, st.size), np.maximum(hi, st.size)


def _viol(size, lo, hi):
    return np.maximum(size - hi, 0.0) + np.maximum(lo - size, 0.0)


def _linear_assignment(st: _State, lb, ub) -> np.ndarray | None:
    """The assignment that minimises L(pi) linearised at the current one, within every bound, or None.

    With the others' folds fixed, group a in fold i adds tot_a - conn(a, i) to 2 L(pi); the LP
    min sum_{a,i} -conn(a, i) x_ai over x_ai >= 0, sum_i x_ai = 1, lb <= fold sizes <= ub and the class
    bounds (HiGHS' dual simplex, deterministic) has a vertex optimum with at most as many split groups
    as binding size and class constraints; each group goes to its largest x_ai, a split group to the fold
    of its support that keeps the bounds best. None when the LP fails or no rounding keeps every bound.
    """
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix, vstack

    m, f = st.folds.size, st.f
    var = np.arange(m * f).reshape(m, f)  # x_ai at var[a, i]
    one = coo_matrix((np.ones(m * f), (np.repeat(np.arange(m), f), var.reshape(-1))), shape=(m, m * f))
    rows = [coo_matrix((np.tile(st.kappa, f), (np.repeat(np.arange(f), m), var.T.reshape(-1))), shape=(f, m * f))]
    lo, hi = [lb], [ub]
    c_count = st.cls.shape[1]
    for c in range(c_count):
        rows.append(coo_matrix((np.tile(st.cls[:, c], f), (np.repeat(np.arange(f), m), var.T.reshape(-1))),
                               shape=(f, m * f)))
        lo.append(st.lbc[c])
        hi.append(st.ubc[c])
    a_ub = vstack(rows).tocsr()
    lo, hi = np.concatenate(lo), np.concatenate(hi)
    keep_hi, keep_lo = np.isfinite(hi), np.isfinite(lo)
    res = linprog(-st.conn.reshape(-1), A_ub=vstack([a_ub[keep_hi], -a_ub[keep_lo]]).tocsr(),
                  b_ub=np.concatenate([hi[keep_hi], -lo[keep_lo]]), A_eq=one.tocsr(), b_eq=np.ones(m),
                  bounds=(0.0, 1.0), method="highs-ds")
    if res.status != 0:
        return None
    x = res.x.reshape(m, f)
    folds = np.argmax(x, axis=1)
    # the few split groups: each to the fold of its support that leaves the smallest bound violation
    for a in np.flatnonzero(x.max(axis=1) < 1.0 - 1e-9):
        support = np.flatnonzero(x[a] > 1e-9)
        scores = []
        for i in support:
            folds[a] = i
            scores.append(_bound_violation(st, folds, lb, ub))
        folds[a] = support[int(np.argmin(scores))]
    return folds if _bound_violation(st, folds, lb, ub) == 0.0 else None


def _bound_violation(st: _State, folds: np.ndarray, lb, ub) -> float:
    """How far the fold sizes and class counts of ``folds`` lie outside their bounds (0: within all)."""
    onehot = np.zeros((folds.size, st.f))
    onehot[np.arange(folds.size), folds] = 1.0
    out = float(_viol(st.kappa @ onehot, lb, ub).sum())
    if st.cls.shape[1]:
        out += float(_viol(st.cls.T @ onehot, st.lbc, st.ubc).sum())
    return out


def _reassign(st: _State, lb, ub, max_rounds: int) -> _State:
    """Phase 2a: global descent by linearised reassignment ([`_linear_assignment`][]) while L(pi) drops.

    Single moves and swaps exchange one or two groups at a time; in a split of unequal folds (80/20) they
    stop where every single exchange costs leakage, although a different choice of many groups for the small
    fold would leak less (at 10^6 molecules the groups' preferences for the folds are small and spread over
    hundreds of groups). Each round puts every group in the fold it is most connected to, subject to the
    bounds, and is kept only when the exact L(pi) over the groups drops.
    """
    current = float(st.cut.sum()) / 2.0
    for _ in range(max_rounds):
        folds = _linear_assignment(st, lb, ub)
        if folds is None or np.array_equal(folds, st.folds):
            break
        new = _State(st.w, st.kappa, folds, st.f, st.cls if st.cls.shape[1] else None, (st.lbc, st.ubc))
        total = float(new.cut.sum()) / 2.0
        if total >= current - st.tol:
            break
        st, current = new, total
    return st


def _lower_total(st: _State, lb, ub, max_steps: int) -> None:
    """Phase 2: best-improvement moves, then swaps, while L(pi) drops."""
    for _ in range(max_steps):
        own = st.conn[st.rows, st.folds]
        gain = np.where(st.move_ok(lb, ub), st.conn - own[:, None], -np.inf)
        a, q = np.unravel_index(np.argmax(gain), gain.shape)
        if gain[a, q] > st.tol:
            st.apply(int(a), int(q))
            continue
        pair = _shortlist_first(lambda top: _total_swap(st, lb, ub, top))
        if pair is None:
            break
        a, b, p, q = pair
        st.apply(a, q)
        st.apply(b, p)


def _total_swap(st: _State, lb, ub, top: int | None, cap: tuple | None = None):
    """The swap (a, b, p, q) that lowers L(pi) most, or None; with ``cap`` = (unit, limit), only swaps
    that keep every fold's cut_i unit_i <= limit."""
    best, pair = st.tol, None
    for p in range(st.f):
        for q in range(p + 1, st.f):
            ia, ib, ok = st.swap_candidates(p, q, lambda a: st.conn[a, q] - st.conn[a, p],
                                            lambda b: st.conn[b, p] - st.conn[b, q], lb, ub, top)
            if not ok.any():
                continue
            w_ab = 2.0 * st.w[np.ix_(ia, ib)]
            g = (st.conn[ia, q] - st.conn[ia, p])[:, None] + (st.conn[ib, p] - st.conn[ib, q])[None, :]
            g -= w_ab  # the edge between a and b stays cut
            if cap is not None:
                unit, limit = cap
                cut_p = st.cut[p] + (2.0 * st.conn[ia, p] - st.tot[ia])[:, None] \
                    + (st.tot[ib] - 2.0 * st.conn[ib, p])[None, :] + w_ab
                cut_q = st.cut[q] + (2.0 * st.conn[ib, q] - st.tot[ib])[None, :] \
                    + (st.tot[ia] - 2.0 * st.conn[ia, q])[:, None] + w_ab
                ok &= (cut_p * unit[p] <= limit) & (cut_q * unit[q] <= limit)
            g = np.where(ok, g, -np.inf)
            i, j = np.unravel_index(np.argmax(g), g.shape)
            if g[i, j] > best:
                best, pair = g[i, j], (int(ia[i]), int(ib[j]), p, q)
    return pair


def _better(new_max, d_total, cur_max, tol):
    """Lexicographic improvement of (max_i cut_i / r_i, L(pi)); returns a score to maximise (or -inf).
    ``tol`` is that of L(pi); the maximum, a ratio near 1, is compared to within 1e-12 of itself."""
    tol_max = 1e-12 * max(abs(cur_max), 1e-300)
    lowers_max = new_max < cur_max - tol_max
    keeps_max = (new_max <= cur_max + tol_max) & (d_total < -tol)
    # a lower maximum always wins over a lower total: scale the total's gain below any max gain
    return np.where(lowers_max, cur_max - new_max + 1.0, np.where(keeps_max, -d_total / (1.0 + np.abs(d_total)),
                                                                    -np.inf))


def _others_max(cut: np.ndarray) -> np.ndarray:
    """(F, F) table: the largest cut among the folds other than p and q."""
    f = cut.size
    out = np.full((f, f), -np.inf)
    for p in range(f):
        for q in range(f):
            rest = np.delete(cut, [p, q])
            if rest.size:
                out[p, q] = rest.max()
    return out


def _balance_move(st: _State, lb, ub, unit: np.ndarray) -> tuple[float, tuple | None]:
    """The single move that improves (max_i cut_i unit_i, L(pi)) most: (score, (a, q)) or (-inf, None)."""
    cur_max = (st.cut * unit).max()
    p = st.folds
    cut_p = (st.cut[p] + 2.0 * st.conn[st.rows, p] - st.tot) * unit[p]  # a's fold after a leaves
    cut_q = (st.cut[None, :] + st.tot[:, None] - 2.0 * st.conn) * unit[None, :]  # fold q after a joins
    new_max = np.maximum(np.maximum(cut_p[:, None], cut_q), _others_max(st.cut * unit)[p])
    d_total = st.conn[st.rows, p][:, None] - st.conn
    score = np.where(st.move_ok(lb, ub), _better(new_max, d_total, cur_max, st.tol), -np.inf)
    a, q = np.unravel_index(np.argmax(score), score.shape)
    return (score[a, q], (int(a), int(q))) if np.isfinite(score[a, q]) else (-np.inf, None)


def _capped_move(st: _State, lb, ub, unit: np.ndarray, limit: float) -> tuple | None:
    """The single move that lowers L(pi) most and keeps every fold's cut_i unit_i <= limit, or None."""
    p = st.folds
    cut_p = (st.cut[p] + 2.0 * st.conn[st.rows, p] - st.tot) * unit[p]
    cut_q = (st.cut[None, :] + st.tot[:, None] - 2.0 * st.conn) * unit[None, :]
    ok = st.move_ok(lb, ub) & (cut_p[:, None] <= limit) & (cut_q <= limit)
    gain = np.where(ok, st.conn - st.conn[st.rows, p][:, None], -np.inf)
    a, q = np.unravel_index(np.argmax(gain), gain.shape)
    return (int(a), int(q)) if gain[a, q] > st.tol else None


def _balance_swap(st: _State, lb, ub, unit: np.ndarray, top: int | None):
    """The swap between the leakiest fold p and another that lowers the largest (scaled) cut most:
    (a, b, p, q) or None.

    a leaving p changes cut_p by A_a = 2 conn(a, p) - tot_a, b joining it by B_b = tot_b - 2 conn(b, p),
    plus 2 w_ab >= 0; so only members with A_a + min B < 0 (and B_b + min A < 0) can lower cut_p.
    """
    ratio = st.cut * unit
    cur_max = ratio.max()
    p = int(np.argmax(ratio))
    others = _others_max(ratio)
    best, step = 1.0, None  # _better's scale: >= 1 means the maximum drops
    in_p = np.flatnonzero(st.folds == p)
    gain_a = 2.0 * st.conn[in_p, p] - st.tot[in_p]
    for q in range(st.f):
        in_q = np.flatnonzero(st.folds == q) if q != p else in_p[:0]
        if in_q.size == 0:
            continue
        gain_b = st.tot[in_q] - 2.0 * st.conn[in_q, p]
        keep_a = in_p[gain_a + gain_b.min() < -st.tol]
        keep_b = in_q[gain_b + gain_a.min() < -st.tol]
        if keep_a.size == 0 or keep_b.size == 0:
            continue
        ia, ib, ok = st.swap_candidates(p, q, lambda a: st.tot[a] - 2.0 * st.conn[a, p],
                                        lambda b: 2.0 * st.conn[b, p] - st.tot[b], lb, ub, top,
                                        members=(keep_a, keep_b))
        if not ok.any():
            continue
        w_ab = 2.0 * st.w[np.ix_(ia, ib)]
        cut_p = st.cut[p] + (2.0 * st.conn[ia, p] - st.tot[ia])[:, None] \
            + (st.tot[ib] - 2.0 * st.conn[ib, p])[None, :] + w_ab
        cut_q = st.cut[q] + (2.0 * st.conn[ib, q] - st.tot[ib])[None, :] \
            + (st.tot[ia] - 2.0 * st.conn[ia, q])[:, None] + w_ab
        new_max = np.maximum(np.maximum(cut_p * unit[p], cut_q * unit[q]), others[p, q])
        d_total = (cut_p - st.cut[p] + cut_q - st.cut[q]) / 2.0
        score = np.where(ok, _better(new_max, d_total, cur_max, st.tol), -np.inf)
        i, j = np.unravel_index(np.argmax(score), score.shape)
        if score[i, j] > best:
            best, step = score[i, j], (int(ia[i]), int(ib[j]), p, q)
    return step


FOLD_CAP = 0.95  # phase 3 is done once every fold leaks at most 95 % of a random fold of its size ...
BALANCED = 1e-3  # ... or all folds are within 0.1 % of the mean (scaled leakage: ~3e-4)


def _balance_cuts(st: _State, fractions: np.ndarray, lb, ub, max_steps: int) -> None:
    """Phase 3: lower (max_i cut_i / r_i, L(pi)) lexicographically by single moves and swaps.

    r_i = s_i (1 - s_i) W is what a random fold of size s_i n cuts on average (W: all weight between the
    groups; cuts inside a group, which a random fold would also make, are left out, so r_i is a lower
    estimate). The best move that lowers the maximum is taken; else the best swap that does (between the
    leakiest fold and another, shortlist first); else the best move that lowers L(pi) under the maximum;
    until ``FOLD_CAP`` or ``BALANCED`` holds. Then single moves lower L(pi) under that maximum.
    """
    unit = 1.0 / np.maximum(fractions * (1.0 - fractions) * st.tot.sum(), 1e-300)
    for _ in range(max_steps):
        ratio = st.cut * unit
        if ratio.max() <= FOLD_CAP or ratio.max() <= (1.0 + BALANCED) * ratio.mean():
            break
        score, move = _balance_move(st, lb, ub, unit)
        if score >= 1.0:  # the move lowers the maximum (see _better's scale)
            st.apply(*move)
            continue
        swap = _shortlist_first(lambda top: _balance_swap(st, lb, ub, unit, top))
        if swap is not None:
            a, b, p, q = swap
            st.apply(a, q)
            st.apply(b, p)
        elif move is not None:  # lowers L(pi) and keeps the maximum
            st.apply(*move)
        else:
            break
    limit = (st.cut * unit).max() * (1.0 + 1e-12)
    for _ in range(max_steps):  # done: moves and swaps that lower L(pi) and keep every fold under the maximum
        move = _capped_move(st, lb, ub, unit, limit)
        if move is not None:
            st.apply(*move)
            continue
        pair = _shortlist_first(lambda top: _total_swap(st, lb, ub, top, (unit, limit)))
        if pair is None:
            break
        a, b, p, q = pair
        st.apply(a, q)
        st.apply(b, p)


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
    fraction_tolerance: float | None = None,
    balance_folds: bool = False,
    stratification: str = DEFAULT_STRATIFICATION,
) -> np.ndarray:
    """Improve a feasible assignment of groups to folds by moves and swaps (the three phases above).

    Parameters
    ----------
    cross : (M, M) symmetric leakage weights between groups (zero diagonal)
    kappa : (M,) group cardinalities; classes : (M, C) class cardinalities or None
    folds : (M,) feasible starting assignment; fractions, epsilon, delta : eqs. (14)/(15)
    balanced : also keep every fold at most (1 + epsilon) s_i n (k-fold CV, see ilp.upper_bounds)
    fraction_tolerance : phase 1: bring every fold within this share of n of s_i n (None: skip)
    balance_folds : phase 3 (three or more folds): lower the leakiest fold's cut against the rest
    stratification : 'two_sided' keeps every fold's class counts also <= (1 + delta) n_c s_i
        (``class_bounds``); 'paper': eq. (15)'s lower bound only

    Returns the improved assignment (a new array).
    """
    s = np.asarray(fractions, dtype=float)
    limits = None if classes is None else class_bounds(np.sum(classes, axis=0), s, delta, stratification)
    st = _State(cross, kappa, folds, s.size, classes, limits)
    n = st.kappa.sum()
    lb = lower_bounds(n, s, epsilon)
    ub = upper_bounds(n, s, epsilon) if balanced else np.full(s.size, np.inf)
    if fraction_tolerance is not None:
        lb, ub = _reach_fractions(st, s * n, fraction_tolerance, lb, ub, max_steps)
    st = _reassign(st, lb, ub, REASSIGN_ROUNDS)
    _lower_total(st, lb, ub, max_steps)
    if balance_folds and s.size >= 3:
        _balance_cuts(st, s, lb, ub, max_steps)
    return st.folds
