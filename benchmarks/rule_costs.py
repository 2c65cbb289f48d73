"""Per-rule cost of a pipeline run: jobs, summed wall and CPU seconds, and the scheduler's own CPU.

Runs the repository's Snakefile on a config in a scratch directory (as the workflow tests do:
``--snakefile <repo>/workflow/Snakefile --directory <scratch>``), through a small wrapper Snakefile that gives every
rule without a ``benchmark:`` directive one (``logs/benchmarks/_rule_costs/<rule>/...``), so that every job
is measured. Then prints a Markdown table: per rule the jobs, the summed wall seconds (``s``) and CPU seconds
(``cpu_time``) of Snakemake's benchmark files, and, below, the CPU of the snakemake process itself (the
scheduler: DAG, job bookkeeping, script preambles) and of the whole run (``wait4`` of the snakemake process:
itself and every job it started).

Usage (from the repository root)::

    python benchmarks/rule_costs.py                                   # the default run (config/config.yaml)
    python benchmarks/rule_costs.py --config mirror=../shared/data --until tsc_gather_features
    python benchmarks/rule_costs.py --configfile .test/config/config.yaml --workdir /tmp/tiny --keep
    python benchmarks/rule_costs.py --from-workdir /tmp/tiny          # summarise a finished run only
    python benchmarks/rule_costs.py --from-log .snakemake/log/X.snakemake.log  # any run's log: wall per rule

``--configfile`` files are laid over config/config.yaml (``--no-default-config`` drops it); targets and
``--until`` rules are passed on to snakemake; words after ``--`` too (e.g. ``-- --forcerun tsc_available``).
The scratch directory is removed afterwards unless ``--keep`` or ``--workdir`` is given; in a ``--workdir``
that holds an earlier run, only the benchmark files this run writes are counted. Benchmark files
give per-job CPU only for the processes alive at Snakemake's samples (every 0.5 s), so a job shorter than
that shows little CPU; the "jobs' start-up and gaps" row is the run's CPU that neither the jobs' benchmark
files nor the scheduler account for. ``--from-log`` needs no benchmark files: from the timestamps of a plain
run's Snakemake log (one-second resolution) it gives per rule the jobs and summed wall seconds (start to finish).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PATTERNS = ".rule_costs_patterns.json"  # in the scratch directory: rule -> benchmark file pattern
INJECTED = "logs/benchmarks/_rule_costs"

WRAPPER = '''\
# Written by benchmarks/rule_costs.py: the repository's Snakefile, with a benchmark file on every rule.
import json as _json

# as snakemake loads a main Snakefile: its default target stays the default target
workflow.include({snakefile!r}, overwrite_default_target=True)

_patterns = {{}}
for _rule in workflow.rules:
    if _rule.norun:
        continue
    if _rule.benchmark is None:
        _rule.benchmark_modifier = _rule.output_modifier  # the path modifier the rule's own files use
        _names = sorted(_rule.wildcard_names)
        _rule.benchmark = {injected!r} + "/" + _rule.name + (
            "/" + "/".join("{{%s}}" % _w for _w in _names) if _names else "") + ".tsv"
    _patterns[_rule.name] = str(_rule.benchmark)
with open({patterns!r}, "w") as _fh:
    _json.dump(_patterns, _fh, indent=1)
'''


def _regex(pattern: str) -> re.Pattern:
    """Regex of a Snakemake file pattern (``{name}`` or ``{name,regex}`` wildcards; default ``.+``)."""
    out, pos = [], 0
    for m in re.finditer(r"\{\s*(\w+)\s*(?:,\s*((?:[^{}]|\{[^{}]*\})*))?\}", pattern):
        out.append(re.escape(pattern[pos:m.start()]))
        out.append(f"(?:{m.group(2)})" if m.group(2) else ".+")
        pos = m.end()
    out.append(re.escape(pattern[pos:]))
    return re.compile("".join(out) + r"\Z")


def _number(value: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return math.nan
    return x


def read_benchmarks(workdir: Path, patterns: dict[str, str], since: float | None = None) -> dict[str, dict]:
    """rule -> {jobs, wall_s, cpu_s, no_cpu, max_rss}: the benchmark files below workdir, by rule pattern
    (only those written after ``since``, a time.time(), when given)."""
    regexes = {rule: _regex(p) for rule, p in patterns.items()}
    # the longest literal prefix wins when two patterns match one file
    prefix = {rule: len(re.split(r"\{", p, maxsplit=1)[0]) for rule, p in patterns.items()}
    rows: dict[str, dict] = defaultdict(lambda: dict(jobs=0, wall_s=0.0, cpu_s=0.0, no_cpu=0, max_rss=0.0))
    root = workdir / "logs"
    for path in sorted(root.rglob("*.tsv")) if root.is_dir() else []:
        if since is not None and path.stat().st_mtime < since:
            continue  # an earlier run's job
        relative = path.relative_to(workdir).as_posix()
        matches = [r for r, rx in regexes.items() if rx.match(relative)]
        if not matches:
            continue
        rule = max(matches, key=prefix.get)
        with path.open() as fh:
            records = list(csv.DictReader(fh, delimiter="\t"))
        if not records or "cpu_time" not in records[0]:
            continue
        last = records[-1]  # --benchmark-repeats aside, one record per job
        row = rows[rule]
        row["jobs"] += 1
        row["wall_s"] += _number(last.get("s")) if not math.isnan(_number(last.get("s"))) else 0.0
        cpu = _number(last.get("cpu_time"))
        if math.isnan(cpu):
            row["no_cpu"] += 1
        else:
            row["cpu_s"] += cpu
        rss = _number(last.get("max_rss"))
        if not math.isnan(rss):
            row["max_rss"] = max(row["max_rss"], rss)
    return dict(rows)


LOG_TIME = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
LOG_START = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):$")
LOG_JOBID = re.compile(r"^\s+jobid: (\d+)$")
LOG_DONE = re.compile(r"^Finished jobid: (\d+) \(Rule: (\w+)\)")


def read_log(path: Path) -> tuple[dict[str, dict], float]:
    """rule -> {jobs, wall_s} of the finished jobs in a Snakemake log (wall = finish - start timestamp), and the
    seconds from the log's first timestamp to its last."""
    from datetime import datetime

    rows: dict[str, dict] = defaultdict(lambda: dict(jobs=0, wall_s=0.0))
    started: dict[str, datetime] = {}
    now = first = rule = None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if m := LOG_TIME.match(line):
            now = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
            first = first or now
        elif m := LOG_START.match(line):
            rule = m.group(1)
        elif (m := LOG_JOBID.match(line)) and rule is not None:
            if now is None:
                raise ValueError(f"{path}, line {number}: a job starts before any timestamp")
            started[m.group(1)], rule = now, None
        elif (m := LOG_DONE.match(line)) and m.group(1) in started:
            row = rows[m.group(2)]
            row["jobs"] += 1
            row["wall_s"] += (now - started.pop(m.group(1))).total_seconds()
    return dict(rows), (now - first).total_seconds() if first else 0.0


