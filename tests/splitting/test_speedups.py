"""The faster paths (sparse Tanimoto, single-threaded spectral clustering, two-fold ILP, MIP gap) keep results exact."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from benchdesign.splitting.clustering import leader_labels, spectral_labels
from benchdesign.splitting.ilp import (
    ClusterInstance,
    assignment_objective,
    check_assignment,
    solve_split_ilp,
    solver_options,
)
from benchdesign.splitting.similarity import FingerprintSimilarity, tanimoto_block


def random_bits(rng, n, n_bits, density):
    return (rng.random((n, n_bits)) < density).astype(np.uint8)


def dense_tanimoto(bits):
    b = bits.astype(float)
    inter = b @ b.T
    union = b.sum(1)[:, None] + b.sum(1)[None, :] - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


@pytest.mark.parametrize("density", [0.04, 0.5])
def test_fingerprint_blocks_sparse_and_dense_paths_equal_brute_force(density):
    rng = np.random.default_rng(0)
    bits = random_bits(rng, 60, 128, density)
    bits[3] = 0  # an empty fingerprint: similarity 0 to everything, itself included
    bits[7] = 0
    src = FingerprintSimilarity(bits)
    assert (src.csr is not None) == (density < 0.15)
    expected = dense_tanimoto(bits)
    rows, cols = rng.permutation(60)[:25], rng.permutation(60)[:40]
    np.testing.assert_allclose(src.block(rows, cols), expected[np.ix_(rows, cols)], atol=1e-6)
    for i in (0, 3, 59):
        np.testing.assert_allclose(src.one_vs_all(i), expected[i], atol=1e-6)
    assert src.block([3], [7])[0, 0] == 0.0
    np.testing.assert_allclose(tanimoto_block(bits[rows], bits[cols], src.counts[rows], src.counts[cols]),
                               expected[np.ix_(rows, cols)], atol=1e-6)


def test_spectral_labels_equal_a_dense_eigh_embedding_and_kmeans():
    """Independent check on noisy blocks of unequal size: the 5 leading eigenvectors of D^-1/2 A D^-1/2
    (self-loops dropped; numpy's dense eigh), divided by D^1/2 and clustered by k-means, give the same
    partition as spectral_labels (scikit-learn's ARPACK embedding and k-means)."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    rng = np.random.default_rng(1)
    truth = np.repeat(np.arange(5), [4, 9, 14, 6, 27])
    noise = rng.random((60, 60)) * 0.2
    aff = np.where(truth[:, None] == truth[None, :], 0.5, 0.1) + (noise + noise.T) / 2
    np.fill_diagonal(aff, 1.0)
    off = aff - np.diag(np.diag(aff))
    d = np.sqrt(off.sum(axis=1))
    _, vecs = np.linalg.eigh(off / np.outer(d, d))
    ref = KMeans(5, n_init=10, random_state=0).fit_predict(vecs[:, -5:] / d[:, None])
    ours = spectral_labels(aff, 5, seed=0)
    assert adjusted_rand_score(ours, ref) == 1.0
    assert adjusted_rand_score(ours, truth) == 1.0
    with pytest.raises(ValueError, match="n_clusters must be in"):
        spectral_labels(aff, 61)


def test_spectral_labels_find_blocks_of_affinity():
    rng = np.random.default_rng(2)
    sizes = [8, 12, 5, 15]
    truth = np.repeat(np.arange(4), sizes)
    aff = np.where(truth[:, None] == truth[None, :], 0.8, 0.02) + rng.random((40, 40)) * 0.01
    aff = (aff + aff.T) / 2
    np.fill_diagonal(aff, 1.0)
    perm = rng.permutation(40)
    lab = spectral_labels(aff[np.ix_(perm, perm)], 4, seed=3)
    t = truth[perm]
    assert all(np.unique(lab[t == c]).size == 1 for c in range(4))
    assert np.unique(lab).size == 4
    np.testing.assert_array_equal(lab, spectral_labels(aff[np.ix_(perm, perm)], 4, seed=3))


def test_leader_sampling_matches_rng_choice_reference():
    """Inverse-CDF sampling picks the same leaders as rng.choice(n, p=...) with the same stream."""
    rng = np.random.default_rng(3)
    bits = random_bits(rng, 80, 64, 0.2)
    src = FingerprintSimilarity(bits)
    labels = leader_labels(src, 10, np.random.default_rng(9))
    # reference: the previous implementation with rng.choice
    ref_rng = np.random.default_rng(9)
    first = int(ref_rng.integers(80))
    best = src.one_vs_all(first).astype(float)
    best[first] = 1.0
    ref = np.zeros(80, dtype=np.int64)
    leaders = [first]
    for j in range(1, 10):
        d2 = np.square(1.0 - np.clip(best, 0, 1))
        d2[leaders] = 0.0
        nxt = int(ref_rng.choice(80, p=d2 / d2.sum()))
        sims = src.one_vs_all(nxt).astype(float)
        sims[nxt] = 1.0
        closer = sims > best
        ref[closer] = j
        best[closer] = sims[closer]
        leaders.append(nxt)
    np.testing.assert_array_equal(labels, ref)


def brute_force(inst, epsilon, delta):
    best = np.inf
    for combo in itertools.product(range(2), repeat=inst.kappa.size):
        f = np.array(combo)
        if not check_assignment(inst, f, epsilon, delta):
            best = min(best, assignment_objective(inst, f))
    return best


@pytest.mark.parametrize("seed", range(4))
def test_two_fold_formulation_with_zero_weight_pairs_equals_brute_force(seed):
    """Pairs of weight 0 are left out of the RLT rows; the optimum must not change."""
    rng = np.random.default_rng(seed)
    k = 11
    kappa = rng.integers(1, 8, k).astype(float)
    sim = rng.random((k, k))
    sim = (sim + sim.T) / 2
    sim[sim < 0.5] = 0.0  # about half the pairs have no similarity
    weights = np.outer(kappa, kappa) * sim
    np.fill_diagonal(weights, 0.0)
    inst = ClusterInstance(kappa, weights, np.array([0.75, 0.25]))
    best = brute_force(inst, 0.1, 0.1)
    res = solve_split_ilp([inst], 0.1, 0.1, time_limit=30, mip_gap=0.0)
    assert res.status == "optimal"
    assert check_assignment(inst, res.assignments[0], 0.1, 0.1) == []
    assert res.objective == pytest.approx(best, rel=1e-6, abs=1e-9)


def test_mip_gap_option_and_bound():
    assert solver_options("HIGHS", 5, mip_gap=0.02)["mip_rel_gap"] == 0.02
    assert "mip_rel_gap" not in solver_options("HIGHS", 5)
    with pytest.raises(ValueError, match="mip_gap must lie in"):
        solver_options("HIGHS", 5, mip_gap=1.5)
    rng = np.random.default_rng(7)
    k = 12
    kappa = rng.integers(1, 6, k).astype(float)
    sim = rng.random((k, k))
    weights = np.outer(kappa, kappa) * (sim + sim.T) / 2
    np.fill_diagonal(weights, 0.0)
    inst = ClusterInstance(kappa, weights, np.array([0.8, 0.2]))
    best = brute_force(inst, 0.1, 0.1)
    res = solve_split_ilp([inst], 0.1, 0.1, time_limit=30, mip_gap=0.05)
    assert res.status == "optimal" and "relative gap 0.05" in res.message
    assert res.extra["mip_gap_tolerance"] == 0.05
    assert best - 1e-6 <= res.objective <= best * 1.05 + 1e-6
    assert res.bound is not None and res.bound <= best + 1e-6


def test_spectral_labels_of_disconnected_components_are_silent():
    """Three blocks with no similarity between them (scikit-learn warns that the graph is not connected): one
    cluster per block, and no warning reaches the user."""
    truth = np.repeat(np.arange(3), [5, 7, 4])
    aff = np.where(truth[:, None] == truth[None, :], 0.8, 0.0)
    np.fill_diagonal(aff, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lab = spectral_labels(aff, 3, seed=0)
    assert all(np.unique(lab[truth == c]).size == 1 for c in range(3)) and np.unique(lab).size == 3


def test_split_spec_mip_gap_reaches_report_and_is_validated(fixtures, tmp_path, capsys):
    import json

    from benchdesign.cli import main

    out, report = tmp_path / "s.tsv", tmp_path / "r.json"
    code = main(["split", "--task", "S1", "--input", str(fixtures / "mols.csv"), "--smiles-col", "smiles",
                 "--splits", "0.8", "0.2", "--clusters", "8", "--mip-gap", "0.2", "--out", str(out),
                 "--report", str(report)])
    assert code == 0
    assert json.loads(report.read_text())["mip_gap_tolerance"] == 0.2
    code = main(["split", "--task", "S1", "--input", str(fixtures / "mols.csv"), "--smiles-col", "smiles",
                 "--splits", "0.8", "0.2", "--clusters", "8", "--mip-gap", "1.5", "--out", str(tmp_path / "x.tsv")])
    assert code == 2 and "mip_gap must lie in [0, 1), got 1.5" in capsys.readouterr().err
    assert not (tmp_path / "x.tsv").exists()
