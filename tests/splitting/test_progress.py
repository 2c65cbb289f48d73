"""Stage timings / progress lines (splitting/progress.py) and their wiring into `benchdesign split`."""

from __future__ import annotations

import io
import json
import logging

from benchdesign.cli import main
from benchdesign.splitting.progress import Progress, active, note, stage


@stage("decorated")
def work(x: int) -> int:
    note("halfway")
    return x + 1


def test_stages_nest_add_up_and_are_silent_without_an_active_progress():
    assert active() is None and work(1) == 2  # no progress: a no-op
    out = io.StringIO()
    log = logging.getLogger("test_progress")
    log.addHandler(logging.StreamHandler(out))
    log.setLevel(logging.INFO)
    prog = Progress(log, prefix="t")
    with prog.activate():
        assert active() is prog
        with stage("outer"):
            assert work(1) == 2 and work(2) == 3
    assert active() is None
    assert list(prog.seconds) == ["outer/decorated", "outer"]
    assert prog.seconds["outer"] >= prog.seconds["outer/decorated"] >= 0
    assert set(prog.cpu_seconds) == set(prog.seconds)
    text = out.getvalue()
    assert text.count("outer/decorated ...") == 2 and "outer/decorated: halfway" in text
    assert "outer done in" in text and text.startswith("[t ")


def test_split_reports_stage_times_on_stderr_and_in_the_json(tmp_path, fixtures, capsys):
    out, report = tmp_path / "s.tsv", tmp_path / "r.json"
    rc = main(["split", "--task", "S1", "--input", str(fixtures / "mols.csv"), "--id-col", "mol_id",
               "--smiles-col", "smiles", "--drop-invalid", "--splits", "0.8", "0.2", "--clusters", "4",
               "--out", str(out), "--report", str(report)])
    assert rc == 0
    err = capsys.readouterr().err
    rep = json.loads(report.read_text())
    stages = rep["stage_seconds"]
    for name in ("similarity", "similarity/fingerprints", "split", "split/leaders", "split/group_similarity",
                 "split/cluster_groups", "split/ilp", "split/refine", "write"):
        assert name in stages and f"{name} done in" in err, name
    assert set(rep["stage_cpu_seconds"]) == set(stages) and rep["total_seconds"] >= stages["split"]


def test_large_splits_report_a_sampled_leakage_with_intervals(tmp_path, fixtures, capsys, monkeypatch):
    import pandas as pd

    from benchdesign.splitting import pipeline
    from benchdesign.splitting.inputs import entities_from_table
    from benchdesign.splitting.leakage import leakage_summary

    monkeypatch.setattr(pipeline, "SAMPLED_REPORT_MIN", 10)  # the 40-molecule fixture counts as large
    out, report = tmp_path / "s.tsv", tmp_path / "r.json"
    assert main(["split", "--task", "S1", "--input", str(fixtures / "mols.csv"), "--id-col", "mol_id",
                 "--smiles-col", "smiles", "--splits", "0.8", "0.2", "--clusters", "4", "--out", str(out),
                 "--report", str(report)]) == 0
    assert "sampled scaled L(pi)" in capsys.readouterr().out
    smp = json.loads(report.read_text())["sampled_leakage"]
    ent = entities_from_table(pd.read_csv(fixtures / "mols.csv"), id_col="mol_id", smiles_col="smiles")
    exact = leakage_summary(ent.similarity, [pd.read_csv(out, sep="\t")["split"].to_numpy(dtype=object)])[0]
    lo, hi = smp["split"]["scaled_leakage_ci"]
    assert lo <= exact.scaled <= hi and smp["random"]["scaled_leakage"] > smp["split"]["scaled_leakage"]
