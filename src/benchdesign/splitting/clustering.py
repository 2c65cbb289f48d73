"""Clustering of entities into K clusters with cardinalities kappa (step b of Fig. 2, DataSAIL paper).

The paper clusters the full n x n similarity matrix (spectral clustering) or distance matrix
(agglomerative clustering) into K clusters and computes inter-cluster similarities by average,
single or complete linkage. To keep memory far below n^2 this module works in two stages:

1. Leader pre-clustering: leaders are drawn by k-means++ seeding on the distance 1 - sim (each new
   leader costs one similarity row, O(n)), and every entity joins its most similar leader. From
   n >= 2 * 25 * n_micro entities on (``layer_count``) fewer leaders are seeded, ceil(n_micro / L) for
   L = 2 to 4 layers, and each leader group is cut into up to L layers by its members' typicality,
   their mean similarity to the leaders (``typicality_layers``), so that there are still about n_micro
   micro-clusters. At 10^5 - 10^6 molecules an entity's share in L(pi) is set by its mean similarity to
   all others far more than by its few near neighbours (a random MOSES molecule: ~0.14 x 1.6M against
   a handful of neighbours above 0.5), and a leader group of ~1,600 molecules mixes typical and atypical
   ones; layers let the ILP and the refinement put the atypical ones together (MOSES, 1.58M molecules:
   18 % less leakage than a random split instead of 11 %). When n <= n_micro every entity is its own
   micro-cluster, which is exactly the paper's procedure, except that entities of similarity 1 to each
   other (identical inputs) form one micro-cluster, so that they always share a fold
   (``identical_groups``; identical entities also share a leader and a layer).
2. The micro-cluster similarity (exact sums over all entity pairs, plus max/min for single/complete
   linkage) is accumulated tile by tile over the n x n similarity without storing it, and the
   micro-clusters are clustered down to K by spectral (similarities) or agglomerative (distances)
   clustering. Above ``max_pairs`` entity pairs (default: n > ~100,000) the sums are estimated
   instead from a stratified sample of at most ``group_sample`` entities (the same number from every
   micro-cluster, uniformly without replacement), scaled by the inverse inclusion probabilities:
   unbiased for every pair sum, and n-independent in cost (``sampled_group_similarity``).

With average linkage, kappa_A * kappa_B * sim_C(A, B) equals the sum of the weighted entity
similarities between A and B, so the ILP objective (12) over clusters is exactly the leakage L(pi)
of eq. (2) of the entity split.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from benchdesign.splitting.options import DEFAULT_MAX_PAIRS, DEFAULT_MICRO, LINKAGES
from benchdesign.splitting.progress import note, stage
from benchdesign.splitting.similarity import DEFAULT_BLOCK, SimilaritySource

__all__ = [
    "LINKAGES",
    "GroupSimilarity",
    "Clustering",
    "leader_labels",
    "regroup_unrelated",
    "assign_to_leaders",
    "typicality_layers",
    "group_similarity",
    "sampled_group_similarity",
    "stratified_sample",
    "coarsen",
    "linkage_similarity",
    "component_spectral_labels",
    "cluster_groups",
    "cluster_entities",
    "layer_count",
    "micro_similarity",
    "spectral_labels",
]

Linkage = Literal["average", "single", "complete"]
DEFAULT_GROUP_SAMPLE = 50_000  # entities of the stratified sample beyond it (1.25e9 pairs, ~1 min)
DEFAULT_SKETCH = 200_000  # beyond this many entities, leaders are seeded on a sample of this size
DEFAULT_LAYERS = 4  # each leader group cut into up to this many typicality layers (``typicality_layers``) ...
MIN_LAYER_SIZE = 25  # ... of at least this many members (groups below 50 members stay whole)


@dataclass(frozen=True)
class GroupSimilarity:
    """Similarity aggregates between M groups of weighted entities.

    Attributes
    ----------
    kappa : np.ndarray
        (M,) total weight (cardinality) of each group, kappa(A) = sum of member weights.
    cross : np.ndarray
        (M, M) symmetric, cross[a, b] = sum over x in a, y in b of w_x w_y sim(x, y) for a != b, zero diagonal.
    within : np.ndarray
        (M,) sum over unordered member pairs x != y of group a of w_x w_y sim(x, y).
    self_sum : float
        sum_x w_x^2 sim(x, x).
    max_sim : np.ndarray | None
        (M, M) largest member-pair similarity between groups (None unless computed for single / complete
        linkage); the diagonal is meaningless.
    min_sim : np.ndarray | None
        (M, M) smallest member-pair similarity between groups, likewise.
    sampled : bool
        True when cross / within are unbiased estimates from a stratified entity sample (then max_sim /
        min_sim are those of the sampled members).

    Examples
    --------
    Two groups {0, 1} and {2, 3} of the 4 x 4 similarity [[1, .9, .1, 0], [.9, 1, .2, .1], [.1, .2, 1, .8],
    [0, .1, .8, 1]]: 0.4 between them, 0.9 and 0.8 within, 4 on the diagonal:

    >>> import numpy as np
    >>> from benchdesign.splitting import GroupSimilarity
    >>> groups = GroupSimilarity(kappa=np.array([2.0, 2.0]), cross=np.array([[0.0, 0.4], [0.4, 0.0]]),
    ...                          within=np.array([0.9, 0.8]), self_sum=4.0)
    >>> groups.m, round(groups.total, 3)
    (2, 2.1)
    """

    kappa: np.ndarray
    cross: np.ndarray
    within: np.ndarray
    self_sum: float
    max_sim: np.ndarray | None = None
    min_sim: np.ndarray | None = None
    sampled: bool = False

    @property
    def m(self) -> int:
        return int(self.kappa.size)

    @property
    def total(self) -> float:
        """Sum of w_x w_y sim(x, y) over all unordered entity pairs x != y."""
        return float(np.triu(self.cross, 1).sum() + self.within.sum())


@dataclass(frozen=True)
class Clustering:
    """Result of [`cluster_entities`][].

    Attributes
    ----------
    labels : np.ndarray
        (n,) cluster of each entity, in [0, K).
    micro_labels : np.ndarray
        (n,) micro-cluster of each entity, in [0, M).
    micro_to_cluster : np.ndarray
        (M,) cluster of each micro-cluster.
    micro : GroupSimilarity
        Aggregates over the M micro-clusters.
    clusters : GroupSimilarity
        Aggregates over the K clusters (kappa = cluster cardinalities).
    similarity : np.ndarray
        (K, K) inter-cluster similarity sim_C under the chosen linkage, in [0, 1].
    linkage : str
        The linkage used.

    Examples
    --------
    Entities 0 and 1 are identical (similarity 1): they share a micro-cluster, so two clusters remain:

    >>> import numpy as np
    >>> from benchdesign.splitting import Clustering, MatrixSimilarity, cluster_entities
    >>> sim = MatrixSimilarity(np.array([[1.0, 1.0, 0.2], [1.0, 1.0, 0.2], [0.2, 0.2, 1.0]]))
    >>> clustering = cluster_entities(sim, n_clusters=2)
    >>> isinstance(clustering, Clustering), clustering.k, clustering.linkage
    (True, 2, 'average')
    >>> clustering.micro_labels.tolist(), clustering.labels.tolist(), clustering.clusters.kappa.tolist()
    ([0, 0, 1], [0, 0, 1], [2.0, 1.0])
    >>> clustering.similarity.round(3).tolist()
    [[1.0, 0.2], [0.2, 1.0]]
    """

    labels: np.ndarray
    micro_labels: np.ndarray
    micro_to_cluster: np.ndarray
    micro: GroupSimilarity
    clusters: GroupSimilarity
    similarity: np.ndarray
    linkage: str

    @property
    def k(self) -> int:
        return self.clusters.m


def _check_weights(weights: np.ndarray | None, n: int) -> np.ndarray:
    if weights is None:
        return np.ones(n)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.size != n:
        raise ValueError(f"weights has {w.size} entries for {n} entities")
    if not np.isfinite(w).all() or (w <= 0).any():
        raise ValueError(f"weights must be finite and > 0, got min={w.min()}")
    return w


def _seed_leaders(
    source: SimilaritySource, n_leaders: int, rng: np.random.Generator
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """k-means++ seeding on 1 - sim over all entities of ``source``: (leader indices, labels, typicality).

    Typicality: every entity's mean similarity to the leaders (one addition per similarity row drawn).
    """
    n = source.n
    first = int(rng.integers(n))
    best = source.one_vs_all(first).astype(np.float64)
    best[first] = 1.0
    total = best.copy()
    labels = np.zeros(n, dtype=np.int64)
    leaders = [first]
    for j in range(1, n_leaders):
        d2 = np.square(1.0 - np.clip(best, 0.0, 1.0))
        d2[leaders] = 0.0
        if d2.sum() <= 0:
            break
        # inverse-CDF draw, the same as rng.choice(n, p=d2 / d2.sum()) without its per-call checks
        cdf = np.cumsum(d2)
        nxt = min(int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right")), n - 1)
        sims = source.one_vs_all(nxt).astype(np.float64)
        sims[nxt] = 1.0
        total += sims
        closer = sims > best
        labels[closer] = j
        best[closer] = sims[closer]
        leaders.append(nxt)
        if (j + 1) % 250 == 0:
            note(f"{j + 1} of {n_leaders} leaders")
    return leaders, labels, total / len(leaders)


def assign_to_leaders(
    source: SimilaritySource, leaders: np.ndarray, chunk: int = 16384, typicality: bool = False
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Label (n,) of the most similar leader of every entity (first leader on ties), by blocks of
    ``chunk`` x len(leaders) similarities; each leader joins itself. With ``typicality`` also every
    entity's mean similarity to the leaders (from the same blocks), as a second array."""
    leaders = np.asarray(leaders, dtype=np.int64)
    labels = np.empty(source.n, dtype=np.int64)
    mean = np.empty(source.n) if typicality else None
    for r0 in range(0, source.n, chunk):
        rows = np.arange(r0, min(r0 + chunk, source.n))
        block = source.block(rows, leaders)
        labels[rows] = np.argmax(block, axis=1)
        if typicality:
            mean[rows] = block.mean(axis=1, dtype=np.float64)
    labels[leaders] = np.arange(leaders.size)
    return (labels, mean) if typicality else labels


