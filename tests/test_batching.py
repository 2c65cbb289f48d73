"""Jobs of several work items (issue 23): TSC raw data and features by batches of datasets, one molecule job
fitting every model of a split. Results do not depend on the grouping, and a changed value reruns exactly the
jobs whose outputs depend on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml
from markers import needs_packages_of
from test_reruns import dry_run_jobs
from workflow_helpers import MOLECULES, REPO, SNAKEFILE, TINY, snakemake

from benchdesign.workflow.batches import available_batches, batch_members, dataset_batches


def test_batches_are_fixed_runs_of_the_configured_list():
    names = ["Adiac", "Beef", "Car", "Coffee", "ECG200"]
    batches = dataset_batches(names, 2)
    assert batches == {"Adiac-Beef": ["Adiac", "Beef"], "Car-Coffee": ["Car", "Coffee"], "ECG200": ["ECG200"]}
    assert dataset_batches(names, 1) == {name: [name] for name in names}  # the layout of one job per dataset
    assert dataset_batches(names, 9) == {"Adiac-ECG200": names}


def test_a_dataset_becoming_available_changes_only_its_batch():
    batches = dataset_batches(["Adiac", "Beef", "Car", "Coffee", "ECG200"], 2)
    before, after = ["Adiac", "Beef", "ECG200"], ["Adiac", "Beef", "Car", "ECG200"]
    assert available_batches(batches, before) == ["Adiac-Beef", "ECG200"]
    assert available_batches(batches, after) == ["Adiac-Beef", "Car-Coffee", "ECG200"]
    changed = [b for b in batches if batch_members(batches, b, before) != batch_members(batches, b, after)]
    assert changed == ["Car-Coffee"]
    assert batch_members(batches, "Car-Coffee", after) == ["Car"]


@pytest.mark.parametrize("names, size, message", [
    (["A", "B"], 0, "integer >= 1"),
    (["A", "B"], "2", "integer >= 1"),
    (["A", "B"], True, "integer >= 1"),
    (["A", "B-C"], 1, "letters and digits"),
    (["A", "B", "A"], 2, "listed twice"),
])
def test_bad_batches_are_refused(names, size, message):
    with pytest.raises(ValueError, match=message):
        dataset_batches(names, size)
    with pytest.raises(ValueError, match="no batch 'X'"):
        batch_members(dataset_batches(["A"], 1), "X", ["A"])


# ---- the TSC feature rules on sktime's bundled datasets (no mirror, wheels nor download)

TSC_DATASETS = ["ArrowHead", "GunPoint", "ItalyPowerDemand", "Rock"]  # Rock: in no offline source


def _tsc_workflow(path: Path, datasets_per_job: int) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "Snakefile").write_text(
        'configfile: "config.yaml"\n'
        f'include: "{REPO / "workflow" / "rules" / "tsc_common.smk"}"\n'
        f'include: "{REPO / "workflow" / "rules" / "tsc_features.smk"}"\n'
        "rule all:\n"
        "    input: expand('results/features/tsc/{r}.csv', r=['simple', 'summary'])\n")
    (path / "config.yaml").write_text(yaml.safe_dump({
        "seed": 5, "mirror": None, "allow_download": False,
        "features": {"tsc": {"datasets": TSC_DATASETS, "max_series": 60, "datasets_per_job": datasets_per_job}}}))
    return path


def _tsc_snakemake(workdir: Path, *args: str, override: Path | None = None) -> str:
    command = [sys.executable, "-m", "snakemake", "--cores", "2", "--directory", str(workdir),
               "--snakefile", str(workdir / "Snakefile"), *args]
    if override is not None:
        command += ["--configfile", str(workdir / "config.yaml"), str(override)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=900,
                         env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    return run.stdout + run.stderr


def _job_counts(output: str) -> dict[str, int]:
    return dict(Counter(rule for rule, _, _ in dry_run_jobs(output)))


@pytest.fixture(scope="module")
def tsc_batched_run(tmp_path_factory) -> Path:
    """The TSC feature rules with 2 datasets per job: 3 of the 4 available, so 2 raw-data jobs and 2 feature
    jobs per representation; do not modify it."""
    workdir = _tsc_workflow(tmp_path_factory.mktemp("tsc_batched"), datasets_per_job=2)
    out = _tsc_snakemake(workdir)
    assert _job_counts(out) == {"tsc_available": 1, "tsc_raw_data": 2, "tsc_dataset_features": 4,
                                "tsc_gather_features": 2, "all": 1}, out[-4000:]
    return workdir


# change -> the jobs it must rerun: an option of one representation reruns its batches only; the batch size
# reruns every batched job and what reads them; the same settings rerun nothing
TSC_RERUNS = {
    "a summary option": ({"summary_acf_lags": [1, 2]}, {"tsc_dataset_features": 2, "tsc_gather_features": 1,
                                                        "all": 1}),
    "the batch size": ({"datasets_per_job": 4}, {"tsc_raw_data": 1, "tsc_dataset_features": 2,
                                                 "tsc_gather_features": 2, "all": 1}),
    "nothing": ({"datasets_per_job": 2}, {}),
}


@pytest.mark.workflow
@pytest.mark.parametrize("change", list(TSC_RERUNS))
def test_a_change_reruns_exactly_the_batches_that_use_it(change, tsc_batched_run):
    settings, expected = TSC_RERUNS[change]
    override = tsc_batched_run.parent / f"rerun_{change.replace(' ', '_')}.yaml"  # outside the run directory
    override.write_text(yaml.safe_dump({"features": {"tsc": settings}}))
    out = _tsc_snakemake(tsc_batched_run, "--dry-run", override=override)
    assert _job_counts(out) == expected, out[-4000:]
    if not expected:
        assert "Nothing to be done" in out, out[-3000:]


@pytest.mark.workflow
def test_batched_features_equal_one_job_per_dataset(tsc_batched_run, tmp_path):
    """The gathered matrices are byte for byte those of one job per dataset, which keeps the per-dataset layout."""
    single = _tsc_workflow(tmp_path / "single", datasets_per_job=1)
    assert _job_counts(_tsc_snakemake(single))["tsc_dataset_features"] == 6
    for name in ("simple.csv", "summary.csv", "simple_datasets.txt", "summary_datasets.txt"):
        batched = (tsc_batched_run / "results/features/tsc" / name).read_bytes()
        assert (single / "results/features/tsc" / name).read_bytes() == batched, name
    assert (single / "resources/tsc_raw/GunPoint/GunPoint_TRAIN.tsv").is_file()
    assert (single / "results/features/tsc/simple/GunPoint.csv").is_file()
    assert sorted(p.name for p in (tsc_batched_run / "resources/tsc_raw").iterdir()) == [
        "ArrowHead-GunPoint", "ItalyPowerDemand-Rock"]


# ---- molecules: every model of a split in one job (model_jobs: per_split, the default) or one per model

MOL_TARGETS = [f"results/molecules/qm8/scores/random/0/{model}.json" for model in ("rf", "svm")]


def _mol_run(workdir: Path, mirror_dir: Path, *configs: Path, dry_run: bool = False) -> dict[str, int]:
    args = ("--dry-run",) if dry_run else ()
    run = snakemake(workdir, *args, *MOL_TARGETS, "--config", f"mirror={mirror_dir}",
                    configfiles=(TINY, MOLECULES, *configs))
    return _job_counts(run.stdout + run.stderr) if dry_run else {}


@pytest.mark.workflow
@needs_packages_of(TINY, MOLECULES)
def test_models_of_a_split_in_one_job_score_as_one_job_per_model(tmp_path, mirror_dir):
    """Same scores (all but the seconds) either way; a model's option reruns the split's job (per_split) or only
    that model's job (per_model)."""
    per_model = tmp_path / "per_model.yaml"
    per_model.write_text("molecules:\n  model_jobs: per_model\n")
    rf_option = tmp_path / "rf_option.yaml"
    rf_option.write_text("molecules:\n  model_options:\n    rf: {n_estimators: 10}\n")
    scores = {}
    for mode, configs in (("per_split", ()), ("per_model", (per_model,))):
        workdir = tmp_path / mode
        workdir.mkdir()
        assert _mol_run(workdir, mirror_dir, *configs, dry_run=True)["mol_model"] == (1 if mode == "per_split" else 2)
        _mol_run(workdir, mirror_dir, *configs)
        scores[mode] = [{k: v for k, v in json.loads((workdir / t).read_text()).items() if k != "seconds"}
                        for t in MOL_TARGETS]
        rerun = _mol_run(workdir, mirror_dir, *configs, rf_option, dry_run=True)
        assert rerun == {"mol_model": 1}, (mode, rerun)  # per_split: the split's job; per_model: rf's job
    assert scores["per_split"] == scores["per_model"]
    assert [s["model"] for s in scores["per_split"]] == ["rf", "svm"]
    assert (tmp_path / "per_split/logs/benchmarks/molecules/qm8/scores/random/0/models.tsv").is_file()
    assert (tmp_path / "per_model/logs/benchmarks/molecules/qm8/scores/random/0/rf.tsv").is_file()


def test_the_rate_limiter_workaround_still_reaches_snakemake():
    """The Snakefile's onstart drops Snakemake's job rate limiter in local runs (its timers pile up, one per
    finished job); if Snakemake renames what it sets, the workaround would silently do nothing."""
    import inspect

    import snakemake.api  # noqa: F401  (first, as snakemake imports itself: avoids a circular import)
    from snakemake.scheduling.job_scheduler import JobScheduler
    from snakemake.workflow import Workflow

    assert "self.job_rate_limiter" in inspect.getsource(JobScheduler.__init__)
    assert "self._schedule_reevalutation(self.job_rate_limiter.timespan)" in inspect.getsource(JobScheduler.schedule)
    assert isinstance(inspect.getattr_static(Workflow, "local_exec"), property)
    snakefile = SNAKEFILE.read_text()
    assert "workflow.scheduler.job_rate_limiter = None" in snakefile.split("onstart:")[1].split("onerror:")[0]
