"""Bad inputs get a clear error, never a silently wrong result (issue 13).

Every CLI case runs `benchdesign split` / `benchdesign leakage` in-process on files in a fresh folder and
asserts: exit code 2, a message naming the file / row / value, no output or temporary file left behind, and
every input byte-identical afterwards. Option errors are also checked to come before any SMILES is parsed.
The config, cached-input and log cases call the functions the Snakefile calls when it builds the DAG.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import re
import shutil
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import yaml

from benchdesign.cli import main

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "splitting" / "fixtures"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


# ------------------------------------------------------------------------------------------ harness

def snapshot(folder: Path) -> dict[str, tuple[str, bytes]]:
    """Every entry under ``folder``: its kind and, for regular files, its bytes."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        if p.is_symlink():
            out[rel] = ("link", os.readlink(p).encode())
        elif p.is_dir():
            out[rel] = ("dir", b"")
        elif p.is_file():
            out[rel] = ("file", p.read_bytes())
        else:
            out[rel] = ("other", b"")
    return out


def mols(tmp: Path, name: str = "mols.csv") -> Path:
    dest = tmp / name
    shutil.copy(FIXTURES / name if (FIXTURES / name).exists() else FIXTURES / "mols.csv", dest)
    return dest


def split_args(table: Path, out: Path, *extra) -> list:
    return ["split", "--task", "S1", "--input", table, "--smiles-col", "smiles", "--id-col", "mol_id",
            "--splits", "0.8", "0.2", "--names", "train", "test", "--clusters", "4", "--out", out, *extra]


def matrix_args(table: Path, matrix: Path, out: Path, *extra) -> list:
    return ["split", "--task", "S1", "--input", table, "--id-col", "name", "--matrix", matrix,
            "--splits", "0.5", "0.5", "--clusters", "2", "--out", out, *extra]


def entity_table(tmp: Path, n: int) -> Path:
    path = tmp / "ents.csv"
    pd.DataFrame({"name": [f"e{i}" for i in range(n)]}).to_csv(path, index=False)
    return path


def good_similarity(n: int = 6) -> np.ndarray:
    rng = np.random.default_rng(0)
    a = rng.random((n, n)) * 0.5
    s = (a + a.T) / 2
    np.fill_diagonal(s, 1.0)
    return s


def save_matrix(tmp: Path, m: np.ndarray, sparse: bool) -> Path:
    path = tmp / ("m.npz" if sparse else "m.npy")
    if sparse:
        sp.save_npz(path, sp.csr_matrix(m))
    else:
        np.save(path, m)
    return path


def leakage_args(table: Path, split: Path, *extra) -> list:
    return ["leakage", "--input", table, "--id-col", "mol_id", "--smiles-col", "smiles", "--split", split, *extra]


def split_file(tmp: Path, labels, name: str = "split.tsv") -> Path:
    ids = pd.read_csv(FIXTURES / "mols.csv")["mol_id"]
    path = tmp / name
    pd.DataFrame({"id": ids, "split": [labels[i % len(labels)] for i in range(len(ids))]}).to_csv(
        path, sep="\t", index=False)
    return path


# Each case: tmp folder -> (argv, fragments the error must contain). Paths in fragments are the files named.
def _empty(tmp):
    table = tmp / "empty.csv"
    table.write_bytes(b"")
    return split_args(table, tmp / "o.tsv"), [str(table), "empty"]


def _latin1(tmp):
    table = tmp / "latin.csv"
    table.write_bytes("mol_id,smiles\nm\xe9,CCO\nm2,CCCO\n".encode("latin-1"))
    return split_args(table, tmp / "o.tsv"), [str(table), "not UTF-8"]


def _fake_gz(tmp):
    table = tmp / "mols.csv.gz"
    shutil.copy(FIXTURES / "mols.csv", table)
    return split_args(table, tmp / "o.tsv"), [str(table), "gzip"]


def _empty_gz(tmp):
    table = tmp / "mols.csv.gz"
    table.write_bytes(gzip.compress(b""))
    return split_args(table, tmp / "o.tsv"), [str(table), "no columns"]


def _header_only(tmp):
    table = tmp / "head.csv"
    table.write_text("mol_id,smiles\n")
    return split_args(table, tmp / "o.tsv"), [str(table), "no rows"]


def _missing_input(tmp):
    return split_args(tmp / "nope.csv", tmp / "o.tsv"), [str(tmp / "nope.csv"), "not found"]


def _out_is_input(tmp):
    table = mols(tmp)
    return split_args(table, table), ["--out", str(table), "input --input"]


def _out_is_input_via_symlink(tmp):
    table = mols(tmp)
    (tmp / "alias.csv").symlink_to(table)
    return split_args(table, tmp / "alias.csv"), ["--out", "alias.csv", "input --input"]


def _report_is_out(tmp):
    table = mols(tmp)
    return split_args(table, tmp / "o.tsv", "--report", tmp / "o.tsv"), ["--report", "o.tsv", "output --out"]


def _out_is_directory(tmp):
    table = mols(tmp)
    (tmp / "outdir").mkdir()
    return split_args(table, tmp / "outdir"), ["--out", "outdir", "directory"]


def _out_is_fifo(tmp):
    table = mols(tmp)
    os.mkfifo(tmp / "pipe")
    return split_args(table, tmp / "pipe"), ["--out", "pipe", "not a regular file"]


def _report_is_matrix(tmp):
    table = entity_table(tmp, 6)
    matrix = save_matrix(tmp, good_similarity(), False)
    return matrix_args(table, matrix, tmp / "o.tsv", "--report", matrix), ["--report", "m.npy", "--matrix"]


