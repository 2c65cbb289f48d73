"""The conda environment files (environment.yml, workflow/envs/benchdesign.yaml) are what
scripts/dev/make_environment.py writes from pyproject.toml, and hold every core dependency."""
from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location("make_environment", REPO / "scripts" / "dev" / "make_environment.py")
make_environment = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(make_environment)

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def _entries(relative: str) -> dict[str, str]:
    """Canonical package name -> its version range, from the conda list and the pip section of a file."""
    deps = yaml.safe_load((REPO / relative).read_text())["dependencies"]
    out = {}
    for item in deps:
        if isinstance(item, dict):
            for line in item["pip"]:
                if not line.startswith("-e "):
                    req = Requirement(line)
                    out[canonicalize_name(req.name)] = str(req.specifier)
        elif item != "pip":
            req = Requirement(item.replace("=", "==", 1) if item.startswith("python=") else item)
            conda_to_pip = {v: k for k, v in make_environment.CONDA_NAMES.items()}
            out[canonicalize_name(conda_to_pip.get(req.name, req.name))] = str(req.specifier)
    return out


@pytest.mark.parametrize("relative", list(make_environment.FILES))
def test_committed_file_is_what_the_script_writes(relative):
    assert (REPO / relative).read_text() == make_environment.render(relative), \
        f"{relative} is out of date: run python scripts/dev/make_environment.py"


@pytest.mark.parametrize("relative", list(make_environment.FILES))
def test_every_core_dependency_is_in_the_file_with_its_range(relative):
    entries = _entries(relative)
    for text in PROJECT["dependencies"]:
        req = Requirement(text)
        name = canonicalize_name(req.name)
        assert name in entries, f"{relative} lacks {req.name}"
        assert SpecifierSet(entries[name]) == req.specifier, (relative, req.name, entries[name])
    extras = make_environment.FILES[relative]["extras"]
    for text in (r for e in extras for r in PROJECT["optional-dependencies"][e]):
        name = canonicalize_name(Requirement(text).name)
        assert name == "benchdesign" or name in entries, (relative, text)  # benchdesign[x]: x's lines are there
    # no aeon: its pins would hold numpy, pandas, scipy and scikit-learn back
    assert "aeon" not in entries and "tsml-eval" not in entries
    assert entries["python"] == f"=={make_environment.PYTHON}"
    assert make_environment.PYTHON in SpecifierSet(PROJECT["requires-python"])


def test_the_package_is_installed_from_the_repository():
    for relative, spec in make_environment.FILES.items():
        pip = next(item["pip"] for item in yaml.safe_load((REPO / relative).read_text())["dependencies"]
                   if isinstance(item, dict))
        target = pip[-1].removeprefix("-e ").strip()
        assert pip[-1].startswith("-e ") and ((REPO / relative).parent / target / "pyproject.toml").resolve() == \
            (REPO / "pyproject.toml").resolve(), (relative, pip[-1])


def test_requirements_name_an_unknown_extra(tmp_path):
    with pytest.raises(ValueError, match="no extra"):
        make_environment.requirements(REPO / "pyproject.toml", ["no-such-extra"])
    bad = tmp_path / "pyproject.toml"
    bad.write_text('[project]\nname = "x"\nrequires-python = ">=3.13"\ndependencies = []\n')
    with pytest.raises(ValueError, match="outside requires-python"):
        make_environment.render("environment.yml", bad)
    with pytest.raises(ValueError, match="unknown environment file"):
        make_environment.render("env.yml")


def test_an_extra_naming_the_project_brings_that_extras_requirements():
    # test = ["benchdesign[workflow]", ...]: the tests run the pipeline, so they need snakemake
    names = [r.name for r in make_environment.requirements(REPO / "pyproject.toml", ["test"])]
    assert "snakemake" in names and "jsonschema" in names and "benchdesign" not in names
    core = [r.name for r in make_environment.requirements(REPO / "pyproject.toml")]
    assert "snakemake" not in core and "jsonschema" not in core


def test_constraints_pin_versions_that_pyproject_admits():
    """constraints.txt (the versions CI installs, offered in the README) pins every package with ==, and each
    requirement of pyproject.toml (core and extras) admits the version pinned for it."""
    pins = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            req = Requirement(line)
            (spec,) = list(req.specifier)
            assert spec.operator == "==", line
            pins[canonicalize_name(req.name)] = spec.version
    requirements = [*PROJECT["dependencies"], *(r for extra in PROJECT["optional-dependencies"].values() for r in extra)]
    checked = 0
    for line in requirements:
        req = Requirement(line)
        name = canonicalize_name(req.name)
        if name == canonicalize_name(PROJECT["name"]) or name not in pins:
            continue
        assert req.specifier.contains(pins[name], prereleases=True), f"{line}: constraints.txt pins {pins[name]}"
        checked += 1
    assert checked >= 20 and {"numpy", "pandas", "snakemake", "cvxpy", "highspy", "rdkit"} <= set(pins)
