"""The "which strategy for my k" verdicts: shares of pools, the exact McNemar test, k targets, the text."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from benchdesign.selection import aggregation, frames
from benchdesign.selection.statistics import holm, mcnemar_exact, paired_share_test
from benchdesign.selection.verdicts import HOLDOUT_REFERENCE, default_k_targets, strategy_verdicts, verdict_text


def trials_frame(values: dict[tuple[str, str], dict[int, list[float]]], domain: str = "bench") -> pd.DataFrame:
    """Long spearman trials: {(strategy, representation): {k: per-trial values}}."""
    rows = [(domain, "dataset_pool", s, r, t, k, "spearman", v)
            for (s, r), by_k in values.items() for k, vals in by_k.items() for t, v in enumerate(vals)]
    return pd.DataFrame(rows, columns=frames.TRIAL_COLUMNS)


def test_mcnemar_exact_is_the_sign_test_on_discordant_pairs():
    a = np.array([1, 1, 1, 1, 1, 0, 1, 0, 0, 1], dtype=bool)
    b = np.array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0], dtype=bool)
    wins, losses, p = mcnemar_exact(a, b)
    assert (wins, losses) == (5, 1)
    assert p == pytest.approx(binomtest(5, 6, 0.5, alternative="greater").pvalue) == pytest.approx(7 / 64)
    assert mcnemar_exact(a, a) == (0, 0, 1.0)
    with pytest.raises(ValueError, match="paired outcomes need equal 1-d non-empty shapes"):
        mcnemar_exact(a, b[:3])


def test_paired_share_test_generalises_mcnemar_to_a_random_baselines_share_of_draws():
    a = np.array([1, 1, 1, 1, 1, 0, 1, 0, 0, 1], dtype=bool)
    b = np.array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0], dtype=bool)
    assert paired_share_test(a, b) == mcnemar_exact(a, b)  # pass/fail on both sides: the same test
    # shares: differences 0.5, 1, 0, -0.5; of the 8 sign flips of (0.5, 1, 0.5) three sum to >= 1 (hand count)
    assert paired_share_test([1, 1, 1, 0], [0.5, 0, 1, 0.5]) == (2, 1, 0.375)
    # 20 nonzero differences of one size: random flips estimate the sign test's P(Bin(20, 1/2) >= 15)
    wins, losses, p = paired_share_test([1.0] * 15 + [0.0] * 5, [0.5] * 20)
    assert (wins, losses) == (15, 5)
    assert p == pytest.approx(binomtest(15, 20, 0.5, alternative="greater").pvalue, abs=0.005)
    assert paired_share_test([1.0] * 15 + [0.0] * 5, [0.5] * 20) == (wins, losses, p)  # seeded: deterministic
    with pytest.raises(ValueError, match="pass shares must lie in"):
        paired_share_test([1.5], [0.0])


def test_a_random_baseline_with_draws_counts_each_pool_by_its_share_of_draws():
    """Random draws twice per trial: pass shares 0.5, 0, 1, 0.5 against k-means' 1, 1, 1, 0 (the hand count
    above: p = 3/8)."""
    rows = [("bench", "dataset_pool", "random", "none", t, d, 3, "spearman", v)
            for t, draws in enumerate([[0.95, 0.5], [0.5, 0.5], [0.95, 0.95], [0.95, 0.5]]) for d, v in enumerate(draws)]
    rows += [("bench", "dataset_pool", "kmeans", "meta", t, 0, 3, "spearman", v)
             for t, v in enumerate([0.95, 0.95, 0.95, 0.5])]
    trials = pd.DataFrame(rows, columns=[*frames.TRIAL_COLUMNS[:5], "draw", *frames.TRIAL_COLUMNS[5:]])
    v = strategy_verdicts(trials, {"bench": 10}, 0.8, k_targets=[3]).iloc[0]
    assert (v["random_share"], v["best_share"], v["n_trials"]) == (0.5, 0.75, 4)
    assert (v["wins"], v["losses"], v["p_raw"]) == (2, 1, 0.375)


def test_meets_target_is_inclusive_in_the_metric_direction():
    got = aggregation.meets_target([0.89, 0.9, 0.95, 1.6, 1.5], [0.9, 0.9, 0.9, 1.5, 1.5],
                                   [True, True, True, False, False])
    assert got.tolist() == [False, True, True, False, True]


def test_pool_shares_count_the_trials_that_meet_the_target():
    trials = trials_frame({("random", "none"): {2: [0.95, 0.5, 0.9, 0.1], 3: [1.0, 1.0, 0.2, 0.95]}})
    shares = aggregation.pool_shares(trials, {"spearman": 0.9})
    assert shares["share"].tolist() == [0.5, 0.75] and shares["n_trials"].tolist() == [4, 4]


def test_the_best_configuration_against_random_with_holm():
    n = 12
    trials = trials_frame({
        ("random", "none"): {3: [0.5] * n, 5: [0.95] * 6 + [0.5] * 6},
        ("kmeans", "meta"): {3: [0.95] * 11 + [0.5], 5: [0.95] * 7 + [0.5] * 5},
        ("fafi_cosine", "meta"): {3: [0.95] * 3 + [0.5] * 9, 5: [0.95] * 5 + [0.5] * 7},
        ("kmeans", "oracle"): {3: [0.99] * n, 5: [0.99] * n},
    })
    v = strategy_verdicts(trials, {"bench": 10}, 0.8, "spearman", 0.9, [3, 5])
    assert list(v.columns) == frames.VERDICT_COLUMNS and v["pool_size"].tolist() == [8, 8]
    at3, at5 = v.iloc[0], v.iloc[1]
    assert (at3["best_strategy"], at3["best_representation"]) == ("kmeans", "meta")
    assert at3["best_share"] == pytest.approx(11 / 12) and at3["random_share"] == 0.0
    assert (at3["wins"], at3["losses"]) == (11, 0)
    raw = [binomtest(11, 11, 0.5, alternative="greater").pvalue, binomtest(3, 3, 0.5, alternative="greater").pvalue]
    assert at3["p_holm"] == pytest.approx(holm(raw)[0]) and at3["significant"]
    # the informed class (the oracle) beside the answer, never the answer, with its own test against random
    assert at3["class"] == "a priori"
    assert (at3["informed_strategy"], at3["informed_representation"], at3["informed_share"]) == ("kmeans", "oracle",
                                                                                                 1.0)
    assert at3["informed_p_holm"] == pytest.approx(0.5 ** 12)  # 12 wins, 0 losses; Holm over one configuration
    assert at5["best_share"] == pytest.approx(7 / 12) and not at5["significant"]
    text = verdict_text(v)
    assert "share of pools with ρ ≥ 0.9" in text and "one-sided exact McNemar (sign) test" in text
    assert "bench: 12 trials, pools of 8 of the 10 datasets." in text
    assert ("- k = 3, a priori (dataset features only): K-Means (kmeans) on the features 'meta' has the highest share, "
            "92% of pools, against 0% for random (ahead of / behind random in 11 / 0 trials, p < 0.001 "
            "Holm over 2 configurations): significantly higher: use it for k = 3. Informed (also the seen models' "
            "scores): K-Means (kmeans) on the oracle (the seen models' ranks), 100% of pools (p < 0.001 against "
            "random, Holm over the informed configurations: significantly higher than random's) -- judged by the "
            "models whose scores built it: for comparison only, not advice.") in text
    assert "against 50% for random" in text and "not significantly higher than random's." in text
    assert "upper bound" not in text


def test_features_with_the_seen_models_ranks_are_informed_not_a_contender():
    """Issue 38's mislabel: greedy MI on features + the seen models' ranks needs the seen models' scores."""
    n = 10
    trials = trials_frame({
        ("random", "none"): {3: [0.95] * 2 + [0.5] * 8},
        ("kmeans", "meta"): {3: [0.95] * 4 + [0.5] * 6},
        ("mutual_information", "meta+seen"): {3: [0.95] * n},
        ("kmeans", "oracle"): {3: [0.95] * 6 + [0.5] * 4},
    })
    trials["variation"] = "model_holdout"
    v = strategy_verdicts(trials, {"bench": 10}, 0.8, k_targets=[3], n_judges=9).iloc[0]
    assert (v["best_strategy"], v["best_representation"], v["n_contenders"]) == ("kmeans", "meta", 1)
    assert (v["informed_strategy"], v["informed_representation"], v["informed_share"]) == (
        "mutual_information", "meta+seen", 1.0)
    # Holm over the two informed configurations: MI 8 wins / 0 losses, the oracle 4 / 0
    raw = [0.5 ** 8, 0.5 ** 4]
    assert v["informed_p_holm"] == pytest.approx(holm(raw)[0])
    text = verdict_text(pd.DataFrame([v]), reference=HOLDOUT_REFERENCE)
    assert "Each ρ is computed on the 9 held-out models." in text
    assert ("Informed (also the seen models' scores): Greedy MI (mutual_information) on the features 'meta' with the "
            "seen models' ranks, 100% of pools") in text
    assert "usable by a curator who has the seen models' scores on every dataset" in text