def log_table(rows: dict[str, dict], span_s: float) -> str:
    """Markdown table of :func:`read_log`'s rows, most wall time first, and the run's span."""
    lines = ["| rule | jobs | wall-s | wall-s/job |", "|---|---:|---:|---:|"]
    for rule, r in sorted(rows.items(), key=lambda kv: -kv[1]["wall_s"]):
        lines.append(f"| {rule} | {r['jobs']} | {r['wall_s']:.0f} | {r['wall_s'] / max(r['jobs'], 1):.1f} |")
    jobs = sum(r["jobs"] for r in rows.values())
    wall = sum(r["wall_s"] for r in rows.values())
    lines.append(f"| **all jobs** | {jobs} | {wall:.0f} | {wall / max(jobs, 1):.1f} |")
    lines.append(f"| **run (first to last timestamp)** | | {span_s:.0f} | |")
    return "\n".join(lines)


def run_snakemake(command: list[str], log: Path, env: dict) -> dict:
    """Run command (a snakemake), return its wall seconds, own CPU (sampled) and total CPU (wait4)."""
    import psutil

    start = time.perf_counter()
    with log.open("w") as fh:
        proc = subprocess.Popen(command, stdout=fh, stderr=subprocess.STDOUT, env=env)
        own = {"user": 0.0, "system": 0.0}
        done = threading.Event()

        def sample():
            try:
                p = psutil.Process(proc.pid)
                while not done.is_set():
                    t = p.cpu_times()
                    own["user"], own["system"] = t.user, t.system
                    time.sleep(0.2)
            except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
                pass

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            # Read the snakemake process's own CPU once more just before reaping it: a zombie still has it.
            os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
            try:
                t = psutil.Process(proc.pid).cpu_times()
                own["user"], own["system"] = t.user, t.system
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
            done.set()
            _, status, usage = os.wait4(proc.pid, 0)
        except KeyboardInterrupt:
            proc.terminate()
            raise
        proc.returncode = os.waitstatus_to_exitcode(status)
    sampler.join(timeout=2)
    return dict(returncode=proc.returncode, wall_s=time.perf_counter() - start,
                own_user=own["user"], own_system=own["system"],
                total_user=usage.ru_utime, total_system=usage.ru_stime, max_rss_mb=usage.ru_maxrss / 1024)


