"""5-fold cross-validation of molecules: benchdesign against the usual k-fold splitters, side by side.

For each MoleculeNet set of the mirror (default: lipo, bbbp, tox21, qm8) every method makes a 5-fold
split of the valid molecules in its own child process (wall time, CPU and peak RSS from wait4):

- ``benchdesign``: ``benchdesign split --task S1 --folds 5`` with the defaults (fold balance and the 1 pp
  fraction target on); ``benchdesign (paper)``: the same with ``--no-balance-folds --fraction-tolerance none``,
  the paper's objective (total L(pi) only, fold sizes anywhere within epsilon);
- ``random``: a seeded random 5-fold (equal folds);
- ``scaffold``: scikit-learn's ``GroupKFold`` over Bemis-Murcko scaffolds;
- ``kmeans``: ``GroupKFold`` over 50 k-means clusters of the ECFP4 bits (what splito's and chemsplit's
  k-means splitters do for one test fold);
- ``butina``: ``GroupKFold`` over RDKit Butina clusters (Tanimoto distance cut-off 0.65), only up to
  ``--butina-max`` molecules (it needs all pairwise distances in memory);
- ``datasail`` (with ``--peer``): the datasail package's C1e split into five 0.2 folds, same K and epsilon.

splito's splitters (KMeansSplit, ScaffoldSplit, MaxDissimilaritySplit, ...) are repeated train/test
splits (``n_splits`` draws of one test set), not k-fold partitions, so they are not in the table.

Every split is scored the same way on ECFP4 (1024 bits) Tanimoto: the scaled L(pi) (eq. 20) of every fold
against the other four (max and mean over the folds), and the nearest-neighbour view: each molecule's
maximum similarity to the molecules outside its fold (median, share above 0.5 and 0.7).

    python benchmarks/kfold_peers.py --peer --json kfold_peers.json
    python benchmarks/kfold_peers.py --datasets lipo --json lipo.json
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

K = 5

PEER_CHILD = r'''
import json, sys
import numpy as np
from sklearn.model_selection import GroupKFold
method, job = sys.argv[1], json.load(open(sys.argv[2]))
smiles, n = job["smiles"], len(job["smiles"])
if method == "random":
    folds = np.random.default_rng(job["seed"]).permutation(np.arange(n) % job["k"])
else:
    if method == "scaffold":
        from benchdesign.molexp.splitters import murcko_scaffolds
        groups = np.unique(murcko_scaffolds(smiles), return_inverse=True)[1]
    elif method == "kmeans":
        from sklearn.cluster import KMeans
        from benchdesign.splitting.similarity import smiles_fingerprints
        x = smiles_fingerprints(smiles)[0].astype(np.float32)  # (n, 1024) 0/1
        groups = KMeans(50, n_init=3, random_state=job["seed"]).fit_predict(x)
    elif method == "butina":
        from rdkit import DataStructs
        from rdkit.Chem import AllChem, MolFromSmiles
        from rdkit.ML.Cluster import Butina
        fps = [AllChem.GetMorganFingerprintAsBitVect(MolFromSmiles(s), 2, 1024) for s in smiles]
        dists = np.concatenate([1.0 - np.asarray(DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i]))
                                for i in range(1, n)])
        groups = np.empty(n, dtype=np.int64)
        for c, members in enumerate(Butina.ClusterData(dists, n, 0.65, isDistData=True)):
            groups[list(members)] = c
    else:
        raise SystemExit(f"unknown method {method}")
    folds = np.empty(n, dtype=np.int64)
    for f, (_, test) in enumerate(GroupKFold(job["k"]).split(np.zeros(n), groups=groups)):
        folds[test] = f
np.save(job["out"], np.asarray(folds, dtype=np.int64))
'''


def nearest_other_fold(sim, folds: dict[str, np.ndarray], block: int = 1024) -> dict[str, np.ndarray]:
    """Per split: each molecule's maximum similarity to the molecules in the other folds (one tiled pass)."""
    n = sim.n
    best = {name: np.zeros(n) for name in folds}
    cols = np.arange(n)
    for start in range(0, n, block):
        rows = np.arange(start, min(start + block, n))
        tile = sim.block(rows, cols)
        for name, f in folds.items():
            same = f[rows][:, None] == f[None, :]
            best[name][rows] = np.where(same, -1.0, tile).max(axis=1)
    return best


