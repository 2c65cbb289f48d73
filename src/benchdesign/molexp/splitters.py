"""Competitor split methods of the DataSAIL paper's molecule experiments (Fig. 3, Supplementary Fig. 1).

Every splitter has the contract ``fn(smiles, fractions=(0.8, 0.2), seed=0, **options) -> folds``:
``folds[i]`` is the fold of molecule ``i``, ``0..k-1`` in the order of ``fractions`` (0 = train),
or ``-1`` when the method leaves the molecule out. Inputs must be SMILES that RDKit parses; a row
that does not raises ValueError naming it.

Repeats. The paper reshuffles the dataset between its five repeats (DataSAIL's experiment code calls
``dataset.complete_shuffle()`` before each DeepChem and LoHi run). With ``shuffle=True`` (default)
each splitter therefore runs the original algorithm on the molecules in the order
:func:`processing_order` ``(n, seed)`` and maps the folds back to the input order; order is all
that these algorithms randomise on (start molecule, tie-breaks). ``shuffle=False`` runs them on the
input order exactly as DeepChem / LoHi do, and ``seed`` only reaches the MIP solver of LoHi.

- :func:`scaffold_split` -- DeepChem ``ScaffoldSplitter`` (Bemis-Murcko scaffold sets, largest first).
- :func:`fingerprint_split` -- DeepChem ``FingerprintSplitter`` (max-dissimilarity on ECFP4 Tanimoto).
- :func:`lohi_split` -- LoHi's Hi split (``lohi-splitter`` package: min vertex k-cut of the
  Tanimoto neighbourhood graph), with a solver time limit.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from benchdesign.splitting.groups import murcko_scaffolds
from benchdesign.splitting.similarity import smiles_fingerprints

__all__ = [
    "LOHI_INSTALL",
    "check_fractions",
    "processing_order",
    "murcko_scaffolds",
    "scaffold_split",
    "fingerprint_split",
    "split_fingerprints",
    "neighborhood_graph",
    "lohi_split",
]

LOHI_INSTALL = "pip install --no-deps lohi-splitter==1.1 && pip install 'mip==1.17.6' networkx"


def check_fractions(fractions: Sequence[float]) -> np.ndarray:
    """Fractions as a float array; ValueError unless there are >= 2, all in (0, 1), summing to 1 (+-1e-6)."""
    s = np.asarray(fractions, dtype=float).reshape(-1)
    if s.size < 2:
        raise ValueError(f"at least two split fractions are needed, got {list(fractions)}")
    if not np.isfinite(s).all() or (s <= 0).any() or (s >= 1).any():
        raise ValueError(f"split fractions must lie in (0, 1), got {list(fractions)}")
    if abs(s.sum() - 1.0) > 1e-6:
        raise ValueError(f"split fractions must sum to 1, got {list(fractions)} (sum {s.sum():g})")
    return s


def processing_order(n: int, seed: int, shuffle: bool = True) -> np.ndarray:
    """Order in which a splitter visits the molecules: ``default_rng(seed).permutation(n)``, or 0..n-1."""
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    return np.random.default_rng(seed).permutation(n) if shuffle else np.arange(n)


def _bad_rows_message(smiles: Sequence[str], valid: np.ndarray) -> str:
    bad = np.flatnonzero(~valid)
    shown = ", ".join(f"row {i}: {smiles[i]!r}" for i in bad[:10])
    return f"{bad.size} SMILES that RDKit cannot parse ({shown}); drop them before splitting"


def _greedy_fill(sets: Sequence[np.ndarray], n: int, fractions: np.ndarray) -> np.ndarray:
    """DeepChem's fill: each set goes to the first fold j whose cumulative size stays <= n * (s_0+..+s_j)."""
    cutoffs = np.cumsum(fractions)[:-1] * n
    counts = np.zeros(fractions.size, dtype=np.int64)
    folds = np.full(n, -1, dtype=np.int64)
    for members in sets:
        fold = fractions.size - 1
        for j, cut in enumerate(cutoffs):
            if counts[: j + 1].sum() + members.size <= cut:
                fold = j
                break
        counts[fold] += members.size
        folds[members] = fold
    return folds


