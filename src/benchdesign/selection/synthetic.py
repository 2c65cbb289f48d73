"""Synthetic oracle-vs-broken representation benchmark (paper section 6.4, Table 4).

Datasets ``i`` and models ``m`` get latent vectors ``z_i, u_m ~ N(0, I_dlat)``; the latent error is
``e_im = ||z_i - u_m||^2`` and fold scores are ``s_imf = e_im + eps_im + eps_imf`` with
``eps_im ~ N(0, sigma_ds^2)`` and ``eps_imf ~ N(0, sigma_fold^2)``; lower is better.

Deviation, stated: the paper writes the noise as ``eps_i + eps_if`` (no model index).  Noise that is
the same for every model of a dataset cannot change any ranking, which would make ``sigma_ds`` and
``sigma_fold`` inert, so this implementation draws it per model by default (``noise="per_model"``);
``noise="per_dataset"`` is the paper's text (docs/paper-differences.md gives the effect on Table 4).

Representations, with ``A`` a (dlat, drep) Gaussian matrix scaled by ``1/sqrt(dlat)``:
oracle ``x_i = z_i A + eta_i``, ``eta ~ N(0, sigma^2 I)``; broken ``x_i = lam z_i A + xi_i``,
``xi ~ N(0, I)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchdesign.selection.options import RANDOM_DRAWS
from benchdesign.selection.protocol import dataset_pool_trials, fold_ranks

REGIMES = ("oracle", "broken")
NOISE_MODELS = ("per_model", "per_dataset")
"""Who shares a noise draw: each (dataset, model) its own (default), or all models of a dataset (the paper's text)."""


@dataclass(frozen=True)
class SyntheticSettings:
    """Sizes and noise levels of the synthetic benchmark (defaults = the paper's)."""

    n_datasets: int = 112
    n_models: int = 35
    n_folds: int = 30
    d_lat: int = 5
    d_rep: int = 64
    sigma_ds: float = 0.02
    sigma_fold: float = 0.03
    sigma: float = 0.01
    lam: float = 0.15
    noise: str = NOISE_MODELS[0]

    def __post_init__(self):
        if self.noise not in NOISE_MODELS:
            raise ValueError(f"synthetic noise must be one of {NOISE_MODELS}, got {self.noise!r}")


@dataclass(frozen=True)
class SyntheticBenchmark:
    """Score cube (n, F, M; lower is better), per-dataset ranks (n, M) and both representations."""

    scores: np.ndarray
    dataset_ranks: np.ndarray
    representations: dict[str, np.ndarray]


def make_benchmark(settings: SyntheticSettings, rng: np.random.Generator) -> SyntheticBenchmark:
    """Draw one synthetic benchmark (section 6.4) from ``rng``."""
    s = settings
    z = rng.standard_normal((s.n_datasets, s.d_lat))
    u = rng.standard_normal((s.n_models, s.d_lat))
    error = ((z[:, None, :] - u[None, :, :]) ** 2).sum(axis=-1)
    noise_models = s.n_models if s.noise == "per_model" else 1  # per_dataset: one draw shared by every model
    eps_dataset = rng.normal(0.0, s.sigma_ds, (s.n_datasets, 1, noise_models))
    eps_fold = rng.normal(0.0, s.sigma_fold, (s.n_datasets, s.n_folds, noise_models))
    scores = error[:, None, :] + eps_dataset + eps_fold
    projection = rng.standard_normal((s.d_lat, s.d_rep)) / np.sqrt(s.d_lat)
    latent = z @ projection
    oracle = latent + rng.normal(0.0, s.sigma, latent.shape)
    broken = s.lam * latent + rng.standard_normal(latent.shape)
    ranks = fold_ranks(scores, higher_is_better=False).mean(axis=1)
    return SyntheticBenchmark(scores, ranks, {"oracle": oracle, "broken": broken})


def standardize_array(X: np.ndarray) -> np.ndarray:
    """Column z-scores (population sd); constant columns become 0."""
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def seed_trials(
    regime: str,
    strategy: str,
    seed: int,
    settings: SyntheticSettings,
    ks: list[int],
    n_trials: int,
    alpha: float,
    options: dict | None = None,
    random_draws: int = RANDOM_DRAWS,
):
    """Regenerate the benchmark for ``seed`` and run the dataset-pool protocol on one regime (``random_draws``
    subsets per trial for a random baseline, as ``dataset_pool_trials``).

    The benchmark depends on ``seed`` only, so every (regime, strategy) of a seed sees the same
    benchmark and the same trial pools.
    """
    if regime not in REGIMES:
        raise ValueError(f"unknown regime {regime!r}; choose from {REGIMES}")
    bench = make_benchmark(settings, np.random.default_rng([seed, 7]))
    X = standardize_array(bench.representations[regime])
    return dataset_pool_trials(bench.dataset_ranks, X, strategy, ks, n_trials, alpha, seed, options,
                               random_draws=random_draws)


def seeds_note(per_seed) -> str:
    """The line under Table 4 saying over how many seeds each cell is taken (from the per-seed AUC rows)."""
    counts = per_seed.groupby(["regime", "strategy", "metric"])["seed"].nunique()
    if counts.empty:
        raise ValueError("no per-seed AUC rows")
    n = f"{counts.min()}" if counts.min() == counts.max() else f"{counts.min()} to {counts.max()}"
    return f"Mean ± sd (ddof=1) over {n} seeds, each a freshly drawn synthetic benchmark.\n"
