"""Hard similarity threshold on a split (LoHi's guarantee, Steshin 2023): no cross-fold pair above t.

After the ILP, a split can still hold a test sample whose nearest training neighbour is more similar
than a user's threshold t. [`enforce_max_similarity`][] repairs the split so that, among the
assigned samples, every pair in different folds has sim <= t (for a train/test split: no test
sample has a training neighbour above t), in one of two ways:

- ``action="drop"``: leave a smallest set of samples unassigned whose removal breaks every violating
  cross-fold pair (a minimum vertex cover of the violation graph; exact by Koenig's theorem for two
  folds, greedy by largest violation degree for more folds);
- ``action="move"``: every connected component of the graph sim > t that spans several folds is moved
  whole into the fold that holds most of its samples (nothing is dropped; fold sizes may drift).

Pairs above t are collected tile by tile (``block_size``^2 similarities at a time), never n x n.
Every changed sample is reported with its most similar offending neighbour and that similarity.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

from benchdesign.splitting.options import THRESHOLD_ACTIONS
from benchdesign.splitting.similarity import DEFAULT_BLOCK, SimilaritySource

__all__ = [
    "THRESHOLD_ACTIONS",
    "REASON_DROPPED",
    "REASON_MOVED",
    "ThresholdRepair",
    "pairs_above",
    "cross_fold_violations",
    "enforce_max_similarity",
    "verified_max_similarity",
]

VERIFY_ROUNDS = 3  # searches after the first repair before the remaining pairs are reported as such

REASON_DROPPED = "dropped_above_max_similarity"
REASON_MOVED = "moved_above_max_similarity"


@dataclass(frozen=True)
class ThresholdRepair:
    """Result of [`enforce_max_similarity`][].

    Attributes
    ----------
    folds : np.ndarray
        (n,) repaired fold per sample (-1 = unassigned; dropped samples become -1).
    events : list[dict]
        One dict per changed sample: index, action (``'dropped'`` / ``'moved'``), from_fold, to_fold (-1 when
        dropped), neighbour (index of its most similar offending neighbour) and similarity.
    n_violations : int
        Cross-fold pairs above the threshold before the repair.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.splitting import ThresholdRepair
    >>> repair = ThresholdRepair(np.array([0, -1, 1]), [{"index": 1, "action": "dropped", "from_fold": 1, "to_fold": -1,
    ...                                                  "neighbour": 0, "similarity": 0.9}], n_violations=1)
    >>> repair.folds.tolist(), repair.n_dropped, repair.n_moved
    ([0, -1, 1], 1, 0)
    """

    folds: np.ndarray
    events: list[dict] = field(default_factory=list)
    n_violations: int = 0

    @property
    def n_dropped(self) -> int:
        return sum(e["action"] == "dropped" for e in self.events)

    @property
    def n_moved(self) -> int:
        return sum(e["action"] == "moved" for e in self.events)


def pairs_above(
    source: SimilaritySource, threshold: float, index: np.ndarray | None = None, block_size: int = DEFAULT_BLOCK
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All unordered pairs (i < j) among ``index`` (default: all entities) with sim(i, j) > ``threshold``.

    Returns entity indices i, j (int64) and the similarities (float32), visiting every pair once.
    """
    idx = np.arange(source.n) if index is None else np.asarray(index, dtype=np.int64)
    matrix = getattr(source, "sparse", None)
    if sp.issparse(matrix):  # a sparse MatrixSimilarity: its stored pairs, no tiles
        upper = sp.triu(matrix[idx][:, idx], k=1).tocoo()
        keep = upper.data > threshold
        return idx[upper.row[keep]], idx[upper.col[keep]], upper.data[keep].astype(np.float32)
    rows_out, cols_out, vals_out = [], [], []
    m = idx.size
    for r0 in range(0, m, block_size):
        r1 = min(r0 + block_size, m)
        for c0 in range(r0, m, block_size):
            c1 = min(c0 + block_size, m)
            tile = source.block(idx[r0:r1], idx[c0:c1])
            r, c = np.nonzero(tile > threshold)
            keep = (r + r0) < (c + c0)  # upper triangle, no self pairs
            rows_out.append(idx[r[keep] + r0])
            cols_out.append(idx[c[keep] + c0])
            vals_out.append(tile[r[keep], c[keep]])
    if not rows_out:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32)
    return np.concatenate(rows_out), np.concatenate(cols_out), np.concatenate(vals_out)