def score(sim, splits: dict[str, np.ndarray]) -> dict[str, dict]:
    """Scaled L(pi) of every fold vs the rest, and the nearest-neighbour view, of every split."""
    from benchdesign.splitting.certificate import fold_vs_rest
    from benchdesign.splitting.leakage import leakage_summary

    flat = [g for f in splits.values() for g in fold_vs_rest(f, K)]
    summaries = leakage_summary(sim, flat)
    nearest = nearest_other_fold(sim, splits)
    out = {}
    for i, (name, f) in enumerate(splits.items()):
        per = [s.scaled for s in summaries[i * K:(i + 1) * K]]
        nn = nearest[name]
        out[name] = {"fold_scaled_leakage": per, "max_fold": float(max(per)), "mean_fold": float(np.mean(per)),
                     "nn_median": float(np.median(nn)), "nn_above_0.5": float(np.mean(nn > 0.5)),
                     "nn_above_0.7": float(np.mean(nn > 0.7)),
                     "fold_fractions": (np.bincount(f[f >= 0], minlength=K) / f.size).round(4).tolist(),
                     "unassigned": int((f < 0).sum())}
    return out


def run_benchdesign(data: Path, work: Path, name: str, extra: list[str], args) -> tuple[dict, np.ndarray, list]:
    out = work / f"{name}.tsv"
    cmd = [sys.executable, "-m", "benchdesign.cli", "split", "--task", "S1", "--input", str(data), "--id-col", "ID",
           "--smiles-col", "SMILES", "--folds", str(K), "--clusters", str(args.clusters), "--epsilon",
           str(args.epsilon), "--time-limit", str(args.time_limit), "--certificate-seeds", "0",
           "--out", str(out), *extra]
    measured = run_measured(cmd, work / f"{name}.log")
    if measured["returncode"] != 0:
        raise SystemExit((work / f"{name}.log").read_text()[-2000:])
    table = pd.read_csv(out, sep="\t", dtype={"id": str})
    return measured, table["fold"].to_numpy(), table["id"].tolist()


def one_dataset(dataset: str, args) -> dict:
    from benchdesign.splitting.similarity import FingerprintSimilarity

    src = mirror_root() / "mol" / "chemprop_moleculenet" / DATASETS.get(dataset, dataset)
    if not src.is_file():
        raise SystemExit(f"dataset not found: {src} (set BENCHDESIGN_MIRROR to the data mirror)")
    smiles, bits, keep, ids = valid_molecules(src, args.limit)
    valid_smiles = [smiles[i] for i in keep]
    work = Path(tempfile.mkdtemp(prefix=f"kfold_{dataset}_", dir=args.workdir))
    data = work / "molecules.tsv"
    pd.DataFrame({"ID": ids, "SMILES": valid_smiles}).to_csv(data, sep="\t", index=False)
    print(f"{src.name}: {len(ids)} valid molecules; workdir {work}", flush=True)
    order = pd.Series(np.arange(len(ids)), index=ids)
    splits, cost = {}, {}
    for name, extra in (("benchdesign", []),
                        ("benchdesign (paper)", ["--no-balance-folds", "--fraction-tolerance", "none"])):
        cost[name], folds, row_ids = run_benchdesign(data, work, name.replace(" (", "_").rstrip(")"), extra, args)
        splits[name] = np.full(len(ids), -1, dtype=np.int64)
        splits[name][order[row_ids].to_numpy()] = folds
    job = work / "peer_job.json"
    methods = ["random", "scaffold", "kmeans"] + (["butina"] if len(ids) <= args.butina_max else [])
    for method in methods:
        job.write_text(json.dumps({"smiles": valid_smiles, "k": K, "seed": 0, "out": str(work / f"{method}.npy")}))
        cost[method] = run_measured([sys.executable, "-c", PEER_CHILD, method, str(job)], work / f"{method}.log")
        if cost[method]["returncode"] != 0:
            raise SystemExit((work / f"{method}.log").read_text()[-2000:])
        splits[method] = np.load(work / f"{method}.npy")
    if args.peer:
        splits["datasail"], cost["datasail"] = run_datasail(ids, valid_smiles, work, order, args)
    result = {"dataset": src.name, "n": len(ids), "methods": {}}
    for name, sc in score(FingerprintSimilarity(bits), splits).items():
        result["methods"][name] = {**sc, **cost[name]}
    print_table(result)
    return result


