"""Estimators from a subset of the datasets to the full benchmark, fitted on the models already run.

A curator runs a new model on the k chosen datasets and asks where it ranks on the whole benchmark. Every
estimator here answers from the scores of the models already run (the *seen* models) and nothing else.

**Scale: win shares.** On a dataset (scores averaged over folds), a model's *win share* is the share of the
seen models it beats, a tie counting half: a seen model against the other seen models, a new model against all
of them. A seen model's full-benchmark value ``y`` (its mean win share over all n datasets) is
``(M - R_D) / (M - 1)`` for its mean rank ``R_D`` among the M seen models, so ``y`` orders the seen models as
the full benchmark's mean rank does; a new model's ``y`` is the share of the seen models it beats on a dataset
of the benchmark, on average. Where the new model ranks is its *slot* among the seen models: 1 + the number of
seen models whose ``y`` is larger (+ half the ties), from 1 (ahead of all) to M + 1 (behind all).

**The estimators** (``ESTIMATORS``), each linear in the subset's win shares ``x_S``, ``y_hat = intercept +
weights . x_S``, each fitted on the (M, n) win shares of the seen models:

* ``mean``: weights 1/k, the paper's unweighted mean rank on the subset;
* ``anchor``: every dataset of the benchmark goes to the nearest chosen dataset by the seen models' win-share
  profile, and a chosen dataset weighs the share of the benchmark's datasets it stands for (Anchor Points);
* ``ridge``: ridge regression of ``y`` on ``x_S`` (intercept unpenalised), its penalty chosen from
  ``RIDGE_ALPHAS`` by leave-one-model-out error on the seen models;
* ``gaussian``: the seen models' win-share vectors as draws of one Gaussian (their mean, Ledoit-Wolf
  covariance); the chosen datasets keep their observed values, every other dataset gets its conditional mean
  given them, and ``y_hat`` is the mean over all n datasets (the split of observed and predicted items of
  tinyBenchmarks' p-IRT / gp-IRT, with a Gaussian in place of the IRT model).

``auto`` ([`fit_subset_estimator`][]) takes the one with the least leave-one-model-out error on the seen models.

**Interval** (jackknife): the leave-one-model-out residuals ``y_j - y_hat_(-j)`` of the seen models give
``y_hat +- q``, q the ceil((M + 1) * level)-th smallest absolute residual (the whole range [0, 1] when that
exceeds M); the rank interval is the slots of its ends. The residuals are those of refits on M - 1 models with
the win shares computed once among all M.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from benchdesign.selection.options import ESTIMATOR_DEFAULT, ESTIMATOR_LEVEL, ESTIMATOR_NAMES, HOLDOUT_FRACTION
from benchdesign.selection.ranking import average_ranks, rank_scores, with_fold

__all__ = [
    "ESTIMATORS", "RIDGE_ALPHAS", "LinearEstimate", "SubsetEstimator", "win_shares", "shares_against",
    "fit_mean", "fit_anchor", "fit_ridge", "fit_gaussian", "loo_residuals", "slots", "fit_subset_estimator",
    "predict_full_rank", "estimator_holdout_fits", "estimator_holdout_trials",
]

RIDGE_ALPHAS: tuple[float, ...] = tuple(float(a) for a in np.logspace(-4, 2, 13))
"""Penalties the ``ridge`` estimator chooses from by leave-one-model-out error (1e-4 to 100, 13 steps)."""


# ------------------------------------------------------------------------------------ win shares

def win_shares(scores: ArrayLike, higher_is_better: bool) -> NDArray[np.float64]:
    """Win shares of M models among themselves: on every dataset, the share of the other models each beats.

    Parameters
    ----------
    scores : ArrayLike
        (n, M) scores, datasets x models (averaged over folds), at least 2 models.
    higher_is_better : bool
        Whether a higher score is a better model.

    Returns
    -------
    NDArray[np.float64]
        (M, n) models x datasets, in [0, 1]: (M - rank) / (M - 1) with rank 1 = best, ties averaged.

    Examples
    --------
    >>> win_shares([[0.9, 0.5, 0.7], [0.1, 0.1, 0.3]], higher_is_better=True).tolist()
    [[1.0, 0.25], [0.0, 0.25], [0.5, 1.0]]
    """
    S = np.asarray(scores, dtype=float)
    if S.ndim != 2 or S.shape[1] < 2:
        raise ValueError(f"scores must be (n_datasets, n_models >= 2), got shape {S.shape}")
    if not np.isfinite(S).all():
        raise ValueError(f"scores has a non-finite value at (dataset, model) {tuple(np.argwhere(~np.isfinite(S))[0])}")
    M = S.shape[1]
    ranks = average_ranks(-S if higher_is_better else S, axis=1)
    return ((M - ranks) / (M - 1)).T


def shares_against(reference: ArrayLike, new: ArrayLike, higher_is_better: bool) -> NDArray[np.float64]:
    """Win shares of new models against the seen ones: on every dataset, the share of the seen models each beats.

    Parameters
    ----------
    reference : ArrayLike
        (n, M) scores of the seen models, datasets x models.
    new : ArrayLike
        (n, m) scores of the new models on the same datasets.
    higher_is_better : bool
        Whether a higher score is a better model.

    Returns
    -------
    NDArray[np.float64]
        (m, n) in [0, 1], a tie counting half.

    Examples
    --------
    >>> shares_against([[0.9, 0.5], [0.1, 0.3]], [[0.7], [0.3]], higher_is_better=True).tolist()
    [[0.5, 0.75]]
    """
    R, N = np.asarray(reference, dtype=float), np.asarray(new, dtype=float)
    if R.ndim != 2 or N.ndim != 2 or R.shape[0] != N.shape[0]:
        raise ValueError(f"reference (n, M) and new (n, m) need the same datasets, got shapes {R.shape} and {N.shape}")
    if not np.isfinite(N).all():
        raise ValueError(f"new has a non-finite score at (dataset, model) {tuple(np.argwhere(~np.isfinite(N))[0])}")
    if higher_is_better:
        R, N = -R, -N
    beaten = (N[:, :, None] < R[:, None, :]).sum(axis=2) + 0.5 * (N[:, :, None] == R[:, None, :]).sum(axis=2)
    return (beaten / R.shape[1]).T


def slots(full: ArrayLike, values: ArrayLike) -> NDArray[np.float64]:
    """Where values rank among the seen models' full-benchmark values: 1 + how many are larger + half the ties.

    Parameters
    ----------
    full : ArrayLike
        (M,) the seen models' full-benchmark win shares.
    values : ArrayLike
        (m,) win shares of new models (true or predicted).

    Returns
    -------
    NDArray[np.float64]
        (m,) slots from 1 (ahead of every seen model) to M + 1 (behind all).

    Examples
    --------
    >>> slots([0.9, 0.5, 0.2], [1.0, 0.5, 0.3, 0.0]).tolist()
    [1.0, 2.5, 3.0, 4.0]
    """
    y, v = np.asarray(full, dtype=float), np.asarray(values, dtype=float)
    return 1.0 + (y[None, :] > v[:, None]).sum(axis=1) + 0.5 * (y[None, :] == v[:, None]).sum(axis=1)


# ------------------------------------------------------------------------------------ estimators

@dataclass(frozen=True)
class LinearEstimate:
    """A fitted estimator: ``y_hat = intercept + weights . x_S`` for the win shares ``x_S`` on the subset.

    Parameters
    ----------
    weights : NDArray[np.float64]
        (k,) one weight per chosen dataset, in subset order.
    intercept : float
        The constant term.
    params : dict[str, Any]
        What the fit chose (``alpha`` of ridge, ``shrinkage`` of the Gaussian, ``counts`` of anchor weights).

    Examples
    --------
    >>> LinearEstimate(np.array([0.5, 0.5]), 0.0).predict([[1.0, 0.0], [0.2, 0.4]]).tolist()
    [0.5, 0.30000000000000004]
    """

    weights: NDArray[np.float64]
    intercept: float
    params: dict[str, Any] = field(default_factory=dict)

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Predicted full-benchmark win shares of the (m, k) subset win shares ``X``.

        Parameters
        ----------
        X : ArrayLike
            (m, k) win shares of m models on the chosen datasets, in subset order.

        Returns
        -------
        NDArray[np.float64]
            (m,) predictions.
        """
        return self.intercept + np.asarray(X, dtype=float) @ self.weights


