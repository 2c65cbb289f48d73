"""k-fold leakage-reduced CV against the datasail package, and alignment similarity of the DAVIS kinases.

Part ``kfold``: 5-fold S1 of a MoleculeNet set (Tox21: 7,823 molecules; QM8: 21,786) with
``benchdesign split --folds 5`` (K, epsilon as given), and -- with ``--peer`` -- the datasail
package's 5-fold S1 (``splits=[0.2] * 5``, same K and epsilon, C1e, HiGHS with the same wrapper as
benchmarks/vs_datasail.py). Each tool runs in its own child process (wall time, CPU, peak RSS from
wait4); both splits are scored by the same function: scaled L(pi) (eq. 20) of every train/test pair
"fold i vs the other four" on ECFP4 Tanimoto, and of a random 5-fold split (mean of 3 seeds).

Part ``alignment``: the 442 DAVIS kinases (mirror: mol/deepdta_davis/proteins.txt; ``--proteins kiba``:
the 229 KIBA kinases). Children measure
time and peak memory of (a) the full all-vs-all Smith-Waterman identity (parasail), (b) the k-mer
prefiltered identity (sparse), (c) the k-mer cosine. Then: Pearson/Spearman correlation of (b) and
(c) with (a) over all pairs, and the scaled L(pi) -- scored with (a) -- of an 80/20 S1 split of the
targets made with each of (a), (b), (c), with the default similarity (``LeakageSplit`` with every
similarity option at its default: kind 'auto' -> sequences -> alignment identity; ``default``), and of
random splits (one of 20 % test; five with the default split's fold sizes).

    python benchmarks/crossval.py kfold --dataset tox21 --peer --json tox21_kfold.json
    python benchmarks/crossval.py kfold --dataset qm8 --json qm8_kfold.json
    python benchmarks/crossval.py alignment --json davis_alignment.json
    python benchmarks/crossval.py libraries   # parasail vs pyopal vs pyswrd (pip install pyopal pyswrd)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vs_datasail import DATASETS, check_peer, mirror_root, run_measured, valid_molecules  # noqa: E402

from benchdesign.molexp.peers import DATASAIL_CHILD  # noqa: E402

K_FOLDS = 5

ALIGN_CHILD = r'''
import json, sys, time
import numpy as np, scipy.sparse as sp
from benchdesign.splitting.alignment import alignment_similarity, all_vs_all_identity
from benchdesign.splitting.similarity import KmerSimilarity, dense_similarity
what, seq_file, out = sys.argv[1], sys.argv[2], sys.argv[3]
seqs = list(json.load(open(seq_file)).values())
start = time.perf_counter()
if what == "full":
    m = all_vs_all_identity(seqs)
    np.save(out, m.astype(np.float32))
elif what == "prefilter":
    src = alignment_similarity(seqs)
    sp.save_npz(out, src.sparse)
else:
    m = dense_similarity(KmerSimilarity.from_sequences(seqs))
    np.save(out, m.astype(np.float32))
print(json.dumps({"inner_seconds": time.perf_counter() - start}))
'''


def _fold_scores(sim, folds: list[np.ndarray]) -> list[dict]:
    """Per split: scaled L(pi) of all folds and of every fold vs the rest (one tiled pass)."""
    from benchdesign.splitting.certificate import fold_vs_rest
    from benchdesign.splitting.leakage import leakage_summary

    flat = [g for f in folds for g in [f, *fold_vs_rest(f, K_FOLDS)]]
    s = leakage_summary(sim, flat)
    out = []
    for i in range(len(folds)):
        part = s[i * (K_FOLDS + 1):(i + 1) * (K_FOLDS + 1)]
        per = [p.scaled for p in part[1:]]
        out.append({"scaled_leakage": part[0].scaled, "fold_scaled_leakage": per, "mean_fold": float(np.mean(per)),
                    "fold_sizes": np.bincount(folds[i][folds[i] >= 0], minlength=K_FOLDS).tolist()})
    return out


def kfold(args) -> dict:
    from benchdesign.splitting.similarity import FingerprintSimilarity

    src = mirror_root() / "mol" / "chemprop_moleculenet" / DATASETS.get(args.dataset, args.dataset)
    if not src.is_file():
        raise SystemExit(f"dataset not found: {src}")
    smiles, bits, keep, ids = valid_molecules(src, args.limit)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="crossval_"))
    work.mkdir(parents=True, exist_ok=True)
    data = work / "molecules.tsv"
    pd.DataFrame({"ID": ids, "SMILES": [smiles[i] for i in keep]}).to_csv(data, sep="\t", index=False)
    names = [f"fold{i}" for i in range(K_FOLDS)]
    print(f"{src.name}: {len(ids)} valid molecules, {K_FOLDS}-fold S1, K={args.clusters}, epsilon={args.epsilon}; "
          f"workdir {work}", flush=True)
    ours_out = work / "benchdesign.tsv"
    ours = run_measured(
        [sys.executable, "-m", "benchdesign.cli", "split", "--task", "S1", "--input", str(data), "--id-col", "ID",
         "--smiles-col", "SMILES", "--folds", str(K_FOLDS), "--clusters", str(args.clusters),
         "--epsilon", str(args.epsilon), "--time-limit", str(args.time_limit), "--out", str(ours_out),
         "--report", str(work / "benchdesign.json")], work / "benchdesign.log")
    print(f"benchdesign: {ours}", flush=True)
    if ours["returncode"] != 0:
        raise SystemExit((work / "benchdesign.log").read_text()[-2000:])
    table = pd.read_csv(ours_out, sep="\t", dtype={"id": str})
    order = pd.Series(np.arange(len(ids)), index=ids)
    ours_folds = np.full(len(ids), -1, dtype=np.int64)
    ours_folds[order[table["id"]].to_numpy()] = table["fold"].to_numpy()
    splits = {"benchdesign": ours_folds}
    result: dict = {"dataset": src.name, "n": len(ids), "clusters": args.clusters, "epsilon": args.epsilon,
                    "benchdesign": {**ours, "time_limit": args.time_limit}}
    if args.peer:
        reason = check_peer(args.peer_python)
        if reason is not None:
            raise SystemExit(f"datasail is not available in {args.peer_python}: {reason}")
        peer_out, job = work / "datasail.json", work / "datasail_job.json"
        job.write_text(json.dumps({
            "ids": ids, "smiles": [smiles[i] for i in keep], "out": str(peer_out), "fractions": [1 / K_FOLDS] * K_FOLDS,
            "names": names, "epsilon": args.epsilon, "delta": args.epsilon, "solver": "HIGHS",
            "max_sec": args.peer_max_sec, "clusters": args.clusters}))
        peer = run_measured([args.peer_python, "-c", DATASAIL_CHILD, str(job)], work / "datasail.log")
        print(f"datasail: {peer}", flush=True)
        if peer["returncode"] != 0:
            raise SystemExit((work / "datasail.log").read_text()[-2000:])
        assignment = json.loads(peer_out.read_text())["assignment"]
        peer_folds = np.full(len(ids), -1, dtype=np.int64)
        for key, name in assignment.items():
            if key in order.index and name in names:
                peer_folds[order[key]] = names.index(name)
        splits["datasail"] = peer_folds
        result["datasail"] = {**peer, "max_sec": args.peer_max_sec, "n_unassigned": int((peer_folds < 0).sum())}
    for seed in range(3):
        rng = np.random.default_rng(seed)
        splits[f"random{seed}"] = rng.permutation(np.arange(len(ids)) % K_FOLDS)
    scores = _fold_scores(FingerprintSimilarity(bits), list(splits.values()))
    for name, sc in zip(splits, scores, strict=True):
        result.setdefault(name, {}).update(sc)
    rand = [result[f"random{s}"]["mean_fold"] for s in range(3)]
    result["random_mean_fold"] = float(np.mean(rand))
    report = json.loads((work / "benchdesign.json").read_text())
    result["benchdesign"]["certificate"] = report.get("certificate")
    result["benchdesign"]["solver_status"] = report.get("solver_status")
    print(f"\n{'':14s}{'wall [s]':>10s}{'peak [MB]':>11s}{'mean fold L':>13s}  per-fold scaled L(pi) (fold vs rest)")
    for name in [n for n in ("benchdesign", "datasail") if n in result]:
        r = result[name]
        print(f"{name:14s}{r['wall_s']:10.1f}{r['peak_mb']:11.0f}{r['mean_fold']:13.4f}  "
              + " ".join(f"{v:.4f}" for v in r["fold_scaled_leakage"]))
    print(f"{'random (3)':14s}{'':21s}{result['random_mean_fold']:13.4f}")
    if "datasail" in result:
        print(f"speed-up (wall) {result['datasail']['wall_s'] / result['benchdesign']['wall_s']:.1f}x; "
              f"datasail unassigned {result['datasail']['n_unassigned']}")
    return result


DEFAULT_RANDOM_SEEDS = 5


def _default_split(proteins: dict, args) -> tuple[dict, np.ndarray]:
    """S1 80/20 of the sequences with every similarity option left at its default (LeakageSplit, kind='auto'):
    the record (kind read, similarity, CPU seconds of similarity + split) and the folds."""
    import time

    from benchdesign.splitting import LeakageSplit

    cv = LeakageSplit((0.8, 0.2), similarity=list(proteins.values()), clusters=args.clusters,
                      time_limit=args.time_limit)
    start = time.process_time()
    next(cv.split(np.zeros((len(proteins), 1))))
    record = {"cpu_seconds": time.process_time() - start, "kind": cv.kind_, "similarity": cv.report_["similarity"]}
    print(f"default: {record}", flush=True)
    return record, cv.folds_.astype(np.int64)


def alignment(args) -> dict:
    from scipy.stats import pearsonr, spearmanr

    from benchdesign.splitting.leakage import leakage_summary
    from benchdesign.splitting.similarity import MatrixSimilarity
    from benchdesign.splitting.tasks import EntitySet, SplitSpec, split_entities

    seq_file = mirror_root() / "mol" / f"deepdta_{args.proteins}" / "proteins.txt"
    if not seq_file.is_file():
        raise SystemExit(f"not found: {seq_file}")
    work = Path(args.workdir or tempfile.mkdtemp(prefix="align_"))
    work.mkdir(parents=True, exist_ok=True)
    res: dict = {"n": len(json.loads(seq_file.read_text()))}
    mats = {}
    for what, suffix in (("full", ".npy"), ("prefilter", ".npz"), ("kmer", ".npy")):
        out = work / f"{what}{suffix}"
        res[what] = run_measured([sys.executable, "-c", ALIGN_CHILD, what, str(seq_file), str(out)],
                                 work / f"{what}.log")
        print(f"{what}: {res[what]}", flush=True)
        if res[what]["returncode"] != 0:
            raise SystemExit((work / f"{what}.log").read_text()[-2000:])
        if suffix == ".npy":
            mats[what] = np.load(out).astype(np.float64)
        else:
            import scipy.sparse as sp

            m = sp.load_npz(out)
            mats[what] = m.toarray()
            res[what]["aligned_pair_fraction"] = float((m.nnz - m.shape[0]) / (m.shape[0] * (m.shape[0] - 1)))
    n = mats["full"].shape[0]
    iu = np.triu_indices(n, 1)
    ref = mats["full"][iu]
    for what in ("prefilter", "kmer"):
        v = mats[what][iu]
        res[what]["pearson_vs_full"] = float(pearsonr(v, ref)[0])
        res[what]["spearman_vs_full"] = float(spearmanr(v, ref)[0])
        top = ref >= np.quantile(ref, 0.99)  # the most similar 1 % of pairs: are they kept?
        res[what]["top1pct_full_pairs_nonzero"] = float(np.mean(v[top] > 0))
    ids = np.array([str(i) for i in range(n)], dtype=object)
    spec = SplitSpec(clusters=args.clusters, time_limit=args.time_limit)
    folds = {}
    for what in ("full", "prefilter", "kmer"):
        ent = EntitySet(ids, np.ones(n, dtype=bool), MatrixSimilarity(mats[what]))
        folds[what] = split_entities("S1", ent, spec).fold
    folds["random"] = np.random.default_rng(0).permutation(np.arange(n) < round(0.2 * n)).astype(np.int64)
    res["default"], folds["default"] = _default_split(json.loads(seq_file.read_text()), args)
    for seed in range(DEFAULT_RANDOM_SEEDS):  # random splits with exactly the default split's fold sizes
        folds[f"random_default_sizes_{seed}"] = np.random.default_rng(seed).permutation(folds["default"])
    scores = leakage_summary(MatrixSimilarity(mats["full"]), list(folds.values()))
    res["s1_scaled_leakage_scored_with_full_identity"] = {k: s.scaled for k, s in zip(folds, scores, strict=True)}
    res["s1_test_fraction"] = {k: float(np.mean(f == 1)) for k, f in folds.items()}
    same = [res["s1_scaled_leakage_scored_with_full_identity"][f"random_default_sizes_{s}"]
            for s in range(DEFAULT_RANDOM_SEEDS)]
    res["default"]["random_same_sizes_scaled_leakage_mean"] = float(np.mean(same))
    print(json.dumps(res, indent=1))
    return res


def libraries(args) -> dict:
    """Per-pair time of identity-giving aligners on 20 DAVIS queries x all 442 targets, one thread each."""
    import time

    import parasail

    from benchdesign.splitting.alignment import GAP_EXTEND, GAP_OPEN

    seqs = list(json.loads((mirror_root() / "mol" / "deepdta_davis" / "proteins.txt").read_text()).values())
    queries = seqs[:20]
    pairs = len(queries) * len(seqs)
    res: dict = {"pairs": pairs}

    def timed(name, fn):
        start = time.perf_counter()
        out = fn()
        res[name] = {"ms_per_pair": 1e3 * (time.perf_counter() - start) / pairs}
        return out

    timed("parasail_sw_stats_striped_16", lambda: [
        parasail.sw_stats_striped_16(a, b, GAP_OPEN, GAP_EXTEND, parasail.blosum62).matches
        for a in queries for b in seqs])
    timed("parasail_profile_striped_16", lambda: [
        parasail.sw_stats_striped_profile_16(p, b, GAP_OPEN, GAP_EXTEND).matches
        for p in (parasail.profile_create_stats_16(a, parasail.blosum62) for a in queries) for b in seqs])
    try:
        import pyopal

        db = pyopal.Database(seqs)
        timed("pyopal_full", lambda: [r.alignment.count("M") for a in queries for r in pyopal.align(
            a, db, mode="full", algorithm="sw", gap_open=GAP_OPEN, gap_extend=GAP_EXTEND, threads=1)])
        timed("pyopal_score_only", lambda: [r.score for a in queries for r in pyopal.align(
            a, db, mode="score", algorithm="sw", gap_open=GAP_OPEN, gap_extend=GAP_EXTEND, threads=1)])
    except ImportError as err:
        res["pyopal"] = f"not installed: {err}"
    try:
        import pyswrd

        hits = timed("pyswrd_search", lambda: list(pyswrd.search(queries, seqs, threads=1, max_evalue=1e9,
                                                                   max_candidates=len(seqs))))
        res["pyswrd_search"]["hits"] = len(hits)
    except ImportError as err:
        res["pyswrd"] = f"not installed: {err}"
    print(json.dumps(res, indent=1))
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", choices=("kfold", "alignment", "libraries"))
    ap.add_argument("--dataset", default="tox21")
    ap.add_argument("--proteins", choices=("davis", "kiba"), default="davis", help="alignment part: whose targets")
    ap.add_argument("--clusters", type=int, default=50)
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--peer", action="store_true", help="also run the datasail package's 5-fold split")
    ap.add_argument("--peer-python", default=sys.executable)
    ap.add_argument("--peer-max-sec", type=int, default=100)
    ap.add_argument("--limit", type=int, default=0, help="first N valid molecules only (smoke test)")
    ap.add_argument("--workdir")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    res = {"kfold": kfold, "alignment": alignment, "libraries": libraries}[args.part](args)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2, default=float) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
