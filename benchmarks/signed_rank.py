"""Time the conclusion-stability p-values: `signed_rank_pvalues` against scipy's `wilcoxon` on the same differences.

Usage (from the repository root):

    python benchmarks/signed_rank.py --n 8 10 --pairs 595 --repeat 3

For every n, an (n, pairs) matrix of paired differences with ties and zeros (rounded normal values, as fold-
averaged accuracies of a few datasets are), the best of ``--repeat`` timings of each function, and the largest
difference between their p-values. 595 pairs = 35 models (the TSC bake-off).
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
from scipy.stats import wilcoxon

from benchdesign.selection.statistics import signed_rank_pvalues


def best_time(function, repeat: int) -> tuple[float, np.ndarray]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = function()
        times.append(time.perf_counter() - start)
    return min(times), np.asarray(out, dtype=float)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--n", nargs="+", type=int, default=[8, 10], help="paired differences (datasets)")
    parser.add_argument("--pairs", type=int, default=595, help="columns (model pairs)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print(f"{'n':>3} {'pairs':>6} {'scipy s':>10} {'counted s':>10} {'max |dp|':>10}")
    for n in args.n:
        d = np.round(rng.normal(size=(n, args.pairs)), 1)  # ties and zeros
        d[:, np.all(d == 0, axis=0)] = 0.1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_scipy, p_scipy = best_time(lambda: wilcoxon(d, axis=0, zero_method="wilcox").pvalue, args.repeat)
        t_ours, p_ours = best_time(lambda: signed_rank_pvalues(d), args.repeat)
        print(f"{n:>3} {args.pairs:>6} {t_scipy:>10.4f} {t_ours:>10.4f} {np.max(np.abs(p_scipy - p_ours)):>10.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
