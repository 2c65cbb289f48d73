"""TSC dataset representations: every feature function on small inputs with known values, and the
Snakemake rules end to end on UCR datasets bundled with sktime."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchdesign.domains.tsc.features import (
    DEFAULT_SETTINGS,
    LANDMARKING_PROBES,
    REPRESENTATIONS,
    average_series_features,
    catch22_series_features,
    class_entropy,
    class_gini,
    dataset_features,
    dataset_rng,
    gather_features,
    landmarking_features,
    minirocket_fit_options,
    representation_names,
    representation_options,
    resolve_settings,
    simple_features,
    subsample_indices,
    summary_series_features,
    tsfresh_series_features,
)

REPO = Path(__file__).resolve().parents[1]




@pytest.fixture
def walks():
    rng = np.random.default_rng(3)
    return rng.standard_normal((12, 40)).cumsum(axis=1)


def _separable(n_per_class=10, length=16, seed=0):
    """Two classes far apart at every time point: every probe classifies them perfectly."""
    rng = np.random.default_rng(seed)
    X = np.vstack([-5 + 0.1 * rng.standard_normal((n_per_class, length)),
                   5 + 0.1 * rng.standard_normal((n_per_class, length))])
    y = np.array(["a"] * n_per_class + ["b"] * n_per_class)
    return X, y


# ------------------------------------------------------------------------------------ simple

def test_class_gini_and_entropy_by_hand():
    y = ["a", "a", "a", "b"]
    assert class_gini(y) == pytest.approx(1 - (0.75 ** 2 + 0.25 ** 2))  # 0.375
    assert class_entropy(y) == pytest.approx(-(0.75 * np.log2(0.75) + 0.25 * np.log2(0.25)))
    assert class_entropy(y) == pytest.approx(0.8112781245)
    balanced = ["x", "y", "z"] * 4
    assert class_gini(balanced) == pytest.approx(2 / 3)
    assert class_entropy(balanced) == pytest.approx(np.log2(3))
    assert class_entropy(balanced, normalise=True) == pytest.approx(1.0)
    assert class_gini(["a"] * 5) == 0.0 and class_entropy(["a"] * 5) == 0.0
    assert class_entropy(["a"] * 5, normalise=True) == 1.0


def test_simple_features_of_a_hand_made_dataset():
    out = simple_features(["1", "1", "2"], ["1", "2", "2", "2", "3"], series_length=24)
    # pooled labels: 1 x3, 2 x4, 3 x1 of 8
    p = np.array([3, 4, 1]) / 8
    assert out["n_train"] == 3 and out["n_test"] == 5 and out["n_series"] == 8
    assert out["series_length"] == 24 and out["n_classes"] == 3 and out["is_binary"] == 0
    assert out["class_gini"] == pytest.approx(1 - np.sum(p ** 2))
    assert out["class_entropy"] == pytest.approx(-np.sum(p * np.log2(p)))
    assert out["class_entropy_norm"] == pytest.approx(-np.sum(p * np.log2(p)) / np.log2(3))
    assert out["imbalance_ratio"] == pytest.approx(4.0)
    assert simple_features(["a", "b"], ["a"], 5)["is_binary"] == 1.0


def test_simple_features_validate():
    with pytest.raises(ValueError, match="series_length"):
        simple_features(["a"], ["a"], 0)
    with pytest.raises(ValueError, match="y_train"):
        simple_features([], ["a"], 3)


# ----------------------------------------------------------------------------------- summary

def test_summary_features_match_numpy_and_scipy(walks):
    F = summary_series_features(walks, acf_lags=(1, 3))
    assert list(F.columns) == ["mean", "sd", "min", "max", "q05", "q25", "median", "q75", "q95",
                               "skew", "kurtosis", "acf_1", "acf_3"]
    np.testing.assert_allclose(F["mean"], walks.mean(axis=1))
    np.testing.assert_allclose(F["sd"], walks.std(axis=1))
    np.testing.assert_allclose(F["min"], walks.min(axis=1))
    np.testing.assert_allclose(F["max"], walks.max(axis=1))
    np.testing.assert_allclose(F["q25"], np.quantile(walks, 0.25, axis=1))
    np.testing.assert_allclose(F["median"], np.median(walks, axis=1))
    np.testing.assert_allclose(F["skew"], stats.skew(walks, axis=1))
    np.testing.assert_allclose(F["kurtosis"], stats.kurtosis(walks, axis=1))
    from statsmodels.tsa.stattools import acf

    for i, series in enumerate(walks):
        ref = acf(series, nlags=3, fft=False)
        assert F.loc[i, "acf_1"] == pytest.approx(ref[1])
        assert F.loc[i, "acf_3"] == pytest.approx(ref[3])


def test_summary_features_edge_cases():
    X = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0]])
    F = summary_series_features(X, acf_lags=(1, 4))
    assert np.isnan(F.loc[0, "skew"]) and np.isnan(F.loc[0, "acf_1"])  # constant series
    assert F.loc[1, "acf_1"] == pytest.approx(-0.75)  # alternating 0/1: sum z_t z_t+1 = -3/4 / 1
    assert F["acf_4"].isna().all()  # lag >= length
    with pytest.raises(ValueError, match="NaN"):
        summary_series_features(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="acf_lags"):
        summary_series_features(X, acf_lags=(0,))


def test_average_ignores_non_finite_entries():
    F = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [np.inf, 2.0, 4.0], "c": [np.nan] * 3})
    mean = average_series_features(F)
    assert mean["a"] == 2.0 and mean["b"] == 3.0 and np.isnan(mean["c"])


# --------------------------------------------------------------------------- series features

def test_catch22_matches_pycatch22(walks):
    import pycatch22

    F = catch22_series_features(walks[:3])
    assert F.shape == (3, 22)
    ref = pycatch22.catch22_all(walks[1].tolist())
    assert list(F.columns) == ref["names"]
    np.testing.assert_allclose(F.iloc[1].to_numpy(), ref["values"])
    F24 = catch22_series_features(walks[:2], catch24=True)
    assert F24.shape == (2, 24)
    assert F24.loc[0, "DN_mean"] == pytest.approx(walks[0].mean())


def test_tsfresh_minimal_matches_numpy(walks):
    F = tsfresh_series_features(walks[:4], "minimal")
    assert F.shape[0] == 4
    np.testing.assert_allclose(F["value__mean"], walks[:4].mean(axis=1))
    np.testing.assert_allclose(F["value__length"], 40)
    np.testing.assert_allclose(F["value__maximum"], walks[:4].max(axis=1))
    with pytest.raises(ValueError, match="tsfresh parameters"):
        tsfresh_series_features(walks[:2], "huge")


# ------------------------------------------------------------------------------- landmarking

def test_landmarking_on_a_perfectly_separable_set_is_error_free():
    X, y = _separable()
    out = landmarking_features(X, y, n_splits=5, n_bootstrap=4, random_state=0)
    assert len(out) == 21
    for probe in LANDMARKING_PROBES:
        assert out[f"{probe}_cv_error"] == 0.0
        assert out[f"{probe}_cv_error_var"] == 0.0
        assert out[f"{probe}_boot_error_var"] == 0.0
        assert out[f"{probe}_cv_rank_var"] == 0.0  # four-way ties every time
        assert out[f"{probe}_boot_rank_var"] == 0.0
    assert out["linear_train_test_gap"] == 0.0


def test_landmarking_separates_easy_from_hard_and_is_seeded():
    X, y = _separable(n_per_class=15, seed=1)
    rng = np.random.default_rng(0)
    y_random = rng.permutation(y)
    easy = landmarking_features(X, y, random_state=2)
    hard = landmarking_features(X, y_random, random_state=2)
    for probe in LANDMARKING_PROBES:
        assert hard[f"{probe}_cv_error"] > easy[f"{probe}_cv_error"]
    again = landmarking_features(X, y_random, random_state=2)
    pd.testing.assert_series_equal(hard, again)
    # the 1-NN probe memorises: its training error is 0, so the gap signal comes from the linear probe
    assert hard["linear_train_test_gap"] > 0


def test_landmarking_with_a_tiny_class_uses_fewer_folds():
    X, y = _separable(n_per_class=6)
    y = y.copy()
    y[0] = "c"  # class of one series
    out = landmarking_features(X, y, n_splits=5, n_bootstrap=3)
    assert np.isfinite(out.to_numpy()).all()
    with pytest.raises(ValueError, match="n_splits"):
        landmarking_features(X, y, n_splits=1)


# ------------------------------------------------------------------------------ per dataset

def test_subsample_and_rng():
    rng = np.random.default_rng(0)
    idx = subsample_indices(100, 10, rng)
    assert len(idx) == 10 == len(set(idx)) and (np.diff(idx) > 0).all() and idx.max() < 100
    assert np.array_equal(subsample_indices(5, 10, rng), np.arange(5))
    assert np.array_equal(subsample_indices(5, None, rng), np.arange(5))
    with pytest.raises(ValueError):
        subsample_indices(5, 0, rng)
    a = dataset_rng(7, "GunPoint").integers(1 << 30, size=3)
    b = dataset_rng(7, "GunPoint").integers(1 << 30, size=3)
    c = dataset_rng(7, "Coffee").integers(1 << 30, size=3)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_dataset_features_pools_splits_and_caps_series(walks):
    y = np.array(["a", "b"] * 6)
    Xtr, ytr, Xte, yte = walks[:8], y[:8], walks[8:], y[8:]
    simple = dataset_features("simple", Xtr, ytr, Xte, yte, dataset="D")
    assert simple.name == "D" and simple["n_series"] == 12 and simple["series_length"] == 40
    full = dataset_features("summary", Xtr, ytr, Xte, yte, dataset="D", max_series=None)
    np.testing.assert_allclose(full.to_numpy(),
                               summary_series_features(walks).mean(axis=0).to_numpy())
    capped = dataset_features("summary", Xtr, ytr, Xte, yte, dataset="D", max_series=5, seed=1)
    again = dataset_features("summary", Xtr, ytr, Xte, yte, dataset="D", max_series=5, seed=1)
    other = dataset_features("summary", Xtr, ytr, Xte, yte, dataset="D", max_series=5, seed=2)
    pd.testing.assert_series_equal(capped, again)
    assert not np.allclose(capped.to_numpy(), other.to_numpy())
    idx = subsample_indices(12, 5, dataset_rng(1, "D"))
    np.testing.assert_allclose(capped.to_numpy(),
                               summary_series_features(walks[idx]).mean(axis=0).to_numpy())


def test_dataset_features_validates(walks):
    y = np.array(["a", "b"] * 6)
    with pytest.raises(ValueError, match="unknown representation"):
        dataset_features("wavelets", walks, y, walks, y)
    with pytest.raises(ValueError, match="lengths differ"):
        dataset_features("summary", walks, y, walks[:, :10], y)
    with pytest.raises(ValueError, match="labels"):
        dataset_features("summary", walks, y[:3], walks, y)
    with pytest.raises(ValueError, match="shared transform"):
        dataset_features("minirocket", walks, y, walks, y)


def test_average_keeps_infinities_only_when_asked():
    F = pd.DataFrame({"a": [1.0, np.inf, np.nan], "b": [1.0, 2.0, np.nan], "c": [np.nan] * 3})
    pd.testing.assert_series_equal(average_series_features(F, keep_infinite=True), F.mean(axis=0))
    np.testing.assert_allclose(average_series_features(F).to_numpy(), [1.0, 1.5, np.nan])


def test_gather_with_the_paper_filter_drops_instead_of_imputing():
    v1 = pd.Series({"ok": 1.0, "gap": np.nan, "huge": 2e9, "same": 3.0, "inf": np.inf}, name="D1")
    v2 = pd.Series({"ok": 2.0, "gap": 1.0, "huge": 1.0, "same": 3.0, "inf": 1.0}, name="D2")
    v3 = pd.Series({"ok": 4.0, "gap": 1.0, "huge": -1.0, "same": 3.0, "inf": 2.0, "only": 1.0}, name="D3")
    matrix, dropped, imputed = gather_features([v1, v2, v3], column_filter="paper")
    assert matrix.columns.tolist() == ["ok"] and matrix["ok"].tolist() == [1.0, 2.0, 4.0]
    assert dropped == ["gap", "huge", "same", "inf", "only"] and imputed == {}
    with pytest.raises(ValueError, match="column_filter"):
        gather_features([v1], column_filter="drop")


def test_gather_drops_imputes_and_orders():
    v1 = pd.Series({"a": 1.0, "b": np.nan, "c": 5.0}, name="D1")
    v2 = pd.Series({"a": 2.0, "b": np.nan, "c": np.inf}, name="D2")
    v3 = pd.Series({"a": 3.0, "b": 1.0}, name="D3")  # no "c"
    v4 = pd.Series({"a": 4.0, "b": 2.0, "c": 7.0}, name="D4")
    M, dropped, imputed = gather_features([v1, v2, v3, v4], order=["D4", "D3", "D2", "D1"])
    assert list(M.index) == ["D4", "D3", "D2", "D1"] and M.index.name == "dataset"
    assert list(M.columns) == ["a"] and set(dropped) == {"b", "c"} and imputed == {}
    M, dropped, imputed = gather_features([v1, v2, v3, v4], max_missing_fraction=0.5)
    assert list(M.columns) == ["a", "b", "c"] and dropped == []
    assert M.loc["D1", "b"] == 1.5 and M.loc["D2", "c"] == 6.0 and M.loc["D3", "c"] == 6.0
    assert imputed == {"b": 2, "c": 2}
    assert np.isfinite(M.to_numpy()).all()
    with pytest.raises(ValueError, match="twice"):
        gather_features([v1, v1])
    with pytest.raises(ValueError, match="order"):
        gather_features([v1, v2], order=["D1"])


def test_settings_and_options():
    s = resolve_settings({"max_series": 50}, seed=9)
    assert s["max_series"] == 50 and s["seed"] == 9 and s["tsfresh_parameters"] == "efficient"
    assert resolve_settings({"seed": 3}, seed=9)["seed"] == 3
    with pytest.raises(ValueError, match="unknown key"):
        resolve_settings({"max_seris": 1}, seed=0)
    assert representation_options("simple", s) == {}
    assert representation_options("summary", s) == {"max_series": 50, "seed": 9,
                                                     "acf_lags": DEFAULT_SETTINGS["summary_acf_lags"]}
    assert representation_options("tsfresh", s) == {"max_series": 100, "seed": 9, "tsfresh_parameters": "efficient"}
    own_cap_off = resolve_settings({"max_series": 50, "tsfresh_max_series": None}, seed=9)
    assert representation_options("tsfresh", own_cap_off)["max_series"] == 50
    assert representation_names(paper=False) == ["simple", "catch22", "tsfresh", "summary",
                                                  "minirocket", "landmarking"]
    assert representation_names(paper=True) == [f"{f}_paper" for f in ("simple", "catch22", "tsfresh",
                                                                        "summary", "landmarking")]
    assert all(REPRESENTATIONS[n].family == n.removesuffix("_paper") for n in REPRESENTATIONS)
    # the paper variants: every series unless capped; comprehensive tsfresh its own cap
    assert representation_options("summary_paper", s) == {"max_series": None, "seed": 9}
    assert representation_options("tsfresh_paper", s) == {"max_series": 10, "seed": 9}
    assert representation_options("landmarking_paper", s) == {"max_series": 100, "seed": 9}
    paper_cap = resolve_settings({"paper_max_series": 30, "tsfresh_paper_max_series": None}, seed=9)
    assert representation_options("tsfresh_paper", paper_cap)["max_series"] == 30
    assert representation_options("simple_paper", s) == {}
    assert [n for n, r in REPRESENTATIONS.items() if r.column_filter == "paper"] == ["tsfresh_paper"]
    # MiniRocket's per-dataset job depends on the sample and seed; the transform on the fit options
    assert representation_options("minirocket", s) == {"max_series": 50, "seed": 9}
    assert minirocket_fit_options(s) == {"per_dataset": 50, "length": 512, "n_kernels": 10_000, "seed": 9}
    with pytest.raises(ValueError, match="unknown representation"):
        representation_options("wavelets", s)


# ---------------------------------------------------------------------------- workflow test

WORKFLOW_DATASETS = ["ArrowHead", "GunPoint", "ItalyPowerDemand", "Rock"]  # Rock: in no offline source
WORKFLOW_REPRESENTATIONS = ["simple", "summary", "catch22", "tsfresh", "landmarking", "minirocket",
                            "simple_paper", "summary_paper", "tsfresh_paper"]


@pytest.mark.workflow
def test_tsc_feature_rules_on_sktime_bundled_datasets(tmp_path):
    """Run the real rules (no wheels, no mirror, no download) and check the gathered matrices."""
    (tmp_path / "Snakefile").write_text(
        'configfile: "config.yaml"\n'
        f'include: "{REPO / "workflow" / "rules" / "tsc_common.smk"}"\n'
        f'include: "{REPO / "workflow" / "rules" / "tsc_features.smk"}"\n'
        "rule all:\n"
        "    input: expand('results/features/tsc/{r}.csv', r="
        f"{WORKFLOW_REPRESENTATIONS!r})\n")
    (tmp_path / "config.yaml").write_text(
        "seed: 5\nmirror: null\nallow_download: false\n"
        f"features:\n  tsc:\n    datasets: {WORKFLOW_DATASETS}\n    max_series: 60\n"
        "    landmarking_bootstrap: 4\n    tsfresh_parameters: minimal\n    tsfresh_threads: 1\n"
        "    minirocket_fit_series: 20\n    minirocket_kernels: 840\n    minirocket_length: 128\n"
        "    paper_max_series: 40\n    tsfresh_paper_max_series: 2\n    datasets_per_job: 2\n")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    command = [sys.executable, "-m", "snakemake", "--cores", "2", "--directory", str(tmp_path),
               "--snakefile", str(tmp_path / "Snakefile")]
    run = subprocess.run(command + ["--quiet"], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    again = subprocess.run(command + ["--dry-run"], capture_output=True, text=True, env=env, timeout=300)
    assert "Nothing to be done" in again.stdout + again.stderr, (again.stdout + again.stderr)[-3000:]
    out = tmp_path / "results" / "features" / "tsc"
    available = pd.read_csv(out / "available.csv")
    assert available["dataset"].tolist() == WORKFLOW_DATASETS
    assert available["available"].tolist() == [True, True, True, False]
    present = WORKFLOW_DATASETS[:3]
    for rep in WORKFLOW_REPRESENTATIONS:
        M = pd.read_csv(out / f"{rep}.csv", index_col=0)
        assert M.index.tolist() == present and M.index.name == "dataset"
        assert np.isfinite(M.to_numpy()).all()
        assert (out / f"{rep}_datasets.txt").read_text().split() == present
    simple = pd.read_csv(out / "simple.csv", index_col=0)
    sizes = ["n_train", "n_test", "series_length", "n_classes"]
    assert simple.loc["GunPoint", sizes].tolist() == [50, 150, 150, 2]
    assert simple.loc["ArrowHead", sizes].tolist() == [36, 175, 251, 3]
    assert simple.loc["ItalyPowerDemand", "is_binary"] == 1 and simple.loc["ArrowHead", "is_binary"] == 0
    # the gathered rows equal the library computed directly on sktime's copies
    from benchdesign.domains.tsc.data import read_ucr_ts

    bundled = Path(importlib.util.find_spec("sktime").submodule_search_locations[0]) / "datasets" / "data"
    from benchdesign.domains.tsc.minirocket import fit_minirocket, fit_sample, load_parameters

    settings = resolve_settings({"max_series": 60, "landmarking_bootstrap": 4, "paper_max_series": 40,
                                 "minirocket_fit_series": 20, "minirocket_kernels": 840,
                                 "minirocket_length": 128}, seed=5)
    raw = {d: [read_ucr_ts(bundled / d / f"{d}_{s}.ts") for s in ("TRAIN", "TEST")] for d in present}
    # one MiniRocket transform, fitted on 20 series of each available dataset, used by every job
    shared = load_parameters(out / "minirocket_transform.npz")
    fit = fit_minirocket(fit_sample({d: np.vstack([a[0], b[0]]) for d, (a, b) in raw.items()}, 20, 128, 5),
                         840, random_state=5)
    np.testing.assert_array_equal(shared.biases, fit.biases)
    np.testing.assert_array_equal(shared.dilations, fit.dilations)
    # batches of 2 configured datasets: ArrowHead-GunPoint, ItalyPowerDemand-Rock (Rock in no source)
    batches = ["ArrowHead-GunPoint", "ItalyPowerDemand-Rock"]
    assert sorted(p.name for p in (tmp_path / "resources/tsc_raw").iterdir()) == batches
    for batch in batches:
        assert "shared MiniRocket transform" in (
            tmp_path / "logs/features/tsc_dataset_features/minirocket" / f"{batch}.log").read_text()
    for rep in ("summary", "landmarking", "minirocket", "summary_paper"):
        M = pd.read_csv(out / f"{rep}.csv", index_col=0)
        for d in ("GunPoint", "ItalyPowerDemand"):
            (Xtr, ytr), (Xte, yte) = raw[d]
            direct = dataset_features(rep, Xtr, ytr, Xte, yte, dataset=d, minirocket_parameters=shared,
                                      **representation_options(rep, settings))
            np.testing.assert_allclose(M.loc[d, direct.index].to_numpy(), direct.to_numpy(), rtol=1e-8)
    # the paper's tsfresh filter leaves no undefined, huge or constant column
    T = pd.read_csv(out / "tsfresh_paper.csv", index_col=0)
    assert T.shape[1] > 100 and (T.nunique() > 1).all() and (T.abs() <= 1e9).all().all()
    raw = tmp_path / "resources" / "tsc_raw" / "ArrowHead-GunPoint" / "GunPoint_TEST.tsv"
    assert raw.is_file()
    log = (tmp_path / "logs" / "features" / "tsc_available.log").read_text()
    assert "missing: Rock" in log
    # every job's measurement, summed per representation by the features benchmark
    summary = subprocess.run([sys.executable, str(REPO / "benchmarks" / "features.py"), "--from-jobs",
                              str(tmp_path), "--out", str(tmp_path / "jobs.csv")],
                             capture_output=True, text=True, env=env, timeout=300)
    assert summary.returncode == 0, summary.stderr[-3000:]
    jobs = pd.read_csv(tmp_path / "jobs.csv")
    assert sorted(zip(jobs["representation"], jobs["batch"])) == sorted(
        [(r, b) for r in WORKFLOW_REPRESENTATIONS for b in batches] + [("minirocket_fit", "(pooled)")])
    assert (jobs["s"] > 0).all() and (jobs["max_rss"] > 0).all()
    assert "for 2 jobs" in summary.stdout and f"for {len(jobs)} jobs" in summary.stdout
