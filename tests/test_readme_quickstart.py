"""Every code block of the README and the guides runs as written, on the example files the package ships.

README: a block after a marker line ``<!-- quickstart: NAME -->``. Shell blocks run with bash in a temporary
directory (they begin by copying the shipped example files into ``examples/``: ``python -m benchdesign.examples
examples``); the Snakemake block runs as a dry run (``snakemake`` is ``snakemake -n``) in a directory laid out
like a clone next to the data mirror. Python blocks run with ``exec`` in the same directory as the shell block of
their quick start.

Guides (``docs/index.md``, ``docs/guides/*.md``): blocks after ``<!-- test: bash -->`` or ``<!-- test: python
-->`` run in the page's order in one temporary directory per page (a block may read what an earlier one wrote,
as when pasted one after the other); ``<!-- test: dry-run -->`` blocks run as the README's Snakemake block.

Every bash or python block of these pages carries one of these markers or ``<!-- not run: REASON -->`` (an
install from PyPI, the test suite itself, a whole pipeline run checked by another test).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from workflow_helpers import REPO, every_package_present

README = REPO / "README.md"
GUIDES = [REPO / "docs" / "index.md", *sorted((REPO / "docs" / "guides").glob("*.md"))]
BLOCK = re.compile(r"^<!-- quickstart: (?P<name>[\w-]+) -->\n```(?P<lang>\w+)\n(?P<code>.*?)^```", re.M | re.S)
# The quick starts the README promises, by section, and the blocks each must have.
EXPECTED = {"reproduce": "bash", "split": "bash", "split-python": "python", "select": "bash",
            "select-python": "python"}
TEST_COMMAND = 'pip install -e ".[test]" && python -m pytest -q'
# A marker line before a block: what the tests do with it.
MARKER = re.compile(r"^<!-- (?:quickstart: [\w-]+|test: (?:bash|python|dry-run)|not run: \S.*) -->$")
GUIDE_BLOCK = re.compile(r"^<!-- test: (?P<kind>bash|python|dry-run) -->\n```(?P<lang>\w+)\n(?P<code>.*?)^```",
                         re.M | re.S)
FENCE = re.compile(r"^```(?P<lang>\w*)\n.*?^```", re.M | re.S)


def quickstart_blocks(text: str | None = None) -> dict[str, tuple[str, str]]:
    """Marked blocks of the README: name -> (language, code)."""
    text = README.read_text() if text is None else text
    return {m["name"]: (m["lang"], m["code"]) for m in BLOCK.finditer(text)}


def run_bash(code: str, cwd: Path, prelude: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", prelude + code], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"block failed ({result.returncode}):\n{code}\n{result.stdout[-3000:]}\n" \
                                   f"{result.stderr[-3000:]}"
    return result


def run_python(code: str, cwd: Path, monkeypatch, capsys, page: str = "README.md") -> str:
    monkeypatch.chdir(cwd)
    exec(compile(code, page, "exec"), {"__name__": "__readme__"})
    return capsys.readouterr().out


def dry_run(code: str, tmp_path: Path, mirror_dir: Path) -> None:
    """The Snakemake commands of ``code`` as dry runs, in a clone-like directory beside ``../shared/data``."""
    if "workflow/profiles/slurm" in code and importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip("the SLURM line needs the `slurm` extra (snakemake-executor-plugin-slurm)")
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("workflow", "config", "data", "scripts", "src"):
        if (REPO / name).exists():
            (clone / name).symlink_to(REPO / name)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(mirror_dir)
    # planning needs none of the optional packages the configs ask for: every one is reported installed
    shim = every_package_present(tmp_path / "shim")["PYTHONPATH"]
    prelude = f'snakemake() {{ PYTHONPATH={shlex.quote(shim)} "{sys.executable}" -m snakemake -n "$@"; }}\n'
    result = run_bash(code, clone, prelude)
    commands = len(re.findall(r"^(?:time )?snakemake ", code, re.M))
    assert commands >= 1 and (result.stdout + result.stderr).count("This was a dry-run") == commands


# ---------------------------------------------------------------------------------------------- the README itself
def test_readme_shape():
    text = README.read_text()
    lines = text.splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines (at most 250)"
    assert TEST_COMMAND in lines, "the README's test command (CI runs it) is missing or changed"
    blocks = quickstart_blocks(text)
    assert {name: lang for name, (lang, _) in blocks.items()} == EXPECTED
    sections = re.split(r"^## ", text, flags=re.M)
    quick = [s for s in sections if s.startswith("Quick start")]
    assert len(quick) == 3, "three quick starts: reproduce, split, select"
    for section in quick:
        fences = re.findall(r"^```\w*\n(.*?)^```", section, re.M | re.S)
        assert fences and len(re.findall(r"^<!-- quickstart: ", section, re.M)) == len(fences), \
            f"every code block of {section.splitlines()[0]!r} must carry a quickstart marker"
        code_lines = sum(len(f.splitlines()) for f in fences)
        assert code_lines <= 15, f"{section.splitlines()[0]!r}: {code_lines} lines of code (at most 15)"


# ---------------------------------------------------------------------------------------------- the quick starts
# How the README states a run's size: "N jobs planned" (the dry run's count; checkpoints add jobs while it runs).
PLANNED = re.compile(r"(\d[\d,]*) jobs planned")


@pytest.mark.workflow
@pytest.mark.parametrize("row, configs", [("The quick run", ("config/quick.yaml",)), ("The default run", ())])
def test_readme_job_counts_are_the_dry_runs(row, configs, tmp_path, mirror_dir):
    """The job counts the README gives are generated, not typed: each equals `snakemake -n`'s total now."""
    line = next(line for line in README.read_text().splitlines() if line.startswith(f"| {row}"))
    stated = [int(n.replace(",", "")) for n in PLANNED.findall(line)]
    assert len(stated) == 1, f"README row {row!r} states no (or several) 'N jobs planned': {line[:200]}"
    shim = every_package_present(tmp_path / "shim")
    files = [str(REPO / "config" / "config.yaml"), *(str(REPO / c) for c in configs)]
    result = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--snakefile", str(REPO / "workflow" / "Snakefile"),
                             "--directory", str(tmp_path), "--cores", "2", "--config", f"mirror={mirror_dir}",
                             "--configfile", *files], capture_output=True, text=True, env={**os.environ, **shim},
                            timeout=600)
    total = re.search(r"^total\s+(\d+)$", result.stdout + result.stderr, re.M)
    assert total, (result.stdout + result.stderr)[-3000:]
    assert int(total.group(1)) == stated[0], f"README: {stated[0]} jobs planned; `snakemake -n`: {total.group(1)}"


