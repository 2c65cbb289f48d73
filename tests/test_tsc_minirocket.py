"""The shared MiniRocket transform: padding, the pooled fitting sample, the portable file, equality
with sktime's own ``MiniRocketMultivariate``, and why one transform for all datasets is needed (sktime's
bundled UCR datasets)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchdesign.domains.tsc.features import dataset_features, dataset_rng, subsample_indices
from benchdesign.domains.tsc.minirocket import (
    fit_minirocket,
    fit_sample,
    load_parameters,
    minirocket_features,
    pad_or_trim,
    save_parameters,
)

BUNDLED = ("ACSF1", "ArrowHead", "GunPoint", "ItalyPowerDemand", "OSULeaf")


def test_pad_or_trim_by_hand():
    X = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    np.testing.assert_array_equal(pad_or_trim(X, 2), [[1, 2], [5, 6]])
    np.testing.assert_array_equal(pad_or_trim(X, 6), [[1, 2, 3, 4, 4, 4], [5, 6, 7, 8, 8, 8]])
    np.testing.assert_array_equal(pad_or_trim(X, 4), X)
    with pytest.raises(ValueError, match="length must be"):
        pad_or_trim(X, 0)
    with pytest.raises(ValueError, match="2-d array"):
        pad_or_trim(X[0], 3)


def test_fit_sample_draws_per_dataset_independently_of_the_others():
    rng = np.random.default_rng(0)
    series = {"B": rng.standard_normal((30, 20)), "A": rng.standard_normal((4, 12))}
    S = fit_sample(series, per_dataset=5, length=16, seed=3)
    assert S.shape == (4 + 5, 16)
    np.testing.assert_array_equal(S[:4], pad_or_trim(series["A"], 16))  # all of a small dataset
    idx = subsample_indices(30, 5, dataset_rng(3, "B", stream=1))
    np.testing.assert_array_equal(S[4:], pad_or_trim(series["B"][idx], 16))
    # B's share is the same without A, and in any dict order
    np.testing.assert_array_equal(fit_sample({"B": series["B"]}, 5, 16, 3), S[4:])
    np.testing.assert_array_equal(fit_sample(dict(reversed(series.items())), 5, 16, 3), S)
    assert not np.array_equal(fit_sample(series, 5, 16, 4)[4:], S[4:])
    # the fit stream differs from the per-dataset sub-sample (stream 0)
    assert not np.array_equal(idx, subsample_indices(30, 5, dataset_rng(3, "B")))
    with pytest.raises(ValueError, match="no datasets"):
        fit_sample({}, 5, 16, 3)


def test_transform_equals_sktime_and_survives_the_file(tmp_path):
    from importlib.metadata import version

    from sktime.transformations.rocket import MiniRocketMultivariate

    rng = np.random.default_rng(1)
    S = rng.standard_normal((40, 64)).cumsum(axis=1)
    X = rng.standard_normal((7, 50)).cumsum(axis=1)  # shorter than the transform: padded
    P = fit_minirocket(S, n_kernels=840, random_state=2)
    assert P.length == 64 and P.n_features == 840 and P.fitted_with == f"sktime=={version('sktime')}"
    expected = MiniRocketMultivariate(num_kernels=840, random_state=2).fit(S[:, None, :]).transform(
        pad_or_trim(X, 64)[:, None, :])
    F = minirocket_features(X, P)
    np.testing.assert_array_equal(F.to_numpy(), np.asarray(expected, dtype=np.float64))
    assert ((F.to_numpy() >= 0) & (F.to_numpy() <= 1)).all()  # proportions of positive values
    # a series' features do not depend on the other series of its job, nor on the thread count
    pd.testing.assert_frame_equal(minirocket_features(X[[4, 1]], P, n_threads=2), F.iloc[[4, 1]].reset_index(drop=True))
    save_parameters(P, tmp_path / "t.npz")
    Q = load_parameters(tmp_path / "t.npz")
    for field in ("n_channels_per_combination", "channel_indices", "dilations", "n_features_per_dilation", "biases"):
        np.testing.assert_array_equal(getattr(Q, field), getattr(P, field))
    assert (Q.length, Q.fitted_with) == (P.length, P.fitted_with)
    pd.testing.assert_frame_equal(minirocket_features(X, Q), F)
    # seeded: the same fit twice; another seed draws other biases
    np.testing.assert_array_equal(fit_minirocket(S, 840, 2).biases, P.biases)
    assert not np.array_equal(fit_minirocket(S, 840, 3).biases, P.biases)
    with pytest.raises(ValueError, match="length >= 9"):
        fit_minirocket(S[:, :8])
    with pytest.raises(ValueError, match="NaN"):
        fit_minirocket(np.where(S > 0, np.nan, S))


def test_a_file_without_the_fitting_version_still_loads(tmp_path):
    P = fit_minirocket(np.random.default_rng(0).standard_normal((10, 20)).cumsum(axis=1), 84, 0)
    arrays = {f: getattr(P, f) for f in ("n_channels_per_combination", "channel_indices", "dilations",
                                         "n_features_per_dilation", "biases")}
    np.savez(tmp_path / "old.npz", length=np.int64(P.length), **arrays)
    Q = load_parameters(tmp_path / "old.npz")
    assert Q.fitted_with == "" and Q.n_features == 84


def test_load_parameters_names_a_bad_file(tmp_path):
    (tmp_path / "junk.npz").write_text("not a zip")
    with pytest.raises(ValueError, match="junk.npz"):
        load_parameters(tmp_path / "junk.npz")
    np.savez(tmp_path / "part.npz", length=np.int64(5), biases=np.zeros(84, dtype=np.float32))
    with pytest.raises(ValueError, match="missing"):
        load_parameters(tmp_path / "part.npz")


def _bundled() -> dict[str, np.ndarray]:
    from benchdesign.domains.tsc.data import read_ucr_ts

    root = Path(importlib.util.find_spec("sktime").submodule_search_locations[0]) / "datasets" / "data"
    out = {}
    for name in BUNDLED:
        Xtr, _ = read_ucr_ts(root / name / f"{name}_TRAIN.ts")
        Xte, _ = read_ucr_ts(root / name / f"{name}_TEST.ts")
        out[name] = np.vstack([Xtr, Xte])
    return out


def test_shared_transform_describes_datasets_the_per_dataset_fit_does_not():
    """Fitted inside each dataset, MiniRocket's biases are that dataset's own quantiles, so every
    dataset's mean vector follows the same quantile pattern (1 - q_j of feature j); with the one
    shared transform the mean vectors follow it much less closely, and they differ between datasets
    by much more than between two sub-samples of one dataset."""
    from sktime.transformations.rocket import MiniRocketMultivariate
    from sktime.transformations.rocket._minirocket_multi_numba import _quantiles

    data = _bundled()
    shared = fit_minirocket(fit_sample(data, 50, 512, seed=0), 10_000, random_state=0)
    pattern = 1.0 - _quantiles(shared.n_features)
    corr_shared, corr_own, halves = {}, {}, {}
    for name, X in data.items():
        X = X[subsample_indices(X.shape[0], 100, np.random.default_rng(0))]
        F = minirocket_features(X, shared).to_numpy()
        corr_shared[name] = np.corrcoef(F.mean(axis=0), pattern)[0, 1]
        halves[name] = (F[::2].mean(axis=0), F[1::2].mean(axis=0))
        own = np.asarray(MiniRocketMultivariate(num_kernels=10_000, random_state=0).fit_transform(X[:, None, :]))
        corr_own[name] = np.corrcoef(own.mean(axis=0), pattern)[0, 1]
    assert max(corr_shared.values()) < min(corr_own.values())
    # within a dataset (two halves of its sample) vs between datasets (whole-sample means)
    within = max(np.linalg.norm(a - b) for a, b in halves.values())
    means = {n: (a + b) / 2 for n, (a, b) in halves.items()}
    between = min(np.linalg.norm(means[a] - means[b]) for a in means for b in means if a < b)
    assert within < between
    # the per-dataset job: the shared transform on the seeded sub-sample, averaged
    X = data["GunPoint"]
    y = np.zeros(X.shape[0], dtype=int).astype(str)
    vec = dataset_features("minirocket", X[:50], y[:50], X[50:], y[50:], dataset="GunPoint",
                           max_series=30, seed=4, minirocket_parameters=shared)
    idx = subsample_indices(X.shape[0], 30, dataset_rng(4, "GunPoint"))
    np.testing.assert_allclose(vec.to_numpy(), minirocket_features(X[idx], shared).mean(axis=0).to_numpy())
