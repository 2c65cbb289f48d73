"""5-fold cold-both cross-validation of drug-target pairs (DAVIS, KIBA) against the datasail package's C2.

For each dataset (mirror: mol/deepdta_davis, mol/deepdta_kiba; all pairs of ``*_pairs.csv``) the script
runs in child processes (wall time, CPU, peak RSS from wait4):

- ``benchdesign split --task S2 --folds k`` (drugs: ECFP4 Tanimoto of the SMILES; targets:
  ``--sequence-similarity``, default k-mer cosine), cold on both sides ('cold_both'): fold f tests
  on the pairs with drug and target in f, trains on the pairs with neither in f;
- with ``--peer``: datasail 1.4.0's C2 with ``splits=[1/k] * k`` (same K, epsilon, delta; drugs
  ``e_sim="ecfp"``, targets the same k-mer cosine matrix as ours, precomputed; HiGHS through the
  same wrapper as benchmarks/vs_datasail.py), killed after ``--peer-timeout`` seconds. C2 keeps a
  pair only when drug and target share a fold; its fold f tests on those pairs, trains on the other
  folds' kept pairs.

From our output TSV (columns fold_a, fold_b) and entity-folds file it checks every fold by brute force:
no drug, target, identical SMILES or identical sequence in both train and test, every pair tested at
most once, and the report's per-fold counts equal the recount. It prints per fold the train / test /
unused pairs and shares, the mean training share (goal >= 55 %), and the peer's figures side by side.
Exit status 1 when a check fails.

With ``--sample N`` a seeded draw (``--seed``) of N pairs replaces the full table. With ``--interface python``
our side is the library call ``LeakageKFold(k, similarity=drug SMILES, task="S2", random_state=seed)
.split_pairs(drug index, target index, similarity_b=target sequences)`` with every other option at its default
(alignment identity of the sequences, K = min(50, n)) but ``--epsilon``, in a child process; the checks are the same.

    python benchmarks/pair_cv.py --datasets davis kiba --peer --json pair_cv.json
    python benchmarks/pair_cv.py --datasets davis --merge-identical   # one entity per unique sequence / SMILES
    python benchmarks/pair_cv.py --datasets davis --sample 3000 --interface python   # library defaults
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vs_datasail import check_peer, mirror_root  # noqa: E402

from benchdesign.molexp.peers import highs_patch  # noqa: E402

DATASETS = {"davis": ("deepdta_davis", "davis_pairs.csv"), "kiba": ("deepdta_kiba", "kiba_pairs.csv")}

PEER_C2_CHILD = r'''
import json, sys, time
import numpy as np
job = json.load(open(sys.argv[1]))
import cvxpy
import datasail.solver.cluster_2d as c2
from datasail.settings import SOLVERS
from datasail.sail import datasail

''' + highs_patch("c2.solve", "c2") + r'''
start = time.perf_counter()
drugs, targets = job["drugs"], job["targets"]
_, _, inter = datasail(
    techniques=["C2"], inter=[tuple(p) for p in job["pairs"]], splits=job["fractions"], names=job["names"],
    epsilon=job["epsilon"], delta=job["delta"], solver=job["solver"], max_sec=job["max_sec"], runs=1,
    e_type="M", e_data=drugs, e_sim="ecfp", e_clusters=job["clusters"],
    f_type="P", f_data=targets, f_sim=(list(targets), np.load(job["target_sim"])), f_clusters=job["clusters"],
    threads=1, verbose="E",
)
runs = inter.get("C2") or [{}]
labels = [runs[0].get(tuple(p), "not selected") for p in job["pairs"]]
json.dump({"labels": labels, "inner_seconds": time.perf_counter() - start}, open(job["out"], "w"))
'''


OURS_PYTHON_CHILD = r'''
import json, sys, time
import numpy as np
from benchdesign.splitting import LeakageKFold
job = json.load(open(sys.argv[1]))
start = time.perf_counter()
cv = LeakageKFold(job["folds"], similarity=job["smiles"], task="S2", random_state=job["seed"], epsilon=job["epsilon"])
folds = list(cv.split_pairs(job["ia"], job["ib"], similarity_b=job["sequences"]))
out = {"n_folds": len(folds), "fold_a": cv.pair_folds_["a"].tolist(), "fold_b": cv.pair_folds_["b"].tolist(),
       "report": cv.report_, "inner_seconds": time.perf_counter() - start}
json.dump(out, open(job["out"], "w"), default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))
'''


def run_limited(cmd: list[str], log: Path, timeout: float | None = None) -> dict:
    """Run ``cmd`` as a child in its own session: wall, CPU, peak RSS (MB); killed after ``timeout`` s."""
    start = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = None if timeout is None else start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if deadline is not None and time.perf_counter() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                _, status, usage = os.wait4(proc.pid, 0)
                return {"returncode": None, "timed_out": True, "wall_s": time.perf_counter() - start,
                        "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024.0}
            time.sleep(0.2)
    return {"returncode": os.waitstatus_to_exitcode(status), "timed_out": False,
            "wall_s": time.perf_counter() - start, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024.0}


def load_dataset(name: str, merge_identical: bool, sample: int | None = None,
                 seed: int = 0) -> tuple[dict, dict, pd.DataFrame]:
    """Drug SMILES and target sequences by id, and the pairs (columns drug, target) of one mirror dataset
    (``sample``: a draw of that many pairs without replacement from ``seed``, in file order)."""
    folder, pairs_file = DATASETS[name]
    root = mirror_root() / "mol" / folder
    drugs = {str(k): v for k, v in json.loads((root / "ligands_can.txt").read_text()).items()}
    targets = json.loads((root / "proteins.txt").read_text())
    raw = pd.read_csv(root / pairs_file, dtype={"drug_id": str, "target_id": str})
    pairs = pd.DataFrame({"drug": raw["drug_id"], "target": raw["target_id"]})
    if sample is not None:
        if not 0 < sample <= len(pairs):
            raise ValueError(f"--sample must lie in [1, {len(pairs)}], got {sample}")
        keep = np.sort(np.random.default_rng(seed).choice(len(pairs), size=sample, replace=False))
        pairs = pairs.iloc[keep].reset_index(drop=True)
    if merge_identical:  # ids sharing a SMILES / sequence become one entity (the first id)
        (canon_d, drugs), (canon_t, targets) = _merge(drugs), _merge(targets)
        pairs = pd.DataFrame({"drug": pairs["drug"].map(canon_d), "target": pairs["target"].map(canon_t)})
    return drugs, targets, pairs


def _merge(table: dict) -> tuple[dict, dict]:
    """id -> the first id with the same string, and the table of those first ids."""
    first: dict = {}
    canon = {i: first.setdefault(s, i) for i, s in table.items()}
    return canon, {i: s for i, s in table.items() if canon[i] == i}


def cold_checks(pairs: pd.DataFrame, drugs: dict, targets: dict, fa: np.ndarray, fb: np.ndarray,
                k: int) -> tuple[list, dict]:
    """Per fold, by brute force: train / test pairs and the entities and strings found on both sides; and the
    most folds any pair is tested in, the pairs tested in some fold, the pairs in some train or test set."""
    smiles, seqs = pairs["drug"].map(drugs).to_numpy(), pairs["target"].map(targets).to_numpy()
    rows, tested, used = [], np.zeros(len(pairs), dtype=int), np.zeros(len(pairs), dtype=bool)
    for f in range(k):
        train = (fa != f) & (fb != f) & (fa >= 0) & (fb >= 0)
        test = (fa == f) & (fb == f)
        tested += test
        used |= train | test
        both = {name: len(set(col[train]) & set(col[test])) for name, col in
                (("drugs", pairs["drug"].to_numpy()), ("targets", pairs["target"].to_numpy()),
                 ("smiles", smiles), ("sequences", seqs))}
        rows.append({"train": int(train.sum()), "test": int(test.sum()),
                     "unused": int(len(pairs) - train.sum() - test.sum()), "shared": both})
    return rows, {"max_tested": int(tested.max()), "n_tested": int((tested > 0).sum()), "n_used": int(used.sum())}


def run_ours(work: Path, args, k: int) -> tuple[dict, pd.DataFrame, pd.DataFrame, dict]:
    cmd = [sys.executable, "-m", "benchdesign.cli", "split", "--task", "S2", "--folds", str(k),
           "--interactions", str(work / "pairs.csv"), "--inter-a-col", "drug", "--inter-b-col", "target",
           "--input", str(work / "drugs.tsv"), "--id-col", "drug", "--smiles-col", "smiles",
           "--input-b", str(work / "targets.tsv"), "--id-col-b", "target", "--sequence-col-b", "sequence",
           "--sequence-similarity", args.sequence_similarity, "--clusters", str(args.clusters),
           "--epsilon", str(args.epsilon), "--delta", str(args.delta), "--time-limit", str(args.time_limit),
           "--seed", str(args.seed), "--out", str(work / "folds.tsv"), "--entity-folds", str(work / "entities.tsv"),
           "--report", str(work / "report.json")]
    res = run_limited(cmd, work / "benchdesign.log")
    if res["returncode"] != 0:
        tail = (work / "benchdesign.log").read_text()[-2000:]
        raise RuntimeError(f"benchdesign failed (exit {res['returncode']}):\n{tail}")
    table = pd.read_csv(work / "folds.tsv", sep="\t", keep_default_na=False)
    entities = pd.read_csv(work / "entities.tsv", sep="\t", keep_default_na=False, dtype={"id": str})
    return res, table, entities, json.loads((work / "report.json").read_text())


def run_ours_python(work: Path, args, k: int, drugs: dict, targets: dict,
                    pairs: pd.DataFrame) -> tuple[dict, np.ndarray, np.ndarray, dict]:
    """``LeakageKFold(k, task="S2", epsilon=...).split_pairs``, else the library's defaults, in a child: (timing, fold_a,
    fold_b, report); every drug and target of the tables is an entity, indexed in table order."""
    drug_pos = {d: i for i, d in enumerate(drugs)}
    target_pos = {t: i for i, t in enumerate(targets)}
    job = work / "python_job.json"
    job.write_text(json.dumps({
        "folds": k, "seed": args.seed, "epsilon": args.epsilon, "smiles": list(drugs.values()),
        "sequences": list(targets.values()),
        "ia": [drug_pos[d] for d in pairs["drug"]], "ib": [target_pos[t] for t in pairs["target"]],
        "out": str(work / "python_out.json")}))
    res = run_limited([sys.executable, "-c", OURS_PYTHON_CHILD, str(job)], work / "python.log")
    if res["returncode"] != 0:
        raise RuntimeError(f"LeakageKFold failed (exit {res['returncode']}):\n"
                           + (work / "python.log").read_text()[-2000:])
    out = json.loads((work / "python_out.json").read_text())
    if out["n_folds"] != k:
        raise RuntimeError(f"LeakageKFold yielded {out['n_folds']} folds, not {k}")
    return res, np.asarray(out["fold_a"]), np.asarray(out["fold_b"]), out["report"]


def _side_lines(report: dict) -> list[str]:
    """Per side: what was split to fit the folds, and each fold's entities and share of the pairs."""
    lines = []
    for sd in ("a", "b"):
        side = report.get(f"side_{sd}", {})
        fit = side.get("fold_fit", {})
        weights = side.get("fold_weights", {})
        cert = side.get("certificate", {})
        leak = (f"scaled L(pi) {cert['scaled_leakage']:.4f} (random {cert['random_scaled_leakage']:.4f}); "
                if "random_scaled_leakage" in cert else "")
        lines.append(f"side {sd}: {side.get('n_entities')} entities, {side.get('n_clusters')} clusters; {leak}"
                     + (fit.get("text") or "no cluster split") + "; folds (entities, share of the pairs): "
                     + ", ".join(f"{f} {w['entities']} {w['row_share']:.1%}" for f, w in weights.items()))
    return lines


