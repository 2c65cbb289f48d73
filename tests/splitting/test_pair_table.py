"""2-D data as one long table of pairs (``split --pairs``): entities by value, cold-both folds, clear errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchdesign.cli import main

MOLECULES = ["CCO", "CCN", "OCC(O)CO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "CCCCCCCC"]
PEPTIDES = [
    "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEK",
    "MKTAYIAKQRHISFVKSHFSRQLEDRLGLIEVQAPILSRVGDGTKDNLSGAEK",
    "GSHMLEDPVDAFQLGSTVKWYPEGNRAHLTVGCKLPQWEEDTRSNALK",
    "GSHMIEDPVDAFQLGNTVKWYPEGNRAHLSVGCKLPQWEEDTRSNAIK",
    "WWPLAHRTYQDEFGKNMCVSLIPQREATDGHWKLMNPQRSTVWYACDEFG",
]
FAST = ["--clusters", "4", "--epsilon", "0.6", "--delta", "0.6", "--time-limit", "5", "--certificate-seeds", "0"]


def _long_table(path, rng) -> pd.DataFrame:
    """Every (molecule, peptide) pair once, in shuffled order, plus a second copy of 10 pairs (repeated rows)."""
    rows = [(m, p, float(rng.normal())) for m in MOLECULES for p in PEPTIDES]
    rows += [rows[i] for i in rng.choice(len(rows), 10, replace=False)]
    df = pd.DataFrame(rows, columns=["ligand", "target", "pkd"]).sample(frac=1.0, random_state=0)
    df.to_csv(path, index=False)
    return df


def _split(tmp_path, table, *extra):
    out = tmp_path / "split.tsv"
    code = main([str(a) for a in ["split", "--task", "S2", "--folds", "3", "--pairs", table, "--a-col", "ligand",
                                  "--b-col", "target", "--sequence-similarity", "kmer", "--out", out,
                                  "--report", tmp_path / "rep.json", "--entity-folds", tmp_path / "ent.tsv",
                                  *FAST, *extra]])
    return code, out


def test_entities_are_the_distinct_values_and_folds_are_cold_on_both_sides(tmp_path):
    table = tmp_path / "pairs.csv"
    df = _long_table(table, np.random.default_rng(0))
    code, out = _split(tmp_path, table)
    assert code == 0
    split = pd.read_csv(out, sep="\t")
    assert len(split) == len(df)  # one output row per input row
    ent = pd.read_csv(tmp_path / "ent.tsv", sep="\t")
    assert sorted(ent.loc[ent.side == "a", "id"]) == sorted(MOLECULES)
    assert sorted(ent.loc[ent.side == "b", "id"]) == sorted(PEPTIDES)
    fold_of = {(s, i): f for s, i, f in ent[["side", "id", "fold"]].itertuples(index=False)}
    rows = df.reset_index(drop=True)
    assert (split["fold_a"].to_numpy() == [fold_of[("a", m)] for m in rows.ligand]).all()
    assert (split["fold_b"].to_numpy() == [fold_of[("b", p)] for p in rows.target]).all()
    for f in range(3):
        test = (split.fold_a == f) & (split.fold_b == f)
        train = (split.fold_a != f) & (split.fold_b != f)
        assert not set(rows.ligand[test]) & set(rows.ligand[train])
        assert not set(rows.target[test]) & set(rows.target[train])
    rep = json.loads((tmp_path / "rep.json").read_text())
    assert rep["similarity"]["a"]["kind"] == "fingerprint_tanimoto"
    assert rep["similarity"]["b"]["kind"] == "kmer_cosine"  # auto: the peptides were read as sequences


def test_a_repeated_id_with_two_values_is_refused(tmp_path, capsys):
    table = tmp_path / "pairs.csv"
    df = _long_table(table, np.random.default_rng(1))
    df["ligand_id"] = df["ligand"].map({m: f"L{i}" for i, m in enumerate(MOLECULES)})
    df.loc[df.index[0], "ligand_id"] = "L1" if df["ligand"].iloc[0] != MOLECULES[1] else "L0"
    df.to_csv(table, index=False)
    code, out = _split(tmp_path, table, "--a-id-col", "ligand_id")
    err = capsys.readouterr().err
    assert code == 2 and "ids of column 'ligand_id' have several values in column 'ligand'" in err
    assert not out.exists()


@pytest.mark.parametrize("extra,message", [
    (["--input", "x.csv"], "--pairs is one table of pairs; do not combine it with --input"),
    (["--b-col", ""], "--pairs needs the columns of the two entities of a pair: --a-col and --b-col"),
    (["--class-col", "label"], "--class-col: classes for stratification belong to an entity table; with --pairs"),
])
def test_pairs_option_errors(tmp_path, capsys, extra, message):
    table = tmp_path / "pairs.csv"
    _long_table(table, np.random.default_rng(2))
    code, out = _split(tmp_path, table, *extra)
    assert code == 2 and message in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("extra,named", [
    (["--a-col", "ligand"], "--a-col name columns of the one table of pairs: give it with --pairs FILE"),
    (["--b-id-col", "t", "--a-kind", "smiles"], "--b-id-col, --a-kind name columns of the one table of pairs"),
])
@pytest.mark.parametrize("command", ["split", "leakage"])
def test_pair_table_options_without_pairs_are_refused(tmp_path, capsys, command, extra, named):
    table = tmp_path / "mols.csv"
    pd.DataFrame({"id": ["a", "b", "c", "d"], "smiles": MOLECULES[:4]}).to_csv(table, index=False)
    out = tmp_path / "o.tsv"
    rest = ["--task", "S1", "--fractions", "0.5", "0.5", "--out", out] if command == "split" else ["--split", out]
    code = main([str(a) for a in [command, "--input", table, "--smiles-col", "smiles", *rest, *extra]])
    assert code == 2 and named in capsys.readouterr().err
    assert not out.exists()


def test_a_missing_column_is_named(tmp_path, capsys):
    table = tmp_path / "pairs.csv"
    _long_table(table, np.random.default_rng(3))
    code = main([str(a) for a in ["split", "--task", "S2", "--folds", "3", "--pairs", table, "--a-col", "smiles",
                                  "--b-col", "target", "--out", tmp_path / "o.tsv", *FAST]])
    err = capsys.readouterr().err
    assert code == 2 and "smiles" in err and "pairs.csv" in err


def test_python_long_table_through_pair_indices_and_split_pairs():
    from benchdesign.splitting import LeakageKFold, pair_indices

    df = _long_table("/dev/null", np.random.default_rng(4))
    ia, ib, drugs, targets = pair_indices(df["ligand"], df["target"])
    assert sorted(drugs) == sorted(MOLECULES) and sorted(targets) == sorted(PEPTIDES)
    assert [drugs[i] for i in ia] == df["ligand"].tolist() and [targets[i] for i in ib] == df["target"].tolist()
    cv = LeakageKFold(3, similarity=drugs, task="S2", clusters=4, epsilon=0.6, delta=0.6, certificate_seeds=0)
    folds = list(cv.split_pairs(ia, ib, similarity_b=targets))
    assert len(folds) == 3
    for train, test in folds:
        assert not set(ia[train]) & set(ia[test]) and not set(ib[train]) & set(ib[test])
