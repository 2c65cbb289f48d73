"""Dataset subset selection strategies (paper section 4).

Every strategy picks ``k`` distinct rows of a standardised feature matrix ``X`` (n, p) from a
candidate ``pool`` of row indices:  ``select_<name>(X, k, pool, rng) -> ndarray[int] (k,)``.
Greedy strategies build a prefix order once, ``<name>_order(X, pool, k_max, rng)``, with
``select_<name>(X, k, pool, rng) == <name>_order(X, pool, k_max, rng)[:k]`` for every
``k <= k_max`` (same rng state for the random one).

* ``random``         uniform without replacement: ``rng.permutation(pool)[:k]``.
* ``kmeans``         scikit-learn's k-means (greedy k-means++ seeding, Lloyd, best of ``n_init``) on
                     the pool rows, as the paper's code; then, centroid by centroid in seeding order,
                     the nearest (Euclidean) pool row not chosen yet.
* ``fafi_cosine``,   farthest-first traversal (Gonzalez): start at the pool row nearest the
  ``fafi_euclidean`` pool mean (``start="nearest"``) or farthest from it (``start="farthest"``, the
                     paper's code), then repeatedly add the row maximising the distance to its
                     nearest selected row.
* ``a_optimal``,     greedy optimal design on ``M(S) = X_S^T X_S + lam * I``: D adds the row
  ``d_optimal``      maximising ``log det M(S + x)``, A the row minimising ``trace M(S + x)^-1``.

Curator baselines (issue 22, ``BASELINE_STRATEGIES``; outside
``DEFAULT_STRATEGIES``, run only when named), on the RBF kernel of the pool rows with the median
heuristic (``rbf_kernel``):

* ``kmedoids``           PAM objective on the kernel distance sqrt(2 - 2k) (FasterPAM, ``kmedoids``).
* ``facility_location``  greedy max of ``sum_i max_{j in S} k(i, j)``.
* ``mutual_information`` greedy GP mutual information (Krause et al. 2008).
* ``stratified``         random within strata (option ``strata``), largest-remainder allocation.

Informed peer (``classes.selection_class``; meant for the ``oracle`` representation, whose rows are the datasets'
model ranks):

* ``backward_elimination``  MMTEB's task selection: from the pool, repeatedly drop the dataset whose row is
                            best predicted (leave-one-model-out ridge, Spearman) by the remaining rows.
* ``covariance``            the Gaussian design of issue 45: the rows' covariance over the columns (the seen
                            models), shrunk (Ledoit-Wolf); greedily add the dataset that most lowers the posterior
                            variance of a model's mean over *all* rows (the full benchmark).  It reads its
                            representation unstandardised (``Strategy.standardized``): z-scoring each model's
                            column would remove its mean, the very quantity to be predicted.

The greedy DPP MAP selector (``dpp_map_order``) is kept as a function but not registered: on the NLP
(metadata) and RecSys (interaction) domains greedy MI keeps rho >= 0.9 in more pools at k = 5 and 10
(``benchmarks/selection_baselines.py --with-dpp``); with a constant kernel diagonal its first pick is arbitrary.

Deterministic ties (distances, design criteria, nearest rows) go to the lowest row index of
``X``; the deterministic strategies and k-means (for a given rng state) depend on ``pool`` only
as a set, the random strategy on its order.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchdesign.selection.options import BASELINE_STRATEGIES, FAFI_STARTS, SELECT_STRATEGY

__all__ = [
    "Strategy",
    "STRATEGY_REGISTRY",
    "STRATEGIES",
    "PREFIX_ORDERS",
    "FAFI_STARTS",
    "kmeans",
    "random_order",
    "select_random",
    "select_kmeans",
    "farthest_first_order",
    "fafi_cosine_order",
    "fafi_euclidean_order",
    "select_fafi_cosine",
    "select_fafi_euclidean",
    "a_optimal_order",
    "d_optimal_order",
    "select_a_optimal",
    "select_d_optimal",
    "DEFAULT_STRATEGIES",
    "EVALUATE_STRATEGIES",
    "rbf_kernel",
    "kernel_distance",
    "kmedoids_cost",
    "select_kmedoids",
    "facility_location_value",
    "facility_location_order",
    "select_facility_location",
    "mutual_information_order",
    "select_mutual_information",
    "dpp_map_order",
    "select_dpp",
    "largest_remainder",
    "select_stratified",
    "predictability",
    "backward_elimination_order",
    "select_backward_elimination",
    "shrunk_covariance",
    "mean_posterior_variance",
    "covariance_order",
    "select_covariance",
]

IntArray = NDArray[np.intp]


# ----------------------------------------------------------------------------- validation


def _check_X(X: ArrayLike) -> NDArray[np.float64]:
    arr = np.asarray(X, dtype=float)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array (n, p), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        i, j = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"X has a non-finite value {arr[i, j]} at row {i}, column {j}")
    return arr


def _check_pool(pool: ArrayLike, n: int) -> IntArray:
    arr = np.asarray(pool)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"pool must be a non-empty 1-D array of row indices, got shape {arr.shape}"
        )
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"pool must hold integer row indices, got dtype {arr.dtype}")
    bad = (arr < 0) | (arr >= n)
    if bad.any():
        raise ValueError(f"pool has index {arr[bad][0]} outside the rows of X (0..{n - 1})")
    srt = np.sort(arr).astype(np.intp)
    dup = srt[1:] == srt[:-1]
    if dup.any():
        raise ValueError(f"pool has duplicated index {srt[1:][dup][0]}")
    return srt


def _check_k(k: int, size: int, name: str = "k") -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"{name}={k!r} must be an integer")
    if k < 1:
        raise ValueError(f"{name}={k} must be at least 1")
    if k > size:
        raise ValueError(f"{name}={k} is larger than the pool ({size} datasets)")
    return int(k)


def _check_rng(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def _prepare(X: ArrayLike, pool: ArrayLike, k: int, name: str = "k"):
    Xa = _check_X(X)
    pool_sorted = _check_pool(pool, Xa.shape[0])
    return Xa, pool_sorted, _check_k(k, pool_sorted.shape[0], name)


# ----------------------------------------------------------------------------- random


def random_order(
    X: ArrayLike, pool: ArrayLike, k_max: int, rng: np.random.Generator, subsets: str = "prefix"
) -> IntArray:
    """Uniform random order: ``rng.permutation(pool)[:k_max]``.

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset (only validated).
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    k_max : int
        Order length, 1 to m.
    rng : np.random.Generator
        Source of randomness.
    subsets : str
        How the protocol draws subsets for several k (``options.RANDOM_SUBSET_DRAWS``; read by
        ``protocol.selection_orders``); one order is the same either way.

    Returns
    -------
    IntArray
        (k_max,) row indices; any prefix of length k is a uniform k-subset of the pool.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.selection import random_order
    >>> X = np.zeros((5, 1))
    >>> random_order(X, np.arange(5), 3, np.random.default_rng(0)).tolist()
    [2, 4, 3]
    """
    return _random(X, pool, k_max, rng, "k_max")


def select_random(X: ArrayLike, k: int, pool: ArrayLike, rng: np.random.Generator, subsets: str = "prefix"
                  ) -> IntArray:
    """k pool rows uniformly without replacement (``random_order(X, pool, k, rng)``).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset (only validated).
    k : int
        Subset size, 1 to m.
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    rng : np.random.Generator
        Source of randomness.
    subsets : str
        How the protocol draws subsets for several k (``options.RANDOM_SUBSET_DRAWS``); one subset is the same
        either way.

    Returns
    -------
    IntArray
        (k,) distinct row indices from the pool.

    Examples
    --------
    The same seed gives the first rows of [`random_order`][]:

    >>> import numpy as np
    >>> from benchdesign.selection import select_random
    >>> X = np.zeros((5, 1))
    >>> select_random(X, 2, np.arange(5), np.random.default_rng(0)).tolist()
    [2, 4]
    """
    return _random(X, pool, k, rng, "k")


def _random(X: ArrayLike, pool: ArrayLike, k: int, rng: np.random.Generator, name: str) -> IntArray:
    _prepare(X, pool, k, name)
    return np.asarray(_check_rng(rng).permutation(np.asarray(pool)), dtype=np.intp)[:k]


# ----------------------------------------------------------------------------- k-means


def _sq_dists(Z: NDArray, zz: NDArray, C: NDArray) -> NDArray:
    """Squared Euclidean distances (m, c) between rows of Z (norms zz) and rows of C."""
    d2 = zz[:, None] - 2.0 * (Z @ C.T) + np.einsum("ij,ij->i", C, C)[None, :]
    np.maximum(d2, 0.0, out=d2)
    return d2


def _check_count(name: str, value: object) -> int:
    """``value`` as an int >= 1, or ValueError naming the option."""
    is_int = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not is_int or value < 1:
        raise ValueError(f"{name}={value!r} must be an integer >= 1")
    return int(value)


def kmeans(
    X: ArrayLike,
    k: int,
    rng: np.random.Generator,
    n_init: int = 3,
    max_iter: int = 100,
) -> tuple[NDArray[np.float64], IntArray, float]:
    """k-means clustering with scikit-learn's ``KMeans``: greedy k-means++ seeding, Lloyd, best of ``n_init``.

    As the paper's code (hangover137/efficient_benchmarking, ``methods/kmeans_methods.py``: ``KMeans`` with
    ``init="k-means++"``), except that the ``random_state`` is drawn from ``rng``
    (``int(rng.integers(2**31 - 1))``), so every draw follows from the config seed, and that Lloyd runs until
    the assignment no longer changes (``tol=0``; scikit-learn's default ``tol=1e-4`` may stop a round earlier).
    With fewer distinct points than k some centres coincide; scikit-learn's ConvergenceWarning about it is
    silenced (``select_kmeans`` still returns k distinct rows).

    Parameters
    ----------
    X : ArrayLike
        (m, p) points.
    k : int
        Number of clusters, 1 to m.
    rng : np.random.Generator
        Source of the seed of scikit-learn's k-means (one draw).
    n_init : int
        Independent seedings; the lowest inertia wins.
    max_iter : int
        Lloyd rounds per seeding.

    Returns
    -------
    centers : NDArray[np.float64]
        (k, p) centres in seeding order.
    labels : IntArray
        (m,) cluster of each point, in 0..k-1.
    inertia : float
        Sum of squared distances of the points to their centres.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [9.0, 0.0], [9.0, 1.0]])
    >>> centers, labels, inertia = kmeans(X, 2, np.random.default_rng(0))
    >>> sorted(centers.tolist()), bool(labels[0] == labels[1] != labels[2] == labels[3]), inertia
    ([[0.0, 0.5], [9.0, 0.5]], True, 1.0)
    """
    Z = _check_X(X)
    k = _check_k(k, Z.shape[0])
    seed = int(_check_rng(rng).integers(2**31 - 1))
    n_init, max_iter = _check_count("n_init", n_init), _check_count("max_iter", max_iter)
    # here: scikit-learn takes ~1 s to import, and the command line builds its parsers from this module
    from sklearn.cluster import KMeans
    from sklearn.exceptions import ConvergenceWarning

    model = KMeans(k, init="k-means++", n_init=n_init, max_iter=max_iter, tol=0.0, random_state=seed)
    with _threadpools().limit(limits=1), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Number of distinct clusters", ConvergenceWarning)
        model.fit(Z)
    return model.cluster_centers_, model.labels_.astype(np.intp), float(model.inertia_)


@functools.cache
def _threadpools():
    """The BLAS and OpenMP thread pools, found once (``threadpool_limits`` looks them up on every call).

    ``kmeans`` runs on one thread: on the few hundred rows of a selection pool scikit-learn's OpenMP threads add
    overhead, not speed, and compete with the workflow's other jobs."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _nearest_distinct(Z: NDArray, centers: NDArray) -> IntArray:
    """For each centre in order, the nearest (Euclidean) row of Z not taken by an earlier centre.

    Ties (squared distances within ``_first_max``'s 1e-10 relative, e.g. the two members of a two-point
    cluster, equally far from its centre in exact arithmetic) -> lowest row."""
    d2 = np.stack([np.einsum("ij,ij->i", Z - c, Z - c) for c in centers], axis=1)  # (m, k), no (m, k, p) temporary
    taken = np.zeros(Z.shape[0], dtype=bool)
    out = np.empty(centers.shape[0], dtype=np.intp)
    for c in range(centers.shape[0]):
        out[c] = _first_max(np.where(taken, -np.inf, -d2[:, c]))
        taken[out[c]] = True
    return out


