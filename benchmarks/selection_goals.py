"""The goals table of issue 38: every strategy and estimator judged on unseen models, on tuning or reporting seeds.

Usage: python benchmarks/selection_goals.py --seeds tuning|reporting|confirmation [--domains nlp recsys tsc]
       [--prepared-dir RUN/results/prepared] [--tsc-representations NAME ...] [--ks 5 10]
       [--trials-per-seed 5] [--random-draws 20] [--estimator-draws 2] [--out TABLE.md] [--csv RHO.csv]
       [--summary-csv TABLE.csv] [--primary-csv P.csv] [--informed-csv I.csv] [--from-csv A.csv B.csv ...]

Seeds (``selection.options``, the one place they are fixed): ``tuning`` = ``TUNING_SEEDS`` (0-9), ``reporting`` =
``REPORTING_SEEDS`` (100-119), ``TRIALS_PER_SEED`` (5) trials each. Every choice (``select``'s default strategy
and estimator) is made on the tuning seeds by ``choose_default``'s rule, stated here before any run:

    Candidates: the strategies ``select`` can run on a feature file (every registered strategy but the random
    baselines and ``backward_elimination``, which is meant for the oracle), read by their unweighted mean rank
    (``rank``). Score of a candidate: the share of trials with held-out rho >= 0.9, averaged over the three
    domains (each domain: the mean over its a-priori feature tables) and k in {5, 10}, on each domain's primary
    design. Highest score wins; ties by the median rho averaged the same way. Then the estimator (the default
    of ``fit_subset_estimator``, then ``options.ESTIMATOR_NAMES[0]``, now ``options.ESTIMATOR_DEFAULT``): of the
    five, the one with the highest score on the chosen strategy's subsets, same rule.
    A default changes only when its margin is larger than its standard error (issue 45): the margin of the best
    candidate over the incumbent (the default before the tuning, ``INCUMBENT``: k-medoids; on its subsets
    ``auto``), its standard error from a paired bootstrap over each domain's (seed, trial) units (``BOOTSTRAP``
    resamples, seed 0). Within one standard error it is a tie, and the incumbent stays.

Pre-registered comparisons (issue 45; fixed here before the reporting run of 2026-12-06): one per goal, the
default chosen on the tuning seeds against a random baseline (``PRIMARY``), Holm over these four only. Every other
p-value of the table is raw and descriptive: it is not a claim, and no verdict is drawn from it. Issue 45 added
one more, registered on 2026-12-06 after the NLP tuning run and before its reporting run (``INFORMED_GOAL``,
``INFORMED_PRIMARY``): the best informed NLP row of the tuning seeds against the best a-priori one, share of
rho >= 0.9 at k = 5, exact McNemar; a family of its own. It did not reach the goal's level; a second pair
(``INFORMED_CONFIRMATION``, registered 2026-12-07), the best rows of the reporting seeds, is decided on fresh seeds
(``--seeds confirmation``); it came out 0.84 against 0.79, p 0.097, and the same pair is decided a third time on
1,000 fresh trials sized beforehand (``POWERED_TEST``, ``--seeds powered``).

Designs (``selection.heldout``): NLP the random 30 % of the models (primary) and whole model families
(``domains.nlp.families``, the coarse families since issue 45: GTR/ST5, MiniLM/MPNet and the BERT-based
encoders each one family, 8 families; read by ``rank`` only, to save time); TSC the random 30 %; RecSys (9 models)
cross-fitting in ``CROSSFIT_FOLDS`` folds (every model judged once; primary). Rows: the a-priori strategies on each
a-priori feature table (NLP metadata, RecSys interaction statistics, TSC the tables of ``--tsc-representations``
from a finished pipeline run's ``--prepared-dir``), k-medoids and greedy MI on the features with the seen models'
ranks appended, k-means, MMTEB's backward elimination and the covariance design (issue 45: greedy minimum
posterior variance of the full-benchmark mean under the seen models' Ledoit-Wolf covariance; its oracle
unstandardised) on the oracle of the seen models; each read by every
reading of ``heldout.READINGS`` (``rank``: the paper's R_S; the estimators, fitted on the seen models: informed).
Per k: median held-out rho, its 10th percentile, the share of trials with rho >= 0.9 (a random baseline's: over all
its draws; its estimator readings only on its first ``--estimator-draws`` draws, their fits being costly), and the
raw one-sided paired p-values against random and stratified random (both read by ``rank``): Wilcoxon on rho (a
random baseline's rho in a trial: the mean of its draws) and ``statistics.paired_share_test`` on the share (a
random baseline's: its share of draws).

BLAS and OpenMP run on one thread, as in the pipeline's jobs (Snakemake sets ``OMP_NUM_THREADS`` and
``OPENBLAS_NUM_THREADS`` to a job's threads): on a pool's few hundred rows more threads only add overhead. On
2026-12-07, on a 2-core machine busy with two other jobs, the TSC tuning run took 725 CPU-s with two threads and
329 with one; its per-trial file was the same byte for byte.
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
from selection_baselines import APRIORI, APRIORI_STRATEGIES, ORACLE_STRATEGIES, SEEN_STRATEGIES, prepare  # noqa: E402

from benchdesign.domains.nlp.families import mteb_model_families  # noqa: E402
from benchdesign.selection import strategies as S  # noqa: E402
from benchdesign.selection.classes import INFORMED, seen_ranks_name, selection_class  # noqa: E402
from benchdesign.selection.heldout import READINGS, heldout_trials  # noqa: E402
from benchdesign.selection.options import (  # noqa: E402
    CONFIRMATION_SEEDS,
    CROSSFIT_FOLDS,
    ESTIMATOR_DEFAULT,
    ESTIMATOR_NAMES,
    HOLDOUT_FRACTION,
    POWERED_SEEDS,
    RANDOM_BASELINES,
    RANDOM_DRAWS,
    REPORTING_SEEDS,
    SELECT_STRATEGY,
    TRIALS_PER_SEED,
    TUNING_SEEDS,
)
from benchdesign.selection.statistics import holm, mcnemar_exact, paired_share_test, paired_wilcoxon  # noqa: E402
from benchdesign.workflow.config import domain_protocol  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SEEDS = {"tuning": TUNING_SEEDS, "reporting": REPORTING_SEEDS, "confirmation": CONFIRMATION_SEEDS,
         "powered": POWERED_SEEDS}
DESIGNS = {"nlp": ("random", "family"), "recsys": ("crossfit",), "tsc": ("random",)}
"""Held-out designs per domain; the first is the domain's primary design (the goals and the default's rule)."""
THRESHOLD = 0.9
ESTIMATOR_DRAWS = 2
"""A random baseline's draws read by the estimators (``heldout_trials(estimator_draws=)``); all are read by rank."""
NOT_FOR_SELECT = (*RANDOM_BASELINES, "backward_elimination", "covariance")
"""Strategies the default is not chosen from: random baselines, MMTEB's elimination and the covariance design
(both meant for the oracle)."""
ORACLE = (*ORACLE_STRATEGIES, "covariance")
"""Strategies run on the oracle of the seen models (informed): ``selection_baselines``' and the covariance design."""
COARSE_FAMILIES = True
"""The NLP family design holds out the coarse families (``mteb_model_families(coarse=True)``, issue 45)."""
INCUMBENT = {"strategy": "kmedoids", "reading": "auto"}
"""The defaults before the tuning of issue 38; a candidate replaces one only by more than its standard error."""
BOOTSTRAP = 2000
PRIMARY_FEATURES = {"nlp": "metadata", "recsys": "interaction"}
"""Each domain's feature table of the pre-registered comparisons (TSC: the first of ``--tsc-representations``)."""
PRIMARY = (
    ("nlp, share of rho >= 0.9 at k = 5", "nlp", 5, "rank", "random", "share"),
    ("tsc, share of rho >= 0.9 at k = 5", "tsc", 5, "rank", "random", "share"),
    ("recsys, rho at k = 10 with the default estimator", "recsys", 10, ESTIMATOR_DEFAULT, "random", "rho"),
    ("nlp, share of rho >= 0.9 at k = 10 against stratified random", "nlp", 10, "rank", "stratified", "share"),
)
"""The pre-registered comparisons, one per goal: (goal, domain, k, reading, baseline, statistic) of ``select``'s
default strategy (``SELECT_STRATEGY``) on the domain's primary design and feature table against the baseline read by
``rank``; one-sided paired tests as in the table, Holm over these four."""

