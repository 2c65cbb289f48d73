"""The curator baselines of the strategy registry (issue 22): k-medoids, facility location, greedy mutual
information (and the DPP MAP candidate), stratified random -- each against brute force on tiny inputs."""

from itertools import combinations

import numpy as np
import pytest

from benchdesign.selection.options import BASELINE_STRATEGIES, SELECT_STRATEGY
from benchdesign.selection.protocol import dataset_pool_trials
from benchdesign.selection.strategies import (
    DEFAULT_STRATEGIES,
    EVALUATE_STRATEGIES,
    PREFIX_ORDERS,
    STRATEGIES,
    STRATEGY_REGISTRY,
    dpp_map_order,
    facility_location_order,
    facility_location_value,
    kernel_distance,
    kmedoids_cost,
    largest_remainder,
    mutual_information_order,
    rbf_kernel,
    select_dpp,
    select_kmedoids,
    select_stratified,
)

KERNEL = ("kmedoids", "facility_location", "mutual_information")


def _data(seed=0, n=30, p=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    return X, np.sort(rng.choice(n, size=int(0.8 * n), replace=False))


def _strata(n, seed=0):
    return np.random.default_rng(seed).choice(["a", "b", "c", "d"], size=n, p=[0.1, 0.2, 0.3, 0.4])


def _call(name, X, k, pool, rng):
    extra = {"strata": _strata(X.shape[0])} if name == "stratified" else {}
    return STRATEGIES[name](X, k, pool, rng, **extra)


# ----------------------------------------------------------------------------- contract


def test_registered_after_the_paper_strategies_and_out_of_the_default_runs():
    assert tuple(STRATEGIES)[-len(BASELINE_STRATEGIES):] == BASELINE_STRATEGIES
    assert set(DEFAULT_STRATEGIES).isdisjoint(BASELINE_STRATEGIES)
    assert set(DEFAULT_STRATEGIES) | set(BASELINE_STRATEGIES) == set(STRATEGIES)
    assert {"facility_location", "mutual_information"} <= set(PREFIX_ORDERS)
    assert not STRATEGY_REGISTRY["stratified"].uses_representation
    assert STRATEGY_REGISTRY["stratified"].options == ("strata",)


def test_pipeline_defaults_leave_the_baselines_out():
    from benchdesign.workflow.config import PROTOCOL_DEFAULTS, synthetic_strategies

    assert PROTOCOL_DEFAULTS["strategies"] == list(DEFAULT_STRATEGIES)
    assert synthetic_strategies({}) == list(DEFAULT_STRATEGIES)


@pytest.mark.parametrize("name", BASELINE_STRATEGIES)
def test_k_distinct_pool_rows_and_same_seed_same_result(name):
    X, pool = _data(1)
    for k in (1, 2, 5, len(pool)):
        out = _call(name, X, k, pool, np.random.default_rng(0))
        assert out.shape == (k,) and np.issubdtype(out.dtype, np.integer)
        assert len(set(out.tolist())) == k and set(out.tolist()) <= set(pool.tolist())
        np.testing.assert_array_equal(out, _call(name, X, k, pool, np.random.default_rng(0)))


@pytest.mark.parametrize("name", BASELINE_STRATEGIES)
def test_invariant_to_pool_order(name):
    X, pool = _data(4)
    shuffled = np.random.default_rng(9).permutation(pool)
    np.testing.assert_array_equal(_call(name, X, 8, pool, np.random.default_rng(1)),
                                  _call(name, X, 8, shuffled, np.random.default_rng(1)))


@pytest.mark.parametrize("name", BASELINE_STRATEGIES)
def test_validation(name):
    X, pool = _data(5)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=rf"k=25 is larger than the pool \({len(pool)} datasets\)"):
        _call(name, X, 25, pool, rng)
    with pytest.raises(ValueError, match="k=0 must be at least 1"):
        _call(name, X, 0, pool, rng)
    with pytest.raises(ValueError, match="pool has duplicated index 3"):
        _call(name, X, 2, np.array([3, 1, 3]), rng)
    bad = X.copy()
    bad[4, 2] = np.nan
    with pytest.raises(ValueError, match="X has a non-finite value nan at row 4, column 2"):
        _call(name, bad, 2, pool, rng)


