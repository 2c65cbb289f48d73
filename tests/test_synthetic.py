"""Synthetic oracle-vs-broken benchmark (section 6.4)."""

import numpy as np
import pytest
from scipy.stats import spearmanr

from benchdesign.selection.synthetic import SyntheticSettings, make_benchmark, seed_trials

SMALL = SyntheticSettings(n_datasets=30, n_models=8, n_folds=4, d_rep=16)


def test_shapes_and_rank_range():
    bench = make_benchmark(SMALL, np.random.default_rng(0))
    assert bench.scores.shape == (30, 4, 8)
    assert bench.dataset_ranks.shape == (30, 8)
    assert np.allclose(bench.dataset_ranks.sum(axis=1), 8 * 9 / 2)
    assert bench.representations["oracle"].shape == (30, 16)


def test_oracle_distances_follow_the_latent_geometry_and_broken_do_not():
    bench = make_benchmark(SyntheticSettings(), np.random.default_rng(1))
    rank_dist = np.linalg.norm(bench.dataset_ranks[:, None] - bench.dataset_ranks[None], axis=-1)
    iu = np.triu_indices(len(rank_dist), 1)
    corr = {}
    for regime, X in bench.representations.items():
        dist = np.linalg.norm(X[:, None] - X[None], axis=-1)
        corr[regime] = spearmanr(dist[iu], rank_dist[iu]).statistic
    assert corr["oracle"] > 0.5
    assert corr["broken"] < corr["oracle"] - 0.3


def test_seed_trials_are_deterministic_and_validate_the_regime():
    a = seed_trials("oracle", "fafi_cosine", 3, SMALL, [2, 3, 4], 1, 0.8)
    b = seed_trials("oracle", "fafi_cosine", 3, SMALL, [2, 3, 4], 1, 0.8)
    assert a.equals(b)
    with pytest.raises(ValueError, match="unknown regime 'perfect'"):
        seed_trials("perfect", "random", 3, SMALL, [2], 1, 0.8)


def test_per_dataset_noise_is_the_papers_text_and_cannot_move_a_ranking():
    """The paper's eps_i + eps_if, shared by every model of a dataset, leaves each fold's ranks those of the latent
    error alone; the default per-model noise moves some of them."""
    from dataclasses import replace

    from scipy.stats import rankdata

    shared = make_benchmark(replace(SMALL, noise="per_dataset", sigma_ds=0.5, sigma_fold=0.5), np.random.default_rng(4))
    per_model = make_benchmark(replace(SMALL, sigma_ds=0.5, sigma_fold=0.5), np.random.default_rng(4))
    latent_ranks = rankdata(shared.scores[:, 0, :], axis=1)
    assert np.array_equal(shared.dataset_ranks, latent_ranks)  # every fold ranks the models alike
    assert np.ptp(shared.scores - shared.scores[:, :1, :], axis=2).max() < 1e-12  # a fold shifts every model alike
    assert not np.array_equal(per_model.dataset_ranks, rankdata(per_model.scores[:, 0, :], axis=1))


def test_unknown_noise_model_is_refused():
    with pytest.raises(ValueError, match="synthetic noise must be one of .*'per_fold'"):
        SyntheticSettings(noise="per_fold")