def test_too_few_models_per_rho_warn_or_withhold_the_verdict():
    trials = trials_frame({("random", "none"): {3: [0.5] * 12}, ("kmeans", "meta"): {3: [0.95] * 12}})
    four = strategy_verdicts(trials, {"bench": 10}, 0.8, k_targets=[3], n_judges=4)
    assert bool(four["significant"].iloc[0]) and four["n_judges"].tolist() == [4]
    text = verdict_text(four, reference=HOLDOUT_REFERENCE)
    assert ("Each ρ is computed on the 4 held-out models. Warning: over 4 models ρ moves in steps of 0.2 (no ties), "
            "so ρ ≥ 0.9 demands their exact order; the shares are coarse.") in text
    assert "use it for k = 3" in text
    three = strategy_verdicts(trials, {"bench": 10}, 0.8, k_targets=[3], n_judges={"bench": 3})
    assert not three["significant"].iloc[0]
    text = verdict_text(three, reference=HOLDOUT_REFERENCE)
    assert ("Each ρ is computed on the 3 held-out models. No ρ-based verdict below 4 models: over 3 models ρ moves "
            "in steps of 0.5 (no ties), so ρ ≥ 0.9 demands their exact order (hold out more models: "
            "--holdout-fraction).") in text
    assert "- k = 3" not in text