def run_peer(work: Path, args, k: int, drugs: dict, targets: dict, pairs: pd.DataFrame) -> dict:
    from benchdesign.splitting.similarity import KmerSimilarity, dense_similarity

    np.save(work / "target_kmer.npy", dense_similarity(KmerSimilarity.from_sequences(list(targets.values()),
                                                                                    k=3)).astype(np.float64))
    job = work / "datasail_job.json"
    job.write_text(json.dumps({
        "drugs": drugs, "targets": targets, "pairs": pairs[["drug", "target"]].values.tolist(),
        "target_sim": str(work / "target_kmer.npy"), "fractions": [1.0 / k] * k,
        "names": [f"fold{i}" for i in range(k)], "epsilon": args.epsilon, "delta": args.delta,
        "solver": args.peer_solver, "max_sec": args.peer_max_sec, "clusters": args.clusters,
        "out": str(work / "datasail.json")}))
    res = run_limited([args.peer_python, "-c", PEER_C2_CHILD, str(job)], work / "datasail.log", args.peer_timeout)
    if res["timed_out"] or res["returncode"] != 0:
        return res
    labels = np.asarray(json.loads((work / "datasail.json").read_text())["labels"], dtype=object)
    fold = np.full(len(labels), -1)
    for i in range(k):
        fold[labels == f"fold{i}"] = i
    m = len(labels)
    per = [{"train": int(((fold >= 0) & (fold != i)).sum()), "test": int((fold == i).sum())} for i in range(k)]
    return {**res, "pairs_kept": int((fold >= 0).sum()), "kept_share": float((fold >= 0).mean()),
            "mean_train_share": float(np.mean([p["train"] for p in per]) / m),
            "mean_test_share": float(np.mean([p["test"] for p in per]) / m), "folds": per}


