import time

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from benchdesign.selection.ranking import average_ranks, mean_ranks, rank_scores, rerank


def _long(cube: np.ndarray, datasets=None, models=None) -> pd.DataFrame:
    """(n, F, M) score cube -> long frame in dataset, fold, model order."""
    n, f, m = cube.shape
    datasets = datasets or [f"d{i}" for i in range(n)]
    models = models or [f"m{j}" for j in range(m)]
    idx = pd.MultiIndex.from_product(
        [datasets, range(f), models], names=["dataset", "fold", "model"]
    )
    return pd.DataFrame({"score": cube.ravel()}, index=idx).reset_index()[
        ["dataset", "model", "fold", "score"]
    ]


def _slow_ranks(scores: pd.DataFrame, higher_is_better: bool) -> pd.DataFrame:
    """Reference: explicit loop over (dataset, fold) with scipy's rankdata."""
    datasets = list(dict.fromkeys(scores["dataset"]))
    models = list(dict.fromkeys(scores["model"]))
    out = pd.DataFrame(0.0, index=datasets, columns=models)
    for d in datasets:
        sub = scores[scores["dataset"] == d]
        folds = sorted(sub["fold"].unique())
        for f in folds:
            g = sub[sub["fold"] == f].set_index("model")["score"].reindex(models)
            s = -g.to_numpy() if higher_is_better else g.to_numpy()
            out.loc[d] += rankdata(s, method="average") / len(folds)
    return out


def test_hand_checked_ties_and_fold_mean():
    # dataset a, fold 0: scores 0.9, 0.5, 0.5 -> ranks 1, 2.5, 2.5
    # dataset a, fold 1: scores 0.1, 0.2, 0.3 -> ranks 3, 2, 1     => mean 2, 2.25, 1.75
    # dataset b, fold 0: scores 1, 1, 1 -> ranks 2, 2, 2
    rows = [
        ("a", "x", 0, 0.9), ("a", "y", 0, 0.5), ("a", "z", 0, 0.5),
        ("a", "x", 1, 0.1), ("a", "y", 1, 0.2), ("a", "z", 1, 0.3),
        ("b", "x", 0, 1.0), ("b", "y", 0, 1.0), ("b", "z", 0, 1.0),
    ]
    scores = pd.DataFrame(rows, columns=["dataset", "model", "fold", "score"])
    r = rank_scores(scores, higher_is_better=True)
    assert list(r.index) == ["a", "b"] and list(r.columns) == ["x", "y", "z"]
    np.testing.assert_array_equal(r.to_numpy(), [[2.0, 2.25, 1.75], [2.0, 2.0, 2.0]])
    low = rank_scores(scores, higher_is_better=False)
    np.testing.assert_array_equal(low.to_numpy(), [[2.0, 1.75, 2.25], [2.0, 2.0, 2.0]])


def test_matches_slow_reference_with_ties_and_first_appearance_order():
    rng = np.random.default_rng(1)
    cube = rng.integers(0, 4, size=(6, 3, 7)).astype(float)  # many ties
    datasets = ["zeta", "alpha", "mid", "b", "a", "omega"]
    models = ["m9", "m1", "m5", "m0", "m3", "m2", "m8"]
    scores = _long(cube, datasets, models).sample(frac=1.0, random_state=3)
    for hib in (True, False):
        got = rank_scores(scores, hib)
        ref = _slow_ranks(scores, hib)
        assert list(got.index) == list(dict.fromkeys(scores["dataset"]))
        assert list(got.columns) == list(dict.fromkeys(scores["model"]))
        np.testing.assert_allclose(got.to_numpy(), ref.to_numpy(), rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.sum(axis=1), 7 * 8 / 2)


def test_folds_may_differ_between_datasets():
    rows = [("a", "x", 0, 1.0), ("a", "y", 0, 2.0), ("b", "x", 3, 2.0), ("b", "y", 3, 1.0),
            ("b", "x", 7, 2.0), ("b", "y", 7, 1.0)]
    r = rank_scores(pd.DataFrame(rows, columns=["dataset", "model", "fold", "score"]), True)
    np.testing.assert_array_equal(r.to_numpy(), [[2.0, 1.0], [1.0, 2.0]])


