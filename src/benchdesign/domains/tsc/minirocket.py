"""MiniRocket as one fixed transform shared by all TSC datasets (paper section 5.2, issue 11).

MiniRocket (Dempster, Schmidt & Webb, KDD 2021) sets its dilations from the series length and its
biases from quantiles of the convolution outputs of the series it is fitted on. Fitted inside each
dataset, every dataset's mean feature vector comes out close to the same quantile pattern and a
column means different things in different datasets. A dataset-level representation therefore uses
ONE transform for all datasets, as the paper's code does:

1. ``fit_sample`` draws a seeded sample of ``per_dataset`` series from every dataset (TRAIN and
   TEST pooled) and brings each to a common length with ``pad_or_trim``;
2. ``fit_minirocket`` fits sktime's ``MiniRocketMultivariate`` (the transform of the paper's code) on
   the pooled sample (fixed seed) and returns its parameters as plain arrays
   (``MiniRocketParameters``, saved as ``.npz`` by ``save_parameters``, no pickle, with the
   sktime version that fitted them);
3. ``minirocket_features`` pads or trims a dataset's series the same way and applies the fitted
   transform, series by series, with sktime's own kernel (so a series' features do not depend on the
   other series or datasets of its job); ``benchdesign.domains.tsc.features.dataset_features`` then
   averages over series.

numba compiles sktime's kernels on the first call in a process (tens of seconds); sktime asks numba to
cache them (``cache=True``), next to the installed package or, where that is read-only, in
``NUMBA_CACHE_DIR``.
"""
from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.domains.tsc.series import dataset_rng, subsample_indices
from benchdesign.files import write_atomic

__all__ = [
    "MiniRocketParameters",
    "fit_minirocket",
    "fit_sample",
    "load_parameters",
    "minirocket_features",
    "pad_or_trim",
    "save_parameters",
]

_FIELDS = ("n_channels_per_combination", "channel_indices", "dilations", "n_features_per_dilation",
           "biases")
_FIT_STREAM = 1  # rng stream of the fit sample, apart from the per-dataset sub-sample (stream 0)


@dataclass(frozen=True)
class MiniRocketParameters:
    """A fitted MiniRocket on univariate series: sktime's ``MiniRocketMultivariate.parameters`` plus the
    input length.

    Attributes
    ----------
    length : series length the transform expects (series are padded or trimmed to it).
    n_channels_per_combination, channel_indices, dilations, n_features_per_dilation : int32 arrays.
    biases : float32 array, one bias per output feature.
    fitted_with : the package that fitted them, e.g. ``"sktime==1.2.0"`` ("" when unknown).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((20, 32)).cumsum(axis=1)
    >>> P = fit_minirocket(X, n_kernels=84, random_state=0)  # doctest: +SKIP
    >>> P.length, P.n_features  # doctest: +SKIP
    (32, 84)
    """

    length: int
    n_channels_per_combination: np.ndarray
    channel_indices: np.ndarray
    dilations: np.ndarray
    n_features_per_dilation: np.ndarray
    biases: np.ndarray
    fitted_with: str = ""

    @property
    def n_features(self) -> int:
        """Number of output features (one per bias)."""
        return int(self.biases.size)

    def as_tuple(self) -> tuple:
        """The 5-tuple sktime's transform kernel takes (``MiniRocketMultivariate.parameters``)."""
        return tuple(np.ascontiguousarray(getattr(self, f),
                                          dtype=np.float32 if f == "biases" else np.int32)
                     for f in _FIELDS)