INFORMED_GOAL = ("nlp", 5, 0.85)
"""Issue 45's goal (domain, k, share): an informed row of the domain's primary design with a share of rho >= 0.9
at k of at least 0.85 that beats the best a-priori row (one-sided exact McNemar, ``paired_share_test``, p < 0.05).
The two rows are chosen on the tuning seeds (``goal_rows``: the highest share at k, ties by the median) and
registered in ``INFORMED_PRIMARY`` before the reporting run."""
INFORMED_PRIMARY: tuple = (("covariance", "oracle", "auto"), ("kmeans", "metadata", "rank"))
"""Issue 45's pre-registered comparison: ((strategy, features, reading) informed, (strategy, features, reading) a
priori). Registered on 2026-12-06 from the NLP tuning run (``goal_rows`` on the tuning seeds: the covariance design
on the seen models' oracle read by ``auto``, share 0.88 at k = 5; k-means on the metadata read by ``rank``, 0.76;
McNemar p 0.09 on the 50 tuning trials), in the commit before the reporting run, which it then decides. A family of
its own: its p is not Holm-corrected with ``PRIMARY``'s four, which stay as registered (67f0095)."""
INFORMED_CONFIRMATION: tuple = (("covariance", "oracle", "rank"), ("mutual_information", "metadata", "rank"))
"""Issue 45's second registration (2026-12-07), decided on fresh seeds (``--seeds confirmation``:
``CONFIRMATION_SEEDS``, 200 trials). ``INFORMED_PRIMARY`` did not reach the goal's level (0.82 on the reporting
seeds); there, descriptively, the best informed row was the covariance design on the oracle read by ``rank``
(0.87) and the best a-priori row greedy MI on the metadata read by ``rank`` (0.78, ``select``'s default; McNemar p
0.054). Those two rows, chosen on the reporting seeds, are tested here on seeds that chose nothing; the goal
(``INFORMED_GOAL``) is reached when the informed share is >= 0.85 and the one-sided exact McNemar p < 0.05. A family
of its own."""
POWERED_TEST = {"pair": "INFORMED_CONFIRMATION", "seeds": "powered", "trials": 1000,
                "cells": (0.695, 0.145, 0.095, 0.065), "power": 0.94, "p_level": 0.20}
