"""Running the real Snakefile from tests (shared by the workflow, rerun, report and SLURM tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / ".test" / "config" / "config.yaml"
MOLECULES = REPO / ".test" / "config" / "molecules.yaml"
# where the Snakemake workflow catalogue and `snakemake` run from the repository root look for it
SNAKEFILE = REPO / "workflow" / "Snakefile"
# Captions of the molecular experiments: checked on the report of the molecules run (test_molecules_workflow).
MOLECULE_CAPTIONS = ("ablation.rst", "molecules_figure.rst", "split_leakage.rst", "split_performance.rst", "tsne.rst")


def snakemake_cmd(workdir: Path, *args: str, configfiles=(TINY,)) -> list[str]:
    """Command line running the repository's Snakefile in ``workdir`` on the given config files."""
    return [
        sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE),
        "--directory", str(workdir), "--cores", "2", *args,
        # last: --configfile takes every following word, targets included
        "--configfile", *map(str, configfiles),
    ]


def snakemake(workdir: Path, *args: str, configfiles=(TINY,), check: bool = True,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run snakemake (in the environment ``env``, default this one); with ``check``, fail with the end of its
    output when it fails."""
    result = subprocess.run(snakemake_cmd(workdir, *args, configfiles=configfiles),
                            capture_output=True, text=True, env=env)
    if check and result.returncode != 0:
        raise AssertionError(
            f"snakemake {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
        )
    return result


_SHIM = """# written by tests/workflow_helpers.package_shim: find_spec reports some modules absent, others present
import importlib.machinery
import importlib.util

_ABSENT = {absent!r}
_PRESENT = {present!r}
_real_find_spec = importlib.util.find_spec


def _find_spec(name, package=None):
    if name in _ABSENT:
        return None
    spec = _real_find_spec(name, package)
    if spec is None and name in _PRESENT:
        return importlib.machinery.ModuleSpec(name, None)
    return spec


importlib.util.find_spec = _find_spec
"""


def package_shim(directory: Path, absent: Iterable[str] = (), present: Iterable[str] = ()) -> dict[str, str]:
    """Environment for a subprocess in which ``importlib.util.find_spec`` reports the modules ``absent`` as not
    installed and the modules ``present`` as installed (nothing is imported): a ``sitecustomize.py`` written to
    ``directory``, put first on PYTHONPATH. For the package check the workflow runs before any job
    (``benchdesign.workflow.preflight.check_packages``)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "sitecustomize.py").write_text(_SHIM.format(absent=set(absent), present=set(present)))
    path = os.pathsep.join(p for p in (str(directory), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def every_package_present(directory: Path) -> dict[str, str]:
    """:func:`package_shim` reporting every module the package check may ask for as installed: for tests that
    plan jobs (dry runs, ``--summary``) of configs whose optional packages this environment may lack."""
    from benchdesign.workflow.preflight import registered_modules

    return package_shim(directory, present=registered_modules())


def merge_config(base: dict, over: dict) -> dict:
    """``over`` laid over ``base`` as Snakemake lays ``--configfile`` files over each other (nested keys merged)."""
    out = dict(base)
    for key, value in over.items():
        out[key] = merge_config(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out