def typicality_layers(labels: np.ndarray, typicality: np.ndarray, layers: int,
                      min_size: int = MIN_LAYER_SIZE) -> np.ndarray:
    """Cut every group into up to ``layers`` parts of consecutive typicality, each of >= ``min_size`` members.

    A group of c members gets min(layers, c // min_size) parts (at least one) of near-equal size: its members
    ranked by ``typicality``, the first c / parts to the first part, and so on; members of equal typicality
    (identical entities among them) share the rank of the first of them, hence a part. New labels are numbered
    group by group, part by part; a part left empty by such ties is skipped.

    Parameters
    ----------
    labels : np.ndarray
        (n,) group of each entity, in [0, M).
    typicality : np.ndarray
        (n,) the value the parts are cut along (here: mean similarity to the leaders).
    layers : int
        Largest number of parts per group, >= 1.
    min_size : int
        Smallest part.

    Returns
    -------
    np.ndarray
        (n,) labels of the parts, in [0, M') with M <= M' <= layers * M.

    Examples
    --------
    >>> import numpy as np
    >>> typicality_layers(np.array([0, 0, 0, 0, 1, 1]), np.array([0.4, 0.1, 0.3, 0.2, 0.5, 0.6]), 2, 2).tolist()
    [1, 0, 1, 0, 2, 2]
    """
    labels = np.asarray(labels, dtype=np.int64)
    typicality = np.asarray(typicality, dtype=np.float64)
    if layers < 1 or min_size < 1:
        raise ValueError(f"layers and min_size must be >= 1, got {layers}, {min_size}")
    if typicality.shape != labels.shape:
        raise ValueError(f"typicality has shape {typicality.shape}, labels {labels.shape}")
    counts = np.bincount(labels)
    parts = np.clip(counts // min_size, 1, layers)
    order = np.lexsort((np.arange(labels.size), typicality, labels))
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    lab_o, typ_o = labels[order], typicality[order]
    # equal typicality in one group (identical entities among them) shares the rank of its first member
    run_start = np.r_[True, (lab_o[1:] != lab_o[:-1]) | (typ_o[1:] != typ_o[:-1])]
    first = np.maximum.accumulate(np.where(run_start, np.arange(labels.size), 0))
    rank = np.empty(labels.size, dtype=np.int64)
    rank[order] = first - starts[lab_o]
    part = rank * parts[labels] // counts[labels]
    offset = np.r_[0, np.cumsum(parts)[:-1]]
    return np.unique(offset[labels] + part, return_inverse=True)[1].reshape(-1).astype(np.int64)


@stage("leaders")
def leader_labels(
    source: SimilaritySource, n_leaders: int, rng: np.random.Generator, sketch: int | None = None,
    layers: int = 1,
) -> np.ndarray:
    """Leader pre-clustering: k-means++ seeding on 1 - sim, each entity joins its most similar leader.

    Costs n_leaders similarity rows (packed-bit popcounts for fingerprints), never an n x n matrix.
    With ``sketch`` < n the leaders are seeded on a uniform sample of ``sketch`` entities (n_leaders
    rows of that size) and all n entities are then assigned by blocks (``assign_to_leaders``, an
    n x n_leaders pass whose sparse products are several times faster than n_leaders mat-vecs).
    With ``layers`` > 1 every leader's group is then cut into up to that many parts by the members'
    typicality, their mean similarity to all leaders (``typicality_layers``; a free by-product of the
    similarity rows above): an entity's typicality is an estimate of its mean similarity to all entities
    (Spearman 0.99 on MOSES), which decides most of its share in L(pi) at 10^6 entities, and a group
    of ~1,600 molecules joined by their nearest leader mixes atypical and typical members.
    Returns labels (n,) in [0, M) with M <= n_leaders * layers (fewer when the remaining entities are
    all identical to a leader). With n <= n_leaders every entity is its own group, except that identical
    entities share one (``identical_groups``).
    """
    n = source.n
    if n_leaders < 1:
        raise ValueError(f"n_leaders must be >= 1, got {n_leaders}")
    if layers < 1:
        raise ValueError(f"layers must be >= 1, got {layers}")
    if sketch is not None and sketch < n_leaders:
        raise ValueError(f"sketch must be >= n_leaders={n_leaders}, got {sketch}")
    if n <= n_leaders:
        return identical_groups(source)
    if sketch is None or sketch >= n:
        _, labels, typicality = _seed_leaders(source, n_leaders, rng)
    else:
        sample = np.sort(rng.choice(n, size=sketch, replace=False))
        leaders, _, _ = _seed_leaders(source.subset(sample), n_leaders, rng)
        note(f"{len(leaders)} leaders seeded on {sketch} sampled entities; assigning all {n}")
        labels, typicality = assign_to_leaders(source, sample[np.asarray(leaders)], typicality=True)
    labels = regroup_unrelated(source, labels, typicality <= 0, n_leaders)
    if layers == 1:
        return labels
    out = typicality_layers(labels, typicality, layers)
    note(f"{int(labels.max()) + 1} leader groups cut into {int(out.max()) + 1} typicality layers")
    return out


def _pack_evenly(weights: np.ndarray, n_bins: int) -> np.ndarray:
    """Bin of every unit: largest first into the lightest of ``max(1, n_bins)`` bins (``fold_fit``'s packing with
    equal targets; imported here, as fold_fit imports this module)."""
    from benchdesign.splitting.fold_fit import pack_largest_first

    n_bins = max(1, min(int(n_bins), weights.size))
    return pack_largest_first(weights, np.full(n_bins, 1.0 / n_bins))


def regroup_unrelated(source: SimilaritySource, labels: np.ndarray, unrelated: np.ndarray,
                      n_leaders: int) -> np.ndarray:
    """Give the entities of no similarity to any leader groups of their own, instead of the first leader's.

    On a sparse similarity (protein identity at a threshold) most entities are similar to no leader, and the
    leader pass leaves them all with the first leader: one micro-cluster of 89 % of 10,000 SOLpro sequences,
    which then no 80/20 split can place. Here they are regrouped by the connected components of the similarity
    among them (read from ``source.sparse`` where the source is a sparse matrix; otherwise each is its own
    component), whole components packed, largest first into the lightest, into groups of about n / n_leaders
    entities, numbered after the leader groups. Similar entities stay together; a group of several components
    has no similarity inside.

    Parameters
    ----------
    source : SimilaritySource
        The similarity of the n entities.
    labels : np.ndarray
        (n,) leader group of every entity.
    unrelated : np.ndarray
        (n,) bool, True for the entities of similarity 0 to every leader (leaders are never).
    n_leaders : int
        The leader count asked for: sets the size of the new groups.

    Returns
    -------
    np.ndarray
        (n,) labels in [0, M'), the leader groups first (renumbered without gaps).

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.splitting.clustering import regroup_unrelated
    >>> from benchdesign.splitting.similarity import MatrixSimilarity
    >>> source = MatrixSimilarity(np.eye(6))  # nothing similar to anything
    >>> regroup_unrelated(source, np.zeros(6, dtype=int), np.r_[False, [True] * 5], 3).tolist()
    [0, 1, 2, 3, 1, 2]
    """
    from scipy.sparse.csgraph import connected_components

    unrelated = np.asarray(unrelated, dtype=bool)
    labels = np.asarray(labels, dtype=np.int64).copy()
    idx = np.flatnonzero(unrelated)
    if idx.size == 0:
        return labels
    matrix = getattr(source, "sparse", None)
    if matrix is not None:
        graph = matrix[idx][:, idx]
        comp = connected_components(graph, directed=False)[1]
    else:
        comp = np.arange(idx.size)
    capacity = max(1, int(np.ceil(source.n / max(1, n_leaders))))
    to_bin = _pack_evenly(np.bincount(comp).astype(float), int(np.ceil(idx.size / capacity)))
    kept = np.unique(labels[~unrelated], return_inverse=True)[1].reshape(-1)
    labels[~unrelated] = kept
    first_new = int(kept.max()) + 1 if kept.size else 0
    labels[idx] = first_new + to_bin[comp]
    return labels


IDENTICAL_TOL = 1e-6  # a precomputed similarity >= 1 - this counts as identical


def identical_groups(source: SimilaritySource, block: int = 1024) -> np.ndarray:
    """Group label (n,) that puts entities of similarity 1 to each other (identical inputs) in one group.

    The micro-clusters are the units the refinement moves, so identical entities (e.g. two kinase
    variants with one sequence, or one molecule listed twice) always share a fold. Sources with
    ``identity_keys`` (fingerprints, k-mer profiles, vectors) compare their inputs exactly; others (a
    matrix, alignment identity) take similarity >= 1 - IDENTICAL_TOL in one n x n pass. Used where every
    entity would otherwise be its own group (n <= n_micro).
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    keys = getattr(source, "identity_keys", None)
    if keys is not None:  # fingerprints, k-mer profiles, vectors: identical inputs have equal keys
        _, first, inverse = np.unique(np.array(keys(), dtype=object), return_index=True, return_inverse=True)
        return np.argsort(np.argsort(first))[inverse.reshape(-1)].astype(np.int64)  # labels by first appearance
    n = source.n
    rows, cols = [], []
    for start in range(0, n, block):
        r = np.arange(start, min(start + block, n))
        i, j = np.nonzero(source.block(r, np.arange(n)) >= 1.0 - IDENTICAL_TOL)
        rows.append(r[i])
        cols.append(j)
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    graph = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    return connected_components(graph, directed=False)[1].astype(np.int64)


def _segments(sorted_labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    starts = np.flatnonzero(np.r_[True, sorted_labels[1:] != sorted_labels[:-1]])
    return starts, sorted_labels[starts]


@stage("group_similarity")
def group_similarity(
    source: SimilaritySource,
    labels: np.ndarray,
    weights: np.ndarray | None = None,
    extremes: bool = False,
    block_size: int = DEFAULT_BLOCK,
) -> GroupSimilarity:
    """Exact similarity aggregates between the groups ``labels`` (0..M-1), tile by tile.

    Every unordered entity pair is visited once (upper-triangle tiles of size ``block_size``); only
    one tile (block_size^2 float32) and the M x M aggregates are held in memory. ``extremes=True``
    also records max/min member-pair similarities (single/complete linkage).
    """
    n = source.n
    labels = np.asarray(labels, dtype=np.int64)
    if labels.size != n:
        raise ValueError(f"labels has {labels.size} entries for {n} entities")
    w = _check_weights(weights, n)
    m = int(labels.max()) + 1 if n else 0
    order = np.argsort(labels, kind="stable")
    lab_sorted = labels[order]
    w32 = w[order].astype(np.float32)
    unit = bool(np.all(w == 1.0))
    acc = np.zeros((m, m))
    mx = np.full((m, m), -np.inf) if extremes else None
    mn = np.full((m, m), np.inf) if extremes else None
    n_rows = (n + block_size - 1) // block_size
    matrix = getattr(source, "sparse", None)
    if sp.issparse(matrix) and not extremes:  # a sparse matrix: L^T S L with L the weighted group indicator
        member = sp.csr_matrix((w, (np.arange(n), labels)), shape=(n, m))
        acc = (member.T @ matrix @ member).toarray()
        n_rows = 0  # no tiles
    for r0 in range(0, n if n_rows else 0, block_size):
        r1 = min(r0 + block_size, n)
        if n_rows >= 20 and (r0 // block_size) % (n_rows // 10) == 0:
            note(f"tile row {r0 // block_size + 1} of {n_rows}")
        rs, rg = _segments(lab_sorted[r0:r1])
        for c0 in range(r0, n, block_size):
            c1 = min(c0 + block_size, n)
            cs, cg = _segments(lab_sorted[c0:c1])
            tile = source.block(order[r0:r1], order[c0:c1])
            weighted = tile if unit else tile * w32[r0:r1, None] * w32[None, c0:c1]
            g = np.add.reduceat(np.add.reduceat(weighted, cs, axis=1, dtype=np.float64), rs, axis=0)
            ix = np.ix_(rg, cg)
            acc[ix] += g
            if c0 != r0:
                acc[np.ix_(cg, rg)] += g.T
            if extremes:
                gmax = np.maximum.reduceat(np.maximum.reduceat(tile, cs, axis=1), rs, axis=0)
                gmin = np.minimum.reduceat(np.minimum.reduceat(tile, cs, axis=1), rs, axis=0)
                mx[ix] = np.maximum(mx[ix], gmax)
                mn[ix] = np.minimum(mn[ix], gmin)
                if c0 != r0:
                    tx = np.ix_(cg, rg)
                    mx[tx] = np.maximum(mx[tx], gmax.T)
                    mn[tx] = np.minimum(mn[tx], gmin.T)
    self_w = w * w * source.self_similarity()
    self_per_group = np.bincount(labels, weights=self_w, minlength=m)
    within = (np.diag(acc) - self_per_group) / 2.0
    cross = acc.copy()
    np.fill_diagonal(cross, 0.0)
    kappa = np.bincount(labels, weights=w, minlength=m)
    return GroupSimilarity(kappa, cross, np.maximum(within, 0.0), float(self_w.sum()), mx, mn)


def stratified_sample(labels: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted indices of a stratified sample: min(n_a, c) members of every group a, uniformly without
    replacement, with the largest per-group cap c >= 2 that keeps the sample within ``size``."""
    labels = np.asarray(labels, dtype=np.int64)
    counts = np.bincount(labels)
    lo, hi = 2, max(int(counts.max()), 2)
    while lo < hi:  # largest cap c with sum(min(counts, c)) <= size
        mid = (lo + hi + 1) // 2
        if np.minimum(counts, mid).sum() <= size:
            lo = mid
        else:
            hi = mid - 1
    order = np.lexsort((rng.random(labels.size), labels))
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    rank = np.arange(labels.size) - starts[labels[order]]
    return np.sort(order[rank < lo])


def sampled_group_similarity(
    source: SimilaritySource,
    labels: np.ndarray,
    size: int,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
    extremes: bool = False,
    block_size: int = DEFAULT_BLOCK,
) -> GroupSimilarity:
    """Unbiased estimate of ``group_similarity`` from a stratified sample of about ``size`` entities.

    With s_a of the n_a members of group a drawn uniformly without replacement, a member pair (x, y)
    of groups a != b is in the sample with probability s_a s_b / (n_a n_b), a pair inside group a with
    s_a (s_a - 1) / (n_a (n_a - 1)); dividing the sample's pair sums by these (Horvitz-Thompson) gives
    unbiased ``cross`` and ``within``. ``kappa`` and ``self_sum`` are exact. Cost: (size^2 / 2) pairs.
    """
    n = source.n
    labels = np.asarray(labels, dtype=np.int64)
    if labels.size != n:
        raise ValueError(f"labels has {labels.size} entries for {n} entities")
    w = _check_weights(weights, n)
    idx = stratified_sample(labels, size, rng)
    note(f"stratified sample of {idx.size} of {n} entities")
    part = group_similarity(source.subset(idx), labels[idx], w[idx], extremes=extremes, block_size=block_size)
    counts = np.bincount(labels).astype(float)
    taken = np.bincount(labels[idx], minlength=counts.size).astype(float)
    f = counts / taken
    cross = part.cross * np.outer(f, f)
    pair_f = np.divide(counts * (counts - 1), taken * (taken - 1), out=np.zeros_like(counts), where=taken > 1)
    kappa = np.bincount(labels, weights=w, minlength=counts.size)
    self_sum = float((w * w * source.self_similarity()).sum())
    return GroupSimilarity(kappa, cross, part.within * pair_f, self_sum, part.max_sim, part.min_sim, sampled=True)


def coarsen(groups: GroupSimilarity, parent: np.ndarray) -> GroupSimilarity:
    """Aggregates of the coarser groups obtained by merging group a into ``parent[a]``.

    Sums add up exactly; max/min linkage values combine by max/min (associativity of the linkages).
    """
    parent = np.asarray(parent, dtype=np.int64)
    if parent.size != groups.m:
        raise ValueError(f"parent has {parent.size} entries for {groups.m} groups")
    k = int(parent.max()) + 1
    p = np.zeros((groups.m, k))
    p[np.arange(groups.m), parent] = 1.0
    merged = p.T @ groups.cross @ p
    within = np.diag(merged) / 2.0 + p.T @ groups.within
    cross = merged.copy()
    np.fill_diagonal(cross, 0.0)
    mx = mn = None
    if groups.max_sim is not None:
        order = np.argsort(parent, kind="stable")
        starts, _ = _segments(parent[order])
        big = groups.max_sim[np.ix_(order, order)].copy()
        small = groups.min_sim[np.ix_(order, order)].copy()
        np.fill_diagonal(big, -np.inf)
        np.fill_diagonal(small, np.inf)
        mx = np.maximum.reduceat(np.maximum.reduceat(big, starts, axis=1), starts, axis=0)
        mn = np.minimum.reduceat(np.minimum.reduceat(small, starts, axis=1), starts, axis=0)
    return GroupSimilarity(p.T @ groups.kappa, cross, within, groups.self_sum, mx, mn, groups.sampled)


def linkage_similarity(groups: GroupSimilarity, linkage: Linkage = "average") -> np.ndarray:
    """Inter-group similarity sim_C (Methods, "Implementation details"), symmetric, in [0, 1], diagonal 1.

    average: weighted mean member-pair similarity; single: most similar pair (= smallest distance);
    complete: least similar pair (= largest distance).
    """
    if linkage not in LINKAGES:
        raise ValueError(f"linkage must be one of {LINKAGES}, got {linkage!r}")
    if linkage == "average":
        denom = np.outer(groups.kappa, groups.kappa)
        s = np.divide(groups.cross, denom, out=np.zeros_like(groups.cross), where=denom > 0)
    else:
        if groups.max_sim is None:
            raise ValueError(f"{linkage} linkage needs group_similarity(..., extremes=True)")
        s = (groups.max_sim if linkage == "single" else groups.min_sim).copy()
        s[~np.isfinite(s)] = 0.0
    s = np.clip(s, 0.0, 1.0)
    np.fill_diagonal(s, 1.0)
    return s


def spectral_labels(affinity: np.ndarray, n_clusters: int, seed: int = 0, n_init: int = 10) -> np.ndarray:
    """Normalised spectral clustering of a dense affinity: scikit-learn's ``SpectralClustering``.

    ``SpectralClustering(affinity="precomputed")``: the ``n_clusters`` leading eigenvectors of D^-1/2 A D^-1/2
    (self-loops ignored; ARPACK shift-invert), divided by D^1/2, then k-means (``n_init`` runs); its
    ``random_state`` (ARPACK's start vector and the k-means) is drawn from ``seed``. On one BLAS / OpenMP
    thread: the matrices are small. Its warnings about a graph that is not connected, or fewer distinct
    points than clusters, are silenced (the labels are still right: one cluster per component, fewer labels).

    Parameters
    ----------
    affinity : np.ndarray
        (M, M) symmetric non-negative similarities of the groups.
    n_clusters : int
        Number of clusters, 1 to M.
    seed : int
        Seed of the embedding's start vector and of the k-means.
    n_init : int
        k-means restarts; the lowest inertia wins.

    Returns
    -------
    np.ndarray
        (M,) cluster of each group, in [0, n_clusters).

    Examples
    --------
    >>> import numpy as np
    >>> blocks = np.kron(np.eye(2), np.ones((3, 3))) * 0.9 + 0.05
    >>> labels = spectral_labels(blocks, 2)
    >>> bool(len(set(labels[:3])) == len(set(labels[3:])) == 1 and labels[0] != labels[3])
    True
    """
    a = np.asarray(affinity, dtype=np.float64)
    m = a.shape[0]
    if a.shape != (m, m):
        raise ValueError(f"affinity must be square, got shape {a.shape}")
    if not 1 <= n_clusters <= m:
        raise ValueError(f"n_clusters must be in [1, {m}], got {n_clusters}")
    from sklearn.cluster import SpectralClustering  # imported here: ~1 s, only the spectral branch needs it
    from sklearn.exceptions import ConvergenceWarning

    state = int(np.random.default_rng(seed).integers(2**31 - 1))
    model = SpectralClustering(n_clusters, affinity="precomputed", n_init=n_init, random_state=state)
    # one BLAS and OpenMP thread: on these small matrices threads add CPU for little wall time, or cost wall time on
    # a busy machine (M = 1000, K = 50, the k-means on 2 OpenMP threads: idle 0.08 s wall for 0.15 s CPU, against
    # 0.10 s on one; beside other jobs 0.30 s wall)
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Graph is not fully connected", UserWarning)
        warnings.filterwarnings("ignore", "Number of distinct clusters", ConvergenceWarning)
        return model.fit_predict(a).astype(np.int64)


def _allocate(weight: np.ndarray, sizes: np.ndarray, n_clusters: int) -> np.ndarray:
    """Clusters per connected component: at least one each, the rest by largest remainder of the weight share,
    at most a component's number of groups (``n_clusters`` >= the number of components)."""
    alloc = np.ones(weight.size, dtype=np.int64)
    for _ in range(n_clusters - weight.size):
        room = alloc < sizes
        if not room.any():
            break
        want = np.where(room, weight / weight.sum() * n_clusters - alloc, -np.inf)
        alloc[int(np.argmax(want))] += 1
    return alloc


def component_spectral_labels(affinity: np.ndarray, kappa: np.ndarray, n_clusters: int,
                              seed: int = 0) -> np.ndarray:
    """Spectral clustering that respects the connected components of the affinity graph.

    On a connected graph this is [`spectral_labels`][benchdesign.splitting.clustering.spectral_labels] (the paper's
    spectral clustering). A sparse similarity (protein identity at a threshold) leaves hundreds of components, most
    of them single groups of no similarity to anything else; scikit-learn's k-means on the spectral embedding then
    lumps many of them into one cluster (the 1,892 groups of 10,000 SOLpro sequences into 50 clusters: one of 37.3 %
    of the sequences; here the largest holds 2.0 %). Here the clusters never mix a component's groups with another's
    unless the component is small: with C <= K components each gets at least one cluster and the rest in proportion
    to its weight, and is clustered within by spectral clustering; with C > K the components of at least n/K weight
    get floor(K w_c / n) clusters each (clustered within), and the smaller components are packed, largest first into
    the lightest, into the remaining clusters. Clusters made of several components have no similarity inside, so
    cutting them costs nothing.

    Parameters
    ----------
    affinity : np.ndarray
        (M, M) symmetric non-negative similarities of the groups (the diagonal is ignored).
    kappa : np.ndarray
        (M,) group weights.
    n_clusters : int
        Number of clusters, 1 to M.
    seed : int
        Seed of the spectral clustering within components.

    Returns
    -------
    np.ndarray
        (M,) cluster of each group, in [0, n_clusters).

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.splitting.clustering import component_spectral_labels
    >>> isolated = np.eye(6)  # six groups, no similarity between any two
    >>> np.bincount(component_spectral_labels(isolated, np.ones(6), 3)).tolist()
    [2, 2, 2]
    """
    from scipy.sparse.csgraph import connected_components

    a = np.asarray(affinity, dtype=np.float64)
    kappa = np.asarray(kappa, dtype=np.float64)
    off = a > 0
    np.fill_diagonal(off, False)
    n_comp, comp = connected_components(sp.csr_matrix(off), directed=False)
    if n_comp == 1:
        return spectral_labels(a, n_clusters, seed=seed)
    weight = np.bincount(comp, weights=kappa, minlength=n_comp)
    sizes = np.bincount(comp, minlength=n_comp)
    if n_comp <= n_clusters:
        alloc = _allocate(weight, sizes, n_clusters)
    else:
        alloc = np.minimum(np.floor(weight / weight.sum() * n_clusters).astype(np.int64), sizes)
        if alloc.sum() >= n_clusters:  # leave at least one cluster for the small components
            alloc[int(np.argmax(alloc))] -= alloc.sum() - n_clusters + 1
    labels = np.empty(a.shape[0], dtype=np.int64)
    next_label = 0
    for c in np.flatnonzero(alloc > 0):
        members = np.flatnonzero(comp == c)
        if alloc[c] == 1:
            labels[members] = next_label
        elif alloc[c] >= members.size:
            labels[members] = next_label + np.arange(members.size)
        else:
            sub = spectral_labels(a[np.ix_(members, members)], int(alloc[c]), seed=seed)
            labels[members] = next_label + np.unique(sub, return_inverse=True)[1]
        next_label = int(labels[members].max()) + 1
    small = np.flatnonzero(alloc == 0)
    if small.size:
        to_bin = np.full(n_comp, -1, dtype=np.int64)
        to_bin[small] = _pack_evenly(weight[small], n_clusters - next_label)
        in_small = to_bin[comp] >= 0
        labels[in_small] = next_label + to_bin[comp][in_small]
    _, labels = np.unique(labels, return_inverse=True)
    return labels.astype(np.int64)


@stage("cluster_groups")
def cluster_groups(
    groups: GroupSimilarity,
    n_clusters: int,
    method: Literal["spectral", "agglomerative"],
    linkage: Linkage = "average",
    seed: int = 0,
) -> np.ndarray:
    """Cluster M groups into ``n_clusters`` (paper: spectral for similarities, agglomerative for distances).

    Spectral clustering (``component_spectral_labels``: the paper's on a connected similarity graph, per
    connected component otherwise) uses sim_C under ``linkage`` as affinity,
    agglomerative clustering (scikit-learn, imported only here) the distance 1 - sim_C (with the same
    linkage). Returns labels (M,) in [0, K'), K' <= n_clusters, every label used.
    """
    m = groups.m
    if not 1 <= n_clusters <= m:
        raise ValueError(f"n_clusters must be in [1, {m}], got {n_clusters}")
    if n_clusters == m:
        return np.arange(m)
    if n_clusters == 1:
        return np.zeros(m, dtype=np.int64)
    if method == "spectral":
        labels = component_spectral_labels(linkage_similarity(groups, linkage), groups.kappa, n_clusters, seed=seed)
    elif method == "agglomerative":
        from sklearn.cluster import AgglomerativeClustering  # imported here: ~1 s, only this branch needs it

        dist = 1.0 - linkage_similarity(groups, linkage)
        np.fill_diagonal(dist, 0.0)
        model = AgglomerativeClustering(n_clusters=n_clusters, metric="precomputed", linkage=linkage)
        labels = model.fit_predict(dist)
    else:
        raise ValueError(f"method must be 'spectral' or 'agglomerative', got {method!r}")
    _, labels = np.unique(labels, return_inverse=True)
    return labels.astype(np.int64)


def micro_similarity(
    source: SimilaritySource,
    labels: np.ndarray,
    weights: np.ndarray | None,
    linkage: Linkage,
    rng: np.random.Generator,
    block_size: int = DEFAULT_BLOCK,
    max_pairs: float = DEFAULT_MAX_PAIRS,
    group_sample: int = DEFAULT_GROUP_SAMPLE,
) -> GroupSimilarity:
    """The aggregates of the micro-clusters ``labels`` as [`cluster_entities`][] computes them.

    Exact ([`group_similarity`][]) up to ``max_pairs`` entity pairs, else estimated from a stratified sample of
    ``group_sample`` entities drawn from ``rng`` ([`sampled_group_similarity`][]); with the member-pair maxima
    and minima that single and complete linkage need.

    Parameters
    ----------
    source : SimilaritySource
        Similarity over the n entities.
    labels : np.ndarray
        (n,) micro-cluster of each entity, in [0, M).
    weights : np.ndarray | None
        (n,) entity weights (None: 1).
    linkage : Linkage
        ``'average'``, ``'single'`` or ``'complete'``.
    rng : np.random.Generator
        Draws the sample beyond ``max_pairs``.
    block_size : int
        Tile edge of the n x n pass.
    max_pairs : float
        Above this many entity pairs the sums are estimated.
    group_sample : int
        Entities of that sample.

    Returns
    -------
    GroupSimilarity
        The aggregates over the M micro-clusters.
    """
    n = source.n
    extremes = linkage != "average"
    if n * (n - 1) / 2 > max_pairs and group_sample < n:
        return sampled_group_similarity(source, labels, group_sample, rng, weights, extremes, block_size)
    return group_similarity(source, labels, weights, extremes=extremes, block_size=block_size)


def layer_count(n: int, n_micro: int, layers: int = DEFAULT_LAYERS, min_size: int = MIN_LAYER_SIZE) -> int:
    """Typicality layers per leader group for ``n`` entities in ``n_micro`` micro-clusters.

    As many as fit while n_micro micro-clusters average >= ``min_size`` members each, between 1 and ``layers``:
    min(layers, n // (n_micro * min_size)). [`cluster_entities`][] then seeds ceil(n_micro / layers) leaders, so
    that the refinement moves about n_micro micro-clusters either way (1,000 by default: Tox21 keeps 1,000
    leader groups, 10^5 molecules and more get 250 leader groups in 4 layers).

    Examples
    --------
    >>> [layer_count(n, 1000) for n in (7_831, 60_000, 100_000, 1_584_663)]
    [1, 2, 4, 4]
    """
    return int(np.clip(n // max(n_micro * min_size, 1), 1, max(layers, 1)))


def cluster_entities(
    source: SimilaritySource,
    n_clusters: int = 50,
    weights: np.ndarray | None = None,
    linkage: Linkage = "average",
    n_micro: int = DEFAULT_MICRO,
    seed: int = 0,
    block_size: int = DEFAULT_BLOCK,
    max_pairs: float = DEFAULT_MAX_PAIRS,
    group_sample: int = DEFAULT_GROUP_SAMPLE,
    sketch: int = DEFAULT_SKETCH,
    layers: int = DEFAULT_LAYERS,
) -> Clustering:
    """Cluster the n entities of ``source`` into at most ``n_clusters`` clusters.

    Parameters
    ----------
    source : SimilaritySource
        Similarity over the n entities.
    n_clusters : int
        K, the number of clusters fed to the ILP (the paper's default: 50).
    weights : np.ndarray | None
        (n,) entity weights kappa(x) (None: 1, as for 1-D data; interaction counts for 2-D data).
    linkage : Linkage
        ``'average'``, ``'single'`` or ``'complete'``: the inter-cluster similarity (and the agglomeration).
    n_micro : int
        Number of micro-clusters M (leader groups, or their typicality layers); n <= n_micro means no
        pre-clustering.
    seed : int
        Seeds the leader sampling, the group sample and the spectral embedding's k-means.
    block_size : int
        Tile edge of the n x n passes.
    max_pairs : float
        Above this many entity pairs the micro-cluster sums are estimated from a stratified sample.
    group_sample : int
        Entities of that sample (``sampled_group_similarity``).
    sketch : int
        Above this many entities the leaders are seeded on a sample of this size (``leader_labels``).
    layers : int
        Largest number of typicality layers per leader group (``typicality_layers``, ``layer_count``): with
        L = layer_count(n, n_micro, layers) > 1, ceil(n_micro / L) leaders are seeded and each leader group is
        cut into up to L layers of >= ``MIN_LAYER_SIZE`` members; these are the micro-clusters (1: the leader
        groups themselves, as before).

    Returns
    -------
    Clustering
        Labels and aggregates of the clusters and micro-clusters.

    Examples
    --------
    Four entities in two pairs of similar ones, clustered into two clusters (spectral clustering of the
    similarities; average linkage: the mean similarity between the clusters, (0.1 + 0 + 0.2 + 0.1) / 4):

    >>> import numpy as np
    >>> from benchdesign.splitting import MatrixSimilarity, cluster_entities
    >>> sim = MatrixSimilarity(np.array([[1.0, 0.9, 0.1, 0.0], [0.9, 1.0, 0.2, 0.1],
    ...                                  [0.1, 0.2, 1.0, 0.8], [0.0, 0.1, 0.8, 1.0]]))
    >>> clustering = cluster_entities(sim, n_clusters=2)
    >>> clustering.labels.tolist(), clustering.clusters.kappa.tolist()
    ([0, 0, 1, 1], [2.0, 2.0])
    >>> clustering.similarity.round(3).tolist()
    [[1.0, 0.1], [0.1, 1.0]]
    """
    n = source.n
    if linkage not in LINKAGES:
        raise ValueError(f"linkage must be one of {LINKAGES}, got {linkage!r}")
    if not 1 <= n_clusters <= n:
        raise ValueError(f"number of clusters K={n_clusters} must be between 1 and the number of entities n={n}")
    rng = np.random.default_rng(seed)
    n_units = max(n_micro, 2 * n_clusters)
    n_layers = layer_count(n, n_units, layers)
    n_leaders = -(-n_units // n_layers)  # the same number of micro-clusters: fewer leaders, each cut in layers
    micro = leader_labels(source, n_leaders, rng, sketch=max(sketch, n_leaders) if n > sketch else None,
                          layers=n_layers)
    groups = micro_similarity(source, micro, weights, linkage, rng, block_size, max_pairs, group_sample)
    method = "agglomerative" if source.is_distance else "spectral"
    k = min(n_clusters, groups.m)
    parent = cluster_groups(groups, k, method, linkage, seed=seed)
    clusters = coarsen(groups, parent)
    return Clustering(
        labels=parent[micro],
        micro_labels=micro,
        micro_to_cluster=parent,
        micro=groups,
        clusters=clusters,
        similarity=linkage_similarity(clusters, linkage),
        linkage=linkage,
    )
