"""Every selection strategy judged on models it never saw (issue 22): held-out Spearman rho per domain and k.

Usage: python benchmarks/selection_baselines.py [--mirror ../shared/data] [--domains nlp recsys tsc]
       [--variation model_holdout|dataset_pool] [--holdout-fraction 0.3] [--trials 100] [--ks 5 10] [--seed 0]
       [--prepared-dir RESULTS/prepared] [--tsc-representations NAME ...] [--with-dpp]

For each domain and strategy, ``model_holdout_trials`` with the pipeline's defaults (pools of floor(0.8 n)
datasets, 30 % of the models held out; the trials, pools and held-out models are the same for every strategy):
the a-priori strategies on the domain's a-priori representation (NLP task metadata, RecSys interaction
statistics, TSC the feature tables of a finished pipeline run, ``--prepared-dir``), the a-posteriori peers on the
oracle built from the seen models only (k-means, MMTEB-style backward elimination), k-medoids and greedy MI on
the a-priori features with the seen models' ranks appended, and, for comparison, the
oracle under the paper's protocol (all models choose and judge: ``dataset_pool_trials``, other draws).  Prints,
per k, the median rho, its 10th percentile, the share of trials with rho >= 0.9 and the Holm-adjusted one-sided
paired Wilcoxon p-values against random and against stratified random (NLP: by MTEB task type).
``--variation dataset_pool`` runs the paper's protocol for every row instead.  ``--with-dpp`` adds the greedy
DPP MAP selector (``strategies.select_dpp``, not registered) in this process only.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from protocol import domain_inputs  # noqa: E402

from benchdesign.data.loaders import load_mteb_metadata  # noqa: E402
from benchdesign.domains import load_representation  # noqa: E402
from benchdesign.domains.registry import one_input  # noqa: E402
from benchdesign.selection import strategies as S  # noqa: E402
from benchdesign.selection.options import HOLDOUT_FRACTION  # noqa: E402
from benchdesign.selection.protocol import dataset_pool_trials, model_holdout_trials, score_cube  # noqa: E402
from benchdesign.selection.statistics import holm, paired_wilcoxon  # noqa: E402
from benchdesign.workflow.config import config_domain, domain_protocol  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
APRIORI = {"nlp": ["metadata"], "recsys": ["interaction"], "tsc": ["simple", "summary", "landmarking_paper"]}
APRIORI_STRATEGIES = ("random", "stratified", "kmeans", "kmedoids", "facility_location", "mutual_information",
                      "fafi_cosine", "fafi_euclidean", "a_optimal", "d_optimal")
ORACLE_STRATEGIES = ("kmeans", "backward_elimination")
SEEN_STRATEGIES = ("kmedoids", "mutual_information")


def prepared(name: str, directory: str, reps: list[str]) -> dict:
    """A domain as a finished pipeline run prepared it (``results/prepared/<domain>``: scores, representations)."""
    folder = Path(directory, name)
    scores = pd.read_csv(folder / "scores.csv")
    ranks = pd.read_csv(folder / "dataset_ranks.csv", index_col=0)
    X = {rep: pd.read_csv(folder / f"representation_{rep}.csv", index_col=0).loc[ranks.index].to_numpy(dtype=float)
         for rep in reps if (folder / f"representation_{rep}.csv").is_file()}
    higher = config_domain({"domains": {name: {}}}, name).higher_is_better
    return {"ranks": ranks.to_numpy(), "cube": score_cube(scores, ranks.index, ranks.columns), "reps": X,
            "strata": None, "higher": higher}


def prepare(name: str, config: dict, mirror: str, cache: Path, features_dir: str | None) -> dict:
    """Ranks, score cube, a-priori representations and (NLP) the task-type strata of one domain."""
    if features_dir and name in APRIORI and any(r in config_domain(config, name).computed for r in APRIORI[name]):
        return prepared(name, features_dir, APRIORI[name])
    domain, files, scores, ranks = domain_inputs(name, config, mirror, cache)
    reps = {}
    for rep in APRIORI[name]:
        computed = Path(features_dir or "", name, f"{rep}.csv")
        if rep in domain.computed and not (features_dir and computed.is_file()):
            print(f"# {name}/{rep}: not computed here; run the pipeline and pass --prepared-dir", file=sys.stderr)
            continue
        features = pd.read_csv(computed, index_col=0) if rep in domain.computed else None
        reps[rep] = load_representation(domain, rep, files, ranks, features).to_numpy(dtype=float)
    strata = None
    if name == "nlp":
        strata = load_mteb_metadata(one_input(files, "README.md", "nlp"))["type"].loc[ranks.index].to_numpy()
    cube = score_cube(scores, ranks.index, ranks.columns)
    return {"ranks": ranks.to_numpy(), "cube": cube, "reps": reps, "strata": strata,
            "higher": domain.higher_is_better}


def register_dpp() -> None:
    """Register the DPP MAP candidate in this process (the library keeps it unregistered)."""
    dpp = S.Strategy("dpp", "DPP MAP", S.select_dpp, S.dpp_map_order, ("noise",), True, "#aec7e8")
    S.STRATEGY_REGISTRY["dpp"], S.STRATEGIES["dpp"], S.PREFIX_ORDERS["dpp"] = dpp, dpp.select, dpp.order


def rho(data: dict, strategy: str, X, variation: str, ks, trials: int, seed: int, options: dict,
        with_seen_ranks: bool = False) -> pd.DataFrame:
    """(trial, k) -> Spearman rho of one strategy; ``X=None`` is the oracle (of the seen models in model holdout)."""
    options = {**options, "strata": data["strata"]}
    if variation == "model_holdout":
        frame = model_holdout_trials(data["cube"], data["higher"], X, strategy, ks, trials, 0.8, seed,
                                     holdout_fraction=data["holdout_fraction"], options=options,
                                     with_seen_ranks=with_seen_ranks)
    else:
        X = data["ranks"] if X is None else X
        frame = dataset_pool_trials(data["ranks"], X, strategy, ks, trials, 0.8, seed, options)
    return frame[frame["metric"] == "spearman"].pivot(index="trial", columns="k", values="value")


def rows_of(name: str, data: dict, args, options: dict) -> list[tuple[str, str, pd.DataFrame, str]]:
    """(strategy, representation, rho by trial x k, comparable) of every row of one domain."""
    rows = []
    names = [s for s in APRIORI_STRATEGIES if s != "stratified" or data["strata"] is not None]
    names += ["dpp"] if "dpp" in S.STRATEGIES else []
    for strategy in names:
        uses = S.STRATEGY_REGISTRY[strategy].uses_representation
        for rep, X in (data["reps"].items() if uses else [("none", np.zeros((len(data["ranks"]), 1)))]):
            start = time.process_time()
            rows.append((strategy, rep, rho(data, strategy, X, args.variation, args.ks, args.trials, args.seed,
                                            options), "paired"))
            print(f"# {name} {strategy}/{rep}: {time.process_time() - start:.1f} CPU-s", file=sys.stderr, flush=True)
    if args.variation == "model_holdout":  # a priori for the held-out models: features + the seen models' ranks
        for strategy in SEEN_STRATEGIES:
            for rep, X in data["reps"].items():
                rows.append((strategy, f"{rep} + seen models' ranks",
                             rho(data, strategy, X, args.variation, args.ks, args.trials, args.seed, options, True),
                             "paired"))
    seen = "oracle (seen models)" if args.variation == "model_holdout" else "oracle"
    for strategy in ORACLE_STRATEGIES:
        rows.append((strategy, seen, rho(data, strategy, None, args.variation, args.ks, args.trials, args.seed,
                                         options), "paired"))
    if args.variation == "model_holdout":  # the paper's protocol: other draws, so no paired test
        rows.append(("kmeans", "oracle (paper's protocol: all models choose and judge)",
                     rho(data, "kmeans", None, "dataset_pool", args.ks, args.trials, args.seed, options), "unpaired"))
    return rows


def holm_against(rows, comparator: str, k: int) -> dict[int, float]:
    """Holm-adjusted one-sided paired Wilcoxon p of every paired row (by index) against ``comparator``'s row."""
    base = next((r[2][k] for r in rows if r[0] == comparator and r[1] == "none"), None)
    if base is None:
        return {}
    tested = [i for i, r in enumerate(rows) if r[3] == "paired" and not (r[0] == comparator and r[1] == "none")]
    raw = [paired_wilcoxon(rows[i][2][k].to_numpy(), base.to_numpy(), True) for i in tested]
    return dict(zip(tested, holm(raw))) if raw else {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--config", default=str(REPO / "config/config.yaml"))
    parser.add_argument("--domains", nargs="+", default=["nlp", "recsys", "tsc"])
    parser.add_argument("--variation", choices=["model_holdout", "dataset_pool"], default="model_holdout")
    parser.add_argument("--holdout-fraction", type=float, default=HOLDOUT_FRACTION)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--ks", nargs="+", type=int, default=[5, 10])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prepared-dir", dest="features_dir",
                        help="results/prepared of a finished pipeline run: its TSC scores and feature tables (the "
                             "datasets every feature covers)")
    parser.add_argument("--tsc-representations", nargs="+", default=APRIORI["tsc"], metavar="NAME",
                        help="the TSC feature tables to use (default: the default run's; those of config/paper.yaml "
                             "need a --prepared-dir of a run of it)")
    parser.add_argument("--with-dpp", action="store_true")
    args = parser.parse_args()
    APRIORI["tsc"] = list(args.tsc_representations)
    config = yaml.safe_load(Path(args.config).read_text())
    if args.with_dpp:
        register_dpp()
    cells = " | ".join(f"median k={k} | p10 k={k} | ρ≥0.9 k={k} | p vs random k={k} | p vs stratified k={k}"
                       for k in args.ks)
    print(f"| domain | strategy | representation | {cells} |")
    print("|---|---|---|" + "---|" * 5 * len(args.ks))
    with tempfile.TemporaryDirectory() as cache:
        for name in args.domains:
            data = prepare(name, config, args.mirror, Path(cache), args.features_dir)
            data["holdout_fraction"] = args.holdout_fraction
            rows = rows_of(name, data, args, domain_protocol(config, name)["options"])
            tests = {k: (holm_against(rows, "random", k), holm_against(rows, "stratified", k)) for k in args.ks}
            for i, (strategy, rep, values, _) in enumerate(rows):
                out = []
                for k in args.ks:
                    v = values[k]
                    p_random, p_strat = (t.get(i) for t in tests[k])
                    out += [f"{v.median():.3f}", f"{v.quantile(0.1):.3f}", f"{(v >= 0.9).mean():.2f}",
                            "—" if p_random is None else f"{p_random:.3g}", "—" if p_strat is None else f"{p_strat:.3g}"]
                print(f"| {name} | {strategy} | {rep} | " + " | ".join(out) + " |", flush=True)


if __name__ == "__main__":
    main()
