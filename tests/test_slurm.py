"""Run the smallest config (.test/config/slurm.yaml) through SLURM with the workflow profile and compare it
with a local run. Skips when no SLURM controller answers; BENCHDESIGN_SLURM=1 (set by .ci/run) turns that
skip into a failure. `bash .ci/slurm_up.sh` brings up a one-node SLURM on a Debian machine (root)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from importlib.util import find_spec
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SLURM_CONFIG = REPO / ".test" / "config" / "slurm.yaml"
PROFILE = REPO / "workflow" / "profiles" / "slurm"
RULES = REPO / "workflow" / "rules"
SNAKEFILE = REPO / "workflow" / "Snakefile"
# Fast status polling for a CI node; a real cluster keeps the plugin's defaults.
CI_FLAGS = ["--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "1",
            "--seconds-between-status-checks", "2", "--slurm-no-account"]


def rule_blocks() -> dict[str, str]:
    blocks = {}
    for smk in sorted(RULES.glob("*.smk")):
        for m in re.finditer(r"^(?:rule|checkpoint) (\w+):\n((?:[ \t]+.*\n|\n)*)", smk.read_text(), re.M):
            blocks[m.group(1)] = m.group(2)
    return blocks


def submit_node_rules() -> set[str]:
    """Rules that run on the submit node: `localrule: True`, or nothing to execute (like `all`)."""
    return {"all"} | {
        name for name, body in rule_blocks().items()
        if re.search(r"^\s+localrule:\s*True", body, re.M) or not re.search(r"^\s+(script|shell|run):", body, re.M)
    }


def test_every_cluster_rule_declares_its_resources():
    """The profile sets no mem_mb/runtime: every rule that SLURM runs must declare them."""
    blocks = rule_blocks()
    local = submit_node_rules()
    assert {"fetch", "trials", "prepare_scores"} <= set(blocks) and "fetch" in local and "trials" not in local
    for name, body in blocks.items():
        if name in local:
            continue
        resources = re.search(r"^\s+resources:\n((?:\s{8,}.*\n)+)", body, re.M)
        assert resources, f"rule {name} declares no resources"
        for key in ("mem_mb", "runtime"):
            assert re.search(rf"^\s+{key}=\S", resources.group(1), re.M), f"rule {name} has no {key}"
    profile = (PROFILE / "config.yaml").read_text()
    assert "executor: slurm" in profile
    assert not re.search(r"^\s*(mem_mb|runtime|threads|mem)\s*:", profile, re.M), "resources belong in the rules"


def slurm_missing() -> str | None:
    """Why SLURM cannot be used here, or None."""
    if shutil.which("sinfo") is None or shutil.which("sbatch") is None:
        return "SLURM client commands (sinfo, sbatch) not found"
    try:
        ping = subprocess.run(["scontrol", "ping"], capture_output=True, text=True, timeout=20)
        nodes = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "no SLURM controller answered within 20 s"
    if ping.returncode != 0 or "UP" not in ping.stdout or nodes.returncode != 0:
        said = ((ping.stdout + ping.stderr).strip().splitlines() or ["no output"])[0]
        return f"no SLURM controller answers (scontrol ping: {said!r})"
    if not set(nodes.stdout.split()) & {"idle", "mix", "alloc"}:
        return f"no usable SLURM node (sinfo states: {nodes.stdout.split()})"
    if find_spec("snakemake_executor_plugin_slurm") is None:
        return 'snakemake-executor-plugin-slurm is not installed (pip install -e ".[slurm]")'
    return None


def skip_or_fail(reason: str):
    if os.environ.get("BENCHDESIGN_SLURM") == "1":
        pytest.fail(f"BENCHDESIGN_SLURM=1 but {reason}; run `bash .ci/slurm_up.sh` first", pytrace=False)
    pytest.skip(f"{reason}; `bash .ci/slurm_up.sh` starts a one-node SLURM (set BENCHDESIGN_SLURM=1 to require it)")


def snakemake_cmd(workdir: Path, mirror: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE), "--directory", str(workdir),
            "--configfile", str(SLURM_CONFIG), "--config", f"mirror={mirror}", *args]


@pytest.fixture(scope="module")
def runs(mirror_dir, tmp_path_factory):
    """(SLURM run dir, its output, local run dir, planned jobs): both runs at once (the SLURM one mostly
    waits); the planned jobs (rule, is_local, resources) come from a dry-run of the same config."""
    reason = slurm_missing()
    if reason:
        skip_or_fail(reason)
    # Compute nodes must see the working directory: BENCHDESIGN_SLURM_WORKDIR=DIR on a shared file system.
    shared = os.environ.get("BENCHDESIGN_SLURM_WORKDIR")
    if shared:
        slurm_dir = Path(tempfile.mkdtemp(prefix="slurm_run_", dir=shared))
    else:
        slurm_dir = tmp_path_factory.mktemp("slurm_run")
    local_dir = tmp_path_factory.mktemp("local_run")
    log = slurm_dir.parent / f"{slurm_dir.name}.log"
    with log.open("w") as fh:
        proc = subprocess.Popen(
            snakemake_cmd(slurm_dir, mirror_dir, "--workflow-profile", str(PROFILE), *CI_FLAGS),
            stdout=fh, stderr=subprocess.STDOUT, start_new_session=True,
        )
        try:
            local = subprocess.run(snakemake_cmd(local_dir, mirror_dir, "--cores", "2"), capture_output=True, text=True)
            proc.wait(timeout=900)
        finally:
            if proc.poll() is None:   # SIGINT: snakemake scancels its jobs
                os.killpg(proc.pid, signal.SIGINT)
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
    out = log.read_text()
    if proc.returncode != 0:
        slurm_logs = "".join(f"\n== {p}\n{p.read_text()[-2000:]}"
                             for p in slurm_dir.glob(".snakemake/slurm_logs/**/*.log"))
        raise AssertionError(f"SLURM run failed (rc {proc.returncode}):\n{out[-5000:]}{slurm_logs}")
    assert local.returncode == 0, f"local run failed:\n{local.stderr[-5000:]}"
    plan = subprocess.run(snakemake_cmd(local_dir, mirror_dir, "--cores", "2", "--dry-run", "--forceall"),
                          capture_output=True, text=True)
    assert plan.returncode == 0, plan.stderr[-5000:]
    return slurm_dir, out, local_dir, planned_jobs(plan.stdout + plan.stderr)


def planned_jobs(dry_run: str) -> list[tuple[str, bool, dict[str, str]]]:
    """(rule, runs on the submit node, resources) of every job listed by `snakemake --dry-run`."""
    local = submit_node_rules()
    jobs = []
    for m in re.finditer(r"^(local)?(?:rule|checkpoint) (\w+):\n((?:    .*\n)+)", dry_run, re.M):
        res = re.search(r"^    resources: (.*)$", m.group(3), re.M)
        threads = re.search(r"^    threads: (\d+)$", m.group(3), re.M)
        resources = dict(kv.split("=", 1) for kv in res.group(1).split(", ")) if res else {}
        resources["threads"] = threads.group(1) if threads else "1"
        jobs.append((m.group(2), m.group(2) in local, resources))
    return jobs


def submitted(out: str) -> dict[str, str]:
    """SLURM job id -> rule, from snakemake's 'submitted with SLURM jobid N (log: .../rule_<rule>/...)' lines."""
    pattern = r"submitted with SLURM jobid (\d+) \(log: \S*/rule_(\w+)/"
    return {m.group(1): m.group(2) for m in re.finditer(pattern, out)}


