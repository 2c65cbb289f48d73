"""The model-holdout variation: selections never see a held-out model's score, metrics use the held-out
models' ranks among themselves; MMTEB-style backward elimination; the pipeline's model-holdout tables."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata, spearmanr
from sklearn.linear_model import Ridge
from sklearn.model_selection import LeaveOneOut, cross_val_predict

from benchdesign.selection import strategies as S
from benchdesign.selection.metrics import rank_metrics
from benchdesign.selection.protocol import (
    HOLDOUT_FRACTION,
    holdout_size,
    model_holdout_draws,
    model_holdout_subsets,
    model_holdout_trials,
)
from benchdesign.workflow.config import PROTOCOL_DEFAULTS, trial_settings
from benchdesign.workflow.preflight import check_protocol_against_data

RNG = np.random.default_rng(3)
CUBE = RNG.normal(size=(12, 2, 8))  # 12 datasets, 2 folds, 8 models (higher is better)
X = RNG.normal(size=(12, 4))


def _selections(cube, X, strategy, **kw):
    return [(t, pool.tolist(), held.tolist(), {k: v.tolist() for k, v in subsets.items()})
            for t, pool, held, subsets in model_holdout_subsets(cube, True, X, strategy, [2, 4], 5, 0.75, 11, **kw)]


@pytest.mark.parametrize("strategy,rep,seen", [("kmeans", None, False), ("fafi_cosine", None, False),
                                               ("backward_elimination", None, False), ("kmeans", X, False),
                                               ("random", X, False), ("mutual_information", X, True)])
def test_held_out_scores_never_reach_a_selection(strategy, rep, seen):
    clean = _selections(CUBE, rep, strategy, options={"n_init": 2}, with_seen_ranks=seen)
    # trials hold out different models: poison each trial's own held-out models and compare that trial
    for t, pool, held, subsets in clean:
        poisoned = CUBE.copy()
        poisoned[:, :, held] = RNG.normal(scale=100.0, size=poisoned[:, :, held].shape)
        again = _selections(poisoned, rep, strategy, options={"n_init": 2}, with_seen_ranks=seen)[t]
        assert again == (t, pool, held, subsets)


def test_seen_scores_do_reach_the_oracle():
    """The check above can fail: poisoning a *seen* model changes the oracle's choices in some trial."""
    clean = _selections(CUBE, None, "fafi_cosine")
    changed = 0
    for t, _, held, _ in clean:
        seen = np.setdiff1d(np.arange(CUBE.shape[2]), held)
        poisoned = CUBE.copy()
        poisoned[:, :, seen[:3]] = RNG.normal(scale=100.0, size=(12, 2, 3))
        changed += _selections(poisoned, None, "fafi_cosine")[t] != clean[t]
    assert changed > 0


def test_seen_ranks_are_appended_to_the_features():
    plain = _selections(CUBE, X, "fafi_cosine")
    assert _selections(CUBE, X, "fafi_cosine", with_seen_ranks=True) != plain  # the seen ranks take part


def test_metrics_use_the_held_out_ranks_among_themselves():
    trials = model_holdout_trials(CUBE, True, X, "random", [2, 4], 5, 0.75, 11)  # 20 draws per trial
    assert set(trials["draw"]) == set(range(20))
    for t, pool, held, by_draw in model_holdout_draws(CUBE, True, X, "random", [2, 4], 5, 0.75, 11, draws=20):
        # by hand: rank the held-out models on every (dataset, fold), 1 = best, then average
        ranks = np.empty((12, len(held)))
        for d in range(12):
            ranks[d] = np.mean([rankdata(-CUBE[d, f, held]) for f in range(2)], axis=0)
        assert ranks.max() <= len(held)
        for draw, subsets in enumerate(by_draw):
            for k, chosen in subsets.items():
                expected = rank_metrics(ranks[chosen].mean(axis=0), ranks.mean(axis=0))
                at = (trials["trial"] == t) & (trials["draw"] == draw) & (trials["k"] == k)
                got = trials[at].set_index("metric")["value"]
                for metric, value in expected.items():
                    assert got[metric] == pytest.approx(value)