def select_kmeans(
    X: ArrayLike, k: int, pool: ArrayLike, rng: np.random.Generator, n_init: int = 3
) -> IntArray:
    """k-means representatives: cluster the pool rows into k clusters (``kmeans``), then for each centroid
    in seeding order take the nearest (Euclidean) pool row not chosen yet (ties -> lowest row index).

    The paper's code takes each centroid's nearest row (``pairwise_distances_argmin_min``), which can
    return one row twice (two centroids nearest the same row, or coinciding centres when the pool has
    fewer distinct rows than k); the "not chosen yet" rule always gives k distinct rows and agrees with
    the paper's choice whenever that has no repeat. A pool with more columns than rows is clustered in the
    coordinates of its rows' span, which keep every distance (a fifth of the CPU on MiniRocket's 9,996 columns).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset (standardised by the protocol).
    k : int
        Subset size, 1 to m.
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    rng : np.random.Generator
        Source of the seed of the k-means (one draw).
    n_init : int
        k-means restarts.

    Returns
    -------
    IntArray
        (k,) distinct row indices from the pool.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.2], [1.0], [5.0], [5.1], [5.6], [9.0]])  # centres 0.4, 5.23, 9
    >>> sorted(select_kmeans(X, 3, np.arange(7), np.random.default_rng(0)).tolist())
    [1, 4, 6]
    """
    Xa, P, k = _prepare(X, pool, k)
    Z = _span_coordinates(Xa[P])
    centers, _, _ = kmeans(Z, k, _check_rng(rng), n_init=n_init)
    return P[_nearest_distinct(Z, centers)]