def _check(values: ArrayLike, subset: ArrayLike, min_models: int = 1) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    V = np.asarray(values, dtype=float)
    if V.ndim != 2 or V.shape[0] < min_models or V.shape[1] < 1:
        raise ValueError(f"values must be (n_models >= {min_models}, n_datasets >= 1), got shape {V.shape}")
    if not np.isfinite(V).all():
        raise ValueError(f"values has a non-finite entry at (model, dataset) {tuple(np.argwhere(~np.isfinite(V))[0])}")
    S = np.asarray(subset)
    if S.ndim != 1 or S.size == 0 or not np.issubdtype(S.dtype, np.integer):
        raise ValueError(f"subset must be a non-empty 1-D array of dataset positions, got {subset!r}")
    if S.min() < 0 or S.max() >= V.shape[1]:
        raise ValueError(f"subset has position {S[(S < 0) | (S >= V.shape[1])][0]} outside 0..{V.shape[1] - 1}")
    if len(np.unique(S)) != S.size:
        raise ValueError(f"subset lists a dataset twice: {S.tolist()}")
    return V, S.astype(np.intp)


def fit_mean(values: ArrayLike, subset: ArrayLike) -> LinearEstimate:
    """The paper's estimator: the unweighted mean over the chosen datasets (nothing is fitted).

    Parameters
    ----------
    values : ArrayLike
        (M, n) win shares of the seen models on every dataset of the benchmark.
    subset : ArrayLike
        (k,) positions of the chosen datasets.

    Returns
    -------
    LinearEstimate
        Weights 1/k, intercept 0.

    Examples
    --------
    >>> fit_mean([[0.0, 0.1, 1.0], [1.0, 0.9, 0.0]], [0, 2]).weights.tolist()
    [0.5, 0.5]
    """
    _, S = _check(values, subset)
    return LinearEstimate(np.full(S.size, 1.0 / S.size), 0.0)


