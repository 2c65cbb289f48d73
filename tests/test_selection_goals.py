"""benchmarks/selection_goals.py: the rule that chooses select's default, on a hand-built summary table."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "selection_goals.py"


@pytest.fixture(scope="module")
def goals():
    sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("selection_goals", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(domain, design, strategy, features, reading, cls, share5, share10, median=0.9):
    return {
        "domain": domain,
        "design": design,
        "strategy": strategy,
        "features": features,
        "reading": reading,
        "class": cls,
        "share k=5": share5,
        "share k=10": share10,
        "median k=5": median,
        "median k=10": median,
    }


def _table():
    rows = [
        # scores, feature tables averaged within a domain: kmeans (0.7 + 0.3 + 0.5) / 3 = 0.5,
        # kmedoids (0.6 + 0.4 + 0.65) / 3 = 0.55; with the best table per domain kmeans would win (0.633 > 0.567)
        _row("nlp", "random", "kmeans", "metadata", "rank", "a priori", 0.6, 0.8),
        _row("nlp", "random", "kmedoids", "metadata", "rank", "a priori", 0.5, 0.7),
        _row("recsys", "crossfit", "kmeans", "interaction", "rank", "a priori", 0.2, 0.4),
        _row("recsys", "crossfit", "kmedoids", "interaction", "rank", "a priori", 0.3, 0.5),
        _row("tsc", "random", "kmeans", "t1", "rank", "a priori", 0.9, 0.9),
        _row("tsc", "random", "kmeans", "t2", "rank", "a priori", 0.1, 0.1),
        _row("tsc", "random", "kmedoids", "t1", "rank", "a priori", 0.7, 0.7),
        _row("tsc", "random", "kmedoids", "t2", "rank", "a priori", 0.6, 0.6),
        # left out: a random baseline, MMTEB's elimination, an informed row, a secondary design
        *[
            _row(d, g, "random", "none", "rank", "a priori", 1.0, 1.0)
            for d, g in (("nlp", "random"), ("recsys", "crossfit"), ("tsc", "random"))
        ],
        *[
            _row(d, g, "backward_elimination", "oracle", "rank", "informed", 1.0, 1.0)
            for d, g in (("nlp", "random"), ("recsys", "crossfit"), ("tsc", "random"))
        ],
        *[
            _row(d, g, "kmeans", "x+seen", "rank", "informed", 1.0, 1.0)
            for d, g in (("nlp", "random"), ("recsys", "crossfit"), ("tsc", "random"))
        ],
        _row("nlp", "family", "kmeans", "metadata", "rank", "a priori", 1.0, 1.0),
    ]
    for domain, design, features in (
        ("nlp", "random", "metadata"),
        ("recsys", "crossfit", "interaction"),
        ("tsc", "random", "t1"),
    ):
        rows += [
            _row(domain, design, "kmedoids", features, "anchor", "informed", 0.5, 0.5),
            _row(domain, design, "kmedoids", features, "gaussian", "informed", 0.6, 0.6),
            _row(domain, design, "kmeans", features, "mean", "informed", 1.0, 1.0),  # not the chosen strategy
            _row(domain, design, "kmedoids", "x+seen", "mean", "informed", 1.0, 1.0),
        ]  # informed features
    return pd.DataFrame(rows)


def test_default_rule_averages_feature_tables_and_skips_baselines(goals):
    strategies, estimators, reasons = goals.choose_default(_table(), [5, 10])
    assert reasons[0].startswith("strategy: kmedoids: the best score")
    assert list(strategies.index) == ["kmedoids", "kmeans"]
    assert strategies["score"].tolist() == pytest.approx([0.55, 0.5])
    assert list(estimators.index) == ["gaussian", "anchor"]
    assert estimators["score"].tolist() == pytest.approx([0.6, 0.5])


def test_default_rule_breaks_ties_by_median(goals):
    table = _table()
    rank_rows = (table["reading"] == "rank") & table["strategy"].isin(["kmeans", "kmedoids"])
    table.loc[rank_rows, ["share k=5", "share k=10"]] = 0.5
    table.loc[rank_rows & (table["strategy"] == "kmeans"), ["median k=5", "median k=10"]] = 0.95
    strategies, _, _ = goals.choose_default(table, [5, 10])
    assert list(strategies.index)[:2] == ["kmeans", "kmedoids"]
    assert strategies.loc["kmeans", "score"] == strategies.loc["kmedoids", "score"]


def _long(goals, shares: dict[str, float], n_trials=40, seed=1, k=5):
    """Per-trial rows: in every domain, each strategy passes rho >= 0.9 in about ``shares[strategy]`` of the trials."""
    rng = np.random.default_rng(seed)
    rows = []
    for domain, (design, *_) in goals.DESIGNS.items():
        features = goals.PRIMARY_FEATURES.get(domain, "t1")
        for strategy, share in shares.items():
            passed = rng.random(n_trials) < share
            for trial, ok in enumerate(passed):
                rows.append({"domain": domain, "design": design, "strategy": strategy,
                             "features": "none" if strategy in ("random", "stratified") else features,
                             "reading": "rank", "k": k, "seed": 0, "trial": trial, "rho": 0.95 if ok else 0.5})
    return pd.DataFrame(rows)


def test_margin_standard_error_is_the_paired_bootstrap(goals):
    frame = _long(goals, {"kmedoids": 0.5, "mutual_information": 0.6}, n_trials=200)
    scores = goals.trial_scores(frame, "strategy", ["kmedoids", "mutual_information"], [5])
    margin, se = goals.margin_and_se(scores, "mutual_information", "kmedoids")
    diffs = [(s["mutual_information"] - s["kmedoids"]).to_numpy() for s in scores.values()]
    assert margin == pytest.approx(np.mean([d.mean() for d in diffs]))
    # the mean of three independent domain means: sd / sqrt(n) each, divided by 3 in quadrature
    analytic = np.sqrt(sum(d.var(ddof=1) / len(d) for d in diffs)) / len(diffs)
    assert se == pytest.approx(analytic, rel=0.1)


def test_a_default_changes_only_beyond_its_standard_error(goals):
    ranked = pd.DataFrame({"score": [0.6, 0.5]}, index=["mutual_information", "kmedoids"])
    clear = goals.trial_scores(_long(goals, {"kmedoids": 0.3, "mutual_information": 0.9}), "strategy",
                               ranked.index, [5])
    choice, why = goals.decide(ranked, clear, "kmedoids")
    assert choice == "mutual_information" and "> its standard error" in why
    # the same trials for both strategies but three on NLP (two won, one lost): a margin of 1/120, within its
    # standard error (about sqrt(3)/120)
    frame = _long(goals, {"kmedoids": 0.5})
    first = frame.index[:3]
    frame.loc[first, "rho"] = [0.5, 0.95, 0.5]
    twin = frame.assign(strategy="mutual_information")
    twin.loc[first, "rho"] = [0.95, 0.5, 0.95]
    scores = goals.trial_scores(pd.concat([frame, twin]), "strategy", ranked.index, [5])
    choice, why = goals.decide(ranked, scores, "kmedoids")
    assert choice == "kmedoids" and why.startswith("tie:")


def test_the_pre_registered_comparisons_are_holm_corrected_among_themselves(goals):
    from statsmodels.stats.multitest import multipletests

    frame = pd.concat([_long(goals, {goals.SELECT_STRATEGY: 0.7, "random": 0.4, "stratified": 0.5}, k=k, seed=k)
                       for k in (5, 10)])
    frame = pd.concat([frame, frame[(frame["domain"] == "recsys") & (frame["strategy"] == goals.SELECT_STRATEGY)]
                       .assign(reading=goals.ESTIMATOR_DEFAULT)])
    table = goals.primary_tests(frame, "t1")
    assert list(table["goal"]) == [g[0] for g in goals.PRIMARY]
    assert table["Holm p"].to_numpy() == pytest.approx(multipletests(table["raw p"], method="holm")[1])
    nlp5 = table.iloc[0]
    at = frame[(frame["domain"] == "nlp") & (frame["k"] == 5)]
    assert nlp5["value"] == pytest.approx((at[at["strategy"] == goals.SELECT_STRATEGY]["rho"] >= 0.9).mean())


def test_goal_rows_take_the_best_informed_and_a_priori_rows_of_the_primary_design(goals):
    rows = [
        _row("nlp", "random", "covariance", "oracle", "gaussian", "informed", 0.80, 0.9, median=0.93),
        _row("nlp", "random", "kmedoids", "metadata+seen", "rank", "informed", 0.80, 0.9, median=0.95),  # tie: median
        _row("nlp", "random", "mutual_information", "metadata", "anchor", "informed", 0.70, 0.9),
        _row("nlp", "random", "mutual_information", "metadata", "rank", "a priori", 0.74, 0.9),
        _row("nlp", "random", "random", "none", "rank", "a priori", 0.44, 0.7),
        _row("nlp", "family", "covariance", "oracle", "rank", "informed", 0.99, 0.99),  # not the primary design
        _row("tsc", "random", "kmeans", "t1", "gaussian", "informed", 1.0, 1.0),  # another domain
    ]
    informed, apriori = goals.goal_rows(pd.DataFrame(rows))
    assert (informed["strategy"], informed["features"], informed["reading"]) == ("kmedoids", "metadata+seen", "rank")
    assert (apriori["strategy"], apriori["features"]) == ("mutual_information", "metadata")


def test_informed_test_is_the_exact_mcnemar_test_of_the_two_rows(goals):
    from scipy.stats import binomtest

    domain, k, target = goals.INFORMED_GOAL
    rng = np.random.default_rng(4)
    first, second = rng.random(60) < 0.85, rng.random(60) < 0.6
    rows = []
    for (strategy, features, reading), passed in ((("covariance", "oracle", "gaussian"), first),
                                                  (("mutual_information", "metadata", "rank"), second)):
        for trial, ok in enumerate(passed):
            rows.append({"domain": domain, "design": goals.DESIGNS[domain][0], "strategy": strategy,
                         "features": features, "reading": reading, "k": k, "seed": trial // 5, "trial": trial % 5,
                         "rho": 0.95 if ok else 0.5})
    frame = pd.DataFrame(rows)
    out = goals.informed_test(frame, ("covariance", "oracle", "gaussian"), ("mutual_information", "metadata", "rank"))
    wins, losses = int((first & ~second).sum()), int((~first & second).sum())
    assert out["raw p"] == pytest.approx(binomtest(wins, wins + losses, 0.5, alternative="greater").pvalue)
    assert out["informed share"] == pytest.approx(first.mean()) and out["a-priori share"] == pytest.approx(second.mean())
    assert out["reached"] == (first.mean() >= target and out["raw p"] < 0.05)
    assert goals.informed_test(frame, ("covariance", "oracle", "rank"), ("random", "none", "rank")) is None


def test_each_seed_set_decides_its_own_registered_comparison(goals):
    """The confirmation seeds chose nothing: disjoint from the tuning and reporting seeds, and they decide the
    second registration (the reporting seeds' best rows), the others the first."""
    tuning, reporting, confirmation = (set(goals.SEEDS[name]) for name in ("tuning", "reporting", "confirmation"))
    assert not (confirmation & tuning) and not (confirmation & reporting) and len(confirmation) == 40
    assert goals.registered_informed("confirmation") == ("INFORMED_CONFIRMATION", goals.INFORMED_CONFIRMATION)
    assert goals.registered_informed("reporting") == ("INFORMED_PRIMARY", goals.INFORMED_PRIMARY)
    informed, apriori = goals.INFORMED_CONFIRMATION
    assert goals.row_class(*informed) == goals.INFORMED and goals.row_class(*apriori) != goals.INFORMED


def test_the_powered_test_is_sized_by_its_registered_simulation(goals):
    """``informed_power`` against hand-checked extremes, and the registered power and level are what it gives for
    the registered cells and trials; the powered seeds chose nothing."""
    assert goals.informed_power((0, 1, 0, 0), 10, simulations=50) == (1.0, 1.0)  # every trial an informed win
    assert goals.informed_power((1, 0, 0, 0), 10, simulations=50) == (0.0, 1.0)  # no discordant trial: p = 1
    assert goals.informed_power((0, 0, 0, 1), 10, simulations=50) == (0.0, 0.0)
    test = goals.POWERED_TEST
    power, level = goals.informed_power(test["cells"], test["trials"])
    assert round(power, 2) == test["power"] and round(level, 2) == test["p_level"]
    powered = set(goals.SEEDS["powered"])
    assert len(powered) * goals.TRIALS_PER_SEED == test["trials"]
    assert not powered & (set(goals.SEEDS["tuning"]) | set(goals.SEEDS["reporting"]) | set(goals.SEEDS["confirmation"]))
    assert goals.registered_informed("powered") == ("INFORMED_CONFIRMATION", goals.INFORMED_CONFIRMATION)