def _span_coordinates(Z: NDArray) -> NDArray:
    """The rows of Z in at most m columns with the same dot products, hence the same Euclidean distances.

    k-means and the nearest-row step read Z only through distances, so a wide pool (m rows, p > m columns, e.g.
    MiniRocket's 9,996 columns for about 100 datasets) can be clustered in m columns instead of p. From the
    Gram matrix of the distinct rows: Z Z^T = V diag(w) V^T gives the coordinates V diag(sqrt(w)) (w clipped at 0);
    identical rows get one row of coordinates. The distances agree with Z's to about 1e-15 of the largest. k-means++ meets
    exact ties on such data (two candidates, each the other's only change, give equal potentials); rounding breaks
    them, here as in Z's own columns, but not always alike: on MiniRocket pools 11 of 200 selections differ from
    clustering Z itself (benchmarks/kmeans_span.py)."""
    m, p = Z.shape
    if p <= m:
        return Z
    first: dict[bytes, int] = {}
    index = np.array([first.setdefault(row.tobytes(), i) for i, row in enumerate(Z)])
    distinct = np.unique(index)  # identical rows share one row of coordinates: their distance stays exactly 0
    rows = Z[distinct]
    w, V = np.linalg.eigh(rows @ rows.T)  # one operand and its transpose: numpy's symmetric product (syrk)
    return (V * np.sqrt(np.clip(w, 0.0, None)))[np.searchsorted(distinct, index)]


# ----------------------------------------------------------------------------- farthest-first


def farthest_first_order(
    X: ArrayLike, pool: ArrayLike, k_max: int, metric: str = "cosine", start: str = "nearest",
    initial: ArrayLike | None = None,
) -> IntArray:
    """Farthest-first (Gonzalez) traversal of the pool rows (paper section 4.1, Appendix A).

    Start (``start``): ``"nearest"`` takes the pool row nearest the pool mean mu (cosine: largest
    cos(x, mu); euclidean: smallest ||x - mu||); ``"farthest"`` takes the row with the largest
    ||x - mu|| for both metrics, as the paper's code does.  Then repeatedly add the row maximising
    its distance to the nearest selected row; cosine distance = 1 - cos(x, y), euclidean distance =
    ||x - y||.  Ties -> lowest row index.  A zero row has cosine distance 1 to every other row and
    similarity 0 to mu.  If the pool mean is numerically zero (||mu|| <= 1e-10 * max ||x||, e.g. a
    pool z-scored on itself), the cosine "nearest" start uses the mean of the unit-normalised rows
    instead (the cosine medoid).  Incremental nearest-distance updates: O(k_max * m * p).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset.
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    k_max : int
        Order length, 1 to m.
    metric : str
        ``'cosine'`` or ``'euclidean'``.
    start : str
        ``'nearest'`` or ``'farthest'`` (``FAFI_STARTS``).
    initial : ArrayLike | None
        Pool rows already chosen (e.g. datasets a benchmark must keep): the order starts with them, in the
        given order, and the traversal continues from them (``start`` is then unused).

    Returns
    -------
    IntArray
        (k_max,) distinct row indices; every prefix is the farthest-first selection of that size.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.selection import farthest_first_order
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0], [2.0, 0.0]])
    >>> farthest_first_order(X, [0, 1, 2, 3], 3, "euclidean", start="farthest").tolist()
    [2, 0, 3]
    """
    return _farthest_first(X, pool, k_max, metric, start, "k_max", initial)


def _start_row(Z: NDArray, U: NDArray | None, start: str) -> int:
    """Row of Z where the traversal starts (U: unit-normalised rows for the cosine "nearest")."""
    mu = Z.mean(axis=0)
    if start == "farthest":
        return int(np.argmax(np.einsum("ij,ij->i", Z - mu, Z - mu)))
    if U is None:
        return int(np.argmin(np.einsum("ij,ij->i", Z - mu, Z - mu)))
    norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
    if np.linalg.norm(mu) <= 1e-10 * norms.max():
        mu = U.mean(axis=0)
    return int(np.argmax(U @ mu))  # cos(x, mu) up to the positive factor 1/||mu||


def _positions(P: IntArray, rows: ArrayLike) -> list[int]:
    """Positions in the pool ``P`` of the given rows (error for a row outside the pool)."""
    where = {int(r): i for i, r in enumerate(P)}
    rows = [int(r) for r in np.asarray(rows, dtype=np.intp)]
    outside = [r for r in rows if r not in where]
    if outside or len(set(rows)) != len(rows):
        raise ValueError(f"initial rows {rows} must be distinct rows of the pool (outside: {outside})")
    return [where[r] for r in rows]


def _farthest_first(
    X: ArrayLike, pool: ArrayLike, k_max: int, metric: str, start: str, name: str,
    initial: ArrayLike | None = None,
) -> IntArray:
    if metric not in ("cosine", "euclidean"):
        raise ValueError(f"metric={metric!r} must be 'cosine' or 'euclidean'")
    if start not in FAFI_STARTS:
        raise ValueError(f"start={start!r} must be one of {FAFI_STARTS}")
    Xa, P, k_max = _prepare(X, pool, k_max, name)
    Z = Xa[P]
    if metric == "cosine":
        norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
        U = np.divide(Z, norms[:, None], out=np.zeros_like(Z), where=norms[:, None] > 0)

        def dist(i: int) -> NDArray:
            return 1.0 - U @ U[i]

    else:
        U = None

        def dist(i: int) -> NDArray:
            diff = Z - Z[i]
            return np.einsum("ij,ij->i", diff, diff)  # squared: same argmax and ties

    order = np.empty(k_max, dtype=np.intp)
    seeds = _positions(P, initial) if initial is not None and len(initial) else [_start_row(Z, U, start)]
    if len(seeds) > k_max:
        raise ValueError(f"{len(seeds)} initial rows do not fit in {name}={k_max}")
    order[: len(seeds)] = seeds
    nearest = np.min([dist(i) for i in seeds], axis=0)
    nearest[seeds] = -np.inf
    for t in range(len(seeds), k_max):
        i = int(np.argmax(nearest))
        order[t] = i
        np.minimum(nearest, dist(i), out=nearest)  # selected rows stay at -inf
        nearest[i] = -np.inf
    return P[order]


def fafi_cosine_order(
    X: ArrayLike,
    pool: ArrayLike,
    k_max: int,
    rng: np.random.Generator | None = None,
    start: str = "nearest",
) -> IntArray:
    """Cosine farthest-first order ([`farthest_first_order`][] with ``metric='cosine'``).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset (standardised by the protocol).
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    k_max : int
        Order length, 1 to m.
    rng : np.random.Generator | None
        Unused (the strategy is deterministic); accepted for the common signature.
    start : str
        Where the traversal starts: ``'nearest'`` (the row nearest the pool mean) or ``'farthest'`` (the paper's code).

    Returns
    -------
    IntArray
        (k_max,) distinct row indices in selection order; every prefix is the selection of that size.

    Examples
    --------
    Five directions in the plane: the diagonal is nearest the mean, then the two axes are the farthest:

    >>> import numpy as np
    >>> from benchdesign.selection import fafi_cosine_order
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9], [0.7, 0.7]])
    >>> fafi_cosine_order(X, np.arange(5), 3).tolist()
    [4, 0, 2]
    """
    return farthest_first_order(X, pool, k_max, "cosine", start)


def fafi_euclidean_order(
    X: ArrayLike,
    pool: ArrayLike,
    k_max: int,
    rng: np.random.Generator | None = None,
    start: str = "nearest",
) -> IntArray:
    """Euclidean farthest-first order ([`farthest_first_order`][] with ``metric='euclidean'``).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset (standardised by the protocol).
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    k_max : int
        Order length, 1 to m.
    rng : np.random.Generator | None
        Unused (the strategy is deterministic); accepted for the common signature.
    start : str
        Where the traversal starts: ``'nearest'`` (the row nearest the pool mean) or ``'farthest'`` (the paper's code).

    Returns
    -------
    IntArray
        (k_max,) distinct row indices in selection order; every prefix is the selection of that size.

    Examples
    --------
    Five datasets on a line: from the middle (nearest the mean) or from an end, the ends come first:

    >>> import numpy as np
    >>> from benchdesign.selection import fafi_euclidean_order
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    >>> fafi_euclidean_order(X, np.arange(5), 3).tolist()
    [2, 0, 4]
    >>> fafi_euclidean_order(X, np.arange(5), 3, start="farthest").tolist()
    [0, 4, 2]
    """
    return farthest_first_order(X, pool, k_max, "euclidean", start)