def _unknown_smiles_col(tmp):
    table = mols(tmp)
    args = split_args(table, tmp / "o.tsv")
    args[args.index("smiles")] = "smi"
    return args, [str(table), "'smi'", "SMILES column"]


def _unknown_class_col(tmp):
    table = mols(tmp)
    return split_args(table, tmp / "o.tsv", "--class-col", "activity"), [str(table), "'activity'", "class column"]


def _unknown_id_col(tmp):
    table = mols(tmp)
    args = split_args(table, tmp / "o.tsv")
    args[args.index("mol_id")] = "molid"
    return args, [str(table), "'molid'", "id column"]


def _invalid_smiles(tmp):
    table = tmp / "bad_smiles.csv"
    frame = pd.read_csv(FIXTURES / "mols.csv")
    frame.loc[3, "smiles"] = "C1CC(("
    frame.to_csv(table, index=False)
    return split_args(table, tmp / "o.tsv"), ["row 3", "m03", "C1CC((", "--drop-invalid"]


def _duplicate_ids(tmp):
    table = tmp / "dup.csv"
    frame = pd.read_csv(FIXTURES / "mols.csv")
    frame.loc[5, "mol_id"] = "m00"
    frame.to_csv(table, index=False)
    return split_args(table, tmp / "o.tsv"), ["duplicate ids", "'mol_id'", "m00"]


def _cluster_count(tmp):
    table = mols(tmp)
    args = split_args(table, tmp / "o.tsv")
    args[args.index("--clusters") + 1] = "41"
    return args, ["K=41", "--clusters", "n=40"]


def _unknown_ids_both_sides(tmp):
    inter = tmp / "inter.csv"
    frame = pd.read_csv(FIXTURES / "interactions.csv")
    frame.loc[0, "id_a"], frame.loc[1, "id_b"] = "d99", "p99"
    frame.to_csv(inter, index=False)
    drugs, targets = shutil.copy(FIXTURES / "drugs.csv", tmp), shutil.copy(FIXTURES / "targets.tsv", tmp)
    args = ["split", "--task", "S2", "--interactions", inter, "--inter-id-col", "pair", "--input", drugs,
            "--id-col", "drug", "--smiles-col", "smiles", "--input-b", targets, "--id-col-b", "target",
            "--sequence-col-b", "sequence", "--splits", "0.7", "0.3", "--clusters", "3", "--out", tmp / "o.tsv"]
    return args, ["'id_a'", "d99", "'id_b'", "p99"]


def _matrix_shape(tmp):
    table = entity_table(tmp, 7)
    matrix = save_matrix(tmp, good_similarity(6), False)
    return matrix_args(table, matrix, tmp / "o.tsv"), ["shape (6, 6)", "7 rows"]


def _matrix_corrupt(tmp):
    table = entity_table(tmp, 6)
    matrix = tmp / "m.npy"
    matrix.write_bytes(b"not a numpy file")
    return matrix_args(table, matrix, tmp / "o.tsv"), [str(matrix), "cannot read"]


def _split_file_empty(tmp):
    table = mols(tmp)
    split = tmp / "split.tsv"
    split.write_bytes(b"")
    return leakage_args(table, split), [str(split), "empty"]


def _split_one_fold(tmp):
    table = mols(tmp)
    return leakage_args(table, split_file(tmp, ["train"])), ["1 fold", "at least two folds"]


def _split_unknown_fold(tmp):
    table = mols(tmp)
    split = split_file(tmp, ["train", "test", "Test"])
    # the older spelling --folds of --fold-names
    return leakage_args(table, split, "--folds", "train", "test"), ["'Test'", "not among", "row 2", "--fold-names"]


def _split_case_clash(tmp):
    table = mols(tmp)
    return leakage_args(table, split_file(tmp, ["train", "test", "Test"])), ["'Test'", "'test'", "--fold-names"]


def _split_missing_column(tmp):
    table = mols(tmp)
    split = split_file(tmp, ["train", "test"])
    return leakage_args(table, split, "--split-col", "fold"), ["'fold'", "--split-col"]


def _split_unknown_ids(tmp):
    table = mols(tmp)
    split = tmp / "split.tsv"
    pd.DataFrame({"id": ["m00", "zz9"], "split": ["train", "test"]}).to_csv(split, sep="\t", index=False)
    return leakage_args(table, split), ["zz9", "not in the entity table"]


def _json_is_split(tmp):
    table = mols(tmp)
    split = split_file(tmp, ["train", "test"])
    return leakage_args(table, split, "--json", split), ["--json", "split.tsv", "--split"]


def _leakage_latin1_split(tmp):
    table = mols(tmp)
    split = tmp / "split.tsv"
    split.write_bytes("id\tsplit\nm00\ttr\xe9in\n".encode("latin-1"))
    return leakage_args(table, split), [str(split), "not UTF-8"]