"""Issue 45's third test (registered 2026-12-07, before its run): ``INFORMED_CONFIRMATION``'s pair again, on
``POWERED_SEEDS`` (1,000 fresh trials), sized beforehand. The confirmation seeds' paired cells (both rows reach
rho >= 0.9, the informed row only, the a-priori row only, neither: ``cells``; 200 trials, informed 0.84 against
0.79) give, by ``informed_power`` (20,000 simulated runs of 1,000 trials), power 0.94 for the one-sided exact
McNemar p < 0.05 and probability 0.20 of an informed share >= 0.85. The goal is decided as ``INFORMED_GOAL``
states; the expectation written here before the run is a lead detected and the level missed."""


def informed_power(cells, trials: int, simulations: int = 20000, seed: int = 0) -> tuple[float, float]:
    """Chance that a run of ``trials`` paired trials drawn from ``cells`` gives a one-sided exact McNemar p < 0.05
    (``statistics.mcnemar_exact``), and that its informed share is >= ``INFORMED_GOAL``'s level.

    Parameters
    ----------
    cells : sequence of float
        Probabilities of (both pass, informed only, a priori only, neither) per trial.
    trials : int
        Paired trials per simulated run.
    simulations : int
        Simulated runs (multinomial draws from ``seed``).
    seed : int
        Seed of the draws.

    Returns
    -------
    power : float
        Share of simulated runs with p < 0.05.
    level : float
        Share of simulated runs whose informed share reaches the goal's level.
    """
    counts = np.random.default_rng(seed).multinomial(trials, np.asarray(cells, float), size=simulations)
    informed = np.array([True, True, False, False])  # which cells the informed row passes in
    apriori = np.array([True, False, True, False])
    p = np.array([mcnemar_exact(np.repeat(informed, run), np.repeat(apriori, run))[2] for run in counts])
    share = (counts[:, 0] + counts[:, 1]) / trials
    return float((p < 0.05).mean()), float((share >= INFORMED_GOAL[2]).mean())


def configurations(data: dict) -> list[tuple[str, str, np.ndarray | None, bool]]:
    """(strategy, features name, X, with_seen_ranks) of every row of a domain."""
    rows = []
    for strategy in APRIORI_STRATEGIES:
        if strategy == "stratified" and data["strata"] is None:
            continue
        if S.STRATEGY_REGISTRY[strategy].uses_representation:
            rows += [(strategy, rep, X, False) for rep, X in data["reps"].items()]
        else:
            rows.append((strategy, "none", np.zeros((len(data["ranks"]), 1)), False))
    rows += [(s, seen_ranks_name(rep), X, True) for s in SEEN_STRATEGIES for rep, X in data["reps"].items()]
    rows += [(s, "oracle", None, False) for s in ORACLE]
    return rows


