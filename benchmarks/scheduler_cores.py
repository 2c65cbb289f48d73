"""Whether the installed Snakemake keeps to ``--cores``: the most jobs of one rule it runs at once.

Snakemake 9.10 to 9.16 start more jobs than ``--cores`` allows after a job that others wait for finishes
(snakemake/snakemake issue 3913): in the Fig. 4 run, Snakemake 9.15 ran up to 7 single-thread jobs at once on
``--cores 2``, which stretched every job's wall time and pushed ILPs past their time limit. This builds a tiny
workflow in a temporary folder (one ``prepare`` job, then ``--jobs`` one-thread jobs that wait for it, each
sleeping ``--sleep`` seconds), runs ``snakemake --cores 2`` on it ``--runs`` times, and prints the most jobs
that overlapped in time. Exit status 1 when that exceeds 2.

    python benchmarks/scheduler_cores.py
    python benchmarks/scheduler_cores.py --snakemake /path/to/other/venv/bin/snakemake

Measured 2026-12-05 by installing each release into a fresh venv (``python -m venv V && V/bin/pip install
snakemake==X``, then ``--snakemake V/bin/snakemake``, two runs each): 9.15.0, 9.16.2 and 9.16.3 ran 3 jobs at
once, 9.17.0, 9.17.1, 9.19.0 and 9.27.1 ran 2.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SNAKEFILE = """
rule all:
    input: expand("out/{{i}}.txt", i=range({jobs}))

rule prepare:
    output: "common.txt"
    threads: 1
    shell: "sleep 2; touch {{output}}"

rule work:
    input: "common.txt"
    output: "out/{{i}}.txt"
    threads: 1
    shell:
        "python -c 'import time; print(time.time())' > {{output}}.start; sleep {sleep}; "
        "python -c 'import time; print(time.time())' > {{output}}"
"""


def most_at_once(folder: Path) -> int:
    """The most ``work`` jobs whose [start, end] intervals overlap, from their time stamps."""
    events = []
    for end_file in folder.glob("out/*.txt"):
        events.append((float(Path(f"{end_file}.start").read_text()), 1))
        events.append((float(end_file.read_text()), -1))
    running = most = 0
    for _, step in sorted(events):
        running += step
        most = max(most, running)
    return most


def run_once(snakemake: str, jobs: int, sleep: float) -> int:
    """One run of the tiny workflow on ``--cores 2``; the most jobs it ran at once."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "Snakefile").write_text(SNAKEFILE.format(jobs=jobs, sleep=sleep))
        done = subprocess.run([snakemake, "--cores", "2", "--quiet"], cwd=folder, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{snakemake} failed:\n{done.stderr[-2000:]}")
        return most_at_once(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snakemake", default=shutil.which("snakemake") or "snakemake")
    parser.add_argument("--jobs", type=int, default=12)
    parser.add_argument("--sleep", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    version = subprocess.run([args.snakemake, "--version"], capture_output=True, text=True).stdout.strip()
    most = max(run_once(args.snakemake, args.jobs, args.sleep) for _ in range(args.runs))
    print(f"snakemake {version}: at most {most} jobs at once on --cores 2 ({args.runs} runs)")
    sys.exit(1 if most > 2 else 0)


if __name__ == "__main__":
    main()
