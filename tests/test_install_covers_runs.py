"""The README's install covers the README's runs: every package the preflight asks for, for each Snakemake line of
the README's reproduce block (its config files laid over config/config.yaml), comes with the extras the README
installs (``pip install -e ".[all]"``, or the extras the line's comment names, e.g. ``.[paper]``), LoHi's package
aside, whose own install line the README gives. And the preflight itself, run against the packages actually
installed here, refuses nothing that the README's install would not bring."""

from __future__ import annotations

import importlib.metadata
import re

import pytest
import yaml
from packaging.requirements import Requirement
from test_readme_quickstart import README, quickstart_blocks
from workflow_helpers import REPO, merge_config

from benchdesign.molexp.methods import SEPARATE_INSTALL_METHODS
from benchdesign.molexp.splitters import LOHI_INSTALL
from benchdesign.workflow.preflight import _DISTRIBUTIONS, _canonical, check_packages, missing_packages, package_needs

EXTRAS = re.compile(r'pip install -e "\.\[([\w,-]+)\]"')
LINE_EXTRAS = re.compile(r"needs \.\[([\w,-]+)\]")


def readme_install_extras() -> set[str]:
    """The extras of the README's install command (the first block of "Install and test")."""
    section = README.read_text().split("## Install and test", 1)[1]
    code = re.search(r"^```bash\n(.*?)^```", section, re.M | re.S).group(1)
    found = EXTRAS.findall(code)
    assert found, f"no `pip install -e \".[...]\"` in the README's install block:\n{code}"
    return {e for group in found for e in group.split(",")}


def readme_runs() -> list[tuple[str, list[str], set[str]]]:
    """Each snakemake line of the README's reproduce block: (line, its config files, the extras its comment names)."""
    code = quickstart_blocks()["reproduce"][1].replace("\\\n", " ")
    runs = []
    for line in code.splitlines():
        if not line.startswith("snakemake "):
            continue
        command, _, comment = line.partition("#")
        words = command.split()
        files = []
        if "--configfile" in words:
            for word in words[words.index("--configfile") + 1:]:
                if word.startswith("-"):
                    break
                files.append(word)
        extras = {e for group in LINE_EXTRAS.findall(comment) for e in group.split(",")}
        runs.append((line, files or ["config/config.yaml"], extras))
    return runs


def run_config(files: list[str]) -> dict:
    config: dict = {}
    for name in files:
        config = merge_config(config, yaml.safe_load((REPO / name).read_text()) or {})
    return config


def extra_distributions(extras: set[str]) -> set[str]:
    """Canonical names of the distributions benchdesign's core and ``extras`` require, the extras they name
    followed, and the installed ones' own requirements followed (e.g. pyscipopt through datasail)."""
    requires = [Requirement(r) for r in importlib.metadata.requires("benchdesign") or []]
    wanted, seen = set(extras), set()
    names: set[str] = set()
    while wanted - seen:
        extra = (wanted - seen).pop()
        seen.add(extra)
        for req in requires:
            if req.marker is None or req.marker.evaluate({"extra": extra}):
                if _canonical(req.name) == "benchdesign":
                    wanted |= set(req.extras)
                else:
                    names.add(_canonical(req.name))
    todo = list(names)
    while todo:  # what installed distributions bring in turn
        try:
            reqs = importlib.metadata.requires(todo.pop()) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for text in reqs:
            req = Requirement(text)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            if _canonical(req.name) not in names:
                names.add(_canonical(req.name))
                todo.append(_canonical(req.name))
    return names


def module_distributions(module: str) -> set[str]:
    """Canonical distribution names of an importable module (installed: from the metadata; else its own name)."""
    found = importlib.metadata.packages_distributions().get(module)
    return {_canonical(d) for d in found} if found else {_canonical(_DISTRIBUTIONS.get(module, module))}


RUNS = readme_runs()


def test_the_readme_has_runs_and_the_install_names_extras():
    assert len(RUNS) >= 3 and readme_install_extras() == {"all"}
    assert any(extras == {"paper"} for _, files, extras in RUNS if "config/paper.yaml" in files)


@pytest.mark.parametrize("line, files, extras", RUNS, ids=[" ".join(r[1]) + str(i) for i, r in enumerate(RUNS)])
def test_every_package_a_readme_run_needs_comes_with_its_install(line, files, extras):
    brought = extra_distributions(readme_install_extras() | extras)
    config = run_config(files)
    uncovered = []
    for need in package_needs(config):
        for module in need.modules:
            if module_distributions(module) & brought:
                continue
            if need.value in SEPARATE_INSTALL_METHODS and LOHI_INSTALL.split(" && ")[0] in README.read_text():
                continue  # LoHi: its own line in the README, announced when absent
            uncovered.append(f"{need.key}: {need.value} needs {module}")
    assert not uncovered, f"README line {line!r}: not brought by the README's install: {uncovered}"
    # the preflight against what is installed here: whatever it would refuse, the README's install brings
    for need, absent in missing_packages(config):
        if need.value not in SEPARATE_INSTALL_METHODS:
            assert all(module_distributions(m) & brought for m in absent), (need, absent)
    if all(module_distributions(m) & brought and importlib.util.find_spec(m) is not None
           for need in package_needs(config) if need.value not in SEPARATE_INSTALL_METHODS for m in need.modules):
        check_packages(config)  # everything installed: the real preflight passes (LoHi at most announced)


def test_a_missing_extra_is_noticed():
    """The check can fail: without `xgboost` among the extras, the default run's xgb is not brought."""
    brought = extra_distributions({"workflow", "peer", "lohi", "graphpart"})
    assert "xgboost" not in brought and "snakemake" in brought and "sktime" in brought
    needs = {m for n in package_needs(run_config(["config/config.yaml"])) for m in n.modules}
    assert "xgboost" in needs