def test_holdout_draws_are_seeded_and_sized():
    runs = [_selections(CUBE, X, "random") for _ in range(2)]
    assert runs[0] == runs[1]
    held = [h for _, _, h, _ in runs[0]]
    assert all(len(h) == holdout_size(8, HOLDOUT_FRACTION) == 2 for h in held)
    assert len({tuple(h) for h in held}) > 1  # trials hold out different models
    assert holdout_size(5, 0.3) == 2 and holdout_size(10, 0.35) == 3  # a ranking needs 2 models
    with pytest.raises(ValueError, match="at least 2 held out and 1 seen"):
        holdout_size(2, 0.3)


def _predictability_sklearn(Z, target, others, ridge=S.RIDGE):
    """Independent: leave-one-model-out predictions of sklearn's Ridge (intercept unpenalised)."""
    y, F = Z[target], Z[others].T
    y_hat = cross_val_predict(Ridge(alpha=ridge), F, y, cv=LeaveOneOut())
    return spearmanr(y_hat, y).statistic


def test_predictability_matches_sklearn_leave_one_out():
    Z = RNG.normal(size=(6, 9))
    for target in range(6):
        others = [i for i in range(6) if i != target]
        assert S.predictability(Z, target, others) == pytest.approx(_predictability_sklearn(Z, target, others))


def test_backward_elimination_drops_the_predictable_dataset_first():
    """Hand-made case: dataset 2 is dataset 0 plus a little noise, the others independent; one of the twins is
    the first drop (the lower index on a tie), and the order is a prefix order."""
    Z = RNG.normal(size=(6, 15))
    Z[2] = Z[0] + 0.01 * RNG.normal(size=15)
    order = S.backward_elimination_order(Z, np.arange(6), 6)
    assert order[-1] in (0, 2) and sorted(order.tolist()) == list(range(6))
    assert {0, 2} - set(order[:5].tolist())  # the twins do not both survive to k = 5
    for k in range(1, 7):
        assert S.select_backward_elimination(Z, k, np.arange(6)).tolist() == order[:k].tolist()
    pool = np.array([1, 3, 4, 5])
    assert set(S.backward_elimination_order(Z, pool, 4).tolist()) == set(pool.tolist())


def test_trial_settings_carry_holdout_fraction_only_for_model_holdout():
    config = {"protocol": {}, "domains": {"nlp": {}}}
    assert PROTOCOL_DEFAULTS["holdout_fraction"] == HOLDOUT_FRACTION
    assert "model_holdout" in PROTOCOL_DEFAULTS["variations"]
    assert trial_settings(config, "nlp", "kmeans", "model_holdout")["holdout_fraction"] == HOLDOUT_FRACTION
    assert "holdout_fraction" not in trial_settings(config, "nlp", "kmeans", "dataset_pool")


def test_coverage_settings_ignore_holdout_fraction():
    from benchdesign.workflow.config import coverage_settings

    base = {"protocol": {}, "domains": {"nlp": {}}}
    changed = {"protocol": {"holdout_fraction": 0.4, "variations": ["dataset_pool"]}, "domains": {"nlp": {}}}
    assert coverage_settings(base, "nlp") == coverage_settings(changed, "nlp")
    assert coverage_settings(base, "nlp") != coverage_settings({"protocol": {"n_trials": 4}, "domains": {"nlp": {}}},
                                                               "nlp")


def test_preflight_refuses_a_holdout_of_fewer_than_two_models():
    config = {"protocol": {"holdout_fraction": 0.2}, "domains": {"tsc": {"models": ["m0", "m1"]}}}
    protocol = {**PROTOCOL_DEFAULTS, "holdout_fraction": 0.2, "variations": ["model_holdout"], "k_max": 5}
    facts = {"datasets": [f"d{i}" for i in range(20)], "models": [f"m{i}" for i in range(6)]}
    with pytest.raises(ValueError, match=r"protocol.holdout_fraction=0.2.*floor\(0.2 x 2 models\)\) = 2 and sees none"):
        check_protocol_against_data(config, "tsc", protocol, facts)
    config["domains"]["tsc"]["models"] = ["m0", "m1", "m2"]
    check_protocol_against_data(config, "tsc", protocol, facts)  # 2 held out, 1 seen