def domain_frame(name: str, data: dict, design: str, seeds, args, options: dict) -> pd.DataFrame:
    """Long held-out rho of every row and reading of one domain and design, over the seeds."""
    frames = []
    families = mteb_model_families(data["models"], coarse=COARSE_FAMILIES) if design == "family" else None
    for strategy, rep, X, with_seen in configurations(data):
        start = time.process_time()
        for seed in seeds:
            frame = heldout_trials(
                data["cube"],
                data["higher"],
                X,
                strategy,
                args.ks,
                args.trials_per_seed,
                0.8,
                seed,
                readings=args.readings if design == DESIGNS[name][0] else ["rank"],
                random_draws=args.random_draws,
                estimator_draws=args.estimator_draws,
                design=design,
                holdout_fraction=HOLDOUT_FRACTION,
                n_folds=CROSSFIT_FOLDS,
                families=families,
                options={**options, "strata": data["strata"]},
                with_seen_ranks=with_seen,
            )
            frames.append(frame.assign(seed=seed, strategy=strategy, features=rep, domain=name, design=design))
        print(f"# {name}/{design} {strategy}/{rep}: {time.process_time() - start:.1f} CPU-s", file=sys.stderr, flush=True)
    return pd.concat(frames, ignore_index=True)


def row_class(strategy: str, features: str, reading: str) -> str:
    """A priori only for an a-priori selection read by its mean rank; an estimator reads the seen models' scores."""
    return selection_class(strategy, features) if reading == "rank" else INFORMED


def per_trial(block: pd.DataFrame, share: bool) -> np.ndarray:
    """One value per (seed, trial), in order: the mean rho of its draws, or the share of its draws with rho >= 0.9."""
    values = (block["rho"] >= THRESHOLD).astype(float) if share else block["rho"]
    return values.groupby([block["seed"], block["trial"]]).mean().sort_index().to_numpy()


def paired_p(first: np.ndarray, second: np.ndarray, share: bool) -> float:
    """One-sided paired p-value of "first is better": the sign-flip test on shares, Wilcoxon on rho."""
    return float(paired_share_test(first, second)[2] if share else paired_wilcoxon(first, second, True))


def tests(frame: pd.DataFrame, k: int) -> dict[tuple, dict[str, float]]:
    """Raw (descriptive) p-values of every (strategy, features, reading) at ``k`` against random and stratified."""
    at_k = frame[frame["k"] == k]
    keys = list(at_k.groupby(["strategy", "features", "reading"], sort=False).groups)
    out = {key: {} for key in keys}
    for base in RANDOM_BASELINES:
        reference = at_k[(at_k["strategy"] == base) & (at_k["reading"] == "rank")]
        if reference.empty:
            continue
        tested = [key for key in keys if key != (base, "none", "rank")]
        for share in (False, True):
            for key in tested:
                block = at_k[(at_k["strategy"] == key[0]) & (at_k["features"] == key[1]) & (at_k["reading"] == key[2])]
                p = paired_p(per_trial(block, share), per_trial(reference, share), share)
                out[key][f"{'share' if share else 'rho'} {base}"] = p
    return out


def primary_tests(frame: pd.DataFrame, tsc_features: str) -> pd.DataFrame:
    """The pre-registered comparisons (``PRIMARY``) with their raw and Holm-adjusted p-values (Holm over them)."""
    rows = []
    for goal, domain, k, reading, base, statistic in PRIMARY:
        features = PRIMARY_FEATURES.get(domain, tsc_features)
        at = frame[(frame["domain"] == domain) & (frame["design"] == DESIGNS[domain][0]) & (frame["k"] == k)]
        mine = at[(at["strategy"] == SELECT_STRATEGY) & (at["features"] == features) & (at["reading"] == reading)]
        reference = at[(at["strategy"] == base) & (at["reading"] == "rank")]
        if mine.empty or reference.empty:
            continue
        share = statistic == "share"
        first, second = per_trial(mine, share), per_trial(reference, share)
        rows.append({"goal": goal, "comparison": f"{SELECT_STRATEGY} on {features} read by {reading} vs {base}",
                     "statistic": statistic, "value": float(first.mean()), "baseline": float(second.mean()),
                     "raw p": paired_p(first, second, share)})
    table = pd.DataFrame(rows)
    if len(table):
        table["Holm p"] = holm(table["raw p"].to_numpy())
    return table


def goal_rows(table: pd.DataFrame) -> tuple[pd.Series | None, pd.Series | None]:
    """Issue 45's candidates (``INFORMED_GOAL``) on the domain's primary design: the informed row and the a-priori
    row with the highest share of rho >= 0.9 at k, ties by the median, then the table's order (None when the
    table has no such row)."""
    domain, k, _ = INFORMED_GOAL
    rows = table[(table["domain"] == domain) & (table["design"] == DESIGNS[domain][0])]
    if rows.empty or f"share k={k}" not in rows:
        return None, None
    ranked = rows.sort_values([f"share k={k}", f"median k={k}"], ascending=False, kind="stable")
    informed, apriori = ranked[ranked["class"] == INFORMED], ranked[ranked["class"] != INFORMED]
    return (informed.iloc[0] if len(informed) else None), (apriori.iloc[0] if len(apriori) else None)


