"""What the series cap of `tsfresh_paper` (tsfresh's comprehensive set) costs: how far the dataset geometry
at a small cap lies from the geometry at a larger one.

Usage (from the repository root; raw .tsv files as the pipeline writes them, resources/tsc_raw/<name>/):

    python benchmarks/tsc_tsfresh_cap.py --raw resources/tsc_raw --caps 5 10 40 \
        --datasets 20 --out tsfresh_cap.csv

For the `--datasets` cheapest datasets (fewest values at the largest cap), computes `tsfresh_paper` at every
cap (seeded sub-samples, as the pipeline draws them), applies the paper's column filter to each matrix, keeps
the columns all caps share, standardises them over the datasets and reports, for every cap, the Spearman
correlation of its pairwise Euclidean and cosine distances with those at the largest cap, and the time spent.
A correlation near 1 means the cap leaves the selection geometry (what FAFI, k-means and the designs see)
unchanged.

With `--scores` (the pipeline's long TSC scores, results/prepared/tsc/scores.csv) it also measures the cost in
AUC: the dataset-pool protocol (the paper code's settings by default: farthest start, per-pool z-score) on the
sub-benchmark of the chosen datasets, once per cap, and for every strategy the AUC(MAE) and AUC(rho) at each cap,
their difference to the largest cap and a paired Wilcoxon p-value over the trials (the pools are the same):

    python benchmarks/tsc_tsfresh_cap.py --raw resources/tsc_raw --caps 10 40 --datasets 20 --cache capcache \
        --scores results/prepared/tsc/scores.csv --k 2 12 --out tsfresh_cap.csv

`--cache` keeps each cap's dataset vectors (one CSV per cap), so a rerun computes only the missing caps.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from scipy.spatial.distance import pdist

from benchdesign.domains.tsc.data import read_ucr_tsv
from benchdesign.domains.tsc.features import dataset_features, gather_features


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--raw", required=True, help="folder of <name>/<name>_{TRAIN,TEST}.tsv")
    parser.add_argument("--caps", nargs="+", type=int, default=[5, 10, 40])
    parser.add_argument("--datasets", type=int, default=20, help="how many of the cheapest datasets")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--n-jobs", type=int, default=1, help="tsfresh worker processes")
    parser.add_argument("--out", help="CSV of the per-cap figures")
    parser.add_argument("--cache", help="folder for each cap's dataset vectors (reused when present)")
    parser.add_argument("--scores", help="long scores CSV (dataset, model, fold, score; higher is better): "
                                         "also measure the AUC of every strategy at every cap")
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--k", nargs=2, type=int, default=[2, 12], metavar=("K_MIN", "K_MAX"))
    parser.add_argument("--fafi-start", default="farthest", choices=["nearest", "farthest"])
    parser.add_argument("--standardize", default="pool", choices=["all", "pool"])
    parser.add_argument("--jobs", type=int, default=1, help="processes for the protocol")
    args = parser.parse_args(argv)
    caps = sorted(set(args.caps))
    sizes = {}
    for folder in sorted(Path(args.raw).iterdir()):
        train, test = folder / f"{folder.name}_TRAIN.tsv", folder / f"{folder.name}_TEST.tsv"
        if train.is_file() and test.is_file():
            with open(train) as handle:
                length = len(handle.readline().split("\t")) - 1
            sizes[folder.name] = length
    if len(sizes) < 3:
        print(f"fewer than 3 datasets under {args.raw}", file=sys.stderr)
        return 2
    chosen = sorted(sizes, key=lambda n: (sizes[n], n))[: args.datasets]
    data = {n: (*read_ucr_tsv(Path(args.raw) / n / f"{n}_TRAIN.tsv"),
                *read_ucr_tsv(Path(args.raw) / n / f"{n}_TEST.tsv")) for n in chosen}
    matrices, seconds = {}, {}
    for cap in caps:
        cached = Path(args.cache) / f"tsfresh_paper_cap{cap}_seed{args.seed}.csv" if args.cache else None
        start = time.perf_counter()
        known = pd.read_csv(cached, index_col=0) if cached is not None and cached.is_file() else pd.DataFrame()
        new = [dataset_features("tsfresh_paper", *data[n], dataset=n, max_series=cap, seed=args.seed,
                                n_jobs=args.n_jobs) for n in chosen if n not in known.index]
        if cached is not None and new:
            cached.parent.mkdir(parents=True, exist_ok=True)
            known = pd.concat([known, pd.DataFrame(new)])
            known.rename_axis("dataset").to_csv(cached)
        seconds[cap] = time.perf_counter() - start
        vectors = [pd.DataFrame(new).loc[n] if n not in known.index else known.loc[n].rename(n) for n in chosen]
        matrices[cap], _, _ = gather_features(vectors, column_filter="paper")
        print(f"cap {cap}: {seconds[cap]:.1f} s ({len(new)} of {len(chosen)} datasets computed), "
              f"{matrices[cap].shape[1]} columns kept", flush=True)
    shared = sorted(set.intersection(*(set(m.columns) for m in matrices.values())))
    top = caps[-1]

    def standardised(cap):
        M = matrices[cap][shared].to_numpy()
        with np.errstate(invalid="ignore", divide="ignore"):
            return (M - M.mean(axis=0)) / M.std(axis=0)

    rows = []
    T = standardised(top)
    for cap in caps:
        Z = standardised(cap)
        ok = np.isfinite(Z).all(axis=0) & np.isfinite(T).all(axis=0)
        row = {"cap": cap, "datasets": len(chosen), "columns": int(ok.sum()), "seconds": seconds[cap]}
        for metric in ("euclidean", "cosine"):
            row[f"spearman_{metric}_vs_{top}"] = stats.spearmanr(pdist(Z[:, ok], metric),
                                                                 pdist(T[:, ok], metric))[0]
        rows.append(row)
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    print("datasets:", " ".join(chosen))
    if args.out:
        table.to_csv(args.out, index=False)
    if args.scores:
        auc = auc_by_cap(args, chosen, matrices, caps)
        print(auc.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        if args.out:
            auc.to_csv(Path(args.out).with_name(Path(args.out).stem + "_auc.csv"), index=False)
    return 0


def auc_by_cap(args, chosen, matrices, caps) -> pd.DataFrame:
    """AUC(MAE) and AUC(rho) of every strategy at every cap on the chosen datasets' sub-benchmark, the
    difference to the largest cap and a paired Wilcoxon p-value over the trials."""
    from benchdesign.selection.aggregation import trial_auc
    from benchdesign.selection.api import evaluate_benchmark

    scores = pd.read_csv(args.scores)
    scores = scores[scores["dataset"].isin(chosen)]
    missing = sorted(set(chosen) - set(scores["dataset"]))
    if missing:
        raise SystemExit(f"{args.scores} has no scores for {missing}")
    features = {f"cap{cap}": matrices[cap] for cap in caps}
    result = evaluate_benchmark(scores, features, True, n_trials=args.trials, ks=range(args.k[0], args.k[1] + 1),
                                seed=args.seed, oracle=False, n_jobs=args.jobs, fafi_start=args.fafi_start,
                                standardize=args.standardize, name="tsc")
    aucs = trial_auc(result.frames["trials"])
    aucs = aucs[aucs["metric"].isin(["mae", "spearman"])]
    rows = []
    for (strategy, metric), block in aucs.groupby(["strategy", "metric"], sort=False):
        by_rep = block.pivot(index="trial", columns="representation", values="auc")
        if strategy == "random":  # ignores the features: one row
            rows.append({"strategy": strategy, "metric": metric, "cap": None, "auc": by_rep["none"].mean()})
            continue
        top = by_rep[f"cap{caps[-1]}"]
        for cap in caps:
            diff = by_rep[f"cap{cap}"] - top
            p = stats.wilcoxon(by_rep[f"cap{cap}"], top).pvalue if (diff != 0).any() else float("nan")
            rows.append({"strategy": strategy, "metric": metric, "cap": cap, "auc": by_rep[f"cap{cap}"].mean(),
                         f"minus_cap{caps[-1]}": diff.mean(), "wilcoxon_p": p})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    sys.exit(main())