def select_fafi_cosine(
    X: ArrayLike,
    k: int,
    pool: ArrayLike,
    rng: np.random.Generator | None = None,
    start: str = "nearest",
) -> IntArray:
    """First k rows of the cosine farthest-first order ([`fafi_cosine_order`][]).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset (standardised by the protocol).
    k : int
        Subset size, 1 to m.
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    rng : np.random.Generator | None
        Unused (the strategy is deterministic); accepted for the common signature.
    start : str
        Where the traversal starts: ``'nearest'`` (the row nearest the pool mean) or ``'farthest'`` (the paper's code).

    Returns
    -------
    IntArray
        (k,) distinct row indices from the pool.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.selection import select_fafi_cosine
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9], [0.7, 0.7]])
    >>> select_fafi_cosine(X, 3, np.arange(5)).tolist()  # the diagonal, then both axes
    [4, 0, 2]
    >>> select_fafi_cosine(X, 2, np.array([0, 1, 2, 3])).tolist()  # without the diagonal
    [1, 2]
    """
    return _farthest_first(X, pool, k, "cosine", start, "k")


def select_fafi_euclidean(
    X: ArrayLike,
    k: int,
    pool: ArrayLike,
    rng: np.random.Generator | None = None,
    start: str = "nearest",
) -> IntArray:
    """First k rows of the Euclidean farthest-first order ([`fafi_euclidean_order`][]).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset (standardised by the protocol).
    k : int
        Subset size, 1 to m.
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    rng : np.random.Generator | None
        Unused (the strategy is deterministic); accepted for the common signature.
    start : str
        Where the traversal starts: ``'nearest'`` (the row nearest the pool mean) or ``'farthest'`` (the paper's code).

    Returns
    -------
    IntArray
        (k,) distinct row indices from the pool.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.selection import select_fafi_euclidean
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])  # five datasets on a line
    >>> select_fafi_euclidean(X, 2, np.arange(5), start="farthest").tolist()  # the two ends
    [0, 4]
    """
    return _farthest_first(X, pool, k, "euclidean", start, "k")


# ----------------------------------------------------------------------------- optimal design


def _design_order(
    X: ArrayLike, pool: ArrayLike, k_max: int, lam: float, criterion: str, name: str = "k_max"
) -> IntArray:
    Xa, P, k_max = _prepare(X, pool, k_max, name)
    is_real = isinstance(lam, (int, float, np.integer, np.floating)) and not isinstance(
        lam, (bool, np.bool_)
    )
    if not is_real or not np.isfinite(lam) or lam <= 0:
        raise ValueError(f"lam={lam!r} must be a positive finite number")
    Z = Xa[P]
    if Z.shape[1] > Z.shape[0]:
        # More features than candidates (e.g. 9,996 MiniRocket features): every candidate lies in
        # the row space of Z, on whose complement M acts as lam * I, so coordinates in an orthonormal
        # basis of that space give the same x^T M^-1 x and trace drops with an m x m M.
        U, s, _ = np.linalg.svd(Z, full_matrices=False)
        Z = U * s
    minv = np.eye(Z.shape[1]) / float(lam)  # M(empty)^-1
    taken = np.zeros(Z.shape[0], dtype=bool)
    order = np.empty(k_max, dtype=np.intp)
    for t in range(k_max):
        W = Z @ minv  # rows M^-1 x (M^-1 symmetric)
        q = np.einsum("ij,ij->i", W, Z)  # x^T M^-1 x
        if criterion == "d":
            gain = q  # log det M(S + x) = log det M(S) + log(1 + q)
        else:
            gain = np.einsum("ij,ij->i", W, W) / (1.0 + q)  # trace drop of M^-1
        gain[taken] = -np.inf
        i = int(np.argmax(gain))
        order[t] = i
        taken[i] = True
        v = W[i]
        minv -= np.outer(v, v) / (1.0 + q[i])  # Sherman-Morrison
    return P[order]


def d_optimal_order(
    X: ArrayLike,
    pool: ArrayLike,
    k_max: int,
    rng: np.random.Generator | None = None,
    lam: float = 1.0,
) -> IntArray:
    """Greedy D-optimal design order on ``M(S) = X_S^T X_S + lam * I``.

    Each step adds the pool row x maximising ``log det M(S + {x})``, i.e. maximising
    ``x^T M(S)^-1 x`` (matrix determinant lemma); ties -> lowest row index. ``M^-1`` is kept by
    Sherman-Morrison updates: O(k_max * m * p^2).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset (standardised by the protocol).
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    k_max : int
        Order length, 1 to m.
    rng : np.random.Generator | None
        Unused (the strategy is deterministic); accepted for the common signature.
    lam : float
        Ridge lam > 0 of M(S) = X_S^T X_S + lam I.

    Returns
    -------
    IntArray
        (k_max,) distinct row indices in selection order; every prefix is the selection of that size.

    Examples
    --------
    The longest row first, then the orthogonal direction rather than the near copy of the first:

    >>> import numpy as np
    >>> from benchdesign.selection import d_optimal_order
    >>> X = np.array([[3.0, 0.0], [2.9, 0.1], [0.0, 1.0], [0.5, 0.5]])
    >>> d_optimal_order(X, np.arange(4), 3).tolist()
    [0, 2, 1]
    """
    return _design_order(X, pool, k_max, lam, "d")


def a_optimal_order(
    X: ArrayLike,
    pool: ArrayLike,
    k_max: int,
    rng: np.random.Generator | None = None,
    lam: float = 1.0,
) -> IntArray:
    """Greedy A-optimal design order on ``M(S) = X_S^T X_S + lam * I``.

    Each step adds the pool row x minimising ``trace M(S + {x})^-1``, i.e. maximising
    ``x^T M^-2 x / (1 + x^T M^-1 x)`` (Sherman-Morrison); ties -> lowest row index. ``M^-1`` is
    kept by Sherman-Morrison updates: O(k_max * m * p^2).

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset (standardised by the protocol).
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    k_max : int
        Order length, 1 to m.
    rng : np.random.Generator | None
        Unused (the strategy is deterministic); accepted for the common signature.
    lam : float
        Ridge lam > 0 of M(S) = X_S^T X_S + lam I.

    Returns
    -------
    IntArray
        (k_max,) distinct row indices in selection order; every prefix is the selection of that size.

    Examples
    --------
    The longest row first, then the orthogonal direction rather than the near copy of the first:

    >>> import numpy as np
    >>> from benchdesign.selection import a_optimal_order
    >>> X = np.array([[3.0, 0.0], [2.9, 0.1], [0.0, 1.0], [0.5, 0.5]])
    >>> a_optimal_order(X, np.arange(4), 3).tolist()
    [0, 2, 3]
    """
    return _design_order(X, pool, k_max, lam, "a")


