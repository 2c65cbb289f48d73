"""`snakemake --report` on a finished tiny run bundles every table and figure with its caption."""

from __future__ import annotations

import html
import re
import zipfile
from pathlib import Path

import pytest
from workflow_helpers import MOLECULE_CAPTIONS, REPO, snakemake

CAPTIONS = REPO / "workflow" / "report"

pytestmark = pytest.mark.workflow


def plain(text: str) -> str:
    """Visible text of report HTML or of a caption: JS/HTML escapes decoded, tags dropped, whitespace joined."""
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    text = text.replace("\\n", " ").replace('\\"', '"')
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    return " ".join(text.split())


@pytest.fixture(scope="module")
def report(tmp_path_factory, mirror_dir, tiny_run):
    run = tiny_run
    out = tmp_path_factory.mktemp("report")
    snakemake(run, "--config", f"mirror={mirror_dir}", "--report", str(out / "report.zip"))
    snakemake(run, "--config", f"mirror={mirror_dir}", "--report", str(out / "report.html"))
    with zipfile.ZipFile(out / "report.zip") as zf:
        files = [(Path(n).name, zf.read(n)) for n in zf.namelist() if "/data/raw/" in n]
        page = zf.read("report/report.html").decode()
    return run, files, plain(page), (out / "report.html").read_text()


def test_every_table_and_figure_is_in_the_report(report):
    run, files, _, _ = report
    results = run / "results"
    outputs = [p for folder in ("tables", "figures", "guarantee", "conclusions")
               for p in sorted((results / folder).rglob("*"))
               if p.suffix in (".md", ".png") or p.name == "recommendation.txt"]
    outputs.append(results / "paper_comparison.md")
    # tiny config: 5 tables, 6 curve figures, 1 synthetic figure, covering radii, p_eff, conclusions
    assert len(outputs) >= 12
    bundled = set(files)  # (file name, bytes): figures of different domains may share a name
    missing = [str(p.relative_to(results)) for p in outputs if (p.name, p.read_bytes()) not in bundled]
    assert not missing, f"not registered with report(...) in the rules, or changed: {missing}"
    produced = {(p.name, p.read_bytes()) for p in outputs}
    extra = sorted(name for name, data in files if (name, data) not in produced)
    assert not extra, f"report holds files that are not results: {extra}"


@pytest.mark.parametrize("caption", sorted(p.name for p in CAPTIONS.glob("*.rst")
                                            if p.name != "workflow.rst" and p.name not in MOLECULE_CAPTIONS))
def test_every_caption_is_in_the_report(report, caption):
    _, _, page, _ = report
    text = plain((CAPTIONS / caption).read_text())
    assert text in page, f"caption {caption} not found in the report"


def test_workflow_description_is_rendered_with_the_config(report):
    _, _, page, _ = report
    first = plain((CAPTIONS / "workflow.rst").read_text()).split(" Seed:")[0]
    assert first in page
    # the front page states the values of the config it was built with (the tiny run's), and how to build it
    assert "Seed: 7; trials per configuration: 6. Seeds of the synthetic ablation: 3." in page
    assert "molecular split" not in page  # disabled in the tiny run
    assert "build the report with the run's own --configfile and --config" in page


def test_html_report_is_self_contained(report):
    _, _, _, page = report
    assert len(page) > 1_000_000  # figures are embedded
    assert "Table 1: AUC over subset sizes k" in page and "table4_synthetic.md" in page