def fit_anchor(values: ArrayLike, subset: ArrayLike) -> LinearEstimate:
    """Anchor weights: each chosen dataset weighs the share of the benchmark's datasets it stands for.

    Every dataset goes to the chosen dataset nearest to it (Euclidean distance between the seen models'
    win-share profiles, the columns of ``values``; a tie to the first in subset order); a chosen dataset stands
    for itself. As in Anchor Points (Vivek et al., 2024), the weight is the cluster's size over n.

    Parameters
    ----------
    values : ArrayLike
        (M, n) win shares of the seen models on every dataset of the benchmark.
    subset : ArrayLike
        (k,) positions of the chosen datasets.

    Returns
    -------
    LinearEstimate
        Weights = cluster sizes / n (summing to 1), intercept 0; ``params["counts"]``: the cluster sizes.

    Examples
    --------
    Dataset 1's profile (0.1, 0.9) is nearer dataset 0's (0, 1) than dataset 2's (1, 0):

    >>> fit_anchor([[0.0, 0.1, 1.0], [1.0, 0.9, 0.0]], [0, 2]).weights.round(4).tolist()
    [0.6667, 0.3333]
    """
    V, S = _check(values, subset)
    distance = ((V[:, :, None] - V[:, None, S]) ** 2).sum(axis=0)  # (n, k)
    nearest = np.argmin(distance, axis=1)
    nearest[S] = np.arange(S.size)
    counts = np.bincount(nearest, minlength=S.size)
    return LinearEstimate(counts / V.shape[1], 0.0, {"counts": counts.tolist()})


def _ridge_loo(X: NDArray[np.float64], y: NDArray[np.float64], alphas: Sequence[float]) -> NDArray[np.float64]:
    """Leave-one-out mean squared error of ridge (unpenalised intercept) for every alpha, in closed form."""
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    U, s, _ = np.linalg.svd(Xc, full_matrices=False)
    Uy = U.T @ yc
    errors = []
    for alpha in alphas:
        shrink = s**2 / (s**2 + alpha)
        fitted = y.mean() + U @ (shrink * Uy)
        hat = 1.0 / len(y) + (U**2) @ shrink
        with np.errstate(divide="ignore", invalid="ignore"):  # a model the fit passes through: no LOO estimate
            error = np.mean(((y - fitted) / (1.0 - hat)) ** 2)
        errors.append(error if np.isfinite(error) else np.inf)
    return np.array(errors)


def fit_ridge(values: ArrayLike, subset: ArrayLike, alphas: Sequence[float] = RIDGE_ALPHAS) -> LinearEstimate:
    """Ridge regression of the full-benchmark win share on the subset's win shares.

    ``y = values.mean(axis=1)`` on ``X = values[:, subset]``, intercept unpenalised (as
    ``sklearn.linear_model.Ridge``); the penalty is the entry of ``alphas`` with the least leave-one-model-out
    squared error (closed form; the first on a tie).

    Parameters
    ----------
    values : ArrayLike
        (M, n) win shares of the seen models on every dataset of the benchmark, M >= 3.
    subset : ArrayLike
        (k,) positions of the chosen datasets.
    alphas : Sequence[float]
        Penalties to choose from, each > 0.

    Returns
    -------
    LinearEstimate
        The coefficients and intercept; ``params["alpha"]``: the chosen penalty.

    Examples
    --------
    >>> values = [[0.1, 0.2, 0.3], [0.5, 0.4, 0.6], [0.9, 0.8, 0.7], [0.2, 0.6, 0.4]]
    >>> fit = fit_ridge(values, [0, 1], alphas=[1.0])
    >>> fit.weights.round(4).tolist(), round(fit.intercept, 4)
    ([0.1723, 0.1115], 0.346)
    """
    V, S = _check(values, subset, min_models=3)
    alphas = [float(a) for a in alphas]
    if not alphas or min(alphas) <= 0:
        raise ValueError(f"alphas must be a non-empty list of penalties > 0, got {alphas}")
    X, y = V[:, S], V.mean(axis=1)
    alpha = alphas[int(np.argmin(_ridge_loo(X, y, alphas)))]
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    beta = np.linalg.solve(Xc.T @ Xc + alpha * np.eye(S.size), Xc.T @ yc)
    return LinearEstimate(beta, float(y.mean() - X.mean(axis=0) @ beta), {"alpha": alpha})