@pytest.mark.workflow
def test_pipeline_writes_model_holdout_tables(tiny_run):
    tables = tiny_run / "results/tables/model_holdout"
    table1 = pd.read_csv(tables / "table1_auc.csv")
    assert set(table1["domain"]) == {"tsc", "recsys", "nlp"}
    trials = pd.read_csv(tiny_run / "results/trials/model_holdout/nlp/oracle/kmeans.csv")
    assert set(trials["variation"]) == {"model_holdout"} and trials["trial"].nunique() == 6
    assert "ranking of the held-out models" in (tables / "recommendation.txt").read_text()
    assert "Random" in (tables / "table3_wilcoxon_holm.md").read_text()
    assert (tiny_run / "results/figures/curves_nlp_model_holdout.png").stat().st_size > 0


@pytest.mark.workflow
def test_changing_holdout_fraction_reruns_only_model_holdout_jobs(tiny_run, mirror_dir):
    from test_reruns import dry_run_jobs
    from workflow_helpers import TINY, snakemake

    override = tiny_run.parent / "holdout_fraction.yaml"
    override.write_text("protocol:\n  holdout_fraction: 0.4\n")
    result = snakemake(tiny_run, "--dry-run", "--config", f"mirror={mirror_dir}", configfiles=(TINY, override))
    jobs = dry_run_jobs(result.stdout + result.stderr)
    trials = [w for rule, w, _ in jobs if rule == "trials"]
    assert trials and {w["variation"] for w in trials} == {"model_holdout"}
    assert {w["domain"] for w in trials} == {"tsc", "recsys", "nlp"}
    counts = Counter(rule for rule, _, _ in jobs)
    assert counts["model_holdout_tables"] == 1 and "dataset_pool_tables" not in counts
    assert "model_pool_table" not in counts and "coverage" not in counts


def test_evaluate_with_seen_ranks_runs_features_plus_seen_ranks():
    from benchdesign.selection.api import evaluate_benchmark

    names = [f"d{i}" for i in range(12)]
    scores = pd.DataFrame([(names[d], f"m{m}", f, CUBE[d, f, m]) for d in range(12) for f in range(2)
                           for m in range(8)], columns=["dataset", "model", "fold", "score"])
    features = {"meta": pd.DataFrame(X, index=names)}
    settings = dict(strategies=["mutual_information"], n_trials=4, pool_fraction=0.75, ks=[2, 3], random_state=11, oracle=False)
    result = evaluate_benchmark(scores, features, True, with_seen_ranks=True, **settings)
    trials = result.frames["trials"]
    assert set(trials["representation"]) == {"meta", "meta+seen"} and set(trials["variation"]) == {"model_holdout"}
    got = trials[trials["representation"] == "meta+seen"][["trial", "k", "metric", "value"]].reset_index(drop=True)
    ref = model_holdout_trials(CUBE, True, X, "mutual_information", [2, 3], 4, 0.75, 11, with_seen_ranks=True,
                               options={"n_init": 3, "lam": 1.0, "start": "nearest"})
    pd.testing.assert_frame_equal(got, ref)
    with pytest.raises(ValueError, match="with_seen_ranks needs variation='model_holdout'"):
        evaluate_benchmark(scores, features, True, with_seen_ranks=True, variation="dataset_pool", **settings)


def _long_scores(cube: np.ndarray) -> pd.DataFrame:
    n, folds, m = cube.shape
    return pd.DataFrame([(f"d{d}", f"m{j}", f, cube[d, f, j]) for d in range(n) for f in range(folds)
                         for j in range(m)], columns=["dataset", "model", "fold", "score"])


