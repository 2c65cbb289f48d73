"""Start-up cost of each pipeline script: the CPU seconds a fresh interpreter spends importing what the script
imports at its top level (before it does any work), best of ``--repeats`` runs.

A Snakemake ``script:`` job pays this once per job, so for rules with many small jobs (``fetch``, ``trials``,
the per-dataset feature jobs) it is most of their cost. Usage (from the repository root)::

    python benchmarks/script_imports.py                     # every scripts/*.py
    python benchmarks/script_imports.py fetch run_trials    # some of them
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROBE = """\
import resource, sys, time
t0 = resource.getrusage(resource.RUSAGE_SELF)
{imports}
t1 = resource.getrusage(resource.RUSAGE_SELF)
print((t1.ru_utime - t0.ru_utime) + (t1.ru_stime - t0.ru_stime))
"""


def top_level_imports(script: Path) -> list[str]:
    """The script's module-level import statements, as source lines."""
    tree = ast.parse(script.read_text())
    return [ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]


def import_cpu(imports: list[str], repeats: int) -> float:
    """Least CPU seconds over ``repeats`` fresh interpreters importing ``imports``."""
    code = PROBE.format(imports="\n".join(imports))
    runs = [float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                                 cwd=REPO).stdout) for _ in range(repeats)]
    return min(runs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scripts", nargs="*", help="script names without .py (default: all)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    paths = [REPO / "scripts" / f"{name}.py" for name in args.scripts] or sorted((REPO / "scripts").glob("*.py"))
    print("| script | import CPU-s (best of %d) |\n|---|---:|" % args.repeats)
    for path in paths:
        print(f"| {path.stem} | {import_cpu(top_level_imports(path), args.repeats):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