def scaffold_split(
    smiles: Sequence[str], fractions: Sequence[float] = (0.8, 0.2), seed: int = 0, *, shuffle: bool = True
) -> np.ndarray:
    """DeepChem's ``ScaffoldSplitter``: whole Bemis-Murcko scaffold sets, largest first, greedily into folds.

    Molecules are grouped by :func:`murcko_scaffolds` (all acyclic molecules share the scaffold '').
    Sets are sorted by size, descending; a set goes to train unless train would then exceed
    ``fractions[0] * n`` molecules, else to the next fold whose cumulative limit it fits, else to the
    last fold (smaller later sets may still fill train). Ties between equal-size sets are broken as in
    DeepChem -- the set whose smallest position is larger comes first -- but positions are taken in
    :func:`processing_order` ``(n, seed, shuffle)``, so with ``shuffle=True`` the tie order is a
    seeded random permutation and different seeds give different splits when ties exist.
    """
    s = check_fractions(fractions)
    scaffolds = murcko_scaffolds(smiles)
    n = len(scaffolds)
    position = np.empty(n, dtype=np.int64)
    position[processing_order(n, seed, shuffle)] = np.arange(n)
    _, label = np.unique(np.asarray(scaffolds, dtype=object), return_inverse=True)
    by_label = np.argsort(label.reshape(-1), kind="stable")
    sets = np.split(by_label, np.flatnonzero(np.diff(label.reshape(-1)[by_label])) + 1) if n else []
    sets.sort(key=lambda m: (m.size, position[m].min()), reverse=True)
    return _greedy_fill(sets, n, s)


class _BitColumns:
    """Fingerprint bits stored bit-major (n_bits, m) for fast one-vs-all intersections of sparse ECFPs."""

    def __init__(self, cols: np.ndarray, counts: np.ndarray):
        self.cols = np.ascontiguousarray(cols, dtype=np.uint8)
        self.counts = np.asarray(counts, dtype=np.float64)

    @classmethod
    def from_bits(cls, bits: np.ndarray) -> "_BitColumns":
        return cls(bits.T, bits.sum(axis=1, dtype=np.int64))

    def take(self, keep: np.ndarray) -> "_BitColumns":
        return _BitColumns(self.cols[:, keep], self.counts[keep])

    def tanimoto(self, on_bits: np.ndarray, count: float) -> np.ndarray:
        """float64 Tanimoto of one fingerprint (its set bit indices) to all m columns, as RDKit computes it."""
        inter = np.zeros(self.cols.shape[1], dtype=np.uint16)
        for b in on_bits:
            inter += self.cols[b]
        union = self.counts + count - inter
        return inter / np.maximum(union, 1.0)


def split_fingerprints(
    bits: np.ndarray, size1: float, size2: float, weights: np.ndarray | None = None
) -> tuple[list[int], list[int]]:
    """DeepChem's ``_split_fingerprints``: grow two groups of sizes ``size1``/``size2`` maximally apart.

    Row 0 starts group 0. While molecules remain, the group to grow is 0 if
    ``len(g0)/size1 <= len(g1)/size2`` else 1; it takes the remaining molecule whose maximum Tanimoto
    similarity to the *other* group is smallest (first such in row order). Returns the row indices of
    both groups in the order they were added. Exact float64 Tanimoto, O(n) memory, O(n^2) time.

    ``weights`` (one > 0 per row; not in DeepChem) replace ``len`` by the groups' weight sums in that
    rule, with sizes in weight units (``size1 + size2`` = the total weight): e.g. a drug weighted by
    its number of pairs, so the groups aim at shares of pairs. ``None`` is DeepChem's rule exactly.
    """
    n = bits.shape[0]
    if size1 < (1 if weights is None else 0) or size1 == 0:
        raise ValueError(f"the first group needs at least one molecule, got size1={size1}")
    if weights is None:
        if size1 + size2 != n:
            raise ValueError(f"group sizes {size1} + {size2} must equal the {n} fingerprints")
        weights = np.ones(n)
    else:
        weights = np.asarray(weights, dtype=float)
        if weights.shape != (n,) or not (weights > 0).all():
            raise ValueError(f"weights must be {n} positive numbers, one per fingerprint")
        if abs(size1 + size2 - weights.sum()) > 1e-6 * max(1.0, weights.sum()):
            raise ValueError(f"group sizes {size1} + {size2} must equal the total weight {weights.sum():g}")
    if size2 == 0:
        return list(range(n)), []
    groups: tuple[list[int], list[int]] = ([0], [])
    grown = [float(weights[0]), 0.0]
    on_bits = [np.flatnonzero(row) for row in bits]
    store = _BitColumns.from_bits(bits)
    ids = np.arange(n)  # row index of each column of the (compacted) store
    max_sim = np.zeros((2, n))
    max_sim[0] = store.tanimoto(on_bits[0], store.counts[0])
    max_sim[:, 0] = np.inf  # assigned molecules are never picked again
    live = n - 1
    while live > 0:
        group = 0 if grown[0] / size1 <= grown[1] / size2 else 1
        i = int(np.argmin(max_sim[1 - group]))
        row = int(ids[i])
        groups[group].append(row)
        grown[group] += weights[row]
        np.maximum(max_sim[group], store.tanimoto(on_bits[row], store.counts[i]), out=max_sim[group])
        max_sim[:, i] = np.inf
        live -= 1
        if 0 < live < ids.size // 2:  # compact: drop assigned columns, keep the remaining order
            keep = np.flatnonzero(np.isfinite(max_sim[0]))
            store, ids, max_sim = store.take(keep), ids[keep], max_sim[:, keep]
    return groups


