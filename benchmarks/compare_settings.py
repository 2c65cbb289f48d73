"""Side-by-side Table 1 / Table 3 of several pipeline runs of one domain (e.g. the paper's settings and ours).

Each argument is NAME=DIR, DIR a Snakemake working directory whose ``results/tables/`` holds the
dataset-pool tables (``table1_auc.csv``, ``table3_summary.csv``). Prints Markdown: AUC(MAE) and AUC(rho)
of every (strategy, representation) in every run (``-`` where a run lacks the pair), then each run's
Table 3 line (best a-priori method, its gain over random, Holm p).

    python benchmarks/compare_settings.py --domain tsc project=runs/project paper=runs/paper
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

METRICS = {"mae": "AUC(MAE) ↓", "spearman": "AUC(ρ) ↑"}


def read_run(name: str, directory: Path, domain: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    tables = directory / "results" / "tables"
    auc = pd.read_csv(tables / "table1_auc.csv")
    auc = auc[(auc["domain"] == domain) & auc["metric"].isin(list(METRICS))].assign(run=name)
    summary = pd.read_csv(tables / "table3_summary.csv")
    return auc, summary[(summary["domain"] == domain) & summary["metric"].isin(list(METRICS))].assign(run=name)


def auc_table(auc: pd.DataFrame, runs: list[str]) -> str:
    wide = auc.pivot_table(index=["strategy", "representation"], columns=["metric", "run"], values="auc_mean")
    cols = [(m, r) for m in METRICS for r in runs if (m, r) in wide.columns]
    wide = wide[cols].round({c: 2 if c[0] == "mae" else 3 for c in cols})
    wide.columns = [f"{METRICS[m]} {r}" for m, r in cols]
    return wide.reset_index().fillna("-").to_markdown(index=False)


def summary_table(summary: pd.DataFrame) -> str:
    keep = ["run", "metric", "best_strategy", "best_representation", "best_auc", "random_auc", "gain_vs_random",
            "p_holm_vs_random", "closest_strategy", "closest_representation", "closest_p_holm"]
    return summary[keep].to_markdown(index=False, floatfmt=".3g")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", metavar="NAME=DIR")
    parser.add_argument("--domain", default="tsc")
    args = parser.parse_args()
    pairs = [run.split("=", 1) for run in args.runs]
    if any(len(p) != 2 for p in pairs):
        parser.error("every run must be given as NAME=DIR")
    read = [read_run(name, Path(d), args.domain) for name, d in pairs]
    auc = pd.concat([a for a, _ in read])
    summary = pd.concat([s for _, s in read])
    print(auc_table(auc, [name for name, _ in pairs]))
    print()
    print(summary_table(summary))


if __name__ == "__main__":
    main()
