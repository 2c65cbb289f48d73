"""`benchdesign leakage` on 2-D splits: per-side figures equal a dense numpy computation; bad input fails clearly."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchdesign.cli import main

N_A, N_B = 8, 6


@pytest.fixture
def pair_files(tmp_path, rand_sim):
    """8 drugs x 6 targets (about 80 % of the pairs) with precomputed similarity matrices (.npy)."""
    rng = np.random.default_rng(1)
    pairs = [(f"d{i}", f"t{j}") for i in range(N_A) for j in range(N_B) if rng.random() < 0.8]
    inter = pd.DataFrame(pairs, columns=["drug", "target"])
    inter.insert(0, "pair", [f"x{i}" for i in range(len(inter))])
    sims = {"a": rand_sim(N_A, rng), "b": rand_sim(N_B, rng)}
    paths = {name: tmp_path / name for name in ("pairs.csv", "drugs.csv", "targets.csv", "a.npy", "b.npy")}
    inter.to_csv(paths["pairs.csv"], index=False)
    pd.DataFrame({"id": [f"d{i}" for i in range(N_A)]}).to_csv(paths["drugs.csv"], index=False)
    pd.DataFrame({"id": [f"t{j}" for j in range(N_B)]}).to_csv(paths["targets.csv"], index=False)
    np.save(paths["a.npy"], sims["a"])
    np.save(paths["b.npy"], sims["b"])
    return inter, sims, paths


def inputs(paths) -> list:
    return ["--interactions", paths["pairs.csv"], "--inter-a-col", "drug", "--inter-b-col", "target",
            "--inter-id-col", "pair", "--input", paths["drugs.csv"], "--id-col", "id", "--matrix", paths["a.npy"],
            "--input-b", paths["targets.csv"], "--id-col-b", "id", "--matrix-b", paths["b.npy"]]


def run(argv, capsys):
    code = main([str(x) for x in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def split(paths, tmp_path, capsys, *options) -> tuple[pd.DataFrame, dict]:
    out, rep = tmp_path / "split.tsv", tmp_path / "split.json"
    code, _, err = run(["split", "--task", "S2", *inputs(paths), "--clusters", "3", "--epsilon", "0.5",
                        "--certificate-seeds", "0", "--out", out, "--report", rep, *options], capsys)
    assert code == 0, err
    return pd.read_csv(out, sep="\t", keep_default_na=False), json.loads(rep.read_text())


def leakage(paths, split_path, report, capsys, *options) -> tuple[dict, str]:
    code, out, err = run(["leakage", *inputs(paths), "--split", split_path, "--report", report, *options], capsys)
    assert code == 0, err
    return json.loads(report.read_text()), out


def entity_folds_by_hand(entity_of_row, fold_of_row, n):
    """Entity -> fold from the rows with a fold (>= 0); entities whose rows disagree -> 'several'."""
    seen: dict[int, set] = {}
    for e, f in zip(entity_of_row, fold_of_row, strict=True):
        if f is not None and f != -1:
            seen.setdefault(int(e[1:]), set()).add(f)
    return [None if i not in seen else ("several" if len(seen[i]) > 1 else next(iter(seen[i]))) for i in range(n)]


def scaled_by_hand(sim, folds, weights=None):
    """Eq. 20 over ordered pairs: cross-fold similarity mass / all similarity mass (diagonal included)."""
    idx = [i for i, f in enumerate(folds) if f not in (None, "several")]
    w = np.ones(len(folds)) if weights is None else np.asarray(weights, dtype=float)
    cross = sum(w[i] * w[j] * sim[i, j] for i in idx for j in idx if folds[i] != folds[j])
    total = sum(w[i] * w[j] * sim[i, j] for i in idx for j in idx)
    return cross / total


def nearest_by_hand(sim, folds, tests):
    """Each test entity's max similarity to the entities of the other folds, over the test folds."""
    idx = [i for i, f in enumerate(folds) if f not in (None, "several")]
    values = [max(sim[i, j] for j in idx if folds[j] != folds[i]) for i in idx if folds[i] in tests]
    return np.array(values)


