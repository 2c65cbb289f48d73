"""The API reference renders and teaches: numpydoc docstrings of every public name, parsed as the site parses them.

For every name in ``__all__`` of ``benchdesign.splitting``, ``benchdesign.selection`` and ``benchdesign.domains``
(and the public methods of its classes, and the modules the API pages render), parsed statically with griffe's
numpy parser, the parser mkdocstrings uses for the site:

- no Sphinx role (``:func:`x```, ``:class:`...``` ...): mkdocstrings prints it literally; a cross-reference is
  ``[name][benchdesign.package.name]``;
- a function or class has a Parameters section naming exactly the parameters of its signature (of
  ``__init__`` for a class), and a function that returns something a Returns (or Yields) section;
- a Parameters entry is typed, by a type and not by prose, and not contradicting the signature's annotation;
- griffe parses the docstring without a warning (an entry not in the signature, an unparsable line);
- no signature default names a private constant (``_D["clusters"]``): the page shows the real value.

The Examples sections run as doctests in tests/test_api_examples.py (no griffe needed).
"""

from __future__ import annotations

import importlib
import logging
import os
import re

import pytest
from workflow_helpers import REPO

try:
    import griffe
except ImportError:  # griffe comes with mkdocstrings-python; CI (BENCHDESIGN_DOCS=1) requires it
    if os.environ.get("BENCHDESIGN_DOCS") == "1":
        raise
    pytest.skip("griffe (with mkdocstrings-python) not installed: pip install -e \".[docs]\"", allow_module_level=True)

PACKAGES = ("splitting", "selection", "domains")
SPHINX_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|obj|exc|const|ref|term|doc):`")
# A type is a type expression: names, brackets, literals, `|`, `,`, `of`/`or`; prose has sentences and clauses.
PROSE = re.compile(r";| -- |: |\. |\.$|->|\bthe\b|\bwhen\b|\bif\b|\bper\b|\bsee\b", re.I)


@pytest.fixture(scope="module")
def package():
    """The package as the site loads it: with mkdocs.yml's griffe extension (private defaults -> values)."""
    extension = griffe.load_extensions(str(REPO / "docs" / "_hooks" / "griffe_defaults.py") + ":PrivateDefaults")
    return griffe.load("benchdesign", search_paths=[str(REPO / "src")], docstring_parser="numpy",
                       resolve_aliases=False, extensions=extension)


def public_objects(package) -> dict[str, object]:
    """``"splitting.LeakageKFold"`` -> the griffe object that defines it."""
    found = {}
    for name in PACKAGES:
        module = importlib.import_module(f"benchdesign.{name}")
        exports = getattr(module, "_EXPORTS", None)
        for public in module.__all__:
            if exports is not None:
                where = next(m for m, names in exports.items() if public in names)
                found[f"{name}.{public}"] = package[f"{name}.{where}.{public}"]
            else:
                member = package[name].members[public]
                found[f"{name}.{public}"] = member.final_target if member.is_alias else member
    return found


def rendered_modules(package) -> list:
    """The modules whose docstrings the API pages render: the packages and the submodules of their exports."""
    modules = []
    for name in PACKAGES:
        modules.append(package[name])
        exports = getattr(importlib.import_module(f"benchdesign.{name}"), "_EXPORTS", {})
        modules += [package[f"{name}.{sub}"] for sub in exports]
    return modules


def parse(obj) -> tuple[list, list[str]]:
    """The docstring's sections and griffe's warnings about it."""
    if obj.docstring is None:
        return [], []
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    handler = Collect(level=logging.WARNING)
    logger = logging.getLogger("griffe")
    logger.addHandler(handler)
    try:
        sections = obj.docstring.parse("numpy", warnings=True)
    finally:
        logger.removeHandler(handler)
    return sections, records


def section(sections, kind: str):
    return next((s for s in sections if s.kind.value == kind), None)


def signature(obj) -> list:
    params = list(obj.parameters) if (obj.is_function or obj.is_class) else []
    return [p for p in params if p.name not in ("self", "cls")]


def returns_something(obj) -> bool:
    return obj.is_function and str(obj.returns) != "None" and obj.name != "__init__"


def methods(obj) -> list:
    if not obj.is_class:
        return []
    return [m for n, m in obj.members.items() if not n.startswith("_") and not m.is_alias and m.is_function]


def problems(label: str, obj, *, require: bool) -> list[str]:
    """What is wrong with one docstring; ``require``: it must have Parameters (and Returns)."""
    out = []
    text = obj.docstring.value if obj.docstring else ""
    if not text.strip():
        return [f"{label}: no docstring"] if require else []
    if SPHINX_ROLE.search(text):
        out.append(f"{label}: Sphinx role {SPHINX_ROLE.search(text)[0]}...` (use [name][benchdesign.x.name])")
    sections, warnings = parse(obj)
    out += [f"{label}: griffe: {w}" for w in warnings]
    params = [p for p in signature(obj) if not p.name.startswith("_")]  # a private argument is not documented
    # A dataclass (a result) may list its fields as Attributes instead.
    documented = section(sections, "parameters") or (section(sections, "attributes") if obj.is_class else None)
    entries = {e.name.lstrip("*"): e for e in (documented.value if documented else [])}
    names = [p.name for p in params]
    if documented or (require and params):
        missing = [n for n in names if n not in entries]
        extra = [n for n in entries if n not in names]
        if missing:
            out.append(f"{label}: Parameters lacks {missing}")
        if extra:
            out.append(f"{label}: Parameters names {extra}, not in the signature")
    for param in params:
        if param.default is not None and re.search(r"(?<![\w.])_[A-Za-z]", str(param.default)):
            out.append(f"{label}: default of {param.name!r} shows a private name: {param.default}")
        entry = entries.get(param.name)
        if entry is None:
            continue
        written = str(entry.annotation) if entry.annotation is not None else ""
        if not written:
            out.append(f"{label}: parameter {param.name!r} has no type")
        elif PROSE.search(re.sub(r"'[^']*'|\"[^\"]*\"", "''", written)) or len(written.split()) > 10:
            out.append(f"{label}: parameter {param.name!r} typed by prose: {written!r}")
        elif param.annotation is not None:
            declared = str(param.annotation).replace(" ", "")
            bare = re.sub(r",\s*(optional|default\b.*)$", "", written).replace(" ", "")
            if bare != declared:
                out.append(f"{label}: parameter {param.name!r} typed {written!r}, the signature says {declared!r}")
    if require and returns_something(obj) and not (section(sections, "returns") or section(sections, "yields")):
        out.append(f"{label}: no Returns section")
    return out


def test_no_sphinx_roles_in_rendered_modules(package):
    bad = [m.path for m in rendered_modules(package) if m.docstring and SPHINX_ROLE.search(m.docstring.value)]
    assert not bad, f"module docstrings with Sphinx roles (mkdocstrings prints them literally): {bad}"


def test_public_docstrings_are_numpydoc(package):
    found = []
    for label, obj in public_objects(package).items():
        found += problems(label, obj, require=obj.is_function or obj.is_class)
        for method in methods(obj):
            found += problems(f"{label}.{method.name}", method, require=False)
    assert not found, f"{len(found)} docstring problems:\n" + "\n".join(found)
