"""What the series cap of `tsfresh_paper` (tsfresh's comprehensive set) costs: how far the dataset geometry
at a small cap lies from the geometry at a larger one.

Usage (from the repository root; raw .tsv files as the pipeline writes them, resources/tsc_raw/<name>/):

    python benchmarks/tsc_tsfresh_cap.py --raw /work/tscrun2/resources/tsc_raw --caps 5 10 40 \
        --datasets 20 --out /tmp/tsfresh_cap.csv

For the `--datasets` cheapest datasets (fewest values at the largest cap), computes `tsfresh_paper` at every
cap (seeded sub-samples, as the pipeline draws them), applies the paper's column filter to each matrix, keeps
the columns all caps share, standardises them over the datasets and reports, for every cap, the Spearman
correlation of its pairwise Euclidean and cosine distances with those at the largest cap, and the time spent.
A correlation near 1 means the cap leaves the selection geometry (what FAFI, k-means and the designs see)
unchanged.
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
        start = time.perf_counter()
        vectors = [dataset_features("tsfresh_paper", *data[n], dataset=n, max_series=cap, seed=args.seed,
                                    n_jobs=args.n_jobs) for n in chosen]
        seconds[cap] = time.perf_counter() - start
        matrices[cap], _, _ = gather_features(vectors, column_filter="paper")
        print(f"cap {cap}: {seconds[cap]:.1f} s, {matrices[cap].shape[1]} columns kept", flush=True)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
