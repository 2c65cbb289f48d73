"""`benchdesign split --folds/--max-similarity/--clusters-out/--verbose` and `benchdesign leakage --compare`."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchdesign.cli import main


def run(argv, capsys):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def split_args(fixtures, out, *extra):
    return ["split", "--task", "S1", "--input", fixtures / "mols.csv", "--smiles-col", "smiles", "--id-col", "mol_id",
            "--clusters", "8", "--epsilon", "0.3", "--out", out, *extra]


def test_folds_write_a_fold_column_clusters_and_certificate(fixtures, tmp_path, capsys):
    out, rep, clusters = tmp_path / "k.tsv", tmp_path / "k.json", tmp_path / "clusters.tsv"
    code, text, err = run(split_args(fixtures, out, "--folds", "4", "--report", rep, "--clusters-out", clusters),
                          capsys)
    assert code == 0, err
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    assert list(table.columns) == ["id", "split", "reason", "fold"]
    assert sorted(set(table["fold"])) == [0, 1, 2, 3]
    assert (table["split"] == "fold" + table["fold"].astype(str)).all()
    sizes = table["fold"].value_counts()
    assert sizes.max() <= 1.3 * len(table) / 4 + 1e-9  # balanced: upper bound (1 + epsilon) n / k
    report = json.loads(rep.read_text())
    cert = report["certificate"]
    assert set(cert["fold_scaled_leakage"]) == {f"fold{i}" for i in range(4)}
    assert {"random_scaled_leakage", "ilp_scaled_lower_bound", "ilp_gap"} <= set(cert)
    assert "summary: 40 molecules in 4 folds" in text and "leakage than a random split of the same sizes" in text
    assert "solver: " in text and "ILP at cluster level" not in text  # cluster-level figures only with --verbose
    cl = pd.read_csv(clusters, sep="\t")
    assert list(cl.columns) == ["id", "cluster"] and cl["id"].tolist() == table["id"].tolist()
    assert cl["cluster"].between(0, 7).all()  # the cluster (of K = 8) each entity had in the ILP


def test_folds_and_splits_are_exclusive_and_nothing_is_written(fixtures, tmp_path, capsys):
    out = tmp_path / "k.tsv"
    code, _, err = run(split_args(fixtures, out, "--folds", "3", "--splits", "0.5", "0.5"), capsys)
    assert code == 2 and "do not combine it with --fractions/--names" in err and not out.exists()
    code, _, err = run(split_args(fixtures, out), capsys)
    assert code == 2 and "give the split fractions (--fractions) or a number of folds (--folds)" in err
    assert not out.exists()
    code, _, err = run(["split", "--task", "R", "--input", fixtures / "mols.csv", "--splits", "0.5", "0.5",
                        "--out", out, "--clusters-out", tmp_path / "c.tsv"], capsys)
    assert code == 2 and "only the similarity-based tasks" in err and not out.exists()


def test_max_similarity_reports_dropped_samples(fixtures, tmp_path, capsys):
    out, rep = tmp_path / "t.tsv", tmp_path / "t.json"
    code, text, err = run(["split", "--task", "R", "--input", fixtures / "mols.csv", "--smiles-col", "smiles",
                           "--splits", "0.8", "0.2", "--out", out, "--max-similarity", "0.3", "--report", rep], capsys)
    assert code == 0, err
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    part = json.loads(rep.read_text())["max_similarity"]
    dropped = table["reason"] == "dropped_above_max_similarity"
    assert part["n_dropped"] == int(dropped.sum()) == len(part["samples"]) > 0
    assert (table.loc[dropped, "split"] == "unassigned").all()
    assert "max similarity 0.3 (drop)" in text


def test_verbose_passes_the_solver_log_to_stderr(fixtures, tmp_path, capfd):
    code = main([str(a) for a in split_args(fixtures, tmp_path / "v.tsv", "--splits", "0.8", "0.2", "--verbose")])
    captured = capfd.readouterr()
    assert code == 0
    assert "Coefficient ranges" in captured.err and "Coefficient ranges" not in captured.out  # HiGHS's own log


def test_leakage_compare_table(fixtures, tmp_path, capsys):
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    assert run(split_args(fixtures, a, "--splits", "0.8", "0.2"), capsys)[0] == 0
    assert run(["split", "--task", "R", "--input", fixtures / "mols.csv", "--id-col", "mol_id",
                "--splits", "0.8", "0.2", "--out", b], capsys)[0] == 0
    js = tmp_path / "cmp.json"
    code, out, err = run(["leakage", "--input", fixtures / "mols.csv", "--smiles-col", "smiles", "--id-col", "mol_id",
                          "--compare", a, b, "--json", js], capsys)
    assert code == 0, err
    assert str(a) in out and str(b) in out and "scaled L(pi)" in out
    rows = json.loads(js.read_text())["splits"]
    assert len(rows) == 2
    for path, row in zip((a, b), rows, strict=True):  # same numbers as the one-split command
        code, _, _ = run(["leakage", "--input", fixtures / "mols.csv", "--smiles-col", "smiles", "--id-col",
                          "mol_id", "--split", path, "--json", tmp_path / "one.json"], capsys)
        one = json.loads((tmp_path / "one.json").read_text())
        assert row["scaled_leakage"] == pytest.approx(one["scaled_leakage"])
        means = [st["mean"] for st in one["max_train_similarity"].values()]
        assert row["eq1_mean_over_folds"] == pytest.approx(np.mean(means))


def test_alignment_sequence_similarity(fixtures, tmp_path, capsys):
    out = tmp_path / "p.tsv"
    code, _, err = run(["split", "--task", "S1", "--input", fixtures / "targets.tsv", "--sequence-col", "sequence",
                        "--sequence-similarity", "alignment", "--splits", "0.5", "0.5", "--clusters", "2",
                        "--epsilon", "0.5", "--out", out], capsys)
    assert code == 0, err
    assert set(pd.read_csv(out, sep="\t")["split"]) == {"split0", "split1"}
