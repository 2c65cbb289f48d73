"""Style checks CI runs through the test suite: ruff and snakefmt (both configured in pyproject.toml) are clean
on the tree, and `snakemake --lint` reports nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_helpers import every_package_present

REPO = Path(__file__).resolve().parents[1]
RULE_FILES = ["workflow/Snakefile", *sorted(str(p.relative_to(REPO)) for p in (REPO / "workflow" / "rules").glob("*.smk"))]


def _run(command: list[str], timeout: int = 300, env: dict[str, str] | None = None) -> tuple[int, str]:
    run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=timeout, env=env)
    return run.returncode, (run.stdout + run.stderr)[-6000:]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed (extra 'test' installs it)")
def test_ruff_is_clean_on_the_tree():
    code, out = _run(["ruff", "check", "--output-format", "concise", "."])
    assert code == 0, out


@pytest.mark.skipif(shutil.which("snakefmt") is None, reason="snakefmt is not installed (extra 'test' installs it)")
def test_rule_files_are_snakefmt_formatted():
    code, out = _run(["snakefmt", "--check", *RULE_FILES])
    assert code == 0, f"run `snakefmt {' '.join(RULE_FILES)}`:\n{out}"


def test_snakemake_lint_reports_no_issue(tmp_path):
    # linting reads the rules, not the packages the default config asks for: every one is reported installed
    code, out = _run([sys.executable, "-m", "snakemake", "--lint"], timeout=600, env=every_package_present(tmp_path))
    assert "Lints for" not in out, out
    assert code == 0, out
    assert "Congratulations, your workflow is in a good condition!" in out, out
    # found from the repository root where the Snakemake workflow catalogue looks for it
    assert (REPO / "workflow" / "Snakefile").is_file() and not (REPO / "Snakefile").exists()