def test_protocol_passes_the_strata_through_its_options():
    X, _ = _data(2, n=20)
    ranks = np.random.default_rng(0).random((20, 6))
    options = {"strata": _strata(20), "n_init": 3}
    a = dataset_pool_trials(ranks, X, "stratified", [2, 4], 5, 0.8, 7, options)
    b = dataset_pool_trials(ranks, X, "stratified", [2, 4], 5, 0.8, 7, options)
    assert a.equals(b) and set(a["k"]) == {2, 4}
    with pytest.raises(ValueError, match="needs strata"):
        dataset_pool_trials(ranks, X, "stratified", [2], 1, 0.8, 7, {})


# ----------------------------------------------------------------------------- kernel


def test_rbf_kernel_median_heuristic():
    Z = np.random.default_rng(0).standard_normal((7, 3))
    d = np.linalg.norm(Z[:, None] - Z[None], axis=2)
    h = np.median(d[np.triu_indices(7, 1)])
    np.testing.assert_allclose(rbf_kernel(Z), np.exp(-d**2 / (2 * h**2)), atol=1e-12)
    np.testing.assert_allclose(rbf_kernel(np.zeros((3, 2))), np.ones((3, 3)))  # h = 0 -> h = 1


# ----------------------------------------------------------------------------- k-medoids


def _kernel_D(X, pool):
    return kernel_distance(rbf_kernel(X[np.sort(pool)]))


@pytest.mark.parametrize("seed", range(4))
def test_kmedoids_is_swap_locally_optimal(seed):
    X, pool = _data(seed, n=40)
    P = np.sort(pool)
    D = _kernel_D(X, pool)
    medoids = [int(np.flatnonzero(P == r)[0]) for r in select_kmedoids(X, 6, pool, np.random.default_rng(seed))]
    cost = kmedoids_cost(D, medoids)
    for out in range(len(medoids)):
        for cand in set(range(len(P))) - set(medoids):
            swapped = medoids[:out] + [cand] + medoids[out + 1:]
            assert kmedoids_cost(D, swapped) >= cost - 1e-9


@pytest.mark.parametrize("seed", range(6))
def test_kmedoids_equals_brute_force_on_eight_points(seed):
    X = np.random.default_rng(seed).standard_normal((8, 3))
    pool = np.arange(8)
    D = _kernel_D(X, pool)
    best = min(kmedoids_cost(D, c) for c in combinations(range(8), 3))
    got = select_kmedoids(X, 3, pool, np.random.default_rng(seed))
    assert kmedoids_cost(D, got) == pytest.approx(best, abs=1e-12)


# ----------------------------------------------------------------------------- facility location


def _brute_greedy(value, m, k):
    chosen = []
    for _ in range(k):
        gains = {j: value(chosen + [j]) - value(chosen) for j in range(m) if j not in chosen}
        top = max(gains.values())  # largest gain, ties (within 1e-10) -> lowest index
        chosen.append(min(j for j, g in gains.items() if g >= top - 1e-10 * max(1.0, abs(top))))
    return chosen


@pytest.mark.parametrize("seed", range(4))
def test_facility_location_matches_brute_force_greedy(seed):
    X, pool = _data(seed, n=20)
    P = np.sort(pool)
    K = rbf_kernel(X[P])
    expected = P[_brute_greedy(lambda S: facility_location_value(K, S), len(P), 8)]
    np.testing.assert_array_equal(facility_location_order(X, pool, 8), expected)


@pytest.mark.parametrize("seed", range(4))
def test_facility_location_within_one_minus_one_over_e_of_optimum(seed):
    X = np.random.default_rng(seed).standard_normal((9, 2))
    K = rbf_kernel(X)
    for k in (2, 3, 4):
        greedy = facility_location_value(K, facility_location_order(X, np.arange(9), k))
        best = max(facility_location_value(K, c) for c in combinations(range(9), k))
        assert best >= greedy >= (1 - 1 / np.e) * best


# ----------------------------------------------------------------------------- information


def _gp_mi(C, A):
    """I(A; V \\ A) of a Gaussian with covariance C: 1/2 (log det C_A + log det C_rest - log det C)."""
    rest = [i for i in range(len(C)) if i not in A]
    if not A or not rest:
        return 0.0
    logdet = lambda idx: np.linalg.slogdet(C[np.ix_(idx, idx)])[1]  # noqa: E731
    return 0.5 * (logdet(list(A)) + logdet(rest) - logdet(list(range(len(C)))))