def informed_test(frame: pd.DataFrame, informed: tuple, apriori: tuple) -> dict | None:
    """The share of rho >= 0.9 at ``INFORMED_GOAL``'s k of two (strategy, features, reading) rows of its domain's
    primary design, and the one-sided paired test that the first is higher (exact McNemar for two deterministic
    rows; against a random baseline, the sign-flip test on its share of draws)."""
    domain, k, target = INFORMED_GOAL
    at = frame[(frame["domain"] == domain) & (frame["design"] == DESIGNS[domain][0]) & (frame["k"] == k)]
    blocks = [at[(at["strategy"] == s) & (at["features"] == f) & (at["reading"] == r)] for s, f, r in (informed, apriori)]
    if any(block.empty for block in blocks):
        return None
    first, second = (per_trial(block, True) for block in blocks)
    p = paired_p(first, second, True)
    return {"goal": f"{domain}, informed share of rho >= 0.9 at k = {k} >= {target} beating the best a priori",
            "informed": "/".join(informed), "a priori": "/".join(apriori), "trials": len(first),
            "informed share": float(first.mean()), "a-priori share": float(second.mean()), "raw p": p,
            "reached": bool(first.mean() >= target and p < 0.05)}


def registered_informed(seeds: str) -> tuple[str, tuple]:
    """The informed comparison these seeds decide: ``INFORMED_CONFIRMATION`` on the confirmation and powered seeds,
    ``INFORMED_PRIMARY`` on the others."""
    return ("INFORMED_CONFIRMATION", INFORMED_CONFIRMATION) if seeds in ("confirmation", "powered") else (
        "INFORMED_PRIMARY", INFORMED_PRIMARY)


def informed_goal_text(table: pd.DataFrame, frame: pd.DataFrame, seeds: str) -> tuple[list[str], pd.DataFrame]:
    """Issue 45's informed goal: the rows ``goal_rows`` picks on these seeds (the choice on the tuning seeds,
    descriptive on the reporting seeds) and, when registered, ``INFORMED_PRIMARY``'s comparison."""
    informed, apriori = goal_rows(table)
    if informed is None or apriori is None:
        return [], pd.DataFrame()
    key = ["strategy", "features", "reading"]
    picked = informed_test(frame, tuple(informed[key]), tuple(apriori[key]))
    use = "the choice for the registration" if seeds == "tuning" else "descriptive: chosen on these seeds"
    lines = ["", f"Issue 45's informed goal, the best rows on these seeds ({use}):", "",
             f"- informed: {'/'.join(informed[key])} {picked['informed share']:.3f}; a priori: "
             f"{'/'.join(apriori[key])} {picked['a-priori share']:.3f}; one-sided McNemar p {picked['raw p']:.3g}"]
    rows = pd.DataFrame()
    name, pair = registered_informed(seeds)
    if pair:
        registered = informed_test(frame, *pair)
        if registered is not None:
            rows = pd.DataFrame([registered])
            lines += ["", f"Issue 45's pre-registered comparison (`{name}`, its own family of one):", "",
                      rows.to_markdown(index=False, floatfmt=".3g")]
    return lines, rows

def judged_count(counts: pd.Series) -> str:
    """The number of models each rho is computed on: one number, or its range (family hold-out)."""
    low, high = int(counts.min()), int(counts.max())
    return str(low) if low == high else f"{low}–{high}"


def summary(frame: pd.DataFrame, ks) -> pd.DataFrame:
    """One row per (domain, design, strategy, features, reading): per k median, p10, share and the four p."""
    rows = []
    for (domain, design), block in frame.groupby(["domain", "design"], sort=False):
        pvalues = {k: tests(block, k) for k in ks}
        for key, part in block.groupby(["strategy", "features", "reading"], sort=False):
            row = {
                "domain": domain,
                "design": design,
                "strategy": key[0],
                "features": key[1],
                "reading": key[2],
                "class": row_class(*key),
            }
            for k in ks:
                rho = part[part["k"] == k]["rho"]
                row |= {
                    f"median k={k}": rho.median(),
                    f"p10 k={k}": rho.quantile(0.1),
                    f"share k={k}": (rho >= THRESHOLD).mean(),
                    f"judged k={k}": judged_count(part["n_judged"]),
                }
                row |= {f"p {name} k={k}": p for name, p in pvalues[k][key].items()}
            rows.append(row)
    return pd.DataFrame(rows)