def fingerprint_split(
    smiles: Sequence[str],
    fractions: Sequence[float] = (0.8, 0.2),
    seed: int = 0,
    *,
    shuffle: bool = True,
    radius: int = 2,
    n_bits: int = 1024,
    weights: Sequence[float] | None = None,
) -> np.ndarray:
    """DeepChem's ``FingerprintSplitter`` on ECFP (Morgan radius 2, 1024 bits = ECFP4) Tanimoto.

    Algorithm (DeepChem): ``train = int(s_0 n)``; for two folds ``test = n - train``, for three
    ``valid = int(s_1 n)`` and ``test = n - train - valid``. :func:`split_fingerprints` separates
    train (group 0, started by the first molecule) from the rest; with three folds the rest, in the
    order it was assigned, is split again into test (group 0) and valid (group 1); a zero-size fold
    stays empty. Molecules are visited in :func:`processing_order` ``(n, seed, shuffle)``: the seed
    picks the start molecule and the tie order; ``shuffle=False`` is DeepChem on the input order.
    Only 2 or 3 fractions are accepted, as in DeepChem. Every molecule gets a fold (no -1).

    ``weights`` (not in DeepChem; one > 0 per molecule, e.g. its number of drug-target pairs): the fold
    sizes are shares of the total weight instead of molecule counts, ``train = s_0 W`` (no rounding),
    and :func:`split_fingerprints` grows the groups by weight. ``None`` is DeepChem's split.
    """
    s = check_fractions(fractions)
    if s.size > 3:
        raise ValueError(f"fingerprint_split takes 2 or 3 fractions as DeepChem does, got {list(fractions)}")
    bits, valid = smiles_fingerprints(smiles, radius=radius, n_bits=n_bits)
    if not valid.all():
        raise ValueError(_bad_rows_message(smiles, valid))
    n = bits.shape[0]
    if weights is None:
        w, total = None, n
        train_size, valid_size = int(s[0] * n), (int(s[1] * n) if s.size == 3 else 0)
    else:
        w = np.asarray(weights, dtype=float).reshape(-1)
        if w.size != n or not (np.isfinite(w) & (w > 0)).all():
            raise ValueError(f"weights must be {n} finite numbers > 0, one per molecule")
        total = float(w.sum())
        train_size, valid_size = s[0] * total, (s[1] * total if s.size == 3 else 0)
    test_size = total - train_size - valid_size
    if train_size < 1 and weights is None:
        raise ValueError(f"train fraction {s[0]} of {n} molecules leaves an empty train fold")
    order = processing_order(n, seed, shuffle)
    train, rest = split_fingerprints(bits[order], train_size, total - train_size, None if w is None else w[order])
    folds = np.full(n, -1, dtype=np.int64)
    folds[order[train]] = 0
    rest_rows = order[rest]
    if s.size == 2 or rest_rows.size == 0:
        folds[rest_rows] = 1
    elif valid_size == 0:
        folds[rest_rows] = 2
    elif test_size == 0:
        folds[rest_rows] = 1
    else:
        if w is not None:  # the rest's weight is what train left, shared in the planned ratio
            rest_weight = float(w[rest_rows].sum())
            test_size, valid_size = rest_weight * s[2] / (s[1] + s[2]), rest_weight * s[1] / (s[1] + s[2])
        test, val = split_fingerprints(bits[rest_rows], test_size, valid_size, None if w is None else w[rest_rows])
        folds[rest_rows[test]] = 2
        folds[rest_rows[val]] = 1
    return folds


# --------------------------------------------------------------------------- LoHi


def _import_lohi():
    try:
        import lohi_splitter
        import mip
    except ImportError as exc:
        raise ImportError(f"lohi_split needs the lohi-splitter package and a working `mip` ({exc}); "
                          f"install with: {LOHI_INSTALL}") from exc
    return lohi_splitter, mip