def select_d_optimal(
    X: ArrayLike,
    k: int,
    pool: ArrayLike,
    rng: np.random.Generator | None = None,
    lam: float = 1.0,
) -> IntArray:
    """First k rows of [`d_optimal_order`][].

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset (standardised by the protocol).
    k : int
        Subset size, 1 to m.
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    rng : np.random.Generator | None
        Unused (the strategy is deterministic); accepted for the common signature.
    lam : float
        Ridge lam > 0 of M(S) = X_S^T X_S + lam I.

    Returns
    -------
    IntArray
        (k,) distinct row indices from the pool.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.selection import select_d_optimal
    >>> X = np.array([[3.0, 0.0], [2.9, 0.1], [0.0, 1.0], [0.5, 0.5]])
    >>> select_d_optimal(X, 2, np.arange(4)).tolist()  # the longest row, then the orthogonal one
    [0, 2]
    """
    return _design_order(X, pool, k, lam, "d", "k")


def select_a_optimal(
    X: ArrayLike,
    k: int,
    pool: ArrayLike,
    rng: np.random.Generator | None = None,
    lam: float = 1.0,
) -> IntArray:
    """First k rows of [`a_optimal_order`][].

    Parameters
    ----------
    X : ArrayLike
        (n, p) features, one row per dataset (standardised by the protocol).
    k : int
        Subset size, 1 to m.
    pool : ArrayLike
        (m,) distinct row indices to choose from.
    rng : np.random.Generator | None
        Unused (the strategy is deterministic); accepted for the common signature.
    lam : float
        Ridge lam > 0 of M(S) = X_S^T X_S + lam I.

    Returns
    -------
    IntArray
        (k,) distinct row indices from the pool.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.selection import select_a_optimal
    >>> X = np.array([[3.0, 0.0], [2.9, 0.1], [0.0, 1.0], [0.5, 0.5]])
    >>> select_a_optimal(X, 2, np.arange(4)).tolist()  # the longest row, then the orthogonal one
    [0, 2]
    """
    return _design_order(X, pool, k, lam, "a", "k")


# ----------------------------------------------------------------------------- kernel baselines
# Curator baselines (issue 22): k-medoids, facility location, greedy mutual information, DPP MAP, all on
# one kernel of the standardised pool rows -- RBF k(x, y) = exp(-||x - y||^2 / (2 h^2)) with the
# median heuristic h = median of the pairwise Euclidean distances between pool rows (h = 1 if that is 0).


def rbf_kernel(Z: ArrayLike) -> NDArray[np.float64]:
    """RBF kernel (m, m) of the rows of Z, ``exp(-||x - y||^2 / (2 h^2))``, h = median pairwise distance.

    The median runs over the m (m - 1) / 2 pairs i < j; h = 1 when it is 0 (more than half the pairs
    coincide) or m = 1.
    """
    Z = np.asarray(Z, dtype=float)
    zz = np.einsum("ij,ij->i", Z, Z)
    d2 = _sq_dists(Z, zz, Z)
    np.fill_diagonal(d2, 0.0)
    iu = np.triu_indices(Z.shape[0], 1)
    h = float(np.median(np.sqrt(d2[iu]))) if iu[0].size else 0.0
    return np.exp(-d2 / (2.0 * (h * h if h > 0 else 1.0)))


def _first_max(values: NDArray, rtol: float = 1e-10) -> int:
    """Lowest index whose value is within ``rtol * max(1, |max|)`` of the maximum (-inf entries excluded):
    greedy gains equal in exact arithmetic (e.g. two mutually nearest rows) may differ in the last bits."""
    top = float(np.max(values))
    return int(np.flatnonzero(values >= top - rtol * max(1.0, abs(top)))[0])


def _pool_kernel(X: ArrayLike, pool: ArrayLike, k: int, name: str):
    Xa, P, k = _prepare(X, pool, k, name)
    return P, rbf_kernel(Xa[P]), k


def kernel_distance(K: NDArray) -> NDArray[np.float64]:
    """Kernel (feature-space) distance ``sqrt(k(x, x) + k(y, y) - 2 k(x, y)) = sqrt(2 - 2 k(x, y))`` (RBF)."""
    return np.sqrt(np.maximum(2.0 - 2.0 * K, 0.0))


def kmedoids_cost(D: NDArray, medoids: ArrayLike) -> float:
    """PAM objective: ``sum_i min_{j in medoids} D[i, j]``."""
    return float(D[:, np.asarray(medoids, dtype=np.intp)].min(axis=1).sum())


def _fasterpam():
    try:
        import kmedoids as kmedoids_package
    except ImportError as err:  # a core dependency: only a broken install lacks it
        raise ImportError("the 'kmedoids' strategy needs the kmedoids package (a core dependency of "
                          "benchdesign): pip install 'kmedoids>=0.5.5'") from err
    return kmedoids_package.fasterpam


def select_kmedoids(
    X: ArrayLike, k: int, pool: ArrayLike, rng: np.random.Generator, n_init: int = 3
) -> IntArray:
    """k-medoids (PAM objective, FasterPAM of Schubert & Rousseeuw 2021, the ``kmedoids`` package) on the
    kernel distance ``d(x, y) = sqrt(2 - 2 k(x, y))`` of the RBF median-heuristic kernel (``rbf_kernel``).

    Minimises ``sum_{i in pool} min_{j in S} d(i, j)`` over k-subsets S of the pool; FasterPAM stops at a
    swap-local optimum (no medoid/non-medoid swap lowers the cost).  Starts: PAM's BUILD, then
    ``n_init - 1`` uniform random medoid sets drawn from ``rng``; the lowest cost wins (ties -> the earlier
    start).  BUILD's processing order is shuffled with a seed drawn from ``rng``; single-threaded, so the
    result is a function of the rng state.

    Returns
    -------
    (k,) the medoid rows, ascending.
    """
    P, K, k = _pool_kernel(X, pool, k, "k")
    _check_rng(rng)
    n_init = _check_count("n_init", n_init)
    D = kernel_distance(K)
    fasterpam = _fasterpam()
    best, best_cost = None, np.inf
    for start in range(n_init):
        if start == 0:  # BUILD; the seed shuffles FasterPAM's processing order
            fit = fasterpam(D, k, init="build", random_state=int(rng.integers(2**31 - 1)), max_iter=100, n_cpu=1)
        else:  # given medoids: FasterPAM is then deterministic
            fit = fasterpam(D, np.sort(rng.choice(P.shape[0], k, replace=False)), max_iter=100, n_cpu=1)
        medoids = np.sort(np.asarray(fit.medoids, dtype=np.intp))
        cost = kmedoids_cost(D, medoids)
        if cost < best_cost - 1e-12:
            best, best_cost = medoids, cost
    return P[best]


def facility_location_value(K: NDArray, chosen: ArrayLike) -> float:
    """Facility location ``F(S) = sum_i max_{j in S} K[i, j]`` (0 for the empty set)."""
    chosen = np.asarray(chosen, dtype=np.intp)
    return float(K[:, chosen].max(axis=1).sum()) if chosen.size else 0.0


def facility_location_order(
    X: ArrayLike, pool: ArrayLike, k_max: int, rng: np.random.Generator | None = None
) -> IntArray:
    """Greedy facility location on the RBF median-heuristic kernel (``rbf_kernel``) of the pool rows.

    Each step adds the row j maximising ``F(S + j) - F(S)``, ``F(S) = sum_{i in pool} max_{s in S} k(i, s)``;
    F is monotone submodular, so every prefix is within ``1 - 1/e`` of the best set of its size
    (Nemhauser, Wolsey & Fisher 1978).  Ties (gains within 1e-10 relative) -> lowest row index; ``rng`` is
    unused.  O(k_max m^2).
    """
    return _facility_location(X, pool, k_max, "k_max")


