"""Partial reruns of the tiny workflow: a changed parameter reruns only what depends on it, and an
interrupted run (Ctrl-C, then a hard kill) completes on rerun with the tables of an uninterrupted run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from workflow_helpers import TINY, snakemake, snakemake_cmd

pytestmark = pytest.mark.workflow


def dry_run_jobs(output: str) -> list[tuple[str, dict[str, str], str]]:
    """(rule, wildcards, reason) of every job listed by `snakemake --dry-run`."""
    jobs = []
    for block in re.split(r"\n(?=(?:local)?(?:rule|checkpoint) \w+:)", output):
        head = re.match(r"(?:local)?(?:rule|checkpoint) (\w+):", block)
        if not head:
            continue
        wc = re.search(r"^\s+wildcards: (.*)$", block, re.M)
        reason = re.search(r"^\s+reason: (.*)$", block, re.M)
        wildcards = dict(kv.split("=", 1) for kv in wc.group(1).split(", ")) if wc else {}
        jobs.append((head.group(1), wildcards, reason.group(1) if reason else ""))
    return jobs


def test_changing_one_domain_parameter_reruns_only_its_jobs(tiny_run, mirror_dir):
    override = tiny_run.parent / "nlp_n_trials.yaml"   # outside the shared run directory
    override.write_text("domains:\n  nlp:\n    protocol:\n      n_trials: 4\n")
    result = snakemake(tiny_run, "--dry-run", "--config", f"mirror={mirror_dir}", configfiles=(TINY, override))
    out = result.stdout + result.stderr
    jobs = dry_run_jobs(out)
    counts = Counter(rule for rule, _, _ in jobs)
    # nlp trials: 3 variations x (random + 5 strategies x 2 representations); the table rules read every
    # domain; curve_figure redraws the 3 nlp figures only; nothing upstream of the trials and no
    # synthetic job reruns; the nlp covering radii (2 representations), their figures, the p_eff table
    # and the nlp conclusions rerun.
    assert counts == {"trials": 33, "dataset_pool_tables": 1, "model_pool_table": 1, "model_holdout_tables": 1,
                      "curve_figure": 3,
                      "coverage": 2, "coverage_figure": 2, "p_eff_table": 1, "conclusions": 1, "paper_comparison": 1,
                      "all": 1}, out[-5000:]
    for rule, wildcards, reason in jobs:
        if rule == "trials":
            assert reason.startswith("Params have changed") and "'n_trials': 4" in reason, reason
        assert not (set(wildcards.values()) & {"tsc", "recsys"}), (rule, wildcards)


def test_moving_the_mirror_reruns_nothing(tiny_run, mirror_dir, tmp_path):
    moved = tmp_path / "elsewhere"
    moved.symlink_to(mirror_dir, target_is_directory=True)
    result = snakemake(tiny_run, "--dry-run", "--config", f"mirror={moved}")
    assert "Nothing to be done" in result.stdout + result.stderr, (result.stdout + result.stderr)[-3000:]


def _trial_files(workdir: Path) -> list[Path]:
    return sorted((workdir / "results/trials").rglob("*.csv")) if (workdir / "results/trials").is_dir() else []


# One domain and one variation (11 trial files, 18 jobs): cheaper than the tiny config, enough to interrupt twice.
ONE_DOMAIN = """\
protocol:
  variations: [dataset_pool]
domains:
  tsc: {enabled: false}
  nlp: {enabled: false}
  recsys:
    representations: [interaction, oracle]
synthetic:
  enabled: false