def neighborhood_graph(smiles: Sequence[str], threshold: float, block_size: int = 2048) -> "networkx.Graph":  # noqa: F821 (networkx: the lohi extra, imported inside)
    """LoHi's ``get_neighborhood_graph`` (edge i-j iff ECFP4 Tanimoto > threshold), built block-wise.

    Same nodes, edges (self-loops included), insertion order and float64 ``weight`` attributes as
    ``lohi_splitter.get_neighborhood_graph``, without its n x n matrix and O(n^2) Python loop.
    """
    import networkx as nx

    bits, valid = smiles_fingerprints(smiles, radius=2, n_bits=1024)
    if not valid.all():
        raise ValueError(_bad_rows_message(smiles, valid))
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1, got {block_size}")
    n = bits.shape[0]
    counts = bits.sum(axis=1, dtype=np.int64).astype(np.float64)
    graph = nx.Graph()
    for r0 in range(0, n, block_size):
        r1 = min(r0 + block_size, n)
        rows = bits[r0:r1].astype(np.float32)
        hit_i, hit_j, hit_w = [], [], []
        for c0 in range(r0, n, block_size):
            c1 = min(c0 + block_size, n)
            inter = (rows @ bits[c0:c1].astype(np.float32).T).astype(np.float64)  # exact integer counts
            sim = inter / np.maximum(counts[r0:r1, None] + counts[None, c0:c1] - inter, 1.0)
            i, j = np.nonzero(sim > threshold)
            upper = j + c0 >= i + r0  # LoHi visits pairs j >= i only
            hit_i.append(i[upper] + r0)
            hit_j.append(j[upper] + c0)
            hit_w.append(sim[i[upper], j[upper]])
        i, j, w = np.concatenate(hit_i), np.concatenate(hit_j), np.concatenate(hit_w)
        order = np.lexsort((j, i))  # LoHi's insertion order: row i ascending, then column j ascending
        graph.add_edges_from((int(a), int(b), {"weight": float(c)}) for a, b, c in zip(i[order], j[order], w[order]))
    nx.set_node_attributes(graph, 1.0, "weight")
    return graph


