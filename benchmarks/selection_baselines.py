"""Curator baselines (issue 22) against the paper's strategies on the dataset-pool protocol.

Usage: python benchmarks/selection_baselines.py [--mirror ../shared/data] [--domains nlp recsys]
       [--trials 100] [--ks 5 10] [--seed 0] [--with-dpp]

For each domain (its a-priori representation: NLP task metadata, RecSys interaction statistics) and each
strategy, ``dataset_pool_trials`` (pools of floor(0.8 n) datasets, the paper's section 5.1) with the
pipeline's default options; prints, per k, the share of trials whose Spearman rho between the subset's and
the full benchmark's mean-rank vectors is >= 0.9, and the median rho.  ``stratified`` runs where the domain
has a categorical metadata column (NLP: the MTEB task type).  ``--with-dpp`` also measures the greedy DPP
MAP selector (``strategies.select_dpp``, not registered) by registering it in this process only.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

import sys

sys.path.insert(0, str(Path(__file__).resolve().parent))
from protocol import domain_inputs  # noqa: E402

from benchdesign.data.loaders import load_mteb_metadata  # noqa: E402
from benchdesign.domains import load_representation  # noqa: E402
from benchdesign.domains.registry import one_input  # noqa: E402
from benchdesign.selection import strategies as S  # noqa: E402
from benchdesign.selection.protocol import dataset_pool_trials  # noqa: E402
from benchdesign.workflow.config import domain_protocol  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
APRIORI = {"nlp": "metadata", "recsys": "interaction", "tsc": "catch22"}


def prepare(name: str, config: dict, mirror: str, cache: Path) -> dict:
    """Mean ranks (n, M), the a-priori representation and (NLP) the task-type strata of one domain."""
    domain, files, _, ranks = domain_inputs(name, config, mirror, cache)
    X = load_representation(domain, APRIORI[name], files, ranks).to_numpy(dtype=float)
    strata = None
    if name == "nlp":
        strata = load_mteb_metadata(one_input(files, "README.md", "nlp"))["type"].loc[ranks.index].to_numpy()
    return {"ranks": ranks.to_numpy(), "X": X, "strata": strata}


def register_dpp() -> None:
    """Register the DPP MAP candidate in this process (the library keeps it unregistered)."""
    dpp = S.Strategy("dpp", "DPP MAP", S.select_dpp, S.dpp_map_order, ("noise",), True, "#aec7e8")
    S.STRATEGY_REGISTRY["dpp"], S.STRATEGIES["dpp"], S.PREFIX_ORDERS["dpp"] = dpp, dpp.select, dpp.order


def measure(data: dict, strategy: str, ks: list[int], trials: int, seed: int, options: dict) -> dict:
    frame = dataset_pool_trials(data["ranks"], data["X"], strategy, ks, trials, 0.8, seed,
                                {**options, "strata": data["strata"]})
    rho = frame[frame["metric"] == "spearman"]
    return {k: ((block["value"] >= 0.9).mean(), block["value"].median()) for k, block in rho.groupby("k")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--config", default=str(REPO / "config/config.yaml"))
    parser.add_argument("--domains", nargs="+", default=["nlp", "recsys"])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--ks", nargs="+", type=int, default=[5, 10])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--with-dpp", action="store_true")
    args = parser.parse_args()
    config = yaml.safe_load(Path(args.config).read_text())
    if args.with_dpp:
        register_dpp()
    header = "".join(f" | rho>=0.9 k={k} | median k={k}" for k in args.ks)
    print(f"| domain | strategy{header} | seconds |")
    print("|---|---|" + "---|---|" * len(args.ks) + "---|")
    with tempfile.TemporaryDirectory() as cache:
        for name in args.domains:
            data = prepare(name, config, args.mirror, Path(cache))
            options = domain_protocol(config, name)["options"]
            for strategy in S.STRATEGIES:
                if strategy == "stratified" and data["strata"] is None:
                    continue
                start = time.process_time()
                result = measure(data, strategy, args.ks, args.trials, args.seed, options)
                cells = "".join(f" | {result[k][0]:.2f} | {result[k][1]:.3f}" for k in args.ks)
                print(f"| {name} | {strategy}{cells} | {time.process_time() - start:.1f} |", flush=True)


if __name__ == "__main__":
    main()
