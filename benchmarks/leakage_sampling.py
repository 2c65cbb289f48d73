"""Validation of the sampled leakage estimator (`benchdesign leakage --sample N`) against the exact value.

For each dataset (QM8, MUV from the data mirror; ECFP4 1024-bit Tanimoto) two 80/20 splits are scored
exactly with the tiled leakage function: a random split and a cluster split (whole leader clusters
moved to the test fold, low leakage like S1). Then the sampled estimator runs with --pairs random pairs
for --seeds seeds; reported: coverage of the 95 % intervals of scaled L(pi) and of L(pi), the mean
estimate's deviation from the exact value in standard errors of that mean (unbiasedness), the mean
interval half-width, and the times.

    python benchmarks/leakage_sampling.py --datasets qm8 muv --seeds 500 --pairs 100000 --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from vs_datasail import mirror_root  # same folder: run as a script

FILES = {"qm8": "qm8.csv.gz", "muv": "muv.csv.gz"}


def cluster_split(src, seed: int) -> np.ndarray:
    """Whole leader clusters (1000 leaders) go to the test fold in random order until it holds 20 %."""
    from benchdesign.splitting.clustering import leader_labels

    rng = np.random.default_rng(seed)
    labels = leader_labels(src, 1000, rng)
    test = np.zeros(src.n, dtype=bool)
    for g in rng.permutation(labels.max() + 1):
        if test.sum() >= 0.2 * src.n:
            break
        test[labels == g] = True
    return np.where(test, "test", "train").astype(object)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=list(FILES), choices=list(FILES))
    ap.add_argument("--seeds", type=int, default=500)
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--json", help="write the figures to this JSON file")
    args = ap.parse_args(argv)

    from benchdesign.splitting.leakage import leakage_summary, sampled_leakage
    from benchdesign.splitting.similarity import FingerprintSimilarity, packed_fingerprints

    results = {}
    for name in args.datasets:
        path = mirror_root() / "mol" / "chemprop_moleculenet" / FILES[name]
        if not path.is_file():
            print(f"{name}: data file missing: {path}", file=sys.stderr)
            return 2
        packed, _ = packed_fingerprints(pd.read_csv(path)["smiles"].tolist())
        src = FingerprintSimilarity.from_packed(packed, 1024)
        rng = np.random.default_rng(0)
        splits = {"random": np.where(rng.permutation(src.n) < round(0.8 * src.n), "train", "test").astype(object),
                  "cluster": cluster_split(src, 1)}
        start = time.perf_counter()
        exact = dict(zip(splits, leakage_summary(src, list(splits.values())), strict=True))
        exact_s = time.perf_counter() - start
        for split, folds in splits.items():
            start = time.perf_counter()
            est = [sampled_leakage(src, folds, args.pairs, seed=s) for s in range(args.seeds)]
            sample_s = (time.perf_counter() - start) / args.seeds
            ex = exact[split]
            scaled = np.array([e.scaled for e in est])
            leak = np.array([e.leakage for e in est])
            row = {
                "n": src.n, "pairs": args.pairs, "seeds": args.seeds, "exact_scaled": ex.scaled,
                "exact_leakage": ex.leakage, "exact_seconds_both_splits": exact_s, "sample_seconds": sample_s,
                "coverage_scaled": float(np.mean([e.scaled_ci[0] <= ex.scaled <= e.scaled_ci[1] for e in est])),
                "coverage_leakage": float(np.mean([e.leakage_ci[0] <= ex.leakage <= e.leakage_ci[1] for e in est])),
                "mean_scaled": float(scaled.mean()),
                "bias_scaled_in_se": float((scaled.mean() - ex.scaled) / (scaled.std(ddof=1) / np.sqrt(scaled.size))),
                "bias_leakage_in_se": float((leak.mean() - ex.leakage) / (leak.std(ddof=1) / np.sqrt(leak.size))),
                "mean_halfwidth_scaled": float(np.mean([(e.scaled_ci[1] - e.scaled_ci[0]) / 2 for e in est])),
            }
            results[f"{name}/{split}"] = row
            print(f"{name} {split}: n={src.n} exact scaled L {ex.scaled:.5f}; sampled ({args.pairs} pairs, "
                  f"{args.seeds} seeds) mean {row['mean_scaled']:.5f}, +-{row['mean_halfwidth_scaled']:.5f}, "
                  f"coverage {row['coverage_scaled']:.3f} (L: {row['coverage_leakage']:.3f}), bias "
                  f"{row['bias_scaled_in_se']:+.2f} SE; exact {exact_s:.1f} s, sampled {sample_s:.3f} s", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