def fit_gaussian(values: ArrayLike, subset: ArrayLike) -> LinearEstimate:
    """Gaussian conditioning: keep the subset's values, predict every other dataset's, average all n.

    The seen models' win-share vectors are draws of N(mu, Sigma): mu their mean, Sigma their Ledoit-Wolf
    covariance (``sklearn.covariance.ledoit_wolf``). For a new model observed on the subset S, each other
    dataset U gets ``E[x_U | x_S] = mu_U + Sigma_US Sigma_SS^+ (x_S - mu_S)`` and
    ``y_hat = (sum(x_S) + sum(E[x_U | x_S])) / n``, linear in ``x_S``.

    Parameters
    ----------
    values : ArrayLike
        (M, n) win shares of the seen models on every dataset of the benchmark, M >= 2.
    subset : ArrayLike
        (k,) positions of the chosen datasets.

    Returns
    -------
    LinearEstimate
        The weights and intercept of ``y_hat``; ``params["shrinkage"]``: Ledoit-Wolf's shrinkage.

    Examples
    --------
    Two datasets that move together: observing the first predicts the second.

    >>> values = [[0.0, 0.1, 0.5], [0.5, 0.4, 0.5], [1.0, 0.9, 0.5]]
    >>> fit = fit_gaussian(values, [0])
    >>> fit.predict([[1.0]]).round(3).tolist()
    [0.768]
    """
    from sklearn.covariance import ledoit_wolf

    V, S = _check(values, subset, min_models=2)
    n = V.shape[1]
    U = np.setdiff1d(np.arange(n), S)
    mu = V.mean(axis=0)
    sigma, shrinkage = ledoit_wolf(V)
    if U.size == 0:
        return LinearEstimate(np.full(S.size, 1.0 / n), 0.0, {"shrinkage": float(shrinkage)})
    # Sigma_SS^+ Sigma_SU summed over U: how much each chosen dataset moves the sum of the others
    moves = np.linalg.lstsq(sigma[np.ix_(S, S)], sigma[np.ix_(S, U)].sum(axis=1), rcond=None)[0]
    return LinearEstimate((1.0 + moves) / n, float((mu[U].sum() - moves @ mu[S]) / n),
                          {"shrinkage": float(shrinkage)})


ESTIMATORS: dict[str, Callable[[ArrayLike, ArrayLike], LinearEstimate]] = {
    "mean": fit_mean, "anchor": fit_anchor, "ridge": fit_ridge, "gaussian": fit_gaussian,
}
"""The four estimators by name: ``fit(values (M, n), subset (k,)) -> LinearEstimate``."""
assert tuple(ESTIMATORS) == ESTIMATOR_NAMES[1:]  # options.ESTIMATOR_NAMES is "auto" and these


def _fit(name: str, values: ArrayLike, subset: ArrayLike) -> LinearEstimate:
    if name not in ESTIMATORS:
        raise ValueError(f"unknown estimator {name!r}; choose from {list(ESTIMATOR_NAMES)}")
    return ESTIMATORS[name](values, subset)


def loo_residuals(name: str, values: ArrayLike, subset: ArrayLike) -> NDArray[np.float64]:
    """Leave-one-model-out residuals ``y_j - y_hat_(-j)`` of an estimator on the seen models.

    Model j's full-benchmark win share minus the prediction, from its subset win shares, of the estimator
    refitted on the other models (ridge chooses its penalty again among them).

    Parameters
    ----------
    name : str
        An estimator of ``ESTIMATORS``.
    values : ArrayLike
        (M, n) win shares of the seen models on every dataset of the benchmark.
    subset : ArrayLike
        (k,) positions of the chosen datasets.

    Returns
    -------
    NDArray[np.float64]
        (M,) residuals.

    Examples
    --------
    >>> loo_residuals("mean", [[0.0, 0.1, 1.0], [1.0, 0.9, 0.0]], [0, 2]).round(4).tolist()
    [-0.1333, 0.1333]
    """
    V, S = _check(values, subset, min_models=2)
    y = V.mean(axis=1)
    keep = ~np.eye(V.shape[0], dtype=bool)
    return np.array([y[j] - _fit(name, V[keep[j]], S).predict(V[j:j + 1, S])[0] for j in range(V.shape[0])])


def _half_width(residuals: NDArray[np.float64], level: float) -> float:
    """The jackknife half-width: the ceil((M + 1) level)-th smallest |residual|, inf past the M-th."""
    at = math.ceil((len(residuals) + 1) * level)
    return float(np.sort(np.abs(residuals))[at - 1]) if at <= len(residuals) else math.inf


def _check_level(level: float) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.0 < level < 1.0:
        raise ValueError(f"level={level!r} (--level) must lie in (0, 1)")
    return float(level)


def _choose(names: Sequence[str], values: NDArray[np.float64], subset: NDArray[np.intp]
            ) -> tuple[str, dict[str, NDArray[np.float64]]]:
    """The estimator with the least leave-one-model-out mean absolute error (the first on a tie), and every
    estimator's residuals."""
    residuals = {name: loo_residuals(name, values, subset) for name in names}
    errors = [np.mean(np.abs(r)) for r in residuals.values()]
    return list(residuals)[int(np.argmin(errors))], residuals


# ------------------------------------------------------------------------------ on a benchmark

