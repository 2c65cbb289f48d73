"""All drug-target pairs of DAVIS and KIBA split 5-fold cold on both sides with MMseqs2 on the target side, and the
target side checked against an exact Smith-Waterman search.

For each dataset (mirror: mol/deepdta_davis, mol/deepdta_kiba; every pair of ``*_pairs.csv``) and each task of
``--tasks`` the script runs ``benchdesign split --task T --folds k`` (drugs: ECFP4 Tanimoto of the SMILES; targets:
``--sequence-similarity``, default MMseqs2 identity at 80 % coverage of both sequences) in a child process with an
empty MMseqs2 cache of its own, and reads from ``wait4`` its wall time, CPU seconds (user + system, with the
``mmseqs`` program it waited for) and peak RSS. Beside them, as the yardstick, a seeded random cold-both split:
drugs and targets dealt into k folds of equal entity counts.

Per split (``cold_both``: fold f tests on the pairs with drug and target in f, trains on the pairs with neither):

- dropped pairs: pairs tested in no fold (drug and target in different folds), recounted from the fold columns;
- per-side scaled L(pi) (eq. 20) over the entity folds, each entity weighted by its pairs: the drug side on ECFP4
  Tanimoto, the target side twice, on the split's own MMseqs2 matrix and on the exact matrix below;
- the independent check of the target side: the exact identity with coverage of every pair of targets by parasail
  Smith-Waterman (:func:`benchdesign.splitting.alignment.covered_identities`, BLOSUM62, gap 11/1: identical residues
  / aligned columns, 0 unless the alignment spans >= 80 % of both sequences; the definition MMseqs2 computes, without
  its prefilter and composition-bias correction); for each fold, every test protein's nearest training protein
  (the targets of the fold's test pairs against those of its training pairs) by that matrix and by MMseqs2's.
  Reported over the folds: mean and maximum nearest identity, the test proteins with a training protein above
  30 % and 50 % identity (exact), and how many test proteins MMseqs2 puts more than 0.05 below the exact value.

Writes one CSV row per (dataset, split) (``--csv``, default benchmarks/results/pairs_mmseqs.csv) and prints a
Markdown table. The exact matrix is cached in ``--workdir`` (``exact_<dataset>.npz``).

    python benchmarks/pairs_mmseqs.py --mirror ../shared/data                    # DAVIS and KIBA, S2 and I2
    python benchmarks/pairs_mmseqs.py --datasets davis --tasks S2 --sequence-similarity kmer --csv kmer.csv
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pair_cv import load_dataset, run_limited  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
IDENTITY_LEVELS = (0.3, 0.5)
MISS_TOLERANCE = 0.05


def exact_identity(sequences: list[str], cache: Path) -> np.ndarray:
    """(n, n) exact identity with coverage of every pair by Smith-Waterman (1 on the diagonal), cached in ``cache``."""
    from benchdesign.splitting.alignment import covered_identities

    if cache.is_file():
        with np.load(cache) as npz:
            if list(npz["sequences"]) == sequences:
                return npz["identity"]
    n = len(sequences)
    rows, cols = np.triu_indices(n, 1)
    start = time.process_time()
    values = covered_identities(sequences, rows, cols)
    print(f"exact identity of {rows.size:,} pairs of {n} sequences: {time.process_time() - start:.1f} CPU s", flush=True)
    out = np.eye(n)
    out[rows, cols] = values
    out[cols, rows] = values
    np.savez_compressed(cache, identity=out, sequences=np.array(sequences))
    return out


def side_scaled(similarity, entity_fold: np.ndarray, weights: np.ndarray) -> float:
    """Scaled L(pi) of one side's entity folds, entities weighted by their pairs (entities without a fold left out)."""
    from benchdesign.splitting import leakage_summary

    keep = np.flatnonzero(entity_fold >= 0)
    sim = similarity[np.ix_(keep, keep)] if isinstance(similarity, np.ndarray) else similarity.subset(keep)
    return float(leakage_summary(sim, [entity_fold[keep]], weights=weights[keep])[0].scaled)


