"""`snakemake --report` on a finished tiny run bundles every table and figure with its caption."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / ".test" / "config" / "config.yaml"
CAPTIONS = REPO / "workflow" / "report"

pytestmark = pytest.mark.workflow


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
        "--configfile", str(TINY), "--cores", "2", *args,
    ]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}")
    return result


def finished_tiny_run(tmp_path_factory, mirror_dir: Path) -> Path:
    """The complete tiny run shared with test_reruns.py (same directory and marker; built once per session)."""
    workdir = tmp_path_factory.getbasetemp() / "finished_tiny_run"
    marker = workdir / ".benchdesign-run-complete"
    if not marker.exists():
        shutil.rmtree(workdir, ignore_errors=True)
        workdir.mkdir()
        snakemake(workdir, "--config", f"mirror={mirror_dir}")
        marker.touch()
    return workdir


def plain(text: str) -> str:
    """Visible text of report HTML or of a caption: JS/HTML escapes decoded, tags dropped, whitespace joined."""
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    text = text.replace("\\n", " ").replace('\\"', '"')
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    return " ".join(text.split())


@pytest.fixture(scope="module")
def report(tmp_path_factory, mirror_dir):
    run = finished_tiny_run(tmp_path_factory, mirror_dir)
    out = tmp_path_factory.mktemp("report")
    snakemake(run, "--config", f"mirror={mirror_dir}", "--report", str(out / "report.zip"))
    snakemake(run, "--config", f"mirror={mirror_dir}", "--report", str(out / "report.html"))
    with zipfile.ZipFile(out / "report.zip") as zf:
        files = {Path(n).name: zf.read(n) for n in zf.namelist() if "/data/raw/" in n}
        page = zf.read("report/report.html").decode()
    return run, files, plain(page), (out / "report.html").read_text()


def test_every_table_and_figure_is_in_the_report(report):
    run, files, _, _ = report
    outputs = sorted((run / "results/tables").glob("*.md")) + sorted((run / "results/figures").glob("*.png"))
    assert len(outputs) >= 12  # tiny config: 5 tables, 6 curve figures, 1 synthetic figure
    missing = [p.name for p in outputs if p.name not in files]
    assert not missing, f"not registered with report(...) in the rules: {missing}"
    changed = [p.name for p in outputs if files[p.name] != p.read_bytes()]
    assert not changed, changed
    extra = sorted(set(files) - {p.name for p in outputs})
    assert not extra, f"report holds files that are not results: {extra}"


@pytest.mark.parametrize("caption", sorted(p.name for p in CAPTIONS.glob("*.rst") if p.name != "workflow.rst"))
def test_every_caption_is_in_the_report(report, caption):
    _, _, page, _ = report
    text = plain((CAPTIONS / caption).read_text())
    assert text in page, f"caption {caption} not found in the report"


def test_workflow_description_is_rendered_with_the_config(report):
    _, _, page, _ = report
    first = plain((CAPTIONS / "workflow.rst").read_text()).split(" Seed:")[0]
    assert first in page
    assert "Seed: 7; trials per configuration: 6." in page


def test_html_report_is_self_contained(report):
    _, _, _, page = report
    assert len(page) > 1_000_000  # figures are embedded
    assert "Table 1: AUC over subset sizes k" in page and "table4_synthetic.md" in page
