"""Fit time and score of single model fits of the molecular experiments, one thread.

`boosting`: xgb (XGBoost defaults, 100 and 30 rounds) against hgb (HistGradientBoosting, 30 iterations, the old
default config, and its default 100) on the default config's sub-samples of QM8 (3,000 molecules, 12 targets) and
Tox21 (2,000, 12 tasks), 80/20 seeded, ECFP4 1024 bits. `deepdta`: seconds per epoch of DeepDTA with the paper's
(LP-PDBBind) settings on a seeded sub-sample of DAVIS pairs (80 % training), CPU. Inputs from the mirror
(BENCHDESIGN_MIRROR, default ../shared/data beside the repository). The figures are quoted in
docs/performance.md ("XGBoost and DeepDTA fits").

    python benchmarks/model_fits.py boosting
    python benchmarks/model_fits.py deepdta --epochs 1 --pairs 5000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from vs_datasail import mirror_root  # same folder: run as a script

from benchdesign.molexp.datasets import dataset_info, load_molecules, load_pairs, subsample_rows


def boosting() -> None:
    from benchdesign.molexp.features import molecule_fingerprints
    from benchdesign.molexp.models import fit_predict, score

    for name, cap in (("qm8", 3000), ("tox21", 2000)):
        info = dataset_info(name)
        table, _ = load_molecules(info, str(mirror_root() / info.files[0]))
        table = table.iloc[subsample_rows(len(table), cap, seed=0)].reset_index(drop=True)
        x = molecule_fingerprints(table["smiles"].tolist())
        y = table[list(info.targets)].to_numpy(float)
        order = np.random.default_rng(0).permutation(len(x))
        tr, te = order[: int(0.8 * len(x))], order[int(0.8 * len(x)):]
        for model, opts in (("xgb", {}), ("xgb", {"n_estimators": 30}), ("hgb", {"max_iter": 30}), ("hgb", {})):
            start = time.perf_counter()
            pred = fit_predict(model, info.task_type, x[tr], y[tr], x[te], seed=0, n_jobs=1, **opts)
            seconds = time.perf_counter() - start
            print(f"{name} {model} {opts}: {seconds:.1f} s, {info.metric} {score(info.metric, y[te], pred):.4f}",
                  flush=True)


def deepdta(epochs: int, n_pairs: int) -> None:
    from benchdesign.molexp.deepdta import DeepDTA

    info = dataset_info("davis")
    tables = load_pairs(info, *(str(mirror_root() / f) for f in info.files))
    pairs = tables.pairs.iloc[subsample_rows(len(tables.pairs), n_pairs, seed=0)].reset_index(drop=True)
    smiles = tables.drugs.set_index("id")["smiles"][pairs["drug_id"]].tolist()
    seqs = tables.targets.set_index("id")["sequence"][pairs["target_id"]].tolist()
    y = pairs["label"].to_numpy(float)
    n = int(0.8 * len(y))
    start = time.perf_counter()
    model = DeepDTA(seed=0, epochs=epochs, n_jobs=1).fit(smiles[:n], seqs[:n], y[:n])
    fit = time.perf_counter() - start
    pred = model.predict(smiles[n:], seqs[n:])
    print(f"{epochs} epochs on {n} pairs: fit {fit:.1f} s ({fit / epochs:.1f} s/epoch), predict "
          f"{time.perf_counter() - start - fit:.1f} s; test RMSE {np.sqrt(np.mean((pred - y[n:]) ** 2)):.3f}, "
          f"mean-only {np.sqrt(np.mean((y[:n].mean() - y[n:]) ** 2)):.3f}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=("boosting", "deepdta"))
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--pairs", type=int, default=5000)
    args = p.parse_args()
    boosting() if args.what == "boosting" else deepdta(args.epochs, args.pairs)


if __name__ == "__main__":
    main()
