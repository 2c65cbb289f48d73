"""Model factory, per-target fitting with missing labels, and metrics against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from markers import needs
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestClassifier
from sklearn.metrics import mean_absolute_error, roc_auc_score, root_mean_squared_error
from sklearn.neural_network import MLPRegressor
from sklearn.svm import LinearSVC, LinearSVR

from benchdesign.molexp.models import MODELS, fit_predict, make_model, score, target_scores

# Small budgets keep the file fast; the paper's settings are the make_model defaults.
QUICK = {"rf": {"n_estimators": 20}, "svm": {}, "xgb": {"n_estimators": 30}, "hgb": {"max_iter": 30},
         "mlp": {"max_iter": 30}}
needs_xgboost = needs("xgboost", "xgboost")
ALL_MODELS = [pytest.param(m, marks=needs_xgboost) if m == "xgb" else m for m in MODELS]


def _bits(n: int, p: int = 24, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2, size=(n, p)).astype(np.uint8)


# --------------------------------------------------------------------------- make_model


def test_make_model_paper_defaults():
    rf = make_model("rf", "regression", seed=42)
    assert rf.n_estimators == 500 and rf.n_jobs == 1 and rf.random_state == 42
    assert make_model("rf", "classification", seed=1, n_jobs=2).n_jobs == 2
    svr = make_model("svm", "regression", seed=42)
    assert isinstance(svr, LinearSVR) and svr.dual == "auto" and svr.max_iter == 1000
    assert isinstance(make_model("svm", "classification", seed=42), LinearSVC)
    assert isinstance(make_model("hgb", "regression", seed=42), HistGradientBoostingRegressor)
    mlp = make_model("mlp", "regression", seed=7)
    assert isinstance(mlp, MLPRegressor)
    assert mlp.hidden_layer_sizes == (512, 256, 64) and mlp.max_iter == 200 and mlp.random_state == 7


def test_make_model_overrides_and_errors():
    assert make_model("rf", "regression", seed=0, n_estimators=100).n_estimators == 100
    assert make_model("mlp", "classification", seed=0, max_iter=50).max_iter == 50
    message = r"unknown override\(s\) \['n_trees'\] for RandomForestRegressor; allowed: .*'n_estimators'"
    with pytest.raises(ValueError, match=message):
        make_model("rf", "regression", seed=0, n_trees=10)
    with pytest.raises(ValueError, match="'random_state' is not allowed; pass seed"):
        make_model("hgb", "regression", seed=0, random_state=3)
    with pytest.raises(ValueError, match="unknown model 'gb'; allowed: rf, svm, xgb, hgb, mlp"):
        make_model("gb", "regression", seed=0)
    with pytest.raises(ValueError, match="unknown task type 'multiclass'"):
        make_model("rf", "multiclass", seed=0)
    with pytest.raises(ValueError, match="seed must be an integer, got 0.5"):
        make_model("rf", "regression", seed=0.5)
    with pytest.raises(ValueError, match="n_jobs must be a positive integer, got 0"):
        make_model("rf", "regression", seed=0, n_jobs=0)


# --------------------------------------------------------------------------- score


def test_scores_equal_sklearn_per_target_with_missing_labels():
    y_true = np.array([[1.0, np.nan, 0.0], [2.0, 3.0, np.nan], [np.nan, 5.0, 1.0], [4.0, 1.0, 1.0]])
    y_pred = np.array([[1.5, 9.0, 0.2], [2.0, 2.0, 0.9], [np.nan, 4.0, 0.1], [3.0, 1.5, 0.7]])
    cols = [np.flatnonzero(~np.isnan(y_true[:, t])) for t in range(3)]
    mae = [mean_absolute_error(y_true[c, t], y_pred[c, t]) for t, c in enumerate(cols)]
    rmse = [root_mean_squared_error(y_true[c, t], y_pred[c, t]) for t, c in enumerate(cols)]
    assert score("mae", y_true, y_pred) == pytest.approx(np.mean(mae))
    assert score("rmse", y_true, y_pred) == pytest.approx(np.mean(rmse))
    # target 2 by hand: labels 0, 1, 1 with scores 0.2, 0.1, 0.7 -> AUC 1/2
    assert target_scores("roc_auc", y_true[:, [2]], y_pred[:, [2]])[0][0] == pytest.approx(0.5)
    assert score("mae", y_true[:, 0], y_pred[:, 0]) == pytest.approx(mae[0])


def test_roc_auc_skips_single_class_and_unpredicted_targets():
    y_true = np.array([[0, 1, 0, np.nan], [1, 1, 1, np.nan], [0, 1, 1, np.nan], [1, 1, 0, np.nan]])
    y_pred = np.array(
        [[0.1, 0.3, np.nan, 0.2], [0.8, 0.2, np.nan, 0.4], [0.4, 0.9, np.nan, 0.1], [0.3, 0.5, np.nan, 0.3]]
    )
    values, skipped = target_scores("roc_auc", y_true, y_pred)
    assert values[0] == pytest.approx(roc_auc_score(y_true[:, 0], y_pred[:, 0]))
    assert np.isnan(values[1:]).all()
    assert "single class (1)" in skipped[1]
    assert "no predictions" in skipped[2]
    assert "no labelled test row" in skipped[3]
    assert score("roc_auc", y_true, y_pred) == pytest.approx(values[0])
    assert np.isnan(score("roc_auc", y_true[:, 1:], y_pred[:, 1:]))


def test_score_errors():
    y = np.array([[0.0], [1.0]])
    with pytest.raises(ValueError, match="unknown metric 'auc'; allowed: mae, rmse, roc_auc"):
        score("auc", y, y)
    with pytest.raises(ValueError, match=r"Y_pred has shape \(2, 2\), expected \(2, 1\)"):
        score("mae", y, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="Y_pred is NaN at labelled row 1 of target 0"):
        score("mae", y, np.array([[0.5], [np.nan]]))
    with pytest.raises(ValueError, match="0/1 labels .* found 2.0"):
        score("roc_auc", np.array([[0.0], [2.0]]), y)


# --------------------------------------------------------------------------- fit_predict


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # LinearSVR at max_iter
@pytest.mark.parametrize("name", ALL_MODELS)
def test_regression_learns_first_bit_deterministically(name):
    x = _bits(240)
    noise = np.random.default_rng(1).normal(0, 0.05, size=(240, 2))
    y = np.column_stack([x[:, 0], 2.0 - x[:, 1]]) + noise
    tr, te = slice(0, 180), slice(180, None)
    pred = fit_predict(name, "regression", x[tr], y[tr], x[te], seed=3, **QUICK[name])
    assert pred.shape == (60, 2) and np.isfinite(pred).all()
    constant = score("mae", y[te], np.broadcast_to(y[tr].mean(axis=0), (60, 2)))
    assert score("mae", y[te], pred) < 0.5 * constant
    again = fit_predict(name, "regression", x[tr], y[tr], x[te], seed=3, **QUICK[name])
    np.testing.assert_array_equal(pred, again)


@pytest.mark.parametrize("name", ALL_MODELS)
def test_classification_learns_first_bit_with_missing_labels(name):
    x = _bits(300, seed=2)
    y = np.column_stack([x[:, 0], x[:, 1], np.zeros(300)]).astype(float)
    y[::4, 0] = np.nan  # missing labels
    y[:, 2][::2] = np.nan  # single training class (all 0) -> no model
    tr, te = slice(0, 220), slice(220, None)
    pred = fit_predict(name, "classification", x[tr], y[tr], x[te], seed=5, **QUICK[name])
    assert pred.shape == (80, 3)
    assert np.isfinite(pred[:, :2]).all() and np.isnan(pred[:, 2]).all()
    values, skipped = target_scores("roc_auc", y[te], pred)
    assert (values[:2] > 0.95).all() and set(skipped) == {2}
    np.testing.assert_array_equal(pred, fit_predict(name, "classification", x[tr], y[tr], x[te], seed=5, **QUICK[name]))


def test_each_target_uses_only_its_labelled_rows():
    x = _bits(150, seed=4)
    y = np.column_stack([x[:, 0] + 0.1 * x[:, 2], x[:, 1]]).astype(float)
    y[::3, 0] = np.nan
    pred = fit_predict("hgb", "regression", x[:100], y[:100], x[100:], seed=0, max_iter=20)
    keep = ~np.isnan(y[:100, 0])
    direct = make_model("hgb", "regression", seed=0, max_iter=20).fit(x[:100][keep].astype(np.float32), y[:100][keep, 0])
    np.testing.assert_allclose(pred[:, 0], direct.predict(x[100:].astype(np.float32)))


@needs_xgboost
def test_xgb_is_xgboost_with_its_defaults_one_model_per_target():
    """The paper's XGB: XGBoost's estimators with their defaults, fitted per target on its labelled rows, equal to
    fitting xgboost directly; classification scores are predict_proba of class 1."""
    from xgboost import XGBClassifier, XGBRegressor

    model = make_model("xgb", "regression", seed=42, n_jobs=2)
    assert isinstance(model, XGBRegressor) and model.random_state == 42 and model.n_jobs == 2
    assert {k: v for k, v in model.get_params().items() if k not in ("random_state", "n_jobs", "objective")} == \
        {k: v for k, v in XGBRegressor().get_params().items() if k not in ("random_state", "n_jobs", "objective")}
    assert isinstance(make_model("xgb", "classification", seed=0), XGBClassifier)
    x = _bits(160, seed=10)
    y = np.column_stack([x[:, 0] + 0.2 * x[:, 3], x[:, 1] - x[:, 2]]).astype(float)
    y[::4, 1] = np.nan
    pred = fit_predict("xgb", "regression", x[:120], y[:120], x[120:], seed=1, n_estimators=10)
    for t in range(2):
        keep = ~np.isnan(y[:120, t])
        direct = XGBRegressor(n_estimators=10, random_state=1, n_jobs=1).fit(x[:120][keep].astype(np.float32),
                                                                             y[:120][keep, t])
        np.testing.assert_allclose(pred[:, t], direct.predict(x[120:].astype(np.float32)), rtol=1e-6)
    labels = x[:, :1].astype(float)
    proba = fit_predict("xgb", "classification", x[:120], labels[:120], x[120:], seed=1, n_estimators=10)
    direct = XGBClassifier(n_estimators=10, random_state=1, n_jobs=1).fit(x[:120].astype(np.float32), labels[:120, 0])
    np.testing.assert_allclose(proba[:, 0], direct.predict_proba(x[120:].astype(np.float32))[:, 1], rtol=1e-6)


def test_svm_scores_are_decision_function_and_rf_proba():
    x = _bits(120, seed=6)
    y = x[:, 0].astype(float)
    svm = fit_predict("svm", "classification", x[:90], y[:90], x[90:], seed=0)
    direct = LinearSVC(dual="auto", max_iter=1000, random_state=0).fit(x[:90].astype(np.float32), y[:90])
    np.testing.assert_allclose(svm[:, 0], direct.decision_function(x[90:].astype(np.float32)))
    assert svm.min() < 0 < svm.max()
    rf = fit_predict("rf", "classification", x[:90], y[:90], x[90:], seed=0, n_estimators=10)
    forest = RandomForestClassifier(n_estimators=10, random_state=0, n_jobs=1).fit(x[:90].astype(np.float32), y[:90])
    np.testing.assert_allclose(rf[:, 0], forest.predict_proba(x[90:].astype(np.float32))[:, 1])


def test_seed_changes_randomised_models():
    x = _bits(100, seed=8)
    y = x[:, 0] + np.random.default_rng(9).normal(0, 0.3, size=100)
    a = fit_predict("rf", "regression", x[:80], y[:80], x[80:], seed=0, n_estimators=5)
    b = fit_predict("rf", "regression", x[:80], y[:80], x[80:], seed=1, n_estimators=5)
    assert a.shape == (20, 1) and not np.array_equal(a, b)


def test_fit_predict_validates_inputs():
    x = _bits(20)
    y = x[:, :1].astype(float)
    with pytest.raises(ValueError, match="Y_train has 19 rows but X_train has 20"):
        fit_predict("rf", "regression", x, y[:19], x, seed=0)
    with pytest.raises(ValueError, match="X_test has 23 features but X_train has 24"):
        fit_predict("rf", "regression", x, y, x[:, 1:], seed=0)
    with pytest.raises(ValueError, match="0/1 labels .* found 3.0"):
        fit_predict("hgb", "classification", x, y * 3, x, seed=0)
    with pytest.raises(ValueError, match="unknown override.*'epochs'"):
        fit_predict("mlp", "regression", x, y, x, seed=0, epochs=3)
    bad = x.astype(float)
    bad[4, 2] = np.nan
    with pytest.raises(ValueError, match="X_train has NaN/inf in row 4"):
        fit_predict("svm", "regression", bad, y, x, seed=0)


def test_examples_of_the_model_modules_run():
    """The Examples sections of make_model, the settings helpers (dataset_models, model_settings_lines,
    protein_options), DeepDTA's string encoding (its torch examples are skipped: tests/molexp/test_deepdta.py trains
    it) and of the protein features (ESM-2's need weights: tests/molexp/test_protein_embeddings.py)."""
    import doctest

    from benchdesign.molexp import deepdta, features, models, protein_embeddings, settings

    for module in (models, settings, deepdta, features, protein_embeddings):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0 and result.attempted > 0, (module.__name__, result)