@pytest.mark.parametrize("seed", range(4))
def test_mutual_information_matches_brute_force_criterion(seed):
    X, pool = _data(seed, n=14)
    P = np.sort(pool)
    C = rbf_kernel(X[P]) + 1e-2 * np.eye(len(P))
    expected = P[_brute_greedy(lambda S: _gp_mi(C, S), len(P), 6)]
    np.testing.assert_array_equal(mutual_information_order(X, pool, 6), expected)


@pytest.mark.parametrize("seed", range(4))
def test_dpp_map_matches_brute_force_log_det_greedy(seed):
    X, pool = _data(seed, n=14)
    P = np.sort(pool)
    L = rbf_kernel(X[P]) + 1e-2 * np.eye(len(P))

    def logdet(S):
        return np.linalg.slogdet(L[np.ix_(S, S)])[1] if S else 0.0

    expected = P[_brute_greedy(logdet, len(P), 6)]
    np.testing.assert_array_equal(dpp_map_order(X, pool, 6), expected)
    np.testing.assert_array_equal(select_dpp(X, 4, pool), expected[:4])


def test_noise_validation():
    X, pool = _data(0)
    with pytest.raises(ValueError, match="noise=0"):
        mutual_information_order(X, pool, 3, noise=0.0)


# ----------------------------------------------------------------------------- stratified


def test_largest_remainder_hand_checked():
    assert largest_remainder([3, 10, 2], 7).tolist() == [1, 5, 1]  # quotas 1.4, 4.67, 0.93
    assert largest_remainder([5, 5], 3).tolist() == [2, 1]  # tie -> earlier stratum
    assert largest_remainder([1, 2, 7], 10).tolist() == [1, 2, 7]


@pytest.mark.parametrize("seed", range(5))
def test_stratified_counts_follow_largest_remainder_and_seed(seed):
    X, pool = _data(seed, n=40)
    strata = _strata(40, seed)
    names, sizes = np.unique(strata[pool], return_counts=True)
    for k in (1, 4, 7, 13):
        got = select_stratified(X, k, pool, np.random.default_rng(seed), strata=strata)
        counts = [int(np.sum(strata[got] == s)) for s in names]
        assert counts == largest_remainder(sizes, k).tolist()
        np.testing.assert_array_equal(got, select_stratified(X, k, pool, np.random.default_rng(seed), strata=strata))
    draws = {tuple(select_stratified(X, 7, pool, np.random.default_rng(s), strata=strata)) for s in range(20)}
    assert len(draws) > 10  # random within strata


def test_stratified_needs_one_label_per_row():
    X, pool = _data(0)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="needs strata"):
        select_stratified(X, 3, pool, rng)
    with pytest.raises(ValueError, match="one label per row of X"):
        select_stratified(X, 3, pool, rng, strata=["a"] * 5)
    labels = np.array(["a"] * 30, dtype=object)
    labels[3] = None
    with pytest.raises(ValueError, match="no label for row 3"):
        select_stratified(X, 3, pool, rng, strata=labels)


# ----------------------------------------------------------------------------- covariance design (issue 45)


def _variance_of_the_mean(C, S):
    """Independent numpy: posterior variance of the mean of all variables given S, w'Cw - w'C_:S C_SS^-1 C_S:w."""
    n = C.shape[0]
    w = np.full(n, 1.0 / n)
    if not S:
        return w @ C @ w
    S = list(S)
    return w @ C @ w - w @ C[:, S] @ np.linalg.inv(C[np.ix_(S, S)]) @ C[S, :] @ w


@pytest.mark.parametrize("seed", range(4))
def test_covariance_greedy_minimises_the_posterior_variance_of_the_mean(seed):
    from sklearn.covariance import LedoitWolf

    from benchdesign.selection.strategies import covariance_order, mean_posterior_variance, shrunk_covariance

    rng = np.random.default_rng(seed)
    n, models = 7, 5
    # datasets share a model effect plus dataset noise of different sizes: not every dataset tells as much
    X = rng.normal(size=models)[None, :] * rng.uniform(0.2, 2.0, size=(n, 1)) + rng.normal(size=(n, models))
    pool = np.sort(rng.choice(n, 6, replace=False))
    C = LedoitWolf().fit(X.T).covariance_
    np.testing.assert_allclose(shrunk_covariance(X), C, rtol=1e-8, atol=1e-12)  # up to the 1e-10 jitter
    order = covariance_order(X, pool, 6)
    chosen = []
    for step in range(6):
        rest = [int(j) for j in pool if j not in chosen]
        variances = {j: _variance_of_the_mean(C, chosen + [j]) for j in rest}
        best = min(variances, key=variances.get)
        assert int(order[step]) == best, (step, variances)
        assert mean_posterior_variance(C, chosen + [best]) == pytest.approx(variances[best], rel=1e-8, abs=1e-12)
        chosen.append(best)
    # the variance falls with every pick, and the k = 2 subset is at least as good as the median pair
    values = [_variance_of_the_mean(C, list(order[:t])) for t in range(7)]
    assert all(b <= a + 1e-12 for a, b in zip(values, values[1:]))
    pairs = [_variance_of_the_mean(C, list(p)) for p in combinations(pool.tolist(), 2)]
    assert values[2] <= np.median(pairs)