def check_side(side: dict, sim, folds, names, weights, tests):
    sizes = {n: sum(f == n for f in folds) for n in names}
    assert side["fold_sizes"] == sizes and side["random_fold_sizes"] == sizes
    assert side["n_in_several_folds"] == sum(f == "several" for f in folds)
    assert side["scaled_leakage"] == pytest.approx(scaled_by_hand(sim, folds), rel=1e-6)
    assert side["scaled_leakage_pair_weighted"] == pytest.approx(scaled_by_hand(sim, folds, weights), rel=1e-6)
    assert 0 < side["random"]["scaled_leakage"] < 1
    values = nearest_by_hand(sim, folds, tests)
    ours = side["nearest_neighbour"]["split"]["all"]
    assert ours["n_test"] == values.size and ours["median"] == pytest.approx(np.median(values), abs=1e-6)
    assert ours["share_above"] == pytest.approx({"0.5": (values > 0.5).mean(), "0.7": (values > 0.7).mean()})
    assert side["nearest_neighbour"]["random"]["all"]["n_test"] == values.size


def test_kfold_cold_both_split_equals_numpy(pair_files, tmp_path, capsys):
    inter, sims, paths = pair_files
    table, split_rep = split(paths, tmp_path, capsys, "--folds", "3")
    assert (table["split"] == "unassigned").sum() > 0  # pairs across folds: tested in no fold
    rep, out = leakage(paths, tmp_path / "split.tsv", tmp_path / "leak.json", capsys)
    assert rep["n_unassigned"] == int((table["split"] == "unassigned").sum()) == rep["n_unassigned_with_entity_folds"]
    assert rep["unassigned_reasons"] == {"entities_in_different_folds": rep["n_unassigned"]}
    names = [f"fold{i}" for i in range(3)]
    for sd, col, ent_col, n in (("a", "fold_a", "drug", N_A), ("b", "fold_b", "target", N_B)):
        folds = entity_folds_by_hand(inter[ent_col], [f"fold{f}" for f in table[col]], n)
        weights = np.bincount([int(e[1:]) for e in inter[ent_col]], minlength=n)
        check_side(rep["sides"][sd], sims[sd], folds, names, weights, names)
        # weighted by the pairs of each entity, as the split's own ILP objective: the split's report value
        assert rep["sides"][sd]["scaled_leakage_pair_weighted"] == pytest.approx(
            split_rep[f"side_{sd}"]["scaled_leakage"], rel=1e-6)
        assert rep["sides"][sd]["fold_source"] == col and rep["sides"][sd]["similarity"]["kind"] == "matrix"
    assert rep["fold_usage"] == split_rep["fold_usage"] and rep["pair_scheme"] == "cold_both"
    for f in range(3):
        n_test = int(((table["fold_a"] == f) & (table["fold_b"] == f)).sum())
        assert rep["fold_usage"]["folds"][f"fold{f}"]["test"] == n_test
    assert f"scaled L(pi) (eq. 20) {rep['sides']['a']['scaled_leakage']:.4f} vs" in out
    assert "fold usage (cold both sides" in out and "above 0.7:" in out
    # rows missing from the split file are left out and counted; another seed changes only the random split
    table.iloc[2:].to_csv(tmp_path / "part.tsv", sep="\t", index=False)
    part, _ = leakage(paths, tmp_path / "part.tsv", tmp_path / "part.json", capsys, "--seed", "5")
    assert part["n_not_in_split"] == 2 and part["n_in_split"] == len(table) - 2
    kept = inter.iloc[2:]
    folds = entity_folds_by_hand(kept["drug"], [f"fold{f}" for f in table["fold_a"].iloc[2:]], N_A)
    weights = np.bincount([int(e[1:]) for e in kept["drug"]], minlength=N_A)
    check_side(part["sides"]["a"], sims["a"], folds, names, weights, names)


