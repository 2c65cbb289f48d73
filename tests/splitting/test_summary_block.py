"""The summary block shared by `split` and `leakage` (summary.py), the solver line, and `leakage` on
`split --drop-invalid` output."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator
from rdkit.Chem.Scaffolds.MurckoScaffold import MurckoScaffoldSmiles

from benchdesign.cli import main
from benchdesign.splitting import summary as summary_mod
from benchdesign.splitting.certificate import random_baselines, split_certificate
from benchdesign.splitting.pipeline import solver_summary
from benchdesign.splitting.similarity import MatrixSimilarity
from benchdesign.splitting.summary import split_summary, summary_lines
from benchdesign.splitting.tasks import group_folds

NAMES = ["fold0", "fold1", "fold2"]


def by_hand(sim: np.ndarray, folds: np.ndarray) -> tuple[dict, np.ndarray]:
    """Per-fold scaled L(pi) (fold vs rest over the full matrix) and each sample's max similarity to other folds."""
    a = folds >= 0
    total = sim[np.ix_(a, a)].sum()
    per = {f: 2 * sim[np.ix_(folds == f, a & (folds != f))].sum() / total for f in range(folds.max() + 1)}
    nn = np.array([sim[i, a & (folds != folds[i])].max() for i in np.flatnonzero(a)])
    return per, nn


def permuted(folds: np.ndarray, seed: int, j: int) -> np.ndarray:
    """A random split of the same fold sizes, drawn as the summary states (assigned folds permuted by (seed, j))."""
    out = folds.copy()
    a = np.flatnonzero(folds >= 0)
    out[a] = folds[a][np.random.default_rng([seed, j]).permutation(a.size)]
    return out


@pytest.fixture
def small(rand_sim):
    rng = np.random.default_rng(3)
    sim = rand_sim(30, rng) ** 3
    folds = rng.integers(0, 3, 30)
    folds[[4, 17]] = -1
    return sim, folds


def summary_of(sim, folds, seeds=3, seed=5, **kw):
    src = MatrixSimilarity(sim, "similarity")
    cert = split_certificate(src, folds, NAMES, random_baselines(folds, seed, seeds))
    return split_summary(src, folds, NAMES, cert, seed=seed, **kw)


def test_random_baseline_and_nearest_neighbours_match_numpy(small):
    sim, folds = small
    s = summary_of(sim, folds, unassigned={"invalid_features": 2})
    per, nn = by_hand(sim, folds)
    randoms = [by_hand(sim, permuted(folds, 5, j)) for j in range(3)]
    for f, name in enumerate(NAMES):
        row = s["folds"][name]
        assert row["size"] == (folds == f).sum() and row["fraction"] == pytest.approx((folds == f).sum() / 28)
        assert row["scaled_leakage"] == pytest.approx(per[f], rel=1e-6)
        assert row["random_scaled_leakage"] == pytest.approx(np.mean([r[0][f] for r in randoms]), rel=1e-6)
    ours, rand = s["nearest_neighbour"]["split"]["all"], s["nearest_neighbour"]["random"]["all"]
    assert ours["n_test"] == 28 and ours["median"] == pytest.approx(np.median(nn))
    assert ours["share_above"]["0.5"] == pytest.approx((nn > 0.5).mean())
    assert ours["share_above"]["0.7"] == pytest.approx((nn > 0.7).mean())
    assert rand["median"] == pytest.approx(np.mean([np.median(r[1]) for r in randoms]))
    assert rand["share_above"]["0.5"] == pytest.approx(np.mean([(r[1] > 0.5).mean() for r in randoms]))
    assert s["nearest_neighbour"]["sampled"] is None and "scaffold" not in s
    text = "\n".join(summary_lines(s))
    red = 1 - s["scaled_leakage"] / s["random_scaled_leakage"]
    assert s["sentence"].startswith(f"{abs(red):.0%} {'less' if red >= 0 else 'more'} leakage than a random split "
                                    "of the same sizes; test samples' nearest training neighbour: median similarity "
                                    f"{np.median(nn):.2f} (random ")
    assert f"=> {s['sentence']}" in text and "left out: 2 invalid_features" in text
    assert "share of the similarity mass between folds (0 = none; a random 80/20 split ≈ 0.32)" in text


