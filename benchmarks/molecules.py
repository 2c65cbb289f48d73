"""Where the time of a molecular-experiments run goes, from the pipeline's own per-job measurements.

Usage (from the repository root), after a run such as
`snakemake --cores 2 --configfile config/config.yaml config/molecules_only.yaml --config mirror=../shared/data`:

    python benchmarks/molecules.py --from-jobs WORKDIR   # the directory snakemake ran in (holds logs/)

Reads the Snakemake `benchmark:` files the molecule rules write under logs/benchmarks/molecules/
(one TSV per job) and prints, per job group, the number of jobs and their summed and mean wall time
and summed CPU time: models per model name, splits per split method, Fig. 6 points per sweep, and
the per-dataset features and t-SNE jobs. Job wall times include 2-3 s of interpreter start-up.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

BENCHMARKS = Path("logs/benchmarks/molecules")


def job_group(relative: Path) -> tuple[str, str]:
    """(kind, name) of one benchmark file, from its path below logs/benchmarks/molecules:
    <dataset>/scores/<method>/<repeat>/<model>.tsv -> (model, <model>), or models.tsv (molecules.model_jobs:
    per_split, one job fitting every model; each model's seconds are in its score file) -> (model, models);
    <dataset>/splits/<method>/<repeat>.tsv -> (split, <method>);
    ablation/<sweep>/<point>.tsv -> (ablation, <sweep>); <dataset>/<job>.tsv -> (other, <job>)."""
    parts = relative.with_suffix("").parts
    if parts[0] == "ablation":
        return "ablation", parts[1]
    if len(parts) > 2 and parts[1] == "scores":
        return "model", parts[-1]
    if len(parts) > 2 and parts[1] == "splits":
        return "split", parts[2]
    return "other", parts[-1]


def summarise_jobs(workdir: Path) -> pd.DataFrame:
    """Per (kind, name): jobs, summed wall s, mean wall s, summed CPU s."""
    root = workdir / BENCHMARKS
    files = sorted(root.rglob("*.tsv"))
    if not files:
        raise FileNotFoundError(f"no job measurements under {root}")
    jobs = pd.DataFrame([dict(zip(("kind", "name"), job_group(f.relative_to(root))),
                              **pd.read_csv(f, sep="\t").iloc[-1][["s", "cpu_time"]].to_dict()) for f in files])
    return (jobs.groupby(["kind", "name"])
            .agg(jobs=("s", "size"), wall_s=("s", "sum"), mean_wall_s=("s", "mean"), cpu_s=("cpu_time", "sum"))
            .reset_index())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from-jobs", required=True, metavar="WORKDIR", help="directory snakemake ran in")
    parser.add_argument("--out", help="also write the summary as CSV")
    args = parser.parse_args(argv)
    try:
        summary = summarise_jobs(Path(args.from_jobs))
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(summary.round(1).to_string(index=False))
    print(f"all: {summary['jobs'].sum()} jobs, {summary['wall_s'].sum():.0f} s wall, "
          f"{summary['cpu_s'].sum():.0f} s CPU (summed over jobs)")
    if args.out:
        summary.to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