def trial_scores(frame: pd.DataFrame, column: str, candidates, ks) -> dict[str, pd.DataFrame]:
    """Per domain, one row per (seed, trial) and one column per candidate: the trial's share of rho >= 0.9 over
    the candidate's feature tables and ``ks`` (the mean of these rows is the candidate's score in that domain)."""
    out = {}
    for domain, block in frame[frame[column].isin(candidates) & frame["k"].isin(ks)].groupby("domain"):
        passed = (block["rho"] >= THRESHOLD).astype(float)
        out[domain] = passed.groupby([block["seed"], block["trial"], block[column]]).mean().unstack(column)
    return out


def margin_and_se(scores: dict[str, pd.DataFrame], best: str, other: str, seed: int = 0) -> tuple[float, float]:
    """The score margin of ``best`` over ``other`` (mean over domains of the per-trial means) and its standard
    error: a paired bootstrap over each domain's (seed, trial) rows, ``BOOTSTRAP`` resamples."""
    rng = np.random.default_rng(seed)
    diffs = {d: (s[best] - s[other]).to_numpy() for d, s in scores.items() if {best, other} <= set(s.columns)}
    margin = float(np.mean([d.mean() for d in diffs.values()]))
    draws = np.mean([d[rng.integers(0, len(d), size=(BOOTSTRAP, len(d)))].mean(axis=1) for d in diffs.values()], axis=0)
    return margin, float(draws.std(ddof=1))


def decide(ranked: pd.DataFrame, scores: dict[str, pd.DataFrame], incumbent: str) -> tuple[str, str]:
    """The choice and its reason: the best candidate if its margin over the incumbent exceeds the margin's standard
    error, else the incumbent (a tie)."""
    best = str(ranked.index[0])
    if best == incumbent or incumbent not in ranked.index:
        return best, f"{best}: the best score"
    margin, se = margin_and_se(scores, best, incumbent)
    if margin > se:
        return best, f"{best}: margin {margin:.3f} over {incumbent} > its standard error {se:.3f}"
    return incumbent, f"tie: {best}'s margin {margin:.3f} over {incumbent} <= its standard error {se:.3f}; {incumbent} stays"