@pytest.mark.workflow
def test_quickstart_reproduce_dry_run(tmp_path, mirror_dir):
    """The Snakemake commands as written, as dry runs, in a clone-like directory beside ``../shared/data``."""
    code = quickstart_blocks()["reproduce"][1]
    assert len(re.findall(r"^snakemake ", code, re.M)) >= 2
    dry_run(code, tmp_path, mirror_dir)


def test_quickstart_split(tmp_path, monkeypatch, capsys):
    run_bash(quickstart_blocks()["split"][1], tmp_path)
    assert len(pd.read_csv(tmp_path / "examples" / "mols.csv")) > 50  # more than the default K = 50 clusters
    split = pd.read_csv(tmp_path / "split.tsv", sep="\t")
    assert set(split["split"]) == {"train", "test"}
    assert (tmp_path / "split.json").is_file()
    folds = pd.read_csv(tmp_path / "folds.tsv", sep="\t")
    assert {"fold_a", "fold_b"} <= set(folds.columns)
    out = run_python(quickstart_blocks()["split-python"][1], tmp_path, monkeypatch, capsys)
    # the 5 fold scores, then fold_leakage_: 5 scaled L(pi) values in [0, 1], one per fold
    arrays = [np.array(group.split(), dtype=float) for group in re.findall(r"\[([^\]]*)\]", out)]
    assert [a.size for a in arrays] == [5, 5] and ((arrays[1] > 0) & (arrays[1] < 1)).all(), out


def test_quickstart_select(tmp_path, monkeypatch, capsys):
    out = run_bash(quickstart_blocks()["select"][1], tmp_path).stdout
    assert "fold" not in pd.read_csv(tmp_path / "examples" / "scores.csv").columns  # the layout without folds
    assert len((tmp_path / "chosen.txt").read_text().split()) == 5
    assert "spearman" in out
    assert (tmp_path / "evaluation" / "recommendation.txt").is_file()
    out = run_python(quickstart_blocks()["select-python"][1], tmp_path, monkeypatch, capsys)
    assert "C-FAFI" in out and "spearman" in out