def test_named_fraction_split_uses_the_pair_labels(pair_files, tmp_path, capsys):
    inter, sims, paths = pair_files
    table, _ = split(paths, tmp_path, capsys, "--splits", "0.8", "0.2", "--names", "train", "test")
    assert list(table.columns) == ["id", "split", "reason"]  # same_fold: no entity-fold columns
    rep, out = leakage(paths, tmp_path / "split.tsv", tmp_path / "leak.json", capsys, "--test", "test")
    dropped = int((table["split"] == "unassigned").sum())
    assert rep["n_unassigned"] == dropped and "n_unassigned_with_entity_folds" not in rep and "fold_usage" not in rep
    assert f"; {dropped} unassigned rows are left out" in out
    labels = [None if s == "unassigned" else s for s in table["split"]]
    for sd, ent_col, n in (("a", "drug", N_A), ("b", "target", N_B)):
        folds = entity_folds_by_hand(inter[ent_col], labels, n)
        assert "several" not in folds  # same_fold keeps a pair only when both entities share its fold
        used = [int(e[1:]) for e, lab in zip(inter[ent_col], labels, strict=True) if lab]
        check_side(rep["sides"][sd], sims[sd], folds, ["train", "test"], np.bincount(used, minlength=n), ["test"])
        assert rep["sides"][sd]["fold_source"] == "split"
        assert list(rep["sides"][sd]["nearest_neighbour"]["split"]["folds"]) == ["test"]
    # a drug whose pairs are in both folds is leakage by identity: counted, left out of the similarity figures
    kept = inter["drug"][table["split"] != "unassigned"]
    drug = kept.value_counts().index[0]  # a drug with several kept pairs
    d = table.index[(inter["drug"] == drug) & (table["split"] != "unassigned")]
    assert len(d) > 1
    edited = table.copy()
    edited.loc[d[0], "split"] = "test" if edited.loc[d[0], "split"] == "train" else "train"
    edited.to_csv(tmp_path / "edited.tsv", sep="\t", index=False)
    rep, out = leakage(paths, tmp_path / "edited.tsv", tmp_path / "edited.json", capsys)
    side = rep["sides"]["a"]
    assert side["in_several_folds"] == [drug] and side["n_pairs_of_entities_in_several_folds"] == len(d)
    folds = entity_folds_by_hand(inter["drug"], [None if s == "unassigned" else s for s in edited["split"]], N_A)
    assert side["scaled_leakage"] == pytest.approx(scaled_by_hand(sims["a"], folds), rel=1e-6)
    assert "in several folds 1 (leakage by identity" in out


def test_console_counts_distinct_entities_per_side_and_fold(pair_files, tmp_path, capsys):
    """Without --test every fold is a test fold: one line per fold with its distinct entities (not its pairs,
    not the entities of all folds pooled), then the pooled line, each entity once."""
    inter, _, paths = pair_files
    table, _ = split(paths, tmp_path, capsys, "--splits", "0.8", "0.2", "--names", "train", "test")
    rep, out = leakage(paths, tmp_path / "split.tsv", tmp_path / "leak.json", capsys)
    for sd, ent_col in (("a", "drug"), ("b", "target")):
        distinct = {f: inter[ent_col][table["split"] == f].nunique() for f in ("test", "train")}
        pairs = {f: int((table["split"] == f).sum()) for f in ("test", "train")}
        assert distinct["test"] < pairs["test"] or sd == "b"  # the drugs' test pairs repeat drugs
        side = rep["sides"][sd]
        assert side["fold_sizes"] == distinct
        folds = side["nearest_neighbour"]["split"]["folds"]
        assert {f: folds[f]["n_test"] for f in folds} == distinct
        assert side["nearest_neighbour"]["split"]["all"]["n_test"] == sum(distinct.values())
        no_fold = inter[ent_col].nunique() - inter[ent_col][table["split"] != "unassigned"].nunique()
        assert side["n_without_fold"] == no_fold
        block = out.split(f"side {sd} (")[1]
        assert f"entities per fold (from split): test {distinct['test']}, train {distinct['train']}; " in block
        assert f"; with no pair in a fold {no_fold}\n" in block
        test_line = f"    fold test ({distinct['test']} entities) against train: median "
        train_line = f"    fold train ({distinct['train']} entities) against test: median "
        pooled = f"    all 2 folds ({sum(distinct.values())} entities, each once) against their training folds: "
        assert test_line in block and train_line in block and pooled in block
    assert f"pairs per split label: test {pairs['test']}, train {pairs['train']}" in out


def test_kfold_same_fold_scheme_counts_only_kept_pairs(pair_files, tmp_path, capsys):
    inter, sims, paths = pair_files
    table, split_rep = split(paths, tmp_path, capsys, "--folds", "3", "--pair-scheme", "same_fold")
    rep, _ = leakage(paths, tmp_path / "split.tsv", tmp_path / "leak.json", capsys, "--pair-scheme", "same_fold")
    assert rep["fold_usage"] == split_rep["fold_usage"] and "n_unassigned_with_entity_folds" not in rep
    kept = table["split"] != "unassigned"
    folds = entity_folds_by_hand(inter["drug"], [f"fold{f}" if k else None
                                                       for f, k in zip(table["fold_a"], kept, strict=True)], N_A)
    assert rep["sides"]["a"]["scaled_leakage"] == pytest.approx(scaled_by_hand(sims["a"], folds), rel=1e-6)


