"""How many jobs a Snakemake run had running at once, from its console log.

Usage (from the repository root):

    python benchmarks/job_concurrency.py LOG   # the console output of `snakemake ...` (or .snakemake/log/*.log)

Reads each job's start ("[<date>]" then "rule <name>:" / "localrule <name>:" and its "jobid: N") and end
("[<date>]" then "Finished jobid: N") and prints the most jobs running at once, the time-weighted mean, and
per rule the most at once. `--cores N` should bound the jobs at once for 1-thread jobs; Snakemake 9.10 and later
can start more when one job frees several waiting ones (snakemake/snakemake issue 3913).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from datetime import datetime
from pathlib import Path

STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
START = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):$")
JOBID = re.compile(r"^\s+jobid: (\d+)$")
FINISH = re.compile(r"^Finished jobid: (\d+)")


def job_intervals(lines: list[str]) -> dict[int, tuple[str, datetime, datetime | None]]:
    """jobid -> (rule, start, end or None) from a Snakemake console log."""
    jobs: dict[int, tuple[str, datetime, datetime | None]] = {}
    stamp, rule = None, None
    for line in lines:
        if m := STAMP.match(line.strip()):
            stamp = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
        elif m := START.match(line.strip()):
            rule = m.group(1)
        elif (m := JOBID.match(line)) and rule is not None and stamp is not None:
            jobs[int(m.group(1))] = (rule, stamp, None)
            rule = None
        elif (m := FINISH.match(line.strip())) and int(m.group(1)) in jobs:
            name, start, _ = jobs[int(m.group(1))]
            jobs[int(m.group(1))] = (name, start, stamp)
    return jobs


def concurrency(jobs: dict[int, tuple[str, datetime, datetime | None]], rule: str | None = None) -> tuple[int, float]:
    """Most jobs (of ``rule``, or all) running at once and the time-weighted mean over the run's span."""
    events = []
    for name, start, end in jobs.values():
        if rule is None or name == rule:
            events += [(start, 1), (end or max(s for _, s, _ in jobs.values()), -1)]
    events.sort(key=lambda e: (e[0], e[1]))  # at one second, ends before starts
    running = most = 0
    weighted, last = 0.0, events[0][0] if events else None
    for when, step in events:
        weighted += running * (when - last).total_seconds()
        running += step
        most = max(most, running)
        last = when
    span = (events[-1][0] - events[0][0]).total_seconds() if events else 0.0
    return most, weighted / span if span > 0 else 0.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path)
    args = parser.parse_args(argv)
    jobs = job_intervals(args.log.read_text().splitlines())
    most, mean = concurrency(jobs)
    print(f"{len(jobs)} jobs; at most {most} running at once, {mean:.2f} on average")
    for rule, count in sorted(Counter(name for name, _, _ in jobs.values()).items()):
        print(f"  {rule}: {count} jobs, at most {concurrency(jobs, rule)[0]} at once")


if __name__ == "__main__":
    main()
