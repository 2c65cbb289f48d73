"""Option stratification: the two-sided class bound (default) against the paper's eq. (15), by brute force
on a hand-made instance; the refinement keeps it; LeakageKFold stratifies class labels by default; the summary
states every fold's class shares."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from benchdesign.cli import main
from benchdesign.splitting import LeakageKFold
from benchdesign.splitting.ilp import ClusterInstance, assignment_objective, check_assignment, solve_split_ilp
from benchdesign.splitting.refine import refine_assignment
from benchdesign.splitting.summary import class_share_lines, class_shares

# Six clusters of two into three folds of 1/3 (target 4 each, epsilon 0.5: every fold >= 2, no upper size
# bound). Actives / inactives per cluster: c0 2/0, c1 2/0, c2 1/1, c3 1/1, c4 0/2, c5 0/2, so 6 of each,
# 2 per fold. delta = 0.5: the paper's bound asks >= 1 active and >= 1 inactive per fold; the two-sided one
# also <= 3 of each. c0, c1 and c4 attract each other, c2 and c5: the fold {c0, c1, c4} holds 4 actives (share
# 4/6), allowed by the paper's bound and forbidden by the two-sided one.
KAPPA = np.full(6, 2.0)
CLASSES = np.array([[2, 0], [2, 0], [1, 1], [1, 1], [0, 2], [0, 2]], dtype=float)
S = np.full(3, 1 / 3)
EPS, DELTA = 0.5, 0.5


def _weights() -> np.ndarray:
    sim = np.full((6, 6), 0.05)
    sim[0, 1] = sim[1, 0] = 1.0
    sim[[0, 1], 4] = sim[4, [0, 1]] = 0.9
    sim[2, 5] = sim[5, 2] = 1.0
    w = np.outer(KAPPA, KAPPA) * sim
    np.fill_diagonal(w, 0.0)
    return w


INST = ClusterInstance(KAPPA, _weights(), S, CLASSES, ("active", "inactive"))


def _feasible(stratification: str) -> dict[tuple, float]:
    out = {}
    for folds in itertools.product(range(3), repeat=6):
        if not check_assignment(INST, np.array(folds), EPS, DELTA, stratification=stratification):
            out[folds] = assignment_objective(INST, np.array(folds))
    return out


def _actives(folds) -> np.ndarray:
    return np.bincount(np.asarray(folds), weights=CLASSES[:, 0], minlength=3)


def test_two_sided_bound_by_brute_force():
    paper, two = _feasible("paper"), _feasible("two_sided")
    assert set(two) < set(paper)
    for folds in set(paper) - set(two):  # what only the paper allows: some fold holds 4 of either class
        counts = np.array([np.bincount(folds, weights=CLASSES[:, c], minlength=3) for c in range(2)])
        assert counts.max() == 4
        assert all(v.startswith("(15, upper)") for v in check_assignment(INST, np.array(folds), EPS, DELTA))
    for folds in two:
        assert _actives(folds).max() <= 3
    for stratification, feasible in (("paper", paper), ("two_sided", two)):
        res = solve_split_ilp([INST], EPS, DELTA, mip_gap=0.0, stratification=stratification)
        assert res.objective == pytest.approx(min(feasible.values()))
        assert tuple(res.assignments[0]) in feasible
    best_paper = min(paper, key=paper.get)
    assert sorted(_actives(best_paper)) == [1, 1, 4]  # the paper's optimum: 4 of 6 actives in one fold
    assert check_assignment(INST, np.array(best_paper), EPS, DELTA, stratification="paper") == []


def test_refinement_keeps_the_two_sided_bound():
    start = np.array([0, 1, 2, 0, 1, 2])  # 2 actives per fold, feasible under both bounds
    assert check_assignment(INST, start, EPS, DELTA) == []
    for stratification in ("two_sided", "paper"):
        out = refine_assignment(INST.weights, KAPPA, start, S, EPS, DELTA, CLASSES, stratification=stratification)
        assert check_assignment(INST, out, EPS, DELTA, stratification=stratification) == []
        if stratification == "two_sided":
            assert _actives(out).max() <= 3
        else:  # the paper's bound lets the refinement gather c0, c1 and c4
            assert _actives(out).max() == 4


OPTS = {"clusters": 8, "epsilon": 0.3, "delta": 0.4}


def test_leakage_kfold_stratifies_class_labels_by_default(mols):
    smiles, x, y = mols  # 10 actives of 40
    cv = LeakageKFold(3, similarity=smiles, random_state=0, **OPTS)
    folds = [test for _, test in cv.split(x, y)]
    assert cv.report_["stratified"] and set(cv.report_["class_fold_counts"]) == {"y=0", "y=1"}
    for test in folds:  # 10 / 3 actives per fold, within delta 0.4 both ways: 2 to 4
        assert 0.6 * 10 / 3 - 1e-9 <= y[test].sum() <= 1.4 * 10 / 3 + 1e-9
    off = LeakageKFold(3, similarity=smiles, random_state=0, stratify=False, **OPTS)
    list(off.split(x, y))
    assert not off.report_["stratified"] and "class_fold_counts" not in off.report_
    unlabelled = LeakageKFold(3, similarity=smiles, random_state=0, **OPTS)
    list(unlabelled.split(x))
    assert not unlabelled.report_["stratified"]


def test_continuous_y_is_not_stratified(mols):
    smiles, x, _ = mols
    y = np.linspace(0.0, 1.0, len(smiles)) ** 2  # a regression target
    cv = LeakageKFold(3, similarity=smiles, random_state=0, **OPTS)
    list(cv.split(x, y))
    assert not cv.report_["stratified"]
    forced = LeakageKFold(3, similarity=smiles, random_state=0, stratify=True, **OPTS)
    with pytest.raises(ValueError, match=r"stratify=True needs class labels in y, got a continuous target with 40 "
                                         r"distinct values"):
        list(forced.split(x, y))
    with pytest.raises(ValueError, match="stratify must be None, True or False, got 'yes'"):
        list(LeakageKFold(3, similarity=smiles, stratify="yes", **OPTS).split(x, y))


def test_default_stratification_names_the_way_out_when_infeasible(mols):
    smiles, x, y = mols
    # 4 clusters: exact class counts are out of reach whatever the seed (with 8, only some seeds' clusterings)
    cv = LeakageKFold(3, similarity=smiles, random_state=0, clusters=4, epsilon=0.3, delta=0.0)
    with pytest.raises(ValueError, match=r"may hold at most \d+ of them \(\(1 \+ delta\) s_i n_c, delta 0\).*raise delta "
                                         r"\(--delta\) to at least 0\.\d+.*stratify=False turns that off"):
        list(cv.split(x, y))


def test_class_share_lines_state_every_fold_beside_the_overall_share():
    counts = {"y=1": {"fold0": 3, "fold1": 4, "fold2": 3}, "y=0": {"fold0": 10, "fold1": 9, "fold2": 11}}
    sizes = {"fold0": 13, "fold1": 13, "fold2": 14}
    shares = class_shares(counts, sizes, {"delta": 0.1, "bound": "two_sided"})
    assert shares["classes"]["y=1"]["all"] == pytest.approx(10 / 40)
    assert shares["classes"]["y=1"]["folds"]["fold1"] == pytest.approx(4 / 13)
    lines = class_share_lines(shares)
    assert lines[0].split() == ["class", "share", "fold0", "fold1", "fold2", "all", "range", "of", "the", "folds"]
    assert lines[1].split() == ["y=1", "23.1%", "30.8%", "21.4%", "25.0%", "21.4%-30.8%"]
    assert lines[2].split() == ["y=0", "76.9%", "69.2%", "78.6%", "75.0%", "69.2%-78.6%"]
    assert "delta 0.1: every fold i holds (1 ± 0.1) s_i n_c members of each class c" in lines[3]
    paper = class_share_lines(class_shares(counts, sizes, {"delta": 0.1, "bound": "paper"}))
    assert "holds >= 0.9 s_i n_c members of each class c, no upper bound" in paper[-1]


def test_split_with_class_col_is_stratified_and_its_summary_states_the_class_shares(fixtures, tmp_path, capsys):
    out, rep = tmp_path / "s.tsv", tmp_path / "s.json"
    args = ["split", "--task", "S1", "--input", fixtures / "mols.csv", "--smiles-col", "smiles", "--id-col", "mol_id",
            "--class-col", "active", "--folds", "3", "--clusters", "8", "--epsilon", "0.3", "--delta", "0.4",
            "--out", out, "--report", rep]
    assert main([str(a) for a in args]) == 0
    err = capsys.readouterr().out  # the result's lines
    report = json.loads(rep.read_text())
    assert report["stratification"] == {"delta": 0.4, "bound": "two_sided"}
    labels = pd.read_csv(out, sep="\t").merge(pd.read_csv(fixtures / "mols.csv"), left_on="id", right_on="mol_id")
    actives = labels.groupby("split")["active"].sum()
    assert ((actives >= 0.6 * 10 / 3 - 1e-9) & (actives <= 1.4 * 10 / 3 + 1e-9)).all()  # 10 actives of 40
    shares = report["summary"]["class_shares"]["classes"]["active=1"]
    assert shares["all"] == pytest.approx(0.25)
    sizes = labels.groupby("split").size()
    for fold, share in shares["folds"].items():
        assert share == pytest.approx(actives[fold] / sizes[fold])
    row = next(line for line in err.splitlines() if line.strip().startswith("active=1"))
    assert row.split()[1:5] == [f"{100 * shares['folds'][f]:.1f}%" for f in ("fold0", "fold1", "fold2")] + ["25.0%"]
    assert "every fold i holds (1 ± 0.4) s_i n_c members of each class c" in err