"""


def _run_until(workdir: Path, configfiles, n_trials: int, sig: int, log: Path, *args: str) -> list[Path]:
    """Start snakemake in its own session, wait for n_trials trial files, then send sig to the whole
    process group (as Ctrl-C does / as a crashed node would); return the trial files present at that moment.
    SIGINT is reset to its default in the child: a test run started in the background (`cmd &` in a script)
    inherits SIGINT ignored, and snakemake would then never see the Ctrl-C."""
    with log.open("w") as fh:
        proc = subprocess.Popen(snakemake_cmd(workdir, *args, configfiles=configfiles), stdout=fh,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            deadline = time.monotonic() + 900
            while len(_trial_files(workdir)) < n_trials:
                if proc.poll() is not None:
                    raise AssertionError(f"snakemake ended (rc {proc.returncode}) before {n_trials} trial files "
                                         f"existed:\n{log.read_text()[-4000:]}")
                if time.monotonic() > deadline:
                    raise AssertionError(f"no {n_trials} trial files after 900 s:\n{log.read_text()[-4000:]}")
                time.sleep(0.1)
            present = _trial_files(workdir)
            os.killpg(proc.pid, sig)
            proc.wait(timeout=180)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    assert proc.returncode != 0, "an interrupted snakemake reported success"
    return present


# How `--dry-run --rerun-incomplete` gives the reason for redoing a job marked incomplete (Snakemake 9 says
# "Forced execution"; older versions name the incomplete files).
INCOMPLETE_REASON = re.compile(r"Forced execution|[Ii]ncomplete")


def _trial_path(workdir: Path, wildcards: dict[str, str]) -> Path:
    w = wildcards
    return workdir / "results/trials" / w["variation"] / w["domain"] / w["representation"] / f"{w['strategy']}.csv"


def _outputs(workdir: Path) -> list[Path]:
    return sorted(p.relative_to(workdir) for d in ("results/tables", "results/trials")
                  for p in (workdir / d).rglob("*") if p.suffix in (".csv", ".md"))


def test_interrupted_run_completes_on_rerun_with_identical_tables(tmp_path, mirror_dir):
    (tmp_path / "one_domain.yaml").write_text(ONE_DOMAIN)
    configs = (TINY, tmp_path / "one_domain.yaml")
    mirror = f"mirror={mirror_dir}"
    reference, work = tmp_path / "uninterrupted", tmp_path / "interrupted"
    reference.mkdir()
    work.mkdir()
    snakemake(reference, "--config", mirror, configfiles=configs)
    assert len(_trial_files(reference)) == 11
    # 1. Ctrl-C (SIGINT to the process group): snakemake stops its jobs, removes their partial outputs and
    #    its lock.
    first = _run_until(work, configs, 2, signal.SIGINT, tmp_path / "sigint.log", "--config", mirror)
    assert not (work / "results/tables/table1_auc.csv").exists()
    assert not list((work / ".snakemake/locks").glob("*")), "SIGINT left a lock behind"
    # 2. Carry on, then a hard kill (SIGKILL of snakemake and its jobs): the lock and incomplete markers stay.
    at_kill = _run_until(work, configs, len(first) + 4, signal.SIGKILL, tmp_path / "sigkill.log",
                         "--rerun-incomplete", "--config", mirror)
    assert len(at_kill) < 11
    mtimes = {p: p.stat().st_mtime_ns for p in at_kill}
    # 3. The documented recovery: unlock, then rerun with --rerun-incomplete to completion.
    snakemake(work, "--unlock", "--config", mirror, configfiles=configs)
    plan = snakemake(work, "--dry-run", "--rerun-incomplete", "--config", mirror, configfiles=configs)
    redo = {_trial_path(work, wc) for rule, wc, reason in dry_run_jobs(plan.stdout + plan.stderr)
            if rule == "trials" and INCOMPLETE_REASON.search(reason)}
    snakemake(work, "--rerun-incomplete", "--config", mirror, configfiles=configs)
    # Every trial file snakemake had recorded as finished was kept; only those still marked incomplete at the
    # kill (running, or written but not yet registered) were redone.
    kept = {p for p, m in mtimes.items() if p.exists() and p.stat().st_mtime_ns == m}
    assert set(at_kill) - redo <= kept, (sorted(set(at_kill) - redo - kept), sorted(redo))
    assert len(redo & set(at_kill)) < len(at_kill), "the kill left every finished file marked incomplete"
    expected = _outputs(reference)
    assert _outputs(work) == expected and len(expected) > 11
    different = [str(p) for p in expected if (work / p).read_bytes() != (reference / p).read_bytes()]
    assert not different, f"differ from the uninterrupted run: {different}"
    result = snakemake(work, "--dry-run", "--config", mirror, configfiles=configs)
    assert "Nothing to be done" in result.stdout + result.stderr


# One change per top-level config block, and the jobs it must rerun (rule -> count) on the finished tiny run:
# a value reruns exactly the jobs that use it, and nothing else. 84 trial files = tsc 3 variations x (random + 5 x 1
# representation) + recsys and nlp 3 x (random + 5 x 2); 4 synthetic jobs = 2 regimes x 2 strategies.
TABLES = {"dataset_pool_tables": 1, "model_pool_table": 1, "model_holdout_tables": 1, "paper_comparison": 1, "all": 1}
GUARANTEE = {"coverage": 5, "coverage_figure": 5, "p_eff_table": 1, "conclusions": 3}
RERUNS = {
    "mirror": ("mirror: /nonexistent/elsewhere\n", {}),
    "allow_download": ("allow_download: true\n", {}),
    # the covering radii (5 representations), their figures, the p_eff table and the conclusions (3 domains)
    # come from the trials' draws too
    "seed": ("seed: 8\n", {"trials": 84, "curve_figure": 9, "synthetic_trials": 4, "synthetic_table": 1,
                          **GUARANTEE, **TABLES}),
    # the shared n_trials: every domain's trials, not the synthetic jobs (which do not use it)
    "protocol": ("protocol:\n  n_trials: 4\n", {"trials": 84, "curve_figure": 9, **GUARANTEE, **TABLES}),
    "domains": ("domains:\n  tsc:\n    models: [HC2, ROCKET, 1NN-DTW, STC, TDE]\n",
                {"prepare_scores": 1, "representation": 1, "trials": 18, "curve_figure": 3, "coverage": 1,
                 "coverage_figure": 1, "p_eff_table": 1, "conclusions": 1, **TABLES}),
    # n_seeds and trials_per_seed reach the synthetic jobs through their params (they were read from the config)
    "synthetic": ("synthetic:\n  n_seeds: 4\n", {"synthetic_trials": 4, "synthetic_table": 1, "paper_comparison": 1, "all": 1}),
    "features": ("features:\n  nlp:\n    svd_components: 3\n", {}),  # no feature representation in the tiny run
    "molecules": ("molecules:\n  repeats: 2\n", {}),  # disabled in the tiny run
    "thresholds": ("thresholds:\n  mae: 1.0\n", {"dataset_pool_tables": 1, "model_holdout_tables": 1, "paper_comparison": 1,
                                                 "all": 1}),
}


@pytest.mark.parametrize("block", list(RERUNS))
def test_a_config_change_reruns_exactly_the_jobs_that_use_it(block, tiny_run, mirror_dir):
    text, expected = RERUNS[block]
    override = tiny_run.parent / f"rerun_{block}.yaml"   # outside the shared run directory
    override.write_text(text)
    args = ("--dry-run",) if block == "mirror" else ("--dry-run", "--config", f"mirror={mirror_dir}")
    result = snakemake(tiny_run, *args, configfiles=(TINY, override))
    out = result.stdout + result.stderr
    counts = dict(Counter(rule for rule, _, _ in dry_run_jobs(out)))
    assert counts == expected, out[-4000:]
    if not expected:
        assert "Nothing to be done" in out, out[-3000:]


def test_a_splitting_change_reruns_the_split(tmp_path):
    """The `splitting:` block: a changed option reruns the split; a resource setting does not."""
    from workflow_helpers import REPO

    block = {"name": "tiny", "input": str(REPO / "tests/splitting/fixtures/mols.csv"), "id_col": "mol_id",
             "smiles_col": "smiles", "clusters": 4, "threads": 1}
    base = tmp_path / "split.yaml"
    base.write_text(yaml.safe_dump({"splitting": block}))
    target = "results/splitting/tiny.tsv"
    snakemake(tmp_path, target, configfiles=(base,))
    for change, expected in (({"clusters": 5}, {"split_dataset": 1}), ({"mem_mb": 1000}, {})):
        changed = tmp_path / "changed.yaml"
        changed.write_text(yaml.safe_dump({"splitting": {**block, **change}}))
        out = snakemake(tmp_path, "--dry-run", target, configfiles=(base, changed))
        text = out.stdout + out.stderr
        assert dict(Counter(rule for rule, _, _ in dry_run_jobs(text))) == expected, (change, text[-3000:])

