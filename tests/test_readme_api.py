"""The README's Python API example runs as written (no undefined names)."""
from __future__ import annotations

import re

from workflow_helpers import REPO


def test_readme_api_example_runs(capsys):
    text = (REPO / "README.md").read_text()
    section = text.split("The Python API behind the commands", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "C-FAFI" in out and "spearman" in out
