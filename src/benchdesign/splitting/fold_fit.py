"""Clusters that fit k folds: before the ILP of a k-fold split, clusters too large for a fold are split.

The ILP (12)-(18) keeps every cluster whole, and a k-fold split bounds every fold from both sides,
(1 - epsilon) s_i n <= size of fold i <= (1 + epsilon) s_i n. A cluster heavier than the upper bound makes the
ILP infeasible, and so do clusters that fit one by one but cannot be packed into k folds within the bounds;
DataSAIL then stops. A cluster too large for a fold is a choice of the clustering (K, the linkage), not a fact
of the data, so for k-fold splits ([`fit_clusters_to_folds`][]):

1. the clusters are packed largest first, each into the fold furthest below its size s_i n
   ([`pack_largest_first`][]); when every fold ends within its bounds a feasible assignment exists, and
   nothing changes;
2. otherwise one cluster is split: the largest one too large for any fold, else the one of the least mean
   similarity within (the cheapest to cut), into p = max(2, ceil(kappa / min_i s_i n)) pieces of about equal
   weight: contiguous runs of its micro-clusters in the order of the Fiedler vector of their
   average-linkage similarity (similar micro-clusters stay together); a cluster of one micro-cluster is split
   into its members (identical members stay together), ordered by their similarity to a member drawn from the
   seed, and the micro-cluster sums are recomputed. Then the clusters are packed again;
3. when nothing can be split further (every cluster is one set of identical entities, e.g. one drug with 45 %
   of the pairs), or K + k splits did not make the packing fit (a tight epsilon such as 0, which would
   otherwise split every cluster down to single entities and an ILP of n clusters), the fold targets s_i become
   the sizes of the last packing: k folds all the same, whose sizes the report states. Fewer than k distinct
   entities cannot fill k folds (an error naming the counts).

The pieces are units of objective (12) like any cluster, so the ILP may still put pieces of one cluster in one
fold; what a split costs is the similarity between pieces that end in different folds. The report says which
clusters were split, why, and into how many pieces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from benchdesign.splitting.clustering import (
    Clustering,
    coarsen,
    identical_groups,
    linkage_similarity,
    micro_similarity,
)
from benchdesign.splitting.ilp import InfeasibleSplitError, lower_bounds, upper_bounds
from benchdesign.splitting.similarity import DEFAULT_BLOCK, SimilaritySource

__all__ = ["FoldFit", "fit_clusters_to_folds", "fit_weights_to_folds", "fiedler_order", "pack_largest_first",
           "packed_within"]

MAX_LISTED_SPLITS = 20  # split events listed one by one in the report


@dataclass(frozen=True)
class FoldFit:
    """The result of [`fit_clusters_to_folds`][].

    Attributes
    ----------
    clustering : Clustering
        The clustering to give the ILP (the input one when nothing was split).
    fractions : np.ndarray
        (F,) fold targets s_i for the ILP and the refinement: the requested ones, or the sizes of the
        largest-first packing when whole identical entities cannot be packed within epsilon.
    report : dict
        What was split and why, and the targets used (``fit_report``).
    """

    clustering: Clustering
    fractions: np.ndarray
    report: dict


def pack_largest_first(kappa: np.ndarray, fractions: np.ndarray) -> np.ndarray:
    """Fold of every unit: largest first (ties: lower index), each into the fold furthest below s_i * total
    (ties: the first such fold), as scikit-learn's ``GroupKFold`` for equal folds.

    With at least F units no fold stays empty (the first F units go to F different folds), and when every unit
    weighs at most epsilon * min_i s_i * total every fold ends within its bounds of [`packed_within`][].

    Parameters
    ----------
    kappa : np.ndarray
        (K,) unit weights, > 0.
    fractions : np.ndarray
        (F,) fold targets s_i, summing to 1.

    Returns
    -------
    np.ndarray
        (K,) fold index per unit.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.splitting.fold_fit import pack_largest_first
    >>> pack_largest_first(np.array([1.0, 5.0, 2.0, 2.0]), np.array([0.5, 0.5]))
    array([1, 0, 1, 1])
    """
    kappa = np.asarray(kappa, dtype=float)
    target = np.asarray(fractions, dtype=float) * kappa.sum()
    filled = np.zeros(target.size)
    folds = np.empty(kappa.size, dtype=np.int64)
    for u in np.argsort(-kappa, kind="stable"):
        f = int(np.argmax(target - filled))
        folds[u] = f
        filled[f] += kappa[u]
    return folds


def packed_within(kappa: np.ndarray, fractions: np.ndarray, epsilon: float) -> np.ndarray | None:
    """The largest-first packing of ``kappa`` when every fold i ends within (1 -+ epsilon) s_i * total, else None.

    Parameters
    ----------
    kappa : np.ndarray
        (K,) unit weights.
    fractions : np.ndarray
        (F,) fold targets s_i.
    epsilon : float
        Relative tolerance of the fold sizes (the k-fold bounds of eq. 14 from both sides).

    Returns
    -------
    np.ndarray | None
        (K,) fold per unit (a feasible assignment of the size constraints), or None.
    """
    kappa = np.asarray(kappa, dtype=float)
    s = np.asarray(fractions, dtype=float)
    folds = pack_largest_first(kappa, s)
    sizes = np.bincount(folds, weights=kappa, minlength=s.size)
    total = float(kappa.sum())
    inside = (sizes >= lower_bounds(total, s, epsilon)).all() and (sizes <= upper_bounds(total, s, epsilon)).all()
    return folds if inside else None


def fiedler_order(affinity: np.ndarray) -> np.ndarray:
    """Order of the items of a symmetric ``affinity`` along its Fiedler vector (the second eigenvector of
    D^-1/2 A D^-1/2, divided by D^1/2; signs fixed so that its largest entry is positive; ties: by index).

    Parameters
    ----------
    affinity : np.ndarray
        (m, m) symmetric similarities >= 0 (the diagonal is ignored).

    Returns
    -------
    np.ndarray
        (m,) a permutation of range(m): contiguous runs of it hold similar items.
    """
    a = np.asarray(affinity, dtype=np.float64)
    m = a.shape[0]
    if m <= 2:
        return np.arange(m)
    off = a - np.diag(np.diag(a))
    deg = off.sum(axis=1)
    d = np.sqrt(np.where(deg > 0, deg, 1.0))
    with threadpool_limits(limits=1, user_api="blas"):
        _, vec = np.linalg.eigh(off / d[:, None] / d[None, :])
    v = vec[:, -2] / d
    v = v * (1.0 if v[np.argmax(np.abs(v))] >= 0 else -1.0)
    return np.argsort(np.round(v, 12), kind="stable")


def _runs(weights: np.ndarray, p: int) -> np.ndarray:
    """Piece of each item of ``weights`` (in order) cut into ``p`` contiguous runs of about equal weight, by
    where each item's middle falls; empty runs are skipped (pieces 0 .. q-1, q <= p, q >= 2 for >= 2 items)."""
    w = np.asarray(weights, dtype=float)
    middle = np.cumsum(w) - w / 2.0
    piece = np.minimum((middle * p / w.sum()).astype(np.int64), p - 1)
    return np.unique(piece, return_inverse=True)[1].reshape(-1)