def select_facility_location(
    X: ArrayLike, k: int, pool: ArrayLike, rng: np.random.Generator | None = None
) -> IntArray:
    """First k rows of ``facility_location_order``; ``rng`` is unused."""
    return _facility_location(X, pool, k, "k")


def _facility_location(X: ArrayLike, pool: ArrayLike, k: int, name: str) -> IntArray:
    P, K, k = _pool_kernel(X, pool, k, name)
    cover = np.zeros(P.shape[0])  # max_{s in S} k(i, s); k >= 0, so 0 for the empty set
    taken = np.zeros(P.shape[0], dtype=bool)
    order = np.empty(k, dtype=np.intp)
    for t in range(k):
        gain = np.maximum(K - cover[:, None], 0.0).sum(axis=0)  # column j: F(S + j) - F(S)
        gain[taken] = -np.inf
        j = _first_max(gain)
        order[t], taken[j] = j, True
        np.maximum(cover, K[:, j], out=cover)
    return P[order]


def _check_noise(noise: float) -> float:
    ok = isinstance(noise, (int, float, np.integer, np.floating)) and not isinstance(noise, (bool, np.bool_))
    if not ok or not np.isfinite(noise) or noise <= 0:
        raise ValueError(f"noise={noise!r} must be a positive finite number")
    return float(noise)


def mutual_information_order(
    X: ArrayLike, pool: ArrayLike, k_max: int, rng: np.random.Generator | None = None, noise: float = 1e-2
) -> IntArray:
    """Greedy Gaussian-process mutual-information selection (Krause, Singh & Guestrin, JMLR 2008).

    GP covariance ``C = K + noise * I`` on the pool rows (K: ``rbf_kernel``).  Each step adds the row y
    maximising the gain of ``F(A) = I(A; V \\ A)`` (V the pool),
    ``F(A + y) - F(A) = H(y | A) - H(y | V \\ (A + y)) = 1/2 log(var(y | A) / var(y | V \\ (A + y)))``, with
    ``var(y | A) = C_yy - C_yA C_AA^-1 C_Ay`` and ``var(y | U \\ y) = 1 / (C_UU^-1)_yy`` for U the unselected
    rows.  Ties (within 1e-10) -> lowest row index; ``rng`` is unused.  O(k_max m^3).
    """
    return _mutual_information(X, pool, k_max, noise, "k_max")


def select_mutual_information(
    X: ArrayLike, k: int, pool: ArrayLike, rng: np.random.Generator | None = None, noise: float = 1e-2
) -> IntArray:
    """First k rows of ``mutual_information_order``; ``rng`` is unused."""
    return _mutual_information(X, pool, k, noise, "k")


def _mutual_information(X: ArrayLike, pool: ArrayLike, k: int, noise: float, name: str) -> IntArray:
    P, K, k = _pool_kernel(X, pool, k, name)
    C = K + _check_noise(noise) * np.eye(P.shape[0])
    chosen: list[int] = []
    for _ in range(k):
        rest = np.setdiff1d(np.arange(P.shape[0]), chosen)
        var_rest = 1.0 / np.diag(np.linalg.inv(C[np.ix_(rest, rest)]))  # var(y | U \ y), y in U
        if chosen:
            W = np.linalg.solve(C[np.ix_(chosen, chosen)], C[np.ix_(chosen, rest)])
            var_sel = C[rest, rest] - np.einsum("ay,ay->y", C[np.ix_(chosen, rest)], W)
        else:
            var_sel = C[rest, rest]
        chosen.append(int(rest[_first_max(np.log(var_sel) - np.log(var_rest))]))
    return P[np.asarray(chosen, dtype=np.intp)]


def dpp_map_order(
    X: ArrayLike, pool: ArrayLike, k_max: int, rng: np.random.Generator | None = None, noise: float = 1e-2
) -> IntArray:
    """Greedy DPP MAP (Chen, Zhang & Zhou, NeurIPS 2018, fast greedy): maximise ``log det L_S`` with
    ``L = K + noise * I`` (K: ``rbf_kernel`` of the pool rows).

    Each step adds the row j with the largest ``d_j^2 = L_jj - ||c_j||^2`` (= det L_{S+j} / det L_S), the
    vectors c_j kept by incremental Cholesky updates: O(k_max^2 m).  Ties (within 1e-10) -> lowest row index (so the
    constant diagonal makes the first pick the lowest pool row); ``rng`` is unused.
    """
    return _dpp_map(X, pool, k_max, noise, "k_max")


def select_dpp(
    X: ArrayLike, k: int, pool: ArrayLike, rng: np.random.Generator | None = None, noise: float = 1e-2
) -> IntArray:
    """First k rows of ``dpp_map_order``; ``rng`` is unused."""
    return _dpp_map(X, pool, k, noise, "k")


def _dpp_map(X: ArrayLike, pool: ArrayLike, k: int, noise: float, name: str) -> IntArray:
    P, K, k = _pool_kernel(X, pool, k, name)
    L = K + _check_noise(noise) * np.eye(P.shape[0])
    c = np.zeros((k, P.shape[0]))
    d2 = np.diag(L).copy()
    order = np.empty(k, dtype=np.intp)
    for t in range(k):
        gain = d2.copy()
        gain[order[:t]] = -np.inf
        j = _first_max(gain)
        order[t] = j
        e = (L[j] - c[:t, j] @ c[:t]) / np.sqrt(d2[j])
        c[t] = e
        d2 = d2 - e * e
    return P[order]


def largest_remainder(sizes: ArrayLike, k: int) -> NDArray[np.intp]:
    """Hamilton allocation of k seats to strata of the given sizes: ``floor(k n_s / m)`` each, then one more
    to the largest remainders ``k n_s / m - floor(k n_s / m)`` (ties -> larger stratum, then earlier one)."""
    n = np.asarray(sizes, dtype=np.int64)
    quota = k * n / n.sum()
    seats = np.floor(quota).astype(np.intp)
    rest = quota - seats
    for s in np.lexsort((np.arange(n.size), -n, -rest))[: k - int(seats.sum())]:
        seats[s] += 1
    return seats


def _strata_labels(strata: ArrayLike | None, n: int) -> NDArray:
    if strata is None:
        raise ValueError("the 'stratified' strategy needs strata: one label per row of X (options="
                         "{'strata': labels}; CLI --strata FILE:COLUMN)")
    labels = np.asarray(strata, dtype=object)
    if labels.shape != (n,):
        raise ValueError(f"strata must hold one label per row of X ({n}), got shape {labels.shape}")
    missing = [i for i, v in enumerate(labels) if v is None or (isinstance(v, float) and np.isnan(v))]
    if missing:
        raise ValueError(f"strata has no label for row {missing[0]}")
    return np.asarray([str(v) for v in labels])


