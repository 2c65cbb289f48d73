"""Estimators from a subset to the full benchmark (issue 38): each against a hand computation or scikit-learn,
the jackknife interval, the JSON round trip, and no held-out score reaching a subset or a fit."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata
from sklearn.covariance import LedoitWolf
from sklearn.linear_model import Ridge
from sklearn.model_selection import LeaveOneOut, cross_val_predict

from benchdesign.selection import rank_scores
from benchdesign.selection.estimators import (
    ESTIMATORS,
    RIDGE_ALPHAS,
    SubsetEstimator,
    estimator_holdout_fits,
    estimator_holdout_trials,
    fit_anchor,
    fit_gaussian,
    fit_mean,
    fit_ridge,
    fit_subset_estimator,
    loo_residuals,
    predict_full_rank,
    shares_against,
    slots,
    win_shares,
)
from benchdesign.selection.metrics import spearman
from benchdesign.selection.options import ESTIMATOR_NAMES
from benchdesign.selection.protocol import model_holdout_subsets

RNG = np.random.default_rng(38)
SKILL = np.linspace(0.0, 1.0, 14)
CUBE = SKILL[None, None, :] + 0.4 * RNG.normal(size=(16, 2, 14))  # 16 datasets, 2 folds, 14 models
X = RNG.normal(size=(16, 3))


def _long(cube: np.ndarray, models=None) -> pd.DataFrame:
    n, F, M = cube.shape
    models = models or [f"m{j:02d}" for j in range(M)]
    return pd.DataFrame([(f"d{d:02d}", models[j], f, cube[d, f, j]) for d in range(n) for j in range(M)
                         for f in range(F)], columns=["dataset", "model", "fold", "score"])


# ----------------------------------------------------------------------------------- win shares

def test_win_shares_order_the_models_as_the_mean_rank_does():
    S = CUBE.mean(axis=1)
    values = win_shares(S, higher_is_better=True)
    M = S.shape[1]
    ranks = np.array([rankdata(-row) for row in S])  # (n, M), 1 = best
    np.testing.assert_allclose(values, ((M - ranks) / (M - 1)).T)
    # one fold: y = (M - R_D) / (M - 1) with the project's R_D
    one = _long(S[:, None, :])
    R_D = rank_scores(one, True).mean(axis=0).to_numpy()
    np.testing.assert_allclose(values.mean(axis=1), (M - R_D) / (M - 1))
    np.testing.assert_allclose(win_shares(-S, higher_is_better=False), values)


def test_shares_against_by_hand_and_as_a_seen_model_against_the_others():
    # new scores 0.7 and 0.3 against seen (0.9, 0.5) and (0.1, 0.3): beats 1 of 2, then 1 + a tie of 2
    np.testing.assert_allclose(shares_against([[0.9, 0.5], [0.1, 0.3]], [[0.7], [0.3]], True), [[0.5, 0.75]])
    np.testing.assert_allclose(shares_against([[0.9, 0.5], [0.1, 0.3]], [[0.7], [0.3]], False), [[0.5, 0.25]])
    S = CUBE.mean(axis=1)
    for j in (0, 5, 13):
        others = np.delete(S, j, axis=1)
        np.testing.assert_allclose(shares_against(others, S[:, [j]], True)[0], win_shares(S, True)[j])


def test_slots_count_the_larger_and_half_the_ties():
    assert slots([0.9, 0.5, 0.2], [1.0, 0.9, 0.5, 0.3, 0.2, 0.0]).tolist() == [1.0, 1.5, 2.5, 3.0, 3.5, 4.0]


# ----------------------------------------------------------------------------------- estimators

def test_mean_weights_are_one_over_k():
    fit = fit_mean(RNG.random((5, 7)), [6, 0, 3])
    assert fit.weights.tolist() == [1 / 3] * 3 and fit.intercept == 0.0


def test_anchor_weights_on_a_three_dataset_pool_by_hand():
    # profiles (columns): d0 = (0, 1), d1 = (0.1, 0.9), d2 = (1, 0); d1 is nearer d0 (0.14) than d2 (1.27)
    values = np.array([[0.0, 0.1, 1.0], [1.0, 0.9, 0.0]])
    fit = fit_anchor(values, [0, 2])
    np.testing.assert_allclose(fit.weights, [2 / 3, 1 / 3])
    assert fit.params["counts"] == [2, 1]
    # subset order is kept; the prediction is the weighted mean of the subset's values
    np.testing.assert_allclose(fit_anchor(values, [2, 0]).weights, [1 / 3, 2 / 3])
    np.testing.assert_allclose(fit.predict([[0.3, 0.6]]), [2 / 3 * 0.3 + 1 / 3 * 0.6])
    # a chosen dataset stands for itself even with the same profile as another chosen one
    same = np.array([[0.5, 0.5, 0.2], [0.5, 0.5, 0.8]])
    np.testing.assert_allclose(fit_anchor(same, [0, 1]).weights, [2 / 3, 1 / 3])


def test_ridge_equals_sklearn_at_the_penalty_leave_one_out_chooses():
    values = win_shares(CUBE.mean(axis=1), True)
    subset = np.array([2, 7, 11, 4])
    Xs, y = values[:, subset], values.mean(axis=1)
    loo = [np.mean((cross_val_predict(Ridge(alpha=a), Xs, y, cv=LeaveOneOut()) - y) ** 2) for a in RIDGE_ALPHAS]
    fit = fit_ridge(values, subset)
    assert fit.params["alpha"] == RIDGE_ALPHAS[int(np.argmin(loo))]
    reference = Ridge(alpha=fit.params["alpha"]).fit(Xs, y)
    np.testing.assert_allclose(fit.weights, reference.coef_, atol=1e-10)
    assert fit.intercept == pytest.approx(reference.intercept_)
    for alpha in (0.01, 1.0):
        one = fit_ridge(values, subset, alphas=[alpha])
        np.testing.assert_allclose(one.weights, Ridge(alpha=alpha).fit(Xs, y).coef_, atol=1e-10)
    with pytest.raises(ValueError, match="alphas"):
        fit_ridge(values, subset, alphas=[0.0])


def test_gaussian_equals_the_conditional_mean_computed_directly():
    values = win_shares(CUBE.mean(axis=1), True)
    subset = np.array([3, 9, 14])
    rest = np.setdiff1d(np.arange(values.shape[1]), subset)
    fit = fit_gaussian(values, subset)
    lw = LedoitWolf().fit(values)
    sigma, mu = lw.covariance_, values.mean(axis=0)
    assert fit.params["shrinkage"] == pytest.approx(lw.shrinkage_)
    new = RNG.random((4, subset.size))
    for x in new:
        conditional = mu[rest] + sigma[np.ix_(rest, subset)] @ np.linalg.inv(sigma[np.ix_(subset, subset)]) @ (
            x - mu[subset])
        expected = (x.sum() + conditional.sum()) / values.shape[1]
        assert fit.predict(x[None, :])[0] == pytest.approx(expected)
    # every dataset observed: the plain mean
    everything = np.arange(values.shape[1])
    np.testing.assert_allclose(fit_gaussian(values, everything).weights, 1 / values.shape[1])


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_loo_residuals_are_refits_without_the_model(name):
    values = win_shares(CUBE.mean(axis=1), True)
    subset = np.array([1, 5, 8])
    y = values.mean(axis=1)
    expected = [y[j] - ESTIMATORS[name](np.delete(values, j, axis=0), subset).predict(values[[j]][:, subset])[0]
                for j in range(values.shape[0])]
    np.testing.assert_allclose(loo_residuals(name, values, subset), expected)


def test_estimators_refuse_bad_subsets_by_value():
    values = RNG.random((5, 4))
    with pytest.raises(ValueError, match="outside 0..3"):
        fit_mean(values, [0, 4])
    with pytest.raises(ValueError, match="twice"):
        fit_anchor(values, [1, 1])
    with pytest.raises(ValueError, match="n_models >= 3"):
        fit_ridge(values[:2], [0])


# ------------------------------------------------------------------------------ on a benchmark

def test_fit_and_predict_a_new_model_by_hand():
    scores = _long(CUBE)
    subset = ["d03", "d10", "d07"]
    fitted = fit_subset_estimator(scores, subset, True, "mean", level=0.8)
    S = CUBE.mean(axis=1)
    values = win_shares(S, True)
    np.testing.assert_allclose(fitted.full_shares, values.mean(axis=1))
    np.testing.assert_allclose(fitted.reference_scores, S[[3, 10, 7]])
    residuals = values.mean(axis=1) - values[:, [3, 10, 7]].mean(axis=1)
    np.testing.assert_allclose(fitted.residuals, residuals)
    at = math.ceil(15 * 0.8)  # jackknife: the ceil((M + 1) level)-th smallest |residual|
    assert fitted.half_width == pytest.approx(np.sort(np.abs(residuals))[at - 1])
    # a new model with two folds on the subset only (and a dataset of no interest)
    new_scores = np.array([[1.1, 1.3], [0.2, 0.0], [0.9, 0.7]])
    new = pd.DataFrame([(d, "new", f, new_scores[i, f]) for i, d in enumerate(subset) for f in range(2)]
                       + [("elsewhere", "new", 0, 5.0)], columns=["dataset", "model", "fold", "score"])
    out = predict_full_rank(fitted, new).iloc[0]
    x = [np.mean(S[d] < new_scores[i].mean()) for i, d in enumerate([3, 10, 7])]
    assert out["share"] == pytest.approx(np.mean(x))
    full = values.mean(axis=1)
    assert out["rank"] == 1 + np.sum(full > out["share"]) + 0.5 * np.sum(full == out["share"])
    assert out["share_lo"] == pytest.approx(max(0.0, out["share"] - fitted.half_width))
    assert out["rank_lo"] == slots(full, [out["share"] + fitted.half_width])[0] <= out["rank"]
    assert out["rank_hi"] == slots(full, [out["share"] - fitted.half_width])[0] >= out["rank"]


@pytest.mark.parametrize("name", ESTIMATOR_NAMES)
def test_json_round_trip_gives_the_same_predictions(name):
    scores = _long(CUBE)
    fitted = fit_subset_estimator(scores, ["d00", "d05", "d09", "d13"], True, name)
    again = SubsetEstimator.from_dict(json.loads(json.dumps(fitted.to_dict())))
    new = _long(RNG.normal(size=(16, 1, 3)) + 0.5, ["x", "y", "z"])
    pd.testing.assert_frame_equal(predict_full_rank(fitted, new), predict_full_rank(again, new))
    pd.testing.assert_frame_equal(predict_full_rank(fitted, new), predict_full_rank(fitted.to_dict(), new))
    assert fitted.estimator in ESTIMATORS


def test_auto_takes_the_least_leave_one_model_out_error():
    scores = _long(CUBE)
    fitted = fit_subset_estimator(scores, ["d01", "d04", "d12"], True, "auto")
    errors = fitted.params["loo_mae"]
    assert set(errors) == set(ESTIMATORS) and fitted.estimator == min(errors, key=errors.get)
    values = win_shares(CUBE.mean(axis=1), True)
    for name, error in errors.items():
        assert error == pytest.approx(np.mean(np.abs(loo_residuals(name, values, np.array([1, 4, 12])))))


def test_too_few_models_give_an_unbounded_interval():
    fitted = fit_subset_estimator(_long(CUBE[:, :, :5]), ["d00", "d01"], True, "mean", level=0.9)
    assert math.isinf(fitted.half_width) and fitted.to_dict()["half_width"] is None
    row = predict_full_rank(fitted, _long(CUBE[:, :, [7]], ["new"])).iloc[0]
    assert (row["share_lo"], row["share_hi"], row["rank_lo"], row["rank_hi"]) == (0.0, 1.0, 1.0, 6.0)


def test_bad_inputs_are_named():
    scores = _long(CUBE)
    with pytest.raises(ValueError, match="unknown estimator 'irt'"):
        fit_subset_estimator(scores, ["d00"], True, "irt")
    with pytest.raises(ValueError, match=r"unknown dataset\(s\) \['nope'\]"):
        fit_subset_estimator(scores, ["d00", "nope"], True)
    with pytest.raises(ValueError, match=r"\['d00'\] more than once"):
        fit_subset_estimator(scores, ["d00", "d00"], True)
    with pytest.raises(ValueError, match="level=1.5"):
        fit_subset_estimator(scores, ["d00"], True, level=1.5)
    with pytest.raises(ValueError, match="'ridge' needs at least 4 seen models, the scores have 3"):
        fit_subset_estimator(_long(CUBE[:, :, :3]), ["d00"], True, "ridge")
    for name, fewest in (("auto", 4), ("ridge", 4), ("gaussian", 3), ("mean", 2), ("anchor", 2)):
        assert fit_subset_estimator(_long(CUBE[:, :, :fewest]), ["d00", "d03"], True, name).estimator in ESTIMATORS
    fitted = fit_subset_estimator(scores, ["d00", "d01"], True, "mean")
    partial = pd.DataFrame({"dataset": ["d00"], "model": ["new"], "score": [0.5]})
    with pytest.raises(ValueError, match="model 'new' has no score on the chosen dataset 'd01'"):
        predict_full_rank(fitted, partial)
    with pytest.raises(ValueError, match="non-numeric score for dataset 'd01', model 'new'"):
        predict_full_rank(fitted, pd.DataFrame({"dataset": ["d00", "d01"], "model": "new", "score": [0.5, "x"]}))
    broken = {**fitted.to_dict(), "weights": [1.0]}
    with pytest.raises(ValueError, match="inconsistent"):
        predict_full_rank(broken, partial)


# ------------------------------------------------------------------------- judged on held-out models

def _fits(cube, estimators=ESTIMATOR_NAMES):
    return [(t, held.tolist(), k, subset.tolist(),
             {e: (f.weights.tolist(), f.intercept, f.params) for e, f in fits.items()},
             {e: r.tolist() for e, r in residuals.items()})
            for t, held, k, subset, fits, residuals in estimator_holdout_fits(
                cube, True, X, "kmeans", [3, 6], 4, 0.75, 5, options={"n_init": 2}, estimators=estimators)]


def test_held_out_scores_reach_neither_the_subset_nor_the_fit():
    clean = _fits(CUBE)
    for t in {row[0] for row in clean}:
        held = next(row[1] for row in clean if row[0] == t)
        poisoned = CUBE.copy()
        poisoned[:, :, held] = RNG.normal(scale=100.0, size=poisoned[:, :, held].shape)
        again = [row for row in _fits(poisoned) if row[0] == t]
        assert again == [row for row in clean if row[0] == t]


def test_seen_scores_do_reach_the_fit():
    """The check above can fail: poisoning a seen model changes the fitted weights."""
    clean = _fits(CUBE, ("ridge", "anchor", "gaussian"))
    held = clean[0][1]
    seen = np.setdiff1d(np.arange(CUBE.shape[2]), held)
    poisoned = CUBE.copy()
    poisoned[:, :, seen[:3]] = RNG.normal(scale=100.0, size=(16, 2, 3))
    again = _fits(poisoned, ("ridge", "anchor", "gaussian"))
    assert [row[4] for row in again if row[0] == 0] != [row[4] for row in clean if row[0] == 0]


def test_holdout_trials_by_hand():
    frame = estimator_holdout_trials(CUBE, True, X, "random", [4], 3, 0.75, 2, level=0.8)
    assert frame.equals(estimator_holdout_trials(CUBE, True, X, "random", [4], 3, 0.75, 2, level=0.8))
    S = CUBE.mean(axis=1)
    for t, _, held, subsets in model_holdout_subsets(CUBE, True, X, "random", [4], 3, 0.75, 2):
        seen = np.setdiff1d(np.arange(14), held)
        values = win_shares(S[:, seen], True)
        full = values.mean(axis=1)
        subset = subsets[4]
        fit = fit_ridge(values, subset)
        new = shares_against(S[:, seen], S[:, held], True)
        predicted, truth = fit.predict(new[:, subset]), new.mean(axis=1)
        got = frame[(frame["trial"] == t) & (frame["estimator"] == "ridge")].set_index("metric")["value"]
        assert got["rank_mae"] == pytest.approx(np.mean(np.abs(slots(full, predicted) - slots(full, truth))))
        assert got["share_mae"] == pytest.approx(np.mean(np.abs(predicted - truth)))
        assert got["spearman"] == pytest.approx(spearman(-predicted, -truth))
        assert got["loo_mae"] == pytest.approx(np.mean(np.abs(loo_residuals("ridge", values, subset))))
        auto = frame[(frame["trial"] == t) & (frame["estimator"] == "auto")].set_index("metric")["value"]
        best = min(ESTIMATORS, key=lambda e: np.mean(np.abs(loo_residuals(e, values, subset))))
        assert auto["loo_mae"] == pytest.approx(np.mean(np.abs(loo_residuals(best, values, subset))))
        assert 0.0 <= got["coverage"] <= 1.0


# ------------------------------------------------------------------------ select --estimator, predict

@pytest.fixture()
def files(tmp_path):
    scores = tmp_path / "scores.csv"
    _long(CUBE).to_csv(scores, index=False)
    feats = tmp_path / "meta.csv"
    rows = pd.DataFrame(np.vstack([X, RNG.normal(size=(1, 3))]), columns=["f1", "f2", "f3"],
                        index=pd.Index([f"d{d:02d}" for d in range(16)] + ["unscored"], name="dataset"))
    rows.to_csv(feats)
    return tmp_path, scores, feats


def test_select_writes_the_fit_and_predict_applies_it(files, capsys):
    from benchdesign.cli import main
    from benchdesign.domains import read_scores_table

    tmp, scores, feats = files
    out = tmp / "chosen.txt"
    assert main(["select", "--features", str(feats), "-k", "4", "--scores", str(scores), "--higher-is-better",
                 "--estimator", "ridge", "--level", "0.8", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "ignoring 1 row(s)" in err and "estimator ridge fitted on 14 models and 16 datasets" in err
    chosen = out.read_text().split()
    assert "unscored" not in chosen
    report = json.loads((tmp / "chosen.txt.json").read_text())
    expected = fit_subset_estimator(read_scores_table(scores, True), chosen, True, "ridge", 0.8)
    assert report["estimator"] == json.loads(json.dumps(expected.to_dict()))
    new = tmp / "new.csv"  # one new model, wide, on the chosen datasets only
    pd.DataFrame({"dataset": chosen, "newbie": [1.0, 0.2, 0.9, 0.4]}).to_csv(new, index=False)
    assert main(["predict", "--estimator", str(tmp / "chosen.txt.json"), "--scores", str(new),
                 "--json", str(tmp / "rank.json")]) == 0
    printed = capsys.readouterr().out
    table = predict_full_rank(expected, pd.DataFrame({"dataset": chosen, "model": "newbie",
                                                      "score": [1.0, 0.2, 0.9, 0.4]}))
    assert "newbie" in printed
    written = pd.DataFrame(json.loads((tmp / "rank.json").read_text()))
    pd.testing.assert_frame_equal(written, table, check_dtype=False)


@pytest.mark.parametrize("args,message", [
    (["--estimator", "mean"], "--estimator mean needs --scores FILE"),
    (["--scores", "SCORES"], "--scores goes only with --estimator NAME"),
    (["--estimator", "mean", "--scores", "SCORES", "--lower-is-better", "--out", "-"],
     "writes the fitted estimator into the JSON report"),
    (["--estimator", "mean", "--scores", "SCORES", "--higher-is-better", "--level", "1", "--out", "OUT"],
     "level=1.0"),
])
def test_select_estimator_options_need_their_partners(files, capsys, args, message):
    from benchdesign.cli import main

    tmp, scores, feats = files
    args = [str(scores) if a == "SCORES" else str(tmp / "c.txt") if a == "OUT" else a for a in args]
    assert main(["select", "--features", str(feats), "-k", "3", *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp / "c.txt").exists()


def test_predict_refuses_a_report_without_a_fit_and_names_a_missing_dataset(files, capsys):
    from benchdesign.cli import main

    tmp, scores, feats = files
    assert main(["select", "--features", str(feats), "-k", "3", "--out", str(tmp / "plain.txt")]) == 0
    new = tmp / "new.csv"
    pd.DataFrame({"dataset": ["d00"], "model": ["a"], "score": [0.3]}).to_csv(new, index=False)
    assert main(["predict", "--estimator", str(tmp / "plain.txt.json"), "--scores", str(new)]) == 2
    assert "has no fitted estimator" in capsys.readouterr().err
    assert main(["select", "--features", str(feats), "-k", "3", "--scores", str(scores), "--higher-is-better",
                 "--estimator", "anchor", "--out", str(tmp / "fit.txt")]) == 0
    chosen = (tmp / "fit.txt").read_text().split()
    capsys.readouterr()
    pd.DataFrame({"dataset": chosen[:2], "model": "a", "score": [0.3, 0.4]}).to_csv(new, index=False)
    assert main(["predict", "--estimator", str(tmp / "fit.txt.json"), "--scores", str(new)]) == 2
    assert f"model 'a' has no score on the chosen dataset {chosen[2]!r}" in capsys.readouterr().err