def test_smiles_and_sequences_record_each_sides_similarity(fixtures, tmp_path, capsys):
    common = ["--interactions", fixtures / "interactions.csv", "--inter-id-col", "pair",
              "--input", fixtures / "drugs.csv", "--id-col", "drug", "--smiles-col", "smiles",
              "--input-b", fixtures / "targets.tsv", "--id-col-b", "target", "--sequence-col-b", "sequence"]
    out = tmp_path / "k.tsv"
    code, _, err = run(["split", "--task", "S2", *common, "--folds", "2", "--clusters", "4", "--epsilon", "0.3",
                        "--certificate-seeds", "0", "--out", out], capsys)
    assert code == 0, err
    code, text, err = run(["leakage", *common, "--split", out, "--json", tmp_path / "l.json"], capsys)
    assert code == 0, err
    rep = json.loads((tmp_path / "l.json").read_text())
    assert rep["sides"]["a"]["similarity"] == {"kind": "fingerprint_tanimoto", "fingerprint": "ECFP (Morgan)",
                                               "radius": 2, "n_bits": 1024, "column": "smiles"}
    assert rep["sides"]["b"]["similarity"]["kind"] == "mmseqs_identity"  # the default for sequences
    assert "ECFP Tanimoto" in text and "MMseqs2 identity" in text
    code, _, err = run(["leakage", *common, "--split", out, "--json", tmp_path / "k.json",
                        "--sequence-similarity", "kmer", "--kmer", "2"], capsys)
    assert code == 0, err
    assert json.loads((tmp_path / "k.json").read_text())["sides"]["b"]["similarity"] == {
        "kind": "kmer_cosine", "k": 2, "column": "sequence"}


def edit_split(table: pd.DataFrame, edit: str | None) -> pd.DataFrame:
    table = table.copy()
    if edit == "unknown":
        table.loc[table.index[0], "id"] = "zz9"
    elif edit == "duplicate":
        table = pd.concat([table, table.iloc[[3]]])
    elif edit == "bad_fold":
        table["fold_a"] = table["fold_a"].astype(object)
        table.loc[table.index[4], "fold_a"] = "x"
    return table


@pytest.mark.parametrize("edit,swap,message", [
    ("unknown", {}, "split file {split}: 1 ids are not in the interaction table {pairs}: zz9 (check --inter-id-col"),
    ("duplicate", {}, "split file {split}: 1 ids listed more than once: x3"),
    ("bad_fold", {}, "split file {split}: column 'fold_a' must hold entity folds (integers, -1 = none); 1 rows do "
                     "not, first row 4: 'x'"),
    (None, {"--inter-a-col": "drug_id"}, "interactions {pairs}: column 'drug_id' (--inter-a-col) not in the table"),
    (None, {"--id-col-b": "name"}, "input (side b) {targets}: column 'name' (id column) not in the table"),
    (None, {"--split-col": "fold_c"}, "column 'fold_c' (--split-col) not in the split file {split}"),
    (None, {"--matrix-b": None}, "side b needs a similarity: give --smiles-col-b"),
    (None, {"--input-b": None, "--id-col-b": None, "--matrix-b": None},
     "2-D data needs the interaction table (--interactions) and an entity table per side"),
    (None, {"--sample": "100"}, "--sample: 1-D data only"),
    (None, {"--test": "holdout"}, "test fold 'holdout' is not among the folds of side a"),
])
def test_bad_input_clear_error_no_report(pair_files, tmp_path, capsys, edit, swap, message):
    _, _, paths = pair_files
    table, _ = split(paths, tmp_path, capsys, "--folds", "3")
    split_path = tmp_path / "edited.tsv"
    edit_split(table, edit).to_csv(split_path, sep="\t", index=False)
    argv = [*inputs(paths), "--split", split_path]
    for opt, value in swap.items():
        if opt in argv:
            i = argv.index(opt)
            argv[i:i + 2] = [] if value is None else [opt, value]
        else:
            argv += [opt, value]
    report = tmp_path / "leak.json"
    code, _, err = run(["leakage", *argv, "--report", report], capsys)
    assert code == 2
    assert message.format(split=split_path, pairs=paths["pairs.csv"], targets=paths["targets.csv"]) in err
    assert not report.exists()


