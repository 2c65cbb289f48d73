"""The API and the commands the README and the docs show exist: no undefined names, no unknown options.

Running the examples is the job of tests/test_readme_quickstart.py (README) and tests/test_docs.py (docs);
this checks, cheaply, every example, also those that cannot run alone (snippets with the user's X and y).
"""

from __future__ import annotations

import importlib
import re

import pytest
from workflow_helpers import REPO

FENCE = re.compile(r"^```(?P<lang>\w*)\n(?P<code>.*?)^```", re.M | re.S)
IMPORT = re.compile(r"^from (benchdesign[\w.]*) import ([^\n(]+)$", re.M)


def pages() -> list:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def blocks(lang: str) -> list[tuple[str, str]]:
    out = []
    for page in pages():
        for m in FENCE.finditer(page.read_text()):
            if m["lang"] == lang or (lang == "bash" and m["lang"] in ("sh", "shell", "console")):
                out.append((str(page.relative_to(REPO)), m["code"]))
    return out


def test_imported_names_exist():
    found = 0
    for page, code in blocks("python"):
        for module, names in IMPORT.findall(code):
            mod = importlib.import_module(module)
            for name in (n.strip() for n in names.split(",")):
                found += 1
                assert hasattr(mod, name), f"{page}: `from {module} import {name}`: no such name"
    assert found >= 5


def _commands(code: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", " ", code)
    return [line.split("#")[0] for line in joined.splitlines() if line.lstrip().startswith("benchdesign ")]


def test_cli_commands_and_options_exist():
    from benchdesign.cli import build_parser

    parser = build_parser()
    (action,) = parser._subparsers._group_actions
    seen = 0
    for page, code in blocks("bash"):
        for command in _commands(code):
            words = command.split()
            if len(words) < 2 or words[1].startswith("-"):
                continue
            sub = action.choices.get(words[1])
            assert sub is not None, f"{page}: `benchdesign {words[1]}`: no such command"
            options = {o for a in sub._actions for o in a.option_strings}
            for flag in re.findall(r"(?<![\w-])--[a-z][\w-]*", command):
                assert flag in options, f"{page}: `benchdesign {words[1]} {flag}`: no such option"
            seen += 1
    assert seen >= 10


def _resolve(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def test_dotted_names_and_module_files_exist():
    """`benchdesign.x.y` names and `splitting/x.py`-style module files in README and docs exist."""
    missing = []
    for page in pages():
        text = page.read_text()
        for dotted in set(re.findall(r"`(benchdesign(?:\.\w+)+)", text)):
            if not _resolve(dotted):
                missing.append(f"{page.relative_to(REPO)}: {dotted}")
        for module in set(re.findall(r"`((?:selection|splitting|domains|molexp|data|workflow)/[\w/]+\.py)`", text)):
            if not (REPO / "src" / "benchdesign" / module).is_file():
                missing.append(f"{page.relative_to(REPO)}: {module}")
    assert not missing, "names in the docs that do not exist:\n" + "\n".join(sorted(missing))


@pytest.mark.parametrize("page", ["README.md", "docs/guides/select.md"])
def test_selection_examples_name_the_public_api(page):
    """The Python examples import from the package (``benchdesign.selection``), not from its submodules."""
    for p, code in blocks("python"):
        if p == page:
            for module, _ in IMPORT.findall(code):
                assert module.count(".") <= 1, f"{page}: import from {module}: use the package's public names"