CASES = {
    "empty_input": _empty,
    "latin1_input": _latin1,
    "plain_file_named_gz": _fake_gz,
    "empty_gzip": _empty_gz,
    "header_only": _header_only,
    "missing_input": _missing_input,
    "out_is_input": _out_is_input,
    "out_is_input_via_symlink": _out_is_input_via_symlink,
    "report_is_out": _report_is_out,
    "out_is_directory": _out_is_directory,
    "out_is_fifo": _out_is_fifo,
    "report_is_matrix": _report_is_matrix,
    "unknown_smiles_column": _unknown_smiles_col,
    "unknown_class_column": _unknown_class_col,
    "unknown_id_column": _unknown_id_col,
    "invalid_smiles": _invalid_smiles,
    "duplicate_ids": _duplicate_ids,
    "more_clusters_than_rows": _cluster_count,
    "2d_unknown_ids_both_sides": _unknown_ids_both_sides,
    "matrix_wrong_shape": _matrix_shape,
    "matrix_corrupt_npy": _matrix_corrupt,
    "split_file_empty": _split_file_empty,
    "split_one_fold": _split_one_fold,
    "split_unknown_fold_name": _split_unknown_fold,
    "split_fold_names_differ_in_case": _split_case_clash,
    "split_missing_column": _split_missing_column,
    "split_unknown_ids": _split_unknown_ids,
    "json_is_split_file": _json_is_split,
    "split_file_latin1": _leakage_latin1_split,
}


def check_refused(tmp: Path, argv: list, fragments: list[str], capsys) -> str:
    before = snapshot(tmp)
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    assert "Traceback" not in err
    assert snapshot(tmp) == before, "an output or temporary file was left, or an input changed"
    return err


@pytest.mark.parametrize("name", list(CASES))
def test_bad_cli_input_is_refused_cleanly(name, tmp_path, capsys):
    argv, fragments = CASES[name](tmp_path)
    check_refused(tmp_path, argv, fragments, capsys)


# Matrices: the same rules dense or sparse, each error naming the position and value.
def _neg(s):
    s[1, 2] = s[2, 1] = -0.25
    return s, ["(1, 2) = -0.25", "[0, 1]"]


def _above_one(s):
    s[0, 3] = s[3, 0] = 1.5
    return s, ["(0, 3) = 1.5", "[0, 1]"]


def _distance_as_similarity(s):
    return 1 - s, ["row 0", "diagonal (0, 0) = 0;", "--matrix-kind distance"]


def _nan(s):
    s[2, 4] = s[4, 2] = np.nan
    return s, ["non-finite", "(2, 4) = nan"]


def _asymmetric(s):
    s[1, 4] = 0.9
    return s, ["not symmetric", "(1, 4) = 0.9"]


MATRIX_CASES = {"negative": _neg, "above_one": _above_one, "distance_as_similarity": _distance_as_similarity,
                "nan": _nan, "asymmetric": _asymmetric}


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("name", list(MATRIX_CASES))
def test_bad_matrix_is_refused_the_same_dense_or_sparse(name, sparse, tmp_path, capsys):
    matrix, fragments = MATRIX_CASES[name](good_similarity())
    table = entity_table(tmp_path, 6)
    path = save_matrix(tmp_path, matrix, sparse)
    check_refused(tmp_path, matrix_args(table, path, tmp_path / "o.tsv"), fragments, capsys)


def test_similarity_passed_as_distance_is_refused(tmp_path, capsys):
    table = entity_table(tmp_path, 6)
    path = save_matrix(tmp_path, good_similarity(), False)
    check_refused(tmp_path, matrix_args(table, path, tmp_path / "o.tsv", "--matrix-kind", "distance"),
                  ["smallest distance", "--matrix-kind similarity"], capsys)


# Option errors come before any SMILES is parsed (they used to wait for the fingerprints).
OPTION_CASES = {
    "fractions_do_not_sum_to_1": (["--splits", "0.7", "0.2"], ["sum to 1", "0.7"]),
    "names_and_fractions_differ": (["--names", "a", "b", "c"], ["2 split fractions but 3 names"]),
    "unknown_solver": (["--solver", "NOPE"], ["'NOPE'", "installed"]),
    "tiny_fingerprint": (["--fp-bits", "4"], ["--fp-bits", "4"]),
    "epsilon_out_of_range": (["--epsilon", "1.5"], ["epsilon", "1.5"]),
    "2d_task_without_interactions": (["--task", "S2"], ["S2", "--interactions"]),
}


@pytest.mark.parametrize("name", list(OPTION_CASES))
def test_bad_options_are_refused_before_parsing(name, tmp_path, capsys, monkeypatch):
    import benchdesign.splitting.inputs as inputs

    def no_parsing(*a, **k):
        raise AssertionError("SMILES were parsed before the options were checked")

    monkeypatch.setattr(inputs, "packed_fingerprints", no_parsing)
    extra, fragments = OPTION_CASES[name]
    argv = split_args(mols(tmp_path), tmp_path / "o.tsv")
    option = extra[0]
    if option in argv:  # drop the option's default values; the case's values are appended
        start = argv.index(option)
        end = next((j for j in range(start + 1, len(argv)) if str(argv[j]).startswith("--")), len(argv))
        del argv[start:end]
    check_refused(tmp_path, argv + extra, fragments, capsys)


# ------------------------------------------------------------------------- inputs that now succeed

def test_semicolon_csv_is_sniffed_and_sep_option(tmp_path, capsys):
    table = tmp_path / "mols.csv"
    pd.read_csv(FIXTURES / "mols.csv").to_csv(table, sep=";", index=False)
    for extra in ([], ["--sep", ";"]):
        out = tmp_path / f"o{len(extra)}.tsv"
        assert main([str(a) for a in split_args(table, out, *extra)]) == 0, capsys.readouterr().err
        assert pd.read_csv(out, sep="\t")["id"].tolist() == pd.read_csv(FIXTURES / "mols.csv")["mol_id"].tolist()


