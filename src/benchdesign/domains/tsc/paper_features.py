"""The paper code's definitions of the TSC representations (the ``*_paper`` variants).

Read from the authors' notebooks (github hangover137/efficient_benchmarking,
``notebooks/extract_all_feats.ipynb``, ``extract_SM_feats.ipynb``, ``testing_pipeline_tsc.ipynb``);
the README table "TSC representations: the paper's code and this project" sets them beside the
project's definitions in ``benchdesign.domains.tsc.features``.

``simple_paper``
    ``simple_paper_features``: class entropy (bits), Gini index, a multi-class indicator and the
    log of the number of series (4 values).
``summary_paper``
    ``summary_paper_series_features``: 17 statistics per series (length, moments, quantiles,
    spectral entropy, autocorrelations at lags 1-5), averaged over series.
``landmarking_paper``
    ``landmarking_paper_features``: four probes (stump, 1-NN, standardised logistic regression,
    depth-3 tree) under CV, a 70/30 split and 50 bootstrap resamples of 80% (12 values).
``tsfresh_paper`` / ``catch22_paper``
    tsfresh's comprehensive set / catch22 of every series, averaged (NaN skipped, infinities kept);
    tsfresh's matrix then loses every column with a NaN, an |x| > 1e9 or a single value
    (``paper_column_filter``).
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from benchdesign.domains.tsc.series import check_labels, check_series, class_entropy, class_gini

__all__ = [
    "PAPER_PROBES",
    "landmarking_paper_features",
    "paper_column_filter",
    "simple_paper_features",
    "spectral_entropy",
    "summary_paper_series_features",
]

PAPER_PROBES = ("stump", "knn1", "linear", "tree_shallow")
"""Probes of the paper's landmarking: decision stump, 1-NN, StandardScaler + LogisticRegression
(max_iter=2000), decision tree of depth 3."""
_SUMMARY_LAGS = (1, 2, 3, 4, 5)
_BOOT_N, _BOOT_FRAC, _CV_FOLDS, _TEST_SIZE, _RESAMPLE_TRIES = 50, 0.8, 5, 0.3, 10


# ------------------------------------------------------------------------------------------ simple

def simple_paper_features(y_train, y_test) -> pd.Series:
    """The paper's 4 simple features of a dataset (TRAIN and TEST labels pooled).

    ``class_entropy`` (bits), ``class_gini`` (1 - sum p_k^2), ``multiclass`` (1.0 if more than two
    classes; the paper's column ``number_of_classes``) and ``log_n_series`` (natural log of the
    number of series; the paper logs its ``size`` column before the selection).
    """
    y = np.concatenate([np.asarray(y_train).astype(str), np.asarray(y_test).astype(str)])
    if y.size == 0:
        raise ValueError("simple_paper_features: no labels")
    return pd.Series({
        "class_entropy": class_entropy(y),
        "class_gini": class_gini(y),
        "multiclass": float(np.unique(y).size > 2),
        "log_n_series": float(np.log(y.size)),
    }, dtype=np.float64)


# ----------------------------------------------------------------------------------------- summary

def spectral_entropy(X, eps: float = 1e-12) -> np.ndarray:
    """Shannon entropy (nats) of the normalised power spectrum of every (mean-removed) row.

    p = |rfft(x - mean x)|^2 / sum; H = -sum p log(p + eps); 0 for a row of length < 2 or without
    power (sum <= eps), as in the paper's code.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.shape[1] < 2:
        return np.zeros(X.shape[0])
    P = np.abs(np.fft.rfft(X - X.mean(axis=1, keepdims=True), axis=1)) ** 2
    total = P.sum(axis=1, keepdims=True)
    ok = total[:, 0] > eps
    P = P / np.where(ok[:, None], total, 1.0)
    return np.where(ok, -(P * np.log(P + eps)).sum(axis=1), 0.0)


def _lag_correlation(X: np.ndarray, lag: int) -> np.ndarray:
    """Pearson correlation of x[:-lag] and x[lag:] of every row (each centred by its own mean); 0
    when the row is not longer than ``lag`` or a part is constant (the paper's ``autocorr_lag``)."""
    if X.shape[1] <= lag or X.shape[1] < 2:
        return np.zeros(X.shape[0])
    A = X[:, :-lag] - X[:, :-lag].mean(axis=1, keepdims=True)
    B = X[:, lag:] - X[:, lag:].mean(axis=1, keepdims=True)
    denom = np.sqrt((A * A).sum(axis=1)) * np.sqrt((B * B).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom == 0, 0.0, (A * B).sum(axis=1) / np.where(denom == 0, 1.0, denom))