# --------------------------------------------------------------------------- one long table of pairs (--pairs)
TABLE = ["--a-col", "smiles", "--b-col", "sequence", "--sequence-similarity", "kmer"]


def long_table(fixtures, path) -> pd.DataFrame:
    """The fixture's interactions as one long table (SMILES, sequence, value), as a user holds them."""
    inter = pd.read_csv(fixtures / "interactions.csv")
    drugs = pd.read_csv(fixtures / "drugs.csv").set_index("drug")["smiles"]
    targets = pd.read_csv(fixtures / "targets.tsv", sep="\t").set_index("target")["sequence"]
    df = pd.DataFrame({"smiles": inter["id_a"].map(drugs), "sequence": inter["id_b"].map(targets),
                       "value": inter["value"]})
    df.to_csv(path, index=False)
    return df


def three_tables(df: pd.DataFrame, tmp_path) -> list:
    """The same pairs as an interaction table and one entity table per side (ids = the values, entities in the
    order they first appear, as --pairs reads them): the options of the --interactions route."""
    paths = {name: tmp_path / name for name in ("inter.csv", "drugs.csv", "targets.csv")}
    df[["smiles", "sequence"]].to_csv(paths["inter.csv"], index=False)
    df[["smiles"]].drop_duplicates().to_csv(paths["drugs.csv"], index=False)
    df[["sequence"]].drop_duplicates().to_csv(paths["targets.csv"], index=False)
    return ["--interactions", paths["inter.csv"], "--inter-a-col", "smiles", "--inter-b-col", "sequence",
            "--input", paths["drugs.csv"], "--id-col", "smiles", "--smiles-col", "smiles",
            "--input-b", paths["targets.csv"], "--id-col-b", "sequence", "--sequence-col-b", "sequence",
            "--sequence-similarity", "kmer"]


def test_pairs_table_scores_the_split_of_split_pairs_as_the_three_tables(fixtures, tmp_path, capsys):
    df = long_table(fixtures, tmp_path / "p.csv")
    out = tmp_path / "s.tsv"
    code, _, err = run(["split", "--task", "S2", "--pairs", tmp_path / "p.csv", *TABLE, "--folds", "3",
                        "--clusters", "4", "--epsilon", "0.5", "--certificate-seeds", "0", "--out", out], capsys)
    assert code == 0, err
    table = pd.read_csv(out, sep="\t")
    assert table["id"].tolist() == list(range(len(df)))  # the row numbers of the pairs table
    code, text, err = run(["leakage", "--pairs", tmp_path / "p.csv", *TABLE, "--split", out,
                           "--json", tmp_path / "pairs.json"], capsys)
    assert code == 0, err
    rep = json.loads((tmp_path / "pairs.json").read_text())
    assert rep["interactions"] == str(tmp_path / "p.csv") and rep["n_rows"] == rep["n_in_split"] == len(df)
    for sd, col, fold_col in (("a", "smiles", "fold_a"), ("b", "sequence", "fold_b")):
        distinct = {f"fold{f}": df[col][table[fold_col] == f].nunique() for f in range(3)}
        assert rep["sides"][sd]["fold_sizes"] == distinct and sum(distinct.values()) == df[col].nunique()
        assert rep["sides"][sd]["fold_source"] == fold_col
        assert f"entities per fold (from {fold_col}): " + ", ".join(f"{f} {n}" for f, n in distinct.items()) in text
    # the same split through --interactions, --input and --input-b: the same figures on each side
    code, text3, err = run(["leakage", *three_tables(df, tmp_path), "--split", out, "--json", tmp_path / "three.json"],
                           capsys)
    assert code == 0, err
    three = json.loads((tmp_path / "three.json").read_text())
    for sd in ("a", "b"):
        ours, theirs = dict(rep["sides"][sd]), dict(three["sides"][sd])
        assert ours.pop("input") == str(tmp_path / "p.csv") and theirs.pop("input") != str(tmp_path / "p.csv")
        assert ours == theirs
    skip = ("interactions", "split", "sides")
    assert {k: v for k, v in rep.items() if k not in skip} == {k: v for k, v in three.items() if k not in skip}
    assert text.split("\n", 3)[:3] == text3.split("\n", 3)[:3]