def test_out_through_symlink_writes_the_target(tmp_path, capsys):
    table = mols(tmp_path)
    target = tmp_path / "real.tsv"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    (tmp_path / "link.tsv").symlink_to(target)
    assert main([str(a) for a in split_args(table, tmp_path / "link.tsv")]) == 0, capsys.readouterr().err
    assert (tmp_path / "link.tsv").is_symlink() and target.read_text().startswith("id\tsplit")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640, "the replaced file's mode was not kept"
    assert not list(tmp_path.glob(".*part"))


def test_rows_without_class_are_reported(tmp_path, capsys):
    table = tmp_path / "mols.csv"
    frame = pd.read_csv(FIXTURES / "mols.csv")
    frame.loc[[2, 7], "active"] = np.nan
    frame.to_csv(table, index=False)
    report = tmp_path / "r.json"
    assert main([str(a) for a in split_args(table, tmp_path / "o.tsv", "--class-col", "active", "--delta", "0.5",
                                            "--report", report)]) == 0
    err = capsys.readouterr().out  # a note of the result
    assert "2 rows have no value in class column 'active'" in err and "[2, 7]" in err, err
    import json

    assert json.loads(report.read_text())["rows_without_class"] == {"input": {"active": {"n": 2, "rows": [2, 7]}}}


# ------------------------------------------------------------------------ config and cached inputs

def validate_config(config: dict) -> dict:
    from snakemake.utils import validate

    validate(config, str(SCHEMA))
    return config


CONFIG_CASES = {
    "misspelt_top_level_key": ({"protcol": {"n_trials": 5}}, "'protcol' was unexpected"),
    "misspelt_splitting_key": ({"splitting": {"name": "x", "input": "t.csv", "fractons": [0.5, 0.5]}},
                               "'fractons' was unexpected"),
    "splitting_without_input": ({"splitting": {"name": "x"}}, "'input' is a required property"),
    "one_model": ({"domains": {"tsc": {"models": ["HC2"]}}}, "is too short"),
    "unknown_task": ({"splitting": {"name": "x", "input": "t.csv", "task": "S3"}}, "'S3' is not one of"),
}


@pytest.mark.parametrize("name", list(CONFIG_CASES))
def test_config_schema_refuses(name):
    config, message = CONFIG_CASES[name]
    with pytest.raises(Exception, match=re.escape(message)):
        validate_config(yaml.safe_load(yaml.safe_dump(config)))


def test_splitting_block_gets_its_defaults():
    config = validate_config({"splitting": {"name": "x", "input": "t.csv"}})
    assert config["splitting"]["fractions"] == [0.8, 0.2] and config["splitting"]["task"] == "S1"


FACTS = {"datasets": [f"d{i}" for i in range(30)], "models": ["A", "B", "C", "D"]}
DATA_CASES = {
    "k_max_above_pool": ({"protocol": {"k_max": 25}}, "config key protocol.k_max=25", "<= 24"),
    "domain_k_max_above_pool": ({"domains": {"recsys": {"protocol": {"k_max": 30}}}},
                                "config key domains.recsys.protocol.k_max=30", "<= 24"),
    "alpha_too_small_for_models": ({"protocol": {"alpha": 0.3, "k_max": 5}}, "config key protocol.alpha=0.3",
                                   "floor(0.3 x 4 models) = 1"),
    "unknown_model": ({"domains": {"recsys": {"models": ["A", "Z"]}}}, "config key domains.recsys.models",
                      "['Z']"),
}


@pytest.mark.parametrize("name", list(DATA_CASES))
def test_protocol_is_checked_against_the_data(name):
    from benchdesign.workflow.config import domain_protocol
    from benchdesign.workflow.preflight import check_protocol_against_data

    config, *fragments = DATA_CASES[name]
    config = validate_config({**config, "domains": {"recsys": {}, **config.get("domains", {})}})
    with pytest.raises(ValueError) as err:
        check_protocol_against_data(config, "recsys", domain_protocol(config, "recsys"), FACTS)
    for fragment in fragments:
        assert fragment in str(err.value), str(err.value)


def _entry(path: str, data: bytes):
    import hashlib

    from benchdesign.data.sources import SourceFile

    return SourceFile(source="s", path=path, sha256=hashlib.sha256(data).hexdigest(), url="https://x/y")


def test_changed_cached_input_is_refused_with_how_to_refetch(tmp_path):
    from benchdesign.workflow.io import cached_inputs
    from benchdesign.workflow.preflight import check_cached_files

    cache = tmp_path / "resources" / "data"
    (cache / "a").mkdir(parents=True)
    (cache / "a" / "x.csv").write_bytes(b"1,2\n")
    entries = [_entry("a/x.csv", b"1,2\n"), _entry("a/not_fetched.csv", b"")]
    check_cached_files(entries, cache)  # unchanged: fine (and recorded)
    os.chdir(tmp_path)
    assert cached_inputs(["resources/data/a/x.csv"]) == {"a/x.csv": "resources/data/a/x.csv"}
    (cache / "a" / "x.csv").write_bytes(b"1,3\n")  # edited after fetching
    with pytest.raises(ValueError, match=r"changed since the workflow checked it.*rm resources/data/a/x.csv"):
        cached_inputs(["resources/data/a/x.csv"])
    with pytest.raises(ValueError, match=rf"changed since they were fetched: {re.escape(str(cache))}/a/x.csv.*rm "):
        check_cached_files(entries, cache)


