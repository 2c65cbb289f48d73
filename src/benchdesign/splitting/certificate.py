"""Certificate of a similarity-based split: how much leakage was removed, and how far from optimal.

Beside the split's scaled L(pi) (eq. 20) the certificate holds
- the scaled L(pi) of each train/test pair "fold i vs all other folds" (k-fold CV: one per fold),
- the same figures for random splits of the same fold sizes (``random_baselines``; mean and std over a
  few seeds),
- the ILP's objective and lower bound at cluster level (eq. 12 over clusters, scaled like eq. 20), and
  the relative gap between them,
- a lower bound on L(pi) of *every* assignment of the micro-clusters (of every entity split when
  n <= n_micro) that respects the fold size bounds, ``star_lower_bound``, and the gap of the split
  to it. Cheap (M^2 log M) where the ILP's own bound needs the root LP of branch and bound.

The lower bound holds for assignments of whole clusters (the ILP's search space). The micro-cluster
refinement (refine.py) and entity-level changes can go below it, so it bounds the ILP step, not every
conceivable split. With single/complete linkage the ILP's weights are not L(pi) (only average linkage
makes objective (12) equal L(pi)), and the cluster-level figures are then in the ILP's own units.
All split figures come from one tiled pass over the similarities ([`leakage_summary`][]); beyond
``max_pairs`` entity pairs (n > ~100,000: the pass would cost hours) from the sampled estimator
([`sampled_leakage`][], ``n_pairs`` pairs each), and the certificate then says so (``sampled``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from benchdesign.splitting.leakage import leakage_summary, sampled_leakage
from benchdesign.splitting.options import DEFAULT_MAX_PAIRS, SAMPLED_REPORT_PAIRS
from benchdesign.splitting.similarity import DEFAULT_BLOCK, SimilaritySource

__all__ = ["fold_vs_rest", "random_baselines", "star_lower_bound", "split_certificate"]


def fold_vs_rest(folds: np.ndarray, n_folds: int) -> list[np.ndarray]:
    """One 0/1 split per fold i (1 = in fold i, 0 = in another fold, -1 = unassigned)."""
    folds = np.asarray(folds, dtype=np.int64)
    return [np.where(folds < 0, -1, (folds == i).astype(np.int64)) for i in range(n_folds)]


def random_baselines(folds: np.ndarray, seed: int, n_seeds: int) -> list[np.ndarray]:
    """Random splits of the same fold sizes: the assigned entities' folds permuted, seeded by (seed, j)."""
    folds = np.asarray(folds, dtype=np.int64)
    assigned = np.flatnonzero(folds >= 0)
    out = []
    for j in range(n_seeds):
        r = folds.copy()
        r[assigned] = folds[assigned][np.random.default_rng([seed, j]).permutation(assigned.size)]
        out.append(r)
    return out


def star_lower_bound(cross: np.ndarray, kappa: np.ndarray, capacity: float) -> float:
    """Lower bound on L(pi) (eq. 2) over all assignments of groups whose folds hold at most ``capacity``.

    A group a in fold i shares it with groups of total cardinality <= capacity - kappa_a, so it keeps at
    most the fractional-knapsack optimum of its pair weights cross[a, b] (value) over kappa_b (size)
    and cuts the rest. Every cut pair is counted from both ends, hence
    L(pi) >= 1/2 sum_a (sum_b cross[a, b] - knapsack_a(capacity - kappa_a)).
    """
    w = np.asarray(cross, dtype=float).copy()
    kappa = np.asarray(kappa, dtype=float)
    np.fill_diagonal(w, 0.0)
    ratio = w / kappa[None, :]
    order = np.argsort(-ratio, axis=1)
    w_sorted = np.take_along_axis(w, order, axis=1)
    k_sorted = kappa[order]
    room = np.maximum(capacity - kappa, 0.0)[:, None]
    before = np.cumsum(k_sorted, axis=1) - k_sorted  # cardinality taken before each partner
    take = np.clip((room - before) / k_sorted, 0.0, 1.0)  # fraction of each partner that still fits
    kept = (take * w_sorted).sum(axis=1)
    return float(0.5 * np.sum(w.sum(axis=1) - kept))