def test_scaffold_split_beside_ours_for_molecules(fixtures):
    smiles = pd.read_csv(fixtures / "mols.csv")["smiles"].tolist()[:30]
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)
    fps = [gen.GetFingerprint(Chem.MolFromSmiles(x)) for x in smiles]
    sim = np.array([DataStructs.BulkTanimotoSimilarity(fp, fps) for fp in fps])
    folds = np.random.default_rng(0).permutation(np.repeat([0, 1, 2], [14, 9, 7]))
    src = MatrixSimilarity(sim, "similarity")
    cert = split_certificate(src, folds, NAMES, [])
    s = split_summary(src, folds, NAMES, cert, smiles=smiles, words={"noun": "molecules", "similarity": "Tanimoto"})
    scaffolds = [MurckoScaffoldSmiles(mol=Chem.MolFromSmiles(x), includeChirality=False) for x in smiles]
    sc = group_folds(np.unique(scaffolds, return_inverse=True)[1], np.array([14, 9, 7]) / 30)  # as --task scaffold
    per, nn = by_hand(sim, sc)
    assert s["scaffold"]["fold_sizes"] == {n: int((sc == i).sum()) for i, n in enumerate(NAMES)}
    assert s["scaffold"]["nearest_neighbour"]["all"]["median"] == pytest.approx(np.median(nn), abs=1e-6)
    assert s["scaffold"]["scaled_leakage"] == pytest.approx(sum(per.values()) / 2, rel=1e-6)
    assert "random" not in s["nearest_neighbour"] and s["leakage_reduction"] is None
    assert s["sentence"].startswith("test molecules' nearest training neighbour: median Tanimoto ")
    assert f"(scaffold split {np.median(nn):.2f})" in s["sentence"]


def test_large_data_is_sampled_and_says_so(small, monkeypatch):
    sim, folds = small
    monkeypatch.setattr(summary_mod, "NN_SAMPLE_MIN", 10)
    monkeypatch.setattr(summary_mod, "NN_SAMPLE_TEST", 12)
    s = summary_of(sim, folds)
    smp = s["nearest_neighbour"]["sampled"]
    assert smp == {"n_test": 12, "of": 28, "seed": 5}
    assert s["nearest_neighbour"]["split"]["all"]["n_test"] == 12
    rows = np.sort(np.random.default_rng([5, 1]).choice(np.flatnonzero(folds >= 0), 12, replace=False))
    _, nn = by_hand(sim, folds)
    nn_all = dict(zip(np.flatnonzero(folds >= 0), nn, strict=True))
    assert s["nearest_neighbour"]["split"]["all"]["median"] == pytest.approx(np.median([nn_all[i] for i in rows]))
    text = "\n".join(summary_lines(s))
    assert "12 sampled test samples (seed 5) of 28, against all training samples" in text
    assert "(on 12 sampled test samples)" in s["sentence"]


def rep_of(status, ilp_scaled, scaled, ilp_bound, bound, gap=0.1):
    cert = {"scaled_leakage": scaled, "scaled_lower_bound": bound, "gap": gap, "ilp_scaled_lower_bound": ilp_bound,
            "ilp_scaled_objective": ilp_scaled, "ilp_gap": 0.5}
    return {"solver": "HIGHS", "solver_status": status, "solver_seconds": 10.2, "ilp_scaled_leakage": ilp_scaled,
            "refined": True, "ilp_gap": 0.05, "certificate": cert}


def test_solver_line_in_words():
    out = solver_summary(rep_of("time_limit", 0.77, 0.74, 0.0, 0.66, 0.117), 10.0)
    assert out["text"].startswith("solver: the solver stopped at its time limit of 10 s (no node limit); the folds may "
                                  "differ on another machine or under other load; set --node-limit (node_limit) for "
                                  "a stop that is the same everywhere. Any split of these micro-clusters leaks "
                                  "at least 0.6600 (a proven lower bound), this one 0.7400: no other split can remove "
                                  "more than 11.7% of its leakage (a ceiling: no split may reach the bound). A longer "
                                  "--time-limit is unlikely to help: the refinement lowered the ILP's leakage by 3.9%")
    assert out["longer_limit_may_help"] is False and "cluster-level proxy" in out["text"]
    out = solver_summary(rep_of("time_limit", 0.741, 0.74, 0.7, 0.66), 5.0)
    assert out["longer_limit_may_help"] is True
    assert out["text"].endswith("A longer --time-limit may help: the ILP stopped 5.0% above its own lower bound and "
                                "the refinement changed little")
    out = solver_summary(rep_of("optimal", 0.74, 0.74, 0.74, 0.66), 10.0)
    assert out["text"].startswith("solver: HiGHS found the best assignment of the clusters. Any split of "
                                  "these micro-clusters leaks at least 0.6600") and "time-limit" not in out["text"]
    assert "10.2" not in out["text"] and out["seconds"] == 10.2  # the time in its own field: the words stay the same
    out = solver_summary(rep_of("time_limit", 0.77, 0.74, 0.0, 0.66) | {"solver_nodes": 42}, 600.0, 100)
    assert out["text"].startswith("solver: the solver stopped at its safety time limit of 600 s after 42 nodes, "
                                  "before its node limit of 100; the folds may differ on another machine")
    out = solver_summary(rep_of("node_limit", 0.77, 0.74, 0.0, 0.66), 600.0, 100)
    assert out["text"].startswith("solver: HiGHS stopped at its node limit (100 nodes; the same on every machine). ")
    assert "more than 10.0% of its leakage" in out["text"]


