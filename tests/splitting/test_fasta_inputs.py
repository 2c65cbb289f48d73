"""Protein sequences in (issue 44, item 5): FASTA files, the IUPAC checks of every sequence, duplicate pair rows.

FASTA files are read by ``read_fasta`` (and ``read_table``, ``benchdesign split``/``leakage --input``) with errors
naming the file and line or record; sequences from FASTA files and table columns are checked against the IUPAC
protein alphabet (``--clean-sequences`` removes digits, whitespace and gaps; lower case is noted); rows of 2-D data
repeating an (a, b) pair are counted and kept, merged or refused (``--duplicate-pairs``).
"""

from __future__ import annotations

import bz2
import gzip
import json

import numpy as np
import pandas as pd
import pytest

from benchdesign.cli import main
from benchdesign.splitting import entities_from_table, read_fasta, read_table
from benchdesign.splitting.pipeline import duplicate_pairs
from benchdesign.splitting.sequences import check_sequences, is_fasta

FAMILIES = [
    "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEK",
    "GSHMLEDPVDAFQLGSTVKWYPEGNRAHLTVGCKLPQWEEDTRSNALKVLRE",
    "WWPLAHRTYQDEFGKNMCVSLIPQREATDGHWKLMNPQRSTVWYACDEFGHI",
    "PEPTIDEQWERTYIPASDFGHKLCVNMWQERTYIPASDFGHKLCVNMAAAGG",
]


