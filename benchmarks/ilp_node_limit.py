"""Whether the molecular experiments' splits are reproducible: the ILP stopped by a node limit, not a clock.

A split whose ILP stops at ``time_limit`` keeps the best assignment found by then, which depends on the machine
and its load: two runs of one config can then write different folds (on DAVIS, 2 of 3 S2 splits of the Fig. 4
run hit the 60 s limit under load and gave another scaled L(pi) than a second run). HiGHS is deterministic for a
fixed seed and thread count when it stops by optimality or by ``node_limit`` (branch-and-bound nodes).

For each dataset, split method and repeat of a finished run (its ``results/molecules/<dataset>`` tables), this
runs the split as rule ``mol_split`` does with the config's ILP options plus each ``--node-limits`` value
(``--time-limit`` seconds as the safety net), twice, and prints the solver status, seconds, scaled L(pi) and
whether the two runs gave the same folds (and the folds' sha256, to compare runs on an idle and a busy machine).

    python benchmarks/ilp_node_limit.py --results results --datasets davis kiba --methods s2 \\
        --node-limits 1000 5000 --repeats 0 1 2
    python benchmarks/ilp_node_limit.py --results results --node-limits 1000 --busy 6   # on a loaded machine

``--busy N`` keeps N busy-looping processes running beside the splits (a machine shared with other work).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np

from benchdesign.molexp.experiment import load_experiment, run_molecule_split

ILP = {"clusters": 50, "epsilon": 0.1, "delta": 0.1, "solver": "HIGHS", "fraction_tolerance": None,
       "stratification": "paper"}
"""config/config.yaml's molecules.ilp without its time limit."""


def split_once(data, method: str, repeat: int, node_limit: int | None, time_limit: float, seed: int,
               clusters: int):
    options = {"ilp": {**ILP, "clusters": clusters, "time_limit": time_limit, "node_limit": node_limit}}
    folds, record = run_molecule_split(data, method, repeat, (0.8, 0.2), seed, options)
    return folds, record


@contextlib.contextmanager
def busy_processes(n: int):
    """``n`` child processes that spin on a core each until the block ends."""
    children = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for child in children:
            child.kill()
            child.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--datasets", nargs="+", default=["davis", "kiba"])
    parser.add_argument("--methods", nargs="+", default=["s2"])
    parser.add_argument("--repeats", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--node-limits", nargs="+", type=int, default=[1000, 5000])
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--busy", type=int, default=0, help="busy-looping processes beside the splits")
    parser.add_argument("--clusters", type=int, default=ILP["clusters"], help="K (the Fig. 6a sweep goes to 150)")
    parser.add_argument("--seed", type=int, default=20240601, help="the config's seed (config/config.yaml's)")
    args = parser.parse_args()
    print(f"K = {args.clusters}, {args.busy} busy processes beside\n")
    print("| dataset | method | repeat | node limit | status | solver s | scaled L(π) | same folds twice | folds sha256 |")
    print("|---|---|---:|---:|---|---:|---:|---|---|")
    with busy_processes(args.busy):
        run_all(args)


def run_all(args: argparse.Namespace) -> None:
    """The table's rows: each dataset, method, repeat and node limit, split twice."""
    for dataset in args.datasets:
        root = args.results / "molecules" / dataset
        data = load_experiment(dataset, root / "samples.csv", root / "molecules.csv", root / "proteins.csv",
                               root / "features.npz")
        for method in args.methods:
            for repeat in args.repeats:
                for limit in args.node_limits:
                    first, rec = split_once(data, method, repeat, limit, args.time_limit, args.seed, args.clusters)
                    second, _ = split_once(data, method, repeat, limit, args.time_limit, args.seed, args.clusters)
                    rep = rec["report"]
                    print(f"| {dataset} | {method} | {repeat} | {limit} | {rep.get('solver_status')} | "
                          f"{rep.get('solver_seconds', float('nan')):.1f} | {rec['scaled_leakage']:.4f} | "
                          f"{'yes' if np.array_equal(first, second) else 'no'} | "
                          f"{hashlib.sha256(first.tobytes()).hexdigest()[:12]} |", flush=True)


if __name__ == "__main__":
    main()