def choose_default(table: pd.DataFrame, ks, frame: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The rule of the module docstring: (strategies by score, estimators of the chosen strategy by score, the
    decisions with their reasons; without the per-trial ``frame``, the best scores, untested)."""
    primary = table[[design == DESIGNS[domain][0] for domain, design in zip(table["domain"], table["design"])]]

    def scored(rows: pd.DataFrame, by: list[str]) -> pd.DataFrame:
        per_domain = rows.groupby([*by, "domain"])[[f"share k={k}" for k in ks] + [f"median k={k}" for k in ks]]
        means = per_domain.mean().reset_index()  # over the domain's feature tables
        means["score"] = means[[f"share k={k}" for k in ks]].mean(axis=1)
        means["median"] = means[[f"median k={k}" for k in ks]].mean(axis=1)
        domains = means.groupby(by)["domain"].nunique()
        means = means[means[by[0]].isin(domains[domains == primary["domain"].nunique()].index)]
        return means.groupby(by)[["score", "median"]].mean().sort_values(["score", "median"], ascending=False)

    apriori = primary[(primary["reading"] == "rank") & ~primary["strategy"].isin(NOT_FOR_SELECT) & (primary["class"] != INFORMED)]
    strategies = scored(apriori, ["strategy"])
    if frame is not None:
        rows = frame[[design == DESIGNS[domain][0] for domain, design in zip(frame["domain"], frame["design"])]]
        keys = set(zip(apriori["domain"], apriori["strategy"], apriori["features"]))
        rows = rows[(rows["reading"] == "rank")
                    & [key in keys for key in zip(rows["domain"], rows["strategy"], rows["features"])]]
        best, why = decide(strategies, trial_scores(rows, "strategy", strategies.index, ks), INCUMBENT["strategy"])
    else:
        best, why = str(strategies.index[0]), f"{strategies.index[0]}: the best score (no per-trial rows: untested)"
    chosen = primary[
        (primary["strategy"] == best)
        & primary["reading"].isin(ESTIMATOR_NAMES)
        & ~primary["features"].str.endswith("+seen")
        & (primary["features"] != "oracle")
    ]
    estimators = scored(chosen, ["reading"])
    reasons = [f"strategy: {why}"]
    if frame is not None and len(estimators):
        keys = set(zip(chosen["domain"], chosen["features"]))
        rows = frame[[design == DESIGNS[domain][0] for domain, design in zip(frame["domain"], frame["design"])]]
        rows = rows[(rows["strategy"] == best) & [key in keys for key in zip(rows["domain"], rows["features"])]]
        reasons.append("estimator: " + decide(estimators, trial_scores(rows, "reading", estimators.index, ks),
                                              INCUMBENT["reading"])[1])
    return strategies, estimators, reasons


def fmt(value) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "—"
    return f"{value:.2g}"


def best(rows: pd.DataFrame, column: str) -> str:
    """The row with the highest ``column``, named."""
    if rows.empty:
        return "no row"
    row = rows.loc[rows[column].idxmax()]
    return f"{row['strategy']} on {row['features']} read by {row['reading']} ({row['class']}): {row[column]:.2f}"


def goals(table: pd.DataFrame) -> list[str]:
    """Issue 38's goals on each domain's primary design, described by the best row of each (descriptive: the rows
    were not chosen beforehand and their p-values are raw; the verdicts are the pre-registered comparisons)."""
    primary = table[[design == DESIGNS[domain][0] for domain, design in zip(table["domain"], table["design"])]]
    lines = []
    for domain, target in (("nlp", 0.90), ("tsc", 0.80)):
        rows = primary[primary["domain"] == domain]
        if rows.empty:
            continue
        top = rows["share k=5"].max()
        lines.append(
            f"- {domain}, share of rho >= 0.9 at k = 5 >= {target:.2f}: {'reached' if top >= target else 'not reached'}"
            f"; best {best(rows, 'share k=5')}; best a priori {best(rows[rows['class'] != INFORMED], 'share k=5')}"
        )
    rows = primary[(primary["domain"] == "recsys") & (primary["strategy"] != "random")]
    if not rows.empty and "p rho random k=10" in rows:
        wins = rows[(rows["p rho random k=10"] < 0.01) | (rows["p share random k=10"] < 0.01)]
        named = "; ".join(f"{r['strategy']}/{r['features']}/{r['reading']}" for _, r in wins.iterrows()) or "none"
        lowest = rows.loc[rows[["p rho random k=10", "p share random k=10"]].min(axis=1).idxmin()]
        lines.append(
            f"- recsys, a strategy + estimator beating random at k = 10 with raw p < 0.01 (rho or share): "
            f"{'reached' if len(wins) else 'not reached'} ({named}); lowest p: {lowest['strategy']} on "
            f"{lowest['features']} read by {lowest['reading']}, p rho {lowest['p rho random k=10']:.2g}, "
            f"p share {lowest['p share random k=10']:.2g}"
        )
    rows = primary[(primary["domain"] == "nlp") & (primary["class"] != INFORMED) & ~primary["strategy"].isin(RANDOM_BASELINES)]
    if not rows.empty and "p rho stratified k=10" in rows:
        wins = rows[(rows["p rho stratified k=10"] < 0.05) & (rows["p share stratified k=10"] < 0.05)]
        named = (
            "; ".join(
                f"{r['strategy']} on {r['features']}: p rho {r['p rho stratified k=10']:.2g}, p share "
                f"{r['p share stratified k=10']:.2g}"
                for _, r in wins.iterrows()
            )
            or "none"
        )
        lines.append(
            f"- nlp, an a-priori strategy beating stratified random at k = 10 (raw p < 0.05 on rho and on "
            f"the share): {'reached' if len(wins) else 'not reached'} ({named})"
        )
    return lines


def markdown(table: pd.DataFrame, ks) -> str:
    """The Markdown table: one line per row and reading."""
    head = ["domain (design)", "class", "strategy", "features", "reading"]
    for k in ks:
        head += [f"k={k} median / p10 / share", f"k={k} p ρ random / stratified", f"k={k} p share random / stratified"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, row in table.iterrows():
        cells = [
            f"{row['domain']} ({row['design']}, {row[f'judged k={ks[0]}']} judged)",
            row["class"],
            row["strategy"],
            row["features"],
            row["reading"],
        ]
        for k in ks:
            cells += [
                f"{row[f'median k={k}']:.3f} / {row[f'p10 k={k}']:.3f} / {row[f'share k={k}']:.2f}",
                f"{fmt(row.get(f'p rho random k={k}'))} / {fmt(row.get(f'p rho stratified k={k}'))}",
                f"{fmt(row.get(f'p share random k={k}'))} / {fmt(row.get(f'p share stratified k={k}'))}",
            ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", choices=list(SEEDS), required=True)
    parser.add_argument("--mirror", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--config", default=str(REPO / "config/config.yaml"))
    parser.add_argument("--domains", nargs="+", default=["nlp", "recsys", "tsc"], choices=list(DESIGNS))
    parser.add_argument(
        "--prepared-dir",
        dest="features_dir",
        help="results/prepared of a finished pipeline run (TSC's scores and feature tables)",
    )
    parser.add_argument(
        "--tsc-representations",
        nargs="+",
        default=["landmarking_paper"],
        metavar="NAME",
        help="TSC feature tables of --prepared-dir (default: landmarking_paper, the smallest of the default run's; "
        "every table adds a row per strategy)",
    )
    parser.add_argument("--ks", nargs="+", type=int, default=[5, 10])
    parser.add_argument("--trials-per-seed", type=int, default=TRIALS_PER_SEED)
    parser.add_argument("--random-draws", type=int, default=RANDOM_DRAWS)
    parser.add_argument(
        "--estimator-draws",
        type=int,
        default=ESTIMATOR_DRAWS,
        help=f"of a random baseline's draws, the first N are read by the estimators too (default "
        f"{ESTIMATOR_DRAWS}; the tests compare with its mean rank over all draws)",
    )
    parser.add_argument("--readings", nargs="+", default=list(READINGS), choices=list(READINGS))
    parser.add_argument("--out", help="write the Markdown table (and, for --seeds tuning, the rule's ranking) here")
    parser.add_argument("--csv", help="write every trial's rho (long) here")
    parser.add_argument("--summary-csv", help="write the table (one row per strategy, features and reading) here")
    parser.add_argument("--primary-csv", help="write the pre-registered comparisons here")
    parser.add_argument("--informed-csv", help="write issue 45's pre-registered informed comparison here")
    parser.add_argument(
        "--from-csv",
        nargs="+",
        metavar="CSV",
        help="build the table from --csv files of earlier runs (e.g. one per domain, run side by "
        "side) instead of computing; they must be of the same --seeds",
    )
    args = parser.parse_args()
    if "tsc" in args.domains and not args.from_csv and not args.features_dir:
        parser.error("--domains tsc needs --prepared-dir (a finished pipeline run's results/prepared)")
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):  # as the pipeline's one-thread jobs (module docstring)
        run(args)


def run(args: argparse.Namespace) -> None:
    """The table, the tests and the files of one ``main`` call."""
    APRIORI["tsc"] = list(args.tsc_representations)
    config = yaml.safe_load(Path(args.config).read_text())
    frames = [pd.read_csv(path) for path in args.from_csv or []]
    with tempfile.TemporaryDirectory() as cache:
        for name in [] if args.from_csv else args.domains:
            data = prepare(name, config, args.mirror, Path(cache), args.features_dir)
            for design in DESIGNS[name]:
                frames.append(domain_frame(name, data, design, SEEDS[args.seeds], args, domain_protocol(config, name)["options"]))
    frame = pd.concat(frames, ignore_index=True)
    if args.csv:
        frame.to_csv(args.csv, index=False)
    table = summary(frame, args.ks)
    if args.summary_csv:
        table.to_csv(args.summary_csv, index=False, float_format="%.6g")
    text = [f"Seeds: {args.seeds} {list(SEEDS[args.seeds])}, {args.trials_per_seed} trials each.", "", markdown(table, args.ks)]
    if args.seeds == "reporting" and {5, 10} <= set(args.ks):
        text += ["", "Goals (issue 38), on each domain's primary design, described by their best rows (descriptive: "
                 "rows not chosen beforehand, raw p-values; the verdicts are the pre-registered comparisons below):",
                 "", *goals(table)]
    primaries = primary_tests(frame, args.tsc_representations[0])
    if len(primaries):
        family = ("Holm over these only" if len(primaries) == len(PRIMARY) else f"Holm over the {len(primaries)} of "
                  f"this run's domains only: the registered family has {len(PRIMARY)}, run every domain for its Holm p")
        text += ["", f"Pre-registered comparisons ({SELECT_STRATEGY}, select's default; {family}; every "
                 "other p-value above is raw and descriptive):", "", primaries.to_markdown(index=False, floatfmt=".3g")]
        if args.primary_csv:
            primaries.to_csv(args.primary_csv, index=False, float_format="%.6g")
    informed_lines, informed_rows = informed_goal_text(table, frame, args.seeds)
    text += informed_lines
    if args.informed_csv and len(informed_rows):
        informed_rows.to_csv(args.informed_csv, index=False, float_format="%.6g")
    if set(frame["domain"]) == set(DESIGNS):
        strategies, estimators, reasons = choose_default(table, args.ks, frame)
        use = "the choice" if args.seeds == "tuning" else "for comparison only: nothing is chosen on these seeds"
        text += [
            "",
            f"Default rule ({use}), strategies (mean share over domains and k; mean median):",
            "",
            strategies.round(3).to_markdown(),
            "",
            f"Estimators on the chosen strategy's subsets ({reasons[0]}):",
            "",
            estimators.round(3).to_markdown(),
            "",
            *[f"- {r}" for r in reasons],
        ]
    output = "\n".join(text)
    print(output)
    if args.out:
        Path(args.out).write_text(output + "\n")


if __name__ == "__main__":
    main()
