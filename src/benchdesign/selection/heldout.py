"""Held-out designs of the model-holdout protocol: which models a selection sees and which judge it (issue 38).

Every design draws, per trial, a pool of ``floor(alpha * n)`` datasets and one or more *splits* of the M models
into seen (the selection and the estimators see their scores) and judged (their scores judge the selection):

* ``random`` — one split: ``max(2, floor(holdout_fraction * M))`` models drawn at random are judged (the draws of
  ``protocol.model_holdout_trials``: same seed, same pools, same held-out models, same selections);
* ``family`` — one split: whole model *families* (``families``, one label per model) drawn in random order until
  at least ``max(2, floor(holdout_fraction * M))`` models are judged: no judged model has a sibling among the seen;
* ``crossfit`` — the models cut into ``n_folds`` folds (families whole when ``families`` is given); each fold is
  judged in turn while the other folds select, and the judged folds' values are *pooled*: every model is judged
  exactly once, by the selection of the fold it sat out, so ρ is computed over all M models and no selection saw
  the models it is judged on. This is what makes a held-out ρ meaningful on a small pool (RecSys's 9 models: a
  random 30 % is 2 models, whose ρ is ±1).

The judgment (``heldout_trials``): the reference ``R_D`` is the judged models' mean rank over all n datasets,
their per-(dataset, fold) ranks computed among the judged models (all M under cross-fitting). Each model of the
judged set gets one value per reading of its fold's subset: ``rank`` — the paper's ``R_S``, its mean rank (among
the judged models) over the subset — or an estimator of ``selection.estimators`` fitted on the fold's *seen*
models only, its predicted full-benchmark win share from its win shares against the seen models on the subset.
ρ is Spearman's between that vector and ``R_D``.

Random draws come from ``default_rng([seed, code, trial])`` (pool, then the split) with ``code`` 2 for ``random``
(the model-holdout variation's), 4 for ``family``, 5 for ``crossfit``; a strategy's own draws from
``default_rng([seed, code, trial, strategy_code])`` (``random``) or ``default_rng([seed, code, trial,
strategy_code, fold])``. Pools and splits are the same for every strategy, so strategies are compared trial by
trial.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchdesign.selection.estimators import ESTIMATORS, LinearEstimate, _choose, _fit, shares_against, win_shares
from benchdesign.selection.metrics import spearman
from benchdesign.selection.options import (
    CROSSFIT_FOLDS,
    ESTIMATOR_NAMES,
    HELDOUT_DESIGNS,
    HOLDOUT_FRACTION,
    RANDOM_DRAWS,
)
from benchdesign.selection.protocol import (
    STRATEGY_NAMES,
    _check_standardize,
    _draw_orders,
    _standardized,
    check_k_grid,
    fold_ranks,
    holdout_size,
    n_draws,
    pool_size,
)
from benchdesign.selection.ranking import mean_ranks

__all__ = ["READINGS", "heldout_splits", "crossfit_folds", "family_split", "heldout_selections", "heldout_fits", "heldout_trials"]

READINGS: tuple[str, ...] = ("rank", *ESTIMATOR_NAMES)
"""How a subset is read into a model's full-benchmark standing: ``rank`` (the paper's unweighted mean rank
``R_S``) or an estimator (``auto``, ``mean``, ``anchor``, ``ridge``, ``gaussian``)."""
_DESIGN_CODES = {"random": 2, "family": 4, "crossfit": 5}


def _check_families(families: Sequence | None, n_models: int) -> np.ndarray | None:
    if families is None:
        return None
    labels = np.asarray(families, dtype=object)
    if labels.shape != (n_models,):
        raise ValueError(f"families has {labels.size} labels but the score cube has {n_models} models")
    if any(label is None or (isinstance(label, float) and np.isnan(label)) for label in labels):
        raise ValueError("families: every model needs a family label (found an empty one)")
    return labels


def family_split(families: Sequence, n_held: int, rng: np.random.Generator) -> np.ndarray:
    """Judged models of a family hold-out: whole families in random order until at least ``n_held`` models.

    Parameters
    ----------
    families : Sequence
        (M,) family label of every model.
    n_held : int
        The least number of judged models.
    rng : np.random.Generator
        Draws the order of the families.

    Returns
    -------
    np.ndarray
        Sorted indices of the judged models (every family wholly in or out).

    Examples
    --------
    >>> import numpy as np
    >>> labels = ["a", "a", "b", "c", "c", "c"]
    >>> held = family_split(labels, 2, np.random.default_rng(0))  # family c first: 3 models >= 2
    >>> held.tolist(), [labels[i] for i in held]
    ([3, 4, 5], ['c', 'c', 'c'])
    """
    labels = np.asarray(families, dtype=object)
    names = list(dict.fromkeys(labels.tolist()))
    held: list[int] = []
    for position in rng.permutation(len(names)):
        if len(held) >= n_held:
            break
        held += np.flatnonzero(labels == names[position]).tolist()
    if len(held) == labels.size:
        raise ValueError(
            f"family hold-out of at least {n_held} models leaves no model seen: the families are too "
            f"few or too large ({len(names)} families)"
        )
    return np.sort(np.asarray(held, dtype=np.intp))


def crossfit_folds(n_models: int, n_folds: int, rng: np.random.Generator, families: Sequence | None = None) -> list[np.ndarray]:
    """The models cut into ``n_folds`` disjoint folds covering them all, families whole.

    Without families, a random permutation cut into folds of sizes differing by at most one; with families,
    the families in random order, largest first, each to the fold with the fewest models so far.

    Parameters
    ----------
    n_models : int
        Number of models M.
    n_folds : int
        Number of folds, 2 .. M (each fold must leave seen models and judge at least one).
    rng : np.random.Generator
        Draws the permutation.
    families : Sequence | None
        (M,) family label of every model, or None.

    Returns
    -------
    list[np.ndarray]
        ``n_folds`` sorted index arrays.

    Examples
    --------
    >>> import numpy as np
    >>> folds = crossfit_folds(7, 3, np.random.default_rng(0))
    >>> sorted(len(f) for f in folds), sorted(np.concatenate(folds).tolist())
    ([2, 2, 3], [0, 1, 2, 3, 4, 5, 6])
    """
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or not 2 <= n_folds <= n_models:
        raise ValueError(f"n_folds={n_folds!r} (--crossfit-folds) must be an integer in 2..{n_models} (the models)")
    labels = _check_families(families, n_models)
    if labels is None:
        return [np.sort(part) for part in np.array_split(rng.permutation(n_models), n_folds)]
    names = list(dict.fromkeys(labels.tolist()))
    if len(names) < n_folds:
        raise ValueError(f"{len(names)} families cannot fill {n_folds} folds whole; use fewer folds")
    members = [np.flatnonzero(labels == names[i]) for i in rng.permutation(len(names))]
    members.sort(key=len, reverse=True)  # stable: ties keep the random order
    folds: list[list[int]] = [[] for _ in range(n_folds)]
    for group in members:
        min(folds, key=len).extend(group.tolist())
    return [np.sort(np.asarray(fold, dtype=np.intp)) for fold in folds]


def heldout_splits(
    n_models: int,
    design: str,
    rng: np.random.Generator,
    holdout_fraction: float = HOLDOUT_FRACTION,
    n_folds: int = CROSSFIT_FOLDS,
    families: Sequence | None = None,
) -> list[np.ndarray]:
    """The judged sets of one trial's splits (disjoint; the seen models of a split are all the others).

    Parameters
    ----------
    n_models : int
        Number of models M.
    design : str
        ``'random'``, ``'family'`` or ``'crossfit'`` (``options.HELDOUT_DESIGNS``).
    rng : np.random.Generator
        The trial's generator (after it drew the pool).
    holdout_fraction : float
        Share of the models judged (``random``, ``family``).
    n_folds : int
        Folds of ``crossfit``.
    families : Sequence | None
        (M,) family labels (``family`` needs them; ``crossfit`` keeps them whole).

    Returns
    -------
    list[np.ndarray]
        One sorted index array per split.

    Examples
    --------
    >>> import numpy as np
    >>> [len(s) for s in heldout_splits(10, "random", np.random.default_rng(0))]
    [3]
    """
    if design not in HELDOUT_DESIGNS:
        raise ValueError(f"design={design!r} must be one of {HELDOUT_DESIGNS}")
    if design == "crossfit":
        return crossfit_folds(n_models, n_folds, rng, families)
    n_held = holdout_size(n_models, holdout_fraction)
    if design == "random":
        return [np.sort(rng.choice(n_models, n_held, replace=False))]
    labels = _check_families(families, n_models)
    if labels is None:
        raise ValueError("design='family' needs a family label per model (families=...)")
    return [family_split(labels, n_held, rng)]


def _seen_features(
    strategy: str,
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray | None,
    seen: np.ndarray,
    pool: np.ndarray,
    per_pool: bool,
    with_seen_ranks: bool,
) -> np.ndarray:
    """The selection's features for one split: ``X``, the seen models' ranks (``X=None``: the oracle), or both;
    standardised unless ``strategy`` reads them raw (``Strategy.standardized``)."""
    if X is not None and not with_seen_ranks:
        return _standardized(strategy, X, pool if per_pool else None)
    ranks = fold_ranks(scores[:, :, seen], higher_is_better).mean(axis=1)
    features = ranks if X is None else np.hstack([np.asarray(X, dtype=float), ranks])
    return _standardized(strategy, features, pool if per_pool else None)


def heldout_selections(
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray | None,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    design: str = "random",
    holdout_fraction: float = HOLDOUT_FRACTION,
    n_folds: int = CROSSFIT_FOLDS,
    families: Sequence | None = None,
    options: dict[str, Any] | None = None,
    standardize: str = "all",
    with_seen_ranks: bool = False,
    draws: int = 1,
) -> Iterator[tuple[int, np.ndarray, list[tuple[np.ndarray, list[dict[int, np.ndarray]]]]]]:
    """The selections of a held-out design, trial by trial: ``(trial, pool, [(judged, [{k: rows} per draw]) per
    split])``; each split's selection sees only the scores of the models outside ``judged``.

    Parameters
    ----------
    scores : np.ndarray
        (n, F, M) score cube (``protocol.score_cube``).
    higher_is_better : bool
        Direction of the scores.
    X : np.ndarray | None
        (n, p) raw representation, or None for the oracle of each split's seen models.
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
    design : str
        ``'random'``, ``'family'`` or ``'crossfit'``.
    holdout_fraction : float
        Share of the models judged (``random``, ``family``).
    n_folds : int
        Folds of ``crossfit``.
    families : Sequence | None
        (M,) family label of every model.
    options : dict[str, Any] | None
        Strategy options.
    standardize : str
        ``'all'`` or ``'pool'``.
    with_seen_ranks : bool
        Append the seen models' ranks to ``X`` (informed).
    draws : int
        Selections per split (``protocol.n_draws`` of the strategy).

    Yields
    ------
    tuple
        ``(trial, pool, [(judged, [{k: rows} per draw]) per split])``.
    """
    _check_standardize(standardize)
    scores = np.asarray(scores, dtype=float)
    n, _, n_models = scores.shape
    if X is not None and np.shape(X)[0] != n:
        raise ValueError(f"X has {np.shape(X)[0]} rows but the score cube has {n} datasets")
    size = pool_size(n, alpha)
    ks = check_k_grid(ks, size, f"pool of {size} datasets")
    design_code = _DESIGN_CODES.get(design)
    if design_code is None:
        raise ValueError(f"design={design!r} must be one of {HELDOUT_DESIGNS}")
    code = STRATEGY_NAMES.index(strategy) if strategy in STRATEGY_NAMES else len(STRATEGY_NAMES)
    per_pool = standardize == "pool"
    for trial in range(n_trials):
        draw = np.random.default_rng([seed, design_code, trial])
        pool = np.sort(draw.choice(n, size, replace=False))
        splits = heldout_splits(n_models, design, draw, holdout_fraction, n_folds, families)
        out = []
        for fold, judged in enumerate(splits):
            seen = np.setdiff1d(np.arange(n_models), judged)
            features = _seen_features(strategy, scores, higher_is_better, X, seen, pool, per_pool, with_seen_ranks)
            key = [seed, design_code, trial, code] + ([] if design == "random" else [fold])
            rng = np.random.default_rng(key)
            out.append((judged, _draw_orders(strategy, features, pool, ks, rng, options, draws)))
        yield trial, pool, out


def _fit_readings(values: np.ndarray, subset: np.ndarray, readings: Sequence[str]) -> dict[str, LinearEstimate]:
    """The estimators of ``readings`` fitted on the seen models' (M_seen, n) win shares (``auto``: the one with
    the least leave-one-model-out error, its name in ``params['chosen']``)."""
    named = [e for e in ESTIMATORS if e in readings]
    fits = {e: _fit(e, values, subset) for e in named}
    if "auto" in readings:
        chosen, _ = _choose(list(ESTIMATORS), values, subset)
        auto = fits[chosen] if chosen in fits else _fit(chosen, values, subset)
        fits["auto"] = LinearEstimate(auto.weights, auto.intercept, {**auto.params, "chosen": chosen})
    return fits


def heldout_fits(
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray | None,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    readings: Sequence[str] = READINGS,
    draws: int = 1,
    **design: Any,
) -> Iterator[tuple[int, int, np.ndarray, int, int, np.ndarray, dict[str, LinearEstimate]]]:
    """The estimators of every split, fitted on its seen models only: ``(trial, split, judged, draw, k, subset,
    {estimator: fit})`` (``rank`` fits nothing and is left out).

    Parameters
    ----------
    scores, higher_is_better, X, strategy, ks, n_trials, alpha, seed
        As in [`heldout_selections`][].
    readings : Sequence[str]
        Of ``READINGS``.
    draws : int
        Selections per split.
    **design
        The keyword arguments of [`heldout_selections`][] (``design``, ``holdout_fraction``, ``n_folds``,
        ``families``, ``options``, ``standardize``, ``with_seen_ranks``).

    Yields
    ------
    tuple
        ``(trial, split, judged, draw, k, subset, fits)``.
    """
    unknown = [r for r in readings if r not in READINGS]
    if unknown:
        raise ValueError(f"unknown reading(s) {unknown}; choose from {list(READINGS)}")
    cube = np.asarray(scores, dtype=float)
    mean_scores = cube.mean(axis=1)
    for trial, _, splits in heldout_selections(
        cube, higher_is_better, X, strategy, ks, n_trials, alpha, seed, draws=draws, **design
    ):
        for index, (judged, by_draw) in enumerate(splits):
            seen = np.setdiff1d(np.arange(cube.shape[2]), judged)
            values = win_shares(mean_scores[:, seen], higher_is_better)
            for d, subsets in enumerate(by_draw):
                for k, subset in subsets.items():
                    subset = np.asarray(subset, dtype=np.intp)
                    yield trial, index, judged, d, k, subset, _fit_readings(values, subset, readings)


def heldout_trials(
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray | None,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    readings: Sequence[str] = READINGS,
    random_draws: int = RANDOM_DRAWS,
    estimator_draws: int | None = None,
    **design: Any,
) -> pd.DataFrame:
    """Held-out Spearman ρ of a strategy under a held-out design, for every reading of its subsets.

    Per trial, draw and k, the judged models of every split (pooled over the splits) get a value per reading
    (module docstring) and ρ is Spearman's between it and their full-benchmark mean rank ``R_D`` among the
    judged models. Under the ``random`` design the ``rank`` reading is the held-out ρ of
    ``protocol.model_holdout_trials`` (same draws).

    Parameters
    ----------
    scores : np.ndarray
        (n, F, M) score cube.
    higher_is_better : bool
        Direction of the scores.
    X : np.ndarray | None
        (n, p) raw representation, or None for the oracle of the seen models.
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
    readings : Sequence[str]
        Of ``READINGS``.
    random_draws : int
        Subsets a random baseline draws per split (``protocol.n_draws``).
    estimator_draws : int | None
        Read only the first ``estimator_draws`` draws by the estimators (None: all); ``rank`` reads every draw.
        The estimators' fits (``auto``'s leave-one-model-out choice above all) cost far more than a selection.
    **design
        ``design`` (``'random'``, ``'family'``, ``'crossfit'``), ``holdout_fraction``, ``n_folds``, ``families``,
        ``options``, ``standardize``, ``with_seen_ranks`` (as in [`heldout_selections`][]).

    Returns
    -------
    pd.DataFrame
        Columns ``trial, draw, k, reading, rho, n_judged``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> cube = np.linspace(0, 1, 9)[None, None, :] + 0.3 * rng.normal(size=(20, 1, 9))
    >>> frame = heldout_trials(cube, True, None, "kmeans", [4], 2, 0.8, 0, readings=["rank", "mean"],
    ...                        design="crossfit", n_folds=3)
    >>> sorted(frame["reading"].unique()), frame["n_judged"].unique().tolist()
    (['mean', 'rank'], [9])
    """
    unknown = [r for r in readings if r not in READINGS]
    if unknown:
        raise ValueError(f"unknown reading(s) {unknown}; choose from {list(READINGS)}")
    cube = np.asarray(scores, dtype=float)
    draws = n_draws(strategy, random_draws)
    fitted = [r for r in readings if r != "rank"]
    mean_scores = cube.mean(axis=1)
    rows = []
    for trial, _, splits in heldout_selections(
        cube, higher_is_better, X, strategy, ks, n_trials, alpha, seed, draws=draws, **design
    ):
        judged = np.sort(np.concatenate([j for j, _ in splits]))
        ranks = fold_ranks(cube[:, :, judged], higher_is_better).mean(axis=1)  # (n, |judged|)
        reference = mean_ranks(ranks)
        where = {model: i for i, model in enumerate(judged)}
        for d in range(draws):
            read = fitted if estimator_draws is None or d < estimator_draws else []
            names = [r for r in readings if r == "rank" or r in read]
            values = {(k, r): np.empty(judged.size) for k in splits[0][1][d] for r in names}
            for members, by_draw in splits:
                at = [where[m] for m in members]
                seen = np.setdiff1d(np.arange(cube.shape[2]), members)
                shares = win_shares(mean_scores[:, seen], higher_is_better) if read else None
                new = shares_against(mean_scores[:, seen], mean_scores[:, members], higher_is_better)
                for k, subset in by_draw[d].items():
                    subset = np.asarray(subset, dtype=np.intp)
                    if "rank" in names:
                        values[k, "rank"][at] = mean_ranks(ranks, subset)[at]
                    fits = _fit_readings(shares, subset, read) if read else {}
                    for name, fit in fits.items():
                        values[k, name][at] = -fit.predict(new[:, subset])
            rows += [(trial, d, k, r, spearman(v, reference), judged.size) for (k, r), v in values.items()]
    return pd.DataFrame(rows, columns=["trial", "draw", "k", "reading", "rho", "n_judged"])
