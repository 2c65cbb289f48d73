"""Splitting tasks of the DataSAIL paper (Fig. 1): R, I1, I2, S1, S2.

- R: random split of the rows (entities for 1-D data, interactions for 2-D data), exact fractions.
- I1: identity-based 1-D split: entities (or, for 2-D data, the entities of one side, with the
  interactions following them) are split at random subject to eqs. (14)/(15).
- I2: identity-based 2-D split: both sides split like I1; an interaction is kept in fold i only when
  both its entities are in fold i, otherwise it is dropped.
- S1: similarity-based 1-D split: similarity -> clusters -> ILP (12)-(18) -> folds.
- S2: similarity-based 2-D split: both sides clustered, one joint ILP, interactions as in I2.

For 2-D data each entity weighs kappa(x) = its number of interactions, and in I2/S2 each side is
split with fractions t_i = sqrt(s_i) / sum_j sqrt(s_j), so that the kept interactions (both ends in
fold i, about t_i^2 of them) come out near the requested fractions s_i. DataSAIL solves the same
equation t_i^2 / sum_j t_j^2 = s_i numerically.

k-fold cross-validation of 2-D data (``SplitSpec.balanced``, see [`kfold_spec`][]):
- I2/S2 with ``pair_scheme='cold_both'`` (default; Pahikkala et al. 2015, setting 4): each side is
  split into k folds of 1/k; fold i tests on the pairs with both entities in i and trains on the
  pairs with neither entity in i (about (1 - 1/k)^2 of them); the other pairs sit that fold out.
- I2/S2 with ``pair_scheme='same_fold'``: the DataSAIL assignment above (sqrt rule, cross pairs dropped).
- I1/S1 on one side (cold one side): fold i tests on the pairs whose entity is in i, trains on the rest.
``SplitResult.train_test`` gives each fold's (train, test) rows; the report's ``fold_usage`` counts them.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from benchdesign.splitting.certificate import random_baselines, split_certificate, star_lower_bound
from benchdesign.splitting.clustering import LINKAGES, cluster_entities, group_similarity, leader_labels
from benchdesign.splitting.fold_fit import fit_clusters_to_folds, fit_weights_to_folds
from benchdesign.splitting.ilp import (
    ClusterInstance,
    available_milp_solvers,
    lower_bounds,
    solve_group_counts,
    solve_split_ilp,
    upper_bounds,
)
from benchdesign.splitting.options import (
    DEFAULT_CLUSTERS,
    DEFAULT_KFOLD_CLUSTERS,
    PAIR_SCHEMES,
    SPLIT_DEFAULTS,
    SPLIT_OPTIONS,
    STRATIFICATIONS,
    TASK_TABLE,
    TASKS,
)
from benchdesign.splitting.refine import refine_assignment
from benchdesign.splitting.similarity import DEFAULT_BLOCK, SimilaritySource
from benchdesign.splitting.threshold import (
    REASON_DROPPED,
    REASON_MOVED,
    THRESHOLD_ACTIONS,
    verified_max_similarity,
)

__all__ = [
    "TASKS",
    "PAIR_SCHEMES",
    "UNASSIGNED",
    "REASON_CROSS_FOLD",
    "SplitSpec",
    "EntitySet",
    "SplitResult",
    "kfold_spec",
    "validate_spec",
    "pair_fractions",
    "largest_remainder",
    "split_entities",
    "split_interactions",
    "fold_usage",
    "cluster_count",
]

UNASSIGNED = "unassigned"
REASON_CROSS_FOLD = "entities_in_different_folds"


_D = SPLIT_DEFAULTS


@dataclass(frozen=True)
class SplitSpec:
    """The options of a split.

    Fold layout: ``fractions`` (s_i, sum 1), ``names`` (one per fold) and ``balanced`` (every fold also
    bounded from above; set by [`kfold_spec`][] for k equal folds -- the paper's eq. (14) bounds only from
    below). Every other field but two is an option of ``SPLIT_OPTIONS``, which holds its default and its
    meaning; the same name is used by the config, the command line and the cross-validators. Where they differ
    from the paper: ``fraction_tolerance`` (the ILP alone ends at the edge of epsilon, since a smaller test
    fold leaks less), ``balance_folds`` (k-fold CV tests every fold against the rest; objective (12) is the
    total only, which can leave one fold leakier than a random fold) and ``stratification`` (eq. (15) bounds
    the class counts from below only, so one fold can take far more of a class). Not options of a split's
    meaning: ``block_size`` and ``verbose``.

    The same seed gives the same split whenever the ILP ends by optimality or by ``node_limit``; when
    ``time_limit`` stops it, the best assignment found can depend on the machine's speed and load.

    Attributes
    ----------
    fractions : tuple[float, ...]
        Requested share s_i of each fold, summing to 1.
    names : tuple[str, ...]
        Name of each fold.
    balanced : bool
        Bound every fold also from above, size of fold i <= (1 + epsilon) s_i n (set by [`kfold_spec`][]).
    clusters : int | None
        Number of clusters K given to the ILP, at most the number of entities n (none = min(50, n); min(20, n) for 3 or
        more equal folds).
    micro_clusters : int
        Leader pre-clustering size: the units the refinement moves.
    epsilon : float
        Relative tolerance of the fold sizes: fold i holds >= (1 - epsilon) s_i n (eq. 3/14; k-fold also <= (1 +
        epsilon) s_i n).
    delta : float
        Relative tolerance of the class shares of every fold (eq. 4/15).
    stratification : str
        ``'two_sided'``: every fold's class counts within delta of their share both ways; ``'paper'``: eq. (15)'s
        lower bound only.
    linkage : str
        Similarity between clusters.
    solver : str
        cvxpy MILP solver.
    time_limit : float
        ILP time limit in seconds, a safety net behind ``node_limit`` (a split it stops depends on the machine and
        its load; the report and summary say so); the best assignment found is then refined.
    node_limit : int | None
        Branch-and-bound node cap: the ILP stops by optimality (``mip_gap``) or after this many nodes, the same on
        every machine and under any load (None: no cap, the time limit alone).
    mip_gap : float | None
        Relative optimality gap at which the ILP stops (0 = prove optimality; none = the solver's default).
    seed : int
        Seed of every random draw (same seed -> same split when the ILP ends by optimality or the node limit).
    refine : bool
        Refine the ILP's assignment by moving/swapping micro-clusters.
    fraction_tolerance : float | None
        The refinement brings every fold within this share of n of its requested size where the clusters allow
        (none = anywhere within epsilon, the paper's choice).
    balance_folds : bool
        With 3 or more folds, also lower the leakiest fold's leakage against the other folds (off = the paper's
        total only).
    max_similarity : float | None
        Hard threshold t: afterwards no sample has a neighbour above t in another fold.
    threshold_action : str
        For max_similarity: drop the fewest samples or move whole components.
    butina_threshold : float
        Task butina: the similarity at which two entities are neighbours (ECFP Tanimoto 0.65 = RDKit's distance
        cut-off 0.35).
    certificate_seeds : int
        Random splits of the same sizes scored as the baseline (0 = none).
    pair_scheme : str
        2-D k-fold (I2/S2): cold_both = fold f tests on the pairs with both entities in f and trains on those
        with neither; same_fold = DataSAIL's, pairs across folds dropped.
    block_size : int
        Tile edge of the n x n passes over the similarities.
    verbose : bool
        Print the MILP solver's log.

    Examples
    --------
    >>> from benchdesign.splitting import SplitSpec
    >>> spec = SplitSpec()
    >>> spec.fractions, spec.names, spec.clusters
    ((0.8, 0.2), ('train', 'test'), None)
    >>> spec = SplitSpec.from_options({"fractions": [0.7, 0.3], "epsilon": 0.05})
    >>> spec.names, spec.epsilon
    (('split0', 'split1'), 0.05)
    """

    fractions: tuple[float, ...] = (0.8, 0.2)
    names: tuple[str, ...] = ("train", "test")
    balanced: bool = False
    clusters: int | None = _D["clusters"]
    micro_clusters: int = _D["micro_clusters"]
    epsilon: float = _D["epsilon"]
    delta: float = _D["delta"]
    stratification: str = _D["stratification"]
    linkage: str = _D["linkage"]
    solver: str = _D["solver"]
    time_limit: float = _D["time_limit"]
    node_limit: int | None = _D["node_limit"]
    mip_gap: float | None = _D["mip_gap"]
    seed: int = _D["seed"]
    refine: bool = _D["refine"]
    fraction_tolerance: float | None = _D["fraction_tolerance"]
    balance_folds: bool = _D["balance_folds"]
    max_similarity: float | None = _D["max_similarity"]
    threshold_action: str = _D["threshold_action"]
    butina_threshold: float = _D["butina_threshold"]
    certificate_seeds: int = _D["certificate_seeds"]
    pair_scheme: str = _D["pair_scheme"]
    block_size: int = DEFAULT_BLOCK
    verbose: bool = False

    @classmethod
    def from_options(cls, options: Mapping[str, object]) -> "SplitSpec":
        """A spec from option names (``SPLIT_OPTIONS``), ``verbose`` and the fold layout: ``folds``
        (k equal folds, [`kfold_spec`][]) or ``fractions`` with ``names`` (default split0, split1, ...).

        Missing options take their defaults; values are converted to the option's type; an unknown
        name raises ValueError listing the known ones.
        """
        layout = {"folds", "fractions", "names", "verbose"}
        known = {o.name: o for o in SPLIT_OPTIONS}
        unknown = sorted(set(options) - set(known) - layout)
        if unknown:
            raise ValueError(f"unknown split option(s) {unknown}; known: {', '.join([*known, *sorted(layout)])}")
        kw = {name: _option_value(known[name], value) for name, value in options.items() if name in known}
        kw["verbose"] = bool(options.get("verbose", False))
        folds = options.get("folds")
        if folds is not None:
            return kfold_spec(folds, cls(**kw))
        fractions = tuple(float(f) for f in options.get("fractions", cls.fractions))
        names = options.get("names") or (cls.names if "fractions" not in options
                                          else tuple(f"split{i}" for i in range(len(fractions))))
        return cls(fractions=fractions, names=tuple(str(n) for n in names), **kw)


def _option_value(option, value):
    """``value`` as the option's type (None kept for a nullable option)."""
    if value is None:
        if not option.nullable:
            raise ValueError(f"split option {option.name!r} needs a value ({option.type.__name__}), got None")
        return None
    if option.type is bool and not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"split option {option.name!r} must be true or false, got {value!r}")
    try:
        return option.type(value)
    except (TypeError, ValueError):
        raise ValueError(f"split option {option.name!r} must be {option.type.__name__}, got {value!r}") from None


