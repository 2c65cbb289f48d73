"""How closely each dataset's mean MiniRocket vector follows the quantile pattern 1 - q_j, with the one shared
transform and with a transform fitted inside the dataset (the UCR datasets bundled with sktime).

Usage (from the repository root):  python benchmarks/tsc_minirocket_pattern.py [--series 100] [--seed 0]

Shared: fitted on 50 series of each of the five datasets, padded or trimmed to 512 points, 10,000 kernels (as
the pipeline's rule tsc_minirocket_fit). Both are applied to the same seeded sample of at most --series
series.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

from benchdesign.domains.tsc.data import read_ucr_ts
from benchdesign.domains.tsc.features import subsample_indices
from benchdesign.domains.tsc.minirocket import fit_minirocket, fit_sample, minirocket_features

BUNDLED = ("ACSF1", "ArrowHead", "GunPoint", "ItalyPowerDemand", "OSULeaf")


def main(argv=None) -> int:
    from sktime.transformations.rocket import MiniRocketMultivariate
    from sktime.transformations.rocket._minirocket_multi_numba import _quantiles

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--series", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    root = Path(importlib.util.find_spec("sktime").submodule_search_locations[0]) / "datasets" / "data"
    data = {n: np.vstack([read_ucr_ts(root / n / f"{n}_{s}.ts")[0] for s in ("TRAIN", "TEST")])
            for n in BUNDLED}
    shared = fit_minirocket(fit_sample(data, 50, 512, args.seed), 10_000, random_state=args.seed)
    print(f"{'dataset':18s} shared  per-dataset   (correlation of the mean vector with 1 - q_j)")
    for name, X in data.items():
        X = X[subsample_indices(X.shape[0], args.series, np.random.default_rng(args.seed))]
        mean_shared = minirocket_features(X, shared).to_numpy().mean(axis=0)
        own = np.asarray(MiniRocketMultivariate(num_kernels=10_000, random_state=args.seed).fit_transform(X[:, None, :]))
        r_shared = np.corrcoef(mean_shared, 1 - _quantiles(mean_shared.size))[0, 1]
        r_own = np.corrcoef(own.mean(axis=0), 1 - _quantiles(own.shape[1]))[0, 1]
        print(f"{name:18s} {r_shared:6.3f}  {r_own:6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