class _Units:
    """The micro-clusters (and their clusters) while clusters are split; micro-clusters found to be one set of
    identical entities are remembered as atoms."""

    def __init__(self, clustering: Clustering, source: SimilaritySource, weights: np.ndarray, seed: int,
                 block_size: int):
        self.source, self.weights, self.block_size = source, np.asarray(weights, dtype=float), block_size
        self.linkage = clustering.linkage
        self.micro_labels = clustering.micro_labels.copy()
        self.parent = clustering.micro_to_cluster.copy()
        self.micro = clustering.micro
        self.atoms: set[int] = set()
        self.rng = np.random.default_rng(seed)

    def kappa(self) -> np.ndarray:
        return np.bincount(self.parent, weights=self.micro.kappa, minlength=int(self.parent.max()) + 1)

    def within(self) -> np.ndarray:
        """Per cluster: the weighted similarity sum over its unordered member pairs (as ``coarsen``'s)."""
        same = self.parent[:, None] == self.parent[None, :]
        inner = np.bincount(self.parent, weights=(self.micro.cross * same).sum(axis=1), minlength=self.kappa().size)
        return inner / 2.0 + np.bincount(self.parent, weights=self.micro.within, minlength=inner.size)

    def split_next(self, target: float, capacity: float) -> dict | None:
        """Split one cluster into pieces of about ``target``: the largest one above ``capacity`` (too large for any
        fold) that can be split, else the one of the least mean similarity within (the cheapest to cut; ties: the
        larger); the event, or None when no cluster can be split."""
        kappa = self.kappa()
        cohesion = self.within() / np.maximum(kappa * kappa / 2.0, 1e-300)
        over = kappa > capacity
        order = np.lexsort((np.arange(kappa.size), -kappa, np.where(over, -kappa, cohesion), ~over))
        for c in order:
            event = self._split(int(c), max(2, int(np.ceil(kappa[c] / target - 1e-9))))
            if event is not None:
                return event
        return None

    def _split(self, c: int, p: int) -> dict | None:
        """Split cluster ``c`` into about ``p`` pieces: by micro-clusters, or a lone micro-cluster by members."""
        micros = np.flatnonzero(self.parent == c)
        if micros.size > 1:
            return self._split_cluster(c, micros, p)
        m = int(micros[0])
        if m in self.atoms:
            return None
        event = self._split_micro(c, m, p)
        if event is None:
            self.atoms.add(m)
        return event

    def _split_cluster(self, c: int, micros: np.ndarray, p: int) -> dict:
        sim = linkage_similarity(self.micro, "average")[np.ix_(micros, micros)]
        order = micros[fiedler_order(sim)]
        piece = _runs(self.micro.kappa[order], p)
        first_new = int(self.parent.max()) + 1
        self.parent[order] = np.where(piece == 0, c, first_new + piece - 1)
        return self._event(c, "micro_clusters", np.bincount(piece, weights=self.micro.kappa[order]))

    def _split_micro(self, c: int, m: int, p: int) -> dict | None:
        members = np.flatnonzero(self.micro_labels == m)
        atom = identical_groups(self.source.subset(members)) if members.size > 1 else np.zeros(1, dtype=np.int64)
        if atom.max() == 0:
            return None
        pivot = int(self.rng.integers(members.size))
        closeness = self.source.block(members[[pivot]], members)[0].astype(np.float64)
        first = np.unique(atom, return_index=True)[1]  # identical members are equally close to the pivot
        atom_order = np.lexsort((np.arange(first.size), -closeness[first]))
        atom_weight = np.bincount(atom, weights=self.weights[members])
        piece_of_atom = np.empty(first.size, dtype=np.int64)
        piece_of_atom[atom_order] = _runs(atom_weight[atom_order], p)
        piece = piece_of_atom[atom]
        first_micro, first_cluster = int(self.micro_labels.max()) + 1, int(self.parent.max()) + 1
        self.micro_labels[members] = np.where(piece == 0, m, first_micro + piece - 1)
        self.parent = np.r_[self.parent, first_cluster + np.arange(int(piece.max()))]
        self.micro = micro_similarity(self.source, self.micro_labels, self.weights, self.linkage, self.rng,
                                      self.block_size)
        return self._event(c, "members", np.bincount(piece, weights=self.weights[members]))

    def _event(self, c: int, kind: str, piece_weights: np.ndarray) -> dict:
        total = float(self.micro.kappa.sum())
        return {"cluster": c, "split_into": kind, "share": float(piece_weights.sum() / total),
                "piece_shares": [float(x / total) for x in piece_weights]}

    def clustering(self) -> Clustering:
        clusters = coarsen(self.micro, self.parent)
        return Clustering(labels=self.parent[self.micro_labels], micro_labels=self.micro_labels,
                          micro_to_cluster=self.parent, micro=self.micro, clusters=clusters,
                          similarity=linkage_similarity(clusters, self.linkage), linkage=self.linkage)


