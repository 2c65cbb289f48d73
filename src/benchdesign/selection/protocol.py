"""The rank-preservation evaluation protocol (paper section 5.1).

Stage 1 draws trials: a pool of ``floor(alpha * n)`` datasets (dataset-pool variation) or of
``floor(alpha * M)`` models (model-pool variation), without replacement.  The model-holdout variation
(this project's, not the paper's) draws a dataset pool *and* sets ``floor(holdout_fraction * M)`` models
aside: the selection sees only the other models (the oracle is built from their ranks) and the held-out
models judge it, their ranks recomputed among themselves.  Stage 2 selects ``k``
datasets with one strategy and builds the subset's mean-rank vector ``R_S``.  Stage 3 compares
``R_S`` with the reference ``R_D`` by every metric of ``benchdesign.selection.metrics``.

Random draws are reproducible and *paired* across strategies: the pool of trial ``t`` comes from
``default_rng([seed, variation_code, t])`` whatever the strategy, so trial-wise AUCs of two
strategies can be compared with a paired test; the strategy's own draws (k-means seeding, random
selection) come from ``default_rng([seed, variation_code, t, strategy_code])``.

The random baselines (``RANDOM_BASELINES``: random and stratified random) draw ``random_draws`` subsets per trial
(default ``RANDOM_DRAWS`` = 20), one after the other from that same generator (so the first is the one draw of
``random_draws=1``, the paper's protocol).  Their trial rows carry a ``draw`` column (0 .. random_draws - 1); the
aggregation averages a trial's draws (``frames.trial_means``: trial AUCs, Table 3's paired tests) and counts the
share of its draws that meet a target (the verdicts), so a strategy is compared with random's expectation on the
same pool rather than with one random subset.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchdesign.selection.metrics import METRICS, rank_metrics
from benchdesign.selection.options import (
    HOLDOUT_FRACTION,
    RANDOM_BASELINES,
    RANDOM_DRAWS,
    RANDOM_SUBSET_DRAWS,
    STANDARDIZATIONS,
)
from benchdesign.selection.ranking import average_ranks, mean_ranks
from benchdesign.selection.strategies import PREFIX_ORDERS, STRATEGIES, STRATEGY_REGISTRY

STRATEGY_NAMES = tuple(STRATEGIES)  # order fixes each strategy's seed code: append new strategies at the end
TRIAL_COLUMNS = ["trial", "k", "metric", "value"]
DRAW_COLUMNS = ["trial", "draw", "k", "metric", "value"]
"""Columns of a random baseline's trial rows with several draws per trial."""