def pad_or_trim(X, length: int) -> np.ndarray:
    """Bring every series (row) of ``X`` to ``length`` points, as the paper's code does.

    Longer series keep their first ``length`` points; shorter ones are padded at the end with their
    last value.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] == 0:
        raise ValueError(f"pad_or_trim: expected a 2-d array (n_series, length >= 1), got shape {X.shape}")
    if length < 1:
        raise ValueError(f"length must be >= 1, got {length}")
    if X.shape[1] >= length:
        return X[:, :length].copy()
    pad = np.repeat(X[:, -1:], length - X.shape[1], axis=1)
    return np.hstack([X, pad])


def fit_sample(series: Mapping[str, np.ndarray], per_dataset: int, length: int,
               seed: int) -> np.ndarray:
    """The pooled fitting sample: ``per_dataset`` series of every dataset, padded or trimmed.

    Parameters
    ----------
    series : dataset name -> array (n_series, length_d) of its series (TRAIN and TEST pooled).
    per_dataset : series drawn per dataset without replacement (all of a smaller dataset).
    length : common length (``pad_or_trim``).
    seed : base seed; each dataset draws from ``dataset_rng(seed, name, stream=1)``, so its share
        does not depend on the other datasets. Datasets are stacked in sorted name order.

    Returns
    -------
    array (sum_d min(per_dataset, n_d), length).
    """
    if not series:
        raise ValueError("fit_sample: no datasets given")
    if per_dataset < 1:
        raise ValueError(f"per_dataset must be >= 1, got {per_dataset}")
    parts = []
    for name in sorted(series):
        X = np.asarray(series[name], dtype=np.float64)
        if X.ndim != 2 or X.shape[0] == 0:
            raise ValueError(f"fit_sample: dataset {name!r} has shape {X.shape}, expected (n_series, length)")
        idx = subsample_indices(X.shape[0], per_dataset, dataset_rng(seed, name, stream=_FIT_STREAM))
        parts.append(pad_or_trim(X[idx], length))
    return np.vstack(parts)


def fit_minirocket(X, n_kernels: int = 10_000, random_state: int = 0) -> MiniRocketParameters:
    """Fit sktime's ``MiniRocketMultivariate`` on the series ``X`` (n_series, length) with a fixed seed.

    Parameters
    ----------
    X : array (n_series, length >= 9) of finite values: the pooled sample (``fit_sample``).
    n_kernels : number of output features (sktime rounds it down to a multiple of 84, at least 84).
    random_state : seed of the fit (which series each bias is drawn from).

    Returns
    -------
    ``MiniRocketParameters`` holding the fitted arrays and ``fitted_with = "sktime==<version>"``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((20, 32)).cumsum(axis=1)
    >>> fit_minirocket(X, n_kernels=168, random_state=1).n_features  # doctest: +SKIP
    168
    """
    from importlib.metadata import version

    from sktime.transformations.rocket import MiniRocketMultivariate

    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"fit_minirocket: expected a non-empty 2-d array, got shape {X.shape}")
    if X.shape[1] < 9:
        raise ValueError(f"MiniRocket needs series of length >= 9, got {X.shape[1]}")
    if not np.isfinite(X).all():
        raise ValueError("fit_minirocket: the fitting series hold NaN or infinite values")
    model = MiniRocketMultivariate(num_kernels=int(n_kernels), random_state=int(random_state)).fit(X[:, None, :])
    arrays = (np.asarray(a).copy() for a in model.parameters)
    return MiniRocketParameters(int(X.shape[1]), *arrays, fitted_with=f"sktime=={version('sktime')}")


def minirocket_features(X, parameters: MiniRocketParameters, n_threads: int = 1) -> pd.DataFrame:
    """The fitted transform applied to every series of ``X`` after ``pad_or_trim``.

    Each series is transformed on its own by sktime's kernel (what ``MiniRocketMultivariate.transform``
    calls; a unit test checks they agree), so its features depend only on it and ``parameters``.

    Parameters
    ----------
    X : array (n_series, length_d) of one dataset's series.
    parameters : the shared transform (``fit_minirocket`` or ``load_parameters``).
    n_threads : numba threads (series are transformed in parallel).

    Returns
    -------
    DataFrame (n_series, parameters.n_features), columns ``minirocket_<j>``: the proportion of
    positive values of each (kernel, dilation, bias) convolution.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.random.default_rng(0).standard_normal((20, 32)).cumsum(axis=1)
    >>> P = fit_minirocket(S, n_kernels=84, random_state=0)  # doctest: +SKIP
    >>> minirocket_features(S[:3, :20], P).shape  # doctest: +SKIP
    (3, 84)
    """
    import numba

    # sktime's public API transforms only with the object it fitted; the saved arrays go through the kernel
    # its transform calls (a private name: pyproject.toml bounds sktime, and a unit test compares the two)
    from sktime.transformations.rocket._minirocket_multi_numba import _transform_multi

    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"minirocket_features: expected a non-empty 2-d array, got shape {X.shape}")
    Z = np.ascontiguousarray(pad_or_trim(X, parameters.length)[:, None, :], dtype=np.float32)
    previous = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(n_threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        F = np.asarray(_transform_multi(Z, parameters.as_tuple()), dtype=np.float64)
    finally:
        numba.set_num_threads(previous)
    width = len(str(F.shape[1] - 1))
    return pd.DataFrame(F, columns=[f"minirocket_{j:0{width}d}" for j in range(F.shape[1])])


def save_parameters(parameters: MiniRocketParameters, path) -> None:
    """Write the fitted transform as an uncompressed ``.npz`` of plain arrays (no pickle).

    Parameters
    ----------
    parameters : the fitted transform.
    path : the ``.npz`` file, written atomically; it also records ``fitted_with`` (e.g. ``sktime==1.2.0``).

    Examples
    --------
    >>> save_parameters(P, "minirocket_transform.npz")  # doctest: +SKIP
    """
    buffer = io.BytesIO()
    np.savez(buffer, length=np.int64(parameters.length), fitted_with=np.str_(parameters.fitted_with),
             **{f: getattr(parameters, f) for f in _FIELDS})
    write_atomic(path, buffer.getvalue())


def load_parameters(path) -> MiniRocketParameters:
    """Read a transform written by ``save_parameters``; a clear error names a bad file.

    Parameters
    ----------
    path : the ``.npz`` file.

    Returns
    -------
    ``MiniRocketParameters`` (``fitted_with`` = "" for a file that does not record it).

    Examples
    --------
    >>> P = load_parameters("results/features/tsc/minirocket_transform.npz")  # doctest: +SKIP
    """
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            files = set(data.files)
            values = {f: data[f].copy() for f in _FIELDS if f in files}
            length = int(data["length"]) if "length" in files else None
            fitted_with = str(data["fitted_with"]) if "fitted_with" in files else ""
    except (OSError, EOFError, ValueError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: cannot read the MiniRocket transform ({exc})") from exc
    missing = [k for k in _FIELDS if k not in values] + (["length"] if length is None else [])
    if missing:
        raise ValueError(f"{path}: not a MiniRocket transform, missing {missing}")
    n = int(np.sum(values["n_features_per_dilation"])) * 84
    if values["biases"].size != n or values["dilations"].size != values["n_features_per_dilation"].size:
        raise ValueError(f"{path}: inconsistent MiniRocket transform ({values['biases'].size} biases for "
                         f"{n} features)")
    return MiniRocketParameters(length, **values, fitted_with=fitted_with)