def _too_few(kappa: np.ndarray, n_folds: int, what: str, n_entities: int) -> InfeasibleSplitError:
    return InfeasibleSplitError(
        f"{what}: the {n_entities} entities form only {kappa.size} groups of identical entities (similarity 1 to "
        f"each other; they always share a fold), too few for {n_folds} folds; use at most {kappa.size} folds")


def _targets(kappa: np.ndarray, fractions: np.ndarray, what: str, n_entities: int) -> np.ndarray:
    """The sizes of the largest-first packing as fold targets (shares of the total weight)."""
    folds = pack_largest_first(kappa, fractions)
    sizes = np.bincount(folds, weights=kappa, minlength=fractions.size)
    if (sizes <= 0).any():
        raise _too_few(kappa, fractions.size, what, n_entities)
    return sizes / sizes.sum()


def fit_report(events: list[dict], before: np.ndarray, after: np.ndarray, fractions: np.ndarray,
               targets: np.ndarray, epsilon: float) -> dict:
    """What [`fit_clusters_to_folds`][] did: clusters split, the largest cluster's share before and after, the
    most a fold may hold, and the fold targets when they had to change; ``text`` says it in one sentence."""
    total = float(before.sum())
    capacity = float(upper_bounds(total, fractions, epsilon).max() / total)
    report = {
        "n_clusters_split": len(events), "n_clusters_before": int(before.size), "n_clusters": int(after.size),
        "largest_cluster_fraction_before": float(before.max() / total),
        "largest_cluster_fraction": float(after.max() / total), "fold_capacity_fraction": capacity,
        "splits": events[:MAX_LISTED_SPLITS],
        "targets_changed": not np.allclose(targets, fractions),
        "fold_targets": [float(t) for t in targets],
    }
    report["text"] = fit_text(report, epsilon)
    return report