@dataclass(frozen=True)
class SubsetEstimator:
    """A fitted estimator from the subset's scores to the full benchmark, with what it needs to rank a new model.

    Written by ``benchdesign select --estimator`` into its JSON report (``to_dict``) and read back by
    ``benchdesign predict`` (``from_dict``); [`predict_full_rank`][] applies it.

    Parameters
    ----------
    estimator : str
        The estimator fitted (a name of ``ESTIMATORS``).
    datasets : list[str]
        The chosen datasets, in subset order.
    weights : list[float]
        One weight per chosen dataset: ``y_hat = intercept + weights . x_S``.
    intercept : float
        The constant term.
    higher_is_better : bool
        Whether a higher score is a better model.
    models : list[str]
        The seen models.
    reference_scores : list[list[float]]
        (k, M) the seen models' scores on the chosen datasets, averaged over folds: a new model's win shares are
        computed against them.
    full_shares : list[float]
        (M,) the seen models' full-benchmark win shares (their ranking).
    residuals : list[float]
        (M,) leave-one-model-out residuals of the estimator on the seen models.
    level : float
        Coverage level of the interval.
    n_datasets : int
        Datasets of the full benchmark.
    params : dict[str, Any]
        What the fit chose (ridge's ``alpha``, the Gaussian's ``shrinkage``, anchor ``counts``) and, after
        ``auto``, every estimator's leave-one-model-out mean absolute error (``loo_mae``).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection.estimators import fit_subset_estimator
    >>> scores = pd.DataFrame({"dataset": ["d1"] * 3 + ["d2"] * 3 + ["d3"] * 3, "model": ["a", "b", "c"] * 3,
    ...                        "score": [0.9, 0.5, 0.7, 0.8, 0.4, 0.6, 0.3, 0.2, 0.1]})
    >>> fitted = fit_subset_estimator(scores, ["d1"], higher_is_better=True, estimator="mean")
    >>> fitted.models, fitted.full_shares
    (['a', 'b', 'c'], [1.0, 0.16666666666666666, 0.3333333333333333])
    """

    estimator: str
    datasets: list[str]
    weights: list[float]
    intercept: float
    higher_is_better: bool
    models: list[str]
    reference_scores: list[list[float]]
    full_shares: list[float]
    residuals: list[float]
    level: float
    n_datasets: int
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def half_width(self) -> float:
        """Half-width of the interval on the win share (inf when too few models reach the level)."""
        return _half_width(np.asarray(self.residuals), self.level)

    def to_dict(self) -> dict[str, Any]:
        """The fit as a JSON-ready dict (``from_dict`` reads it back).

        Returns
        -------
        dict[str, Any]
            Every field, plus the interval's ``half_width`` (None when unbounded) for the reader.
        """
        half = self.half_width
        return {"estimator": self.estimator, "datasets": self.datasets, "weights": self.weights,
                "intercept": self.intercept, "higher_is_better": self.higher_is_better, "models": self.models,
                "reference_scores": self.reference_scores, "full_shares": self.full_shares,
                "residuals": self.residuals, "level": self.level, "n_datasets": self.n_datasets,
                "half_width": None if math.isinf(half) else half, "params": self.params}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SubsetEstimator:
        """A fit from ``to_dict``'s dict (e.g. the ``estimator`` entry of ``benchdesign select``'s report).

        Parameters
        ----------
        data : Mapping[str, Any]
            The dict.

        Returns
        -------
        SubsetEstimator
            The fit, checked for consistent sizes.
        """
        names = [f for f in cls.__dataclass_fields__ if f != "params"]
        missing = [f for f in names if f not in data]
        if missing:
            raise ValueError(f"the estimator entry has no {missing}; write it with `benchdesign select --estimator`")
        fit = cls(**{f: data[f] for f in names}, params=dict(data.get("params", {})))
        k, M = len(fit.datasets), len(fit.models)
        shapes = {"weights": (len(fit.weights), k), "reference_scores": (len(fit.reference_scores), k),
                  "full_shares": (len(fit.full_shares), M), "residuals": (len(fit.residuals), M)}
        shapes.update({f"reference_scores[{i}]": (len(row), M) for i, row in enumerate(fit.reference_scores)})
        bad = {name: got for name, (got, want) in shapes.items() if got != want}
        if bad:
            raise ValueError(f"the estimator entry is inconsistent: lengths {bad} for {k} datasets and {M} models")
        _check_level(fit.level)
        return fit


def _fold_mean(scores: pd.DataFrame) -> pd.DataFrame:
    """Datasets x models, scores averaged over folds (orders of first appearance)."""
    wide = scores.groupby(["dataset", "model"], sort=False)["score"].mean().unstack("model")
    return wide.loc[list(dict.fromkeys(scores["dataset"])), list(dict.fromkeys(scores["model"]))]


