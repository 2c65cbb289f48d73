"""Class balance of 5-fold S1 on one Tox21 task: the paper's eq. (15) against the two-sided class bound.

Three splits of the molecules labelled for ``--task`` (and read by RDKit) (default SR-ARE, 16 % active), each a 5-fold S1 split
(``LeakageKFold`` with every option at its default but the stratification):

- ``unstratified``: no class labels (``stratify=False``);
- ``paper``: ``stratification='paper'``, the paper's eq. (15): every fold holds >= (1 - delta) s_i n_c of
  every class, no upper bound;
- ``two_sided``: the default, (1 - delta) s_i n_c <= count <= (1 + delta) s_i n_c.

Per split: the share of actives in each fold (and their range), the scaled L(pi) (eq. 20) of all folds and
the largest of "fold i vs the other folds", and the seconds. Run from the repository root:

    python benchmarks/class_balance.py --mirror ../shared/data --task SR-ARE --json class_balance.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.splitting import LeakageKFold
from benchdesign.splitting.similarity import FingerprintSimilarity, packed_fingerprints

SETTINGS = {
    "unstratified": {"stratify": False},
    "paper": {"stratify": True, "stratification": "paper"},
    "two_sided": {"stratify": True, "stratification": "two_sided"},
}


def labelled_molecules(mirror: Path, task: str) -> tuple[list[str], np.ndarray]:
    """SMILES and 0/1 labels of the Tox21 molecules labelled for ``task`` that RDKit reads (rows without a
    label or with an unreadable SMILES dropped)."""
    df = pd.read_csv(mirror / "mol" / "chemprop_moleculenet" / "tox21.csv")
    if task not in df.columns:
        raise ValueError(f"task {task!r} is not a column of tox21.csv; columns: {', '.join(df.columns[1:])}")
    df = df[df[task].notna()].reset_index(drop=True)
    df = df[packed_fingerprints(df["smiles"].tolist())[1]].reset_index(drop=True)
    return df["smiles"].tolist(), df[task].to_numpy().astype(int)


def measure(similarity, y: np.ndarray, folds: int, seed: int, delta: float, clusters: int | None) -> dict:
    """The per-fold active shares, scaled L(pi) and seconds of every setting of :data:`SETTINGS`."""
    out = {}
    for name, options in SETTINGS.items():
        cv = LeakageKFold(folds, similarity=similarity, random_state=seed, delta=delta, clusters=clusters, **options)
        start = time.perf_counter()
        tests = [test for _, test in cv.split(np.zeros((y.size, 1)), y)]
        seconds = time.perf_counter() - start
        shares = [float(y[t].mean()) for t in tests]
        out[name] = {
            "active_share": shares, "share_range": [min(shares), max(shares)],
            "fold_sizes": [int(t.size) for t in tests], "scaled_leakage": cv.scaled_leakage_,
            "max_fold_leakage": float(cv.fold_leakage_.max()), "solver_status": cv.report_.get("solver_status"),
            "seconds": round(seconds, 1),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=Path("../shared/data"))
    ap.add_argument("--task", default="SR-ARE")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--delta", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--clusters", type=int, help="K of the ILP (default: min(50, n))")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    smiles, y = labelled_molecules(args.mirror, args.task)
    similarity = FingerprintSimilarity.from_smiles(smiles)
    result = {"task": args.task, "n": int(y.size), "active_share": float(y.mean()), "folds": args.folds,
              "delta": args.delta, "seed": args.seed, "clusters": args.clusters,
              "settings": measure(similarity, y, args.folds, args.seed, args.delta, args.clusters)}
    print(f"{args.task}: {y.size} molecules, {y.mean():.1%} active; {args.folds}-fold S1, delta {args.delta:g}, "
          f"K {args.clusters or 'default'}")
    print(f"{'setting':<13} {'active share per fold':<40} {'range':>13} {'L(pi)':>7} {'max fold':>8} {'s':>6}")
    for name, r in result["settings"].items():
        per = " ".join(f"{100 * v:.1f}" for v in r["active_share"])
        lo, hi = r["share_range"]
        print(f"{name:<13} {per:<40} {100 * lo:5.1f}-{100 * hi:4.1f} % {r['scaled_leakage']:7.4f} "
              f"{r['max_fold_leakage']:8.4f} {r['seconds']:6.1f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