def job_record(job_id: str) -> dict[str, str]:
    """`scontrol show job` fields of a job (finished jobs stay visible for MinJobAge = 300 s)."""
    res = subprocess.run(["scontrol", "-o", "show", "job", job_id], capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, f"SLURM does not know job {job_id}: {res.stderr.strip()}"
    return dict(kv.split("=", 1) for kv in res.stdout.split() if "=" in kv)


def test_the_profile_was_used_and_every_cluster_job_went_through_slurm(runs):
    _, out, _, plan = runs
    assert "Using workflow specific profile" in out
    jobs = submitted(out)
    counts = Counter(jobs.values())
    expected = Counter(rule for rule, local, _ in plan if not local)
    assert counts == expected, out[-4000:]
    # .test/config/slurm.yaml: prepare_scores, representation, 2 trials, dataset_pool_tables, curve_figure,
    # the oracle's covering radius, its figure, the p_eff table, the conclusions and the paper comparison.
    assert counts == Counter({"trials": 2, "prepare_scores": 1, "representation": 1, "dataset_pool_tables": 1,
                              "curve_figure": 1, "coverage": 1, "coverage_figure": 1, "p_eff_table": 1,
                              "conclusions": 1, "paper_comparison": 1})
    assert {rule for rule, local, _ in plan if local} == {"fetch", "all"}
    assert set(re.findall(r"^localrule (\w+):", out, re.M)) == {"fetch", "all"}
    for job_id in jobs:
        rec = job_record(job_id)
        assert rec["JobState"] == "COMPLETED" and rec["ExitCode"] == "0:0", rec


def test_rule_resources_reach_sbatch(runs):
    """threads, mem_mb and runtime declared in workflow/rules/*.smk are what SLURM allocated."""
    _, out, _, plan = runs
    declared = {}
    for rule, local, res in plan:
        if not local:
            minutes = int(res["runtime"])
            value = (res["threads"], f"{res['mem_mb']}M", f"{minutes // 60:02d}:{minutes % 60:02d}:00")
            assert declared.setdefault(rule, value) == value, f"{rule}: resources differ between its jobs"
    for job_id, rule in submitted(out).items():
        rec = job_record(job_id)
        assert (rec["NumCPUs"], rec["MinMemoryNode"], rec["TimeLimit"]) == declared[rule], (rule, rec)


def test_slurm_run_equals_local_run(runs):
    slurm_dir, _, local_dir, _ = runs
    names = sorted(p.relative_to(local_dir) for d in ("results/tables", "results/trials")
                   for p in (local_dir / d).rglob("*") if p.suffix in (".csv", ".md"))
    assert len(names) >= 12
    assert names == sorted(p.relative_to(slurm_dir) for d in ("results/tables", "results/trials")
                           for p in (slurm_dir / d).rglob("*") if p.suffix in (".csv", ".md"))
    different = [str(p) for p in names if (slurm_dir / p).read_bytes() != (local_dir / p).read_bytes()]
    assert not different, f"SLURM and local outputs differ: {different}"
    assert (slurm_dir / "results/figures/curves_recsys_dataset_pool.png").stat().st_size > 1000