def test_pairs_table_entity_counts_by_hand(tmp_path, capsys):
    """A tiny long table and a hand-written split: 9 train pairs of 2 drugs and 2 targets, 4 test pairs of 2 drugs
    and 1 target, 2 unassigned pairs (one of them the only pair of a fifth drug)."""
    m = ["CCO", "CCCO", "c1ccccc1O", "CC(=O)O", "CCN"]
    p = ["MKTAYIAKQRQISFVKSHFSRQ", "MKTAYIAKQRQISFVKSHFSRL", "GSHMLEDPVDAFQLGSTV"]
    rows = [(0, 0, "train"), (0, 1, "train"), (1, 0, "train"), (1, 1, "train"), (0, 0, "train"), (1, 1, "train"),
            (0, 1, "train"), (1, 0, "train"), (0, 0, "train"), (2, 2, "test"), (3, 2, "test"), (3, 2, "test"),
            (2, 2, "test"), (0, 2, "unassigned"), (4, 0, "unassigned")]
    pd.DataFrame({"ligand": [m[i] for i, _, _ in rows], "target": [p[j] for _, j, _ in rows]}).to_csv(
        tmp_path / "p.csv", index=False)
    pd.DataFrame({"id": range(len(rows)), "split": [s for _, _, s in rows]}).to_csv(tmp_path / "s.tsv", sep="\t",
                                                                                     index=False)
    code, out, err = run(["leakage", "--pairs", tmp_path / "p.csv", "--a-col", "ligand", "--b-col", "target",
                          "--b-kind", "sequence", "--sequence-similarity", "kmer", "--split", tmp_path / "s.tsv",
                          "--json", tmp_path / "l.json"], capsys)
    assert code == 0, err
    rep = json.loads((tmp_path / "l.json").read_text())
    assert rep["pair_fold_sizes"] == {"test": 4, "train": 9} and rep["n_unassigned"] == 2
    a, b = rep["sides"]["a"], rep["sides"]["b"]
    assert (a["n_entities"], a["fold_sizes"], a["n_without_fold"]) == (5, {"test": 2, "train": 2}, 1)
    assert (b["n_entities"], b["fold_sizes"], b["n_without_fold"]) == (3, {"test": 1, "train": 2}, 0)
    assert "pairs per split label: test 4, train 9" in out
    side_a, side_b = out.split("side a (")[1].split("side b (")
    assert "entities per fold (from split): test 2, train 2; in several folds 0; with no pair in a fold 1" in side_a
    assert "entities per fold (from split): test 1, train 2; in several folds 0; with no pair in a fold 0" in side_b
    assert "fold test (2 entities) against train" in side_a and "fold train (2 entities) against test" in side_a
    assert "all 2 folds (4 entities, each once)" in side_a
    assert "fold test (1 entity) against train" in side_b and "all 2 folds (3 entities, each once)" in side_b


@pytest.mark.parametrize("extra,message", [
    (["--input", "x.csv"], "--pairs is one table of pairs; do not combine it with --input"),
    (["--interactions", "x.csv"], "--pairs is one table of pairs; do not combine it with --interactions"),
    (["--smiles-col", "smiles", "--matrix-b", "b.npy"],
     "--pairs is one table of pairs; do not combine it with --smiles-col, --matrix-b"),
    (["--b-col", ""], "--pairs needs the columns of the two entities of a pair: --a-col and --b-col"),
    (["--sample", "100"], "--sample: 1-D data only"),
])
def test_pairs_table_option_errors(fixtures, tmp_path, capsys, extra, message):
    long_table(fixtures, tmp_path / "p.csv")
    pd.DataFrame({"id": range(50), "split": ["train", "test"] * 25}).to_csv(tmp_path / "s.tsv", sep="\t", index=False)
    code, _, err = run(["leakage", "--pairs", tmp_path / "p.csv", *TABLE, "--split", tmp_path / "s.tsv",
                        "--json", tmp_path / "l.json", *extra], capsys)
    assert code == 2 and message in err and not (tmp_path / "l.json").exists()


@pytest.mark.parametrize("argv,message", [
    ([], "give the entity table (--input), or for 2-D data one long table of pairs (--pairs)"),
    (["--input", "x.csv"], "--input needs a similarity: give --smiles-col, --sequence-col, --feature-cols or --matrix"),
])
def test_without_a_table_or_a_similarity(tmp_path, capsys, argv, message):
    code, _, err = run(["leakage", "--split", tmp_path / "s.tsv", *argv], capsys)
    assert code == 2 and message in err
