"""Validation of the sampled leakage estimator (`benchdesign leakage --sample N`) against the exact value.

For each dataset (QM8, MUV from the data mirror; ECFP4 1024-bit Tanimoto) two 80/20 splits are scored
exactly with the tiled leakage function: a random split and a cluster split (whole leader clusters
moved to the test fold, low leakage like S1). Then the sampled estimator runs with --pairs pairs for
--seeds seeds, in each design of --designs (the fold-pair stratified default and the iid pairs it
replaced); reported per design: coverage of the 95 % intervals of scaled L(pi) and of L(pi) (with the
binomial standard error of a coverage over that many seeds), the mean estimate's deviation from the exact
value in standard errors of that mean (unbiasedness), the spread of the estimates over the seeds against
the mean reported standard error, the mean interval half-widths, and the time per estimate.

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


def score_design(src, folds, ex, design: str, pairs: int, seeds: int) -> dict:
    """Coverage, bias, spread, half-widths and time of ``seeds`` sampled estimates against the exact ``ex``."""
    from benchdesign.splitting.leakage import sampled_leakage

    start, start_cpu = time.perf_counter(), time.process_time()
    est = [sampled_leakage(src, folds, pairs, seed=s, design=design) for s in range(seeds)]
    sample_s, sample_cpu = (time.perf_counter() - start) / seeds, (time.process_time() - start_cpu) / seeds
    scaled = np.array([e.scaled for e in est])
    leak = np.array([e.leakage for e in est])
    cover = float(np.mean([e.scaled_ci[0] <= ex.scaled <= e.scaled_ci[1] for e in est]))
    return {
        "design": design, "pairs": pairs, "seeds": seeds, "exact_scaled": ex.scaled, "exact_leakage": ex.leakage,
        "sample_seconds": sample_s, "sample_cpu_seconds": sample_cpu, "coverage_scaled": cover,
        "coverage_leakage": float(np.mean([e.leakage_ci[0] <= ex.leakage <= e.leakage_ci[1] for e in est])),
        "coverage_se": float(np.sqrt(0.95 * 0.05 / seeds)),  # of a coverage over `seeds` seeds at 95 %
        "mean_scaled": float(scaled.mean()),
        "bias_scaled_in_se": float((scaled.mean() - ex.scaled) / (scaled.std(ddof=1) / np.sqrt(seeds))),
        "bias_leakage_in_se": float((leak.mean() - ex.leakage) / (leak.std(ddof=1) / np.sqrt(seeds))),
        "spread_over_se_scaled": float(scaled.std(ddof=1) / np.mean([e.scaled_se for e in est])),
        "spread_over_se_leakage": float(leak.std(ddof=1) / np.mean([e.leakage_se for e in est])),
        "mean_halfwidth_scaled": float(np.mean([(e.scaled_ci[1] - e.scaled_ci[0]) / 2 for e in est])),
        "mean_halfwidth_leakage": float(np.mean([(e.leakage_ci[1] - e.leakage_ci[0]) / 2 for e in est])),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=list(FILES), choices=list(FILES))
    ap.add_argument("--seeds", type=int, default=500)
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--designs", nargs="+", default=["fold_pairs", "iid"], choices=["fold_pairs", "iid"])
    ap.add_argument("--json", help="write the figures to this JSON file")
    args = ap.parse_args(argv)

    from benchdesign.splitting.leakage import leakage_summary
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
            for design in args.designs:
                row = score_design(src, folds, exact[split], design, args.pairs, args.seeds)
                row.update({"n": src.n, "exact_seconds_both_splits": exact_s})
                results[f"{name}/{split}/{design}"] = row
                print(f"{name} {split} {design}: n={src.n} exact scaled L {row['exact_scaled']:.5f}; sampled "
                      f"({args.pairs} pairs, {args.seeds} seeds) mean {row['mean_scaled']:.5f}, "
                      f"+-{row['mean_halfwidth_scaled']:.5f}, coverage {row['coverage_scaled']:.3f} "
                      f"(L: {row['coverage_leakage']:.3f}; se {row['coverage_se']:.3f}), bias "
                      f"{row['bias_scaled_in_se']:+.2f} SE (L: {row['bias_leakage_in_se']:+.2f}), spread / se "
                      f"{row['spread_over_se_scaled']:.3f}; exact {exact_s:.1f} s, sampled "
                      f"{row['sample_seconds']:.3f} s (CPU {row['sample_cpu_seconds']:.3f} s)", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