def test_validation_errors_name_the_culprit():
    base = _long(np.arange(12, dtype=float).reshape(2, 2, 3))
    nan = base.copy()
    nan.loc[4, "score"] = np.nan
    with pytest.raises(ValueError, match=r"NaN score for dataset='d0', model='m1', fold=1"):
        rank_scores(nan, True)
    dup = pd.concat([base, base.iloc[[5]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"duplicated rows for dataset='d0', model='m2', fold=1"):
        rank_scores(dup, True)
    missing = base.drop(index=7)  # d1, fold 0, m1
    with pytest.raises(ValueError, match=r"missing model='m1' for dataset='d1', fold=0"):
        rank_scores(missing, True)
    with pytest.raises(ValueError, match=r"missing columns \['score'\]"):
        rank_scores(base.drop(columns="score"), True)
    # without a fold column the scores are one fold, so several folds' rows are duplicates
    with pytest.raises(ValueError, match=r"duplicated rows for dataset='d0', model='m0', fold=0"):
        rank_scores(base.drop(columns="fold"), True)
    with pytest.raises(ValueError, match="higher_is_better"):
        rank_scores(base, "yes")
    with pytest.raises(ValueError, match="empty"):
        rank_scores(base.iloc[:0], True)


def test_fast_on_full_size_benchmark():
    rng = np.random.default_rng(0)
    scores = _long(rng.random((112, 30, 35)))
    start = time.perf_counter()
    r = rank_scores(scores, True)
    elapsed = time.perf_counter() - start
    assert r.shape == (112, 35)
    assert elapsed < 2.0  # typically ~0.1 s


def test_mean_ranks_positions_labels_and_all():
    table = pd.DataFrame([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [2.0, 1.0, 3.0]],
                         index=["a", "b", "c"], columns=["x", "y", "z"])
    np.testing.assert_allclose(mean_ranks(table), [2.0, 5 / 3, 7 / 3])
    np.testing.assert_allclose(mean_ranks(table, np.array([0, 2])), [1.5, 1.5, 3.0])
    np.testing.assert_allclose(mean_ranks(table, ["c", "a"]), [1.5, 1.5, 3.0])
    np.testing.assert_allclose(mean_ranks(table.to_numpy(), [1]), [3.0, 2.0, 1.0])
    # summation order is canonical: a permuted full selection equals the reference bit for bit
    big = np.random.default_rng(0).random((50, 8)) * 7
    perm = np.random.default_rng(1).permutation(50)
    assert np.array_equal(mean_ranks(big, perm), mean_ranks(big))
    with pytest.raises(ValueError, match="rows has position 3"):
        mean_ranks(table, [0, 3])
    with pytest.raises(ValueError, match="unknown dataset 'q'"):
        mean_ranks(table, ["a", "q"])
    with pytest.raises(ValueError, match="rows must be a non-empty"):
        mean_ranks(table, [])


def test_rerank_average_ties():
    np.testing.assert_array_equal(rerank([3.2, 1.5, 3.2, 0.1]), [3.5, 2.0, 3.5, 1.0])
    v = np.random.default_rng(2).integers(0, 5, 30).astype(float)
    np.testing.assert_array_equal(rerank(v), rankdata(v, method="average"))
    with pytest.raises(ValueError, match="non-finite"):
        rerank([1.0, np.nan])
    with pytest.raises(ValueError, match="values must be"):
        rerank(np.ones((2, 2)))


@pytest.mark.parametrize("shape, axis", [((9,), -1), ((6, 7), 1), ((6, 7), 0), ((3, 4, 11), -1), ((3, 4, 11), 1),
                                         ((1,), 0), ((4, 0), 1)])
def test_average_ranks_equal_scipy_rankdata_with_many_ties(shape, axis):
    rng = np.random.default_rng(sum(shape) + axis)
    for values in (rng.integers(0, 3, size=shape).astype(float), rng.normal(size=shape)):
        got = average_ranks(values, axis=axis)
        assert got.shape == values.shape
        np.testing.assert_array_equal(got, rankdata(values, method="average", axis=axis))


def test_average_ranks_hand_checked():
    assert average_ranks([30, 10, 30, 20]).tolist() == [3.5, 1.0, 3.5, 2.0]
    assert average_ranks([[2, 2, 2], [3, 1, 2]], axis=1).tolist() == [[2.0, 2.0, 2.0], [3.0, 1.0, 2.0]]