def run_datasail(ids, smiles, work: Path, order, args) -> tuple[np.ndarray, dict]:
    reason = check_peer(args.peer_python)
    if reason is not None:
        raise SystemExit(f"datasail is not available in {args.peer_python}: {reason}")
    names = [f"fold{i}" for i in range(K)]
    out, job = work / "datasail.json", work / "datasail_job.json"
    job.write_text(json.dumps({
        "ids": ids, "smiles": smiles, "out": str(out), "fractions": [1 / K] * K, "names": names,
        "epsilon": args.epsilon, "delta": args.epsilon, "solver": "HIGHS", "max_sec": args.peer_max_sec,
        "clusters": args.clusters}))
    measured = run_measured([args.peer_python, "-c", DATASAIL_CHILD, str(job)], work / "datasail.log")
    if measured["returncode"] != 0:
        raise SystemExit((work / "datasail.log").read_text()[-2000:])
    folds = np.full(len(ids), -1, dtype=np.int64)
    for key, name in json.loads(out.read_text())["assignment"].items():
        if key in order.index and name in names:
            folds[order[key]] = names.index(name)
    return folds, measured


def print_table(result: dict) -> None:
    rows = []
    for name, r in result["methods"].items():
        rows.append({"method": name, "max fold L": round(r["max_fold"], 4), "mean fold L": round(r["mean_fold"], 4),
                     "NN median": round(r["nn_median"], 3), "NN > 0.5": round(r["nn_above_0.5"], 3),
                     "NN > 0.7": round(r["nn_above_0.7"], 3), "fold sizes": r["fold_fractions"],
                     "wall s": round(r["wall_s"], 1), "peak MB": round(r["peak_mb"])})
    print(f"\n{result['dataset']} (n = {result['n']}), 5-fold; fold L = scaled L(pi) of a fold vs the other four; "
          "NN = each molecule's max Tanimoto to the other folds")
    print(pd.DataFrame(rows).to_string(index=False), flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", nargs="+", default=["lipo", "bbbp", "tox21", "qm8"])
    p.add_argument("--clusters", type=int, default=50)
    p.add_argument("--epsilon", type=float, default=0.1)
    p.add_argument("--time-limit", type=float, default=10.0)
    p.add_argument("--limit", type=int, default=0, help="first N valid molecules only (0 = all)")
    p.add_argument("--butina-max", type=int, default=10_000)
    p.add_argument("--peer", action="store_true", help="also the datasail package (C1e, five 0.2 folds)")
    p.add_argument("--peer-python", default=sys.executable)
    p.add_argument("--peer-max-sec", type=int, default=300)
    p.add_argument("--workdir", help="parent folder of the per-dataset work folders (default: the temp dir)")
    p.add_argument("--json", help="write all figures to this JSON file")
    args = p.parse_args(argv)
    results = [one_dataset(d, args) for d in args.datasets]
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