def test_rho_steps_by_hand():
    """Spearman's ρ over m untied models: all values of 1 - 6 Σd² / (m (m² - 1)) over every permutation."""
    from itertools import permutations

    from benchdesign.selection.verdicts import few_models_note, rho_step

    for m in (3, 4, 5):
        values = sorted({round(1 - 6 * sum((a - b) ** 2 for a, b in zip(p, range(m))) / (m * (m * m - 1)), 9)
                         for p in permutations(range(m))})
        assert values[-1] - values[-2] == pytest.approx(rho_step(m))
    assert rho_step(4) == pytest.approx(0.2) and rho_step(5) == pytest.approx(0.1)
    assert few_models_note(5, 0.9) == "over 5 models ρ moves in steps of 0.1 (no ties)"  # one swap still meets 0.9
    assert few_models_note(4, 0.8) == "over 4 models ρ moves in steps of 0.2 (no ties)"
    with pytest.raises(ValueError, match="at least 2 models"):
        rho_step(1)


def test_k_targets_stay_within_the_pool_and_the_evaluated_sizes():
    trials = trials_frame({("random", "none"): {k: [0.95, 0.5] for k in (2, 3, 4)},
                           ("kmeans", "meta"): {k: [0.95, 0.95] for k in (2, 3, 4)}})
    with pytest.raises(ValueError, match=r"k-target 5 exceeds the pool of 4 of the 5 datasets"):
        strategy_verdicts(trials, {"bench": 5}, 0.8, k_targets=[5])
    with pytest.raises(ValueError, match=r"k-target 4 is not among the evaluated subset sizes k = 2\.\.3"):
        strategy_verdicts(trials[trials["k"] < 4], {"bench": 5}, 0.8, k_targets=[4])
    whole = strategy_verdicts(trials, {"bench": 5}, 0.8, k_targets=[4])
    assert "k = 4 is the whole pool: every strategy selects the same 4 datasets" in verdict_text(whole)
    # the default leaves the whole pool out and spreads over the rest
    assert strategy_verdicts(trials, {"bench": 5}, 0.8)["k"].tolist() == [2, 3]
    assert default_k_targets(range(2, 21), 20) == [2, 10, 19]
    assert default_k_targets(range(2, 21), 24) == [2, 11, 20]
    assert default_k_targets([4], 4) == [4]


def test_no_target_met_and_only_random():
    trials = trials_frame({("random", "none"): {2: [0.1, 0.2]}, ("kmeans", "meta"): {2: [0.3, 0.1]}})
    text = verdict_text(strategy_verdicts(trials, {"bench": 10}, 0.8, k_targets=[2]))
    assert "neither it nor random meets the target in any pool at this k" in text
    only = verdict_text(strategy_verdicts(trials[trials["strategy"] == "random"], {"bench": 10}, 0.8))
    assert "- k = 2, a priori (dataset features only): only random was evaluated (0% of pools)." in only
