"""The fingerprint models of the DataSAIL paper's molecular experiments (GitHub issues 5 and 37) and their metrics.

Paper setup ("Training of supervised machine learning models"): random forest with 500 trees, SVM
with a linear kernel, XGBoost with default parameters, MLP with hidden layers (512, 256, 64) trained
for 200 epochs; SVM and XGBoost wrapped one-vs-all per target; ``random_state=42``. Here:

- ``"xgb"`` is XGBoost's ``XGBRegressor`` / ``XGBClassifier`` with its defaults (100 rounds, learning
  rate 0.3, depth 6, histogram trees), one model per target; it needs the ``xgboost`` extra.
- ``"hgb"`` is scikit-learn's HistGradientBoosting (defaults: 100 iterations, learning rate 0.1,
  31 leaves; early stopping on a 10 % validation split when there are more than 10,000 training
  rows): a dependency-free stand-in for XGBoost, one model per target.
- ``"svm"`` is liblinear's LinearSVR / LinearSVC (``dual="auto"``, ``max_iter=1000``), which fits a
  linear-kernel SVM in time linear in the rows; classification scores are ``decision_function``.
- Every model is fitted per target on that target's labelled rows (labels may be missing = NaN),
  except random forest and MLP regression with no missing label, which fit all targets jointly as
  scikit-learn's native multi-output models (as in the paper).
- Inputs are cast to float32 (exact for fingerprint bits); the MLP then also computes in float32.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.ensemble import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import mean_absolute_error, roc_auc_score, root_mean_squared_error
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.svm import LinearSVC, LinearSVR
from threadpoolctl import threadpool_limits

__all__ = [
    "MODELS",
    "TASK_TYPES",
    "METRICS",
    "METRIC_TASK_TYPE",
    "HIGHER_IS_BETTER",
    "make_model",
    "fit_predict",
    "target_scores",
    "score",
]

MODELS: tuple[str, ...] = ("rf", "svm", "xgb", "hgb", "mlp")
TASK_TYPES: tuple[str, ...] = ("regression", "classification")
METRICS: tuple[str, ...] = ("mae", "rmse", "roc_auc")
METRIC_TASK_TYPE: dict[str, str] = {"mae": "regression", "rmse": "regression", "roc_auc": "classification"}
HIGHER_IS_BETTER: dict[str, bool] = {"mae": False, "rmse": False, "roc_auc": True}

_JOINT_REGRESSION = ("rf", "mlp")


def _check_choice(value: str, allowed: tuple[str, ...], what: str) -> None:
    if value not in allowed:
        raise ValueError(f"unknown {what} {value!r}; allowed: {', '.join(allowed)}")


def make_model(name: str, task_type: str, seed: int, n_jobs: int = 1, **overrides: Any) -> BaseEstimator:
    """An unfitted scikit-learn estimator for one target with the paper's settings.

    Parameters
    ----------
    name : str
        One of :data:`MODELS`. ``rf``: RandomForest, 500 trees, ``n_jobs`` workers. ``svm``: LinearSVR /
        LinearSVC, ``dual="auto"``, ``max_iter=1000``. ``xgb``: XGBRegressor / XGBClassifier with XGBoost's
        defaults and ``n_jobs`` threads (the ``xgboost`` extra). ``hgb``: scikit-learn's HistGradientBoosting
        defaults. ``mlp``: MLP with hidden layers (512, 256, 64), at most ``max_iter=200`` epochs (scikit-learn
        stops earlier once the training loss improves by less than ``tol`` for 10 epochs).
    task_type : str
        ``"regression"`` or ``"classification"``.
    seed : int
        The estimator's ``random_state``.
    n_jobs : int, default 1
        Workers of ``rf`` and threads of ``xgb``.
    **overrides
        Further constructor parameters (e.g. ``n_estimators=100``); unknown ones, and ``random_state`` (use
        ``seed``), raise ValueError.

    Returns
    -------
    sklearn.base.BaseEstimator
        Unfitted.

    Raises
    ------
    ImportError
        For ``xgb`` without the ``xgboost`` package.

    Examples
    --------
    >>> make_model("rf", "regression", seed=42, n_estimators=100).n_estimators
    100
    >>> type(make_model("hgb", "classification", seed=0)).__name__
    'HistGradientBoostingClassifier'
    """
    _check_choice(name, MODELS, "model")
    _check_choice(task_type, TASK_TYPES, "task type")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive integer, got {n_jobs!r}")
    regression = task_type == "regression"
    seed = int(seed)
    model: BaseEstimator
    if name == "rf":
        cls = RandomForestRegressor if regression else RandomForestClassifier
        model = cls(n_estimators=500, n_jobs=int(n_jobs), random_state=seed)
    elif name == "svm":
        cls = LinearSVR if regression else LinearSVC
        model = cls(dual="auto", max_iter=1000, random_state=seed)
    elif name == "xgb":
        try:
            from xgboost import XGBClassifier, XGBRegressor
        except ImportError as exc:
            raise ImportError(f"model 'xgb' needs the xgboost package ({exc}); pip install -e '.[xgboost]'") from None
        cls = XGBRegressor if regression else XGBClassifier
        model = cls(n_jobs=int(n_jobs), random_state=seed)
    elif name == "hgb":
        cls = HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier
        model = cls(random_state=seed)
    else:
        cls = MLPRegressor if regression else MLPClassifier
        model = cls(hidden_layer_sizes=(512, 256, 64), max_iter=200, random_state=seed)
    if "random_state" in overrides:
        raise ValueError("override 'random_state' is not allowed; pass seed instead")
    allowed = sorted(p for p in model.get_params() if p != "random_state")
    unknown = sorted(set(overrides) - set(allowed))
    if unknown:
        raise ValueError(f"unknown override(s) {unknown} for {type(model).__name__}; allowed: {allowed}")
    return model.set_params(**overrides)


def _as_2d_targets(y: np.ndarray, name: str) -> np.ndarray:
    arr = np.asarray(y, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D (n, n_targets), got shape {arr.shape}")
    if np.isinf(arr).any():
        row, target = (int(i) for i in np.argwhere(np.isinf(arr))[0])
        raise ValueError(f"{name} contains inf at row {row}, target {target}")
    return arr


def _check_binary(y: np.ndarray, name: str) -> None:
    labels = y[~np.isnan(y)]
    bad = labels[(labels != 0) & (labels != 1)]
    if bad.size:
        raise ValueError(f"{name} must hold 0/1 labels (NaN = missing) for classification, found {float(bad[0])!r}")


def _as_features(x: np.ndarray, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float32)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n, n_features), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} has NaN/inf in row {int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])}")
    return arr


def _positive_score(model: BaseEstimator, x: np.ndarray) -> np.ndarray:
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(x)
        return proba[:, list(model.classes_).index(1.0)]
    return model.decision_function(x)


def fit_predict(
    name: str,
    task_type: str,
    X_train: np.ndarray,
    Y_train: np.ndarray,
    X_test: np.ndarray,
    seed: int,
    n_jobs: int = 1,
    **overrides: Any,
) -> np.ndarray:
    """Fit ``name`` on the training rows and predict the test rows, float64 (n_test, n_targets).

    ``Y_train`` is (n_train,) or (n_train, n_targets) with NaN = missing label; each target's model
    sees only its labelled rows. Regression returns predictions; classification (0/1 labels) returns
    the positive-class score, ``predict_proba[:, 1]`` or the SVM's ``decision_function``. A target
    with no labelled training row, or (classification) only one class among them, gets all-NaN
    predictions, which :func:`score` skips. ``n_jobs`` caps RF workers, XGBoost's threads and the BLAS /
    OpenMP threads of the other models. Deterministic for fixed ``seed`` and ``n_jobs``. The MLP's
    ConvergenceWarning at ``max_iter`` is silenced: the epoch budget is the intended stopping rule.
    """
    template = make_model(name, task_type, seed, n_jobs=n_jobs, **overrides)
    x_train = _as_features(X_train, "X_train")
    x_test = _as_features(X_test, "X_test")
    y_train = _as_2d_targets(Y_train, "Y_train")
    if y_train.shape[0] != x_train.shape[0]:
        raise ValueError(f"Y_train has {y_train.shape[0]} rows but X_train has {x_train.shape[0]}")
    if x_test.shape[1] != x_train.shape[1]:
        raise ValueError(f"X_test has {x_test.shape[1]} features but X_train has {x_train.shape[1]}")
    classification = task_type == "classification"
    if classification:
        _check_binary(y_train, "Y_train")
    n_targets = y_train.shape[1]
    out = np.full((x_test.shape[0], n_targets), np.nan)
    with threadpool_limits(limits=int(n_jobs)), warnings.catch_warnings():
        if name == "mlp":
            warnings.simplefilter("ignore", ConvergenceWarning)
        if not classification and name in _JOINT_REGRESSION and n_targets > 1 and not np.isnan(y_train).any():
            model = clone(template).fit(x_train, y_train)
            return np.asarray(model.predict(x_test), dtype=np.float64).reshape(x_test.shape[0], n_targets)
        for t in range(n_targets):
            labelled = ~np.isnan(y_train[:, t])
            y = y_train[labelled, t]
            if y.size == 0 or (classification and np.unique(y).size < 2):
                continue
            model = clone(template).fit(x_train[labelled], y)
            out[:, t] = _positive_score(model, x_test) if classification else model.predict(x_test)
    return out


def target_scores(metric: str, Y_true: np.ndarray, Y_pred: np.ndarray) -> tuple[np.ndarray, dict[int, str]]:
    """Per-target ``metric`` over labelled rows, and why each NaN target was skipped.

    Returns ``(values, skipped)``: values float64 (n_targets,), NaN for skipped targets; skipped maps
    target index to the reason: no labelled test row, all-NaN predictions (no model, see
    :func:`fit_predict`), or for ``roc_auc`` a single class among the test labels. A NaN prediction
    on a labelled row of an otherwise predicted target raises ValueError.
    """
    _check_choice(metric, METRICS, "metric")
    y_true = _as_2d_targets(Y_true, "Y_true")
    y_pred = _as_2d_targets(Y_pred, "Y_pred")
    if y_true.shape != y_pred.shape:
        raise ValueError(f"Y_pred has shape {y_pred.shape}, expected {y_true.shape} like Y_true")
    if metric == "roc_auc":
        _check_binary(y_true, "Y_true")
    values = np.full(y_true.shape[1], np.nan)
    skipped: dict[int, str] = {}
    for t in range(y_true.shape[1]):
        labelled = ~np.isnan(y_true[:, t])
        truth, pred = y_true[labelled, t], y_pred[labelled, t]
        if truth.size == 0:
            skipped[t] = "no labelled test row"
        elif np.isnan(pred).all():
            skipped[t] = "no predictions (all NaN: no model was fitted for this target)"
        elif np.isnan(pred).any():
            row = int(np.flatnonzero(labelled)[np.flatnonzero(np.isnan(pred))[0]])
            raise ValueError(f"Y_pred is NaN at labelled row {row} of target {t}")
        elif metric == "roc_auc" and np.unique(truth).size < 2:
            skipped[t] = f"single class ({truth[0]:g}) among the test labels"
        elif metric == "roc_auc":
            values[t] = roc_auc_score(truth, pred)
        elif metric == "mae":
            values[t] = mean_absolute_error(truth, pred)
        else:
            values[t] = root_mean_squared_error(truth, pred)
    return values, skipped


def score(metric: str, Y_true: np.ndarray, Y_pred: np.ndarray) -> float:
    """Mean over targets of ``metric`` ("mae", "rmse" or "roc_auc") on each target's labelled rows.

    Skipped targets (see :func:`target_scores`, which also gives the reasons) do not count; NaN when
    no target is scorable.
    """
    values, _ = target_scores(metric, Y_true, Y_pred)
    scored = values[~np.isnan(values)]
    return float(scored.mean()) if scored.size else float("nan")
