"""Trace the leaks that ``proteins_scale.py``'s evaluator finds in a split: each sampled test sequence with a
training neighbour above the threshold, re-aligned the ways the project's threshold check and the exact reference
align it.

For every such pair (test, train), the identity (MMseqs2 fident over an alignment covering >= 80 % of both) by:

- ``evaluator``: the evaluator's search (every pair aligned, MMseqs2's default masking and composition-bias
  correction), test as query;
- ``evaluator_swapped``: the same with train as query;
- ``check``: the search of the project's threshold check with ``--exact-check`` (``mmseqs.check_settings``: every
  pair aligned, low-complexity regions aligned, no composition-bias correction), test as query;
- ``smith_waterman``: parasail's Smith-Waterman with the same coverage rule (``alignment.covered_identities``).

    python benchmarks/trace_leaks.py --table W/evolved_100k/evolved_100k.csv --split W/evolved_100k/project_exact.tsv

``--table`` is the dataset CSV ``proteins_scale.py`` writes into its work folder (columns id, sequence); ``--split``
a ``benchdesign split`` TSV of it (column split: train / test).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.splitting.alignment import covered_identities
from benchdesign.splitting.mmseqs import IdentitySettings, check_settings, cross_search

SCALE = Path(__file__).resolve().with_name("proteins_scale.py")


def _scale_module():
    spec = importlib.util.spec_from_file_location("proteins_scale", SCALE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pair_identity(a: str, b: str, settings: IdentitySettings) -> float:
    """MMseqs2 identity of query ``a`` against target ``b`` under ``settings`` (0 without a qualifying alignment)."""
    hits = cross_search([a], [b], settings, threads=1)
    return float(hits["identity"].max()) if len(hits) else 0.0


def trace(sequences: list[str], folds: np.ndarray, samples: int, seed: int, threshold: float) -> pd.DataFrame:
    """The evaluator's sampled test sequences above ``threshold``, each nearest pair scored four ways."""
    scale = _scale_module()
    sample = scale.sample_test(folds, samples, seed)
    train = np.flatnonzero(folds == 0)
    evaluator = IdentitySettings(coverage=scale.COVERAGE, coverage_mode=0, exhaustive=True)
    check = check_settings(IdentitySettings(coverage=scale.COVERAGE, coverage_mode=0, exact_check=True), 1)
    hits = cross_search([sequences[i] for i in sample], [sequences[i] for i in train], evaluator)
    hits = hits[hits["identity"] > threshold]
    rows = []
    for _, h in hits.sort_values("identity", ascending=False).iterrows():
        i, j = int(sample[int(h["query"])]), int(train[int(h["target"])])
        a, b = sequences[i], sequences[j]
        rows.append({"test": i, "train": j, "test_length": len(a), "train_length": len(b),
                     "evaluator": float(h["identity"]), "evaluator_swapped": pair_identity(b, a, evaluator),
                     "check": pair_identity(a, b, check),
                     "smith_waterman": float(covered_identities([a, b], np.array([0]), np.array([1]),
                                                                scale.COVERAGE, 0)[0])})
    return pd.DataFrame(rows, columns=["test", "train", "test_length", "train_length", "evaluator",
                                       "evaluator_swapped", "check", "smith_waterman"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", type=Path, required=True, help="dataset CSV (columns id, sequence)")
    ap.add_argument("--split", type=Path, required=True, help="benchdesign split TSV of it (train / test)")
    ap.add_argument("--samples", type=int, default=150, help="sampled test sequences (as proteins_scale.py)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threshold", type=float, default=0.3)
    args = ap.parse_args(argv)
    table = pd.read_csv(args.table)
    split = pd.read_csv(args.split, sep="\t", keep_default_na=False)
    if len(split) != len(table) or not (split["id"].astype(str).to_numpy() == table["id"].astype(str).to_numpy()).all():
        print(f"error: {args.split} does not list the ids of {args.table} in its order", file=sys.stderr)
        return 2
    labels = split["split"].astype(str)
    folds = np.select([labels == "train", labels == "test"], [0, 1], -1)
    out = trace(table["sequence"].tolist(), folds, args.samples, args.seed, args.threshold)
    print(f"{len(out)} sampled test-training pairs above {args.threshold:g} by the evaluator's search")
    print(out.to_string(index=False, float_format=lambda v: f"{v:.3f}") if len(out) else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