def split_certificate(
    source: SimilaritySource,
    folds: np.ndarray,
    names: Sequence[str],
    random_splits: Sequence[np.ndarray],
    weights: np.ndarray | None = None,
    ilp_objective: float | None = None,
    ilp_bound: float | None = None,
    total: float | None = None,
    block_size: int = DEFAULT_BLOCK,
    group_bound: float | None = None,
    max_pairs: float = DEFAULT_MAX_PAIRS,
    n_pairs: int = SAMPLED_REPORT_PAIRS,
    seed: int = 0,
) -> dict:
    """Certificate of a split: its leakage against random splits of the same sizes and against the ILP's bound.

    Parameters
    ----------
    source : SimilaritySource
        Similarity over the entities.
    folds : np.ndarray
        One fold index per entity of ``source`` (-1: unassigned).
    names : Sequence[str]
        The fold names.
    random_splits : Sequence[np.ndarray]
        Random fold arrays of the same fold sizes (the baseline, ``random_baselines``; may be empty).
    weights : np.ndarray | None
        (n,) entity cardinalities (None: 1).
    ilp_objective : float | None
        The cluster ILP's objective (12), in L(pi) units.
    ilp_bound : float | None
        Its lower bound, in L(pi) units.
    total : float | None
        Denominator of eq. (20) for the cluster-level figures (None: that of ``folds``).
    block_size : int
        Tile edge of the n x n passes.
    group_bound : float | None
        ``star_lower_bound`` of the micro-clusters, in L(pi) units.
    max_pairs : float
        Above this many pairs of assigned entities every figure is a sampled estimate, and
        ``cert["sampled"]`` says so.
    n_pairs : int
        Pairs of a sampled estimate.
    seed : int
        Seed of the sampled estimates.

    Returns
    -------
    dict
        ``leakage``, ``scaled_leakage`` and ``fold_scaled_leakage`` of the split, the random baseline
        (``random_scaled_leakage``, its spread, ``leakage_reduction``), the ILP's scaled objective and lower bound
        with their gap, and ``sampled``.

    Examples
    --------
    Two pairs of similar entities kept together, against the two random splits that break both pairs up:

    >>> import numpy as np
    >>> from benchdesign.splitting import MatrixSimilarity, split_certificate
    >>> sim = MatrixSimilarity(np.array([[1.0, 0.9, 0.1, 0.0], [0.9, 1.0, 0.2, 0.1],
    ...                                  [0.1, 0.2, 1.0, 0.8], [0.0, 0.1, 0.8, 1.0]]))
    >>> cert = split_certificate(sim, np.array([0, 0, 1, 1]), ("train", "test"),
    ...                          [np.array([0, 1, 0, 1]), np.array([0, 1, 1, 0])])
    >>> round(cert["leakage"], 3), round(cert["total_similarity"], 3), round(cert["scaled_leakage"], 3)
    (0.4, 8.2, 0.098)
    >>> round(cert["random_scaled_leakage"], 3), round(cert["leakage_reduction"], 3)
    (0.463, 0.789)
    """
    k = len(names)
    n_assigned = int(np.sum(np.asarray(folds) >= 0))
    sampled = n_assigned * (n_assigned - 1) / 2 > max_pairs
    estimate = ((lambda f: sampled_leakage(source, f, n_pairs, weights, seed=seed)) if sampled else None)
    per = _split_and_fold_summaries(source, [folds, *random_splits], k, weights, block_size, estimate)
    own = per[0]
    cert: dict = {
        "scaled_leakage": float(own[0].scaled),
        "leakage": float(own[0].leakage),
        "total_similarity": float(own[0].total),
        "fold_scaled_leakage": {name: float(own[1 + i].scaled) for i, name in enumerate(names)},
    }
    if sampled:
        cert["sampled"] = {"n_pairs": int(n_pairs), "confidence": own[0].confidence,
                           "scaled_leakage_ci": [float(v) for v in own[0].scaled_ci]}
    if random_splits:
        rand = np.array([p[0].scaled for p in per[1:]])
        rand_folds = np.array([[p[1 + i].scaled for i in range(k)] for p in per[1:]])
        cert["random_seeds"] = len(random_splits)
        cert["random_scaled_leakage"] = float(rand.mean())
        cert["random_scaled_leakage_std"] = float(rand.std())
        cert["random_fold_scaled_leakage"] = {name: float(rand_folds[:, i].mean()) for i, name in enumerate(names)}
        cert["leakage_reduction"] = float(1.0 - own[0].scaled / rand.mean()) if rand.mean() > 0 else 0.0
    denom = own[0].total if total is None else total
    if ilp_objective is not None and denom > 0:
        cert["ilp_scaled_objective"] = 2.0 * ilp_objective / denom
    if ilp_bound is not None and denom > 0:
        bound = max(float(ilp_bound), 0.0)
        cert["ilp_scaled_lower_bound"] = 2.0 * bound / denom
        if ilp_objective is not None:
            cert["ilp_gap"] = (ilp_objective - bound) / ilp_objective if ilp_objective > 0 else 0.0
    if group_bound is not None and denom > 0:
        cert["scaled_lower_bound"] = 2.0 * max(group_bound, 0.0) / denom
        own_leak = float(own[0].leakage)
        cert["gap"] = (own_leak - group_bound) / own_leak if own_leak > 0 else 0.0
    return cert


def _split_and_fold_summaries(
    source: SimilaritySource, splits: Sequence[np.ndarray], k: int, weights: np.ndarray | None, block_size: int,
    estimate: Callable[[np.ndarray], object] | None,
) -> list[list]:
    """Leakage summaries [split, fold 0 vs rest, ..., fold k-1 vs rest] of every split.

    ``estimate`` (one split -> its sampled summary) replaces the exact tiled pass when given. With two
    folds "fold i vs rest" is the split itself (labels swapped), so its figures are reused.
    """
    per_split = [[s] if k == 2 else [s, *fold_vs_rest(s, k)] for s in splits]
    flat = [p for parts in per_split for p in parts]
    if estimate is not None:
        summaries = [estimate(f) for f in flat]
    else:
        summaries = leakage_summary(source, flat, weights, block_size)
    width = len(per_split[0])
    per = [summaries[i * width:(i + 1) * width] for i in range(len(splits))]
    return [[p[0]] * (k + 1) for p in per] if k == 2 else per