def nearest_check(exact: np.ndarray, mmseqs: np.ndarray, fa: np.ndarray, fb: np.ndarray, target: np.ndarray,
                  k: int) -> dict:
    """Per fold, the nearest training protein of every test protein, by the exact and by the MMseqs2 matrix."""
    ex, mm = [], []
    for f in range(k):
        test = (fa == f) & (fb == f)
        train = (fa != f) & (fb != f) & (fa >= 0) & (fb >= 0)
        q, t = np.unique(target[test]), np.unique(target[train])
        if q.size == 0 or t.size == 0:
            continue
        ex.append(exact[np.ix_(q, t)].max(axis=1))
        mm.append(mmseqs[np.ix_(q, t)].max(axis=1))
    ex_all, mm_all = np.concatenate(ex), np.concatenate(mm)
    out = {"test_proteins": int(ex_all.size), "nearest_exact_mean": float(ex_all.mean()),
           "nearest_exact_max": float(ex_all.max()), "nearest_mmseqs_mean": float(mm_all.mean()),
           "nearest_mmseqs_max": float(mm_all.max()),
           "mmseqs_below_exact": int((mm_all < ex_all - MISS_TOLERANCE).sum()),
           "mmseqs_max_under": float((ex_all - mm_all).max())}
    for level in IDENTITY_LEVELS:
        out[f"test_above_{level:g}_exact"] = int((ex_all > level).sum())
        out[f"test_above_{level:g}_mmseqs"] = int((mm_all > level).sum())
    return out


def run_split(work: Path, task: str, kind: str, k: int, args) -> tuple[dict, np.ndarray, np.ndarray, dict]:
    """``benchdesign split`` in a child with a fresh MMseqs2 cache: (timing, fold_a, fold_b, report)."""
    out = work / f"{task}_{kind}"
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "benchdesign.cli", "split", "--task", task, "--folds", str(k),
           "--interactions", str(work / "pairs.csv"), "--inter-a-col", "drug", "--inter-b-col", "target",
           "--input", str(work / "drugs.tsv"), "--id-col", "drug", "--smiles-col", "smiles",
           "--input-b", str(work / "targets.tsv"), "--id-col-b", "target", "--sequence-col-b", "sequence",
           "--sequence-similarity", kind, "--seed", str(args.seed),
           "--out", str(out / "folds.tsv"), "--report", str(out / "report.json")]
    os.environ["BENCHDESIGN_CACHE"] = str(out / "cache")  # an empty cache: the MMseqs2 search is part of the cost
    res = run_limited(cmd, out / "benchdesign.log")
    if res["returncode"] != 0:
        raise RuntimeError(f"benchdesign failed (exit {res['returncode']}):\n{(out / 'benchdesign.log').read_text()[-2000:]}")
    table = pd.read_csv(out / "folds.tsv", sep="\t", keep_default_na=False)
    return res, table["fold_a"].to_numpy(), table["fold_b"].to_numpy(), json.loads((out / "report.json").read_text())