def select_stratified(
    X: ArrayLike, k: int, pool: ArrayLike, rng: np.random.Generator, strata: ArrayLike | None = None
) -> IntArray:
    """Stratified random selection: the k places go to the strata (labels ``strata``, one per row of X)
    in proportion to their pool sizes by largest remainder (``largest_remainder``); within each
    stratum, in sorted label order, ``rng.permutation`` of its pool rows (ascending) gives its share.

    Returns
    -------
    (k,) rows, stratum by stratum (sorted labels); a function of the rng state and the pool as a set.
    """
    Xa, P, k = _prepare(X, pool, k)
    _check_rng(rng)
    labels = _strata_labels(strata, Xa.shape[0])[P]
    names, inverse = np.unique(labels, return_inverse=True)
    seats = largest_remainder(np.bincount(inverse, minlength=names.size), k)
    picks = [rng.permutation(P[inverse == s])[: seats[s]] for s in range(names.size)]
    return np.concatenate(picks).astype(np.intp)


# ----------------------------------------------------------------------------- backward elimination (MMTEB)

RIDGE = 1.0
"""Ridge penalty of the leave-one-model-out predictions of ``predictability`` (features z-scored)."""


def _spearman(a: NDArray, b: NDArray) -> float:
    from scipy.stats import rankdata  # here: the command line builds its parsers from this module without scipy

    ra, rb = rankdata(a) - (a.size + 1) / 2.0, rankdata(b) - (b.size + 1) / 2.0
    denom = np.sqrt((ra * ra).sum() * (rb * rb).sum())
    return float((ra * rb).sum() / denom) if denom > 0 else -1.0


def predictability(Z: ArrayLike, target: int, others: ArrayLike, ridge: float = RIDGE) -> float:
    """Spearman rho between row ``target`` of Z and its leave-one-column-out ridge prediction from ``others``.

    The columns of Z are models: model m's value on the target dataset is predicted by a ridge regression
    (penalty ``ridge``, unpenalised intercept) fitted on the other models, with the other datasets' values as
    features.  Closed form: ``y_hat_m = y_m - e_m / (1 - H_mm)``, H the hat matrix, e the in-sample residual.
    """
    Z = np.asarray(Z, dtype=float)
    y, F = Z[target], Z[np.asarray(others, dtype=np.intp)].T  # (M,), (M, |others|)
    m = y.size
    Fc = F - F.mean(axis=0)
    K = Fc @ Fc.T
    H = K @ np.linalg.solve(K + ridge * np.eye(m), np.eye(m)) + 1.0 / m
    residual = y - H @ y
    y_hat = y - residual / np.maximum(1.0 - np.diag(H), 1e-12)
    return _spearman(y_hat, y)


def backward_elimination_order(
    X: ArrayLike, pool: ArrayLike, k_max: int, rng: np.random.Generator | None = None
) -> IntArray:
    """MMTEB-style backward elimination (Enevoldsen et al. 2025, section 2.3): from the pool, drop the row with
    the highest ``predictability`` by the other remaining rows until one is left; the order is the reverse
    of the drops, so its first k rows are the k that survive longest.  Ties -> the lowest row index is
    dropped; ``rng`` is unused.  O(m^2) ridge fits of size M (the columns) each."""
    return _backward_elimination(X, pool, k_max, "k_max")


def select_backward_elimination(
    X: ArrayLike, k: int, pool: ArrayLike, rng: np.random.Generator | None = None
) -> IntArray:
    """First k rows of ``backward_elimination_order``; ``rng`` is unused."""
    return _backward_elimination(X, pool, k, "k")


def _backward_elimination(X: ArrayLike, pool: ArrayLike, k: int, name: str) -> IntArray:
    Xa, P, k = _prepare(X, pool, k, name)
    remaining = [int(i) for i in P]
    dropped: list[int] = []
    while len(remaining) > 1:
        scores = [predictability(Xa, i, [j for j in remaining if j != i]) for i in remaining]
        top = max(scores)
        drop = min(i for i, v in zip(remaining, scores) if v >= top - 1e-12)
        remaining.remove(drop)
        dropped.append(drop)
    return np.asarray((remaining + dropped[::-1])[:k], dtype=np.intp)


# ----------------------------------------------------------------------------- covariance design (issue 45)


def shrunk_covariance(X: ArrayLike) -> NDArray[np.float64]:
    """Ledoit-Wolf covariance of the rows of ``X`` over its columns (the rows are the variables, the columns the
    samples), with a jitter of ``1e-10`` times its mean variance on the diagonal so that it is positive definite.

    Parameters
    ----------
    X : ArrayLike
        (n, M): n datasets (variables) described by M models (samples), e.g. the seen models' ranks.

    Returns
    -------
    NDArray[np.float64]
        (n, n) covariance: ``sklearn.covariance.LedoitWolf().fit(X.T).covariance_`` plus the jitter.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0], [1.0, 0.0, 1.0, 0.0]])
    >>> C = shrunk_covariance(X)
    >>> C.shape, bool(np.allclose(C, C.T)), bool(np.linalg.eigvalsh(C).min() > 0)
    ((3, 3), True, True)
    """
    from sklearn.covariance import LedoitWolf  # here: the command line imports this module without sklearn

    Xa = _check_X(X)
    if Xa.shape[1] < 2:
        raise ValueError(f"X has {Xa.shape[1]} column: a covariance over the columns needs at least two (models)")
    C = LedoitWolf().fit(Xa.T).covariance_
    scale = float(np.trace(C)) / C.shape[0]
    return C + 1e-10 * (scale if scale > 0 else 1.0) * np.eye(C.shape[0])


def mean_posterior_variance(C: ArrayLike, observed: ArrayLike) -> float:
    """Posterior variance of the mean of all n variables of a Gaussian with covariance ``C``, given ``observed``.

    With ``w = 1/n``: ``w'Cw - w'C[:, S] C[S, S]^-1 C[S, :]w`` (S the observed indices; ``w'Cw`` when S is empty).

    Parameters
    ----------
    C : ArrayLike
        (n, n) positive definite covariance.
    observed : ArrayLike
        Indices of the observed variables.

    Returns
    -------
    float
        The posterior variance.

    Examples
    --------
    Two independent unit-variance variables: the mean has variance 1/2, and 1/4 once one of them is observed:

    >>> import numpy as np
    >>> mean_posterior_variance(np.eye(2), []), mean_posterior_variance(np.eye(2), [0])
    (0.5, 0.25)
    """
    C = np.asarray(C, dtype=float)
    S = np.asarray(observed, dtype=np.intp)
    b = C.mean(axis=1)  # C w
    prior = float(b.mean())  # w'Cw
    if S.size == 0:
        return prior
    return prior - float(b[S] @ np.linalg.solve(C[np.ix_(S, S)], b[S]))


def covariance_order(
    X: ArrayLike, pool: ArrayLike, k_max: int, rng: np.random.Generator | None = None
) -> IntArray:
    """Greedy minimum posterior variance of the full-benchmark mean (issue 45's covariance-based design).

    The rows of ``X`` are the datasets, its columns the models (the ``oracle``: each dataset's ranks of the seen
    models, unstandardised); ``C = shrunk_covariance(X)`` is the datasets' Ledoit-Wolf covariance with the models
    as samples.  A model's scores are taken as Gaussian with covariance C; each step adds the pool row j that
    minimises the posterior variance of the model's mean over *all* n rows given the chosen rows
    (``mean_posterior_variance(C, S + j)``), i.e. maximises ``((C|S) w)_j^2 / (C|S)_jj`` with ``C|S`` the
    conditional covariance given S and ``w = 1/n``.  Ties (within 1e-10) -> lowest row index; ``rng`` is unused.
    O(k_max n^2) after the covariance.

    Parameters
    ----------
    X : ArrayLike
        (n, M) unstandardised rows: n datasets, M >= 2 models.
    pool : ArrayLike
        Row indices to choose from.
    k_max : int
        Length of the order.
    rng : np.random.Generator | None
        Unused.

    Returns
    -------
    IntArray
        ``k_max`` pool rows in the order they are added.

    Examples
    --------
    Four datasets, five models: datasets 0 and 1 agree, 2 and 3 are noise; the first pick is one of the two
    that tell most about the mean:

    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0, 3.0, 4.0, 5.0], [1.1, 2.1, 2.9, 4.2, 5.0], [3.0, 1.0, 2.0, 5.0, 4.0],
    ...               [2.0, 5.0, 1.0, 3.0, 4.0]])
    >>> covariance_order(X, np.arange(4), 2).tolist()
    [1, 0]
    """
    return _covariance(X, pool, k_max, "k_max")


