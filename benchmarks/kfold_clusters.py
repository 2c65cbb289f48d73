"""What the number of clusters K costs a k-fold split, and what it buys: CPU seconds and leakage at K = 20 and 50.

The k-fold ILP (3 or more equal folds) uses the product (RLT) form, whose LP has one variable per cluster pair and
fold (K^2 k / 2): its root LP and cut rounds dominate the run at K = 50. For each data set, fold count and K this
runs ``LeakageKFold(k, similarity=smiles, clusters=K, random_state=0)`` once in this process and prints the CPU
seconds (user + system of this process: HiGHS runs on one thread inside it), the scaled L(pi) of the folds and
that of random folds of the same sizes (the certificate's mean over 3 seeds), and writes the rows as CSV.

    python benchmarks/kfold_clusters.py --out benchmarks/results/kfold_clusters.csv                  # examples
    python benchmarks/kfold_clusters.py --mirror ../shared/data --datasets examples tox21 \\
        --out benchmarks/results/kfold_clusters.csv
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import pandas as pd

from benchdesign.examples import example_file
from benchdesign.splitting import LeakageKFold, smiles_fingerprints

TOX21 = Path("mol") / "chemprop_moleculenet" / "tox21.csv"


def load_smiles(name: str, mirror: Path | None) -> list[str]:
    """The parsable SMILES of ``examples`` (the shipped 200 BBBP molecules) or ``tox21`` (from the mirror)."""
    if name == "examples":
        path = example_file("mols.csv")
    elif mirror is None:
        raise SystemExit(f"data set {name!r} needs --mirror (a directory holding {TOX21})")
    else:
        path = mirror / TOX21
    smiles = pd.read_csv(path)["smiles"]
    _, valid = smiles_fingerprints(smiles)
    return smiles[valid].tolist()


def cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def measure(smiles: list[str], folds: int, clusters: int) -> dict:
    """One k-fold split: CPU seconds, scaled L(pi) and that of random folds of the same sizes."""
    start = cpu_seconds()
    cv = LeakageKFold(folds, similarity=smiles, clusters=clusters, random_state=0)
    next(cv.split(smiles))
    report = cv.report_
    return {"folds": folds, "clusters": clusters, "cpu_s": round(cpu_seconds() - start, 1),
            "scaled_leakage": round(report["scaled_leakage"], 4),
            "random_scaled_leakage": round(report["certificate"]["random_scaled_leakage"], 4),
            "solver_status": report["solver_status"], "solver_nodes": report.get("solver_nodes")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["examples"], choices=["examples", "tox21"])
    parser.add_argument("--mirror", type=Path, default=None, help="data mirror (for tox21)")
    parser.add_argument("--folds", nargs="+", type=int, default=[3, 5])
    parser.add_argument("--clusters", nargs="+", type=int, default=[20, 50])
    parser.add_argument("--out", type=Path, default=None, help="CSV of the rows")
    args = parser.parse_args()
    rows = []
    for name in args.datasets:
        smiles = load_smiles(name, args.mirror)
        for folds in args.folds:
            for clusters in args.clusters:
                row = {"dataset": name, "n": len(smiles), **measure(smiles, folds, clusters)}
                print(row, flush=True)
                rows.append(row)
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"wall {time.perf_counter() - start:.0f} s")