def fit_subset_estimator(
    scores: pd.DataFrame,
    subset: Sequence[str],
    higher_is_better: bool,
    estimator: str = ESTIMATOR_DEFAULT,
    level: float = ESTIMATOR_LEVEL,
) -> SubsetEstimator:
    """Fit an estimator from the subset's scores to the full benchmark on the models of ``scores``.

    Every model of ``scores`` is a seen model; the full benchmark is every dataset of ``scores``.
    ``estimator="auto"`` fits the estimator of ``ESTIMATORS`` with the least leave-one-model-out mean absolute
    error on them (``params["loo_mae"]`` holds each one's). This is what ``benchdesign select --estimator``
    writes; [`predict_full_rank`][] applies it to new models.

    Parameters
    ----------
    scores : pd.DataFrame
        Scores of the seen models in the long layout: ``dataset``, ``model``, [``fold``], ``score``; at least 2
        models (3 for ``gaussian``, 4 for ``ridge`` and ``auto``: the leave-one-model-out refits need one less).
    subset : Sequence[str]
        The chosen datasets, each once.
    higher_is_better : bool
        Whether a higher score is a better model.
    estimator : str
        ``'auto'``, ``'mean'``, ``'anchor'``, ``'ridge'`` or ``'gaussian'`` (default ``options.ESTIMATOR_DEFAULT``,
        ``'anchor'``, chosen on the tuning seeds: docs/guides/select.md).
    level : float
        Coverage level of the interval, in (0, 1).

    Returns
    -------
    SubsetEstimator
        The fit.

    Raises
    ------
    ValueError
        For an unknown estimator or dataset, an empty subset, a level outside (0, 1), too few models, or scores
        ``rank_scores`` refuses.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from benchdesign.selection.estimators import fit_subset_estimator
    >>> rng = np.random.default_rng(0)
    >>> skill = np.linspace(0.0, 1.0, 20)
    >>> scores = pd.DataFrame([(f"d{d}", f"m{m}", skill[m] + 0.3 * rng.normal())
    ...                        for d in range(12) for m in range(20)], columns=["dataset", "model", "score"])
    >>> fitted = fit_subset_estimator(scores, ["d0", "d5", "d9"], higher_is_better=True, estimator="anchor")
    >>> fitted.estimator, round(sum(fitted.weights), 6)
    ('anchor', 1.0)
    """
    if estimator not in ESTIMATOR_NAMES:
        raise ValueError(f"unknown estimator {estimator!r}; choose from {list(ESTIMATOR_NAMES)}")
    level = _check_level(level)
    rank_scores(scores, higher_is_better)  # the checks of complete, finite, unique scores
    wide = _fold_mean(with_fold(scores))
    subset = list(subset)
    if not subset:
        raise ValueError("the subset is empty")
    unknown = [d for d in subset if d not in wide.index]
    if unknown:
        raise ValueError(f"subset: unknown dataset(s) {unknown}")
    twice = sorted({d for d in subset if subset.count(d) > 1})
    if twice:
        raise ValueError(f"subset lists dataset(s) {twice} more than once")
    M = wide.shape[1]
    need = {"auto": 4, "ridge": 4, "gaussian": 3}.get(estimator, 2)  # its leave-one-model-out refits need M - 1
    if M < need:
        raise ValueError(f"estimator {estimator!r} needs at least {need} seen models, the scores have {M}")
    values = win_shares(wide.to_numpy(dtype=float), higher_is_better)
    rows = np.array([wide.index.get_loc(d) for d in subset], dtype=np.intp)
    params: dict[str, Any] = {}
    if estimator == "auto":
        estimator, every = _choose(list(ESTIMATORS), values, rows)
        residuals = every[estimator]
        params["loo_mae"] = {name: float(np.mean(np.abs(r))) for name, r in every.items()}
    else:
        residuals = loo_residuals(estimator, values, rows)
    fit = _fit(estimator, values, rows)
    return SubsetEstimator(
        estimator=estimator, datasets=[str(d) for d in subset], weights=fit.weights.tolist(),
        intercept=float(fit.intercept), higher_is_better=bool(higher_is_better), models=[str(m) for m in wide.columns],
        reference_scores=wide.to_numpy(dtype=float)[rows].tolist(), full_shares=values.mean(axis=1).tolist(),
        residuals=residuals.tolist(), level=level, n_datasets=int(wide.shape[0]), params={**fit.params, **params},
    )


