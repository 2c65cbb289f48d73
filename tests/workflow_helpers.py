"""Running the real Snakefile from tests (shared by the workflow, rerun, report and SLURM tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / ".test" / "config" / "config.yaml"
MOLECULES = REPO / ".test" / "config" / "molecules.yaml"
# Captions of the molecular experiments: checked on the report of the molecules run (test_molecules_workflow).
MOLECULE_CAPTIONS = ("ablation.rst", "molecules_figure.rst", "split_leakage.rst", "split_performance.rst", "tsne.rst")


def snakemake_cmd(workdir: Path, *args: str, configfiles=(TINY,)) -> list[str]:
    """Command line running the repository's Snakefile in ``workdir`` on the given config files."""
    return [
        sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"),
        "--directory", str(workdir), "--cores", "2", *args,
        # last: --configfile takes every following word, targets included
        "--configfile", *map(str, configfiles),
    ]


def snakemake(workdir: Path, *args: str, configfiles=(TINY,), check: bool = True) -> subprocess.CompletedProcess:
    """Run snakemake; with ``check``, fail with the end of its output when it fails."""
    result = subprocess.run(snakemake_cmd(workdir, *args, configfiles=configfiles),
                            capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(
            f"snakemake {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
        )
    return result
