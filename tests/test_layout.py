"""Layering of the package, read from the sources (no import): the library never imports the Snakemake-facing
helpers (benchdesign.workflow), and the method (selection) never imports a benchmark (domains)."""
from __future__ import annotations

import ast

import pytest
from workflow_helpers import REPO

SRC = REPO / "src" / "benchdesign"


def imported_modules(path) -> set[str]:
    """Absolute names of the modules a file imports (top level and inside functions)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("files, forbidden", [
    ("selection/**/*.py", ("benchdesign.domains", "benchdesign.workflow")),
    ("domains/**/*.py", ("benchdesign.workflow",)),
    ("splitting/**/*.py", ("benchdesign.workflow",)),
    ("data/**/*.py", ("benchdesign.workflow",)),
    ("*.py", ("benchdesign.workflow",)),  # the command line and the file helpers
    ("workflow/paper_comparison.py", ("snakemake",)),  # pure functions: the script passes the rule's inputs
])
def test_library_layers(files, forbidden):
    offending = {
        str(path.relative_to(SRC)): sorted(n for n in imported_modules(path) if n.startswith(forbidden))
        for path in sorted(SRC.glob(files))
    }
    assert {path: names for path, names in offending.items() if names} == {}


def test_forbidden_import_is_found(tmp_path):
    """The check above would see a lazy import inside a function."""
    path = tmp_path / "m.py"
    path.write_text("def f():\n    from benchdesign.domains import REGISTRY\n")
    assert "benchdesign.domains" in imported_modules(path)