# ---------------------------------------------------------------------------------------------- the guides
def guide_blocks(page: Path, kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    """(kind, code) of the page's blocks marked ``<!-- test: KIND -->`` with KIND in ``kinds``, in page order."""
    return [(m["kind"], m["code"]) for m in GUIDE_BLOCK.finditer(page.read_text()) if m["kind"] in kinds]


def test_every_block_is_marked():
    """Every bash or python block of the README and the guides runs, or says why it does not."""
    unmarked = []
    for page in (README, *GUIDES):
        text = page.read_text()
        for m in FENCE.finditer(text):
            before = text[:m.start()].rstrip("\n").splitlines()
            if m["lang"] in ("bash", "sh", "shell", "console", "python") and not (before and MARKER.match(before[-1])):
                unmarked.append(f"{page.relative_to(REPO)}:{len(before) + 1}")
    assert not unmarked, "blocks without a marker (test: bash|python|dry-run, or not run: why):\n" + \
        "\n".join(unmarked)
    for page in GUIDES:
        for m in GUIDE_BLOCK.finditer(page.read_text()):
            assert m["lang"] == ("python" if m["kind"] == "python" else "bash"), f"{page.name}: {m['kind']} block"


# What a page's blocks leave behind, beyond running without an error.
GUIDE_OUTPUTS = {
    "select.md": ("chosen.txt", "evaluation/recommendation.txt", "informed.txt"),
    "split.md": ("splits.tsv", "report.json", "exact.json", "pair_leakage.json"),
}


# A page shows what a block prints in a ```text block after ``<!-- output of the block above -->``: every line it
# shows (whitespace collapsed) is a line the block printed (stdout or stderr), so the page cannot drift from it.
SHOWN_OUTPUT = re.compile(r"^<!-- output of the block above -->\n```text\n(?P<text>.*?)^```", re.M | re.S)


def shown_outputs(page: Path) -> list[tuple[int, str]]:
    """(index of the bash/python block it follows, shown text) of every marked output block of ``page``."""
    text = page.read_text()
    starts = [m.start() for m in GUIDE_BLOCK.finditer(text) if m["kind"] in ("bash", "python")]
    return [(sum(start < m.start() for start in starts) - 1, m["text"]) for m in SHOWN_OUTPUT.finditer(text)]


def _squash(line: str) -> str:
    return " ".join(line.split())


@pytest.mark.parametrize("page", [p for p in GUIDES if guide_blocks(p, ("bash", "python"))], ids=lambda p: p.name)
def test_guide_blocks_run(page, tmp_path, monkeypatch, capsys):
    """The page's bash and python blocks, pasted one after the other into a fresh directory; what the page shows
    a block printing is what it prints."""
    out, printed = "", []
    for kind, code in guide_blocks(page, ("bash", "python")):
        if kind == "bash":
            result = run_bash(code, tmp_path)
            out += result.stdout
            printed.append(result.stdout + "\n" + result.stderr)
        else:
            printed.append(run_python(code, tmp_path, monkeypatch, capsys, str(page.relative_to(REPO))))
            out += printed[-1]
    for index, text in shown_outputs(page):
        lines = {_squash(line) for line in printed[index].splitlines()}
        missing = [line for line in text.splitlines() if line.strip() and _squash(line) not in lines]
        assert not missing, f"{page.name}: block {index + 1} does not print these shown lines: {missing}"
    for name in GUIDE_OUTPUTS.get(page.name, ()):
        assert (tmp_path / name).is_file(), f"{page.name}: {name} not written"
    if page.name == "select.md":
        assert "C-FAFI" in out and "spearman" in out


@pytest.mark.workflow
@pytest.mark.parametrize("page", [p for p in GUIDES if guide_blocks(p, ("dry-run",))], ids=lambda p: p.name)
def test_guide_dry_runs(page, tmp_path, mirror_dir):
    for i, (_, code) in enumerate(guide_blocks(page, ("dry-run",))):
        (tmp_path / str(i)).mkdir()
        dry_run(code, tmp_path / str(i), mirror_dir)