def test_failed_job_log_tail_reaches_the_console(tmp_path):
    from benchdesign.workflow.preflight import failed_job_logs

    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "job.log").write_text("starting\nValueError: column 'x' missing in t.csv\n")
    main_log = tmp_path / "snakemake.log"
    main_log.write_text("Error in rule trials:\n    jobid: 3\n    output: results/t.csv\n"
                        "    log: logs/job.log (check log file(s) for error details)\n")
    text = failed_job_logs(main_log, tmp_path)
    assert "rule trials failed" in text and "first error: ValueError: column 'x' missing in t.csv" in text


# ------------------------------------------------------------------------------- scripts and modes

def test_scripts_read_only_rule_inputs_params_outputs():
    """A script that reads snakemake.config gets no rerun when that value changes; only the values of
    UNTRACKED_CONFIG (where inputs come from, not what they are) may be read, through config.untracked."""
    from benchdesign.workflow.config import UNTRACKED_CONFIG

    allowed = re.compile(r'untracked\(snakemake\.config, "([\w.]+)"\)')
    scripts = sorted((REPO / "scripts").glob("*.py"))
    assert len(scripts) > 20
    for script in scripts:
        text = script.read_text()
        for key in allowed.findall(text):
            assert key in UNTRACKED_CONFIG, (script.name, key)
        rest = allowed.sub("", text)
        assert "snakemake.config" not in rest and ".config[" not in rest, script.name
        used = set(re.findall(r"snakemake\.(\w+)", rest))
        assert used <= {"input", "params", "output", "wildcards", "log", "threads", "rule"}, (script.name, used)


def test_written_files_get_the_umask_mode(tmp_path, capsys):
    from benchdesign.data.sources import fetch
    from benchdesign.files import write_atomic
    from benchdesign.workflow.io import write_csv

    old = os.umask(0o022)
    try:
        table = mols(tmp_path)
        out, report = tmp_path / "out" / "s.tsv", tmp_path / "out" / "r.json"
        assert main([str(a) for a in split_args(table, out, "--report", report)]) == 0
        split = split_file(tmp_path, ["train", "test"])
        assert main([str(a) for a in leakage_args(table, split, "--json", tmp_path / "out" / "l.json")]) == 0
        write_csv(pd.DataFrame({"a": [1]}), tmp_path / "out" / "t.csv")
        mirror = tmp_path / "mirror"
        (mirror / "d").mkdir(parents=True)
        (mirror / "d" / "f.csv").write_bytes(b"x\n")
        fetch(_entry("d/f.csv", b"x\n"), tmp_path / "out" / "cache" / "d" / "f.csv", mirror=mirror,
              allow_download=False)
        written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
        assert len(written) == 5
        modes = {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in written}
        assert set(modes.values()) == {"0o644"}, modes
        kept = tmp_path / "out" / "t.csv"
        os.chmod(kept, 0o600)
        write_atomic(kept, "b\n")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600, "replacing a file must keep its mode"
    finally:
        os.umask(old)
    capsys.readouterr()


# ------------------------------------------------------------- issue 36: no traceback, no silent wrong answer

def _duplicate_smiles_column(tmp):
    table = tmp / "dupcol.csv"
    frame = pd.read_csv(FIXTURES / "mols.csv")
    frame.insert(2, "smiles_2", frame["smiles"])
    table.write_text(frame.to_csv(index=False).replace("smiles_2", "smiles", 1))
    return split_args(table, tmp / "o.tsv"), [str(table), "2 columns are named 'smiles'", "columns 2, 3"]


def _gzip_named_csv(tmp):
    table = tmp / "mols.csv"
    table.write_bytes(gzip.compress((FIXTURES / "mols.csv").read_bytes()))
    return split_args(table, tmp / "o.tsv"), [str(table), "gzip-compressed", "mols.csv.gz"]


def _gapped_sequences(tmp):
    table = tmp / "targets.tsv"
    frame = pd.read_csv(FIXTURES / "targets.tsv", sep="\t")
    frame.loc[2, "sequence"] = "MKTAYIAK--QRQISF"
    frame.loc[4, "sequence"] += "*"
    frame.to_csv(table, sep="\t", index=False)
    args = ["split", "--task", "S1", "--input", table, "--id-col", "target", "--sequence-col", "sequence",
            "--sequence-similarity", "kmer", "--fractions", "0.5", "0.5", "--out", tmp / "o.tsv"]
    return args, ["2 rows", "gap / stop characters", "unaligned", "row 2 (id=p2)", "row 4 (id=p4)", "--drop-invalid"]


def _out_in_a_file(tmp):
    (tmp / "notes.txt").write_text("x\n")
    # the input does not exist: the output path is refused first, before any input is read
    return split_args(tmp / "nope.csv", tmp / "notes.txt" / "o.tsv"), ["--out", "notes.txt", "is a file, not a folder"]


def _stdout_twice(tmp):
    return split_args(mols(tmp), "-", "--report", "/dev/stdout"), ["--report /dev/stdout", "output --out"]


def _scaffold_fewer_groups_than_folds(tmp):
    table = tmp / "same.csv"
    pd.DataFrame({"mol_id": [f"m{i}" for i in range(10)], "smiles": ["c1ccccc1CCO"] * 6 + ["C1CCCCC1O"] * 4}).to_csv(
        table, index=False)
    args = ["split", "--task", "scaffold", "--input", table, "--id-col", "mol_id", "--smiles-col", "smiles",
            "--folds", "5", "--out", tmp / "o.tsv"]
    return args, ["task scaffold", "form 2 group(s)", "3 of 5 folds empty", "at most 2 folds"]