def lohi_split(
    smiles: Sequence[str],
    fractions: Sequence[float] = (0.8, 0.2),
    seed: int = 0,
    *,
    shuffle: bool = True,
    similarity_threshold: float = 0.4,
    slack: float = 0.1,
    coarsening_threshold: float | None = 0.6,
    max_mip_gap: float = 0.1,
    time_limit: float | None = 600.0,
    threads: int = 1,
    weights: Sequence[float] | None = None,
) -> np.ndarray:
    """LoHi's Hi train/test split (``lohi_splitter.hi_train_test_split``) with a solver time limit.

    No test molecule has ECFP4 Tanimoto > ``similarity_threshold`` to any train molecule. LoHi builds
    the neighbourhood graph (:func:`neighborhood_graph`), optionally merges molecules around hubs
    with similarity > ``coarsening_threshold`` (``coarse_graph``), solves a min vertex 2-cut MIP on
    the giant component (maximise kept molecules subject to train >= ``train_min_frac`` and test >=
    ``test_min_frac`` of that component) with CBC via ``mip``, and deals the small components to
    whichever side is below the ratio ``train_min_frac / test_min_frac``. Cut-out molecules get -1.

    ``train_min_frac, test_min_frac = fractions - slack``: (0.8, 0.2) with slack 0.1 gives LoHi's
    0.7 / 0.1, which with threshold 0.4, coarsening 0.6 and gap 0.1 are the settings of the DataSAIL
    paper's molecule experiments. This function reuses the package's own graph, model and
    post-processing functions and differs from ``hi_train_test_split`` only in the solver call:
    ``threads`` (LoHi: all cores), CBC ``seed`` and ``max_seconds=time_limit``.

    On time-out: if CBC has a feasible incumbent by ``time_limit`` seconds, that split is returned (it
    is a valid Hi split but may discard more molecules than the optimum) with a RuntimeWarning; if it
    has none, TimeoutError is raised. An infeasible model raises ValueError (LoHi's message).

    ``weights`` (one > 0 per molecule, e.g. its number of drug-target pairs; ``None``: 1 each, LoHi's
    split): LoHi's MIP already maximises the kept node weight subject to weighted fold minima; here a
    molecule's node weighs ``weights[i]``, a coarsened node the sum of its molecules' weights (LoHi's
    ``coarse_graph`` counts molecules) and the small components are dealt by weight, not count.
    The giant component is still the one with the most molecules.
    """
    lohi, mip = _import_lohi()
    s = check_fractions(fractions)
    if s.size != 2:
        raise ValueError(f"lohi_split is LoHi's train/test split and takes 2 fractions, got {list(fractions)}")
    train_min, test_min = float(s[0] - slack), float(s[1] - slack)
    if train_min <= 0 or test_min <= 0:
        raise ValueError(f"fractions {list(fractions)} minus slack {slack} must stay > 0, got "
                         f"train_min_frac={train_min:g}, test_min_frac={test_min:g}")
    if not 0 <= similarity_threshold < 1:
        raise ValueError(f"similarity_threshold must lie in [0, 1), got {similarity_threshold}")
    if time_limit is not None and time_limit <= 0:
        raise ValueError(f"time_limit must be > 0 seconds or None, got {time_limit}")
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    n = len(smiles)
    w = None if weights is None else np.asarray(weights, dtype=float).reshape(-1)
    if w is not None and (w.size != n or not (np.isfinite(w) & (w > 0)).all()):
        raise ValueError(f"weights must be {n} finite numbers > 0, one per molecule")
    order = processing_order(n, seed, shuffle)
    graph = neighborhood_graph([smiles[i] for i in order], similarity_threshold)
    if w is not None:
        nx_weights = {node: float(w[order[node]]) for node in graph.nodes()}

    import networkx as nx

    if w is not None:
        nx.set_node_attributes(graph, nx_weights, "weight")
    main, small = lohi.get_giant_component(graph)
    old_to_new = dict(zip(main.nodes(), range(main.number_of_nodes())))
    new_to_old = {v: k for k, v in old_to_new.items()}
    main = nx.relabel_nodes(main, old_to_new)
    target, node_to_cluster = main, None
    if coarsening_threshold:
        target, node_to_cluster = lohi.coarse_graph(main, coarsening_threshold)
        if w is not None:
            summed = np.bincount(node_to_cluster, weights=[main.nodes[v]["weight"] for v in range(len(main))])
            nx.set_node_attributes(target, {c: float(summed[c]) for c in target.nodes()}, "weight")
    model = lohi.get_linear_problem_train_test(target, train_min, test_min, verbose=False)
    model.max_mip_gap = max_mip_gap
    model.threads = threads
    model.emphasis = 2
    model.seed = seed % 2**31  # CBC takes a C int
    model.verbose = 0
    status = model.optimize(max_seconds=float("inf") if time_limit is None else float(time_limit))
    if status == mip.OptimizationStatus.NO_SOLUTION_FOUND:
        raise TimeoutError(f"LoHi's MIP ({target.number_of_nodes()} nodes, {target.number_of_edges()} edges) "
                           f"found no feasible split within time_limit={time_limit} s")
    if status == mip.OptimizationStatus.INFEASIBLE:
        lohi.check_model_status(model, is_coarsed=node_to_cluster is not None, is_train_test=True)
    if status not in (mip.OptimizationStatus.OPTIMAL, mip.OptimizationStatus.FEASIBLE):
        raise RuntimeError(f"LoHi's MIP ended with status {status.name}")
    if status == mip.OptimizationStatus.FEASIBLE:
        warnings.warn(f"LoHi's MIP hit time_limit={time_limit} s; returning the best split found "
                      f"(objective {model.objective_value:g}, bound {model.objective_bound:g})",
                      RuntimeWarning, stacklevel=2)
    part = lohi.process_results(model, target, k=2)
    if node_to_cluster is not None:
        part = lohi.uncoarse_results(part, node_to_cluster)
    partitions = lohi.map_split_to_original_idx(part, k=2, new_nodes_to_old=new_to_old)
    if w is None:
        partitions = lohi.assign_small_components_train_test(small, partitions, train_min, test_min)
    else:
        partitions = _assign_small_components_by_weight(small, partitions, train_min / test_min, nx_weights)
    folds = np.full(n, -1, dtype=np.int64)
    for fold, members in enumerate(partitions):
        folds[order[np.asarray(list(members), dtype=np.int64)]] = fold
    return folds


def _assign_small_components_by_weight(small, partitions, goal_ratio: float, weight: dict) -> list:
    """LoHi's ``assign_small_components_train_test`` with weights: each component, in LoHi's order, goes to test
    when train's weight / test's weight exceeds ``goal_ratio`` (train_min_frac / test_min_frac), else to train."""
    partitions = [list(p) for p in partitions]
    sums = [sum(weight[v] for v in p) for p in partitions]
    for component in small:
        ratio = sums[0] / sums[1] if sums[1] > 0 else (np.inf if sums[0] > 0 else 0.0)
        fold = 1 if ratio > goal_ratio else 0
        partitions[fold].extend(component)
        sums[fold] += sum(weight[v] for v in component)
    return partitions