def _union_pairs(n: int, a: tuple, b: tuple, folds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of ``a`` and ``b`` (i < j), each once with its larger similarity; pairs with an unassigned
    sample left out."""
    i = np.r_[a[0], np.minimum(b[0], b[1])].astype(np.int64)
    j = np.r_[a[1], np.maximum(b[0], b[1])].astype(np.int64)
    v = np.r_[a[2], b[2]].astype(np.float32)
    keep = (folds[i] >= 0) & (folds[j] >= 0)
    i, j, v = i[keep], j[keep], v[keep]
    order = np.lexsort((-v, i * n + j))
    first = np.r_[True, (i * n + j)[order][1:] != (i * n + j)[order][:-1]] if order.size else np.zeros(0, bool)
    keep = order[first]
    return i[keep], j[keep], v[keep]


def cross_fold_violations(folds: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Mask of the pairs (i, j) whose two samples are both assigned and in different folds."""
    fi, fj = folds[i], folds[j]
    return (fi >= 0) & (fj >= 0) & (fi != fj)


def _strongest_neighbour(n: int, i: np.ndarray, j: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per sample, its most similar neighbour among the pairs (i, j, s) and that similarity (-1, 0 if none)."""
    a = np.r_[i, j]
    b = np.r_[j, i]
    v = np.r_[s, s].astype(np.float64)
    order = np.lexsort((-v, a))  # by sample, most similar first
    best_nb = np.full(n, -1, dtype=np.int64)
    best_sim = np.zeros(n)
    first = np.r_[True, a[order][1:] != a[order][:-1]] if order.size else np.zeros(0, bool)
    best_nb[a[order][first]] = b[order][first]
    best_sim[a[order][first]] = v[order][first]
    return best_nb, best_sim


def _koenig_cover(n: int, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Minimum vertex cover of the bipartite graph with edges (left[e], right[e]) (Koenig's theorem)."""
    lv, li = np.unique(left, return_inverse=True)
    rv, ri = np.unique(right, return_inverse=True)
    graph = sp.csr_matrix((np.ones(li.size), (li, ri)), shape=(lv.size, rv.size))
    match_l = maximum_bipartite_matching(graph, perm_type="column")  # right partner of each left vertex
    match_r = np.full(rv.size, -1, dtype=np.int64)
    matched = match_l >= 0
    match_r[match_l[matched]] = np.flatnonzero(matched)
    # alternating search from the unmatched left vertices: left -> right by any edge, right -> left by matching
    seen_l = ~matched
    seen_r = np.zeros(rv.size, dtype=bool)
    frontier = np.flatnonzero(seen_l)
    while frontier.size:
        reach = np.unique(graph[frontier].indices)
        reach = reach[~seen_r[reach]]
        seen_r[reach] = True
        nxt = match_r[reach]
        nxt = nxt[(nxt >= 0)]
        nxt = nxt[~seen_l[nxt]]
        seen_l[nxt] = True
        frontier = nxt
    cover = np.zeros(n, dtype=bool)
    cover[lv[~seen_l]] = True
    cover[rv[seen_r]] = True
    return cover


def _greedy_cover(n: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Vertex cover by repeatedly removing the sample with the most uncovered edges, then pruning."""
    cover = np.zeros(n, dtype=bool)
    alive = np.ones(i.size, dtype=bool)
    while alive.any():
        deg = np.bincount(np.r_[i[alive], j[alive]], minlength=n)
        v = int(np.argmax(deg))
        cover[v] = True
        alive &= (i != v) & (j != v)
    for v in np.flatnonzero(cover):  # drop redundancy: keep v if all its edges stay covered without it
        touching = (i == v) | (j == v)
        others = np.where(i[touching] == v, j[touching], i[touching])
        if cover[others].all():
            cover[v] = False
    return cover


def enforce_max_similarity(
    source: SimilaritySource,
    folds: np.ndarray,
    threshold: float,
    action: Literal["drop", "move"] = "drop",
    block_size: int = DEFAULT_BLOCK,
    extra_pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> ThresholdRepair:
    """Repair ``folds`` so that no two assigned samples in different folds have sim > ``threshold``.

    Parameters
    ----------
    source : SimilaritySource
        Similarity over the n samples.
    folds : np.ndarray
        (n,) fold per sample, -1 = unassigned.
    threshold : float
        t in [0, 1].
    action : Literal['drop', 'move']
        ``'drop'`` (the fewest samples unassigned) or ``'move'`` (whole components).
    block_size : int
        Tile edge of the pass over the similarities.
    extra_pairs : tuple[np.ndarray, np.ndarray, np.ndarray] | None
        Pairs (i, j, sim) above the threshold that ``source`` does not hold, e.g. found by an independent
        search after a first repair ([`verified_max_similarity`][]); treated like the source's own.

    Returns
    -------
    ThresholdRepair
        The repaired folds and what changed.

    Examples
    --------
    Samples 0 and 1 (similarity 0.9) sit in different folds; at t = 0.5 one of them is dropped, or moved:

    >>> import numpy as np
    >>> from benchdesign.splitting import MatrixSimilarity, enforce_max_similarity
    >>> sim = MatrixSimilarity(np.array([[1.0, 0.9, 0.0], [0.9, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    >>> repair = enforce_max_similarity(sim, np.array([0, 1, 1]), 0.5)
    >>> repair.folds.tolist(), repair.n_violations, repair.events[0]["action"], repair.events[0]["neighbour"]
    ([-1, 1, 1], 1, 'dropped', 1)
    >>> enforce_max_similarity(sim, np.array([0, 1, 1]), 0.5, action="move").folds.tolist()
    [0, 0, 1]
    """
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"max_similarity must lie in [0, 1], got {threshold}")
    if action not in THRESHOLD_ACTIONS:
        raise ValueError(f"threshold action must be one of {THRESHOLD_ACTIONS}, got {action!r}")
    folds = np.asarray(folds, dtype=np.int64).copy()
    n = source.n
    if folds.shape != (n,):
        raise ValueError(f"folds must have shape ({n},), got {folds.shape}")
    assigned = np.flatnonzero(folds >= 0)
    i, j, s = pairs_above(source, threshold, assigned, block_size)
    if extra_pairs is not None:
        i, j, s = _union_pairs(n, (i, j, s), extra_pairs, folds)
    bad = cross_fold_violations(folds, i, j)
    n_viol = int(bad.sum())
    events: list[dict] = []
    if n_viol == 0:
        return ThresholdRepair(folds, events, 0)
    vi, vj, vs = i[bad], j[bad], s[bad]
    nb, nb_sim = _strongest_neighbour(n, vi, vj, vs)
    if action == "drop":
        if np.unique(folds[assigned]).size == 2:
            first = folds[vi] == folds[assigned].min()
            cover = _koenig_cover(n, np.where(first, vi, vj), np.where(first, vj, vi))
        else:
            cover = _greedy_cover(n, vi, vj)
        for v in np.flatnonzero(cover):
            events.append({"index": int(v), "action": "dropped", "from_fold": int(folds[v]), "to_fold": -1,
                           "neighbour": int(nb[v]), "similarity": float(nb_sim[v])})
        folds[cover] = -1
        return ThresholdRepair(folds, events, n_viol)
    graph = sp.csr_matrix((np.ones(i.size), (i, j)), shape=(n, n))
    _, comp = connected_components(graph, directed=False)
    comp_of = comp[assigned]
    n_folds = int(folds.max()) + 1
    counts = sp.csr_matrix((np.ones(assigned.size), (comp_of, folds[assigned])), shape=(comp.max() + 1, n_folds))
    target = np.asarray(counts.argmax(axis=1)).ravel()  # the fold holding most of each component (ties: lowest)
    new = folds.copy()
    new[assigned] = target[comp_of]
    nb, nb_sim = _strongest_neighbour(n, i, j, s)  # a sample may move with its component without a violation
    for v in np.flatnonzero(new != folds):
        events.append({"index": int(v), "action": "moved", "from_fold": int(folds[v]), "to_fold": int(new[v]),
                       "neighbour": int(nb[v]), "similarity": float(nb_sim[v])})
    return ThresholdRepair(new, events, n_viol)


def verified_max_similarity(
    source: SimilaritySource,
    folds: np.ndarray,
    threshold: float,
    action: Literal["drop", "move"] = "drop",
    block_size: int = DEFAULT_BLOCK,
) -> tuple[ThresholdRepair, dict | None]:
    """[`enforce_max_similarity`][], then checked by the source's own independent search where it has one.

    A source with a ``cross_fold_pairs_above(folds, threshold)`` method (``mmseqs.MmseqsSimilarity``) is asked,
    after the repair, for every cross-fold pair above the threshold by a search that does not depend on the
    one that built it (every pair aligned when they are few). Pairs it finds are added and the repair is
    redone from the original folds, up to ``VERIFY_ROUNDS`` times; each later search covers only the pairs of
    sequences whose fold the repair changed (the others were searched already, and their pairs resolved); what
    the last search still finds is reported pair by pair, never hidden.

    Parameters
    ----------
    source : SimilaritySource
        Similarity over the n samples.
    folds : np.ndarray
        (n,) fold per sample, -1 = unassigned.
    threshold : float
        t in [0, 1].
    action : Literal['drop', 'move']
        ``'drop'`` (the fewest samples unassigned) or ``'move'`` (whole components).
    block_size : int
        Tile edge of the pass over the similarities.

    Returns
    -------
    repair : ThresholdRepair
        The repaired folds and what changed.
    check : dict | None
        None for a source without its own search; else ``search`` (how), ``n_pairs_compared``, ``rounds``,
        ``pairs_added`` (found by the check, missed by the source) and ``remaining`` (pairs above the threshold
        in the final folds: ``[i, j, similarity]``; empty when the threshold holds).

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.splitting.similarity import MatrixSimilarity
    >>> from benchdesign.splitting.threshold import verified_max_similarity
    >>> sim = MatrixSimilarity(np.array([[1, .9, 0], [.9, 1, 0], [0, 0, 1]]))
    >>> repair, check = verified_max_similarity(sim, np.array([0, 1, 1]), 0.5)
    >>> repair.folds.tolist(), check is None
    ([-1, 1, 1], True)
    """
    folds = np.asarray(folds, dtype=np.int64)
    repair = enforce_max_similarity(source, folds, threshold, action, block_size)
    check_fn = getattr(source, "cross_fold_pairs_above", None)
    if not callable(check_fn):
        return repair, None
    extra = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32))
    i, j, v, how = check_fn(repair.folds, threshold)
    rounds, compared = 1, how["n_pairs_compared"]
    while i.size and rounds <= VERIFY_ROUNDS:
        extra = _union_pairs(source.n, extra, (i, j, v), np.zeros(source.n, np.int64))
        checked = repair.folds
        repair = enforce_max_similarity(source, folds, threshold, action, block_size, extra_pairs=extra)
        # pairs of sequences whose folds did not change were searched already, and the repair resolved them
        changed = np.flatnonzero((repair.folds >= 0) & (repair.folds != checked))
        i, j, v, again = check_fn(repair.folds, threshold, only=changed)
        rounds, compared = rounds + 1, compared + again["n_pairs_compared"]
    remaining = [[int(a), int(b), round(float(c), 4)] for a, b, c in zip(i, j, v, strict=True)]
    check = {**how, "n_pairs_compared": compared, "rounds": rounds, "pairs_added": int(extra[0].size),
             "remaining": remaining}
    return repair, check