def test_covariance_reads_the_oracle_unstandardised():
    from benchdesign.selection.heldout import heldout_selections
    from benchdesign.selection.protocol import fold_ranks, model_holdout_draws
    from benchdesign.selection.strategies import covariance_order

    rng = np.random.default_rng(3)
    cube = np.linspace(0, 1, 8)[None, None, :] + 0.4 * rng.normal(size=(15, 1, 8))
    assert not STRATEGY_REGISTRY["covariance"].standardized and STRATEGY_REGISTRY["mutual_information"].standardized
    for trial, pool, [(judged, [orders])] in heldout_selections(cube, True, None, "covariance", [3, 5], 3, 0.8, 0):
        seen = np.setdiff1d(np.arange(8), judged)
        raw = fold_ranks(cube[:, :, seen], True).mean(axis=1)  # the seen models' ranks, not z-scored
        assert orders[5].tolist() == covariance_order(raw, pool, 5).tolist()
        assert orders[3].tolist() == orders[5][:3].tolist()
    for trial, pool, held, [orders] in model_holdout_draws(cube, True, None, "covariance", [4], 2, 0.8, 1):
        raw = fold_ranks(cube[:, :, np.setdiff1d(np.arange(8), held)], True).mean(axis=1)
        assert orders[4].tolist() == covariance_order(raw, pool, 4).tolist()


def test_select_datasets_hands_covariance_the_raw_values():
    import pandas as pd

    from benchdesign.selection import select_datasets
    from benchdesign.selection.strategies import covariance_order

    rng = np.random.default_rng(5)
    values = rng.normal(size=(10, 6)) + 3.0 * rng.normal(size=6)[None, :]
    features = pd.DataFrame(values, index=[f"d{i}" for i in range(10)])
    chosen = select_datasets(features, 3, strategy="covariance")
    expected = covariance_order(values, np.arange(10), 3)
    assert list(chosen.datasets) == [f"d{i}" for i in expected]


# ----------------------------------------------------------------------------- command line


def test_select_with_strata_and_evaluate_defaults(tmp_path, capsys):
    import argparse

    import pandas as pd

    from benchdesign.cli import main
    from benchdesign.selection_cli import add_evaluate_parser

    names = [f"d{i}" for i in range(12)]
    rng = np.random.default_rng(0)
    pd.DataFrame({"dataset": names, "a": rng.random(12), "b": rng.random(12)}).to_csv(tmp_path / "f.csv", index=False)
    kinds = dict(zip(names[::-1], "xxxxyyyyyzzz"))  # row order differs from the features'
    pd.DataFrame({"dataset": list(kinds), "kind": list(kinds.values())}).to_csv(tmp_path / "s.csv", index=False)
    args = ["select", "--features", str(tmp_path / "f.csv"), "-k", "4", "--strategy", "stratified"]
    assert main(args + ["--strata", f"{tmp_path / 's.csv'}:kind"]) == 0
    chosen = capsys.readouterr().out.split()
    assert sorted(kinds[d] for d in chosen) == ["x", "y", "y", "z"]  # quotas 1.33, 1.67, 1.00
    assert main(args) == 2 and "needs --strata FILE:COLUMN" in capsys.readouterr().err
    assert main(args + ["--strata", f"{tmp_path / 's.csv'}:nope"]) == 2
    assert "has no column 'nope'" in capsys.readouterr().err
    parser = argparse.ArgumentParser()
    add_evaluate_parser(parser.add_subparsers())
    parsed = parser.parse_args(["evaluate", "--scores", "s", "--features", "f", "--higher-is-better", "--out", "o"])
    assert parsed.strategies == list(EVALUATE_STRATEGIES) == [*DEFAULT_STRATEGIES, SELECT_STRATEGY]