def _scaffold_identical_molecules(tmp):
    table = tmp / "same.csv"
    pd.DataFrame({"mol_id": [f"m{i}" for i in range(10)], "smiles": ["c1ccccc1CCO"] * 10}).to_csv(table, index=False)
    args = ["split", "--task", "scaffold", "--input", table, "--id-col", "mol_id", "--smiles-col", "smiles",
            "--folds", "5", "--out", tmp / "o.tsv"]
    return args, ["task scaffold", "form 1 group(s)", "4 of 5 folds empty (fold1, fold2, fold3, fold4)"]


def _pairs_with_an_empty_smiles(tmp):
    table = tmp / "pairs.csv"
    drugs = pd.read_csv(FIXTURES / "drugs.csv")["smiles"][:4]
    targets = pd.read_csv(FIXTURES / "targets.tsv", sep="\t")["sequence"][:3]
    frame = pd.DataFrame([(d, t) for d in drugs for t in targets], columns=["ligand", "target"])
    frame.loc[7, "ligand"] = ""
    frame.to_csv(table, index=False)
    args = ["split", "--task", "S2", "--folds", "2", "--pairs", table, "--a-col", "ligand", "--b-col", "target",
            "--out", tmp / "o.tsv"]
    return args, [str(table), "column 'ligand'", "rows [7]", "file line = row + 2"]


ISSUE_36_CASES = {
    "duplicate_column_name": _duplicate_smiles_column,
    "gzip_named_csv": _gzip_named_csv,
    "gap_characters_in_sequences": _gapped_sequences,
    "out_folder_is_a_file": _out_in_a_file,
    "two_outputs_to_stdout": _stdout_twice,
    "scaffold_fewer_groups_than_folds": _scaffold_fewer_groups_than_folds,
    "scaffold_identical_molecules": _scaffold_identical_molecules,
    "pairs_empty_smiles_row": _pairs_with_an_empty_smiles,
}


@pytest.mark.parametrize("name", list(ISSUE_36_CASES))
def test_issue_36_cli_input_is_refused_cleanly(name, tmp_path, capsys):
    argv, fragments = ISSUE_36_CASES[name](tmp_path)
    check_refused(tmp_path, argv, fragments, capsys)


# issue 44: FASTA files, protein sequences outside the IUPAC alphabet, duplicate pair rows
def _fasta(tmp, text, name="proteins.fasta"):
    path = tmp / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    args = ["split", "--task", "S1", "--input", path, "--sequence-similarity", "kmer", "--fractions", "0.5", "0.5",
            "--out", tmp / "o.tsv"]
    return path, args


def _fasta_text_before_header(tmp):
    path, args = _fasta(tmp, "MKTAYIAKQR\n>P1\nMKV\n")
    return args, [str(path), "line 1", "text before the first header"]


def _fasta_no_records(tmp):
    path, args = _fasta(tmp, "\n\n")
    return args, [str(path), "no records"]


def _fasta_empty_id(tmp):
    path, args = _fasta(tmp, ">P1\nMKV\n>   \nAAA\n")
    return args, [str(path), "line 3", "empty id"]


def _fasta_duplicate_ids(tmp):
    path, args = _fasta(tmp, ">P1 a\nMKV\n>P2\nAAA\n>P1 b\nGGG\n")
    return args, [str(path), "'P1' (lines 1, 5)"]


def _fasta_empty_sequence(tmp):
    path, args = _fasta(tmp, ">P1\nMKV\n>P2\n\n>P3\nGGG\n")
    return args, [str(path), "no sequence", "'P2' (line 3)"]


def _fasta_gzip_named_plain(tmp):
    path, args = _fasta(tmp, gzip.compress(b">P1\nMKV\n>P2\nAAA\n"))
    return args, [str(path), "gzip-compressed", "proteins.fasta.gz"]


def _sequence_digits_and_header(tmp):
    table = tmp / "targets.tsv"
    frame = pd.read_csv(FIXTURES / "targets.tsv", sep="\t")
    frame.loc[1, "sequence"] = ">p1 " + frame.loc[1, "sequence"]
    frame.loc[3, "sequence"] = frame.loc[3, "sequence"][:4] + "42" + frame.loc[3, "sequence"][4:]
    frame.to_csv(table, sep="\t", index=False)
    args = ["split", "--task", "S1", "--input", table, "--id-col", "target", "--sequence-col", "sequence",
            "--sequence-similarity", "kmer", "--fractions", "0.5", "0.5", "--out", tmp / "o.tsv"]
    return args, ["2 rows with invalid protein sequences", "row 1 (id=p1)", "'>'", "row 3 (id=p3)", "digits '2' '4'",
                  "--clean-sequences", "--drop-invalid"]


def _leakage_fasta_with_gaps(tmp):
    path, _ = _fasta(tmp, ">P1\nMKTAYIAKQR\n>P2\nMKT-AYIAKQR\n>P3\nGGGWWW\n")
    split = tmp / "split.tsv"
    pd.DataFrame({"id": ["P1", "P2", "P3"], "split": ["train", "test", "train"]}).to_csv(split, sep="\t", index=False)
    args = ["leakage", "--input", path, "--split", split, "--sequence-similarity", "kmer"]
    return args, ["row 1 (id=P2)", "invalid sequence", "(the split puts them in a fold)"]


