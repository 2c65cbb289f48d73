"""`benchdesign leakage`: figures equal a brute-force dense computation; bad input fails clearly."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator

from benchdesign.cli import main
from benchdesign.splitting.inputs import entities_from_table
from benchdesign.splitting.leakage_report import evaluate_split, leakage_shard_from_inputs, leakage_shard_inputs


def rdkit_similarity(smiles):
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)
    fps = [gen.GetFingerprint(Chem.MolFromSmiles(s)) for s in smiles]
    return np.array([DataStructs.BulkTanimotoSimilarity(fp, fps) for fp in fps])


def brute_force(sim, folds):
    """L(pi) (eq. 2), scaled L(pi) (eq. 20) and per-fold max-train similarities (eq. 1) by double loops."""
    idx = [i for i, f in enumerate(folds) if f is not None]
    leak = sum(sim[i, j] for a, i in enumerate(idx) for j in idx[a + 1:] if folds[i] != folds[j])
    total = sum(sim[i, j] for i in idx for j in idx)
    per = {}
    for t in sorted({folds[i] for i in idx}):
        test = [i for i in idx if folds[i] == t]
        train = [j for j in idx if folds[j] != t]
        per[t] = np.array([max(sim[i, j] for j in train) for i in test])
    return leak, 2 * leak / total, per


@pytest.fixture
def split_files(fixtures, tmp_path):
    mols = pd.read_csv(fixtures / "mols.csv")
    rng = np.random.default_rng(0)
    labels = rng.choice(["train", "val", "test"], size=len(mols), p=[0.6, 0.2, 0.2]).astype(object)
    labels[[4, 9]] = "unassigned"
    table = pd.DataFrame({"id": mols["mol_id"], "split": labels}).drop(index=[11, 30])  # not listed at all
    path = tmp_path / "split.tsv"
    table.to_csv(path, sep="\t", index=False)
    folds = [None] * len(mols)
    for i, lab in zip(table.index, table["split"], strict=True):
        folds[i] = None if lab == "unassigned" else lab
    return mols, path, folds


def test_cli_leakage_equals_brute_force(fixtures, tmp_path, capsys, split_files):
    mols, split, folds = split_files
    out = tmp_path / "leak.json"
    code = main(["leakage", "--input", str(fixtures / "mols.csv"), "--id-col", "mol_id", "--smiles-col", "smiles",
                 "--split", str(split), "--json", str(out), "--quantiles", "0.1", "0.5", "0.9",
                 "--fold-names", "train", "val", "test"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    rep = json.loads(out.read_text())
    leak, scaled, per = brute_force(rdkit_similarity(mols["smiles"].tolist()), folds)
    assert rep["leakage"] == pytest.approx(leak, rel=1e-5)
    assert rep["scaled_leakage"] == pytest.approx(scaled, rel=1e-5)
    assert rep["n_assigned"] == sum(f is not None for f in folds)
    assert rep["n_not_in_split"] == 2
    assert set(rep["max_train_similarity"]) == set(per)
    for fold, values in per.items():
        st = rep["max_train_similarity"][fold]
        assert st["n_test"] == values.size
        assert st["mean"] == pytest.approx(values.mean(), abs=1e-6)
        assert st["median"] == pytest.approx(np.median(values), abs=1e-6)
        assert st["quantiles"]["0.9"] == pytest.approx(np.quantile(values, 0.9), abs=1e-6)
        assert st["max"] == pytest.approx(values.max(), abs=1e-6)
    assert f"scaled L(pi) (eq. 20) {scaled:.4f}" in captured.out


def test_tiles_smaller_than_data_give_the_same_report(fixtures, split_files):
    mols, split, folds = split_files
    ent = entities_from_table(mols, id_col="mol_id", smiles_col="smiles")
    table = pd.read_csv(split, sep="\t")
    whole = evaluate_split(ent, table["id"], table["split"], test=["test"], train=["train"])
    tiled = evaluate_split(ent, table["id"], table["split"], test=["test"], train=["train"], block_size=7)
    assert tiled["leakage"] == pytest.approx(whole["leakage"], rel=1e-9)
    a, b = tiled["max_train_similarity"]["test"], whole["max_train_similarity"]["test"]
    assert (a["mean"], a["median"], a["max"]) == pytest.approx((b["mean"], b["median"], b["max"]))
    assert list(whole["max_train_similarity"]) == ["test"]
    assert whole["max_train_similarity"]["test"]["train_folds"] == ["train"]
    sim = rdkit_similarity(mols["smiles"].tolist())
    test = [i for i, f in enumerate(folds) if f == "test"]
    train = [i for i, f in enumerate(folds) if f == "train"]
    assert whole["max_train_similarity"]["test"]["mean"] == pytest.approx(sim[np.ix_(test, train)].max(1).mean())


def test_split_written_by_split_command_round_trips(fixtures, tmp_path, capsys):
    out, report = tmp_path / "s.tsv", tmp_path / "r.json"
    code = main(["split", "--task", "S1", "--input", str(fixtures / "mols.csv"), "--smiles-col", "smiles",
                 "--splits", "0.8", "0.2", "--names", "train", "test", "--clusters", "8", "--out", str(out),
                 "--report", str(report)])
    assert code == 0
    leak_json = tmp_path / "l.json"
    code = main(["leakage", "--input", str(fixtures / "mols.csv"), "--smiles-col", "smiles", "--split", str(out),
                 "--json", str(leak_json)])
    capsys.readouterr()
    assert code == 0
    assert json.loads(leak_json.read_text())["scaled_leakage"] == pytest.approx(
        json.loads(report.read_text())["scaled_leakage"], rel=1e-5)


@pytest.mark.parametrize("edit,extra,message", [
    ("unknown", [], "1 ids are not in the entity table: zz9"),
    ("duplicate", [], "ids listed more than once: m02"),
    (None, ["--split-col", "fold"], "column 'fold' (--split-col) not in the split file"),
    (None, ["--test", "holdout"], "test fold 'holdout' is not in the split"),
    (None, ["--quantiles", "1.5"], "quantiles must lie in [0, 1]"),
])
def test_bad_split_file_clear_error_no_output(fixtures, tmp_path, capsys, split_files, edit, extra, message):
    _, split, _ = split_files
    table = pd.read_csv(split, sep="\t")
    if edit == "unknown":
        table.loc[table.index[0], "id"] = "zz9"
    elif edit == "duplicate":
        table = pd.concat([table, table[table["id"] == "m02"]])
    table.to_csv(split, sep="\t", index=False)
    out = tmp_path / "leak.json"
    code = main(["leakage", "--input", str(fixtures / "mols.csv"), "--id-col", "mol_id", "--smiles-col", "smiles",
                 "--split", str(split), "--json", str(out), *extra])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert not out.exists()


def test_cli_sampled_and_sharded_leakage_agree_with_the_exact_value(fixtures, tmp_path, capsys, split_files):
    mols, split, folds = split_files
    leak, scaled, per = brute_force(rdkit_similarity(mols["smiles"].tolist()), folds)
    common = ["leakage", "--input", str(fixtures / "mols.csv"), "--id-col", "mol_id", "--smiles-col", "smiles",
              "--split", str(split)]
    out = tmp_path / "sampled.json"
    assert main([*common, "--sample", "200000", "--sample-seed", "3", "--sample-test", "4", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    lo, hi = rep["scaled_leakage_ci"]
    assert lo <= scaled <= hi and hi - lo < 0.01
    assert rep["sampled"] == {"n_pairs": 200000, "confidence": 0.95, "seed": 3, "n_test_per_fold": 4,
                              "design": "fold_pairs"}
    assert all(st["n_test"] == min(4, len(per[f])) for f, st in rep["max_train_similarity"].items())
    assert "sampled pairs" in capsys.readouterr().out
    shards = [tmp_path / f"s{i}.npz" for i in range(3)]
    for i, path in enumerate(shards):
        assert main([*common, "--shard", str(i), "3", "--shard-out", str(path)]) == 0
    assert main(["leakage-reduce", *map(str, shards), "--json", str(tmp_path / "exact.json")]) == 0
    exact = json.loads((tmp_path / "exact.json").read_text())
    assert exact["leakage"] == pytest.approx(leak, rel=1e-6) and exact["scaled_leakage"] == pytest.approx(scaled, rel=1e-6)
    # the tile jobs' route: fingerprints and fold codes written once, the same tile values from them
    inputs = tmp_path / "inputs.npz"
    read = {"id_col": "mol_id", "smiles_col": "smiles"}
    assert leakage_shard_inputs(str(fixtures / "mols.csv"), str(split), str(inputs), **read) == len(mols)
    for i, path in enumerate(shards):
        leakage_shard_from_inputs(str(inputs), i, 3, str(tmp_path / "again.npz"))
        with np.load(path) as a, np.load(tmp_path / "again.npz") as b:
            assert a["values"].tobytes() == b["values"].tobytes() and str(a["digest"]) == str(b["digest"])
    np.savez(tmp_path / "bad.npz", packed=np.zeros((2, 128), dtype=np.uint8))
    with pytest.raises(ValueError, match=r"bad.npz lacks \['codes', 'n_bits'\]"):
        leakage_shard_from_inputs(str(tmp_path / "bad.npz"), 0, 3, str(tmp_path / "x.npz"))
    assert main([*common, "--shard", "0", "3"]) == 2  # --shard needs --shard-out
    assert "--shard-out" in capsys.readouterr().err
