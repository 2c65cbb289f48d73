"""The gallery's scripts (docs/gallery/*.py) run as documented, draw their picture, and print numbers that show
what the page says: the split leaks less than random splits, the subset tracks the full ranking at least as well as
the median random subset, LeakageKFold's folds leak less than KFold's."""
from __future__ import annotations

import re
import subprocess
import sys

from workflow_helpers import REPO

GALLERY = REPO / "docs" / "gallery"
SCRIPTS = sorted(p.stem for p in GALLERY.glob("*.py"))


def run(name: str, tmp_path) -> str:
    result = subprocess.run([sys.executable, str(GALLERY / f"{name}.py"), str(tmp_path)], capture_output=True,
                            text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / f"{name}.png").stat().st_size > 10_000
    assert (REPO / "docs" / "img" / "gallery" / f"{name}.png").is_file(), "the committed picture is missing"
    return result.stdout


def test_every_script_is_on_the_page():
    page = (REPO / "docs" / "gallery.md").read_text()
    assert SCRIPTS and all(f'--8<-- "docs/gallery/{name}.py"' in page and f"img/gallery/{name}.png" in page
                           for name in SCRIPTS)


def test_split_against_random(tmp_path):
    out = run("split_against_random", tmp_path)
    ours, random = map(float, re.search(r"LeakageSplit ([0-9.]+), random ([0-9.]+)", out).groups())
    assert ours < 0.75 * random, out


def test_select_against_random(tmp_path):
    out = run("select_against_random", tmp_path)
    pairs = [tuple(map(float, m)) for m in re.findall(r"\d+ ([0-9.]+) ([0-9.]+)", out)]
    assert len(pairs) == 14 and sum(o >= m for o, m in pairs) >= 12, out


def test_kfold_in_scikit_learn(tmp_path):
    out = run("kfold_in_scikit_learn", tmp_path)
    leak = {name: sum(map(float, values.split(", "))) / 5
            for name, values in re.findall(r"^(\S+): .*leakage per fold \[([^\]]+)\]", out, re.M)}
    assert leak["LeakageKFold"] < 0.8 * leak["KFold(shuffle=True)"], out