def family_sequences(n: int = 20, seed: int = 0) -> list[str]:
    """``n`` sequences, each a family's with 4 point mutations (similar within a family, not across)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        seq = list(FAMILIES[i % len(FAMILIES)])
        for pos in rng.choice(len(seq), 4, replace=False):
            seq[pos] = "ACDEFGHIKLMNPQRSTVWY"[rng.integers(20)]
        out.append("".join(seq))
    return out


def write_fasta(path, sequences, ids=None, width: int = 20, newline: str = "\n") -> None:
    """A FASTA file with descriptions, sequences wrapped at ``width`` residues."""
    ids = ids or [f"P{i}" for i in range(len(sequences))]
    lines = []
    for i, (name, seq) in enumerate(zip(ids, sequences, strict=True)):
        lines.append(f">{name} protein {i} of family {i % len(FAMILIES)}")
        lines += [seq[j:j + width] for j in range(0, len(seq), width)]
    text = newline.join(lines) + newline
    if str(path).endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_bytes(text.encode())


def run(argv, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def refused(argv, capsys, tmp_path, *fragments) -> str:
    """Exit code 2, one error line naming ``fragments``, no traceback, nothing written to ``tmp_path``."""
    before = sorted(p.name for p in tmp_path.iterdir())
    code, _, err = run(argv, capsys)
    assert code == 2, err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    return lines[0]


# ------------------------------------------------------------------------------------------ reading FASTA

def test_multi_line_records_with_descriptions_and_blank_lines(tmp_path):
    path = tmp_path / "small.fasta"
    path.write_text(">sp|P1|KIN1 kinase one  OS=Homo sapiens\nMKTAYIAK\n  QRQISF  \n\n>P2\nGAVLIKEW\n\n>P3 x\nAC\nDE\nFG\n")
    df = read_fasta(path)
    assert df.columns.tolist() == ["id", "description", "sequence"]
    assert df["id"].tolist() == ["sp|P1|KIN1", "P2", "P3"]
    assert df["description"].tolist() == ["sp|P1|KIN1 kinase one  OS=Homo sapiens", "P2", "P3 x"]
    assert df["sequence"].tolist() == ["MKTAYIAKQRQISF", "GAVLIKEW", "ACDEFG"]
    assert df.attrs["format"] == "fasta" and df.attrs["header_lines"] == [1, 5, 8]


@pytest.mark.parametrize("name", ["s.fasta", "s.fa", "s.faa", "s.fas", "s.fasta.gz", "s.FA.GZ", "s.fa.bz2",
                                  "proteins.txt"])
def test_suffixes_compression_and_crlf_read_the_same(name, tmp_path):
    sequences = family_sequences(6)
    write_fasta(tmp_path / "plain.fasta", sequences)
    path = tmp_path / name
    text = (tmp_path / "plain.fasta").read_bytes().replace(b"\n", b"\r\n")  # Windows line ends
    path.write_bytes(gzip.compress(text) if name.lower().endswith(".gz") else bz2.compress(text)
                     if name.endswith(".bz2") else text)
    assert is_fasta(path)
    expected = read_fasta(tmp_path / "plain.fasta")
    for df in (read_fasta(path), read_table(path)):  # read_table reads FASTA by name or by its first '>'
        pd.testing.assert_frame_equal(df, expected)
    assert df["sequence"].tolist() == sequences


def test_a_table_is_not_fasta(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("id,sequence\nP1,MKV\n")
    assert not is_fasta(table) and not is_fasta(tmp_path / "missing.csv")
    assert read_table(table).columns.tolist() == ["id", "sequence"]


@pytest.mark.parametrize("text,fragments", [
    ("\n\n  \n", ["no records", "'>'"]),
    ("id,sequence\n>P1\nMKV\n", ["line 1", "text before the first header", "'id,sequence'"]),
    (">P1\nMKV\n>\nAAA\n", ["line 3", "a header with an empty id"]),
    (">P1\nMKV\n>P2 a\nAAA\n>P1 again\nGGG\n>P2\nWW\n", ["2 ids name several records", "'P1' (lines 1, 5)",
                                                        "'P2' (lines 3, 7)"]),
    (">P1\nMKV\n>P2 nothing here\n\n>P3\nAAA\n", ["1 record has no sequence", "'P2' (line 3)"]),
])
def test_fasta_errors_name_the_file_and_line(text, fragments, tmp_path):
    path = tmp_path / "bad.fasta"
    path.write_text(text)
    with pytest.raises(ValueError) as err:
        read_fasta(path)
    for fragment in [str(path), *fragments]:
        assert fragment in str(err.value), (fragment, str(err.value))


def test_fasta_not_utf8_and_zip_are_named(tmp_path):
    latin = tmp_path / "latin.fasta"
    latin.write_bytes(">P\xe9\nMKV\n".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8"):
        read_fasta(latin)
    packed = tmp_path / "s.fasta.zst"
    packed.write_bytes(b"\x28\xb5\x2f\xfd" + b"\0" * 10)
    with pytest.raises(ValueError, match=r"s\.fasta\.zst.*compressed as \.zst is not read"):
        read_fasta(packed)


# ------------------------------------------------------------------------------------------ sequence checks

def _entities(sequences, **options):
    df = pd.DataFrame({"name": [f"s{i}" for i in range(len(sequences))], "seq": sequences})
    return entities_from_table(df, id_col="name", sequence_col="seq", sequence_similarity="kmer", **options)


@pytest.mark.parametrize("bad,fragments", [
    ("MKTAYIAK1QRQ2", ["digits '1' '2'"]),
    (">P1 MKTAYIAKQR", ["'>'", "whitespace inside"]),
    ("MKTAY IAKQR", ["whitespace inside"]),
    ("MKTAYIAK--QR*", ["gap / stop characters '*' '-'", "give the unaligned sequences"]),
    ("MKTAYÄIAKQR#", ["outside the IUPAC protein alphabet '#' 'Ä'"]),
])
def test_invalid_sequences_name_row_id_and_characters(bad, fragments):
    sequences = family_sequences(4)
    sequences[2] = bad
    with pytest.raises(ValueError) as err:
        _entities(sequences)
    text = str(err.value)
    for fragment in ["1 rows with invalid protein sequences", "row 2 (id=s2)", "--clean-sequences", "--drop-invalid",
                     *fragments]:
        assert fragment in text, (fragment, text)
    ent = _entities(sequences, drop_invalid=True)
    assert ent.valid.tolist() == [True, True, False, True] and ent.invalid_reason == "invalid_sequence"


def test_many_invalid_rows_show_ten_and_count_the_rest():
    with pytest.raises(ValueError) as err:
        _entities([f"MKV{i}" for i in range(13)])
    assert "13 rows" in str(err.value) and "row 9 (id=s9)" in str(err.value) and "row 10 " not in str(err.value)
    assert "and 3 more" in str(err.value)


def test_lower_case_is_compared_as_upper_case_and_counted():
    sequences = family_sequences(6)
    mixed = [s.lower() if i in (1, 4) else s for i, s in enumerate(sequences)]
    upper, lower = _entities(sequences), _entities(mixed)
    assert lower.notes["sequences"]["n_lower_case"] == 2 and upper.notes["sequences"]["n_lower_case"] == 0
    np.testing.assert_allclose(lower.similarity.block(np.arange(6), np.arange(6)),
                               upper.similarity.block(np.arange(6), np.arange(6)))


def test_clean_removes_digits_whitespace_and_gaps_only():
    checked = check_sequences(["1 mktayiakqr 11 qisf", "MKT-AYI.AK*", "MKTAYIAK", "MK>TA", "12 --", None], clean=True)
    assert checked.sequences[:3] == ["MKTAYIAKQRQISF", "MKTAYIAK", "MKTAYIAK"]
    assert checked.valid.tolist() == [True, True, True, False, False, False]
    assert checked.problems[3].startswith("'>'") and checked.problems[4] == checked.problems[5] == "empty or missing"
    assert checked.n_cleaned == 3 and checked.n_lower_case == 1
    sequences = family_sequences(4)
    sequences[1] = "12 " + sequences[1][:20] + " -- " + sequences[1][20:] + "*"
    ent = _entities(sequences, clean_sequences=True)
    assert ent.valid.all() and ent.notes["sequences"] == {"n_sequences": 4, "n_lower_case": 0, "n_cleaned": 1,
                                                          "clean_sequences": True}


def test_invalid_fasta_record_named_by_record(tmp_path, capsys):
    sequences = family_sequences(8)
    sequences[5] = sequences[5][:10] + "12" + sequences[5][10:]
    fasta = tmp_path / "s.fasta"
    write_fasta(fasta, sequences)
    argv = ["split", "--task", "S1", "--input", fasta, "--fractions", "0.5", "0.5", "--sequence-similarity", "kmer",
            "--out", tmp_path / "o.tsv"]
    refused(argv, capsys, tmp_path, "row 5 (id=P5)", "digits '1' '2'", "rows count the FASTA records from 0")
    code, out, err = run([*argv, "--clean-sequences", "--report", tmp_path / "r.json"], capsys)
    assert code == 0, err
    assert "note: --clean-sequences changed 1 sequence (removed digits" in out
    assert json.loads((tmp_path / "r.json").read_text())["sequences"]["n_cleaned"] == 1


# ------------------------------------------------------------------------------------------ the command line

def split_fasta(fasta, out, *extra) -> list:
    return ["split", "--task", "S1", "--input", fasta, "--fractions", "0.8", "0.2", "--names", "train", "test",
            "--out", out, "--sequence-similarity", "kmer", "--clusters", "4", *extra]


def test_split_then_leakage_of_a_fasta_file(tmp_path, capsys):
    fasta = tmp_path / "small.fasta"
    sequences = family_sequences(20)
    write_fasta(fasta, sequences)
    out = tmp_path / "split.tsv"
    code, text, err = run(split_fasta(fasta, out, "--report", tmp_path / "r.json"), capsys)
    assert code == 0, err
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    assert table["id"].tolist() == [f"P{i}" for i in range(20)]  # the FASTA ids (--id-col id by default)
    assert (table["split"].value_counts().to_dict()) == {"train": 16, "test": 4}
    assert "similarity: 3-mer cosine of sequence" in text and "note:" not in text
    # 4 families of 5 and a test fold of 4: one family is cut, the others stay whole
    fam = table["id"].str[1:].astype(int) % len(FAMILIES)
    assert (table.groupby(fam)["split"].nunique() == 1).sum() == 3
    code, text, err = run(["leakage", "--input", fasta, "--split", out, "--sequence-similarity", "kmer",
                           "--json", tmp_path / "l.json"], capsys)
    assert code == 0, err
    assert "20 of 20 valid entities assigned (train 16, test 4); not in split 0" in text
    report = json.loads((tmp_path / "l.json").read_text())
    assert report["n_assigned"] == 20 and report["scaled_leakage"] < 0.15  # a random 80/20 split: about 0.32
    assert report["sequences"]["n_lower_case"] == 0


def test_fasta_defaults_can_be_overridden_and_gzip_works(tmp_path, capsys):
    fasta = tmp_path / "small.fa.gz"
    write_fasta(fasta, family_sequences(12))
    out = tmp_path / "split.tsv"
    code, _, err = run(split_fasta(fasta, out, "--id-col", "description"), capsys)
    assert code == 0, err
    assert pd.read_csv(out, sep="\t")["id"].iloc[0] == "P0 protein 0 of family 0"
    refused(split_fasta(fasta, tmp_path / "o2.tsv", "--smiles-col", "smiles"), capsys, tmp_path,
            "column 'smiles' (SMILES column) not in the table", "['id', 'description', 'sequence']")


def test_lower_case_fasta_is_noted_once(tmp_path, capsys):
    fasta = tmp_path / "small.fasta"
    write_fasta(fasta, [s.lower() if i < 12 else s for i, s in enumerate(family_sequences(20))])
    code, out, err = run(split_fasta(fasta, tmp_path / "s.tsv", "--report", tmp_path / "r.json"), capsys)
    assert code == 0, err
    assert out.count("note: 12 sequences were lower case; compared as upper case") == 1
    assert "lower case" not in err
    assert json.loads((tmp_path / "r.json").read_text())["sequences"]["n_lower_case"] == 12


def test_invalid_sequences_in_a_table_cli(tmp_path, capsys):
    table = tmp_path / "t.tsv"
    sequences = family_sequences(12)
    sequences[3] = ">P3 " + sequences[3]
    sequences[7] = sequences[7][:5] + "7" + sequences[7][5:]
    pd.DataFrame({"name": [f"t{i}" for i in range(12)], "seq": sequences}).to_csv(table, sep="\t", index=False)
    argv = ["split", "--task", "S1", "--input", table, "--id-col", "name", "--sequence-col", "seq",
            "--sequence-similarity", "kmer", "--fractions", "0.5", "0.5", "--out", tmp_path / "o.tsv"]
    refused(argv, capsys, tmp_path, "2 rows with invalid protein sequences", "row 3 (id=t3)", "'>'", "row 7 (id=t7)",
            "digits '7'", "file line = row + 2")
    # --clean-sequences removes the digit and the space, not the '>': still refused
    refused([*argv, "--clean-sequences"], capsys, tmp_path, "1 rows with", "row 3 (id=t3)", "'>'")
    code, _, err = run([*argv, "--drop-invalid"], capsys)
    assert code == 0, err
    out = pd.read_csv(tmp_path / "o.tsv", sep="\t", keep_default_na=False)
    assert out.loc[[3, 7], "reason"].tolist() == ["invalid_sequence"] * 2
    assert (out.loc[[3, 7], "split"] == "unassigned").all() and (out.drop([3, 7])["split"] != "unassigned").all()


def test_help_says_what_a_fasta_input_defaults_to(capsys):
    for command in ("split", "leakage"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "FASTA file (.fasta/.fa/.faa/.fas" in text and "--sequence-col then defaults to sequence" in text
        assert "--clean-sequences" in text
    with pytest.raises(SystemExit):
        main(["split", "--help"])
    assert "--duplicate-pairs {keep,merge,refuse}" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------ duplicate pairs

LIGANDS = ["CCO", "CCN", "OCC(O)CO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "CCCCCCCC"]


def pair_table(tmp_path):
    """Every (ligand, target) pair once, then rows 30..32 repeating rows 4, 11 and 4 again."""
    rows = [(lig, seq) for lig in LIGANDS for seq in FAMILIES[:4] + ["MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAP"]]
    rows += [rows[4], rows[11], rows[4]]
    path = tmp_path / "pairs.csv"
    pd.DataFrame(rows, columns=["ligand", "target"]).to_csv(path, index=False)
    return path


def pair_args(path, out, *extra) -> list:
    return ["split", "--task", "S2", "--folds", "2", "--pairs", path, "--a-col", "ligand", "--b-col", "target",
            "--sequence-similarity", "kmer", "--out", out, "--clusters", "3", "--time-limit", "5", *extra]


def test_duplicate_pairs_found_by_entity():
    repeats, first = duplicate_pairs(np.array([0, 1, 0, 2, 0, 1]), np.array([5, 5, 5, 5, 6, 5]))
    assert repeats.tolist() == [False, False, True, False, False, True]
    assert first.tolist() == [0, 1, 0, 3, 4, 1]


def test_duplicate_pairs_kept_by_default_and_reported(tmp_path, capsys):
    path = pair_table(tmp_path)
    out, rep = tmp_path / "o.tsv", tmp_path / "r.json"
    code, text, err = run(pair_args(path, out, "--report", rep), capsys)
    assert code == 0, err
    assert "note: 3 rows repeat the (a, b) pair of an earlier row (row 30 = row 4, row 31 = row 11, row 32 = row 4; " \
           "2 distinct pairs): kept as rows of their own" in text
    record = json.loads(rep.read_text())["duplicate_pairs"]
    assert record["mode"] == "keep" and record["n_rows"] == 3 and record["n_pairs"] == 2
    assert record["rows"][0] == {"row": 30, "first_row": 4, "a": "CCO", "b": "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAP"}
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    assert len(table) == 33 and table.loc[30, "split"] == table.loc[4, "split"]
    assert "duplicate_pair" not in set(table["reason"])


def test_duplicate_pairs_merged_leave_one_row_per_pair(tmp_path, capsys):
    path = pair_table(tmp_path)
    out, rep = tmp_path / "o.tsv", tmp_path / "r.json"
    code, text, err = run(pair_args(path, out, "--report", rep, "--duplicate-pairs", "merge"), capsys)
    assert code == 0, err
    assert "unassigned with reason duplicate_pair (--duplicate-pairs merge)" in text
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    assert len(table) == 33 and table["id"].tolist() == list(range(33))
    dup = table.loc[[30, 31, 32]]
    assert (dup["split"] == "unassigned").all() and (dup["reason"] == "duplicate_pair").all()
    assert (dup[["fold", "fold_a", "fold_b"]] == -1).all().all()
    assert "duplicate_pair" not in set(table.loc[:29, "reason"])
    report = json.loads(rep.read_text())
    assert report["n_rows"] == 33 and report["duplicate_pairs"]["mode"] == "merge"
    assert sum(f["train"] + f["test"] + f["unused"] for f in report["fold_usage"]["folds"].values()) == 2 * 33


def test_duplicate_pairs_refused_before_any_similarity(tmp_path, capsys, monkeypatch):
    import benchdesign.splitting.pipeline as pipeline

    def no_similarity(*args, **kwargs):
        raise AssertionError("a similarity was computed before the duplicate pairs were refused")

    monkeypatch.setattr(pipeline, "_build_side", no_similarity)
    path = pair_table(tmp_path)
    refused(pair_args(path, tmp_path / "o.tsv", "--duplicate-pairs", "refuse"), capsys, tmp_path,
            f"interactions {path}", "3 rows repeat the (a, b) pair of an earlier row", "row 30 = row 4 ('CCO', ",
            "row 31 = row 11", "--duplicate-pairs keep", "merge")


def test_duplicate_pairs_option_checked_in_python(tmp_path):
    from benchdesign.splitting import EntityInput, SplitJob, run_split

    job = SplitJob(task="S2", entities=EntityInput(path=str(tmp_path / "a.csv")), out=str(tmp_path / "o.tsv"),
                   interactions=str(tmp_path / "i.csv"), entities_b=EntityInput(path=str(tmp_path / "b.csv")),
                   duplicate_pairs="drop")
    with pytest.raises(ValueError, match="duplicate_pairs .*keep, merge, refuse.*'drop'"):
        run_split(job)


def test_a_zst_table_without_zstandard_is_refused_with_what_to_do(tmp_path, monkeypatch, capsys):
    """pandas reads .zst through the optional zstandard package; without it the command names the file, the
    package and the command that unpacks it, instead of an ImportError traceback."""
    import builtins

    real_import = builtins.__import__

    def no_zstandard(name, *args, **kwargs):
        if name == "zstandard":
            raise ImportError("No module named 'zstandard'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_zstandard)
    monkeypatch.delitem(__import__("sys").modules, "zstandard", raising=False)
    packed = tmp_path / "mols.csv.zst"
    packed.write_bytes(b"\x28\xb5\x2f\xfd" + b"\0" * 10)
    with pytest.raises(ValueError, match=r"mols\.csv\.zst: .*pip install zstandard.*zstd -dc .*mols\.csv\.zst > "):
        read_table(packed)
    code = main(["split", "--task", "S1", "--input", str(packed), "--smiles-col", "smiles", "--fractions", "0.5",
                 "0.5", "--names", "a", "b", "--out", str(tmp_path / "s.tsv")])
    err = capsys.readouterr().err
    assert code == 2 and "pip install zstandard" in err and "Traceback" not in err
