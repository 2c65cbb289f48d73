import itertools
import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score, pairwise_distances, pairwise_distances_argmin_min

from benchdesign.selection.strategies import (
    PREFIX_ORDERS,
    STRATEGIES,
    a_optimal_order,
    d_optimal_order,
    fafi_cosine_order,
    farthest_first_order,
    kmeans,
    random_order,
    select_a_optimal,
    select_d_optimal,
    select_fafi_cosine,
    select_fafi_euclidean,
    select_kmeans,
    select_random,
)

NAMES = ("random", "kmeans", "fafi_cosine", "fafi_euclidean", "a_optimal", "d_optimal")
DETERMINISTIC = ("fafi_cosine", "fafi_euclidean", "a_optimal", "d_optimal")


def _data(seed=0, n=30, p=6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    pool = np.sort(rng.choice(n, size=int(0.8 * n), replace=False))
    return X, pool


# ----------------------------------------------------------------------------- brute force


def _cos_dist(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 1.0
    return 1.0 - float(a @ b) / (na * nb)


def _brute_farthest_first(X, pool, k, metric, start="nearest"):
    P = sorted(int(i) for i in pool)
    mu = X[P].mean(axis=0)
    if start == "farthest":  # the paper's code: largest ||x - mu||, both metrics
        start = P[int(np.argmax([np.linalg.norm(X[i] - mu) for i in P]))]
        dist = ((lambda i, j: _cos_dist(X[i], X[j])) if metric == "cosine"  # noqa: E731
                else (lambda i, j: float(np.linalg.norm(X[i] - X[j]))))
    elif metric == "cosine":
        sims = [0.0 if np.linalg.norm(X[i]) == 0 else float(X[i] @ mu) / np.linalg.norm(X[i])
                for i in P]
        start = P[int(np.argmax(sims))]
        dist = lambda i, j: _cos_dist(X[i], X[j])  # noqa: E731
    else:
        start = P[int(np.argmin([np.linalg.norm(X[i] - mu) for i in P]))]
        dist = lambda i, j: float(np.linalg.norm(X[i] - X[j]))  # noqa: E731
    chosen = [start]
    while len(chosen) < k:
        best, best_val = None, -np.inf
        for i in P:
            if i in chosen:
                continue
            val = min(dist(i, j) for j in chosen)
            if val > best_val:  # strict: ties keep the lowest index
                best, best_val = i, val
        chosen.append(best)
    return np.array(chosen)


def _brute_design(X, pool, k, lam, criterion):
    P = sorted(int(i) for i in pool)
    p = X.shape[1]
    chosen = []
    for _ in range(k):
        best, best_val = None, None
        for i in P:
            if i in chosen:
                continue
            S = X[chosen + [i]]
            M = S.T @ S + lam * np.eye(p)
            if criterion == "d":
                val = np.linalg.slogdet(M)[1]
                better = best_val is None or val > best_val
            else:
                val = np.trace(np.linalg.inv(M))
                better = best_val is None or val < best_val
            if better:
                best, best_val = i, val
        chosen.append(best)
    return np.array(chosen)


# ----------------------------------------------------------------------------- contract


def test_registries():
    assert tuple(STRATEGIES)[: len(NAMES)] == NAMES  # the curator baselines follow (test_selection_baselines.py)
    assert set(PREFIX_ORDERS) & set(NAMES) == set(NAMES) - {"kmeans"}


@pytest.mark.parametrize("name", NAMES)
def test_every_strategy_returns_k_distinct_pool_rows(name):
    X, pool = _data(1)
    for k in (1, 2, 5, len(pool)):
        out = STRATEGIES[name](X, k, pool, np.random.default_rng(0))
        assert out.shape == (k,) and np.issubdtype(out.dtype, np.integer)
        assert len(set(out.tolist())) == k
        assert set(out.tolist()) <= set(pool.tolist())


@pytest.mark.parametrize("name", sorted(PREFIX_ORDERS))
def test_prefix_property(name):
    X, pool = _data(2)
    k_max = 12
    order = PREFIX_ORDERS[name](X, pool, k_max, np.random.default_rng(5))
    assert len(set(order.tolist())) == k_max
    for k in range(1, k_max + 1):
        chosen = STRATEGIES[name](X, k, pool, np.random.default_rng(5))
        np.testing.assert_array_equal(chosen, order[:k])


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_result(name):
    X, pool = _data(3)
    a = STRATEGIES[name](X, 7, pool, np.random.default_rng(42))
    b = STRATEGIES[name](X, 7, pool, np.random.default_rng(42))
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", DETERMINISTIC + ("kmeans",))
def test_invariant_to_pool_order(name):
    X, pool = _data(4)
    shuffled = np.random.default_rng(9).permutation(pool)
    np.testing.assert_array_equal(
        STRATEGIES[name](X, 8, pool, np.random.default_rng(1)),
        STRATEGIES[name](X, 8, shuffled, np.random.default_rng(1)),
    )


@pytest.mark.parametrize("name", NAMES)
def test_validation(name):
    X, pool = _data(5)
    fn = STRATEGIES[name]
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=rf"k=25 is larger than the pool \({len(pool)} datasets\)"):
        fn(X, 25, pool, rng)
    with pytest.raises(ValueError, match="k=0 must be at least 1"):
        fn(X, 0, pool, rng)
    with pytest.raises(ValueError, match="pool has duplicated index 3"):
        fn(X, 2, np.array([3, 1, 3]), rng)
    with pytest.raises(ValueError, match="pool has index 30 outside"):
        fn(X, 2, np.array([0, 30]), rng)
    with pytest.raises(ValueError, match="pool must hold integer"):
        fn(X, 2, np.array([0.0, 1.0]), rng)
    bad = X.copy()
    bad[4, 2] = np.nan
    with pytest.raises(ValueError, match="X has a non-finite value nan at row 4, column 2"):
        fn(bad, 2, pool, rng)


def test_other_argument_validation():
    X, pool = _data(6)
    with pytest.raises(ValueError, match="metric='manhattan'"):
        farthest_first_order(X, pool, 3, "manhattan")
    with pytest.raises(ValueError, match="lam=0"):
        d_optimal_order(X, pool, 3, lam=0.0)
    with pytest.raises(ValueError, match="k_max=99 is larger than the pool"):
        a_optimal_order(X, pool, 99)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        select_random(X, 2, pool, 0)
    with pytest.raises(ValueError, match="n_init=0"):
        select_kmeans(X, 2, pool, np.random.default_rng(0), n_init=0)


# ----------------------------------------------------------------------------- random


def test_random_is_a_permutation_prefix_and_uniform():
    X, pool = _data(7)
    np.testing.assert_array_equal(
        random_order(X, pool, 6, np.random.default_rng(3)),
        np.random.default_rng(3).permutation(pool)[:6],
    )
    small = np.array([2, 5, 7, 11, 13])
    rng = np.random.default_rng(0)
    counts = np.zeros(X.shape[0])
    draws = 4000
    for _ in range(draws):
        counts[select_random(X, 2, small, rng)] += 1
    np.testing.assert_allclose(counts[small] / draws, 0.4, atol=0.03)
    assert counts.sum() == 2 * draws


# ----------------------------------------------------------------------------- k-means


def _blobs(seed, n_per=15, k=4, p=5, spread=25.0):
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((k, p)) * spread
    X = np.concatenate([c + rng.standard_normal((n_per, p)) for c in centres])
    truth = np.repeat(np.arange(k), n_per)
    perm = rng.permutation(len(X))
    return X[perm], truth[perm]


@pytest.mark.parametrize("seed", range(3))
def test_kmeans_recovers_separated_blobs_like_sklearn(seed):
    X, truth = _blobs(seed)
    _, labels, _ = kmeans(X, 4, np.random.default_rng(seed))
    ref = KMeans(4, n_init=3, random_state=seed).fit(X).labels_
    assert adjusted_rand_score(labels, ref) == 1.0
    assert adjusted_rand_score(labels, truth) == 1.0
    chosen = select_kmeans(X, 4, np.arange(len(X)), np.random.default_rng(seed))
    assert sorted(truth[chosen]) == [0, 1, 2, 3]  # one representative per blob


def test_kmeans_selection_is_the_papers_kmeans_and_nearest_rows():
    """The paper's code (methods/kmeans_methods.py): sklearn KMeans, then each centre's nearest row
    (pairwise_distances_argmin_min). Ours draws random_state from the rng and, where the paper's rule
    repeats a row, gives that centre its nearest row not chosen yet."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((90, 35))
    pool = np.sort(rng.choice(90, size=70, replace=False))
    repeats = 0
    for k, seed in itertools.product((2, 5, 10, 20), range(3)):
        state = int(np.random.default_rng(seed).integers(2**31 - 1))
        model = KMeans(k, init="k-means++", n_init=3, tol=0.0, random_state=state).fit(X[pool])
        nearest, _ = pairwise_distances_argmin_min(model.cluster_centers_, X[pool])
        d2 = pairwise_distances(model.cluster_centers_, X[pool]) ** 2
        expected: list[int] = []
        for c in range(k):  # the nearest row no earlier centre took; ties (two-point clusters) -> lowest row
            free = np.setdiff1d(np.arange(len(pool)), expected)
            expected.append(int(free[d2[c, free] <= d2[c, free].min() * (1 + 1e-9)][0]))
        repeats += len(set(nearest)) < k
        tied = (np.sort(d2, axis=1)[:, 1] <= np.sort(d2, axis=1)[:, 0] * (1 + 1e-9)).tolist()
        assert all(e == n for e, n, t in zip(expected, nearest, tied) if list(nearest).count(n) == 1 and not t)
        np.testing.assert_array_equal(select_kmeans(X, k, pool, np.random.default_rng(seed)), pool[expected])
        assert kmeans(X[pool], k, np.random.default_rng(seed))[2] == pytest.approx(model.inertia_)
    assert 0 < repeats < 12  # the paper's rule does repeat rows in 35 dimensions


def test_span_coordinates_keep_every_distance():
    """A wide pool (p > m) is clustered in its rows' span: the same pairwise distances as scipy's on the columns."""
    from scipy.spatial.distance import pdist

    from benchdesign.selection.strategies import _span_coordinates

    Z = np.random.default_rng(3).standard_normal((25, 400)) * np.linspace(0.1, 5.0, 400)
    W = _span_coordinates(Z)
    assert W.shape == (25, 25)
    np.testing.assert_allclose(pdist(W), pdist(Z), rtol=1e-10)
    narrow = Z[:, :10]
    assert _span_coordinates(narrow) is narrow  # p <= m: the rows themselves
    twice = np.vstack([Z, Z[[4, 9]]])  # identical rows: identical coordinates, distance exactly 0
    W = _span_coordinates(twice)
    assert np.array_equal(W[25], W[4]) and np.array_equal(W[26], W[9])
    np.testing.assert_allclose(pdist(W), pdist(twice), rtol=1e-10, atol=1e-9)


def test_wide_kmeans_selection_equals_clustering_the_columns():
    """select_kmeans on 600 columns (span coordinates) against ``kmeans`` and the nearest distinct rows on the
    columns themselves (test_kmeans_selection_is_the_papers_kmeans_and_nearest_rows ties those to sklearn and the
    paper's rule): the same rows for every pool and k here (no exact k-means++ tie in these draws)."""
    from benchdesign.selection.strategies import _nearest_distinct

    for seed in range(8):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((40, 600))
        pool = np.sort(rng.choice(40, 30, replace=False))
        for k in (2, 5, 10):
            centers, _, _ = kmeans(X[pool], k, np.random.default_rng(seed))
            expected = pool[_nearest_distinct(X[pool], centers)]
            np.testing.assert_array_equal(select_kmeans(X, k, pool, np.random.default_rng(seed)), expected)


def test_kmeans_labels_centres_consistent():
    X, _ = _blobs(11, k=3)
    centers, labels, inertia = kmeans(X, 3, np.random.default_rng(0))
    d2 = ((X[:, None, :] - centers[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(labels, d2.argmin(1))
    np.testing.assert_allclose(centers, [X[labels == c].mean(0) for c in range(3)])
    assert inertia == pytest.approx(d2.min(1).sum())


def test_kmeans_selection_nearest_to_centroids_without_duplicates():
    # two identical points near both centroids: the second centroid must take another row
    X = np.array([[0.0, 0.0], [0.0, 0.0], [0.1, 0.0], [10.0, 0.0], [10.2, 0.0]])
    out = select_kmeans(X, 2, np.arange(5), np.random.default_rng(0))
    assert sorted(out.tolist()) == [0, 3] or sorted(out.tolist()) == [0, 4]
    # fewer distinct points than k still yields k distinct rows
    dup = np.zeros((6, 3))
    dup[3:] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # sklearn's "fewer distinct clusters" ConvergenceWarning is silenced
        out = select_kmeans(dup, 5, np.arange(6), np.random.default_rng(1))
    assert len(set(out.tolist())) == 5
    assert sorted(out.tolist())[:3] == [0, 1, 2] or sorted(out.tolist())[-3:] == [3, 4, 5]  # one group fully taken


def test_kmeans_k_equals_one_picks_row_nearest_mean():
    X, pool = _data(8)
    Z = X[pool]
    expected = pool[np.argmin(((Z - Z.mean(0)) ** 2).sum(1))]
    for seed in range(3):
        assert select_kmeans(X, 1, pool, np.random.default_rng(seed)).tolist() == [expected]


# ----------------------------------------------------------------------------- farthest-first


def test_farthest_first_hand_checked():
    line = np.array([[0.0], [1.0], [2.0], [10.0]])  # mean 3.25 -> start at 2
    assert farthest_first_order(line, np.arange(4), 4, "euclidean").tolist() == [2, 3, 0, 1]
    # cosine: start [1, 1] (closest direction to mean [.25, .5]), then [-1, 0]; rows 0 and 1 are
    # then tied at distance 1 - 1/sqrt(2) -> lowest index first
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
    assert farthest_first_order(X, np.arange(4), 4, "cosine").tolist() == [2, 3, 0, 1]


def test_farthest_first_cosine_zero_row_is_far_from_everything():
    X = np.array([[1.0, 0.1], [1.0, 0.0], [0.0, 0.0], [0.9, 0.2]])
    order = farthest_first_order(X, np.arange(4), 4, "cosine")
    assert order[1] == 2  # distance 1 beats every other cosine distance here
    np.testing.assert_array_equal(order, _brute_farthest_first(X, np.arange(4), 4, "cosine"))


@pytest.mark.parametrize("start", ["nearest", "farthest"])
@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
@pytest.mark.parametrize("seed", range(6))
def test_farthest_first_matches_brute_force(metric, seed, start):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(5, 14)), int(rng.integers(1, 5))
    X = rng.standard_normal((n, p))
    pool = rng.choice(n, size=int(rng.integers(2, n + 1)), replace=False)
    k = len(pool)
    np.testing.assert_array_equal(
        farthest_first_order(X, pool, k, metric, start),
        _brute_farthest_first(X, pool, k, metric, start),
    )


def test_farthest_first_start_rules_hand_checked():
    line = np.array([[0.0], [1.0], [2.0], [10.0]])  # mean 3.25: nearest row 2, farthest row 3
    assert farthest_first_order(line, np.arange(4), 2, "euclidean", "farthest").tolist() == [3, 0]
    assert farthest_first_order(line, np.arange(4), 2, "euclidean", "nearest").tolist() == [2, 3]
    # cosine "farthest" also measures ||x - mu|| (the paper's code): row 3 = [-1, 0] is farthest
    # from mu = [.25, .5]; then the cosine-farthest from it is [1, 0] (distance 2)
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
    assert select_fafi_cosine(X, 2, np.arange(4), start="farthest").tolist() == [3, 0]
    # Euclidean: the farthest row from [-1, 0] is [1, 1] (sqrt 5 > 2)
    assert farthest_first_order(X, np.arange(4), 2, "euclidean", "farthest").tolist() == [3, 2]
    with pytest.raises(ValueError, match="start='middle'"):
        farthest_first_order(X, np.arange(4), 2, "cosine", start="middle")


def test_farthest_first_invariances():
    X, pool = _data(9, n=40, p=8)
    cos = fafi_cosine_order(X, pool, 15)
    np.testing.assert_array_equal(fafi_cosine_order(3.7 * X, pool, 15), cos)
    euc = farthest_first_order(X, pool, 15, "euclidean")
    np.testing.assert_array_equal(farthest_first_order(2.5 * X + 4.0, pool, 15, "euclidean"), euc)
    np.testing.assert_array_equal(select_fafi_cosine(X, 6, pool), cos[:6])
    np.testing.assert_array_equal(select_fafi_euclidean(X, 6, pool), euc[:6])


def test_farthest_first_cosine_full_zscored_pool_uses_normalised_mean():
    rng = np.random.default_rng(10)
    X = rng.standard_normal((25, 4))
    X = (X - X.mean(0)) / X.std(0)  # pool mean is 0 up to rounding
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    order = fafi_cosine_order(X, np.arange(25), 5)
    assert order[0] == np.argmax(U @ U.mean(0))


# ----------------------------------------------------------------------------- optimal design


def test_design_hand_checked():
    X = np.array([[3.0, 0.0], [0.0, 2.0], [2.9, 0.0]])
    # first: largest norm for both; then the orthogonal row (q = 4 vs 8.41 / 10)
    assert d_optimal_order(X, np.arange(3), 3).tolist() == [0, 1, 2]
    assert a_optimal_order(X, np.arange(3), 3).tolist() == [0, 1, 2]


@pytest.mark.parametrize("criterion", ["a", "d"])
@pytest.mark.parametrize("seed", range(5))
def test_design_matches_brute_force(criterion, seed):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(6, 15)), int(rng.integers(2, 7))
    X = rng.standard_normal((n, p)) * rng.uniform(0.5, 2.0, p)
    pool = rng.choice(n, size=int(rng.integers(3, n + 1)), replace=False)
    lam = float(rng.choice([0.1, 1.0, 5.0]))
    k = min(len(pool), 8)
    fn = a_optimal_order if criterion == "a" else d_optimal_order
    expected = _brute_design(X, pool, k, lam, criterion)
    np.testing.assert_array_equal(fn(X, pool, k, lam=lam), expected)


def test_design_select_equals_order_prefix_and_lam_keyword():
    X, pool = _data(12)
    pairs = ((a_optimal_order, select_a_optimal), (d_optimal_order, select_d_optimal))
    for order_fn, select_fn in pairs:
        order = order_fn(X, pool, 10, None, lam=0.5)
        np.testing.assert_array_equal(select_fn(X, 4, pool, None, lam=0.5), order[:4])


@pytest.mark.parametrize("criterion", ["a", "d"])
def test_design_with_more_features_than_candidates_matches_brute_force(criterion):
    rng = np.random.default_rng(11)
    X = rng.standard_normal((12, 40))
    pool = np.array([0, 2, 3, 5, 7, 8, 9, 11])
    order = (a_optimal_order if criterion == "a" else d_optimal_order)(X, pool, 5, None, lam=0.5)
    assert list(order) == list(_brute_design(X, pool, 5, 0.5, criterion))
