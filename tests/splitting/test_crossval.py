"""LeakageKFold / LeakageSplit as scikit-learn cross-validators, on the 40-molecule fixture."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_score, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from benchdesign.splitting import LeakageKFold, LeakageSplit, nested_cross_validate
from benchdesign.splitting.similarity import FingerprintSimilarity

OPTS = {"clusters": 8, "epsilon": 0.3}  # the node limit decides, not the clock: the same folds under load


def test_every_sample_in_exactly_one_test_fold_and_deterministic(mols):
    smiles, x, _ = mols
    cv = LeakageKFold(4, similarity=smiles, random_state=3, **OPTS)
    assert cv.get_n_splits() == 4
    first = list(cv.split(x))
    tests = np.concatenate([t for _, t in first])
    assert np.array_equal(np.sort(tests), np.arange(len(x)))
    for train, test in first:
        assert np.intersect1d(train, test).size == 0 and train.size + test.size == len(x)
    second = list(clone(cv).split(x))  # a fresh splitter solves again: the same folds
    for (a, b), (c, d) in zip(first, second, strict=True):
        assert np.array_equal(a, c) and np.array_equal(b, d)
    assert cv.fold_names_ == tuple(f"fold{i}" for i in range(4)) and cv.fold_leakage_.shape == (4,)
    per_name = cv.report_["certificate"]["fold_scaled_leakage"]
    assert cv.fold_leakage_.tolist() == [per_name[n] for n in cv.fold_names_]  # indexed by fold, as folds_
    assert 0 < cv.scaled_leakage_ < cv.report_["certificate"]["random_scaled_leakage"]


def test_a_second_split_of_the_same_data_reuses_the_first(mols, monkeypatch):
    """cross_val_score then GridSearchCV with one splitter solve once; a change to X (in place), y or a
    parameter solves again, and so does every split of a splitter seeded by a RandomState."""
    from benchdesign.splitting import crossval

    smiles, x, y = mols
    solved = []
    real = crossval.split_entities
    monkeypatch.setattr(crossval, "split_entities", lambda *a, **k: solved.append(1) or real(*a, **k))
    cv = LeakageKFold(3, similarity=smiles, random_state=0, **OPTS)
    model = LogisticRegression(max_iter=300)
    scores = cross_val_score(model, x, y, cv=cv)
    folds, report = cv.folds_.copy(), cv.report_
    GridSearchCV(model, {"C": [0.1, 1.0]}, cv=cv).fit(x, y)
    assert len(solved) == 1 and np.array_equal(cv.folds_, folds) and cv.report_ is report
    assert np.allclose(cross_val_score(model, x, y, cv=cv), scores) and len(solved) == 1
    changed = x.copy()
    list(cv.split(changed, y))
    changed[0, 0] = 1.0 - changed[0, 0]  # the same array, its content changed
    list(cv.split(changed, y))
    assert len(solved) == 2  # the copy equals x: reused; the changed content: solved
    list(cv.split(x, 1 - y))
    cv.set_params(epsilon=0.25)
    list(cv.split(x, y))
    assert len(solved) == 4
    drawn = LeakageKFold(3, similarity=smiles, random_state=np.random.RandomState(0), **OPTS)
    list(drawn.split(x, y))
    list(drawn.split(x, y))
    assert len(solved) == 6


def test_clone_get_params_repr_and_errors(mols):
    smiles, x, _ = mols
    cv = LeakageKFold(3, similarity=smiles, clusters=5, random_state=1)
    twin = clone(cv)
    assert twin.get_params()["clusters"] == 5 and twin.get_params()["n_splits"] == 3
    # scikit-learn's repr would print all 40+ SMILES; ours summarises the data and shows non-defaults only
    assert repr(cv) == f"LeakageKFold(n_splits=3, similarity=<{len(smiles)} strings>, random_state=1, clusters=5)"
    assert len(repr(LeakageKFold(5, similarity=["C" * 50] * 10_000, random_state=0))) < 200
    with pytest.warns(UserWarning, match="The groups parameter is ignored by LeakageKFold"):
        next(LeakageKFold(3, similarity=smiles, **OPTS).split(x, groups=np.arange(len(x)) % 3))
    with pytest.raises(ValueError, match="n_splits must be an integer >= 2, got 1"):
        LeakageKFold(1).get_n_splits()
    with pytest.raises(ValueError, match=f"the similarity covers {len(smiles)} samples but X has 10"):
        next(LeakageKFold(3, similarity=smiles, **OPTS).split(x[:10]))
    with pytest.raises(ValueError, match="task must be one of"):
        next(LeakageKFold(3, similarity=smiles, task="S2").split(x))


def test_cross_val_score_grid_search_and_pipeline(mols):
    smiles, x, y = mols
    cv = LeakageKFold(3, similarity=smiles, random_state=0, **OPTS)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=300))
    scores = cross_val_score(model, x, y, cv=cv)
    assert scores.shape == (3,) and np.isfinite(scores).all()
    out = cross_validate(model, x, y, cv=cv, return_indices=True)
    assert np.array_equal(np.sort(np.concatenate(out["indices"]["test"])), np.arange(len(x)))
    search = GridSearchCV(LogisticRegression(max_iter=300), {"C": [0.1, 1.0]}, cv=cv).fit(x, y)
    assert search.best_params_["C"] in (0.1, 1.0)
    # clusters_ as groups of GroupKFold: no cluster is split across its test folds
    groups = cv.clusters_
    for train, test in GroupKFold(3).split(x, y, groups):
        assert not set(groups[train]) & set(groups[test])


def test_similarity_from_x_and_stratified_single_split(mols):
    smiles, x, y = mols
    one = LeakageSplit((0.75, 0.25), ("train", "test"), stratify=True, delta=0.3, **OPTS)
    assert one.get_n_splits() == 1
    train, test = next(one.split(np.array(smiles, dtype=object), y))  # SMILES in X itself
    assert train.size + test.size == len(smiles)
    for cls in (0, 1):  # eq. (15): each class is in the test fold with at least (1 - delta) of its share
        assert np.sum(y[test] == cls) >= 0.7 * 0.25 * np.sum(y == cls) - 1e-9
    src = FingerprintSimilarity(x.astype(np.uint8))
    three = LeakageSplit((0.6, 0.2, 0.2), ("train", "val", "test"), test="val", similarity=src, **OPTS)
    train, test = next(three.split(x))
    assert set(three.folds_[test]) == {1} and set(three.folds_[train]) == {0, 2}


def test_nested_cross_validate(mols):
    smiles, x, y = mols
    outer = LeakageKFold(3, similarity=smiles, **OPTS)
    inner = LeakageKFold(2, similarity=smiles, clusters=4, epsilon=0.3)
    out = nested_cross_validate(LogisticRegression(max_iter=300), {"C": [0.1, 1.0]}, x, y, outer, inner)
    assert out["test_score"].shape == (3,) and len(out["best_params"]) == 3
    assert out["outer_fold_leakage"].shape == (3,) and np.isfinite(out["outer_fold_leakage"]).all()
    assert all(d.shape == (2,) for d in out["inner_fold_leakage"])


def test_split_pairs():
    rng = np.random.default_rng(0)
    a = rng.random((12, 12))
    sim_a = (a + a.T) / 2
    np.fill_diagonal(sim_a, 1.0)
    ia = np.repeat(np.arange(12), 3)
    ib = np.tile(np.arange(3), 12)
    cv = LeakageKFold(3, similarity=sim_a, task="S1", clusters=6, epsilon=0.3)
    folds = list(cv.split_pairs(ia, ib))
    assert len(folds) == 3
    for train, test in folds:  # S1 on side a: all pairs of a drug are on one side
        assert not set(ia[train]) & set(ia[test])


def test_precomputed_matrix_with_hard_threshold(rand_sim):
    sim = rand_sim(12, np.random.default_rng(5)) * 0.3
    sim[:6, :6] = 0.99  # a group of 6 that no fold of at most 1.3 * 12 / 3 samples can hold
    np.fill_diagonal(sim, 1.0)
    cv = LeakageKFold(3, similarity=sim, clusters=12, epsilon=0.3, max_similarity=0.97)
    for train, test in cv.split(np.zeros((12, 1))):
        assert test.size and sim[np.ix_(test, train)].max() <= 0.97  # brute force: no test sample near a training one
    dropped = np.flatnonzero(cv.folds_ < 0)
    assert cv.report_["max_similarity"]["n_dropped"] == dropped.size > 0