def predict_full_rank(estimate: SubsetEstimator | Mapping[str, Any], scores: pd.DataFrame) -> pd.DataFrame:
    """Where new models rank on the full benchmark, from their scores on the chosen datasets only.

    Each new model's win shares against the seen models on the chosen datasets go through the fitted
    estimator: its predicted full-benchmark win share (the share of the seen models it beats on a dataset of the
    benchmark, on average), its slot among the seen models and the jackknife interval of both.

    Parameters
    ----------
    estimate : SubsetEstimator | Mapping[str, Any]
        A fit of [`fit_subset_estimator`][], or its ``to_dict`` (the ``estimator`` entry of
        ``benchdesign select``'s report).
    scores : pd.DataFrame
        Scores of the new models in the long layout (``dataset``, ``model``, [``fold``], ``score``) on every
        chosen dataset (other datasets are ignored), averaged over folds. A model named like a seen model is
        still a new model, compared with every seen model.

    Returns
    -------
    pd.DataFrame
        One row per new model: ``model``, ``share`` with ``share_lo`` / ``share_hi``, ``rank`` (slot among the
        M seen models, 1 = ahead of all, M + 1 = behind all) with ``rank_lo`` / ``rank_hi``.

    Raises
    ------
    ValueError
        For a new model without a score on a chosen dataset, a missing column or a non-finite score.

    Examples
    --------
    Twenty models of rising skill on twelve datasets; a new model as good as the best ones, run on three:

    >>> import numpy as np
    >>> import pandas as pd
    >>> from benchdesign.selection.estimators import fit_subset_estimator, predict_full_rank
    >>> rng = np.random.default_rng(0)
    >>> skill = np.linspace(0.0, 1.0, 20)
    >>> scores = pd.DataFrame([(f"d{d}", f"m{m}", skill[m] + 0.3 * rng.normal())
    ...                        for d in range(12) for m in range(20)], columns=["dataset", "model", "score"])
    >>> fitted = fit_subset_estimator(scores, ["d0", "d5", "d9"], higher_is_better=True, estimator="mean")
    >>> new = pd.DataFrame({"dataset": ["d0", "d5", "d9"], "model": "new", "score": [1.2, 1.1, 0.9]})
    >>> predict_full_rank(fitted, new).round(3)
      model  share  share_lo  share_hi  rank  rank_lo  rank_hi
    0   new  0.867     0.704       1.0   1.0      1.0      5.0
    """
    fit = estimate if isinstance(estimate, SubsetEstimator) else SubsetEstimator.from_dict(estimate)
    if not isinstance(scores, pd.DataFrame):
        raise ValueError(f"scores must be a pandas DataFrame, got {type(scores).__name__}")
    missing = [c for c in ("dataset", "model", "score") if c not in scores.columns]
    if missing:
        raise ValueError(f"scores is missing columns {missing}; has {list(scores.columns)}")
    if len(scores) == 0:
        raise ValueError("scores is empty")
    mine = with_fold(scores)
    mine = mine[mine["dataset"].isin(fit.datasets)]
    twice = mine.duplicated(["dataset", "model", "fold"])
    if twice.any():
        row = mine[twice].iloc[0]
        raise ValueError(f"scores has duplicated rows for dataset {row['dataset']!r}, model {row['model']!r}, "
                         f"fold {row['fold']!r}")
    values = pd.to_numeric(mine["score"], errors="coerce")
    if values.isna().any() or not np.isfinite(values.to_numpy(dtype=float)).all():
        row = mine[values.isna() | ~np.isfinite(values.fillna(0.0).to_numpy(dtype=float))].iloc[0]
        raise ValueError(f"scores has a missing or non-numeric score for dataset {row['dataset']!r}, "
                         f"model {row['model']!r}")
    models = list(dict.fromkeys(scores["model"]))
    wide = mine.assign(score=values).groupby(["dataset", "model"])["score"].mean().unstack("model")
    wide = wide.reindex(index=fit.datasets, columns=models)
    if wide.isna().any().any():
        dataset, model = next((d, m) for d in wide.index for m in wide.columns if np.isnan(wide.loc[d, m]))
        raise ValueError(f"model {model!r} has no score on the chosen dataset {dataset!r}; the estimator needs all "
                         f"{len(fit.datasets)} ({', '.join(fit.datasets)})")
    x = shares_against(np.asarray(fit.reference_scores, dtype=float), wide.to_numpy(dtype=float),
                       fit.higher_is_better)
    share = fit.intercept + x @ np.asarray(fit.weights, dtype=float)
    half = fit.half_width
    full = np.asarray(fit.full_shares, dtype=float)
    return pd.DataFrame({"model": models, "share": share, "share_lo": np.clip(share - half, 0.0, 1.0),
                         "share_hi": np.clip(share + half, 0.0, 1.0), "rank": slots(full, share),
                         "rank_lo": slots(full, share + half), "rank_hi": slots(full, share - half)})


# --------------------------------------------------------------------- judged on held-out models