def random_cold(n_drugs: int, n_targets: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Entity folds of a random cold-both split: each side dealt into k folds of equal counts."""
    rng = np.random.default_rng(seed)
    return rng.permutation(np.arange(n_drugs) % k), rng.permutation(np.arange(n_targets) % k)


def one_dataset(name: str, args) -> list[dict]:
    from benchdesign.splitting import FingerprintSimilarity
    from benchdesign.splitting.mmseqs import mmseqs_similarity
    from benchdesign.splitting.similarity import smiles_fingerprints

    drugs, targets, pairs = load_dataset(name, merge_identical=False)
    work = Path(args.workdir) / name
    work.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"drug": list(drugs), "smiles": list(drugs.values())}).to_csv(work / "drugs.tsv", sep="\t", index=False)
    pd.DataFrame({"target": list(targets), "sequence": list(targets.values())}).to_csv(
        work / "targets.tsv", sep="\t", index=False)
    pairs.to_csv(work / "pairs.csv", index=False)
    drug_pos = {d: i for i, d in enumerate(drugs)}
    target_pos = {t: i for i, t in enumerate(targets)}
    di = pairs["drug"].map(drug_pos).to_numpy()
    ti = pairs["target"].map(target_pos).to_numpy()
    seqs = list(targets.values())
    k, m = args.folds, len(pairs)
    print(f"\n== {name}: {m:,} pairs, {len(drugs)} drugs x {len(targets)} targets; {k} folds, cold on both sides",
          flush=True)
    exact = exact_identity(seqs, work / f"exact_{name}.npz")
    bits, _ = smiles_fingerprints(list(drugs.values()))
    drug_sim = FingerprintSimilarity(bits)
    drug_w = np.bincount(di, minlength=len(drugs)).astype(float)
    target_w = np.bincount(ti, minlength=len(targets)).astype(float)

    rows = []
    splits = []
    for kind in args.sequence_similarity:
        for task in args.tasks:
            res, fa, fb, report = run_split(work, task, kind, k, args)
            splits.append((f"{task} ({kind})", res, fa, fb, report))
    ea, eb = random_cold(len(drugs), len(targets), k, args.seed)
    splits.append(("random", None, ea[di], eb[ti], None))
    # the MMseqs2 matrix the splits used: read from the cache of an MMseqs2 split (or computed, the same search)
    os.environ["BENCHDESIGN_CACHE"] = str(work / f"{args.tasks[0]}_mmseqs" / "cache")
    own = mmseqs_similarity(seqs)
    own_dense = own.block(np.arange(len(seqs)), np.arange(len(seqs)))
    for task, res, fa, fb, report in splits:
        # entity folds from the pair folds (every drug and target has a pair, so each gets its fold)
        fold_d = np.full(len(drugs), -1)
        fold_d[di] = fa
        fold_t = np.full(len(targets), -1)
        fold_t[ti] = fb
        dropped = int(((fa != fb) | (fa < 0)).sum())
        row = {"dataset": name, "split": task,
               "pairs": m, "drugs": len(drugs), "targets": len(targets), "folds": k,
               "wall_s": res and round(res["wall_s"], 1), "cpu_s": res and round(res["cpu_s"], 1),
               "peak_mb": res and round(res["peak_mb"]),
               "target_similarity_s": report and report.get("stage_seconds", {}).get("similarity/sequence_similarity"),
               "solver_status": report and report.get("solver_status"),
               "dropped_pairs": dropped, "dropped_share": dropped / m,
               "report_dropped": report and report.get("n_no_test_fold"),
               "mean_train_share": float(np.mean([((fa != f) & (fb != f)).sum() for f in range(k)]) / m),
               "drug_scaled_leakage": side_scaled(drug_sim, fold_d, drug_w),
               "target_scaled_leakage_mmseqs": side_scaled(own, fold_t, target_w),
               "target_scaled_leakage_exact": side_scaled(exact, fold_t, target_w),
               "report_target_scaled_leakage": report and report["side_b"].get("certificate", {}).get("scaled_leakage"),
               **nearest_check(exact, own_dense, fa, fb, ti, k)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def markdown(table: pd.DataFrame) -> str:
    cols = ["dataset", "split", "wall_s", "cpu_s", "peak_mb", "dropped_pairs", "drug_scaled_leakage",
            "target_scaled_leakage_mmseqs", "target_scaled_leakage_exact", "nearest_mmseqs_mean", "nearest_exact_mean",
            "nearest_exact_max", "test_above_0.3_exact", "test_above_0.5_exact", "test_proteins", "mmseqs_below_exact"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in table[cols].iterrows():
        lines.append("| " + " | ".join("" if pd.isna(v) else (f"{v:.3f}" if isinstance(v, float) else str(v))
                                       for v in r) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", choices=("davis", "kiba"), default=["davis", "kiba"])
    ap.add_argument("--tasks", nargs="+", choices=("S2", "I2"), default=["S2", "I2"])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sequence-similarity", nargs="+", choices=("mmseqs", "alignment", "kmer"), default=["mmseqs"],
                    help="the target similarity of the splits (each task with each); the check's MMseqs2 figures "
                         "are always MMseqs2's")
    ap.add_argument("--mirror", help="the data mirror (default: $BENCHDESIGN_MIRROR or ../shared/data)")
    ap.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "pairs_mmseqs"))
    ap.add_argument("--csv", default=str(REPO / "benchmarks" / "results" / "pairs_mmseqs.csv"))
    args = ap.parse_args(argv)
    if args.mirror:
        os.environ["BENCHDESIGN_MIRROR"] = str(Path(args.mirror).resolve())
    rows = [r for name in args.datasets for r in one_dataset(name, args)]
    table = pd.DataFrame(rows)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    table.insert(0, "commit", commit)
    table.insert(1, "date", time.strftime("%Y-%m-%d"))
    table.insert(2, "load_1min", round(os.getloadavg()[0], 1))
    Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.csv, index=False, float_format="%.4f")
    print("\n" + markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