def _ours(work: Path, args, k: int, drugs: dict, targets: dict, pairs: pd.DataFrame):
    """Our split by ``--interface``: (timing, fold_a, fold_b, report, entity file consistent with the pairs)."""
    if args.interface == "python":
        res, fa, fb, report = run_ours_python(work, args, k, drugs, targets, pairs)
        return res, fa, fb, report, True
    res, table, entities, report = run_ours(work, args, k)
    fa, fb = table["fold_a"].to_numpy(), table["fold_b"].to_numpy()
    lookup = {(s, i): f for s, i, f in entities[["side", "id", "fold"]].itertuples(index=False)}
    consistent = (fa.tolist() == [lookup["a", d] for d in pairs["drug"]]
                  and fb.tolist() == [lookup["b", t] for t in pairs["target"]])
    return res, fa, fb, report, consistent


def one_dataset(name: str, args, k: int) -> tuple[dict, bool]:
    drugs, targets, pairs = load_dataset(name, args.merge_identical, args.sample, args.seed)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="pair_cv_")) / name
    work.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"drug": list(drugs), "smiles": list(drugs.values())}).to_csv(
        work / "drugs.tsv", sep="\t", index=False)
    pd.DataFrame({"target": list(targets), "sequence": list(targets.values())}).to_csv(
        work / "targets.tsv", sep="\t", index=False)
    pairs.to_csv(work / "pairs.csv", index=False)
    print(f"\n== {name}: {len(pairs)} pairs, {pairs['drug'].nunique()} drugs ({len(set(drugs.values()))} unique SMILES)"
          f" x {pairs['target'].nunique()} targets ({len(set(targets.values()))} unique sequences); {k} folds, "
          + (f"K={args.clusters}, epsilon={args.epsilon}" if args.interface == "cli"
             else f"library defaults, epsilon={args.epsilon}")
          + f"; workdir {work}", flush=True)
    ours, fa, fb, report, consistent = _ours(work, args, k, drugs, targets, pairs)
    rows, cover = cold_checks(pairs, drugs, targets, fa, fb, k)
    max_tested = cover["max_tested"]
    usage = report["fold_usage"]["folds"]
    counts_match = all((usage[f"fold{f}"]["train"], usage[f"fold{f}"]["test"]) == (r["train"], r["test"])
                       for f, r in enumerate(rows))
    cold = all(not any(r["shared"].values()) for r in rows)
    what = "entity file and report" if args.interface == "cli" else "report's counts"
    m = len(pairs)
    print(f"benchdesign S2 cold_both ({args.interface}): wall {ours['wall_s']:.1f} s, CPU {ours['cpu_s']:.1f} s, "
          f"peak RSS {ours['peak_mb']:.0f} MB; solver {report.get('solver_status')}")
    print("\n".join(_side_lines(report)))
    print(f"{'fold':6s}{'train':>9s}{'share':>8s}{'test':>8s}{'share':>8s}{'unused':>9s}{'share':>8s}  "
          "shared train/test (drugs, targets, SMILES, sequences)")
    for f, r in enumerate(rows):
        print(f"fold{f:<2d}{r['train']:9d}{r['train'] / m:8.1%}{r['test']:8d}{r['test'] / m:8.1%}{r['unused']:9d}"
              f"{r['unused'] / m:8.1%}  {tuple(r['shared'].values())}")
    mean_train = float(np.mean([r["train"] for r in rows]) / m)
    mean_test = float(np.mean([r["test"] for r in rows]) / m)
    print(f"mean training share {mean_train:.1%} (goal >= 55 %: {'met' if mean_train >= 0.55 else 'NOT met'}), "
          f"mean test share {mean_test:.1%}; cold on both sides in every fold: {'yes' if cold else 'NO'}; "
          f"each pair tested at most once: {'yes' if max_tested <= 1 else 'NO'} ({cover['n_tested']} tested in "
          f"some fold, {cover['n_used']} in some train or test set); {what} consistent: "
          f"{'yes' if consistent and counts_match else 'NO'}")
    out = {"n_pairs": m, "n_drugs": int(pairs["drug"].nunique()), "n_targets": int(pairs["target"].nunique()),
           "benchdesign": {**ours, "folds": rows, **cover, "mean_train_share": mean_train, "mean_test_share": mean_test,
                           "cold": cold, "solver_status": report.get("solver_status"),
                           "stage_seconds": report.get("stage_seconds"),
                           "fold_fit": {sd: report.get(f"side_{sd}", {}).get("fold_fit") for sd in ("a", "b")},
                           "fold_weights": {sd: report.get(f"side_{sd}", {}).get("fold_weights") for sd in ("a", "b")}}}
    if args.peer:
        peer = run_peer(work, args, k, drugs, targets, pairs)
        out["datasail"] = peer
        if peer["timed_out"]:
            print(f"datasail C2: did not finish within {args.peer_timeout:g} s (killed; peak RSS so far "
                  f"{peer['peak_mb']:.0f} MB)")
        elif peer["returncode"] != 0:
            print(f"datasail C2 failed (exit {peer['returncode']}); see {work / 'datasail.log'}:\n"
                  + (work / "datasail.log").read_text()[-1500:])
        else:
            print(f"datasail C2 ({k} x 1/{k}, same_fold): wall {peer['wall_s']:.1f} s, CPU {peer['cpu_s']:.1f} s, "
                  f"peak RSS {peer['peak_mb']:.0f} MB; pairs kept {peer['pairs_kept']} ({peer['kept_share']:.1%}); "
                  f"mean train share {peer['mean_train_share']:.1%}, test {peer['mean_test_share']:.1%}")
            print(f"{'':24s}{'datasail C2':>14s}{'benchdesign':>14s}")
            for label, a, b in (("pairs in some train/test", peer["pairs_kept"], cover["n_used"]),
                                ("pairs tested in a fold", peer["pairs_kept"], cover["n_tested"]),
                                ("mean train share", peer["mean_train_share"], mean_train),
                                ("mean test share", peer["mean_test_share"], mean_test),
                                ("wall time [s]", peer["wall_s"], ours["wall_s"]),
                                ("peak RSS [MB]", peer["peak_mb"], ours["peak_mb"])):
                print(f"{label:24s}{a:14.4g}{b:14.4g}")
    return out, cold and max_tested <= 1 and consistent and counts_match


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", choices=sorted(DATASETS), default=["davis", "kiba"])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--clusters", type=int, default=50)
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--delta", type=float, default=0.1)
    ap.add_argument("--time-limit", type=float, default=10.0, help="benchdesign's ILP time limit")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sequence-similarity", choices=("kmer", "alignment", "mmseqs"), default="kmer",
                    help="our targets' similarity (kmer: the same 3-mer cosine matrix the peer gets; MMseqs2 on all "
                         "pairs: benchmarks/pairs_mmseqs.py)")
    ap.add_argument("--sample", type=int, help="a seeded draw (--seed) of this many pairs instead of all")
    ap.add_argument("--interface", choices=("cli", "python"), default="cli",
                    help="our side through `benchdesign split` (with the options above) or LeakageKFold.split_pairs "
                         "(library defaults)")
    ap.add_argument("--merge-identical", action="store_true",
                    help="treat ids with identical SMILES / sequences as one entity")
    ap.add_argument("--peer", action="store_true", help="also run the datasail package's C2")
    ap.add_argument("--peer-python", default=sys.executable, help="interpreter that has datasail==1.4.0")
    ap.add_argument("--peer-solver", default="HIGHS", choices=("HIGHS", "SCIP"))
    ap.add_argument("--peer-max-sec", type=int, default=100, help="DataSAIL's ILP time limit (its default 100)")
    ap.add_argument("--peer-timeout", type=float, default=600.0, help="kill the datasail child after this many s")
    ap.add_argument("--workdir", help="keep inputs/outputs here (default: a temporary directory)")
    ap.add_argument("--json", help="write the measured figures to this JSON file")
    args = ap.parse_args(argv)
    if args.peer and (reason := check_peer(args.peer_python)) is not None:
        print(f"datasail is not available in {args.peer_python}: {reason}", file=sys.stderr)
        return 3
    results, ok = {}, True
    for name in args.datasets:
        results[name], passed = one_dataset(name, args, args.folds)
        ok &= passed
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
