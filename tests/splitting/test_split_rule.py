"""Rule `split_dataset` runs through Snakemake on a 40-molecule fixture and writes the expected TSV."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "workflow" / "rules" / "splitting.smk"


def snakemake_cmd() -> list[str]:
    exe = shutil.which("snakemake")
    return [exe] if exe else [sys.executable, "-m", "snakemake"]


def write_workflow(tmp: Path, fixtures: Path, **overrides) -> None:
    cfg = {"splitting": {
        "name": "tiny", "input": str(fixtures / "mols.csv"), "task": "S1", "id_col": "mol_id",
        "smiles_col": "smiles", "class_cols": ["active"], "fractions": [0.75, 0.25], "names": ["train", "test"],
        "clusters": 8, "epsilon": 0.2, "delta": 0.3, "seed": 1, "threads": 1,
        **overrides,
    }}
    (tmp / "config.yaml").write_text(yaml.safe_dump(cfg))
    (tmp / "Snakefile").write_text(
        'configfile: "config.yaml"\n'
        f'include: "{RULES}"\n\n'
        "rule all:\n"
        '    input: "results/splitting/tiny.tsv"\n'
    )


def run(tmp: Path) -> subprocess.CompletedProcess:
    return subprocess.run(snakemake_cmd() + ["--cores", "1", "--directory", str(tmp), "--snakefile",
                                             str(tmp / "Snakefile"), "-q"], capture_output=True, text=True)


def test_rule_writes_split_table(tmp_path, fixtures):
    write_workflow(tmp_path, fixtures)
    proc = run(tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    table = pd.read_csv(tmp_path / "results/splitting/tiny.tsv", sep="\t", keep_default_na=False)
    mols = pd.read_csv(fixtures / "mols.csv")
    assert list(table.columns) == ["id", "split", "reason"]
    assert table["id"].tolist() == mols["mol_id"].tolist()
    counts = table["split"].value_counts()
    assert set(counts.index) == {"train", "test"}
    assert counts["test"] >= (1 - 0.2) * 0.25 * len(mols) - 1e-9
    assert counts["train"] >= (1 - 0.2) * 0.75 * len(mols) - 1e-9
    active = mols["active"].astype(str).to_numpy() == "1"
    for cls in (active, ~active):
        per = table.loc[cls, "split"].value_counts()
        assert per.get("test", 0) >= (1 - 0.3) * 0.25 * cls.sum() - 1e-9
    assert (tmp_path / "results/splitting/tiny.report.json").is_file()
    assert "scaled L(pi)" in (tmp_path / "logs/splitting/tiny.log").read_text()


def test_rule_failure_leaves_no_output(tmp_path, fixtures):
    write_workflow(tmp_path, fixtures, clusters=41)
    proc = run(tmp_path)
    assert proc.returncode != 0
    assert not (tmp_path / "results/splitting/tiny.tsv").exists()
    assert "K=41 is larger than the number of entities n=40" in (tmp_path / "logs/splitting/tiny.log").read_text()


def test_rule_accepts_folds(tmp_path, fixtures):
    write_workflow(tmp_path, fixtures, folds=3, class_cols=[], epsilon=0.3)
    proc = run(tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    table = pd.read_csv(tmp_path / "results/splitting/tiny.tsv", sep="\t", keep_default_na=False)
    assert list(table.columns) == ["id", "split", "reason", "fold"]
    assert sorted(set(table["fold"])) == [0, 1, 2]
    assert "summary: 40 molecules in 3 folds" in (tmp_path / "logs/splitting/tiny.log").read_text()