def standardize_rows(X: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Copy of ``X`` whose ``rows`` (default: all) are z-scored on those rows' own mean and population
    standard deviation; a column constant on them becomes 0 (as ``sklearn.preprocessing.StandardScaler``).

    The paper's code standardises the pool rows inside every selection (``standardize="pool"``).

    Parameters
    ----------
    X : np.ndarray
        (n, p) features.
    rows : np.ndarray | None
        Rows to standardise, on their own mean and deviation (None: all).

    Returns
    -------
    np.ndarray
        A standardised copy of ``X``.

    Examples
    --------
    Three datasets, two features; the second is constant and becomes 0:

    >>> import numpy as np
    >>> from benchdesign.selection import standardize_rows
    >>> X = np.array([[1.0, 5.0], [3.0, 5.0], [5.0, 5.0]])
    >>> standardize_rows(X).round(3).tolist()  # (x - 3) / sqrt(8 / 3)
    [[-1.225, 0.0], [0.0, 0.0], [1.225, 0.0]]
    >>> standardize_rows(X, np.array([0, 1])).tolist()  # rows 0 and 1 on their own mean 2, sd 1; row 2 kept
    [[-1.0, 0.0], [1.0, 0.0], [5.0, 5.0]]
    """
    X = np.asarray(X, dtype=float)
    Z = X if rows is None else X[rows]
    mean = Z.mean(axis=0)
    sd = Z.std(axis=0, ddof=0)
    scaled = (Z - mean) / np.where(sd > 0, sd, 1.0)
    if rows is None:
        return scaled
    out = X.copy()
    out[rows] = scaled
    return out


def _standardized(strategy: str, X: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """``standardize_rows(X, rows)``, or ``X`` itself for a strategy that reads its representation unstandardised
    (``Strategy.standardized`` False: ``covariance``)."""
    entry = STRATEGY_REGISTRY.get(strategy)
    if entry is not None and not entry.standardized:
        return np.asarray(X, dtype=float)
    return standardize_rows(X, rows)


def strategy_options(strategy: str, options: dict[str, Any] | None) -> dict[str, Any]:
    """The entries of ``options`` that ``strategy`` accepts beyond (X, k, pool, rng)."""
    accepted = STRATEGY_REGISTRY[strategy].options if strategy in STRATEGY_REGISTRY else ()
    return {key: value for key, value in (options or {}).items() if key in accepted}


def _check_standardize(standardize: str) -> str:
    if standardize not in STANDARDIZATIONS:
        raise ValueError(f"standardize={standardize!r} must be one of {STANDARDIZATIONS}")
    return standardize


def n_draws(strategy: str, random_draws: int) -> int:
    """Subsets ``strategy`` draws per trial: ``random_draws`` for a random baseline (``RANDOM_BASELINES``), else 1.

    Parameters
    ----------
    strategy : str
        A strategy name.
    random_draws : int
        Draws per trial of the random baselines, at least 1.

    Returns
    -------
    int
        The number of draws.

    Examples
    --------
    >>> n_draws("random", 20), n_draws("kmeans", 20)
    (20, 1)
    """
    if isinstance(random_draws, bool) or not isinstance(random_draws, (int, np.integer)) or random_draws < 1:
        raise ValueError(f"random_draws={random_draws!r} must be an integer >= 1")
    return int(random_draws) if strategy in RANDOM_BASELINES else 1


def _trial_frame(rows: list[tuple], draws: int) -> pd.DataFrame:
    """The long trial frame; the ``draw`` column only with several draws per trial."""
    frame = pd.DataFrame(rows, columns=DRAW_COLUMNS)
    return frame if draws > 1 else frame[TRIAL_COLUMNS]


def pool_size(n: int, alpha: float) -> int:
    """Size ``floor(alpha * n)`` of a trial's pool; validates ``alpha`` in (0, 1]."""
    if not 0.0 < alpha <= 1.0:
        raise ValueError(f"alpha={alpha!r} must lie in (0, 1]")
    size = int(np.floor(alpha * n))
    if size < 2:
        raise ValueError(f"alpha={alpha!r} leaves a pool of {size} out of {n}; need at least 2")
    return size


def check_k_grid(ks: Sequence[int], limit: int, what: str) -> list[int]:
    """Validate subset sizes: integers in [1, limit], strictly increasing."""
    ks = [int(k) for k in ks]
    if not ks or any(b <= a for a, b in zip(ks, ks[1:])):
        raise ValueError(f"subset sizes {ks} must be a non-empty increasing list")
    if ks[0] < 1 or ks[-1] > limit:
        raise ValueError(f"k={ks[-1] if ks[-1] > limit else ks[0]} is outside 1..{limit} ({what})")
    return ks


def selection_orders(
    strategy: str,
    X: np.ndarray,
    pool: np.ndarray,
    ks: Sequence[int],
    rng: np.random.Generator,
    options: dict[str, Any] | None = None,
) -> dict[int, np.ndarray]:
    """Selected row indices for every k; prefix strategies are computed once for ``max(ks)``.

    Parameters
    ----------
    strategy : str
        A registry name of ``benchdesign.selection.strategies``.
    X : np.ndarray
        (n, p) standardised features.
    pool : np.ndarray
        Row indices to choose from.
    ks : Sequence[int]
        Subset sizes.
    rng : np.random.Generator
        Randomness of the strategy.
    options : dict[str, Any] | None
        Strategy options (``n_init`` for k-means, ``start`` for farthest-first, ``lam`` for A-/D-optimal design,
        ``subsets`` for random: ``'prefix'``, the first k of one order, or ``'fresh'``, a new subset per k).

    Returns
    -------
    dict[int, np.ndarray]
        k -> the k selected row indices.

    Examples
    --------
    Five datasets on a line; farthest-first from the farthest row picks the ends first, once for every k:

    >>> import numpy as np
    >>> from benchdesign.selection import selection_orders
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    >>> orders = selection_orders("fafi_euclidean", X, np.arange(5), [1, 2, 3], np.random.default_rng(0),
    ...                           {"start": "farthest"})
    >>> {k: rows.tolist() for k, rows in orders.items()}
    {1: [0], 2: [0, 4], 3: [0, 4, 2]}
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose from {sorted(STRATEGIES)}")
    kwargs = strategy_options(strategy, options)
    if kwargs.get("subsets", RANDOM_SUBSET_DRAWS[0]) not in RANDOM_SUBSET_DRAWS:
        raise ValueError(f"subsets={kwargs['subsets']!r} must be one of {RANDOM_SUBSET_DRAWS}")
    if kwargs.get("subsets") == "fresh":  # the paper's code: a new random subset for every k
        return {k: STRATEGIES[strategy](X, k, pool, rng, **kwargs) for k in ks}
    if strategy in PREFIX_ORDERS:
        order = PREFIX_ORDERS[strategy](X, pool, max(ks), rng, **kwargs)
        return {k: order[:k] for k in ks}
    return {k: STRATEGIES[strategy](X, k, pool, rng, **kwargs) for k in ks}


def _rows(trial: int, k: int, values: dict[str, float], draw: int = 0) -> list[tuple]:
    return [(trial, draw, k, metric, float(values[metric])) for metric in METRICS]


def dataset_pool_trials(
    dataset_ranks: np.ndarray,
    X: np.ndarray,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    options: dict[str, Any] | None = None,
    standardize: str = "all",
    random_draws: int = RANDOM_DRAWS,
) -> pd.DataFrame:
    """Dataset-pool variation: select from a random pool, compare with ``R_D`` over all datasets.

    Parameters
    ----------
    dataset_ranks : np.ndarray
        (n, M) per-dataset mean ranks (1 = best).
    X : np.ndarray
        (n, p) raw representation (ignored by ``random``), z-scored by [`standardize_rows`][].
    strategy : str
        A registry name of ``benchdesign.selection.strategies``.
    ks : Sequence[int]
        Subset sizes.
    n_trials : int
        Number of trials (random pools).
    alpha : float
        Share of the datasets in each trial's pool.
    seed : int
        Seed of every random draw.
    options : dict[str, Any] | None
        Strategy options (``n_init`` for k-means, ``start`` for farthest-first, ``lam`` for A-/D-optimal design).
    standardize : str
        ``'all'``: z-score over all datasets once; ``'pool'``: over each trial's pool rows.
    random_draws : int
        Subsets a random baseline (``RANDOM_BASELINES``) draws per trial ([`n_draws`][]).

    Returns
    -------
    pd.DataFrame
        Long frame with columns ``trial, k, metric, value`` (and ``draw`` after ``trial`` for a random
        baseline with ``random_draws > 1``).

    Examples
    --------
    Four datasets, three models; with every dataset in the pool (``alpha=1``) the subset of k = 4 is the whole
    benchmark, so ``R_S = R_D``:

    >>> import numpy as np
    >>> from benchdesign.selection import dataset_pool_trials
    >>> ranks = np.array([[1.0, 2.0, 3.0], [1.0, 3.0, 2.0], [2.0, 1.0, 3.0], [1.0, 2.0, 3.0]])  # R_D = 1.25, 2, 2.75
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])  # one feature per dataset
    >>> trials = dataset_pool_trials(ranks, X, "fafi_euclidean", [1, 4], n_trials=1, alpha=1.0, seed=0)
    >>> trials[trials["metric"].isin(["mae", "spearman"])].round(3)
       trial  k    metric  value
    0      0  1       mae  0.667
    1      0  1  spearman  0.500
    6      0  4       mae  0.000
    7      0  4  spearman  1.000

    At k = 1 the row nearest the mean (dataset 1, ranks 1, 3, 2) is chosen: MAE (0.25 + 1 + 0.75) / 3.
    """
    ranks = np.asarray(dataset_ranks, dtype=float)
    if np.shape(X)[0] != ranks.shape[0]:
        raise ValueError(f"X has {np.shape(X)[0]} rows but dataset_ranks has {ranks.shape[0]}")
    reference = mean_ranks(ranks)
    rows: list[tuple] = []
    draws = n_draws(strategy, random_draws)
    for trial, _, by_draw in dataset_pool_draws(X, strategy, ks, n_trials, alpha, seed, options, standardize,
                                                draws):
        for draw, subsets in enumerate(by_draw):
            for k, chosen in subsets.items():
                rows += _rows(trial, k, rank_metrics(mean_ranks(ranks, chosen), reference), draw)
    return _trial_frame(rows, draws)


def _draw_orders(strategy: str, X: np.ndarray, pool: np.ndarray, ks: Sequence[int], rng: np.random.Generator,
                 options: dict[str, Any] | None, draws: int) -> list[dict[int, np.ndarray]]:
    """``draws`` selections one after the other from ``rng`` (the first is the single draw of ``draws=1``)."""
    return [selection_orders(strategy, X, pool, ks, rng, options) for _ in range(draws)]


def dataset_pool_draws(
    X: np.ndarray,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    options: dict[str, Any] | None = None,
    standardize: str = "all",
    draws: int = 1,
) -> Iterator[tuple[int, np.ndarray, list[dict[int, np.ndarray]]]]:
    """The selections of the dataset-pool variation, trial by trial: ``(trial, pool, [{k: rows} per draw])``, with
    ``draws`` draws per trial (pass [`n_draws`][] of the strategy: 1 for a deterministic one).

    Same draws as [`dataset_pool_trials`][] (which scores them).
    """
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    size = pool_size(n, alpha)
    ks = check_k_grid(ks, size, f"pool of {size} datasets")
    code = STRATEGY_NAMES.index(strategy) if strategy in STRATEGY_NAMES else len(STRATEGY_NAMES)
    per_pool = _check_standardize(standardize) == "pool"
    X_all = None if per_pool else _standardized(strategy, X)
    for trial in range(n_trials):
        pool = np.sort(np.random.default_rng([seed, 0, trial]).choice(n, size, replace=False))
        rng = np.random.default_rng([seed, 0, trial, code])
        X_trial = _standardized(strategy, X, pool) if per_pool else X_all
        yield trial, pool, _draw_orders(strategy, X_trial, pool, ks, rng, options, draws)


def dataset_pool_subsets(
    X: np.ndarray,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    options: dict[str, Any] | None = None,
    standardize: str = "all",
) -> Iterator[tuple[int, np.ndarray, dict[int, np.ndarray]]]:
    """The selections of the dataset-pool variation, trial by trial: ``(trial, pool, {k: rows})``.

    The first draw of [`dataset_pool_draws`][] (a random baseline's first subset), for analyses that need the
    chosen datasets themselves (covering radius, conclusion stability).
    """
    for trial, pool, by_draw in dataset_pool_draws(X, strategy, ks, n_trials, alpha, seed, options, standardize):
        yield trial, pool, by_draw[0]


def fold_ranks(scores: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Rank models within every (dataset, fold) of an (n, F, M) score cube; 1 = best, ties averaged."""
    signed = -scores if higher_is_better else scores
    return average_ranks(signed, axis=-1)


def model_pool_trials(
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    options: dict[str, Any] | None = None,
    standardize: str = "all",
    random_draws: int = RANDOM_DRAWS,
) -> pd.DataFrame:
    """Model-pool variation: all datasets form the pool, a random ``floor(alpha*M)`` models compete.

    Per-(dataset, fold) ranks are recomputed among the trial's models, so the reference is the
    full-benchmark mean rank of that model pool (``R_D`` restricted to ``M_t``, ranks in
    ``1..|M_t|``) and ``R_S`` is its mean over the selected datasets.

    The other parameters are those of [`dataset_pool_trials`][]; every dataset is in the pool, so both
    ``standardize`` settings z-score over all datasets.

    Parameters
    ----------
    scores : np.ndarray
        (n, F, M) score cube ([`score_cube`][]).
    higher_is_better : bool
        Direction of the scores.
    X : np.ndarray
        (n, p) raw representation (ignored by ``random``).
    strategy : str
        A registry name of ``benchdesign.selection.strategies``.
    ks : Sequence[int]
        Subset sizes.
    n_trials : int
        Number of trials.
    alpha : float
        Share of the models competing in each trial.
    seed : int
        Seed of every random draw.
    options : dict[str, Any] | None
        Strategy options (``n_init`` for k-means, ``start`` for farthest-first, ``lam`` for A-/D-optimal design).
    standardize : str
        ``'all'`` or ``'pool'``; every dataset is in the pool, so both z-score over all datasets.
    random_draws : int
        Subsets a random baseline draws per trial ([`n_draws`][]).

    Returns
    -------
    pd.DataFrame
        Long frame with columns ``trial, k, metric, value`` (and ``draw`` for a random baseline with
        ``random_draws > 1``).

    Examples
    --------
    Four datasets (one fold), four models; each trial lets three of them compete:

    >>> import numpy as np
    >>> from benchdesign.selection import model_pool_trials
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.6], [0.8, 0.9, 0.7, 0.6], [0.9, 0.8, 0.6, 0.7],
    ...                    [0.9, 0.7, 0.8, 0.6]])[:, None, :]  # (4 datasets, 1 fold, 4 models)
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> trials = model_pool_trials(scores, True, X, "fafi_euclidean", [1, 4], n_trials=2, alpha=0.75, seed=0)
    >>> trials[trials["metric"] == "mae"].round(3)  # k = 4, every dataset: R_S = R_D of the trial's models
        trial  k metric  value
    0       0  1    mae  0.167
    6       0  4    mae  0.000
    12      1  1    mae  0.167
    18      1  4    mae  0.000
    """
    _check_standardize(standardize)
    draws = n_draws(strategy, random_draws)
    X = _standardized(strategy, X)
    scores = np.asarray(scores, dtype=float)
    n, _, n_models = scores.shape
    size = pool_size(n_models, alpha)
    ks = check_k_grid(ks, n, f"{n} datasets")
    pool = np.arange(n)
    code = STRATEGY_NAMES.index(strategy) if strategy in STRATEGY_NAMES else len(STRATEGY_NAMES)
    rows: list[tuple] = []
    for trial in range(n_trials):
        models = np.sort(np.random.default_rng([seed, 1, trial]).choice(n_models, size, replace=False))
        ranks = fold_ranks(scores[:, :, models], higher_is_better).mean(axis=1)
        reference = mean_ranks(ranks)
        rng = np.random.default_rng([seed, 1, trial, code])
        for draw, subsets in enumerate(_draw_orders(strategy, X, pool, ks, rng, options, draws)):
            for k, chosen in subsets.items():
                rows += _rows(trial, k, rank_metrics(mean_ranks(ranks, chosen), reference), draw)
    return _trial_frame(rows, draws)


def single_full_run(
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray,
    strategy: str,
    ks: Sequence[int],
    seed: int,
    options: dict[str, Any] | None = None,
    standardize: str = "all",
) -> pd.DataFrame:
    """One run of a strategy on every dataset with every model: the reference the paper compares the model-pool
    variation with ("a single run of the algorithm on the full dataset", Section 6, Evaluation protocol).

    It is one trial of [`model_pool_trials`][] whose model pool holds every model (``alpha = 1``); a random
    baseline draws one subset.

    Parameters
    ----------
    scores : np.ndarray
        (n, F, M) score cube ([`score_cube`][]).
    higher_is_better : bool
        Direction of the scores.
    X : np.ndarray
        (n, p) raw representation (ignored by ``random``).
    strategy : str
        A registry name of ``benchdesign.selection.strategies``.
    ks : Sequence[int]
        Subset sizes.
    seed : int
        Seed of the strategy's random draws (k-means starts, a random baseline's subset).
    options : dict[str, Any] | None
        Strategy options.
    standardize : str
        ``'all'`` or ``'pool'`` (the same here: every dataset is in the pool).

    Returns
    -------
    pd.DataFrame
        Long frame with columns ``k, metric, value``.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.selection import single_full_run
    >>> scores = np.array([[0.9, 0.8, 0.7], [0.8, 0.9, 0.7], [0.9, 0.7, 0.8]])[:, None, :]  # 3 datasets, 3 models
    >>> run = single_full_run(scores, True, np.array([[0.0], [1.0], [2.0]]), "fafi_euclidean", [3], seed=0)
    >>> run[run["metric"] == "mae"]  # k = 3 is every dataset: the full benchmark's ranking
       k metric  value
    0  3    mae    0.0
    """
    trials = model_pool_trials(scores, higher_is_better, X, strategy, ks, n_trials=1, alpha=1.0, seed=seed,
                               options=options, standardize=standardize, random_draws=1)
    return trials.drop(columns="trial").reset_index(drop=True)


def holdout_size(n_models: int, holdout_fraction: float, min_seen: int = 1) -> int:
    """Number ``max(2, floor(holdout_fraction * M))`` of held-out models (a ranking needs 2); at least
    ``min_seen`` models are seen (ValueError naming the counts and the largest fraction that would do)."""
    if not 0.0 < holdout_fraction < 1.0:
        raise ValueError(f"holdout_fraction={holdout_fraction!r} (--holdout-fraction) must lie in (0, 1)")
    size = max(2, int(np.floor(holdout_fraction * n_models)))
    if size > n_models - min_seen:
        fits = n_models - min_seen >= 2
        fix = (f"use at most {(n_models - min_seen) / n_models:.3g}" if fits
               else f"model holdout needs at least {2 + min_seen} models; use --variation dataset_pool")
        raise ValueError(f"holdout_fraction={holdout_fraction!r} (--holdout-fraction) holds out {size} of {n_models} "
                         f"models and leaves {n_models - size} seen; need at least 2 held out and {min_seen} seen: "
                         f"{fix}")
    return size


def model_holdout_subsets(
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray | None,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    holdout_fraction: float = HOLDOUT_FRACTION,
    options: dict[str, Any] | None = None,
    standardize: str = "all",
    with_seen_ranks: bool = False,
) -> Iterator[tuple[int, np.ndarray, np.ndarray, dict[int, np.ndarray]]]:
    """The selections of the model-holdout variation, trial by trial: ``(trial, pool, held_out, {k: rows})``: the
    first draw of [`model_holdout_draws`][] (its parameters), for the covering radius and conclusion stability."""
    for trial, pool, held, by_draw in model_holdout_draws(scores, higher_is_better, X, strategy, ks, n_trials, alpha,
                                                          seed, holdout_fraction, options, standardize,
                                                          with_seen_ranks):
        yield trial, pool, held, by_draw[0]


def model_holdout_draws(
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray | None,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    holdout_fraction: float = HOLDOUT_FRACTION,
    options: dict[str, Any] | None = None,
    standardize: str = "all",
    with_seen_ranks: bool = False,
    draws: int = 1,
) -> Iterator[tuple[int, np.ndarray, np.ndarray, list[dict[int, np.ndarray]]]]:
    """The selections of the model-holdout variation, trial by trial: ``(trial, pool, held_out, [{k: rows} per
    draw])`` with ``draws`` draws per trial (pass [`n_draws`][] of the strategy).

    Trial ``t`` draws, from ``default_rng([seed, 2, t])``, a pool of ``floor(alpha * n)`` datasets and
    ``holdout_size`` held-out models.  ``X=None`` asks for the oracle: the (n, M_seen)
    fold-averaged ranks of the *seen* models, recomputed among them; ``with_seen_ranks`` appends those columns to
    ``X`` (informed, like the oracle: ``classes.selection_class``).  No held-out score reaches a selection.
    """
    _check_standardize(standardize)
    scores = np.asarray(scores, dtype=float)
    n, _, n_models = scores.shape
    size, n_held = pool_size(n, alpha), holdout_size(n_models, holdout_fraction)
    ks = check_k_grid(ks, size, f"pool of {size} datasets")
    code = STRATEGY_NAMES.index(strategy) if strategy in STRATEGY_NAMES else len(STRATEGY_NAMES)
    per_pool = standardize == "pool"
    X_all = None if X is None or with_seen_ranks else _standardized(strategy, X)
    for trial in range(n_trials):
        draw = np.random.default_rng([seed, 2, trial])
        pool = np.sort(draw.choice(n, size, replace=False))
        held = np.sort(draw.choice(n_models, n_held, replace=False))
        if X is None or with_seen_ranks:
            seen = np.setdiff1d(np.arange(n_models), held)
            X_trial = fold_ranks(scores[:, :, seen], higher_is_better).mean(axis=1)
            X_trial = X_trial if X is None else np.hstack([np.asarray(X, dtype=float), X_trial])
            X_trial = _standardized(strategy, X_trial, pool if per_pool else None)
        else:
            X_trial = _standardized(strategy, X, pool) if per_pool else X_all
        rng = np.random.default_rng([seed, 2, trial, code])
        yield trial, pool, held, _draw_orders(strategy, X_trial, pool, ks, rng, options, draws)


def model_holdout_trials(
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray | None,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    holdout_fraction: float = HOLDOUT_FRACTION,
    options: dict[str, Any] | None = None,
    standardize: str = "all",
    with_seen_ranks: bool = False,
    random_draws: int = RANDOM_DRAWS,
) -> pd.DataFrame:
    """Model-holdout variation: select from a random dataset pool seeing only some models, judge on the others.

    Every metric compares ``R_S`` with ``R_D`` of the held-out models: their per-(dataset, fold) ranks
    recomputed among themselves (ranks ``1..|held out|``), averaged over folds, then over the selected
    datasets (``R_S``) or all datasets (``R_D``).  This asks a curator's question: will the subset rank
    models nobody has run yet as the full benchmark would?

    The other parameters are those of [`dataset_pool_trials`][].

    Parameters
    ----------
    scores : np.ndarray
        (n, F, M) score cube ([`score_cube`][]).
    higher_is_better : bool
        Direction of the scores.
    X : np.ndarray | None
        (n, p) raw representation, or None for the oracle built from the seen models' ranks.
    strategy : str
        A registry name of ``benchdesign.selection.strategies``.
    ks : Sequence[int]
        Subset sizes.
    n_trials : int
        Number of trials.
    alpha : float
        Share of the datasets in each trial's pool.
    seed : int
        Seed of every random draw.
    holdout_fraction : float
        Share of the models held out in every trial (``holdout_size``).
    options : dict[str, Any] | None
        Strategy options (``n_init`` for k-means, ``start`` for farthest-first, ``lam`` for A-/D-optimal design).
    standardize : str
        ``'all'``: z-score over all datasets once; ``'pool'``: over each trial's pool rows.
    with_seen_ranks : bool
        Append the seen models' ranks to ``X`` as extra features (see ``model_holdout_draws``).
    random_draws : int
        Subsets a random baseline draws per trial ([`n_draws`][]).

    Returns
    -------
    pd.DataFrame
        Long frame with columns ``trial, k, metric, value`` (and ``draw`` for a random baseline with
        ``random_draws > 1``).

    Examples
    --------
    Four datasets (one fold), four models; each trial holds two models out to judge the selection:

    >>> import numpy as np
    >>> from benchdesign.selection import model_holdout_trials
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.6], [0.8, 0.9, 0.7, 0.6], [0.9, 0.8, 0.6, 0.7],
    ...                    [0.9, 0.7, 0.8, 0.6]])[:, None, :]  # (4 datasets, 1 fold, 4 models)
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> trials = model_holdout_trials(scores, True, X, "fafi_euclidean", [1, 4], n_trials=3, alpha=1.0, seed=0,
    ...                               holdout_fraction=0.5)
    >>> trials[trials["metric"] == "spearman"]
        trial  k    metric  value
    1       0  1  spearman    1.0
    7       0  4  spearman    1.0
    13      1  1  spearman   -1.0
    19      1  4  spearman    1.0
    25      2  1  spearman    1.0
    31      2  4  spearman    1.0

    All four datasets (k = 4) rank the held-out pair as the full benchmark does; one dataset may swap them.
    """
    scores = np.asarray(scores, dtype=float)
    if X is not None and np.shape(X)[0] != scores.shape[0]:
        raise ValueError(f"X has {np.shape(X)[0]} rows but the score cube has {scores.shape[0]} datasets")
    rows: list[tuple] = []
    draws = n_draws(strategy, random_draws)
    for trial, _, held, by_draw in model_holdout_draws(scores, higher_is_better, X, strategy, ks, n_trials, alpha,
                                                       seed, holdout_fraction, options, standardize, with_seen_ranks,
                                                       draws):
        ranks = fold_ranks(scores[:, :, held], higher_is_better).mean(axis=1)
        reference = mean_ranks(ranks)
        for draw, subsets in enumerate(by_draw):
            for k, chosen in subsets.items():
                rows += _rows(trial, k, rank_metrics(mean_ranks(ranks, chosen), reference), draw)
    return _trial_frame(rows, draws)


def score_cube(scores: pd.DataFrame, datasets: Sequence[str], models: Sequence[str]) -> np.ndarray:
    """Long scores frame (dataset, model, fold, score) -> (n, F, M) array in the given orders.

    Parameters
    ----------
    scores : pd.DataFrame
        Long scores (dataset, model, fold, score).
    datasets : Sequence[str]
        Order of the datasets.
    models : Sequence[str]
        Order of the models.

    Returns
    -------
    np.ndarray
        (n, F, M) scores: datasets x folds x models.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection import score_cube
    >>> scores = pd.DataFrame({"dataset": ["d1"] * 4 + ["d2"] * 4, "model": ["a", "b"] * 4,
    ...                        "fold": [0, 0, 1, 1] * 2, "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.6, 0.4, 0.3]})
    >>> cube = score_cube(scores, ["d1", "d2"], ["a", "b"])
    >>> cube.shape, cube[0].tolist()  # d1: fold 0, then fold 1; models a, b
    ((2, 2, 2), [[0.9, 0.8], [0.7, 0.6]])
    """
    folds = sorted(scores["fold"].unique())
    wide = scores.pivot_table(index=["dataset", "fold"], columns="model", values="score", aggfunc="first")
    full = pd.MultiIndex.from_product([list(datasets), folds], names=["dataset", "fold"])
    wide = wide.reindex(index=full, columns=list(models))
    if wide.isna().any().any():
        dataset, fold = wide.index[wide.isna().any(axis=1)][0]
        raise ValueError(f"score cube has no score for dataset {dataset!r}, fold {fold}")
    return wide.to_numpy().reshape(len(datasets), len(folds), len(models))
