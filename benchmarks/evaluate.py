"""Wall and CPU time of ``benchdesign evaluate`` on the 30 x 9 RecSys matrix written as CSV.

Usage: python benchmarks/evaluate.py [--mirror ../shared/data] [--jobs 2] [--trials 200]

Writes the RecSys scores and interaction features as CSV (scripts/dev/export_table.py), then runs
``benchdesign evaluate`` with its default strategies (``EVALUATE_STRATEGIES``: the paper's six and k-medoids) and
random draws (``RANDOM_DRAWS``), k = 2..20 and ``--trials`` trials in a subprocess,
and prints its wall time, its CPU time (user + system of the subprocess and its workers) and the load
average of the machine before and after (a loaded machine inflates the wall time, not the CPU time).
Goal (issue 12): <= 60 s wall on 2 free cores.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--trials", type=int, default=200)
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("export_table", REPO / "scripts/dev/export_table.py")
    export = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(export)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "recsys"
        export.export("recsys", args.mirror, data)
        cmd = [sys.executable, "-m", "benchdesign.cli", "evaluate", "--scores", str(data / "scores.csv"),
               "--features", str(data / "interaction.csv"), "--higher-is-better", "--trials", str(args.trials),
               "--k", "2", "20", "--jobs", str(args.jobs), "--out", str(Path(tmp) / "out")]
        load_before = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        files = len(list((Path(tmp) / "out").iterdir()))
    print(json.dumps({"command": " ".join(cmd[1:]).replace(tmp, "<tmp>"), "wall_s": round(wall, 1),
                      "cpu_s": round(cpu, 1), "cpu_per_core_s": round(cpu / args.jobs, 1), "files": files,
                      "load_before": load_before, "load_after": os.getloadavg()[0], "cores": os.cpu_count()},
                     indent=2))


if __name__ == "__main__":
    main()
