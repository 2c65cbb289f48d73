"""The models x splits table of the 2-D experiment (DataSAIL Fig. 4) from a run's result tables.

Usage (from the repository root), after
`snakemake --cores 2 --configfile config/config.yaml config/experiments/fig4_2d.yaml --config mirror=../shared/data`:

    python benchmarks/fig4_table.py [--dir WORKDIR] [--datasets davis kiba] [--methods random i1_drug ...]

Prints, per dataset, one Markdown row per split method (the order of --methods, else alphabetical): the mean over
the repeats of each side's scaled L(π) (drug_leakage, target_leakage), of both halves (scaled_leakage), of the
pairs dropped, and of each model's test score (the columns of results/tables/split_summary.md, without the sd).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

LEAKAGE = ("drug_leakage", "target_leakage", "scaled_leakage", "n_dropped")


def models_by_splits(leakage: pd.DataFrame, performance: pd.DataFrame, dataset: str,
                     methods: list[str] | None = None) -> pd.DataFrame:
    """Per split method of ``dataset``: mean side leakages, pairs dropped and each model's mean score."""
    leak = leakage[(leakage["dataset"] == dataset) & (leakage["status"] == "ok")]
    means = leak.groupby("split_method")[list(LEAKAGE)].mean()
    scores = performance[performance["dataset"] == dataset].pivot_table(index="split_method", columns="model",
                                                                        values="value")
    table = means.join(scores)
    return table.reindex(methods or sorted(table.index))


def markdown(table: pd.DataFrame, metric: str) -> str:
    models = [c for c in table.columns if c not in LEAKAGE]
    head = ["split", "L(π) drugs", "L(π) targets", "L(π) pairs", "pairs dropped", *(f"{m} {metric}" for m in models)]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for method, row in table.iterrows():
        cells = [f"{row[c]:.3f}" for c in LEAKAGE[:3]] + [f"{row['n_dropped']:,.0f}"] + [f"{row[m]:.3f}" for m in models]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("."), help="the run's working directory")
    parser.add_argument("--datasets", nargs="+", default=["davis", "kiba"])
    parser.add_argument("--methods", nargs="+", default=None)
    args = parser.parse_args(argv)
    leakage = pd.read_csv(args.dir / "results/tables/split_leakage.csv")
    performance = pd.read_csv(args.dir / "results/tables/split_performance.csv")
    for dataset in args.datasets:
        metric = performance.loc[performance["dataset"] == dataset, "metric"].iloc[0].upper()
        print(f"{dataset}\n\n{markdown(models_by_splits(leakage, performance, dataset, args.methods), metric)}\n")


if __name__ == "__main__":
    main()
