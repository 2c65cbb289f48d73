"""Cost of the summary block of `benchdesign split --task S1` (80/20) against the split's own cost.

For each dataset the CLI runs twice in a child process, with the summary (the default) and with
`--no-summary`; from the split's JSON report (stage_cpu_seconds: CPU of the process and its finished
fingerprint workers) the summary's CPU is set against the CPU of the split proper, fingerprints included
(the `similarity` and `split` stages). Wall time, user+sys CPU and peak RSS of each child come from
wait4. Goal (issue 36): summary CPU <= 25 % of the split's on Tox21, HIV and MOSES, and MOSES's peak
memory with the summary under 2 GB. `--scaffold-baseline` adds the runs with the scaffold split.

    python benchmarks/summary_cost.py --datasets tox21 hiv moses --json summary_cost.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from split_scale import dataset_file  # same folder: run as a script
from vs_datasail import run_measured

FILES = {"tox21", "hiv", "moses"}
GOAL_SHARE = 0.25
GOAL_MOSES_MB = 2048.0


def split_command(table: Path, column: str, out: Path, report: Path, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "benchdesign", "split", "--task", "S1", "--input", str(table), "--smiles-col",
            column, "--fractions", "0.8", "0.2", "--names", "train", "test", "--drop-invalid", "--out", str(out),
            "--report", str(report), *extra]


def measure(name: str, work: Path, extra: list[str], label: str) -> dict:
    """One run: the child's wall / CPU / peak RSS and the report's stage CPU seconds."""
    table, column = dataset_file(name, work)
    report = work / f"{name}_{label}.json"
    run = run_measured(split_command(table, column, work / f"{name}_{label}.tsv", report, extra),
                       work / f"{name}_{label}.log")
    if run["returncode"] != 0:
        raise RuntimeError(f"{name} ({label}) failed; log {work / f'{name}_{label}.log'}")
    stages = json.loads(report.read_text())["stage_cpu_seconds"]
    split_cpu = stages["similarity"] + stages["split"]
    summary = stages.get("summary", 0.0)
    return {**run, "split_cpu_s": split_cpu, "summary_cpu_s": summary, "share": summary / split_cpu,
            "summary_stages": {k: v for k, v in stages.items() if k.startswith("summary")}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", nargs="+", default=["tox21", "hiv", "moses"], choices=sorted(FILES))
    p.add_argument("--scaffold-baseline", action="store_true", help="also run with --scaffold-baseline")
    p.add_argument("--json", help="write the measurements here")
    args = p.parse_args(argv)
    variants = [("summary", []), ("no_summary", ["--no-summary"])]
    if args.scaffold_baseline:
        variants.append(("scaffold", ["--scaffold-baseline"]))
    results = {}
    with tempfile.TemporaryDirectory(prefix="summary_cost_") as tmp:
        for name in args.datasets:
            results[name] = {label: measure(name, Path(tmp), extra, label) for label, extra in variants}
            row = results[name]["summary"]
            print(f"{name}: split {row['split_cpu_s']:.1f} CPU-s, summary {row['summary_cpu_s']:.1f} CPU-s "
                  f"({row['share']:.1%}; goal <= {GOAL_SHARE:.0%}); peak {row['peak_mb']:.0f} MB with the summary, "
                  f"{results[name]['no_summary']['peak_mb']:.0f} MB without; wall {row['wall_s']:.1f} s, "
                  f"CPU {row['cpu_s']:.1f} s", flush=True)
            if "scaffold" in results[name]:
                sc = results[name]["scaffold"]
                print(f"  with --scaffold-baseline: summary {sc['summary_cpu_s']:.1f} CPU-s ({sc['share']:.1%}), "
                      f"peak {sc['peak_mb']:.0f} MB", flush=True)
    ok = all(r["summary"]["share"] <= GOAL_SHARE for r in results.values())
    if "moses" in results:
        ok &= results["moses"]["summary"]["peak_mb"] < GOAL_MOSES_MB
    print("goals met" if ok else "goals NOT met")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
