"""`benchdesign split`: outputs, determinism, and clear errors that leave no file behind."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from benchdesign.cli import main


def run(argv, capsys):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err  # the result (stdout), then progress and errors (stderr)


def base_args(fixtures, out, *extra):
    return ["split", "--task", "S1", "--input", fixtures / "mols.csv", "--smiles-col", "smiles",
            "--splits", "0.8", "0.2", "--names", "train", "test", "--clusters", "8", "--out", out, *extra]


def test_split_writes_one_row_per_input_row(fixtures, tmp_path, capsys):
    out = tmp_path / "splits.tsv"
    report = tmp_path / "report.json"
    code, err = run(base_args(fixtures, out, "--id-col", "mol_id", "--report", report), capsys)
    assert code == 0, err
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    mols = pd.read_csv(fixtures / "mols.csv")
    assert list(table.columns) == ["id", "split", "reason"]
    assert table["id"].tolist() == mols["mol_id"].tolist()
    assert set(table["split"]) == {"train", "test"}
    assert (table["reason"] == "").all()
    assert "scaled L(pi)" in err
    assert '"solver_status": "optimal"' in report.read_text()


def test_same_seed_same_split_and_row_number_ids(fixtures, tmp_path, capsys):
    outs = []
    for name in ("a.tsv", "b.tsv"):
        code, err = run(base_args(fixtures, tmp_path / name, "--seed", "3", "--class-col", "active"), capsys)
        assert code == 0, err
        outs.append((tmp_path / name).read_text())
    assert outs[0] == outs[1]
    ids = pd.read_csv(tmp_path / "a.tsv", sep="\t")["id"].tolist()
    assert ids == list(range(40))


def test_invalid_smiles_listed_or_dropped(fixtures, tmp_path, capsys):
    df = pd.read_csv(fixtures / "mols.csv")
    df.loc[[3, 17], "smiles"] = ["C1CC", "not_a_smiles"]
    bad = tmp_path / "bad.csv"
    df.to_csv(bad, index=False)
    out = tmp_path / "out.tsv"
    args = ["split", "--task", "S1", "--input", bad, "--smiles-col", "smiles", "--id-col", "mol_id",
            "--splits", "0.8", "0.2", "--clusters", "8", "--out", out]
    code, err = run(args, capsys)
    assert code == 2
    assert "2 rows with invalid smiles" in err and "row 3 (id=m03): 'C1CC'" in err and "row 17" in err
    assert "--drop-invalid" in err
    assert not out.exists()
    code, err = run(args + ["--drop-invalid"], capsys)
    assert code == 0, err
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    assert table.loc[[3, 17], "split"].tolist() == ["unassigned", "unassigned"]
    assert table.loc[[3, 17], "reason"].tolist() == ["invalid_smiles", "invalid_smiles"]
    assert (table.drop(index=[3, 17])["split"] != "unassigned").all()


@pytest.mark.parametrize("mutate,extra,message", [
    ("dup_ids", [], "duplicate ids in column 'mol_id': m01"),
    (None, ["--splits", "0.7", "0.2"], "must sum to 1"),
    (None, ["--clusters", "41"], "K=41 is larger than the number of entities n=40"),
    (None, ["--epsilon", "0", "--clusters", "2"], "before the solver ran): cluster "),
    (None, ["--solver", "NOSUCH"], "not an installed"),
])
def test_bad_input_clear_message_no_output(fixtures, tmp_path, capsys, mutate, extra, message):
    src = fixtures / "mols.csv"
    if mutate == "dup_ids":
        df = pd.read_csv(src)
        df.loc[5, "mol_id"] = "m01"
        src = tmp_path / "dup.csv"
        df.to_csv(src, index=False)
    out = tmp_path / "out.tsv"
    args = ["split", "--task", "S1", "--input", src, "--smiles-col", "smiles", "--id-col", "mol_id",
            "--splits", "0.8", "0.2", "--clusters", "8", "--out", out, *extra]
    code, err = run(args, capsys)
    assert code == 2, err
    assert message in err
    assert not out.exists()
    assert list(tmp_path.glob(".out.tsv.*")) == []  # no temporary file either


def test_infeasible_epsilon_suggests_larger_value(fixtures, tmp_path, capsys):
    out = tmp_path / "out.tsv"
    code, err = run(base_args(fixtures, out, "--epsilon", "0", "--clusters", "3", "--splits", "0.5", "0.5"), capsys)
    assert code == 2
    assert "smallest feasible epsilon is about" in err and "larger epsilon" in err
    assert not out.exists()


def test_2d_split_and_unknown_ids(fixtures, tmp_path, capsys):
    out = tmp_path / "s2.tsv"
    args = ["split", "--task", "S2", "--interactions", fixtures / "interactions.csv", "--inter-id-col", "pair",
            "--input", fixtures / "drugs.csv", "--id-col", "drug", "--smiles-col", "smiles",
            "--input-b", fixtures / "targets.tsv", "--id-col-b", "target", "--sequence-col-b", "sequence",
            "--splits", "0.8", "0.2", "--names", "train", "test", "--clusters", "4", "--out", out]
    code, err = run(args, capsys)
    assert code == 0, err
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    inter = pd.read_csv(fixtures / "interactions.csv")
    assert table["id"].tolist() == inter["pair"].tolist()
    dropped = table["split"] == "unassigned"
    assert (table.loc[dropped, "reason"] == "entities_in_different_folds").all()
    assert f"dropped interactions {int(dropped.sum())}" in err
    # unknown ids in the interaction table
    inter.loc[0, "id_b"] = "p99"
    bad = tmp_path / "inter.csv"
    inter.to_csv(bad, index=False)
    out2 = tmp_path / "s2b.tsv"
    args2 = [str(a) for a in args]
    args2[args2.index(str(fixtures / "interactions.csv"))] = str(bad)
    args2[-1] = str(out2)
    code, err = run(args2, capsys)
    assert code == 2 and "ids in column 'id_b' are not in the side-b (--input-b) entity table: p99" in err
    assert not out2.exists()


def test_console_entry_point(fixtures, tmp_path):
    exe = shutil.which("benchdesign")
    cmd = [exe] if exe else [sys.executable, "-m", "benchdesign.cli"]
    out = tmp_path / "r.tsv"
    proc = subprocess.run(cmd + ["split", "--task", "R", "--input", str(fixtures / "mols.csv"), "--splits", "0.75",
                                 "0.25", "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(out, sep="\t")
    np.testing.assert_array_equal(np.bincount(table["split"].map({"split0": 0, "split1": 1})), [30, 10])


@pytest.mark.parametrize("kind,sparse", [("similarity", False), ("distance", True)])
def test_precomputed_matrix_input(tmp_path, capsys, kind, sparse):
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    x = np.vstack([rng.normal(c, 0.2, size=(10, 2)) for c in (0, 3, 6)])
    d = np.linalg.norm(x[:, None] - x[None], axis=2)
    matrix = d if kind == "distance" else 1 - d / d.max()
    path = tmp_path / ("m.npz" if sparse else "m.npy")
    if sparse:
        sp.save_npz(path, sp.csr_matrix(np.where(d < 2, matrix, 0)))
    else:
        np.save(path, matrix)
    table = tmp_path / "ents.csv"
    pd.DataFrame({"name": [f"e{i}" for i in range(30)]}).to_csv(table, index=False)
    out = tmp_path / "out.tsv"
    code, err = run(["split", "--task", "S1", "--input", table, "--id-col", "name", "--matrix", path,
                     "--matrix-kind", kind, "--splits", "0.667", "0.333", "--clusters", "6", "--epsilon", "0.2",
                     "--out", out], capsys)
    assert code == 0, err
    split = pd.read_csv(out, sep="\t")
    # the three well-separated groups of ten are never cut
    for g in range(3):
        assert split["split"].iloc[10 * g:10 * g + 10].nunique() == 1


def test_parser_builds_without_the_solver_rdkit_pandas_and_scipy():
    """`benchdesign --help` and every command's parser start without loading cvxpy, RDKit, pandas or scipy."""
    code = ("import sys; from benchdesign.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('cvxpy', 'rdkit', 'pandas', 'scipy', 'sklearn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("package", ["benchdesign.splitting", "benchdesign.selection"])
def test_lazy_package_exports_every_public_name(package):
    module = importlib.import_module(package)
    assert all(getattr(module, name) is not None for name in module.__all__)
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="no_such_name"):
        getattr(module, "no_such_name")


def test_a_continuous_class_column_is_named_as_such(tmp_path, capsys):
    rng = np.random.default_rng(0)
    table = tmp_path / "mols.csv"
    smiles = ["C" * (i % 7 + 1) + "O" * (i % 3) for i in range(60)]
    pd.DataFrame({"smiles": smiles, "pic50": rng.normal(6, 1, 60).round(3)}).to_csv(table, index=False)
    out = tmp_path / "o.tsv"
    code = main(["split", "--task", "I1", "--input", str(table), "--class-col", "pic50", "--fractions", "0.8", "0.2",
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "class column 'pic50' has 60 distinct values among 60 rows: a continuous value" in err
    assert not out.exists()