def summary_paper_series_features(X) -> pd.DataFrame:
    """The paper's 17 summary statistics of every series.

    Returns
    -------
    DataFrame (n_series, 17): ``len, mean, std`` (population), ``min, max, median, q25, q75, iqr``
    (linear quantiles), ``skew, kurtosis`` (scipy's biased skewness and excess kurtosis; NaN for a
    constant series), ``spectral_entropy`` (``spectral_entropy``), ``acf_1..acf_5``
    (lag correlations).
    """
    X = check_series(X)
    q25, median, q75 = np.quantile(X, [0.25, 0.5, 0.75], axis=1)
    from scipy import stats  # here: importing the domains needs no scipy.stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant series: NaN, as scipy gives
        skew = stats.skew(X, axis=1) if X.shape[1] >= 3 else np.zeros(X.shape[0])
        kurt = stats.kurtosis(X, axis=1) if X.shape[1] >= 4 else np.zeros(X.shape[0])
    columns = {
        "len": np.full(X.shape[0], float(X.shape[1])), "mean": X.mean(axis=1), "std": X.std(axis=1),
        "min": X.min(axis=1), "max": X.max(axis=1), "median": median, "q25": q25, "q75": q75,
        "iqr": q75 - q25, "skew": skew, "kurtosis": kurt, "spectral_entropy": spectral_entropy(X),
    }
    for lag in _SUMMARY_LAGS:
        columns[f"acf_{lag}"] = _lag_correlation(X, lag)
    return pd.DataFrame(columns)


# ------------------------------------------------------------------------------------- landmarking

def _probes(random_state: int) -> dict:
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return {
        "stump": DecisionTreeClassifier(max_depth=1, random_state=random_state),
        "knn1": KNeighborsClassifier(n_neighbors=1),
        "linear": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "tree_shallow": DecisionTreeClassifier(max_depth=3, random_state=random_state),
    }


def _min_class_count(y) -> int:
    return int(np.unique(y, return_counts=True)[1].min()) if len(y) else 0


def _split(X, y, random_state: int):
    """70/30 split, stratified when every class has two members (the paper's
    ``safe_train_test_split``); unstratified where the stratified split is impossible."""
    from sklearn.model_selection import train_test_split

    if _min_class_count(y) >= 2:
        try:
            return train_test_split(X, y, test_size=_TEST_SIZE, random_state=random_state, stratify=y)
        except ValueError:  # fewer test rows than classes: the paper's code stops here
            pass
    return train_test_split(X, y, test_size=_TEST_SIZE, random_state=random_state)


def _cv_splitter(y, random_state: int):
    from sklearn.model_selection import KFold, StratifiedKFold

    smallest = _min_class_count(y)
    if smallest >= 2:
        return StratifiedKFold(n_splits=min(_CV_FOLDS, smallest), shuffle=True, random_state=random_state)
    return KFold(n_splits=min(_CV_FOLDS, max(2, min(5, len(y)))), shuffle=True, random_state=random_state)


def _error(model, Xtr, ytr, Xte, yte) -> float:
    return float(np.mean(model.fit(Xtr, ytr).predict(Xte) != yte))