def test_evaluate_on_12_models_warns_about_3_held_out_models(caplog):
    """Issue 38: each held-out ρ is over floor(0.3 x 12) = 3 models; below 5 a warning, below 4 no ρ verdict."""
    from benchdesign.selection.api import evaluate_benchmark

    cube = np.random.default_rng(4).normal(size=(12, 1, 12))
    features = {"meta": pd.DataFrame(X, index=[f"d{i}" for i in range(12)])}
    settings = dict(strategies=["random", "kmeans"], n_trials=4, pool_fraction=0.75, ks=[2, 3], random_state=1)
    with caplog.at_level("WARNING", logger="benchdesign"):
        result = evaluate_benchmark(_long_scores(cube), features, True, **settings)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == ["warning: each held-out ρ is computed on 3 held-out models (holdout fraction 0.3 of 12): "
                        "over 3 models ρ moves in steps of 0.5 (no ties), so ρ ≥ 0.9 demands their exact order; "
                        "below 4 models recommendation.txt gives no ρ-based verdict (raise --holdout-fraction, or "
                        "--variation dataset_pool)"]
    assert "Each ρ is computed on the 3 held-out models. No ρ-based verdict" in result.recommendation
    assert "- k = " not in result.recommendation and not result.frames["recommendation"]["significant"].any()
    assert result.frames["recommendation"]["n_judges"].tolist() == [3, 3]
    trials = result.frames["trials"]  # random draws RANDOM_DRAWS subsets per trial, k-means one
    assert trials.groupby("strategy")["draw"].nunique().to_dict() == {"kmeans": 1, "random": 20}
    caplog.clear()
    with caplog.at_level("WARNING", logger="benchdesign"):  # 0.4 x 12: 4 held out, a warning and a verdict
        result = evaluate_benchmark(_long_scores(cube), features, True, holdout_fraction=0.4, **settings)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1 and messages[0].startswith("warning: each held-out ρ is computed on 4 held-out models")
    assert "no ρ-based verdict" not in messages[0]
    assert "Each ρ is computed on the 4 held-out models. Warning: over 4 models ρ moves" in result.recommendation
    assert "- k = 2, a priori (dataset features only): " in result.recommendation
    caplog.clear()
    with caplog.at_level("WARNING", logger="benchdesign"):  # 0.5 x 12: 6 held out, no warning
        result = evaluate_benchmark(_long_scores(cube), features, True, holdout_fraction=0.5, **settings)
    assert not caplog.records and "Each ρ is computed on the 6 held-out models.\n" in result.recommendation


def test_conclusion_stability_under_model_holdout_is_on_the_held_out_models():
    """The Wilcoxon-Holm verdicts of a model-holdout trial are those of its held-out models' pairs (the seen models
    chose the subset): checked by hand against pairwise_verdicts on the held-out columns."""
    from benchdesign.selection.api import run_configuration
    from benchdesign.selection.conclusions import conclusion_stability, pairwise_verdicts

    rng = np.random.default_rng(9)
    cube = rng.normal(size=(30, 1, 8)) + np.linspace(0, 1.5, 8)  # models differ: some verdicts are significant
    S = cube.mean(axis=1)
    ranks = rankdata(-cube, axis=2).mean(axis=1)
    holdout = (cube, True, 0.5, False, False)
    _, stability, _ = run_configuration(ranks, X.repeat(3, axis=0)[:30], "kmeans", [5, 10], 3, 0.8, 2, {"n_init": 1},
                                        S, True, stability_ks=[10], holdout=holdout)
    expected = []
    for t, _, held, subsets in model_holdout_subsets(cube, True, X.repeat(3, axis=0)[:30], "kmeans", [5, 10], 3,
                                                     0.8, 2, 0.5, {"n_init": 1}):
        full = pairwise_verdicts(S[:, held], True)
        expected.append((t, 10, conclusion_stability(full, pairwise_verdicts(S[np.sort(subsets[10])][:, held],
                                                                             True))))
    assert [tuple(r) for r in stability.itertuples(index=False)] == expected
    # on all 8 models (28 pairs) the shares differ: the held-out models' 6 pairs are what judge
    all_models = [conclusion_stability(pairwise_verdicts(S, True), pairwise_verdicts(S[np.sort(s[10])], True))
                  for _, _, _, s in model_holdout_subsets(cube, True, X.repeat(3, axis=0)[:30], "kmeans", [5, 10], 3,
                                                          0.8, 2, 0.5, {"n_init": 1})]
    assert [v for _, _, v in expected] != all_models
