"""2-D k-fold CV: cold on both sides ('cold_both'), DataSAIL's 'same_fold', and cold on one side (I1/S1)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from benchdesign.cli import main
from benchdesign.splitting.crossval import LeakageKFold, LeakageSplit
from benchdesign.splitting.similarity import MatrixSimilarity
from benchdesign.splitting.tasks import (
    REASON_CROSS_FOLD,
    EntitySet,
    SplitSpec,
    kfold_spec,
    pair_fractions,
    split_interactions,
    validate_spec,
)

K = 3


def tiny_pairs(rand_sim, n_a: int = 6, n_b: int = 5, seed: int = 0):
    """6 drugs x 5 targets, about 80 % of the pairs present: (pair drug, pair target, drug sim, target sim)."""
    rng = np.random.default_rng(seed)
    pairs = np.array([(i, j) for i in range(n_a) for j in range(n_b) if rng.random() < 0.8])
    return pairs[:, 0], pairs[:, 1], rand_sim(n_a, rng), rand_sim(n_b, rng)


def tiny_table(rand_sim, n_a: int = 6, n_b: int = 5, seed: int = 0):
    """:func:`tiny_pairs` with the two sides as :class:`EntitySet` (precomputed similarity matrices)."""
    ia, ib, sim_a, sim_b = tiny_pairs(rand_sim, n_a, n_b, seed)
    sides = [EntitySet(np.array([f"{p}{i}" for i in range(len(m))], dtype=object), np.ones(len(m), dtype=bool),
                       MatrixSimilarity(m)) for p, m in (("d", sim_a), ("t", sim_b))]
    return ia, ib, sides[0], sides[1]


def spec(**kw) -> SplitSpec:
    return kfold_spec(K, SplitSpec(clusters=3, epsilon=0.6, certificate_seeds=0, **kw))


def brute_force_cold_both(fa: np.ndarray, fb: np.ndarray, f: int) -> tuple[set, set]:
    """Train = pairs with neither entity in f, test = pairs with both entities in f, by enumeration."""
    train = {p for p in range(fa.size) if fa[p] >= 0 and fb[p] >= 0 and fa[p] != f and fb[p] != f}
    test = {p for p in range(fa.size) if fa[p] == f and fb[p] == f}
    return train, test


def check_cold_both(res, ia, ib):
    fa, fb = res.pair_folds["a"], res.pair_folds["b"]
    m = ia.size
    tested = np.zeros(m, dtype=int)
    usage = res.report["fold_usage"]["folds"]
    for f in range(K):
        train, test = res.train_test(f)
        want_train, want_test = brute_force_cold_both(fa, fb, f)
        assert set(train.tolist()) == want_train and set(test.tolist()) == want_test
        assert not set(ia[train]) & set(ia[test]) and not set(ib[train]) & set(ib[test])
        tested[test] += 1
        assert usage[f"fold{f}"] == {
            "train": len(want_train), "test": len(want_test), "unused": m - len(want_train) - len(want_test),
            "train_share": len(want_train) / m, "test_share": len(want_test) / m,
            "unused_share": (m - len(want_train) - len(want_test)) / m,
        }
    assert tested.max() <= 1
    assert np.array_equal(tested == 1, (fa == fb) & (fa >= 0))  # every pair with agreeing entity folds: once


@pytest.mark.parametrize("task", ["I2", "S2"])
def test_cold_both_folds_match_brute_force(task, rand_sim):
    ia, ib, a, b = tiny_table(rand_sim)
    res = split_interactions(task, ia, ib, a, b, spec())
    assert res.cold_both and res.report["pair_scheme"] == "cold_both"
    assert res.report["side_fractions"] == pytest.approx([1 / K] * K)  # 1/k per side, not the sqrt rule
    for sd, idx in (("a", ia), ("b", ib)):  # each pair carries the folds of its two entities
        assert np.array_equal(res.pair_folds[sd], res.entity_folds[sd][idx])
        assert set(res.entity_folds[sd]) == set(range(K))
    check_cold_both(res, ia, ib)
    fa, fb = res.pair_folds["a"], res.pair_folds["b"]
    assert np.array_equal(res.fold, np.where(fa == fb, fa, -1))  # the common fold, else -1
    assert (res.reason[fa != fb] == REASON_CROSS_FOLD).all()
    assert res.report["n_no_test_fold"] == int((fa != fb).sum()) and "n_dropped" not in res.report


def test_cold_both_leaves_invalid_pairs_unused(rand_sim):
    ia, ib, a, b = tiny_table(rand_sim, n_a=7)
    valid = np.ones(7, dtype=bool)
    valid[6] = False
    a = EntitySet(a.ids, valid, a.similarity.subset(np.arange(6)), invalid_reason="invalid_smiles")
    res = split_interactions("S2", ia, ib, a, b, spec())
    bad = ia == 6
    assert bad.any() and (res.pair_folds["a"][bad] == -1).all() and (res.reason[bad] == "invalid_smiles").all()
    check_cold_both(res, ia, ib)
    for f in range(K):
        train, test = res.train_test(f)
        assert not bad[train].any() and not bad[test].any()


def test_same_fold_reproduces_the_datasail_assignment(rand_sim):
    ia, ib, a, b = tiny_table(rand_sim)
    old = split_interactions("I2", ia, ib, a, b, dataclasses.replace(spec(), balanced=False))  # pre-k-fold spec
    new = split_interactions("I2", ia, ib, a, b, spec(pair_scheme="same_fold"))
    assert np.array_equal(old.fold, new.fold) and np.array_equal(old.reason, new.reason)
    assert new.report["side_fractions"] == pytest.approx(pair_fractions([1 / K] * K).tolist())
    fa, fb = new.pair_folds["a"], new.pair_folds["b"]
    assert np.array_equal(new.fold, np.where(fa == fb, fa, -1))
    assert new.report["n_dropped"] == int((fa != fb).sum()) and not new.cold_both
    for f in range(K):  # fold-based: test = the fold's kept pairs, train = the other folds' kept pairs
        train, test = new.train_test(f)
        assert set(test) == set(np.flatnonzero(new.fold == f))
        assert set(train) == set(np.flatnonzero((new.fold >= 0) & (new.fold != f)))


def test_named_fractions_keep_the_same_fold_scheme(rand_sim):
    ia, ib, a, b = tiny_table(rand_sim)
    res = split_interactions("S2", ia, ib, a, b, SplitSpec(clusters=3, epsilon=0.6, certificate_seeds=0))
    assert res.report["pair_scheme"] == "same_fold" and "n_dropped" in res.report and "fold_usage" not in res.report
    assert res.report["side_fractions"] == pytest.approx(pair_fractions([0.8, 0.2]).tolist())


@pytest.mark.parametrize(("task", "side"), [("S1", "b"), ("I1", "a")])
def test_cold_one_side(task, side, rand_sim):
    ia, ib, a, b = tiny_table(rand_sim)
    res = split_interactions(task, ia, ib, a, b, spec(), side=side)
    idx = ia if side == "a" else ib
    assert list(res.pair_folds) == [side] and res.report["pair_scheme"] == "cold_one_side"
    assert np.array_equal(res.fold, res.entity_folds[side][idx])
    tested = np.zeros(ia.size, dtype=int)
    for f in range(K):
        train, test = res.train_test(f)
        assert set(test) == {p for p in range(ia.size) if res.fold[p] == f}
        assert set(train) == {p for p in range(ia.size) if res.fold[p] != f}
        assert not set(idx[train]) & set(idx[test])
        tested[test] += 1
        assert res.report["fold_usage"]["folds"][f"fold{f}"]["unused"] == 0
    assert (tested == 1).all()


def test_leakage_kfold_split_pairs_cold_both_and_one_side(rand_sim):
    ia, ib, sim_a, sim_b = tiny_pairs(rand_sim)
    cv = LeakageKFold(K, similarity=sim_a, kind="precomputed", task="S2", clusters=3, epsilon=0.6)
    folds = list(cv.split_pairs(ia, ib, similarity_b=sim_b))
    assert len(folds) == K
    fa, fb = cv.pair_folds_["a"], cv.pair_folds_["b"]
    for f, (train, test) in enumerate(folds):
        assert (set(train.tolist()), set(test.tolist())) == brute_force_cold_both(fa, fb, f)
    assert cv.report_["fold_usage"]["mean_train_share"] == pytest.approx(np.mean([t.size for t, _ in folds]) / ia.size)
    same = LeakageKFold(K, similarity=sim_a, kind="precomputed", task="S2", clusters=3, epsilon=0.6,
                        pair_scheme="same_fold")
    for train, test in same.split_pairs(ia, ib, similarity_b=sim_b):
        assert (same.folds_[train] >= 0).all() and not set(ia[train]) & set(ia[test])
    one = LeakageKFold(K, similarity=sim_a, kind="precomputed", task="S1", clusters=3, epsilon=0.6)
    seen = np.zeros(ia.size, dtype=int)
    for train, test in one.split_pairs(ia, ib, side="a"):
        assert not set(ia[train]) & set(ia[test]) and train.size + test.size == ia.size
        seen[test] += 1
    assert (seen == 1).all()


def test_leakage_split_on_pairs_uses_same_fold(rand_sim):
    ia, ib, a, b = tiny_table(rand_sim)
    cv = LeakageSplit((0.5, 0.5), ("train", "test"), task="I2")
    (train, test), = cv.split_pairs(ia, ib)
    assert cv.report_["pair_scheme"] == "same_fold"
    assert set(test) == set(np.flatnonzero(cv.folds_ == 1)) and set(train) == set(np.flatnonzero(cv.folds_ == 0))


def test_errors_name_the_bad_value(rand_sim):
    with pytest.raises(ValueError, match=r"pair_scheme must be one of \('cold_both', 'same_fold'\), got 'both'"):
        validate_spec(SplitSpec(pair_scheme="both"))
    ia, ib, a, b = tiny_table(rand_sim, n_b=2)
    with pytest.raises(ValueError, match="side b has 2 entities with a valid interaction, too few for 3 folds"):
        split_interactions("I2", ia, ib, a, b, spec())
    ia, ib, a, b = tiny_table(rand_sim)
    res = split_interactions("I2", ia, ib, a, b, spec())
    with pytest.raises(ValueError, match=r"fold index must lie in \[0, 3\), got 5"):
        res.train_test(5)
    with pytest.raises(ValueError, match="pair_scheme must be one of"):
        next(LeakageKFold(K, task="I2", pair_scheme="cold").split_pairs(ia, ib))


def run(argv, capsys):
    code = main([str(x) for x in argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err  # the result (stdout), then progress and errors (stderr)


def s2_args(fixtures, out, *extra):
    return ["split", "--task", "S2", "--interactions", fixtures / "interactions.csv", "--inter-id-col", "pair",
            "--input", fixtures / "drugs.csv", "--id-col", "drug", "--smiles-col", "smiles",
            "--input-b", fixtures / "targets.tsv", "--id-col-b", "target", "--sequence-col-b", "sequence",
            "--folds", "2", "--clusters", "4", "--epsilon", "0.3", "--out", out, *extra]


def test_cli_writes_fold_a_fold_b_and_entity_folds(fixtures, tmp_path, capsys):
    out, ent, rep = tmp_path / "k.tsv", tmp_path / "entities.tsv", tmp_path / "k.json"
    code, err = run(s2_args(fixtures, out, "--entity-folds", ent, "--report", rep), capsys)
    assert code == 0, err
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    assert list(table.columns) == ["id", "split", "reason", "fold", "fold_a", "fold_b"]
    inter = pd.read_csv(fixtures / "interactions.csv")
    folds = pd.read_csv(ent, sep="\t", keep_default_na=False)
    assert list(folds.columns) == ["side", "id", "fold", "split"]
    lookup = {(s, i): f for s, i, f in folds[["side", "id", "fold"]].itertuples(index=False)}
    assert table["fold_a"].tolist() == [lookup["a", d] for d in inter["id_a"]]
    assert table["fold_b"].tolist() == [lookup["b", t] for t in inter["id_b"]]
    same = table["fold_a"] == table["fold_b"]
    assert (table.loc[same, "fold"] == table.loc[same, "fold_a"]).all() and (table.loc[~same, "fold"] == -1).all()
    assert (table.loc[~same, "reason"] == "entities_in_different_folds").all()
    usage = json.loads(rep.read_text())["fold_usage"]["folds"]
    for f in (0, 1):
        n_train = int(((table["fold_a"] != f) & (table["fold_b"] != f)).sum())
        n_test = int(((table["fold_a"] == f) & (table["fold_b"] == f)).sum())
        assert (usage[f"fold{f}"]["train"], usage[f"fold{f}"]["test"]) == (n_train, n_test)
        assert f"fold{f}: train {n_train} ({n_train / len(table):.1%}), test {n_test}" in err
    assert "fold usage (cold both sides" in err and "tested in no fold" in err
    for sd in ("a", "b"):  # every side's entity folds and their share of the pairs, recounted from the files
        line = ", ".join(f"fold{f} {int(((folds['side'] == sd) & (folds['fold'] == f)).sum())} "
                         f"{(table[f'fold_{sd}'] == f).mean():.1%}" for f in (0, 1))
        assert f"side {sd} folds (entities, share of the rows): {line}" in err
    again = tmp_path / "again.tsv"
    assert run(s2_args(fixtures, again), capsys)[0] == 0 and again.read_text() == out.read_text()


def test_cli_same_fold_scheme_drops_cross_pairs(fixtures, tmp_path, capsys):
    out = tmp_path / "same.tsv"
    code, err = run(s2_args(fixtures, out, "--pair-scheme", "same_fold"), capsys)
    assert code == 0, err
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    cross = table["fold_a"] != table["fold_b"]
    assert (table.loc[cross, "split"] == "unassigned").all()
    assert f"dropped interactions {int(cross.sum())}" in err and "fold usage (same fold" in err


def test_cli_entity_folds_is_refused_without_entity_sides(fixtures, tmp_path, capsys):
    out, ent = tmp_path / "r.tsv", tmp_path / "e.tsv"
    args = s2_args(fixtures, out, "--entity-folds", ent)
    args[args.index("S2")] = "R"
    code, err = run(args, capsys)
    assert code == 2 and "--entity-folds needs a 2-D split (--interactions) by I1, I2, S1 or S2; task R" in err
    assert not out.exists() and not ent.exists()
    code, err = run(["split", "--task", "S1", "--input", fixtures / "mols.csv", "--smiles-col", "smiles",
                     "--folds", "2", "--out", out, "--entity-folds", ent], capsys)
    assert code == 2 and "task S1 on 1-D data has no entity sides" in err and not out.exists()