def split_args(inp, out, *extra):
    return ["split", "--task", "S1", "--input", inp, "--smiles-col", "smiles", "--folds", "3", "--clusters", "10",
            "--epsilon", "0.2", "--out", out, *extra]


def test_split_console_and_report_share_one_block(fixtures, tmp_path, capsys):
    out, rep = tmp_path / "s.tsv", tmp_path / "s.json"
    assert main([str(a) for a in split_args(fixtures / "mols.csv", out, "--report", rep, "--scaffold-baseline")]) == 0
    err = capsys.readouterr().out  # the result's lines
    report = json.loads(rep.read_text())
    s = report["summary"]
    assert f"=> {s['sentence']}" in err and s["solver"]["text"] in err and "note: time limit" not in err
    assert "ILP at cluster level" not in err and "raw objective" not in err
    assert s["folds"]["fold0"]["requested"] == pytest.approx(1 / 3) and "scaffold" in s
    assert s["descriptions"]["scaled_leakage"].startswith("share of the similarity mass between folds")
    assert main([str(a) for a in split_args(fixtures / "mols.csv", out, "--verbose")]) == 0
    assert "solver detail: HIGHS optimal" in capsys.readouterr().out


def test_leakage_accepts_split_drop_invalid_output(fixtures, tmp_path, capsys):
    table = pd.read_csv(fixtures / "mols.csv")
    table.loc[[3, 7], "smiles"] = ["not_a_smiles", "C1CC"]
    inp, out, rep, js = tmp_path / "bad.csv", tmp_path / "s.tsv", tmp_path / "s.json", tmp_path / "l.json"
    table.to_csv(inp, index=False)
    assert main([str(a) for a in split_args(inp, out, "--drop-invalid", "--report", rep, "--scaffold-baseline")]) == 0
    split_err = capsys.readouterr().out
    assert "left out: 2 invalid_smiles" in split_err
    code = main(["leakage", "--split", str(out), "--input", str(inp), "--smiles-col", "smiles", "--json", str(js),
                 "--scaffold-baseline"])
    text = capsys.readouterr().out
    assert code == 0
    assert "left out: 2 rows with invalid SMILES (no similarity; the split leaves them unassigned)" in text
    ours, theirs = json.loads(js.read_text())["summary"], json.loads(rep.read_text())["summary"]
    assert theirs["unassigned"] == ours["unassigned"] == {"invalid_smiles": 2}
    for key in ("scaled_leakage", "random_scaled_leakage", "nearest_neighbour", "scaffold", "sentence"):
        assert ours[key] == pytest.approx(theirs[key]) if isinstance(ours[key], float) else ours[key] == theirs[key]
    labels = pd.read_csv(out, sep="\t", keep_default_na=False)
    labels.loc[3, "split"] = "fold0"
    labels.to_csv(out, sep="\t", index=False)
    code = main(["leakage", "--split", str(out), "--input", str(inp), "--smiles-col", "smiles"])
    err = capsys.readouterr().err
    assert code == 2 and "1 rows with invalid smiles: row 3 (id=3): 'not_a_smiles'" in err
    assert "pass --drop-invalid to leave them out (the split puts them in a fold)" in err
    code = main(["leakage", "--split", str(out), "--input", str(inp), "--smiles-col", "smiles", "--drop-invalid"])
    assert code == 0 and "1 of them are in a fold of the split file (--drop-invalid)" in capsys.readouterr().out
