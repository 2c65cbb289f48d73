"""k-means selection on a wide representation: in the coordinates of the pool rows' span (``select_kmeans``) or in
the representation's own columns (as before), with the CPU seconds of each and how many selections differ.

A representation with more columns than datasets (MiniRocket: 9,996 columns, 105 TSC datasets) is clustered by
``select_kmeans`` in the m coordinates of its m pool rows' span, which keep every distance. This script draws the
protocol's kind of selections (pools of floor(alpha n) rows, several k) from one seed and runs them both ways.

Usage (from the repository root, after a default run has written the representation)::

    python benchmarks/kmeans_span.py results/prepared/tsc/representation_minirocket.csv --compare
    python benchmarks/kmeans_span.py results/prepared/tsc/representation_minirocket.csv             # span only
    python benchmarks/kmeans_span.py results/prepared/tsc/representation_minirocket.csv --columns   # columns only

Measured on 2026-12-07 on the default run's MiniRocket table (40 pools x k in 2, 5, 10, 20, 30, one thread), the
whole process, median of 3 runs on an idle machine: span 4.4 CPU-s, columns 21.3 CPU-s (ratio 0.21; about 1.5 s of
each is imports and reading the table). ``--compare``: 11 of 200 selections differ, at exact k-means++ ties that
rounding breaks (see ``strategies._span_coordinates``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from benchdesign.selection import standardize_rows, strategies


def draws(n: int, alpha: float, ks: list[int], n_pools: int, seed: int) -> list[tuple[np.ndarray, int, int]]:
    """(pool, k, seed of the selection) for ``n_pools`` pools of floor(alpha n) rows and every k."""
    rng = np.random.default_rng(seed)
    size = int(np.floor(alpha * n))
    out = []
    for _ in range(n_pools):
        pool = np.sort(rng.choice(n, size, replace=False))
        out.extend((pool, k, int(rng.integers(2**31 - 1))) for k in ks if k <= size)
    return out


def select_in_columns(X: np.ndarray, k: int, pool: np.ndarray, seed: int, n_init: int) -> np.ndarray:
    """``select_kmeans`` as it was: k-means and the nearest rows in the representation's own columns."""
    Z = X[pool]
    centers, _, _ = strategies.kmeans(Z, k, np.random.default_rng(seed), n_init=n_init)
    return pool[strategies._nearest_distinct(Z, centers)]


def select_in_span(X: np.ndarray, k: int, pool: np.ndarray, seed: int, n_init: int) -> np.ndarray:
    """``select_kmeans`` (span coordinates)."""
    return strategies.select_kmeans(X, k, pool, np.random.default_rng(seed), n_init=n_init)


def run(select, X: np.ndarray, calls, n_init: int) -> tuple[list[np.ndarray], float]:
    """The selections of every call and the CPU seconds (user + system) they took."""
    start = time.process_time()
    out = [select(X, k, pool, seed, n_init) for pool, k, seed in calls]
    return out, time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("representation", type=Path, help="CSV: one row per dataset, first column its name")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--columns", action="store_true", help="only the representation's own columns")
    how.add_argument("--compare", action="store_true", help="both ways, and the selections that differ")
    parser.add_argument("--pools", type=int, default=40, help="pools drawn (default 40)")
    parser.add_argument("--ks", type=int, nargs="+", default=[2, 5, 10, 20, 30], help="subset sizes")
    parser.add_argument("--alpha", type=float, default=0.8, help="pool fraction (default 0.8, the protocol's)")
    parser.add_argument("--n-init", type=int, default=3, help="k-means restarts (default 3, the config's)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not args.representation.is_file():
        print(f"error: {args.representation} not found (a default run writes it)", file=sys.stderr)
        return 2
    X = standardize_rows(pd.read_csv(args.representation, index_col=0).to_numpy(float))
    calls = draws(X.shape[0], args.alpha, args.ks, args.pools, args.seed)
    print(f"{X.shape[0]} datasets x {X.shape[1]} columns; {len(calls)} selections")
    with threadpool_limits(1):
        if not args.columns:
            span, cpu = run(select_in_span, X, calls, args.n_init)
            print(f"span coordinates: {cpu:.2f} CPU-s")
        if args.columns or args.compare:
            columns, cpu = run(select_in_columns, X, calls, args.n_init)
            print(f"own columns: {cpu:.2f} CPU-s")
    if args.compare:
        differ = sum(not np.array_equal(a, b) for a, b in zip(span, columns))
        print(f"selections that differ: {differ} of {len(calls)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