KFOLD_NAME = "fold{}"


def kfold_spec(n_folds: int, spec: SplitSpec | None = None) -> SplitSpec:
    """The options of k-fold cross-validation: k equal folds, each bounded from both sides.

    Parameters
    ----------
    n_folds : int
        Number of folds k, at least 2.
    spec : SplitSpec | None
        The other options (None: the defaults).

    Returns
    -------
    SplitSpec
        ``spec`` with fractions 1/k, fold names fold0 .. fold{k-1} and ``balanced=True``.

    Examples
    --------
    >>> from benchdesign.splitting import kfold_spec
    >>> spec = kfold_spec(3)
    >>> spec.names, spec.balanced
    (('fold0', 'fold1', 'fold2'), True)
    """
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise ValueError(f"the number of folds must be an integer >= 2, got {n_folds!r}")
    k = int(n_folds)
    return dataclasses.replace(
        spec or SplitSpec(), fractions=(1.0 / k,) * k, names=tuple(KFOLD_NAME.format(i) for i in range(k)),
        balanced=True,
    )


@dataclass(frozen=True)
class EntitySet:
    """Entities of one type: their ids, which are valid, their similarity and classes.

    Attributes
    ----------
    ids : np.ndarray
        (n,) unique identifiers (str).
    valid : np.ndarray
        (n,) False for rows that could not be read (e.g. invalid SMILES); they get no fold.
    similarity : SimilaritySource | None
        Similarity over the *valid* entities, in the order of ``np.flatnonzero(valid)``, or None.
    classes : np.ndarray | None
        (n, C) bool class membership sigma(x), or None.
    class_names : tuple[str, ...]
        The C class names.
    invalid_reason : str
        Reason written for invalid rows.
    notes : dict
        What reading the inputs changed, for reports: ``{"sequences": {...}}`` with the counts of lower-case
        and cleaned protein sequences (``sequences.CheckedSequences.notes``); empty when nothing was read so.

    Examples
    --------
    Three entities, the second invalid; the similarity covers the two valid ones:

    >>> import numpy as np
    >>> from benchdesign.splitting import EntitySet, MatrixSimilarity
    >>> entities = EntitySet(np.array(["a", "b", "c"]), np.array([True, False, True]), MatrixSimilarity(np.eye(2)))
    >>> entities.similarity.n, entities.invalid_reason
    (2, 'invalid_input')
    >>> try:
    ...     EntitySet(np.array(["a", "b", "c"]), np.ones(3, dtype=bool), MatrixSimilarity(np.eye(2)))
    ... except ValueError as err:
    ...     print(err)
    similarity covers 2 entities but 3 are valid
    """

    ids: np.ndarray
    valid: np.ndarray
    similarity: SimilaritySource | None = None
    classes: np.ndarray | None = None
    class_names: tuple[str, ...] = ()
    invalid_reason: str = "invalid_input"
    notes: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.ids)
        if np.asarray(self.valid).shape != (n,):
            raise ValueError(f"valid must have shape ({n},), got {np.asarray(self.valid).shape}")
        if self.similarity is not None and self.similarity.n != int(np.sum(self.valid)):
            raise ValueError(
                f"similarity covers {self.similarity.n} entities but {int(np.sum(self.valid))} are valid"
            )
        if self.classes is not None and np.asarray(self.classes).shape[0] != n:
            raise ValueError(f"classes must have {n} rows, got {np.asarray(self.classes).shape[0]}")


