"""Style checks CI runs through the test suite: ruff (configured in pyproject.toml) is clean on the tree."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed (extra 'test' installs it)")
def test_ruff_is_clean_on_the_tree():
    run = subprocess.run(["ruff", "check", "--output-format", "concise", "."], cwd=REPO, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