def table(rows: dict[str, dict], run: dict | None) -> str:
    """Markdown table of the per-rule rows, most CPU first, and the run's totals."""
    lines = ["| rule | jobs | CPU-s | wall-s | CPU-s/job | peak RSS MB |", "|---|---:|---:|---:|---:|---:|"]
    for rule, r in sorted(rows.items(), key=lambda kv: -kv[1]["cpu_s"]):
        note = f" ({r['no_cpu']} without CPU)" if r["no_cpu"] else ""
        lines.append(f"| {rule}{note} | {r['jobs']} | {r['cpu_s']:.1f} | {r['wall_s']:.1f} | "
                     f"{r['cpu_s'] / max(r['jobs'], 1):.2f} | {r['max_rss']:.0f} |")
    jobs = sum(r["jobs"] for r in rows.values())
    cpu = sum(r["cpu_s"] for r in rows.values())
    wall = sum(r["wall_s"] for r in rows.values())
    lines.append(f"| **all jobs (benchmark files)** | {jobs} | {cpu:.1f} | {wall:.1f} | "
                 f"{cpu / max(jobs, 1):.2f} | |")
    if run is not None:
        own = run["own_user"] + run["own_system"]
        total = run["total_user"] + run["total_system"]
        lines.append(f"| scheduler (the snakemake process) | 1 | {own:.1f} | {run['wall_s']:.1f} | | |")
        lines.append(f"| jobs' start-up and gaps (total - scheduler - benchmark files) | | "
                     f"{total - own - cpu:.1f} | | | |")
        lines.append(f"| **run total (wait4: user {run['total_user']:.1f} + system {run['total_system']:.1f})** "
                     f"| {jobs} | {total:.1f} | {run['wall_s']:.1f} | | {run['max_rss_mb']:.0f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="*", help="snakemake targets (default: the default target)")
    parser.add_argument("--configfile", nargs="+", default=[], help="config overlays on config/config.yaml")
    parser.add_argument("--no-default-config", action="store_true", help="do not start from config/config.yaml")
    parser.add_argument("--config", nargs="+", default=[], metavar="KEY=VALUE", help="passed to snakemake")
    parser.add_argument("--until", nargs="+", default=[], metavar="RULE", help="passed to snakemake")
    parser.add_argument("--cores", default="2")
    parser.add_argument("--workdir", help="run here (kept) instead of a temporary directory")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--from-workdir", metavar="DIR", help="only summarise the benchmark files of a run in DIR")
    parser.add_argument("--from-log", metavar="LOG", help="only summarise a Snakemake log: wall seconds per rule")
    parser.add_argument("--json", metavar="FILE", help="also write the rows and totals as JSON")
    args, extra = parser.parse_known_args(argv)
    if extra and extra[0] == "--":
        extra = extra[1:]

    if args.from_log:
        print(log_table(*read_log(Path(args.from_log))))
        return 0
    if args.from_workdir:
        workdir = Path(args.from_workdir).resolve()
        patterns = json.loads((workdir / PATTERNS).read_text())
        print(table(read_benchmarks(workdir, patterns), None))
        return 0

    configfiles = ([] if args.no_default_config else [REPO / "config" / "config.yaml"])
    configfiles += [Path(c).resolve() for c in args.configfile]
    workdir = Path(args.workdir).resolve() if args.workdir else Path(tempfile.mkdtemp(prefix="rule_costs."))
    workdir.mkdir(parents=True, exist_ok=True)
    wrapper = workdir / ".rule_costs.smk"
    wrapper.write_text(WRAPPER.format(snakefile=str(REPO / "workflow" / "Snakefile"), injected=INJECTED,
                                      patterns=str(workdir / PATTERNS)))
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(wrapper), "--directory", str(workdir),
               "--cores", str(args.cores), *args.targets, *extra]
    # options taking several words after the targets; last: --configfile takes every following word
    if args.config:
        command += ["--config", *args.config]
    if args.until:
        command += ["--until", *args.until]
    command += ["--configfile", *map(str, configfiles)]
    log = workdir / "rule_costs.log"
    print(f"running in {workdir} (log {log}):\n  {shlex.join(command)}", file=sys.stderr)
    started = time.time()
    run = run_snakemake(command, log, dict(os.environ))
    if run["returncode"] != 0:
        print(f"snakemake failed (rc {run['returncode']}); end of {log}:\n" + log.read_text()[-4000:],
              file=sys.stderr)
    patterns = json.loads((workdir / PATTERNS).read_text()) if (workdir / PATTERNS).is_file() else {}
    rows = read_benchmarks(workdir, patterns, since=started)  # this run's jobs only (--workdir may hold more)
    print(table(rows, run))
    if args.json:
        Path(args.json).write_text(json.dumps({"rules": rows, "run": run, "command": command}, indent=1))
    if not (args.keep or args.workdir):
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    return run["returncode"]


if __name__ == "__main__":
    sys.exit(main())