def fit_text(report: dict, epsilon: float) -> str:
    """One sentence on the clusters split to fit the folds (empty when nothing changed)."""
    parts = []
    if report["n_clusters_split"]:
        parts.append(
            f"clusters split {report['n_clusters_split']} time(s) before the ILP so that k folds within epsilon={epsilon:g} "
            f"exist (largest cluster {report['largest_cluster_fraction_before']:.1%} of the weight, a fold holds at "
            f"most {report['fold_capacity_fraction']:.1%}): {report['n_clusters_before']} -> {report['n_clusters']} "
            f"clusters, largest now {report['largest_cluster_fraction']:.1%}")
    if report["targets_changed"]:
        parts.append(f"no packing of the clusters into folds within epsilon={epsilon:g} was found (whole identical "
                     "entities too coarse, or the splits capped at K + k): fold targets "
                     + ", ".join(f"{t:.1%}" for t in report["fold_targets"]))
    return "; ".join(parts)


def fit_clusters_to_folds(clustering: Clustering, source: SimilaritySource, weights: np.ndarray | None,
                          fractions: np.ndarray, epsilon: float, *, seed: int = 0,
                          block_size: int = DEFAULT_BLOCK, what: str = "the data") -> FoldFit:
    """Split clusters until a k-fold assignment within epsilon exists (module docstring), before the ILP.

    Parameters
    ----------
    clustering : Clustering
        The clusters of [`cluster_entities`][].
    source : SimilaritySource
        The similarity the clustering was made from.
    weights : np.ndarray | None
        (n,) entity weights (None: 1).
    fractions : np.ndarray
        (F,) requested fold shares s_i.
    epsilon : float
        Relative tolerance of the fold sizes, bounded from both sides.
    seed : int
        Seeds the member drawn as the pivot when a micro-cluster is split, and any sample of its new sums.
    block_size : int
        Tile edge of the recomputed micro-cluster sums.
    what : str
        How messages name these entities (e.g. ``'side b'``).

    Returns
    -------
    FoldFit
        The clustering for the ILP, the fold targets and the report.

    Raises
    ------
    InfeasibleSplitError
        When fewer than F groups of identical entities exist.
    """
    s = np.asarray(fractions, dtype=float)
    w = np.ones(source.n) if weights is None else np.asarray(weights, dtype=float)
    units = _Units(clustering, source, w, seed, block_size)
    before = units.kappa()
    target = float(s.min() * before.sum())
    capacity = float(upper_bounds(float(before.sum()), s, epsilon).max())
    events = []
    while packed_within(units.kappa(), s, epsilon) is None and len(events) < before.size + s.size:
        event = units.split_next(target, capacity)
        if event is None:
            break
        events.append(event)
    kappa = units.kappa()  # fewer units than folds only when every unit is one set of identical entities
    targets = s if packed_within(kappa, s, epsilon) is not None else _targets(kappa, s, what, source.n)
    out = units.clustering() if events else clustering
    return FoldFit(out, targets, fit_report(events, before, kappa, s, targets, epsilon))


def fit_weights_to_folds(weights: np.ndarray, fractions: np.ndarray, epsilon: float,
                         what: str = "the data") -> tuple[np.ndarray, dict]:
    """Fold targets for entities that are never split (identity-based k-fold, I1 / I2): the requested
    ``fractions`` when the largest-first packing of the entity ``weights`` fits within epsilon, else its sizes.

    Parameters
    ----------
    weights : np.ndarray
        (n,) entity weights.
    fractions : np.ndarray
        (F,) requested fold shares s_i.
    epsilon : float
        Relative tolerance of the fold sizes.
    what : str
        How messages name these entities.

    Returns
    -------
    tuple[np.ndarray, dict]
        The fold targets and the report: ``targets_changed``, ``fold_targets``, ``largest_entity_fraction``,
        ``fold_capacity_fraction`` and ``text``.
    """
    w = np.asarray(weights, dtype=float)
    s = np.asarray(fractions, dtype=float)
    targets = s if packed_within(w, s, epsilon) is not None else _targets(w, s, what, w.size)
    report = {"targets_changed": not np.allclose(targets, s), "fold_targets": [float(t) for t in targets],
              "largest_entity_fraction": float(w.max() / w.sum()),
              "fold_capacity_fraction": float(upper_bounds(float(w.sum()), s, epsilon).max() / w.sum())}
    report["text"] = "" if not report["targets_changed"] else (
        f"whole entities cannot make equal folds within epsilon={epsilon:g} (largest entity "
        f"{report['largest_entity_fraction']:.1%} of the weight): fold targets "
        + ", ".join(f"{t:.1%}" for t in targets))
    return targets, report