def _pairs_repeated_refused(tmp):
    table = tmp / "pairs.csv"
    drugs = pd.read_csv(FIXTURES / "drugs.csv")["smiles"][:4]
    targets = pd.read_csv(FIXTURES / "targets.tsv", sep="\t")["sequence"][:3]
    frame = pd.DataFrame([(d, t) for d in drugs for t in targets], columns=["ligand", "target"])
    frame = pd.concat([frame, frame.iloc[[5]]], ignore_index=True)
    frame.to_csv(table, index=False)
    args = ["split", "--task", "S2", "--folds", "2", "--pairs", table, "--a-col", "ligand", "--b-col", "target",
            "--duplicate-pairs", "refuse", "--out", tmp / "o.tsv"]
    return args, [str(table), "1 rows repeat the (a, b) pair", "row 12 = row 5", "--duplicate-pairs keep"]


ISSUE_44_CASES = {
    "fasta_text_before_header": _fasta_text_before_header,
    "fasta_no_records": _fasta_no_records,
    "fasta_empty_id": _fasta_empty_id,
    "fasta_duplicate_ids": _fasta_duplicate_ids,
    "fasta_empty_sequence": _fasta_empty_sequence,
    "fasta_gzip_named_plain": _fasta_gzip_named_plain,
    "sequence_digits_and_header": _sequence_digits_and_header,
    "leakage_fasta_with_gaps": _leakage_fasta_with_gaps,
    "pairs_repeated_refused": _pairs_repeated_refused,
}


@pytest.mark.parametrize("name", list(ISSUE_44_CASES))
def test_issue_44_cli_input_is_refused_cleanly(name, tmp_path, capsys):
    argv, fragments = ISSUE_44_CASES[name](tmp_path)
    check_refused(tmp_path, argv, fragments, capsys)


@pytest.mark.parametrize("pack,fragments", [
    (bz2.compress, ["bzip2-compressed", "does not end in .bz2", "bunzip2 -c"]),
    (lzma.compress, ["xz-compressed", "does not end in .xz", "unxz -c"]),
])
def test_other_compressions_under_a_plain_name_are_named(pack, fragments, tmp_path, capsys):
    table = tmp_path / "mols.csv"
    table.write_bytes(pack((FIXTURES / "mols.csv").read_bytes()))
    check_refused(tmp_path, split_args(table, tmp_path / "o.tsv"), [str(table), *fragments], capsys)


@pytest.mark.parametrize("suffix,pack", [(".bz2", bz2.compress), (".xz", lzma.compress)])
def test_bz2_and_xz_tables_are_read_by_their_suffix(suffix, pack, tmp_path, capsys):
    plain, packed = tmp_path / "plain.csv", tmp_path / f"mols.csv{suffix}"
    shutil.copy(FIXTURES / "mols.csv", plain)
    packed.write_bytes(pack(plain.read_bytes()))
    assert main([str(a) for a in split_args(plain, tmp_path / "a.tsv")]) == 0
    assert main([str(a) for a in split_args(packed, tmp_path / "b.tsv")]) == 0
    capsys.readouterr()
    assert (tmp_path / "a.tsv").read_text() == (tmp_path / "b.tsv").read_text()


def test_unwritable_out_folder_is_refused_before_reading(tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != locked and real(path, mode, **kw))
    argv = split_args(tmp_path / "nope.csv", locked / "sub" / "o.tsv")  # the input is missing: not read yet
    check_refused(tmp_path, argv, ["--out", str(locked), "not writable"], capsys)


