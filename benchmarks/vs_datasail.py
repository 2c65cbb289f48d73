"""Peer comparison: DataSAIL 1.4.0 (PyPI) vs benchdesign on the same molecules (S1, same K and epsilon).

Each tool runs in its own subprocess; wall time, CPU time and peak memory (ru_maxrss from wait4) are
read per child. Both splits are then scored with the same leakage function (benchdesign.splitting.
leakage: scaled L(pi), eq. 20, on ECFP4 1024-bit Tanimoto -- the similarity DataSAIL itself uses),
and the script prints both tools' figures and their ratios.

DataSAIL 1.4.0 has no HiGHS entry in its solver table; with --peer-solver HIGHS (default) the peer
child registers HiGHS through a small wrapper around datasail.solver.utils.solve that passes the same
time limit (max_sec). --peer-solver SCIP uses DataSAIL's own default path unchanged.

If datasail cannot be imported by --peer-python, the script says why and exits with status 3.

Example (the peer lives in its own venv because of conflicting pins):
    python -m venv /tmp/peer-venv && /tmp/peer-venv/bin/pip install datasail==1.4.0
    python benchmarks/vs_datasail.py --dataset tox21 --peer-python /tmp/peer-venv/bin/python
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

from benchdesign.molexp.peers import DATASAIL_CHILD  # the child process that runs datasail's S1

REPO = Path(__file__).resolve().parents[1]
DATASETS = {"tox21": "tox21.csv", "qm8": "qm8.csv.gz", "muv": "muv.csv.gz", "esol": "delaney.csv",
            "bbbp": "bbbp.csv", "lipo": "lipo.csv"}



def mirror_root() -> Path:
    env = os.environ.get("BENCHDESIGN_MIRROR")
    return Path(env) if env else REPO.parent / "shared" / "data"


def run_measured(cmd: list[str], log: Path) -> dict:
    """Run ``cmd`` as a child; wall time, user+sys CPU seconds and peak RSS (MB) of that child."""
    start = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {
        "returncode": proc.returncode,
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024.0,
    }


def valid_molecules(path: Path, limit: int = 0) -> tuple[list, np.ndarray, np.ndarray, list[str]]:
    """SMILES of ``path``, the ECFP4 bits and row numbers of the valid ones (first ``limit``), ids M<row>."""
    from benchdesign.splitting.similarity import smiles_fingerprints

    smiles = pd.read_csv(path)["smiles"].tolist()
    bits, valid = smiles_fingerprints(smiles)
    keep = np.flatnonzero(valid)
    if limit:
        keep, bits = keep[:limit], bits[:limit]
    return smiles, bits, keep, [f"M{i:06d}" for i in keep]


def check_peer(python: str) -> str | None:
    """None when ``python`` can import datasail, else the reason."""
    proc = subprocess.run([python, "-c", "import datasail, importlib.metadata as m; print(m.version('datasail'))"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit code {proc.returncode}"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="tox21", help=f"one of {sorted(DATASETS)} or a CSV path with a smiles column")
    ap.add_argument("--peer-python", default=sys.executable, help="interpreter that has datasail==1.4.0")
    ap.add_argument("--peer-solver", default="HIGHS", choices=("HIGHS", "SCIP"))
    ap.add_argument("--peer-max-sec", type=int, default=100, help="DataSAIL's ILP time limit (its default 100)")
    ap.add_argument("--clusters", type=int, default=50)
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--delta", type=float, default=0.1)
    ap.add_argument("--time-limit", type=float, default=10.0, help="benchdesign's ILP time limit")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0, help="use only the first N valid molecules (smoke tests)")
    ap.add_argument("--workdir", help="keep inputs/outputs here (default: a temporary directory)")
    ap.add_argument("--json", help="write the measured figures to this JSON file")
    args = ap.parse_args(argv)

    reason = check_peer(args.peer_python)
    if reason is not None:
        print(f"datasail is not available in {args.peer_python}: {reason}\n"
              f"install it with `pip install datasail==1.4.0` (in a separate venv if it conflicts) "
              f"and pass --peer-python", file=sys.stderr)
        return 3

    from benchdesign.splitting.leakage import leakage_summary
    from benchdesign.splitting.similarity import FingerprintSimilarity

    src_path = Path(args.dataset) if Path(args.dataset).is_file() else \
        mirror_root() / "mol" / "chemprop_moleculenet" / DATASETS.get(args.dataset, args.dataset)
    if not src_path.is_file():
        print(f"dataset not found: {src_path}", file=sys.stderr)
        return 2
    smiles, bits, keep, ids = valid_molecules(src_path, args.limit)
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="vs_datasail_"))
    work.mkdir(parents=True, exist_ok=True)
    data = work / "molecules.tsv"
    pd.DataFrame({"ID": ids, "SMILES": [smiles[i] for i in keep]}).to_csv(data, sep="\t", index=False)
    print(f"{src_path.name}: {len(smiles)} rows, {len(ids)} valid molecules; K={args.clusters}, "
          f"epsilon={args.epsilon}, 80/20; workdir {work}", flush=True)

    peer_out, ours_out = work / "datasail.json", work / "benchdesign.tsv"
    peer_job = work / "datasail_job.json"
    peer_job.write_text(json.dumps({
        "ids": ids, "smiles": [smiles[i] for i in keep], "out": str(peer_out), "fractions": [0.8, 0.2],
        "names": ["train", "test"], "epsilon": args.epsilon, "delta": args.delta, "solver": args.peer_solver,
        "max_sec": args.peer_max_sec, "clusters": args.clusters}))
    peer = run_measured([args.peer_python, "-c", DATASAIL_CHILD, str(peer_job)], work / "datasail.log")
    print(f"datasail finished: {peer}", flush=True)
    ours = run_measured(
        [sys.executable, "-m", "benchdesign.cli", "split", "--task", "S1", "--input", str(data),
         "--id-col", "ID", "--smiles-col", "SMILES", "--splits", "0.8", "0.2", "--names", "train", "test",
         "--clusters", str(args.clusters), "--epsilon", str(args.epsilon), "--delta", str(args.delta),
         "--time-limit", str(args.time_limit), "--seed", str(args.seed), "--out", str(ours_out),
         "--report", str(work / "benchdesign.json")],
        work / "benchdesign.log",
    )
    print(f"benchdesign finished: {ours}", flush=True)
    for name, res, log in (("datasail", peer, "datasail.log"), ("benchdesign", ours, "benchdesign.log")):
        if res["returncode"] != 0:
            print(f"{name} failed (exit {res['returncode']}); see {work / log}:\n"
                  + (work / log).read_text()[-2000:], file=sys.stderr)
            return 1

    order = pd.Series(np.arange(len(ids)), index=ids)
    folds = []
    peer_table = pd.Series(json.loads(peer_out.read_text())["assignment"], dtype=object)
    for table in (pd.DataFrame({"id": peer_table.index, "split": peer_table.to_numpy()}),
                  pd.read_csv(ours_out, sep="\t", dtype=str, keep_default_na=False)):
        lab = np.full(len(ids), "unassigned", dtype=object)
        lab[order[table["id"]].to_numpy()] = table["split"].to_numpy()
        folds.append(lab)
    rng = np.random.default_rng(args.seed)
    random_split = np.where(rng.permutation(len(ids)) < round(0.8 * len(ids)), "train", "test").astype(object)
    start = time.perf_counter()
    s_peer, s_ours, s_rand = leakage_summary(FingerprintSimilarity(bits), folds + [random_split])
    eval_s = time.perf_counter() - start
    frac = [float(np.mean(f == "test")) for f in folds]

    rows = [
        ("scaled L(pi) (eq. 20)", s_peer.scaled, s_ours.scaled, s_ours.scaled / s_peer.scaled),
        ("wall time [s]", peer["wall_s"], ours["wall_s"], peer["wall_s"] / ours["wall_s"]),
        ("CPU time [s]", peer["cpu_s"], ours["cpu_s"], peer["cpu_s"] / ours["cpu_s"]),
        ("peak RSS [MB]", peer["peak_mb"], ours["peak_mb"], peer["peak_mb"] / ours["peak_mb"]),
        ("test fraction", frac[0], frac[1], float("nan")),
    ]
    print(f"\n{'':24s}{'datasail':>12s}{'benchdesign':>14s}{'ratio':>10s}")
    for label, a, b, r in rows:
        print(f"{label:24s}{a:12.4g}{b:14.4g}{r:10.3g}")
    print("ratio = datasail/benchdesign for time and memory (speed-up), benchdesign/datasail for leakage")
    print(f"random 80/20 split: scaled L(pi) {s_rand.scaled:.4f}; leakage evaluation took {eval_s:.1f} s")
    our_report = json.loads((work / "benchdesign.json").read_text())
    stages = {k: our_report.get(k) for k in ("clustering_seconds", "solver_seconds", "solver_status",
                                             "mip_gap_tolerance", "ilp_scaled_leakage")}
    print(f"benchdesign stages: {stages}")
    try:
        load = os.getloadavg()
        print(f"load average during the run (1/5/15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    except OSError:
        load = None
    if args.json:
        Path(args.json).write_text(json.dumps({
            "dataset": src_path.name, "n": len(ids), "clusters": args.clusters, "epsilon": args.epsilon,
            "datasail": {**peer, "scaled_leakage": s_peer.scaled, "test_fraction": frac[0],
                         "solver": args.peer_solver, "max_sec": args.peer_max_sec},
            "benchdesign": {**ours, "scaled_leakage": s_ours.scaled, "test_fraction": frac[1],
                            "time_limit": args.time_limit, **stages},
            "random_scaled_leakage": s_rand.scaled, "loadavg": load,
        }, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
