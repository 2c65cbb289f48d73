"""k-fold splits always give k folds: clusters too large for a fold are split before the ILP (fold_fit.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from benchdesign.cli import main
from benchdesign.splitting.crossval import LeakageKFold
from benchdesign.splitting.fold_fit import fiedler_order, pack_largest_first, packed_within
from benchdesign.splitting.ilp import InfeasibleSplitError, lower_bounds, upper_bounds
from benchdesign.splitting.similarity import MatrixSimilarity
from benchdesign.splitting.tasks import EntitySet, SplitSpec, kfold_spec, split_entities, split_interactions

K = 3


def block_similarity(n: int, block: list[int], high: float = 0.95, low: float = 0.1) -> np.ndarray:
    """``low`` everywhere, ``high`` inside ``block``, 1 on the diagonal."""
    sim = np.full((n, n), low)
    sim[np.ix_(block, block)] = high
    np.fill_diagonal(sim, 1.0)
    return sim


def side(sim: np.ndarray, prefix: str) -> EntitySet:
    return EntitySet(np.array([f"{prefix}{i}" for i in range(len(sim))], dtype=object), np.ones(len(sim), dtype=bool),
                     MatrixSimilarity(sim))


def leakage(sim: np.ndarray, weights: np.ndarray, folds: np.ndarray) -> float:
    """L(pi), eq. (2): sum over entity pairs in different folds of w_x w_y sim(x, y)."""
    cut = np.triu(np.outer(weights, weights) * sim * (folds[:, None] != folds[None, :]), 1)
    return float(cut.sum())


def feasible(weights: np.ndarray, folds: np.ndarray, eps: float) -> bool:
    """Every fold within (1 -+ eps) n / K of the weight, as the k-fold ILP demands."""
    sizes = np.bincount(folds, weights=weights, minlength=K)
    s = np.full(K, 1.0 / K)
    return bool((sizes >= lower_bounds(weights.sum(), s, eps)).all()
                and (sizes <= upper_bounds(weights.sum(), s, eps)).all())


def brute_force(sim: np.ndarray, weights: np.ndarray, units: np.ndarray, eps: float) -> tuple[float, list]:
    """Least L(pi) over every assignment of whole ``units`` (a unit label per entity) to K folds within the size
    bounds, and all those feasible assignments (entity folds)."""
    labels = np.unique(units, return_inverse=True)[1].reshape(-1)
    best, every = np.inf, []
    for assign in itertools.product(range(K), repeat=int(labels.max()) + 1):
        folds = np.asarray(assign)[labels]
        if feasible(weights, folds, eps):
            every.append(folds)
            best = min(best, leakage(sim, weights, folds))
    return best, every


def test_pack_largest_first_by_hand():
    assert pack_largest_first(np.array([1.0, 5.0, 2.0, 2.0]), np.array([0.5, 0.5])).tolist() == [1, 0, 1, 1]
    assert packed_within(np.array([1.0, 5.0, 2.0, 2.0]), np.array([0.5, 0.5]), 0.0).tolist() == [1, 0, 1, 1]
    # 40 + 40 + 20 into halves of 50 +- 5: each 40 alone is too small and 40 + 20 too large
    assert packed_within(np.array([40.0, 40.0, 20.0]), np.array([0.5, 0.5]), 0.1) is None
    assert packed_within(np.array([40.0, 40.0, 20.0]), np.array([0.5, 0.5]), 0.2) is not None


def test_fiedler_order_keeps_blocks_contiguous():
    sim = block_similarity(6, [0, 2, 4], high=0.9)
    sim[np.ix_([1, 3, 5], [1, 3, 5])] = 0.8
    np.fill_diagonal(sim, 1.0)
    order = fiedler_order(sim).tolist()
    assert sorted(order[:3]) in ([0, 2, 4], [1, 3, 5]) and sorted(order) == list(range(6))


def test_two_d_split_needs_a_broken_cluster_and_matches_brute_force():
    """6 drugs x 6 targets, every pair present (each entity weighs 6 pairs); drugs 0-2 and targets 0-2 are one
    tight cluster each, half of the pairs, but a fold of 3 holds at most (1 + 0.2) / 3 = 40 %."""
    ia, ib = (g.reshape(-1) for g in np.meshgrid(np.arange(6), np.arange(6), indexing="ij"))
    sims = {"a": block_similarity(6, [0, 1, 2]), "b": block_similarity(6, [0, 1, 2], high=0.9)}
    weights = np.full(6, 6.0)
    spec = kfold_spec(K, SplitSpec(clusters=2, epsilon=0.2, mip_gap=0.0, refine=False, certificate_seeds=0))
    res = split_interactions("S2", ia, ib, side(sims["a"], "d"), side(sims["b"], "t"), spec)
    for sd, idx in (("a", ia), ("b", ib)):
        sim = sims[sd]
        # brute force over all 3^6 entity assignments: every feasible one breaks the tight cluster up
        _, every = brute_force(sim, weights, np.arange(6), 0.2)
        assert every and all(np.unique(folds[:3]).size > 1 for folds in every)
        # whole clusters of the clustering given to the ILP: no feasible assignment at all
        fit = res.report[f"side_{sd}"]["fold_fit"]
        assert fit["n_clusters_before"] == 2 and fit["largest_cluster_fraction_before"] == pytest.approx(0.5)
        assert fit["n_clusters_split"] >= 1 and fit["fold_capacity_fraction"] == pytest.approx(0.4)
        folds = res.entity_folds[sd]
        assert feasible(weights, folds, 0.2)
        # the ILP is optimal over the units it was given (the clusters after the split), as brute force finds
        best, _ = brute_force(sim, weights, res.clusters[sd], 0.2)
        assert leakage(sim, weights, folds) == pytest.approx(best)
        assert res.report[f"side_{sd}"]["fold_weights"]["fold0"]["row_share"] == pytest.approx(
            np.isin(idx, np.flatnonzero(folds == 0)).mean())
    for f in range(K):  # cold on both sides
        train, test = res.train_test(f)
        assert test.size and not set(ia[train]) & set(ia[test]) and not set(ib[train]) & set(ib[test])


def test_one_d_kfold_splits_a_cluster_too_large_for_a_fold():
    """30 samples: a tight cluster of 12 (40 %) and looser groups of 6, 6, 3 and 3, so that K = 5 finds these five
    whatever the seed (a uniform rest would leave its partition to the eigensolver's rounding); 5 folds of
    6 +- 0.6: the tight cluster is cut, into two pieces of 6."""
    group = np.repeat(np.arange(5), [12, 6, 6, 3, 3])
    sim = np.where(group[:, None] == group[None, :], np.where(group[:, None] == 0, 0.9, 0.5), 0.05)
    np.fill_diagonal(sim, 1.0)
    cv = LeakageKFold(5, similarity=sim, clusters=5, refine=False, certificate_seeds=0)
    folds = list(cv.split(np.zeros((30, 1))))
    assert len(folds) == 5 and all(test.size == 6 for _, test in folds)
    fit = cv.report_["fold_fit"]
    assert fit["largest_cluster_fraction_before"] == pytest.approx(0.4) and fit["n_clusters_split"] >= 1
    assert fit["splits"][0]["share"] == pytest.approx(0.4) and fit["splits"][0]["split_into"] == "micro_clusters"
    assert "before the ILP" in fit["text"] and not fit["targets_changed"]
    assert np.unique(cv.folds_[:12]).size == 2  # the ILP keeps the two pieces whole: 6 + 6
    again = LeakageKFold(5, similarity=sim, clusters=5, refine=False, certificate_seeds=0)
    list(again.split(np.zeros((30, 1))))
    assert np.array_equal(again.folds_, cv.folds_)  # deterministic


def test_a_lone_micro_cluster_is_split_by_members_keeping_identical_ones_together():
    """With 2 leaders and 1 cluster every fold needs members of one micro-cluster; entities 0 and 1 are identical."""
    sim = block_similarity(12, list(range(12)), high=0.7)
    sim[0, 1] = sim[1, 0] = 1.0
    ent = side(sim, "x")
    res = split_entities("S1", ent, kfold_spec(K, SplitSpec(clusters=1, micro_clusters=2, certificate_seeds=0)))
    fit = res.report["fold_fit"]
    assert "members" in {e["split_into"] for e in fit["splits"]}
    assert res.fold[0] == res.fold[1] and np.bincount(res.fold).tolist() == [4, 4, 4]


def test_an_entity_heavier_than_a_fold_changes_the_fold_targets():
    """Drug 0 is in 6 of 12 pairs (50 % > 40 %): 3 folds all the same; drug 0's fold holds half of the pairs, the
    three drugs of 2 pairs each fill the other two folds with 4 and 2."""
    ia = np.array([0] * 6 + [1, 1, 2, 2, 3, 3])
    ib = np.array([0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5])
    cv = LeakageKFold(K, similarity=block_similarity(4, [0, 1]), task="S2", epsilon=0.2, certificate_seeds=0)
    folds = list(cv.split_pairs(ia, ib, similarity_b=block_similarity(6, [0, 1])))
    assert len(folds) == K
    fit = cv.report_["side_a"]["fold_fit"]
    assert fit["targets_changed"] and fit["fold_targets"] == pytest.approx([1 / 2, 1 / 3, 1 / 6])
    assert "fold targets 50.0%, 33.3%, 16.7%" in fit["text"]
    shares = [f["row_share"] for f in cv.report_["side_a"]["fold_weights"].values()]
    assert shares == pytest.approx([1 / 2, 1 / 3, 1 / 6])
    for train, test in folds:
        assert not set(ia[train]) & set(ia[test]) and not set(ib[train]) & set(ib[test])


def test_identity_kfold_changes_the_targets_too():
    ia = np.array([0] * 6 + [1, 1, 2, 2, 3, 3])
    ib = np.arange(12) % 6
    cv = LeakageKFold(K, task="I2", epsilon=0.2, certificate_seeds=0)
    assert len(list(cv.split_pairs(ia, ib))) == K
    assert cv.report_["side_a"]["fold_fit"]["targets_changed"]
    assert not cv.report_["side_b"]["fold_fit"]["targets_changed"]


def test_fewer_distinct_entities_than_folds_is_an_error_naming_the_counts():
    ia = np.arange(8) % 4
    ib = np.arange(8) % 4
    same = np.ones((4, 4))  # targets 0-2 identical
    same[3, :3] = same[:3, 3] = 0.2
    cv = LeakageKFold(K, similarity=block_similarity(4, [0, 1]), task="S2")
    with pytest.raises(InfeasibleSplitError, match="side b: the 4 entities form only 2 groups of identical entities"):
        list(cv.split_pairs(ia, ib, similarity_b=same))


def test_cli_kfold_states_the_split_clusters(fixtures, tmp_path, capsys):
    out = tmp_path / "folds.tsv"
    code = main(["split", "--task", "S1", "--input", str(fixtures / "mols.csv"), "--smiles-col", "smiles",
                 "--id-col", "mol_id", "--folds", "5", "--clusters", "2", "--certificate-seeds", "0",
                 "--no-summary", "--out", str(out)])
    captured = capsys.readouterr()
    err = captured.out + captured.err
    assert code == 0, err
    table = pd.read_csv(out, sep="\t")
    assert sorted(table.loc[table["fold"] >= 0, "fold"].unique()) == [0, 1, 2, 3, 4]
    assert "note: k-fold: " in err and "split 5 time(s) before the ILP" in err


def test_a_tight_epsilon_caps_the_splits_and_states_the_fold_targets():
    """31 samples in 5 folds with epsilon 0: no exact packing exists, so after at most K + k splits the folds
    take the sizes of the largest-first packing (7, 6, 6, 6, 6), stated in the report."""
    sim = block_similarity(31, list(range(10)), high=0.8, low=0.05)
    res = split_entities("S1", side(sim, "x"), kfold_spec(5, SplitSpec(clusters=4, epsilon=0.0, certificate_seeds=0)))
    fit = res.report["fold_fit"]
    assert fit["targets_changed"] and fit["n_clusters_split"] <= 4 + 5
    assert sorted(np.bincount(res.fold).tolist()) == [6, 6, 6, 6, 7]
    assert sorted(round(t * 31) for t in fit["fold_targets"]) == [6, 6, 6, 6, 7]
