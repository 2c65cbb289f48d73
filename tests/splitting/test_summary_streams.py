"""The summary's one-pass nearest-neighbour view (leakage.nearest_other_fold), `--no-summary`,
`--scaffold-baseline`, and the stream convention of `split`: result on stdout, progress on stderr
through the `benchdesign` logger (`--quiet` silences it)."""

from __future__ import annotations

import json
import logging

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from benchdesign.cli import main
from benchdesign.splitting.leakage import max_train_similarity, nearest_other_fold
from benchdesign.splitting.pipeline import EntityInput, SplitJob, run_split
from benchdesign.splitting.tasks import SplitSpec


def brute_force(sim: np.ndarray, codes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Each row's max similarity to the assigned entities of the other folds, by loops (NaN: none)."""
    out = np.full(rows.size, np.nan)
    for k, i in enumerate(rows):
        if codes[i] < 0:
            continue
        others = [sim[i, j] for j in range(codes.size) if codes[j] >= 0 and codes[j] != codes[i]]
        out[k] = max(others) if others else np.nan
    return out


@pytest.fixture
def random_sim() -> np.ndarray:
    x = np.random.default_rng(3).random((53, 5))
    sim = x @ x.T
    sim /= sim.max()
    np.fill_diagonal(sim, 1.0)
    return sim


@pytest.mark.parametrize("block_size", [7, 16, 100])
def test_one_pass_equals_brute_force_for_every_split(random_sim, block_size):
    rng = np.random.default_rng(0)
    splits = [rng.integers(0, 3, 53), rng.integers(-1, 2, 53), np.r_[np.zeros(50, int), -np.ones(3, int)]]
    got = nearest_other_fold(random_sim, splits, block_size=block_size)
    rows = np.arange(53)  # every entity is assigned in the first split
    for values, codes in zip(got, splits, strict=True):
        np.testing.assert_allclose(values, brute_force(random_sim, codes, rows), rtol=1e-6)
    assert np.isnan(got[2]).all()  # one fold only: no neighbour in another fold


def test_sampled_rows_sparse_input_and_the_per_fold_function_agree(random_sim):
    codes = np.random.default_rng(1).integers(0, 2, 53)
    rows = np.array([40, 2, 17, 33])
    want = brute_force(random_sim, codes, rows)
    np.testing.assert_allclose(nearest_other_fold(random_sim, [codes], rows=rows, block_size=8)[0], want, rtol=1e-6)
    kept = np.where(random_sim > 0.5, random_sim, 0.0)
    np.testing.assert_allclose(nearest_other_fold(sp.csr_matrix(kept), [codes], rows=rows)[0],
                               np.nan_to_num(brute_force(kept, codes, rows), nan=0.0), rtol=1e-6)
    test = np.flatnonzero(codes == 1)
    np.testing.assert_allclose(nearest_other_fold(random_sim, [codes], rows=test)[0],
                               max_train_similarity(random_sim, codes, 1, 0), rtol=1e-6)
    with pytest.raises(ValueError, match="fold codes for 53 entities"):
        nearest_other_fold(random_sim, [codes[:-1]])


def split_cli(fixtures, out, *extra) -> list[str]:
    return ["split", "--task", "S1", "--input", str(fixtures / "mols.csv"), "--id-col", "mol_id", "--smiles-col",
            "smiles", "--drop-invalid", "--fractions", "0.8", "0.2", "--clusters", "4", "--out", str(out), *extra]


def test_result_on_stdout_progress_on_stderr_and_quiet(fixtures, tmp_path, capsys):
    out = tmp_path / "s.tsv"
    assert main(split_cli(fixtures, out)) == 0
    io = capsys.readouterr()
    assert "=> " in io.out and "summary:" in io.out and "done in" not in io.out
    assert "split done in" in io.err and "summary:" not in io.err
    assert main(split_cli(fixtures, out, "--quiet")) == 0
    io = capsys.readouterr()
    assert io.err == "" and "summary:" in io.out
    assert main(["--quiet", *split_cli(fixtures, out)]) == 0
    assert capsys.readouterr().err == ""
    assert main(split_cli(fixtures, "-")) == 0  # the TSV on stdout: the summary moves to stderr
    io = capsys.readouterr()
    assert io.out.startswith("id\tsplit") and "summary:" not in io.out and "summary:" in io.err


def test_no_summary_and_scaffold_baseline(fixtures, tmp_path, capsys):
    out, rep = tmp_path / "s.tsv", tmp_path / "r.json"
    assert main(split_cli(fixtures, out, "--no-summary", "--report", str(rep))) == 0
    text, report = capsys.readouterr().out, json.loads(rep.read_text())
    assert "summary" not in report and "summary" not in report["stage_seconds"]
    assert "vs random split" in text  # the certificate's line: still against random splits of the same sizes
    assert main(split_cli(fixtures, out, "--report", str(rep))) == 0
    plain = json.loads(rep.read_text())
    assert "scaffold" not in plain["summary"] and plain["summary"]["words"]["noun"] == "molecules"
    assert main(split_cli(fixtures, out, "--scaffold-baseline", "--report", str(rep))) == 0
    with_scaffold = json.loads(rep.read_text())["summary"]
    assert "Bemis-Murcko scaffold split" in capsys.readouterr().out
    assert with_scaffold["nearest_neighbour"] == plain["summary"]["nearest_neighbour"]  # the same pass
    assert set(with_scaffold["scaffold"]) == {"scaled_leakage", "fold_sizes", "nearest_neighbour"}


@pytest.mark.parametrize("extra, message", [
    (["--no-summary", "--scaffold-baseline"], "cannot be combined with --no-summary"),
])
def test_scaffold_baseline_refusals(fixtures, tmp_path, capsys, extra, message):
    assert main(split_cli(fixtures, tmp_path / "s.tsv", *extra)) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "s.tsv").exists()


def test_scaffold_baseline_needs_smiles(tmp_path, capsys):
    table = tmp_path / "f.csv"
    pd.DataFrame({"a": np.arange(30) % 7, "b": np.arange(30) % 5}).to_csv(table, index=False)
    args = ["split", "--task", "S1", "--input", str(table), "--feature-cols", "a", "b", "--fractions", "0.5", "0.5",
            "--clusters", "3", "--out", str(tmp_path / "s.tsv"), "--scaffold-baseline"]
    assert main(args) == 2 and "needs 1-D data with --smiles-col" in capsys.readouterr().err


def test_the_library_logs_progress_and_prints_nothing(fixtures, tmp_path, capsys, caplog):
    job = SplitJob(task="S1", entities=EntityInput(path=str(fixtures / "mols.csv"), id_col="mol_id",
                                                   smiles_col="smiles"),
                   out=str(tmp_path / "s.tsv"), spec=SplitSpec.from_options({"clusters": 4}), drop_invalid=True)
    logging.getLogger("benchdesign").handlers.clear()  # as in a fresh Python session (the CLI tests add one)
    logging.getLogger("benchdesign").propagate = True
    with caplog.at_level(logging.INFO, logger="benchdesign"):
        run_split(job)
    assert capsys.readouterr().err == ""
    assert any("summary/nearest_neighbour done in" in r.getMessage() for r in caplog.records)
    assert {r.name for r in caplog.records} == {"benchdesign.progress"}
