"""The evaluation protocol: pools, pairing across strategies, reference rankings, errors."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata
from sklearn.preprocessing import StandardScaler

from benchdesign.selection.metrics import rank_metrics
from benchdesign.selection.options import RANDOM_DRAWS
from benchdesign.selection.protocol import (
    dataset_pool_trials,
    fold_ranks,
    model_pool_trials,
    pool_size,
    score_cube,
    selection_orders,
    single_full_run,
    standardize_rows,
)
from benchdesign.workflow.config import trial_settings


def _ranks(rng, n=12, m=5):
    return np.vstack([rankdata(rng.permutation(m)) for _ in range(n)])


def test_pool_size_is_floor_of_alpha_n():
    assert pool_size(112, 0.8) == 89
    assert pool_size(30, 0.8) == 24
    with pytest.raises(ValueError, match="alpha=1.5"):
        pool_size(10, 1.5)


def test_full_pool_and_full_subset_reproduce_the_reference():
    rng = np.random.default_rng(0)
    ranks = np.vstack([rankdata(np.arange(5) + rng.normal(0, 0.5, 5)) for _ in range(12)])
    assert len(set(ranks.mean(axis=0))) == 5  # no tie in the reference
    X = np.random.default_rng(1).standard_normal((12, 3))
    trials = dataset_pool_trials(ranks, X, "fafi_cosine", [12], 3, 1.0, seed=5)
    values = trials.set_index("metric")["value"].groupby("metric").mean()
    assert values["mae"] == 0.0
    assert values["spearman"] == pytest.approx(1.0)
    assert values["kendall"] == pytest.approx(1.0)
    assert values["ndcg5"] == pytest.approx(1.0)
    assert values["mrr"] == pytest.approx(1.0)


def test_random_trials_match_a_hand_replay_of_the_draws():
    """Random draws RANDOM_DRAWS = 20 subsets per trial, one permutation of the pool after the other from the
    trial's generator [seed, 0, trial, 0]: the first is the single draw of random_draws=1 (the paper's protocol)."""
    ranks = _ranks(np.random.default_rng(2), n=10, m=6)
    X = np.zeros((10, 1))
    trials = dataset_pool_trials(ranks, X, "random", [2, 3], 2, 0.8, seed=11)
    assert RANDOM_DRAWS == 20 and list(trials.columns) == ["trial", "draw", "k", "metric", "value"]
    one = dataset_pool_trials(ranks, X, "random", [2, 3], 2, 0.8, seed=11, random_draws=1)
    assert list(one.columns) == ["trial", "k", "metric", "value"]
    for trial in range(2):
        pool = np.sort(np.random.default_rng([11, 0, trial]).choice(10, 8, replace=False))
        rng = np.random.default_rng([11, 0, trial, 0])
        for draw in range(20):
            order = rng.permutation(pool)
            for k in (2, 3):
                expected = rank_metrics(ranks[order[:k]].mean(axis=0), ranks.mean(axis=0))
                got = trials[(trials.trial == trial) & (trials.draw == draw) & (trials.k == k)].set_index("metric")
                first = one[(one.trial == trial) & (one.k == k)].set_index("metric")
                for metric, value in expected.items():
                    assert got.loc[metric, "value"] == pytest.approx(value, nan_ok=True)
                    if draw == 0:
                        assert first.loc[metric, "value"] == pytest.approx(value, nan_ok=True)
    pd.testing.assert_frame_equal(trials, dataset_pool_trials(ranks, X, "random", [2, 3], 2, 0.8, seed=11))
    assert len(dataset_pool_trials(ranks, X, "kmeans", [2, 3], 2, 0.8, seed=11).columns) == 4  # one draw
    with pytest.raises(ValueError, match="random_draws=0 must be an integer >= 1"):
        dataset_pool_trials(ranks, X, "random", [2, 3], 2, 0.8, seed=11, random_draws=0)


def test_a_random_baselines_trial_is_the_mean_and_pass_share_of_its_draws():
    """Hand-checked: one trial, two draws of random (rho 0.8 and 1.0) against k-means (0.95): the trial AUC and
    Table 3 use the mean (0.9), the share of pools with rho >= 0.9 the share of draws (0.5)."""
    from benchdesign.selection.aggregation import curves, pool_shares, trial_auc

    rows = [("b", "dataset_pool", "random", "none", 0, d, k, "spearman", v)
            for d, by_k in enumerate([{2: 0.8, 3: 0.8}, {2: 1.0, 3: 1.0}]) for k, v in by_k.items()]
    rows += [("b", "dataset_pool", "kmeans", "meta", 0, np.nan, k, "spearman", 0.95) for k in (2, 3)]
    trials = pd.DataFrame(rows, columns=["domain", "variation", "strategy", "representation", "trial", "draw", "k",
                                         "metric", "value"])
    auc = trial_auc(trials).set_index("strategy")["auc"]
    assert auc["random"] == pytest.approx(0.9) and auc["kmeans"] == pytest.approx(0.95)
    shares = pool_shares(trials, {"spearman": 0.9}).set_index(["strategy", "k"])
    assert shares.loc[("random", 2), "share"] == 0.5 and shares.loc[("random", 2), "n_trials"] == 1
    band = curves(trials).set_index(["strategy", "k"])
    assert band.loc[("random", 2), "n_trials"] == 1 and band.loc[("random", 2), "mean"] == pytest.approx(0.9)
    assert band.loc[("random", 2), "lo"] == pytest.approx(0.805)  # the band spans the draws
    with pytest.raises(ValueError, match="different numbers of draws"):
        curves(pd.concat([trials, trials.iloc[[0]].assign(trial=1)]))


def test_pools_are_shared_by_strategies_and_runs_are_deterministic():
    ranks = _ranks(np.random.default_rng(3), n=20, m=6)
    X = np.random.default_rng(4).standard_normal((20, 4))
    a = dataset_pool_trials(ranks, X, "kmeans", [2, 4], 4, 0.5, seed=9, options={"n_init": 2})
    b = dataset_pool_trials(ranks, X, "kmeans", [2, 4], 4, 0.5, seed=9, options={"n_init": 2})
    pd.testing.assert_frame_equal(a, b)
    # With k = pool size every strategy selects the whole pool: equal values prove equal pools.
    full = [dataset_pool_trials(ranks, X, s, [10], 4, 0.5, seed=9) for s in ("random", "d_optimal")]
    pd.testing.assert_frame_equal(full[0].query("draw == 0").drop(columns="draw").reset_index(drop=True), full[1])


def test_k_larger_than_the_pool_is_rejected():
    ranks = _ranks(np.random.default_rng(5), n=10)
    with pytest.raises(ValueError, match="k=9 is outside 1..8"):
        dataset_pool_trials(ranks, np.zeros((10, 1)), "random", [2, 9], 1, 0.8, seed=0)


def test_model_pool_reference_is_the_full_ranking_of_the_sampled_models():
    rng = np.random.default_rng(6)
    scores = rng.random((8, 3, 6))
    trials = model_pool_trials(scores, True, np.zeros((8, 1)), "random", [8], 2, 0.5, seed=1)
    # k = all datasets: the subset ranking is the reference, whatever the model pool.
    assert (trials[trials.metric == "mae"].value == 0).all()
    assert set(trials.trial) == {0, 1}
    models = np.sort(np.random.default_rng([1, 1, 0]).choice(6, 3, replace=False))
    sub = fold_ranks(scores[:, :, models], True).mean(axis=1)
    assert sub.mean(axis=0).sum() == pytest.approx(1 + 2 + 3)


def test_single_full_run_scores_one_selection_against_every_model():
    """The deterministic farthest-first order on all datasets, scored by hand: scipy ranks per (dataset, fold),
    averaged over folds, then the mean over the chosen datasets against the mean over all."""
    rng = np.random.default_rng(11)
    scores, X = rng.random((9, 2, 5)), rng.normal(size=(9, 3))
    run = single_full_run(scores, True, X, "fafi_euclidean", [2, 4], seed=3)
    ranks = np.apply_along_axis(lambda v: rankdata(-v), 2, scores).mean(axis=1)
    chosen = selection_orders("fafi_euclidean", StandardScaler().fit_transform(X), np.arange(9), [2, 4],
                              np.random.default_rng(0))
    for k in (2, 4):
        expected = rank_metrics(ranks[chosen[k]].mean(axis=0), ranks.mean(axis=0))
        got = run[run["k"] == k].set_index("metric")["value"]
        assert got.to_dict() == pytest.approx(expected)
    assert list(run.columns) == ["k", "metric", "value"]


def test_fold_ranks_rank_one_is_best_and_ties_average():
    cube = np.array([[[0.9, 0.5, 0.9]]])
    assert fold_ranks(cube, True).tolist() == [[[1.5, 3.0, 1.5]]]
    assert fold_ranks(cube, False).tolist() == [[[2.5, 1.0, 2.5]]]


def test_score_cube_orders_and_names_missing_cells():
    scores = pd.DataFrame(
        {"dataset": ["a", "a", "b", "b"], "model": ["m1", "m2", "m1", "m2"],
         "fold": [0, 0, 0, 0], "score": [1.0, 2.0, 3.0, 4.0]}
    )
    cube = score_cube(scores, ["b", "a"], ["m2", "m1"])
    assert cube[:, 0, :].tolist() == [[4.0, 3.0], [2.0, 1.0]]
    with pytest.raises(ValueError, match="dataset 'a', fold 0"):
        score_cube(scores.iloc[1:], ["a", "b"], ["m1", "m2"])


def test_standardize_rows_equals_sklearn_standard_scaler_on_the_pool_rows():
    rng = np.random.default_rng(21)
    X = rng.standard_normal((15, 4)) * [1.0, 10.0, 0.1, 3.0] + [0.0, 5.0, -2.0, 1.0]
    X[:, 2] = 7.0  # constant column: StandardScaler maps it to 0
    pool = np.sort(rng.choice(15, 9, replace=False))
    out = standardize_rows(X, pool)
    np.testing.assert_allclose(out[pool], StandardScaler().fit_transform(X[pool]), atol=1e-12)
    rest = np.setdiff1d(np.arange(15), pool)
    np.testing.assert_array_equal(out[rest], X[rest])  # rows outside the pool are left alone
    np.testing.assert_allclose(standardize_rows(X), StandardScaler().fit_transform(X), atol=1e-12)


def test_pool_standardisation_lets_only_pool_rows_shape_the_selection():
    """With standardize="pool" a trial's selection is the strategy run on the pool rows z-scored on
    themselves, so the rows outside the pool cannot move it; with "all" they can."""
    rng = np.random.default_rng(22)
    ranks = _ranks(rng, n=16, m=5)
    X = rng.standard_normal((16, 3))
    X_far = X.copy()
    pool = np.sort(np.random.default_rng([3, 0, 0]).choice(16, 12, replace=False))
    outside = np.setdiff1d(np.arange(16), pool)
    X_far[outside, 0] *= 1000.0  # spread the datasets outside trial 0's pool along one feature
    for strategy in ("fafi_euclidean", "kmeans", "d_optimal"):
        a = dataset_pool_trials(ranks, X, strategy, [3, 5], 1, 0.75, seed=3, standardize="pool")
        b = dataset_pool_trials(ranks, X_far, strategy, [3, 5], 1, 0.75, seed=3, standardize="pool")
        pd.testing.assert_frame_equal(a, b)
        scaled = StandardScaler().fit_transform(X[pool])
        Z = np.zeros_like(X)
        Z[pool] = scaled
        rng_t = np.random.default_rng([3, 0, 0, ["random", "kmeans", "fafi_cosine", "fafi_euclidean",
                                                 "a_optimal", "d_optimal"].index(strategy)])
        chosen = selection_orders(strategy, Z, pool, [3, 5], rng_t)
        for k in (3, 5):
            expected = rank_metrics(ranks[chosen[k]].mean(axis=0), ranks.mean(axis=0))
            got = a[a.k == k].set_index("metric")["value"]
            for metric, value in expected.items():
                assert got[metric] == pytest.approx(value, abs=1e-12)
    moved = [dataset_pool_trials(ranks, Y, "fafi_euclidean", [3, 5], 1, 0.75, seed=3) for Y in (X, X_far)]
    assert not moved[0].equals(moved[1])
    with pytest.raises(ValueError, match="standardize='rows'"):
        dataset_pool_trials(ranks, X, "kmeans", [3], 1, 0.75, seed=3, standardize="rows")


def test_trial_settings_hold_only_what_a_strategy_uses():
    config = {"protocol": {"fafi_start": "farthest", "standardize": "pool"}, "domains": {"nlp": {}}}
    fafi = trial_settings(config, "nlp", "fafi_cosine")
    assert fafi["options"] == {"start": "farthest"} and fafi["standardize"] == "pool"
    assert trial_settings(config, "nlp", "kmeans")["options"] == {"n_init": 3}
    assert trial_settings(config, "nlp", "d_optimal")["options"] == {"lam": 1.0}
    rand = trial_settings(config, "nlp", "random")
    assert rand["options"] == {"subsets": "prefix"} and "standardize" not in rand  # random ignores the representation
    assert rand["random_draws"] == 20 and "random_draws" not in fafi  # only the random baselines draw again
    assert set(fafi) == {"ks", "n_trials", "alpha", "options", "standardize"}


def test_random_subsets_prefix_or_fresh():
    """``subsets='prefix'`` (this project): the k-subsets of a trial are the prefixes of one random order;
    ``'fresh'`` (the paper's code): a new subset per k, drawn from the same generator one after the other, and
    each a uniform k-subset of the pool (every row about equally often over many draws)."""
    from benchdesign.selection import select_random, selection_orders

    X, pool, ks = np.zeros((12, 1)), np.arange(2, 12), [2, 4, 6]
    prefix = selection_orders("random", X, pool, ks, np.random.default_rng(5), {"subsets": "prefix"})
    assert set(prefix[2]) <= set(prefix[4]) <= set(prefix[6]) and prefix[6][:2].tolist() == prefix[2].tolist()
    fresh = selection_orders("random", X, pool, ks, np.random.default_rng(5), {"subsets": "fresh"})
    rng = np.random.default_rng(5)
    by_hand = {k: select_random(X, k, pool, rng) for k in ks}  # the same draws, one after the other
    assert {k: v.tolist() for k, v in fresh.items()} == {k: v.tolist() for k, v in by_hand.items()}
    assert fresh[2].tolist() == prefix[2].tolist()  # the first draw: the same generator state
    assert not set(fresh[4]) <= set(fresh[6]) or fresh[4].tolist() != prefix[4].tolist()
    counts = np.zeros(12)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        for rows in selection_orders("random", X, pool, [3], rng, {"subsets": "fresh"}).values():
            counts[rows] += 1
    assert counts[:2].sum() == 0 and np.abs(counts[2:] / 2000 - 0.3).max() < 0.05
    with pytest.raises(ValueError, match="subsets='nested' must be one of"):
        selection_orders("random", X, pool, ks, np.random.default_rng(0), {"subsets": "nested"})


def test_random_subsets_reach_only_the_random_trials():
    config = {"protocol": {"random_subsets": "fresh"}, "domains": {"nlp": {}}}
    assert trial_settings(config, "nlp", "random")["options"] == {"subsets": "fresh"}
    assert "subsets" not in trial_settings(config, "nlp", "kmeans")["options"]