@dataclass(frozen=True)
class SplitResult:
    """The folds of a split, one per output row (an entity, or an interaction of 2-D data), and its report.

    Attributes
    ----------
    fold : np.ndarray
        (rows,) fold index per output row, -1 when unassigned.
    reason : np.ndarray
        (rows,) ``''`` or why the row is unassigned.
    names : tuple[str, ...]
        The fold names, indexed by ``fold``.
    report : dict
        Sizes, solver status, leakage and certificate of the split.
    entity_folds : dict
        For 2-D tasks that split entities: side (``'a'`` / ``'b'``) -> fold per entity of that side (-1 for
        entities without a valid interaction).
    clusters : np.ndarray | dict | None
        For 1-D S1, the cluster (of the K given to the ILP) of each row, -1 for invalid rows; for 2-D S tasks,
        side -> cluster per entity of that side.
    pair_folds : dict
        For 2-D tasks that split entities: side -> (rows,) fold of each interaction's entity of that side (-1
        for invalid interactions); both sides for I2/S2, the split side for I1/S1.
    cold_both : bool
        True for the ``'cold_both'`` k-fold scheme: ``fold`` is then the fold of both entities when they agree
        (the pair's test fold) and -1 otherwise; see ``train_test``.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.splitting import SplitResult
    >>> result = SplitResult(np.array([0, 1, -1, 0]), np.array(["", "", "invalid_smiles", ""], dtype=object),
    ...                      ("train", "test"))
    >>> result.labels().tolist()
    ['train', 'test', 'unassigned', 'train']
    >>> [rows.tolist() for rows in result.train_test(1)]
    [[0, 3], [1]]
    """

    fold: np.ndarray
    reason: np.ndarray
    names: tuple[str, ...]
    report: dict = field(default_factory=dict)
    entity_folds: dict = field(default_factory=dict)
    clusters: np.ndarray | dict | None = None
    pair_folds: dict = field(default_factory=dict)
    cold_both: bool = False

    def labels(self) -> np.ndarray:
        """Fold name per row, ``"unassigned"`` for rows without a fold."""
        names = np.asarray(list(self.names) + [UNASSIGNED], dtype=object)
        return names[np.where(self.fold >= 0, self.fold, len(self.names))]

    def train_test(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """(train, test) row indices when fold ``i`` is the test fold.

        cold_both: test = rows with both entities in fold i, train = rows with neither entity in i.
        Otherwise: test = rows of fold i, train = the rows of every other fold.
        """
        if not 0 <= i < len(self.names):
            raise ValueError(f"fold index must lie in [0, {len(self.names)}), got {i!r}")
        if self.cold_both:
            fa, fb = self.pair_folds["a"], self.pair_folds["b"]
            train = (fa >= 0) & (fb >= 0) & (fa != i) & (fb != i)
            return np.flatnonzero(train), np.flatnonzero((fa == i) & (fb == i))
        return np.flatnonzero((self.fold >= 0) & (self.fold != i)), np.flatnonzero(self.fold == i)


def validate_spec(spec: SplitSpec) -> None:
    """Raise ValueError naming the first bad option."""
    s = np.asarray(spec.fractions, dtype=float)
    if s.size < 2:
        raise ValueError(f"at least two split fractions are needed, got {list(spec.fractions)}")
    if (s <= 0).any() or (s >= 1).any():
        raise ValueError(f"split fractions must lie in (0, 1), got {list(spec.fractions)}")
    if abs(s.sum() - 1.0) > 1e-6:
        raise ValueError(f"split fractions must sum to 1, got {list(spec.fractions)} (sum {s.sum():g})")
    if len(spec.names) != s.size:
        raise ValueError(f"{s.size} split fractions but {len(spec.names)} names: {list(spec.names)}")
    if len(set(spec.names)) != len(spec.names) or any(not str(n).strip() for n in spec.names):
        raise ValueError(f"split names must be unique and non-empty, got {list(spec.names)}")
    if UNASSIGNED in spec.names:
        raise ValueError(f"{UNASSIGNED!r} is reserved for rows without a fold")
    if spec.clusters is not None and spec.clusters < 1:
        raise ValueError(f"the number of clusters (--clusters, option clusters) must be >= 1, got {spec.clusters}")
    if not 0 <= spec.epsilon < 1:
        raise ValueError(f"epsilon must lie in [0, 1), got {spec.epsilon}")
    if not 0 <= spec.delta <= 1:
        raise ValueError(f"delta must lie in [0, 1], got {spec.delta}")
    if spec.stratification not in STRATIFICATIONS:
        raise ValueError(f"stratification must be one of {STRATIFICATIONS}, got {spec.stratification!r}")
    if spec.time_limit <= 0:
        raise ValueError(f"time_limit must be > 0 seconds, got {spec.time_limit}")
    if spec.mip_gap is not None and not 0 <= spec.mip_gap < 1:
        raise ValueError(f"mip_gap must lie in [0, 1), got {spec.mip_gap}")
    if spec.linkage not in LINKAGES:
        raise ValueError(f"linkage must be one of {LINKAGES}, got {spec.linkage!r}")
    if spec.solver.upper() not in available_milp_solvers():
        raise ValueError(
            f"solver {spec.solver!r} is not an installed MILP solver; installed: {available_milp_solvers()}"
        )
    if spec.node_limit is not None and spec.node_limit < 1:
        raise ValueError(f"node_limit must be >= 1, got {spec.node_limit}")
    if spec.seed < 0:
        raise ValueError(f"seed must be >= 0, got {spec.seed}")
    if spec.micro_clusters < 1 or spec.block_size < 1:
        raise ValueError(f"micro_clusters and block_size must be >= 1, got {spec.micro_clusters}, {spec.block_size}")
    if spec.max_similarity is not None and not 0 <= spec.max_similarity <= 1:
        raise ValueError(f"max_similarity must lie in [0, 1], got {spec.max_similarity}")
    if spec.threshold_action not in THRESHOLD_ACTIONS:
        raise ValueError(f"threshold_action must be one of {THRESHOLD_ACTIONS}, got {spec.threshold_action!r}")
    if spec.fraction_tolerance is not None and not 0 <= spec.fraction_tolerance < 1:
        raise ValueError(f"fraction_tolerance must lie in [0, 1), got {spec.fraction_tolerance}")
    if spec.certificate_seeds < 0:
        raise ValueError(f"certificate_seeds must be >= 0, got {spec.certificate_seeds}")
    if spec.pair_scheme not in PAIR_SCHEMES:
        raise ValueError(f"pair_scheme must be one of {PAIR_SCHEMES}, got {spec.pair_scheme!r}")


def pair_fractions(fractions: np.ndarray) -> np.ndarray:
    """Per-side fractions t_i = sqrt(s_i) / sum_j sqrt(s_j) for I2/S2 (t_i^2 / sum_j t_j^2 = s_i)."""
    r = np.sqrt(np.asarray(fractions, dtype=float))
    return r / r.sum()


def largest_remainder(total: int, fractions: np.ndarray) -> np.ndarray:
    """Integer fold sizes summing to ``total`` closest to total * s_i (Hamilton's method)."""
    raw = total * np.asarray(fractions, dtype=float)
    sizes = np.floor(raw).astype(np.int64)
    rest = total - int(sizes.sum())
    order = np.argsort(-(raw - sizes), kind="stable")
    sizes[order[:rest]] += 1
    return sizes


def _random_folds(n: int, fractions: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    sizes = largest_remainder(n, fractions)
    folds = np.repeat(np.arange(sizes.size), sizes)
    return folds[rng.permutation(n)]


def _signature_groups(weights: np.ndarray, classes: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Group entities with equal weight and equal class membership; returns (group id per entity, representative)."""
    key = weights[:, None]
    if classes is not None:
        key = np.hstack([key, classes.astype(float)])
    _, first, group = np.unique(key, axis=0, return_index=True, return_inverse=True)
    return group.reshape(-1), first


def _identity_folds(
    weights: np.ndarray,
    classes: np.ndarray | None,
    class_names: tuple[str, ...],
    fractions: np.ndarray,
    spec: SplitSpec,
    rng: np.random.Generator,
    report: dict | None = None,
    what: str = "the data",
) -> np.ndarray:
    """Random assignment of entities to folds honouring eqs. (14)/(15) (I1/I2); for k-fold specs with fold
    targets that whole entities can meet ([`fit_weights_to_folds`][], noted in ``report['fold_fit']``)."""
    if spec.balanced:
        fractions, fit = fit_weights_to_folds(weights, fractions, spec.epsilon, what)
        if report is not None:
            report["fold_fit"] = fit
    group, rep = _signature_groups(weights, classes)
    sizes = np.bincount(group, minlength=rep.size)
    counts = solve_group_counts(
        sizes, weights[rep], fractions, spec.epsilon, spec.delta,
        None if classes is None else classes[rep], class_names, spec.solver, spec.time_limit, spec.seed,
        spec.stratification,
    )
    folds = np.empty(weights.size, dtype=np.int64)
    for g in range(rep.size):
        members = rng.permutation(np.flatnonzero(group == g))
        folds[members] = np.repeat(np.arange(fractions.size), counts[g])
    return folds


def _class_counts(classes: np.ndarray | None, labels: np.ndarray, weights: np.ndarray, k: int) -> np.ndarray | None:
    if classes is None:
        return None
    p = np.zeros((labels.size, k))
    p[np.arange(labels.size), labels] = weights
    return p.T @ classes.astype(float)


def cluster_count(clusters: int | None, n: int, kfold: bool = False) -> int:
    """K of the ILP for ``n`` entities: ``clusters``, or, when it is None, min(DEFAULT_CLUSTERS, n) (the paper's
    50) and for a k-fold split into 3 or more equal folds (``kfold``) min(DEFAULT_KFOLD_CLUSTERS, n).

    The k-fold ILP's LP grows with K^2 k: on the 200 example molecules, 5 folds took 118.8 CPU-s at K = 50 and
    12.2 CPU-s at K = 20, with the same leakage after the refinement (benchmarks/kfold_clusters.py).
    Raises ValueError, naming the option, for an explicit K above n.
    """
    default = DEFAULT_KFOLD_CLUSTERS if kfold else DEFAULT_CLUSTERS
    if clusters is None:
        return min(default, n)
    if clusters > n:
        raise ValueError(f"the number of clusters K={clusters} is larger than the number of entities n={n}: give "
                         f"--clusters (option clusters) at most {n}, or none for min({default}, n)")
    return clusters


def _similarity_instance(
    source: SimilaritySource,
    weights: np.ndarray,
    classes: np.ndarray | None,
    class_names: tuple[str, ...],
    fractions: np.ndarray,
    spec: SplitSpec,
    seed: int,
    what: str = "the data",
):
    """Clusters of ``source`` and their ILP instance (for k-fold specs split until k folds fit, [`fit_clusters_to_folds`][];
    the instance's fractions are then the fold targets used); returns (clustering, instance, micro-cluster class
    counts, report part)."""
    start = time.perf_counter()
    kfold = spec.balanced and len(fractions) >= 3
    clustering = cluster_entities(
        source, cluster_count(spec.clusters, source.n, kfold=kfold), weights=weights, linkage=spec.linkage,
        n_micro=spec.micro_clusters, seed=seed, block_size=spec.block_size,
    )
    fit = None
    if spec.balanced:
        fit = fit_clusters_to_folds(clustering, source, weights, fractions, spec.epsilon, seed=seed,
                                    block_size=spec.block_size, what=what)
        clustering, fractions = fit.clustering, fit.fractions
    g = clustering.clusters
    pair_w = np.outer(g.kappa, g.kappa) * clustering.similarity
    np.fill_diagonal(pair_w, 0.0)
    inst = ClusterInstance(
        g.kappa, pair_w, fractions, _class_counts(classes, clustering.labels, weights, g.m), class_names, spec.names
    )
    micro_classes = _class_counts(classes, clustering.micro_labels, weights, clustering.micro.m)
    info = {
        "n_entities": int(source.n),
        "n_micro_clusters": int(clustering.micro_labels.max()) + 1,
        "n_clusters": int(g.m),
        "largest_cluster_fraction": float(g.kappa.max() / g.kappa.sum()),
        "clustering_seconds": round(time.perf_counter() - start, 3),
    }
    if fit is not None:
        info["fold_fit"] = fit.report
    return clustering, inst, micro_classes, info


def _scaled(groups, folds: np.ndarray) -> tuple[float, float]:
    """Exact L(pi) (eq. 2) and scaled L(pi) (eq. 20) of the entity split from group sums."""
    diff = folds[:, None] != folds[None, :]
    leak = float(np.triu(groups.cross * diff, 1).sum())
    total = 2.0 * groups.total + groups.self_sum
    return leak, 2.0 * leak / total if total > 0 else 0.0


def _finish_clusters(clustering, micro_classes, cluster_folds: np.ndarray, fractions, spec: SplitSpec):
    """Unpack the cluster assignment to entities (Fig. 2d), optionally refined on micro-clusters."""
    micro_folds = cluster_folds[clustering.micro_to_cluster]
    leak, scaled = _scaled(clustering.micro, micro_folds)
    info = {"ilp_leakage": leak, "ilp_scaled_leakage": scaled}
    if spec.refine:
        micro_folds = refine_assignment(
            clustering.micro.cross, clustering.micro.kappa, micro_folds, fractions, spec.epsilon, spec.delta,
            micro_classes, balanced=spec.balanced, fraction_tolerance=spec.fraction_tolerance,
            balance_folds=spec.balance_folds, stratification=spec.stratification,
        )
        leak, scaled = _scaled(clustering.micro, micro_folds)
    info.update({"refined": bool(spec.refine), "leakage": leak, "scaled_leakage": scaled})
    return micro_folds[clustering.micro_labels], info


def _ilp_report(res) -> dict:
    out = {
        "solver": res.solver,
        "solver_status": res.status,
        "solver_message": res.message,
        "solver_seconds": round(res.seconds, 3),
        "objective": res.objective,
    }
    if res.extra.get("nodes") is not None:
        out["solver_nodes"] = res.extra["nodes"]
    if res.bound is not None:
        out["objective_lower_bound"] = res.bound
        out["ilp_gap"] = (res.objective - max(res.bound, 0.0)) / res.objective if res.objective > 0 else 0.0
    if res.extra.get("mip_gap_tolerance") is not None:
        out["mip_gap_tolerance"] = res.extra["mip_gap_tolerance"]
    return out


def _fold_report(folds: np.ndarray, names: tuple[str, ...], fractions, valid: int) -> dict:
    """Rows per fold, and the achieved fractions of the assigned rows beside the requested ones."""
    sizes = np.bincount(folds[folds >= 0], minlength=len(names))
    total = sizes.sum()
    return {
        "fold_sizes": {n: int(s) for n, s in zip(names, sizes, strict=True)},
        "fold_fractions": {n: float(s / total) if total else 0.0 for n, s in zip(names, sizes, strict=True)},
        "requested_fractions": {n: float(s) for n, s in zip(names, fractions, strict=True)},
        "n_assigned": int((folds >= 0).sum()),
        "n_valid": int(valid),
    }


def split_entities(task: str, entities: EntitySet, spec: SplitSpec) -> SplitResult:
    """Split 1-D data (one row per entity) by task R, I1 or S1.

    Rows that are not valid get fold -1 with ``entities.invalid_reason``.

    Parameters
    ----------
    task : str
        ``'R'`` (random), ``'I1'`` (identity-based: random subject to the size and class constraints) or
        ``'S1'`` (similarity-based: clusters, then the ILP).
    entities : EntitySet
        The entities; S1 needs their similarity.
    spec : SplitSpec
        Fold names, fractions and the split options.

    Returns
    -------
    SplitResult
        Fold indices into ``spec.names`` per row, and a report (sizes, solver status, leakage for S1).

    Examples
    --------
    Four entities in two similar pairs, split in halves; each pair stays in one fold:

    >>> import numpy as np
    >>> from benchdesign.splitting import EntitySet, MatrixSimilarity, SplitSpec, split_entities
    >>> sim = np.array([[1.0, 0.9, 0.1, 0.0], [0.9, 1.0, 0.2, 0.1],
    ...                 [0.1, 0.2, 1.0, 0.8], [0.0, 0.1, 0.8, 1.0]])
    >>> entities = EntitySet(np.array(["a", "b", "c", "d"], dtype=object), np.ones(4, dtype=bool),
    ...                      MatrixSimilarity(sim))
    >>> result = split_entities("S1", entities, SplitSpec(fractions=(0.5, 0.5), clusters=2))
    >>> result.labels()
    array(['train', 'train', 'test', 'test'], dtype=object)
    """
    validate_spec(spec)
    task = task.upper()
    if task not in TASK_TABLE or TASK_TABLE[task].two_sided:
        raise ValueError(f"task {task!r} is not a 1-D task; use R, I1 or S1 (I2/S2 need an interaction table)")
    kind = TASK_TABLE[task]
    n = len(entities.ids)
    valid_idx = np.flatnonzero(entities.valid)
    if valid_idx.size < len(spec.names):
        raise ValueError(f"{valid_idx.size} valid entities cannot fill {len(spec.names)} folds")
    s = np.asarray(spec.fractions, dtype=float)
    rng = np.random.default_rng(spec.seed)
    classes = None if entities.classes is None else np.asarray(entities.classes, dtype=bool)[valid_idx]
    w = np.ones(valid_idx.size)
    report: dict = {"task": task, "n_rows": n}
    cluster_valid = None
    if kind.is_random:
        sub = _random_folds(valid_idx.size, s, rng)
    elif not kind.by_similarity:
        sub = _identity_folds(w, classes, entities.class_names, s, spec, rng, report)
    else:
        if entities.similarity is None:
            raise ValueError("task S1 needs a similarity: give SMILES, sequences, feature vectors or a matrix")
        clustering, inst, micro_classes, info = _similarity_instance(
            entities.similarity, w, classes, entities.class_names, s, spec, int(rng.integers(2**31))
        )
        res = solve_split_ilp(
            [inst], spec.epsilon, spec.delta, spec.solver, spec.time_limit, spec.seed, spec.node_limit, spec.mip_gap,
            spec.verbose, spec.balanced, spec.stratification,
        )
        sub, leak_info = _finish_clusters(clustering, micro_classes, res.assignments[0], inst.fractions, spec)
        cluster_valid = clustering.labels
        report.update(info)
        report.update(_ilp_report(res))
        report.update(leak_info)
    reason = np.where(entities.valid, "", entities.invalid_reason).astype(object)
    if spec.max_similarity is not None:
        if entities.similarity is None:
            raise ValueError("max_similarity needs a similarity: give SMILES, sequences, feature vectors or a matrix")
        sub, reason[valid_idx], report["max_similarity"] = _apply_threshold(
            entities.similarity, sub, entities.ids[valid_idx], spec
        )
    if kind.by_similarity:
        report["certificate"] = _certificate(entities.similarity, sub, res, clustering.micro, inst.fractions, spec)
        if spec.max_similarity is not None:  # the leakage figures above are those before the threshold step
            report["leakage"] = report["certificate"]["leakage"]
            report["scaled_leakage"] = report["certificate"]["scaled_leakage"]
    fold = np.full(n, -1, dtype=np.int64)
    fold[valid_idx] = sub
    report.update(_fold_report(fold, spec.names, spec.fractions, valid_idx.size))
    if classes is not None:
        report["class_fold_counts"] = {
            c: {spec.names[i]: int(np.sum(classes[:, j] & (sub == i))) for i in range(s.size)}
            for j, c in enumerate(entities.class_names)
        }
        report["stratification"] = {"delta": spec.delta, "bound": spec.stratification}
    clusters = None
    if cluster_valid is not None:
        clusters = np.full(n, -1, dtype=np.int64)
        clusters[valid_idx] = cluster_valid
    return SplitResult(fold, reason, tuple(spec.names), report, clusters=clusters)


def group_folds(groups: np.ndarray, fractions: np.ndarray) -> np.ndarray:
    """Whole groups into folds, largest first, each to the fold furthest below its size s_i n (as
    scikit-learn's ``GroupKFold`` for equal folds; ties: the first such fold)."""
    labels = np.unique(groups, return_inverse=True)[1].reshape(-1)
    sizes = np.bincount(labels)
    target = np.asarray(fractions, dtype=float) * groups.size
    filled = np.zeros(target.size)
    fold_of_group = np.empty(sizes.size, dtype=np.int64)
    for g in np.argsort(-sizes, kind="stable"):
        f = int(np.argmax(target - filled))
        fold_of_group[g] = f
        filled[f] += sizes[g]
    return fold_of_group[labels]


GROUP_WORDS = {"scaffold": "Bemis-Murcko scaffolds", "butina": "Butina clusters"}


def _refuse_empty_folds(task: str, folds: np.ndarray, groups: np.ndarray, names: Sequence[str]) -> None:
    """ValueError when whole groups leave a fold empty (e.g. fewer groups than folds): no empty fold is a split."""
    empty = [str(name) for i, name in enumerate(names) if not (folds == i).any()]
    if not empty:
        return
    n_groups = np.unique(groups).size
    if n_groups < 2:
        fix = "one group cannot be split"
    elif n_groups < len(names):
        fix = f"use at most {n_groups} folds (--folds / --fractions)"
    else:
        fix = "give the small folds larger fractions (--fractions)"
    raise ValueError(
        f"task {task}: the {groups.size} entities form {n_groups} group(s) ({GROUP_WORDS.get(task, 'groups')}); "
        f"whole groups leave {len(empty)} of {len(names)} folds empty ({', '.join(empty)}); {fix}, or split at random "
        "(--task R)")


def split_groups(task: str, entities: EntitySet, groups: np.ndarray, spec: SplitSpec) -> SplitResult:
    """Split 1-D data by given groups of the valid entities (scaffolds, Butina clusters).

    The folds get the same report and certificate (random splits of the same fractions, fold against
    the rest) as an S1 split when the entities have a similarity.

    Parameters
    ----------
    task : str
        Name of the task in the report (e.g. ``'scaffold'``, ``'butina'``).
    entities : EntitySet
        The entities.
    groups : np.ndarray
        One group label per valid entity; a group is never split.
    spec : SplitSpec
        Fold names, fractions and the split options.

    Returns
    -------
    SplitResult
        Fold indices into ``spec.names`` per row, and the report.

    Examples
    --------
    Six entities in groups of 3, 1 and 2, split in halves; no group is split:

    >>> import numpy as np
    >>> from benchdesign.splitting import EntitySet, SplitSpec, split_groups
    >>> entities = EntitySet(np.array(list("abcdef"), dtype=object), np.ones(6, dtype=bool))
    >>> result = split_groups("scaffold", entities, np.array(["x", "x", "x", "y", "z", "z"]),
    ...                       SplitSpec(fractions=(0.5, 0.5)))
    >>> result.labels().tolist()
    ['train', 'train', 'train', 'test', 'test', 'test']
    >>> result.report["n_groups"], result.report["largest_group_fraction"]
    (3, 0.5)
    """
    validate_spec(spec)
    valid_idx = np.flatnonzero(entities.valid)
    groups = np.asarray(groups).reshape(-1)
    if groups.size != valid_idx.size:
        raise ValueError(f"{groups.size} group labels for {valid_idx.size} valid entities")
    s = np.asarray(spec.fractions, dtype=float)
    sub = group_folds(groups, s)
    _refuse_empty_folds(task, sub, groups, spec.names)
    n = len(entities.ids)
    group_sizes = np.unique(groups, return_counts=True)[1]
    report: dict = {"task": task, "n_rows": n, "n_groups": int(group_sizes.size),
                    "largest_group_fraction": float(group_sizes.max() / max(groups.size, 1))}
    if entities.similarity is not None:
        source = entities.similarity  # the certificate's bound is over splits of the leader micro-clusters
        micro_labels = leader_labels(source, spec.micro_clusters, np.random.default_rng(spec.seed))
        micro = group_similarity(source, micro_labels, block_size=spec.block_size)
        report["certificate"] = _certificate(entities.similarity, sub, None, micro, s, spec)
        report["scaled_leakage"] = report["certificate"]["scaled_leakage"]
    fold = np.full(n, -1, dtype=np.int64)
    fold[valid_idx] = sub
    report.update(_fold_report(fold, spec.names, spec.fractions, valid_idx.size))
    reason = np.where(entities.valid, "", entities.invalid_reason).astype(object)
    return SplitResult(fold, reason, tuple(spec.names), report)


def _apply_threshold(source: SimilaritySource, folds: np.ndarray, ids: np.ndarray, spec: SplitSpec):
    """Enforce ``spec.max_similarity`` on entity folds; returns folds, per-entity reasons and the report part."""
    repair, check = verified_max_similarity(source, folds, spec.max_similarity, spec.threshold_action,
                                            spec.block_size)
    reason = np.full(folds.size, "", dtype=object)
    samples = []
    for e in repair.events:
        dropped = e["action"] == "dropped"
        reason[e["index"]] = REASON_DROPPED if dropped else REASON_MOVED
        samples.append({
            "id": str(ids[e["index"]]), "action": e["action"], "from": spec.names[e["from_fold"]],
            "to": None if dropped else spec.names[e["to_fold"]],
            "reason": f"similarity {e['similarity']:.4f} > {spec.max_similarity:g} to "
                      f"{ids[e['neighbour']]} ({spec.names[folds[e['neighbour']]]})",
        })
    part = {
        "threshold": spec.max_similarity, "action": spec.threshold_action,
        "n_violating_pairs": repair.n_violations, "n_dropped": repair.n_dropped, "n_moved": repair.n_moved,
        "samples": samples,
    }
    if check is not None:
        part["check"] = {**{k: v for k, v in check.items() if k != "remaining"}, "remaining": [
            {"a": str(ids[a]), "b": str(ids[b]), "similarity": v} for a, b, v in check["remaining"]]}
    return repair.folds, reason, part


def _certificate(source: SimilaritySource, folds: np.ndarray, res, groups, fractions: np.ndarray,
                 spec: SplitSpec, weights: np.ndarray | None = None) -> dict:
    """Certificate (certificate.py) of entity ``folds``: random splits of the same fold sizes from ``spec.seed``."""
    randoms = random_baselines(folds, spec.seed, spec.certificate_seeds)
    total = 2.0 * groups.total + groups.self_sum  # eq. (20) denominator over all entities of the ILP
    objective, bound = (None, None) if res is None else (res.objective, res.bound)
    n = float(groups.kappa.sum())
    if spec.balanced:
        capacity = float(upper_bounds(n, fractions, spec.epsilon).max())
    else:
        low = lower_bounds(n, fractions, spec.epsilon)
        capacity = float((n - (low.sum() - low)).max())  # a fold holds what the others leave at least
    star = star_lower_bound(groups.cross, groups.kappa, capacity)
    return split_certificate(source, folds, spec.names, randoms, weights, objective, bound, total, spec.block_size,
                             star, seed=spec.seed)


def split_interactions(
    task: str,
    inter_a: np.ndarray,
    inter_b: np.ndarray,
    side_a: EntitySet,
    side_b: EntitySet,
    spec: SplitSpec,
    side: str = "a",
) -> SplitResult:
    """Split 2-D data (one row per interaction (a, b)) by task R, I1, I2, S1 or S2.

    An interaction with an invalid entity gets that entity set's reason; in I2/S2 an interaction whose
    entities land in different folds gets fold -1 and reason ``entities_in_different_folds``: dropped
    ('same_fold', the report's ``n_dropped``) or, in the 'cold_both' k-fold scheme, tested in no fold
    but trained on in the folds of neither entity (``n_no_test_fold``). ``pair_folds`` holds each
    interaction's entity folds; for k-fold specs the report's ``fold_usage`` counts, per fold, the
    train / test / unused interactions of ``SplitResult.train_test``.

    Parameters
    ----------
    task : str
        R, I1, I2, S1 or S2.
    inter_a : np.ndarray
        (m,) index of each interaction's entity a into ``side_a.ids``.
    inter_b : np.ndarray
        (m,) index of each interaction's entity b into ``side_b.ids``.
    side_a : EntitySet
        The entities of side a.
    side_b : EntitySet
        The entities of side b.
    spec : SplitSpec
        Fold names, fractions and solver settings.
    side : str
        For I1/S1, the side whose entities are split, ``'a'`` or ``'b'``; interactions follow that side.

    Returns
    -------
    SplitResult
        Fold of every interaction, with the report.

    Examples
    --------
    Four entities a0..a3, each with two interactions (with b0 and b1), split I1 on side a in halves: the
    interactions follow their entity a:

    >>> import numpy as np
    >>> from benchdesign.splitting import EntitySet, SplitSpec, split_interactions
    >>> side_a = EntitySet(np.array(["a0", "a1", "a2", "a3"], dtype=object), np.ones(4, dtype=bool))
    >>> side_b = EntitySet(np.array(["b0", "b1"], dtype=object), np.ones(2, dtype=bool))
    >>> inter_a, inter_b = np.array([0, 0, 1, 1, 2, 2, 3, 3]), np.array([0, 1, 0, 1, 0, 1, 0, 1])
    >>> result = split_interactions("I1", inter_a, inter_b, side_a, side_b, SplitSpec(fractions=(0.5, 0.5)))
    >>> result.entity_folds["a"].tolist()
    [0, 1, 0, 1]
    >>> result.labels().tolist()
    ['train', 'train', 'test', 'test', 'train', 'train', 'test', 'test']
    """
    validate_spec(spec)
    task = task.upper()
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; use one of {TASKS}")
    if side not in ("a", "b"):
        raise ValueError(f"side must be 'a' or 'b', got {side!r}")
    if spec.max_similarity is not None:
        raise ValueError("max_similarity (hard threshold) applies to 1-D splits only, not to interaction tables")
    ia = np.asarray(inter_a, dtype=np.int64)
    ib = np.asarray(inter_b, dtype=np.int64)
    if ia.shape != ib.shape or ia.ndim != 1:
        raise ValueError(f"inter_a and inter_b must be 1-D of equal length, got {ia.shape} and {ib.shape}")
    for idx, ent, nm in ((ia, side_a, "a"), (ib, side_b, "b")):
        if idx.size and (idx.min() < 0 or idx.max() >= len(ent.ids)):
            raise ValueError(f"interaction indices of side {nm} must lie in [0, {len(ent.ids)})")
    m = ia.size
    s = np.asarray(spec.fractions, dtype=float)
    rng = np.random.default_rng(spec.seed)
    fold = np.full(m, -1, dtype=np.int64)
    reason = np.full(m, "", dtype=object)
    bad_a = ~np.asarray(side_a.valid)[ia]
    bad_b = ~np.asarray(side_b.valid)[ib]
    reason[bad_b] = side_b.invalid_reason
    reason[bad_a] = side_a.invalid_reason
    ok = ~(bad_a | bad_b)
    ok_idx = np.flatnonzero(ok)
    if ok_idx.size < len(spec.names):
        raise ValueError(f"{ok_idx.size} valid interactions cannot fill {len(spec.names)} folds")
    report: dict = {"task": task, "n_rows": m, "n_invalid": int((~ok).sum())}
    kind = TASK_TABLE[task]
    cold_both = kind.two_sided and spec.balanced and spec.pair_scheme == "cold_both"
    lookup: dict[str, np.ndarray] = {}
    side_clusters: dict[str, np.ndarray] = {}
    pair_folds: dict[str, np.ndarray] = {}
    if kind.is_random:
        fold[ok_idx] = _random_folds(ok_idx.size, s, rng)
    else:
        sides = ["a", "b"] if kind.two_sided else [side]
        frac = pair_fractions(s) if len(sides) == 2 and not cold_both else s
        if len(sides) == 2:
            report["side_fractions"] = frac.tolist()
        ents = {"a": (side_a, ia), "b": (side_b, ib)}
        lookup, side_clusters = _side_folds(task, [(sd, *ents[sd]) for sd in sides], ok, frac, spec, rng, report)
        for sd in sides:
            pair_folds[sd] = np.full(m, -1, dtype=np.int64)
            pair_folds[sd][ok_idx] = lookup[sd][ents[sd][1][ok_idx]]
        report.update(_rows_from_pair_folds(pair_folds, ok_idx, fold, reason, cold_both))
    report.update(_fold_report(fold, spec.names, spec.fractions, ok_idx.size))
    result = SplitResult(fold, reason, tuple(spec.names), report, lookup, side_clusters or None, pair_folds, cold_both)
    if spec.balanced:
        report["fold_usage"] = fold_usage(result)
    return result


def _side_folds(task: str, sides: list, ok: np.ndarray, frac: np.ndarray, spec: SplitSpec,
                rng: np.random.Generator, report: dict) -> tuple[dict, dict]:
    """Entity folds of each split side (side -> fold per entity, -1 without a valid interaction) and, for
    S tasks, side -> cluster per entity; ``sides`` holds (side, EntitySet, interaction index) and the S
    sides share one ILP. Adds the sides' clustering / solver / certificate figures to ``report``."""
    entity_fold, instances, prepared = {}, [], []
    for sd, ent, idx in sides:
        weights_all = np.bincount(idx[ok], minlength=len(ent.ids)).astype(float)
        active = np.flatnonzero(weights_all > 0)  # valid entities with at least one valid interaction
        if active.size < frac.size:
            raise ValueError(f"side {sd} has {active.size} entities with a valid interaction, too few for "
                             f"{frac.size} folds")
        w = weights_all[active]
        classes = None if ent.classes is None else np.asarray(ent.classes, dtype=bool)[active]
        if not TASK_TABLE[task].by_similarity:
            report[f"side_{sd}"] = {"n_entities": int(active.size)}
            entity_fold[sd] = (active, _identity_folds(w, classes, ent.class_names, frac, spec, rng,
                                                       report[f"side_{sd}"], f"side {sd}"))
            continue
        if ent.similarity is None:
            raise ValueError(f"task {task} needs a similarity for side {sd}")
        valid_pos = np.cumsum(np.asarray(ent.valid)) - 1  # row -> position among valid entities
        source = ent.similarity.subset(valid_pos[active])
        clustering, inst, micro_classes, info = _similarity_instance(
            source, w, classes, ent.class_names, frac, spec, int(rng.integers(2**31)), f"side {sd}"
        )
        instances.append(inst)
        prepared.append((sd, ent, active, clustering, micro_classes, w, source, inst.fractions))
        report[f"side_{sd}"] = info
    side_clusters = {}
    if instances:
        res = solve_split_ilp(
            instances, spec.epsilon, spec.delta, spec.solver, spec.time_limit, spec.seed, spec.node_limit,
            spec.mip_gap, spec.verbose, spec.balanced, spec.stratification,
        )
        report.update(_ilp_report(res))
        for (sd, ent, active, clustering, micro_classes, w, source, targets), assign in zip(
                prepared, res.assignments, strict=True):
            folds, leak_info = _finish_clusters(clustering, micro_classes, assign, targets, spec)
            entity_fold[sd] = (active, folds)
            report[f"side_{sd}"].update(leak_info)
            report[f"side_{sd}"]["certificate"] = _certificate(source, folds, None, clustering.micro, targets, spec, w)
            side_clusters[sd] = _on_entities(len(ent.ids), active, clustering.labels)
    if spec.balanced:
        for sd, ent, idx in sides:
            report[f"side_{sd}"]["fold_weights"] = _fold_weights(*entity_fold[sd], idx[ok], spec.names)
    lookup = {sd: _on_entities(len(ent.ids), *entity_fold[sd]) for sd, ent, _ in sides}
    return lookup, side_clusters


def _fold_weights(active: np.ndarray, folds: np.ndarray, idx: np.ndarray, names: Sequence[str]) -> dict:
    """Per fold of one side: its entities, and the valid rows (interactions) whose entity of this side it holds
    with their share; ``idx`` is the side's entity of every valid row."""
    fold_of = np.full(int(max(active.max(initial=-1), idx.max(initial=-1))) + 1, -1, dtype=np.int64)
    fold_of[active] = folds
    rows = np.bincount(fold_of[idx], minlength=len(names))
    ents = np.bincount(folds, minlength=len(names))
    return {name: {"entities": int(e), "rows": int(r), "row_share": float(r / max(idx.size, 1))}
            for name, e, r in zip(names, ents, rows, strict=True)}


def _on_entities(n: int, active: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` of the ``active`` entities spread over all ``n`` entities (-1 elsewhere)."""
    full = np.full(n, -1, dtype=np.int64)
    full[active] = values
    return full


def _rows_from_pair_folds(pair_folds: dict, ok_idx: np.ndarray, fold: np.ndarray, reason: np.ndarray,
                          cold_both: bool) -> dict:
    """Fill ``fold`` / ``reason`` of the valid rows from their entity folds; returns the report part."""
    if len(pair_folds) == 1:
        (sd, pf), = pair_folds.items()
        fold[ok_idx] = pf[ok_idx]
        return {"pair_scheme": "cold_one_side", "side": sd}
    fa, fb = pair_folds["a"][ok_idx], pair_folds["b"][ok_idx]
    same = fa == fb
    fold[ok_idx[same]] = fa[same]
    reason[ok_idx[~same]] = REASON_CROSS_FOLD
    key = "no_test_fold" if cold_both else "dropped"
    return {"pair_scheme": "cold_both" if cold_both else "same_fold", f"n_{key}": int((~same).sum()),
            f"{key}_fraction": float((~same).mean())}


def fold_usage(result: SplitResult) -> dict:
    """Per fold (as the test fold of ``SplitResult.train_test``): train / test / unused rows and their
    shares of all rows, plus the mean shares over the folds."""
    m = result.fold.size
    folds = {}
    for i, name in enumerate(result.names):
        train, test = result.train_test(i)
        counts = {"train": int(train.size), "test": int(test.size), "unused": int(m - train.size - test.size)}
        folds[name] = {**counts, **{f"{k}_share": v / m if m else 0.0 for k, v in counts.items()}}
    mean = {f"mean_{k}_share": float(np.mean([f[f"{k}_share"] for f in folds.values()]))
            for k in ("train", "test", "unused")}
    return {"folds": folds, **mean}