def estimator_holdout_fits(
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray | None,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    holdout_fraction: float = HOLDOUT_FRACTION,
    estimators: Sequence[str] = ESTIMATOR_NAMES,
    options: dict[str, Any] | None = None,
    standardize: str = "all",
    with_seen_ranks: bool = False,
) -> Iterator[tuple[int, np.ndarray, int, np.ndarray, dict[str, LinearEstimate], dict[str, np.ndarray]]]:
    """The estimators of the model-holdout trials, fitted on the seen models only, trial by trial.

    The trials, pools, held-out models and selections are those of
    ``protocol.model_holdout_subsets`` (the same for every estimator); in each, every estimator is fitted on
    the seen models' win shares among themselves (scores averaged over folds) on all n datasets. No held-out
    score reaches a subset or a fit.

    Parameters
    ----------
    scores : np.ndarray
        (n, F, M) score cube (``protocol.score_cube``).
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
    holdout_fraction : float
        Share of the models held out in every trial.
    estimators : Sequence[str]
        Names of ``ESTIMATORS`` and ``'auto'`` (the one with the least leave-one-model-out error).
    options : dict[str, Any] | None
        Strategy options.
    standardize : str
        ``'all'`` or ``'pool'``.
    with_seen_ranks : bool
        Append the seen models' ranks to ``X``.

    Yields
    ------
    tuple[int, np.ndarray, int, np.ndarray, dict[str, LinearEstimate], dict[str, np.ndarray]]
        ``(trial, held, k, subset, {estimator: fit}, {estimator: leave-one-model-out residuals})``; the fit of
        ``'auto'`` is the chosen estimator's, its name in ``params["chosen"]``.

    Examples
    --------
    20 datasets, one fold, 10 models; each trial holds 3 models out and fits every estimator on the other 7:

    >>> import numpy as np
    >>> from benchdesign.selection.estimators import estimator_holdout_fits
    >>> rng = np.random.default_rng(0)
    >>> cube = np.linspace(0, 1, 10)[None, None, :] + 0.5 * rng.normal(size=(20, 1, 10))
    >>> fits_by_trial = estimator_holdout_fits(cube, True, None, "random", [4], n_trials=2, alpha=0.8, seed=0)
    >>> trial, held, k, subset, fits, residuals = next(fits_by_trial)
    >>> trial, k, len(held), len(subset), len(residuals["mean"])
    (0, 4, 3, 4, 7)
    >>> fits["mean"].weights.tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    from benchdesign.selection.protocol import model_holdout_subsets

    unknown = [e for e in estimators if e not in ESTIMATOR_NAMES]
    if unknown:
        raise ValueError(f"unknown estimator(s) {unknown}; choose from {list(ESTIMATOR_NAMES)}")
    cube = np.asarray(scores, dtype=float)
    mean_scores = cube.mean(axis=1)  # (n, M)
    for trial, _, held, subsets in model_holdout_subsets(cube, higher_is_better, X, strategy, ks, n_trials, alpha,
                                                         seed, holdout_fraction, options, standardize,
                                                         with_seen_ranks):
        seen = np.setdiff1d(np.arange(cube.shape[2]), held)
        values = win_shares(mean_scores[:, seen], higher_is_better)
        for k, subset in subsets.items():
            subset = np.asarray(subset, dtype=np.intp)
            named = [e for e in ESTIMATORS if e in estimators or "auto" in estimators]
            chosen, residuals = _choose(named, values, subset)
            fits = {e: _fit(e, values, subset) for e in named}
            if "auto" in estimators:
                auto = fits[chosen]
                fits["auto"] = LinearEstimate(auto.weights, auto.intercept, {**auto.params, "chosen": chosen})
                residuals["auto"] = residuals[chosen]
            yield (trial, held, k, subset, {e: fits[e] for e in estimators},
                   {e: residuals[e] for e in estimators})


def estimator_holdout_trials(
    scores: np.ndarray,
    higher_is_better: bool,
    X: np.ndarray | None,
    strategy: str,
    ks: Sequence[int],
    n_trials: int,
    alpha: float,
    seed: int,
    holdout_fraction: float = HOLDOUT_FRACTION,
    estimators: Sequence[str] = ESTIMATOR_NAMES,
    level: float = ESTIMATOR_LEVEL,
    options: dict[str, Any] | None = None,
    standardize: str = "all",
    with_seen_ranks: bool = False,
) -> pd.DataFrame:
    """The estimators judged on the held-out models of the model-holdout trials.

    In every trial of [`estimator_holdout_fits`][] each held-out model is a new model: its win shares against
    the seen models on the subset go through every estimator, and its true full-benchmark win share (against the
    seen models on all n datasets) gives its true slot among them. Metrics per (trial, k, estimator):

    * ``rank_mae``: mean over the held-out models of |predicted slot - true slot|;
    * ``share_mae``: mean |predicted - true win share|;
    * ``spearman``: Spearman's rho of the predicted and the true win shares of the held-out models;
    * ``coverage``: share of the held-out models whose true slot lies in the interval at ``level``;
    * ``loo_mae``: the estimator's leave-one-model-out mean absolute error on the seen models (what ``auto``
      minimises; known before any held-out model is run).

    Parameters
    ----------
    scores : np.ndarray
        (n, F, M) score cube (``protocol.score_cube``).
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
    holdout_fraction : float
        Share of the models held out in every trial.
    estimators : Sequence[str]
        Names of ``ESTIMATORS`` and ``'auto'``.
    level : float
        Coverage level of the interval.
    options : dict[str, Any] | None
        Strategy options.
    standardize : str
        ``'all'`` or ``'pool'``.
    with_seen_ranks : bool
        Append the seen models' ranks to ``X``.

    Returns
    -------
    pd.DataFrame
        Long frame with columns ``trial, k, estimator, metric, value``.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.selection.estimators import estimator_holdout_trials
    >>> rng = np.random.default_rng(0)
    >>> cube = np.linspace(0, 1, 10)[None, None, :] + 0.5 * rng.normal(size=(20, 1, 10))
    >>> frame = estimator_holdout_trials(cube, True, None, "random", [4], n_trials=3, alpha=0.8, seed=0)
    >>> sorted(frame["estimator"].unique())
    ['anchor', 'auto', 'gaussian', 'mean', 'ridge']
    >>> sorted(frame["metric"].unique())
    ['coverage', 'loo_mae', 'rank_mae', 'share_mae', 'spearman']
    """
    from benchdesign.selection.metrics import spearman

    level = _check_level(level)
    cube = np.asarray(scores, dtype=float)
    mean_scores = cube.mean(axis=1)
    rows: list[tuple] = []
    for trial, held, k, subset, fits, residuals in estimator_holdout_fits(
            cube, higher_is_better, X, strategy, ks, n_trials, alpha, seed, holdout_fraction, estimators, options,
            standardize, with_seen_ranks):
        seen = np.setdiff1d(np.arange(cube.shape[2]), held)
        full = win_shares(mean_scores[:, seen], higher_is_better).mean(axis=1)
        new = shares_against(mean_scores[:, seen], mean_scores[:, held], higher_is_better)  # (held, n)
        truth = new.mean(axis=1)
        true_slot = slots(full, truth)
        for name, fit in fits.items():
            predicted = fit.predict(new[:, subset])
            half = _half_width(residuals[name], level)
            lo, hi = slots(full, predicted + half), slots(full, predicted - half)
            values = {"rank_mae": np.mean(np.abs(slots(full, predicted) - true_slot)),
                      "share_mae": np.mean(np.abs(predicted - truth)),
                      "spearman": spearman(-predicted, -truth),
                      "coverage": np.mean((lo <= true_slot) & (true_slot <= hi)),
                      "loo_mae": np.mean(np.abs(residuals[name]))}
            rows += [(trial, k, name, metric, float(v)) for metric, v in values.items()]
    return pd.DataFrame(rows, columns=["trial", "k", "estimator", "metric", "value"])
