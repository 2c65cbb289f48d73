"""Every selection strategy judged on models it never saw (issue 22): held-out Spearman rho per domain and k.

Usage: python benchmarks/selection_baselines.py [--mirror ../shared/data] [--domains nlp recsys tsc]
       [--variation model_holdout|dataset_pool] [--holdout-fraction 0.3] [--trials 100] [--ks 5 10] [--seed 0]
       [--random-draws 20] [--prepared-dir RESULTS/prepared] [--tsc-representations NAME ...] [--with-dpp]

For each domain and strategy, ``model_holdout_trials`` with the pipeline's defaults (pools of floor(0.8 n)
datasets, 30 % of the models held out; the trials, pools and held-out models are the same for every strategy):
the a-priori strategies on the domain's features (NLP task metadata, RecSys interaction statistics, TSC the
feature tables of a finished pipeline run, ``--prepared-dir``), the informed ones: k-means and MMTEB-style
backward elimination on the oracle built from the seen models only, k-medoids and greedy MI on the features with
the seen models' ranks appended, and, for comparison, the
oracle under the paper's protocol (all models choose and judge: ``dataset_pool_trials``, other draws).  Every
row names its class (``selection.classes``): a priori (the features only) or informed (also the seen models'
scores: the oracle, features + the seen models' ranks).  The random baselines draw ``--random-draws`` subsets per
trial (default ``RANDOM_DRAWS``).  Prints, per k, the median rho, its 10th percentile and the share of trials with
rho >= 0.9 (of a random baseline: over all its draws, the distribution of one random subset), the Holm-adjusted
one-sided paired Wilcoxon p-values of rho against random and against stratified random (NLP: by MTEB task type;
a random baseline's rho in a trial is the mean of its draws), and the same for the share of rho >= 0.9
(``statistics.paired_share_test``: the exact McNemar test, against a random baseline's share of draws its sign-flip
generalisation), each Holm-corrected over the domain's rows.
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
from benchdesign.selection.classes import seen_ranks_name, selection_class  # noqa: E402
from benchdesign.selection.frames import draws_of  # noqa: E402
from benchdesign.selection.options import HOLDOUT_FRACTION, RANDOM_DRAWS  # noqa: E402
from benchdesign.selection.protocol import dataset_pool_trials, model_holdout_trials, score_cube  # noqa: E402
from benchdesign.selection.statistics import holm, paired_share_test, paired_wilcoxon  # noqa: E402
from benchdesign.workflow.config import config_domain, domain_protocol  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
APRIORI = {"nlp": ["metadata"], "recsys": ["interaction"], "tsc": ["simple", "summary", "landmarking_paper"]}
APRIORI_STRATEGIES = ("random", "stratified", "kmeans", "kmedoids", "facility_location", "mutual_information",
                      "fafi_cosine", "fafi_euclidean", "a_optimal", "d_optimal")
ORACLE_STRATEGIES = ("kmeans", "backward_elimination")
SEEN_STRATEGIES = ("kmedoids", "mutual_information")
THRESHOLD = 0.9


def prepared(name: str, directory: str, reps: list[str]) -> dict:
    """A domain as a finished pipeline run prepared it (``results/prepared/<domain>``: scores, representations)."""
    folder = Path(directory, name)
    scores = pd.read_csv(folder / "scores.csv")
    ranks = pd.read_csv(folder / "dataset_ranks.csv", index_col=0)
    X = {rep: pd.read_csv(folder / f"representation_{rep}.csv", index_col=0).loc[ranks.index].to_numpy(dtype=float)
         for rep in reps if (folder / f"representation_{rep}.csv").is_file()}
    higher = config_domain({"domains": {name: {}}}, name).higher_is_better
    return {"ranks": ranks.to_numpy(), "cube": score_cube(scores, ranks.index, ranks.columns), "reps": X,
            "strata": None, "higher": higher, "models": list(ranks.columns)}


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
            "higher": domain.higher_is_better, "models": list(ranks.columns)}


def register_dpp() -> None:
    """Register the DPP MAP candidate in this process (the library keeps it unregistered)."""
    dpp = S.Strategy("dpp", "DPP MAP", S.select_dpp, S.dpp_map_order, ("noise",), True, "#aec7e8")
    S.STRATEGY_REGISTRY["dpp"], S.STRATEGIES["dpp"], S.PREFIX_ORDERS["dpp"] = dpp, dpp.select, dpp.order


def rho(data: dict, strategy: str, X, variation: str, ks, trials: int, seed: int, options: dict,
        with_seen_ranks: bool = False) -> pd.DataFrame:
    """Spearman rho of one strategy, rows (trial, draw), columns k (one draw but for the random baselines);
    ``X=None`` is the oracle (of the seen models in model holdout)."""
    options = {**options, "strata": data["strata"]}
    if variation == "model_holdout":
        frame = model_holdout_trials(data["cube"], data["higher"], X, strategy, ks, trials, 0.8, seed,
                                     holdout_fraction=data["holdout_fraction"], options=options,
                                     with_seen_ranks=with_seen_ranks, random_draws=data["random_draws"])
    else:
        X = data["ranks"] if X is None else X
        frame = dataset_pool_trials(data["ranks"], X, strategy, ks, trials, 0.8, seed, options,
                                    random_draws=data["random_draws"])
    frame = frame[frame["metric"] == "spearman"].assign(draw=draws_of(frame))
    return frame.pivot(index=["trial", "draw"], columns="k", values="value")


def rows_of(name: str, data: dict, args, options: dict) -> list[tuple[str, str, pd.DataFrame, str, str]]:
    """(strategy, representation, rho by (trial, draw) x k, comparable, class) of every row of one domain."""
    rows = []
    names = [s for s in APRIORI_STRATEGIES if s != "stratified" or data["strata"] is not None]
    names += ["dpp"] if "dpp" in S.STRATEGIES else []
    for strategy in names:
        uses = S.STRATEGY_REGISTRY[strategy].uses_representation
        for rep, X in (data["reps"].items() if uses else [("none", np.zeros((len(data["ranks"]), 1)))]):
            start = time.process_time()
            rows.append((strategy, rep, rho(data, strategy, X, args.variation, args.ks, args.trials, args.seed,
                                            options), "paired", selection_class(strategy, rep)))
            print(f"# {name} {strategy}/{rep}: {time.process_time() - start:.1f} CPU-s", file=sys.stderr, flush=True)
    if args.variation == "model_holdout":  # informed: features + the seen models' ranks
        for strategy in SEEN_STRATEGIES:
            for rep, X in data["reps"].items():
                rows.append((strategy, f"{rep} + seen models' ranks",
                             rho(data, strategy, X, args.variation, args.ks, args.trials, args.seed, options, True),
                             "paired", selection_class(strategy, seen_ranks_name(rep))))
    seen = "oracle (seen models)" if args.variation == "model_holdout" else "oracle"
    for strategy in ORACLE_STRATEGIES:
        rows.append((strategy, seen, rho(data, strategy, None, args.variation, args.ks, args.trials, args.seed,
                                         options), "paired", selection_class(strategy, "oracle")))
    if args.variation == "model_holdout":  # the paper's protocol: other draws, so no paired test
        rows.append(("kmeans", "oracle (paper's protocol: all models choose and judge)",
                     rho(data, "kmeans", None, "dataset_pool", args.ks, args.trials, args.seed, options), "unpaired",
                     selection_class("kmeans", "oracle")))
    return rows


def holm_against(rows, comparator: str, k: int, share: bool = False) -> dict[int, float]:
    """Holm-adjusted one-sided paired p of every paired row (by index) against ``comparator``'s row: the Wilcoxon
    test on the trials' rho (a random baseline's: the mean of its draws), or with ``share`` the test of the share
    of rho >= 0.9 (``paired_share_test``; a random baseline's: the share of its draws)."""
    base = next((r[2][k] for r in rows if r[0] == comparator and r[1] == "none"), None)
    if base is None:
        return {}
    tested = [i for i, r in enumerate(rows) if r[3] == "paired" and not (r[0] == comparator and r[1] == "none")]
    if share:
        raw = [paired_share_test(per_trial(rows[i][2][k] >= THRESHOLD), per_trial(base >= THRESHOLD))[2]
               for i in tested]
    else:
        raw = [paired_wilcoxon(per_trial(rows[i][2][k]), per_trial(base), True) for i in tested]
    return dict(zip(tested, holm(raw))) if raw else {}


def per_trial(values: pd.Series) -> np.ndarray:
    """Mean over a trial's draws (one value per trial, in trial order)."""
    return values.astype(float).groupby(level="trial").mean().sort_index().to_numpy()


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
    parser.add_argument("--random-draws", type=int, default=RANDOM_DRAWS,
                        help=f"subsets the random baselines draw per trial (default {RANDOM_DRAWS})")
    parser.add_argument("--with-dpp", action="store_true")
    args = parser.parse_args()
    APRIORI["tsc"] = list(args.tsc_representations)
    config = yaml.safe_load(Path(args.config).read_text())
    if args.with_dpp:
        register_dpp()
    cells = " | ".join(f"median k={k} | p10 k={k} | ρ≥0.9 k={k} | p ρ vs random k={k} | p ρ vs stratified k={k} | "
                       f"p share vs random k={k} | p share vs stratified k={k}" for k in args.ks)
    print(f"| domain | class | strategy | representation | {cells} |")
    print("|---|---|---|---|" + "---|" * 7 * len(args.ks))
    fmt = lambda p: "—" if p is None else f"{p:.2g}"  # noqa: E731
    with tempfile.TemporaryDirectory() as cache:
        for name in args.domains:
            data = prepare(name, config, args.mirror, Path(cache), args.features_dir)
            data["holdout_fraction"], data["random_draws"] = args.holdout_fraction, args.random_draws
            rows = rows_of(name, data, args, domain_protocol(config, name)["options"])
            tests = {k: [holm_against(rows, base, k, share) for share in (False, True)
                         for base in ("random", "stratified")] for k in args.ks}
            for i, (strategy, rep, values, _, cls) in enumerate(rows):
                out = []
                for k in args.ks:
                    v = values[k]
                    out += [f"{v.median():.3f}", f"{v.quantile(0.1):.3f}", f"{(v >= THRESHOLD).mean():.2f}",
                            *(fmt(t.get(i)) for t in tests[k])]
                print(f"| {name} | {cls} | {strategy} | {rep} | " + " | ".join(out) + " |", flush=True)


if __name__ == "__main__":
    main()
