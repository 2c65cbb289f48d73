"""The evaluation protocol: pools, pairing across strategies, reference rankings, errors."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from benchdesign.metrics import rank_metrics
from benchdesign.protocol import (
    dataset_pool_trials,
    fold_ranks,
    model_pool_trials,
    pool_size,
    score_cube,
)


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
    ranks = _ranks(np.random.default_rng(2), n=10, m=6)
    X = np.zeros((10, 1))
    trials = dataset_pool_trials(ranks, X, "random", [2, 3], 2, 0.8, seed=11)
    for trial in range(2):
        pool = np.sort(np.random.default_rng([11, 0, trial]).choice(10, 8, replace=False))
        order = np.random.default_rng([11, 0, trial, 0]).permutation(pool)
        for k in (2, 3):
            expected = rank_metrics(ranks[order[:k]].mean(axis=0), ranks.mean(axis=0))
            got = trials[(trials.trial == trial) & (trials.k == k)].set_index("metric")["value"]
            for metric, value in expected.items():
                assert got[metric] == pytest.approx(value, nan_ok=True)


def test_pools_are_shared_by_strategies_and_runs_are_deterministic():
    ranks = _ranks(np.random.default_rng(3), n=20, m=6)
    X = np.random.default_rng(4).standard_normal((20, 4))
    a = dataset_pool_trials(ranks, X, "kmeans", [2, 4], 4, 0.5, seed=9, options={"n_init": 2})
    b = dataset_pool_trials(ranks, X, "kmeans", [2, 4], 4, 0.5, seed=9, options={"n_init": 2})
    pd.testing.assert_frame_equal(a, b)
    # With k = pool size every strategy selects the whole pool: equal values prove equal pools.
    full = [dataset_pool_trials(ranks, X, s, [10], 4, 0.5, seed=9) for s in ("random", "d_optimal")]
    pd.testing.assert_frame_equal(full[0], full[1])


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