def landmarking_paper_features(X, y, random_state: int = 42, n_bootstrap: int = _BOOT_N) -> pd.Series:
    """The paper's 12 landmarking values of a dataset (its ``dataset_landmarking_raw``).

    Parameters
    ----------
    X : array (n_series, length).
    y : labels.
    random_state : the paper's ``SEED`` (42 there): folds, splits, bootstrap and trees.
    n_bootstrap : bootstrap resamples (the paper's 50).

    Returns
    -------
    Series: ``err_<probe>`` (mean error over the CV folds whose train and test parts both hold two
    classes), ``gap_linear_train_test`` (accuracy of the linear probe on the train minus the test
    part of a 70/30 split), ``diff_err_linear_minus_tree``, ``ratio_err_linear_over_knn``
    (err_linear / (err_knn1 + 1e-12)), ``var_err_cv_simple`` (variance, ddof=1, of the depth-3 tree's
    CV errors), ``var_err_boot_simple`` and ``var_rank_boot_simple`` (variance, ddof=1, of the depth-3
    tree's error and of its rank among the four probes over ``n_bootstrap`` bootstrap resamples of 80% of
    the series, each split 70/30; ranks by ``np.argsort`` order, so ties go to the earlier probe),
    ``n_objects`` and ``series_len_mean``.
    """
    X = check_series(X)
    y = check_labels(y, X.shape[0]).astype(str)
    n = X.shape[0]
    probes = _probes(random_state)
    names = list(probes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lbfgs convergence, "least populated class" notes
        cv = {p: [] for p in names}
        for train, test in _cv_splitter(y, random_state).split(X, y):
            if np.unique(y[train]).size < 2 or np.unique(y[test]).size < 2:
                continue
            for p in names:
                cv[p].append(_error(probes[p], X[train], y[train], X[test], y[test]))
        err = {p: float(np.mean(v)) if v else 0.0 for p, v in cv.items()}

        Xtr, Xte, ytr, yte = _split(X, y, random_state)
        gap = 0.0
        if np.unique(ytr).size >= 2 and np.unique(yte).size >= 2:
            linear = probes["linear"].fit(Xtr, ytr)
            gap = float(np.mean(linear.predict(Xtr) == ytr) - np.mean(linear.predict(Xte) == yte))
        tree_cv = cv["tree_shallow"]
        var_cv = float(np.var(tree_cv, ddof=1)) if len(tree_cv) >= 2 else 0.0

        boot_err, boot_rank = [], []
        if n >= 4:
            rng = np.random.default_rng(random_state)
            size = max(2, int(_BOOT_FRAC * n))
            stratifiable = _min_class_count(y) >= 2
            target = names.index("tree_shallow")
            for b in range(int(n_bootstrap)):
                idx = None
                for _ in range(_RESAMPLE_TRIES):
                    cand = rng.choice(n, size=size, replace=True)
                    if _min_class_count(y[cand]) >= 2 or not stratifiable:
                        idx = cand
                        break
                if idx is None:
                    idx = rng.choice(n, size=size, replace=True)
                Xtr, Xte, ytr, yte = _split(X[idx], y[idx], random_state + b)
                if np.unique(ytr).size < 2 or np.unique(yte).size < 2:
                    continue
                errs = np.array([_error(probes[p], Xtr, ytr, Xte, yte) for p in names])
                ranks = np.empty(len(names), dtype=int)
                ranks[np.argsort(errs)] = np.arange(1, len(names) + 1)
                boot_err.append(errs[target])
                boot_rank.append(ranks[target])
    two = len(boot_err) >= 2
    out = {f"err_{p}": err[p] for p in names}
    out.update({
        "gap_linear_train_test": gap,
        "diff_err_linear_minus_tree": err["linear"] - err["tree_shallow"],
        "ratio_err_linear_over_knn": err["linear"] / (err["knn1"] + 1e-12),
        "var_err_cv_simple": var_cv,
        "var_err_boot_simple": float(np.var(boot_err, ddof=1)) if two else 0.0,
        "var_rank_boot_simple": float(np.var(boot_rank, ddof=1)) if two else 0.0,
        "n_objects": float(n),
        "series_len_mean": float(X.shape[1]),
    })
    return pd.Series(out, dtype=np.float64)


# ---------------------------------------------------------------------------------- column filter

def paper_column_filter(matrix: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The paper's cleaning of its tsfresh matrix: drop every column holding a NaN, then every column
    with an absolute value above 1e9 (infinities included), then every column with a single value.

    Returns (filtered matrix, dropped column names in the matrix's order).
    """
    values = matrix.to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        bad = np.isnan(values).any(axis=0) | (np.abs(np.nan_to_num(values, nan=0.0)) > 1e9).any(axis=0)
    kept = matrix.loc[:, ~bad]
    constant = kept.nunique(axis=0) <= 1
    kept = kept.loc[:, ~constant.to_numpy()]
    dropped = [c for c in matrix.columns if c not in set(kept.columns)]
    return kept.copy(), dropped