@pytest.mark.parametrize("out", ["-", "/dev/stdout"])
def test_out_to_stdout(out, tmp_path, capsys):
    before = snapshot(tmp_path)
    assert main([str(a) for a in split_args(mols(tmp_path), out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("id\tsplit\treason\n") and len(captured.out.splitlines()) == 41
    assert "Traceback" not in captured.err
    assert set(snapshot(tmp_path)) - set(before) == {"mols.csv"}, "nothing but the copied input"


def test_default_clusters_fit_a_small_file(tmp_path, capsys):
    table = tmp_path / "small.csv"
    pd.read_csv(FIXTURES / "mols.csv").head(12).to_csv(table, index=False)
    args = split_args(table, tmp_path / "o.tsv", "--report", tmp_path / "r.json")
    del args[args.index("--clusters"):args.index("--clusters") + 2]  # the default: min(50, n)
    assert main([str(a) for a in args]) == 0, capsys.readouterr().err
    import json

    assert json.loads((tmp_path / "r.json").read_text())["n_clusters"] == 12


def test_leakage_reduce_names_the_missing_shards(tmp_path, capsys):
    table = mols(tmp_path)
    split = split_file(tmp_path, ["train", "test"])
    shards = [tmp_path / f"s{i}.npz" for i in range(3)]
    for i, path in enumerate(shards):
        assert main([str(a) for a in leakage_args(table, split, "--shard", i, 3, "--shard-out", path)]) == 0
    capsys.readouterr()
    check_refused(tmp_path, ["leakage-reduce", shards[0], shards[2]], ["shard(s) 1 of 3 missing"], capsys)
    check_refused(tmp_path, ["leakage-reduce", *shards, tmp_path / "s3.npz"], [str(tmp_path / "s3.npz"), "not found"],
                  capsys)
    check_refused(tmp_path, ["leakage-reduce", *shards, table], [str(table), "cannot read it as a shard"], capsys)


def test_dense_square_similarity_is_a_matrix_and_a_distance_is_refused():
    from benchdesign.splitting import LeakageKFold

    s = good_similarity(12)
    cv = LeakageKFold(3, similarity=s, clusters=4, epsilon=0.5)
    assert len(list(cv.split(np.zeros((12, 1))))) == 3
    assert cv.kind_ == "precomputed" and cv.report_["similarity"]["kind"] == "matrix"
    with pytest.raises(ValueError, match=r"looks like a distance matrix.*1 - D / D\.max\(\)"):
        list(LeakageKFold(3, similarity=1 - s, clusters=4).split(np.zeros((12, 1))))
    features = np.random.default_rng(1).random((12, 12))  # 12 feature vectors of length 12: not a similarity
    with pytest.raises(ValueError, match="not symmetric.*kind='vectors'"):
        list(LeakageKFold(3, similarity=features, clusters=4).split(np.zeros((12, 1))))
    cv = LeakageKFold(3, similarity=features, kind="vectors", clusters=4, epsilon=0.5)
    assert len(list(cv.split(np.zeros((12, 1))))) == 3 and cv.kind_ == "vectors"


def test_gap_characters_are_refused_by_the_sequence_similarities():
    from benchdesign.splitting.alignment import alignment_similarity
    from benchdesign.splitting.similarity import KmerSimilarity

    for build in (KmerSimilarity.from_sequences, alignment_similarity):
        with pytest.raises(ValueError, match=r"sequence 1 holds the gap or stop character\(s\) '-' '\*'"):
            build(["MKTAYIAKQR", "MKT-AYIAK*"])


# selection commands: a small benchmark of 4 models
def _benchmark(tmp: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    scores, feats = tmp / "scores.csv", tmp / "meta.csv"
    rows = [(f"d{d}", f"m{m}", float(rng.normal())) for d in range(8) for m in range(4)]
    pd.DataFrame(rows, columns=["dataset", "model", "score"]).to_csv(scores, index=False)
    pd.DataFrame({"dataset": [f"d{d}" for d in range(8)], "f1": rng.normal(size=8), "f2": rng.normal(size=8)}).to_csv(
        feats, index=False)
    return scores, feats


def _evaluate(scores, feats, out, *extra) -> list:
    return ["evaluate", "--scores", scores, "--features", feats, "--higher-is-better", "--trials", "2",
            "--k", "2", "3", "--out", out, *extra]


def test_empty_scores_and_feature_files_are_named_as_empty(tmp_path, capsys):
    scores, feats = _benchmark(tmp_path)
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    cases = [
        (["select", "--features", empty, "-k", "2"], "feature file"),
        (["agreement", "--scores", empty, "--subset", feats, "--higher-is-better"], "scores file"),
        (_evaluate(empty, feats, tmp_path / "ev"), "scores file"),
        (_evaluate(scores, empty, tmp_path / "ev"), "feature file"),
    ]
    for argv, what in cases:
        check_refused(tmp_path, argv, [what, str(empty), "the file is empty"], capsys)


def test_duplicate_and_gzipped_feature_files_are_refused(tmp_path, capsys):
    _, feats = _benchmark(tmp_path)
    dup = tmp_path / "dup.csv"
    dup.write_text(feats.read_text().replace("f2", "f1", 1))
    check_refused(tmp_path, ["select", "--features", dup, "-k", "2"], [str(dup), "2 columns are named 'f1'"], capsys)
    packed = tmp_path / "packed.csv"
    packed.write_bytes(gzip.compress(feats.read_bytes()))
    check_refused(tmp_path, ["select", "--features", packed, "-k", "2"], [str(packed), "gzip-compressed"], capsys)


def test_evaluate_refuses_too_few_seen_models_and_zero_trials(tmp_path, capsys):
    scores, feats = _benchmark(tmp_path)
    out = tmp_path / "ev"
    check_refused(tmp_path, _evaluate(scores, feats, out, "--holdout-fraction", "0.9"),
                  ["--holdout-fraction", "holds out 3 of 4 models and leaves 1 seen", "at least 2 held out and 2 seen",
                   "at most 0.5"], capsys)
    argv = _evaluate(scores, feats, out)
    argv[argv.index("--trials") + 1] = "0"
    check_refused(tmp_path, argv, ["--trials", "got 0"], capsys)
    argv = _evaluate(scores, feats, out)
    argv[argv.index("--k") + 2] = "10"  # the README's quick start on a benchmark of 8 datasets
    check_refused(tmp_path, argv, ["k=10 is outside 1..6", "K_MAX of --k", "--pool-fraction"], capsys)


def test_evaluate_refuses_an_unwritable_out_folder(tmp_path, capsys, monkeypatch):
    scores, feats = _benchmark(tmp_path)
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != tmp_path and real(path, mode, **kw))
    check_refused(tmp_path, _evaluate(scores, feats, tmp_path / "ev"), ["--out", "not writable"], capsys)


@pytest.mark.parametrize("argv,message", [
    (["evaluate", "--jobs", "0"], "the number of processes (--jobs, n_jobs) must be an integer >= 1, got 0"),
    (["agreement", "--bootstrap", "-1"], "the bootstrap resamples (--bootstrap, n_boot) must be an integer >= 0, got -1"),
])
def test_selection_counts_are_checked_before_any_work(tmp_path, capsys, argv, message):
    examples = REPO / "src" / "benchdesign" / "examples"
    (tmp_path / "subset.txt").write_text("ArguAna\n")
    inputs = {"evaluate": ["--features", examples / "features.csv", "--out", tmp_path / "out"],
              "agreement": ["--subset", tmp_path / "subset.txt"]}[argv[0]]
    before = snapshot(tmp_path)
    code = main([str(a) for a in [argv[0], "--scores", examples / "scores.csv", "--higher-is-better", *inputs,
                                  *argv[1:]]])
    assert code == 2 and message in capsys.readouterr().err
    assert snapshot(tmp_path) == before