def select_covariance(
    X: ArrayLike, k: int, pool: ArrayLike, rng: np.random.Generator | None = None
) -> IntArray:
    """First k rows of [`covariance_order`][]; ``rng`` is unused.

    Parameters
    ----------
    X : ArrayLike
        (n, M) unstandardised rows: n datasets, M >= 2 models.
    k : int
        Number of rows.
    pool : ArrayLike
        Row indices to choose from.
    rng : np.random.Generator | None
        Unused.

    Returns
    -------
    IntArray
        The k rows.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(6, 8))
    >>> rows = select_covariance(X, 3, np.arange(1, 6))
    >>> rows.tolist() == covariance_order(X, np.arange(1, 6), 3).tolist(), 0 in rows
    (True, False)
    """
    return _covariance(X, pool, k, "k")


def _covariance(X: ArrayLike, pool: ArrayLike, k: int, name: str) -> IntArray:
    Xa, P, k = _prepare(X, pool, k, name)
    R = shrunk_covariance(Xa)  # the conditional covariance given the chosen rows, updated in place
    floor = 1e-12 * float(np.trace(R)) / R.shape[0]
    order = np.empty(k, dtype=np.intp)
    taken = np.zeros(P.size, dtype=bool)
    for t in range(k):
        Rw = R[P].mean(axis=1)  # ((C|S) w)_j for the pool rows
        d = np.diag(R)[P]
        gain = np.where(d > floor, Rw * Rw / np.maximum(d, floor), 0.0)  # the drop of the mean's variance
        gain[taken] = -np.inf
        j = _first_max(gain)
        order[t], taken[j] = j, True
        row = R[P[j]].copy()
        R -= np.outer(row, row) / max(row[P[j]], floor)
    return P[order]


# ----------------------------------------------------------------------------- registries

@dataclass(frozen=True)
class Strategy:
    """One selection strategy: what the protocol, the tables and the figures need to know of it.

    The registry's order fixes each strategy's seed code in the protocol: append new strategies at the end.

    Attributes
    ----------
    name : str
        Name used in configs, tables and files.
    label : str
        Display name.
    select : Callable[..., IntArray]
        ``select(X, k, pool, rng, **options)`` picks k rows.
    order : Callable[..., IntArray] | None
        Greedy strategies only: ``order(X, pool, k_max, rng, **options)``, a prefix order whose first k rows
        are ``select``'s.
    options : tuple[str, ...]
        The keyword arguments beyond (X, k, pool, rng).
    uses_representation : bool
        False for a strategy that ignores X (random).
    color : str
        Colour in the figures.
    standardized : bool
        False for a strategy that reads its representation unstandardised (``covariance``: a model's mean over the
        datasets is what it predicts); the protocol and ``select`` z-score the others' (``standardize``).

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.selection import STRATEGY_REGISTRY
    >>> fafi = STRATEGY_REGISTRY["fafi_euclidean"]
    >>> fafi.label, fafi.options, fafi.uses_representation, fafi.default
    ('E-FAFI', ('start',), True, True)
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])  # five datasets on a line
    >>> fafi.select(X, 2, np.arange(5), None, start="farthest").tolist()  # the two ends
    [0, 4]
    >>> fafi.order(X, np.arange(5), 3, None, start="farthest").tolist()
    [0, 4, 2]
    """

    name: str
    label: str
    select: Callable[..., IntArray]
    order: Callable[..., IntArray] | None = None
    options: tuple[str, ...] = ()
    uses_representation: bool = True
    color: str = "#8c564b"
    standardized: bool = True

    @property
    def default(self) -> bool:
        """Part of the default runs (pipeline, ``evaluate`` without a list): not a curator baseline."""
        return self.name not in BASELINE_STRATEGIES


STRATEGY_REGISTRY: dict[str, Strategy] = {
    s.name: s
    for s in (
        Strategy("random", "Random", select_random, random_order, ("subsets",), False, "#7f7f7f"),
        Strategy("kmeans", "K-Means", select_kmeans, None, ("n_init",), True, "#1f77b4"),
        Strategy("fafi_cosine", "C-FAFI", select_fafi_cosine, fafi_cosine_order, ("start",), True, "#d62728"),
        Strategy("fafi_euclidean", "E-FAFI", select_fafi_euclidean, fafi_euclidean_order, ("start",), True,
                 "#ff7f0e"),
        Strategy("a_optimal", "A-optimal", select_a_optimal, a_optimal_order, ("lam",), True, "#2ca02c"),
        Strategy("d_optimal", "D-optimal", select_d_optimal, d_optimal_order, ("lam",), True, "#9467bd"),
        # curator baselines (issue 22; options.BASELINE_STRATEGIES): run only when named
        Strategy("kmedoids", "K-Medoids", select_kmedoids, None, ("n_init",), True, "#17becf"),
        Strategy("facility_location", "Facility location", select_facility_location, facility_location_order,
                 (), True, "#bcbd22"),
        Strategy("mutual_information", "Greedy MI", select_mutual_information, mutual_information_order,
                 ("noise",), True, "#e377c2"),
        Strategy("stratified", "Stratified", select_stratified, None, ("strata",), False, "#393b79"),
        Strategy("backward_elimination", "Backward elimination", select_backward_elimination,
                 backward_elimination_order, (), True, "#8c6d31"),
        Strategy("covariance", "Covariance design", select_covariance, covariance_order, (), True, "#637939",
                 standardized=False),
    )
}
"""Every strategy by name, in the order of the paper's tables (the seed codes of the protocol)."""

DEFAULT_STRATEGIES: tuple[str, ...] = tuple(name for name, s in STRATEGY_REGISTRY.items() if s.default)
"""The strategies a pipeline run without a strategy list evaluates: the paper's six (the baselines only when named;
``benchdesign evaluate`` adds ``select``'s default, ``EVALUATE_STRATEGIES``)."""

EVALUATE_STRATEGIES: tuple[str, ...] = tuple(
    name for name, s in STRATEGY_REGISTRY.items() if s.default or name == SELECT_STRATEGY
)
"""The strategies ``benchdesign evaluate`` (``evaluate_benchmark``) runs without a list: ``DEFAULT_STRATEGIES`` and
``benchdesign select``'s default (``options.SELECT_STRATEGY``), so the evaluation judges what ``select`` uses."""

STRATEGIES: dict[str, Callable[..., IntArray]] = {name: s.select for name, s in STRATEGY_REGISTRY.items()}
PREFIX_ORDERS: dict[str, Callable[..., IntArray]] = {
    name: s.order for name, s in STRATEGY_REGISTRY.items() if s.order is not None
}
