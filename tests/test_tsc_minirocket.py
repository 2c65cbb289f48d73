"""The shared MiniRocket transform: padding, the pooled fitting sample, the portable file, equality
with aeon's own transform, and why one transform for all datasets is needed (aeon's bundled UCR
datasets)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from markers import needs_aeon

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


@needs_aeon
def test_transform_equals_aeon_and_survives_the_file(tmp_path):
    from aeon.transformations.collection.convolution_based import MiniRocket

    rng = np.random.default_rng(1)
    S = rng.standard_normal((40, 64)).cumsum(axis=1)
    X = rng.standard_normal((7, 50)).cumsum(axis=1)  # shorter than the transform: padded
    P = fit_minirocket(S, n_kernels=840, random_state=2)
    assert P.length == 64 and P.n_features == 840
    expected = MiniRocket(n_kernels=840, random_state=2).fit(S[:, None, :]).transform(
        pad_or_trim(X, 64)[:, None, :])
    F = minirocket_features(X, P)
    np.testing.assert_array_equal(F.to_numpy(), np.asarray(expected, dtype=np.float64))
    assert ((F.to_numpy() >= 0) & (F.to_numpy() <= 1)).all()  # proportions of positive values
    save_parameters(P, tmp_path / "t.npz")
    Q = load_parameters(tmp_path / "t.npz")
    for field in ("dilations", "n_features_per_dilation", "biases"):
        np.testing.assert_array_equal(getattr(Q, field), getattr(P, field))
    pd.testing.assert_frame_equal(minirocket_features(X, Q), F)
    # seeded: the same fit twice
    np.testing.assert_array_equal(fit_minirocket(S, 840, 2).biases, P.biases)
    with pytest.raises(ValueError, match="length >= 9"):
        fit_minirocket(S[:, :8])


def test_load_parameters_names_a_bad_file(tmp_path):
    (tmp_path / "junk.npz").write_text("not a zip")
    with pytest.raises(ValueError, match="junk.npz"):
        load_parameters(tmp_path / "junk.npz")
    np.savez(tmp_path / "part.npz", length=np.int64(5), biases=np.zeros(84, dtype=np.float32))
    with pytest.raises(ValueError, match="missing"):
        load_parameters(tmp_path / "part.npz")


def _bundled() -> dict[str, np.ndarray]:
    from benchdesign.domains.tsc.data import read_ucr_ts

    root = Path(importlib.util.find_spec("aeon").submodule_search_locations[0]) / "datasets" / "data"
    out = {}
    for name in BUNDLED:
        Xtr, _ = read_ucr_ts(root / name / f"{name}_TRAIN.ts")
        Xte, _ = read_ucr_ts(root / name / f"{name}_TEST.ts")
        out[name] = np.vstack([Xtr, Xte])
    return out


@needs_aeon
def test_shared_transform_describes_datasets_the_per_dataset_fit_does_not():
    """Fitted inside each dataset, MiniRocket's biases are that dataset's own quantiles, so every
    dataset's mean vector follows the same quantile pattern (1 - q_j of feature j); with the one
    shared transform the mean vectors follow it much less closely, and they differ between datasets
    by much more than between two sub-samples of one dataset."""
    from aeon.transformations.collection.convolution_based import MiniRocket
    from aeon.transformations.collection.convolution_based._minirocket import _quantiles

    data = _bundled()
    shared = fit_minirocket(fit_sample(data, 50, 512, seed=0), 10_000, random_state=0)
    pattern = 1.0 - _quantiles(shared.n_features)
    corr_shared, corr_own, halves = {}, {}, {}
    for name, X in data.items():
        X = X[subsample_indices(X.shape[0], 100, np.random.default_rng(0))]
        F = minirocket_features(X, shared).to_numpy()
        corr_shared[name] = np.corrcoef(F.mean(axis=0), pattern)[0, 1]
        halves[name] = (F[::2].mean(axis=0), F[1::2].mean(axis=0))
        own = np.asarray(MiniRocket(n_kernels=10_000, random_state=0).fit_transform(X[:, None, :]))
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
