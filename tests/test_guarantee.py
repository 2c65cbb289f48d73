"""Covering radius, its bound and p_eff (benchdesign.selection.guarantee) against brute force."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from benchdesign.selection import farthest_first_order
from benchdesign.selection.guarantee import covering_bound, covering_radii, covering_radius, diameter, embed, fit_p_eff


def _brute(X, chosen, pool, metric):
    Z = X / np.linalg.norm(X, axis=1, keepdims=True) if metric == "cosine" else X
    return max(min(np.linalg.norm(Z[x] - Z[s]) for s in chosen) for x in pool)


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_radius_matches_brute_force(metric):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(9, 3))
    pool = [0, 2, 3, 5, 6, 8]
    for chosen in itertools.combinations(pool, 2):
        assert covering_radius(X, chosen, pool, metric) == pytest.approx(_brute(X, chosen, pool, metric))
    order = farthest_first_order(X, pool, 6, metric)
    radii = covering_radii(X, order, [1, 3, 6], pool, metric)
    assert radii == pytest.approx([_brute(X, order[:k], pool, metric) for k in (1, 3, 6)])
    assert radii[-1] == 0.0 and np.all(np.diff(radii) <= 0)
    Z = embed(X, metric)[pool]
    assert diameter(X, pool, metric) == pytest.approx(cdist(Z, Z).max())


def test_radius_rows_of_a_wide_pool_match_brute_force():
    """radius_rows measures a pool with more columns than rows in its span coordinates: the same radii and
    diameters as the brute force on the columns."""
    from benchdesign.selection.guarantee import radius_rows

    rng = np.random.default_rng(4)
    X = rng.normal(size=(14, 200))
    pool = np.array([1, 2, 4, 5, 7, 8, 10, 11, 13])
    subsets = {1: np.array([4]), 3: np.array([4, 10, 1]), 5: np.array([13, 2, 7, 8, 5])}
    for strategy in ("kmeans", "fafi_euclidean"):  # a subset per k, and one prefix order
        if strategy == "fafi_euclidean":
            subsets = {k: subsets[5][:k] for k in (1, 3, 5)}
        rows = radius_rows(strategy, X, pool, subsets, trial=0)
        for _, metric, _, k, radius, delta in rows:
            Z = embed(X, metric)[pool]
            assert radius == pytest.approx(_brute(X, subsets[k], pool, metric), rel=1e-12)
            assert delta == pytest.approx(cdist(Z, Z).max(), rel=1e-12)
    with pytest.raises(ValueError, match="outside its pool"):
        radius_rows("kmeans", X, pool, {1: np.array([0])}, trial=3)


def test_cosine_radius_is_chord_of_one_minus_cos():
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    # between (1,0) and (0,1): ||u - v|| = sqrt(2 (1 - cos)) = sqrt(2)
    assert covering_radius(X, [0], [0, 1], "cosine") == pytest.approx(np.sqrt(2.0))


def test_farthest_first_respects_the_bound_on_uniform_points():
    rng = np.random.default_rng(0)
    for p in (1, 2, 3):
        X = rng.uniform(size=(300, p))
        ks = np.arange(2, 31)
        order = farthest_first_order(X, np.arange(300), 30, "euclidean")
        radii = covering_radii(X, order, ks)
        bound = covering_bound(ks, diameter(X), p)
        assert np.all(radii <= bound)
    assert covering_bound([1], 1.0, 2)[0] == np.inf
    assert covering_bound([4], 1.0, 2)[0] == pytest.approx(2.0 / (2.0 - 1.0))


def test_fit_p_eff_recovers_a_power_law():
    ks = np.arange(2, 21)
    p_eff, c = fit_p_eff(ks, 3.0 * ks ** (-1 / 2.5))
    assert p_eff == pytest.approx(2.5) and c == pytest.approx(3.0)
    assert fit_p_eff(ks, np.ones(len(ks)) + ks * 0.01)[0] == np.inf
    with pytest.raises(ValueError, match="two positive radii"):
        fit_p_eff([1, 2], [0.0, 0.0])


def test_a_pool_of_two_rankings_gives_no_p_eff_fit_and_says_why():
    """12 datasets with two distinct model rankings: the oracle's subsets cover the pool from k = 2, so its
    covering radii are 0 and p_eff cannot be fitted; evaluate_benchmark says so instead of stopping (it raised
    "fit_p_eff needs at least two positive radii")."""
    import pandas as pd

    from benchdesign.selection.api import evaluate_benchmark
    from benchdesign.selection.guarantee import P_EFF_UNDEFINED

    rng = np.random.default_rng(0)
    orders = [np.arange(8), np.arange(8)[::-1]]
    scores = pd.DataFrame([{"dataset": f"d{d}", "model": f"m{m}", "score": float(orders[d % 2][m])}
                           for d in range(12) for m in range(8)])
    features = {"f": pd.DataFrame(rng.normal(size=(12, 3)), index=[f"d{d}" for d in range(12)])}
    result = evaluate_benchmark(scores, features, True, n_trials=5, ks=range(2, 6), variation="dataset_pool")
    table = result.frames["p_eff"]
    oracle = table[(table["representation"] == "oracle") & (table["strategy"] != "random")]
    assert len(oracle) and (oracle["fit"] == P_EFF_UNDEFINED).all() and oracle["p_eff"].isna().all()
    fitted = table[table["representation"] == "f"]
    assert (fitted["fit"] == "ok").all() and fitted["p_eff"].notna().all()
    coverage = result.frames["coverage"]
    radii = coverage[(coverage["representation"] == "oracle") & (coverage["strategy"] == "fafi_cosine")]["radius"]
    assert (radii <= 1e-12).sum() >= len(radii) - 1  # the reason: (almost) every radius is 0
