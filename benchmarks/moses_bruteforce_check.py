"""Brute-force check of a split's sampled leakage figures with RDKit, independent of the project's bit code.

For a split written by `benchdesign split` (TSV: id, split) of a SMILES table, this script draws --n-test test
molecules and --n-train training molecules uniformly at random (seeded), computes their ECFP4 (Morgan radius 2,
1024 bits, RDKit's generator, as ``ExplicitBitVect``) Tanimoto similarity to *every* molecule of the table with
RDKit's ``DataStructs.BulkTanimotoSimilarity`` (none of the project's packed-bit, sparse-product or sampling code
is used), and reports

- for the sampled test molecules: their maximum and mean Tanimoto to all training molecules (the nearest
  training neighbour: median, shares above 0.5 / 0.7 / 0.8);
- a brute-force estimate of the scaled L(pi) of eq. (20) (ordered pairs, diagonal included, as
  ``leakage.sampled_leakage``): L = |T| mean_{x in T} sum_{y in R} sim(x, y) and the denominator
  sum_x sum_y sim(x, y) = |T| mean_T d + |R| mean_R d with d(x) = sum over all y, both from the sampled molecules
  (95 % intervals by the delta method over the sampled molecules);
- the same estimate for a uniformly random split of the same fold sizes, 2 |T| |R| sbar / D with sbar the mean
  similarity over all pairs of distinct molecules;
- beside them the split report's own figures (``sampled_leakage`` of the split and of its random split, and the
  summary's nearest-neighbour view), when --report is given.

    python benchmarks/moses_bruteforce_check.py --input train.csv.gz --smiles-col SMILES --split moses.S1.tsv \\
        --report moses.S1.json --n-test 2000 --n-train 1000 --json check.json

The fingerprints of the whole table are made in --workers processes (1.58M molecules: ~4 CPU-minutes), the
Tanimoto rows in the main process (3,000 rows of 1.58M: ~12 CPU-minutes, mostly turning RDKit's lists into arrays).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import pandas as pd

CHUNK = 20_000


def _fingerprints(smiles: list[str]) -> list:
    """RDKit ECFP4 ExplicitBitVects (None where RDKit cannot parse the SMILES or it has no atoms)."""
    from rdkit import Chem, RDLogger
    from rdkit.Chem import rdFingerprintGenerator

    RDLogger.DisableLog("rdApp.*")
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)
    out = []
    for s in smiles:
        mol = Chem.MolFromSmiles(s) if isinstance(s, str) and s.strip() else None
        out.append(None if mol is None or mol.GetNumAtoms() == 0 else gen.GetFingerprint(mol))
    return out


def fingerprints(smiles: list[str], workers: int) -> list:
    chunks = [smiles[i:i + CHUNK] for i in range(0, len(smiles), CHUNK)]
    if workers <= 1:
        return [fp for c in chunks for fp in _fingerprints(c)]
    with Pool(workers) as pool:
        return [fp for part in pool.imap(_fingerprints, chunks) for fp in part]


def _mean_ci(values: np.ndarray) -> tuple[float, float]:
    return float(values.mean()), float(1.96 * values.std(ddof=1) / math.sqrt(values.size))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", required=True, help="the SMILES table the split was made from")
    ap.add_argument("--smiles-col", default="SMILES")
    ap.add_argument("--split", required=True, help="the split's TSV (columns id, split; one row per input row)")
    ap.add_argument("--report", help="the split's JSON report, for its sampled figures")
    ap.add_argument("--test-name", default="test")
    ap.add_argument("--n-test", type=int, default=2000)
    ap.add_argument("--n-train", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args(argv)
    from rdkit import DataStructs

    start = time.perf_counter()
    smiles = pd.read_csv(args.input)[args.smiles_col].tolist()
    folds = pd.read_csv(args.split, sep="\t", keep_default_na=False)["split"].to_numpy(dtype=object)
    if folds.size != len(smiles):
        raise SystemExit(f"the split has {folds.size} rows, the input {len(smiles)}")
    fps = fingerprints(smiles, args.workers)
    del smiles
    ok = np.array([fp is not None for fp in fps]) & (folds != "unassigned") & (folds != "")
    fps = [fp for fp, keep in zip(fps, ok, strict=True) if keep]
    folds = folds[ok]
    test = np.flatnonzero(folds == args.test_name)
    train = np.flatnonzero(folds != args.test_name)
    n, n_t, n_r = folds.size, test.size, train.size
    fp_s = time.perf_counter() - start
    rng = np.random.default_rng(args.seed)
    q_test = np.sort(rng.choice(test, size=min(args.n_test, n_t), replace=False))
    q_train = np.sort(rng.choice(train, size=min(args.n_train, n_r), replace=False))
    is_test = np.zeros(n, dtype=bool)
    is_test[test] = True

    def rows(queries):
        """Per query molecule: sum and max of its Tanimoto to the training molecules, sum to the test molecules
        (its own similarity 1 included in the sum of its fold)."""
        s_r, m_r, s_t = (np.empty(queries.size) for _ in range(3))
        for k, i in enumerate(queries):
            sims = np.asarray(DataStructs.BulkTanimotoSimilarity(fps[i], fps))
            on_r = sims[~is_test]
            s_t[k], s_r[k], m_r[k] = sims[is_test].sum(), on_r.sum(), on_r.max()
        return s_r, m_r, s_t

    t0 = time.perf_counter()
    tr_sum, tr_max, te_sum = rows(q_test)
    # training queries: their degree d(x) (sum over all molecules, self included) for the denominator
    r_tr, _, r_te = rows(q_train)
    sim_s = time.perf_counter() - t0
    d_test = tr_sum + te_sum
    d_train = r_tr + r_te
    a_mean, a_ci = _mean_ci(tr_sum)
    dt_mean, dt_ci = _mean_ci(d_test)
    dr_mean, dr_ci = _mean_ci(d_train)
    leak = n_t * a_mean
    denom = n_t * dt_mean + n_r * dr_mean
    scaled = 2.0 * leak / denom
    # delta method: scaled = 2 n_t A / (n_t Dt + n_r Dr), the three means independent samples except A and Dt
    var_a = tr_sum.var(ddof=1) / tr_sum.size
    var_dt = d_test.var(ddof=1) / d_test.size
    cov_adt = np.cov(tr_sum, d_test)[0, 1] / tr_sum.size
    var_dr = d_train.var(ddof=1) / d_train.size
    g_a = 2.0 * n_t / denom
    g_dt = -scaled * n_t / denom
    g_dr = -scaled * n_r / denom
    se = math.sqrt(g_a ** 2 * var_a + g_dt ** 2 * var_dt + 2 * g_a * g_dt * cov_adt + g_dr ** 2 * var_dr)
    # random split of the same sizes: E[L] = n_t n_r sbar, sbar = mean similarity over pairs of distinct molecules
    sbar = (denom - n) / (n * (n - 1.0))  # self-similarities are 1 (no empty fingerprint in a valid molecule)
    rand = 2.0 * n_t * n_r * sbar / denom
    out = {
        "n": int(n), "n_test": int(n_t), "n_train": int(n_r), "seed": args.seed,
        "sampled_test": int(q_test.size), "sampled_train": int(q_train.size),
        "bruteforce": {
            "scaled_leakage": scaled, "scaled_leakage_ci": [scaled - 1.96 * se, scaled + 1.96 * se],
            "random_scaled_leakage": rand, "reduction_vs_random": 1.0 - scaled / rand,
            "test_mean_tanimoto_to_train": a_mean / n_r, "mean_pair_tanimoto": sbar,
            "nearest_train_neighbour": {
                "mean": float(tr_max.mean()), "median": float(np.median(tr_max)),
                "share_above": {str(t): float(np.mean(tr_max > t)) for t in (0.5, 0.7, 0.8)},
            },
        },
        "fingerprint_seconds": round(fp_s, 1), "tanimoto_seconds": round(sim_s, 1),
    }
    if args.report:
        rep = json.loads(Path(args.report).read_text())
        smp = rep.get("sampled_leakage")
        if smp:
            out["report_sampled"] = {"scaled_leakage": smp["split"]["scaled_leakage"],
                                     "scaled_leakage_ci": smp["split"]["scaled_leakage_ci"],
                                     "random_scaled_leakage": smp["random"]["scaled_leakage"]}
        nn = (rep.get("summary") or {}).get("nearest_neighbour", {}).get("split", {}).get("folds", {})
        if args.test_name in nn:
            out["report_nearest_neighbour_test"] = nn[args.test_name]
    b = out["bruteforce"]
    print(f"brute force (RDKit, {q_test.size} test + {q_train.size} training molecules against all {n}): scaled L "
          f"{b['scaled_leakage']:.4f} [{b['scaled_leakage_ci'][0]:.4f}, {b['scaled_leakage_ci'][1]:.4f}], random "
          f"{b['random_scaled_leakage']:.4f} ({b['reduction_vs_random']:.1%} less); nearest training neighbour of "
          f"the test molecules: median {b['nearest_train_neighbour']['median']:.3f}, mean "
          f"{b['nearest_train_neighbour']['mean']:.3f}")
    if "report_sampled" in out:
        r = out["report_sampled"]
        print(f"split report (sampled evaluator): scaled L {r['scaled_leakage']:.4f} "
              f"[{r['scaled_leakage_ci'][0]:.4f}, {r['scaled_leakage_ci'][1]:.4f}], random "
              f"{r['random_scaled_leakage']:.4f} ({1 - r['scaled_leakage'] / r['random_scaled_leakage']:.1%} less)")
    if "report_nearest_neighbour_test" in out:
        r = out["report_nearest_neighbour_test"]
        print(f"split report (summary): nearest training neighbour of {r['n_test']} test molecules: median "
              f"{r['median']:.3f}, share above 0.5 / 0.7: {r['share_above']['0.5']:.3f} / {r['share_above']['0.7']:.3f}"
              f" (brute force {b['nearest_train_neighbour']['share_above']['0.5']:.3f} / "
              f"{b['nearest_train_neighbour']['share_above']['0.7']:.3f})")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
