"""k-fold splits from one ILP (balanced folds, product form) and the certificate, on tiny instances."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from benchdesign.splitting.certificate import fold_vs_rest, split_certificate, star_lower_bound
from benchdesign.splitting.ilp import (
    ClusterInstance,
    assignment_objective,
    check_assignment,
    lower_bounds,
    solve_split_ilp,
    upper_bounds,
)
from benchdesign.splitting.leakage import leakage_summary
from benchdesign.splitting.refine import refine_assignment
from benchdesign.splitting.similarity import MatrixSimilarity
from benchdesign.splitting.tasks import EntitySet, SplitSpec, kfold_spec, split_entities


def _instance(rng, k: int, folds: int) -> ClusterInstance:
    kappa = rng.integers(1, 4, k).astype(float)
    a = rng.random((k, k))
    w = np.outer(kappa, kappa) * (a + a.T) / 2
    np.fill_diagonal(w, 0.0)
    return ClusterInstance(kappa, w, np.full(folds, 1.0 / folds))


def _brute_force(inst: ClusterInstance, eps: float, balanced: bool) -> float:
    f = inst.fractions.size
    best = np.inf
    for assign in itertools.product(range(f), repeat=inst.kappa.size):
        assign = np.array(assign)
        if not check_assignment(inst, assign, eps, 0.1, balanced):
            best = min(best, assignment_objective(inst, assign))
    return best


@pytest.mark.parametrize("seed,folds,k", [(0, 3, 7), (1, 3, 7), (1, 4, 6), (3, 2, 7)])
def test_balanced_kfold_ilp_is_optimal(seed, folds, k):
    inst = _instance(np.random.default_rng(seed), k, folds)
    res = solve_split_ilp([inst], 0.25, 0.1, mip_gap=0.0, balanced=True)
    assert check_assignment(inst, res.assignments[0], 0.25, 0.1, balanced=True) == []
    assert res.objective == pytest.approx(_brute_force(inst, 0.25, True), rel=1e-6)
    assert res.bound is not None and res.bound <= res.objective + 1e-6


def test_upper_bounds_make_folds_equal():
    inst = _instance(np.random.default_rng(5), 6, 4)
    folds = np.zeros(6, dtype=int)
    assert any("upper" in v for v in check_assignment(inst, folds, 0.1, 0.1, balanced=True))
    assert not any("upper" in v for v in check_assignment(inst, folds, 0.99, 0.1, balanced=False))
    res = solve_split_ilp([inst], 0.3, 0.1, balanced=True)
    sizes = np.bincount(res.assignments[0], weights=inst.kappa, minlength=4)
    assert (sizes <= upper_bounds(inst.kappa.sum(), inst.fractions, 0.3)).all()


def test_refine_keeps_upper_bounds():
    rng = np.random.default_rng(7)
    inst = _instance(rng, 12, 3)
    start = solve_split_ilp([inst], 0.2, 0.1, balanced=True, mip_gap=0.5).assignments[0]
    out = refine_assignment(inst.weights, inst.kappa, start, inst.fractions, 0.2, 0.1, balanced=True)
    assert check_assignment(inst, out, 0.2, 0.1, balanced=True) == []
    assert assignment_objective(inst, out) <= assignment_objective(inst, start) + 1e-9


def test_kfold_spec():
    spec = kfold_spec(4, SplitSpec(clusters=7))
    assert spec.names == ("fold0", "fold1", "fold2", "fold3") and spec.balanced and spec.clusters == 7
    assert sum(spec.fractions) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="number of folds must be an integer >= 2"):
        kfold_spec(1)


def test_fold_vs_rest():
    out = fold_vs_rest(np.array([0, 1, 2, -1, 1]), 3)
    np.testing.assert_array_equal(out[1], [0, 1, 0, -1, 1])


def test_certificate_matches_direct_leakage(rand_sim):
    rng = np.random.default_rng(2)
    sim = rand_sim(15, rng)
    folds = rng.integers(0, 3, 15)
    randoms = [rng.integers(0, 3, 15) for _ in range(2)]
    cert = split_certificate(MatrixSimilarity(sim), folds, ["a", "b", "c"], randoms, ilp_objective=4.0,
                             ilp_bound=3.0)
    direct = leakage_summary(sim, [folds] + [np.where(folds == 1, 1, 0)] + randoms)
    assert cert["scaled_leakage"] == pytest.approx(direct[0].scaled)
    assert cert["fold_scaled_leakage"]["b"] == pytest.approx(direct[1].scaled)
    assert cert["random_scaled_leakage"] == pytest.approx((direct[2].scaled + direct[3].scaled) / 2)
    assert cert["ilp_gap"] == pytest.approx(0.25)
    assert cert["ilp_scaled_lower_bound"] == pytest.approx(2 * 3.0 / direct[0].total)



def test_certificate_beyond_max_pairs_is_sampled_and_covers_the_exact_figures(rand_sim):
    """Above max_pairs the certificate estimates each figure from sampled pairs (no all-pairs pass)."""
    rng = np.random.default_rng(3)
    sim = rand_sim(60, rng)
    folds = rng.integers(0, 2, 60)
    randoms = [rng.integers(0, 2, 60)]
    exact = split_certificate(MatrixSimilarity(sim), folds, ["train", "test"], randoms)
    cert = split_certificate(MatrixSimilarity(sim), folds, ["train", "test"], randoms, max_pairs=100,
                             n_pairs=200_000, seed=1)
    assert "sampled" not in exact and cert["sampled"]["n_pairs"] == 200_000
    low, high = cert["sampled"]["scaled_leakage_ci"]
    assert low <= exact["scaled_leakage"] <= high
    assert cert["random_scaled_leakage"] == pytest.approx(exact["random_scaled_leakage"], rel=0.02)
    assert cert["leakage"] == pytest.approx(exact["leakage"], rel=0.02)


def test_two_fold_certificate_estimates_each_partition_once(rand_sim, monkeypatch):
    """With two folds "fold i vs rest" is the split itself: one sampled estimate per split, same figures."""
    from benchdesign.splitting import certificate

    rng = np.random.default_rng(5)
    sim = rand_sim(40, rng)
    folds, randoms = rng.integers(0, 2, 40), [rng.integers(0, 2, 40) for _ in range(2)]
    exact = split_certificate(MatrixSimilarity(sim), folds, ["train", "test"], randoms)
    direct = leakage_summary(sim, fold_vs_rest(folds, 2))
    assert [exact["fold_scaled_leakage"][n] for n in ("train", "test")] == pytest.approx(
        [d.scaled for d in direct])
    calls = []
    real = certificate.sampled_leakage
    monkeypatch.setattr(certificate, "sampled_leakage", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    cert = split_certificate(MatrixSimilarity(sim), folds, ["train", "test"], randoms, max_pairs=10,
                             n_pairs=20_000)
    assert len(calls) == 3  # the split and its two random baselines
    assert cert["fold_scaled_leakage"] == {"train": cert["scaled_leakage"], "test": cert["scaled_leakage"]}


def test_kfold_split_entities_certificate(rand_sim):
    rng = np.random.default_rng(4)
    base = rand_sim(40, rng) * 0.2
    blocks = np.repeat(np.arange(5), 8)
    sim = np.where(blocks[:, None] == blocks[None, :], 0.9, base)  # five tight groups of eight
    np.fill_diagonal(sim, 1.0)
    ent = EntitySet(np.array([str(i) for i in range(40)], dtype=object), np.ones(40, bool), MatrixSimilarity(sim))
    res = split_entities("S1", ent, kfold_spec(5, SplitSpec(clusters=5, epsilon=0.05)))
    assert np.bincount(res.fold).tolist() == [8] * 5
    cert = res.report["certificate"]
    assert cert["scaled_leakage"] < cert["random_scaled_leakage"]
    assert cert["random_scaled_leakage"] == pytest.approx(1 - 5 * 0.2**2, abs=0.1)  # random: 1 - sum s_i^2
    assert set(cert["fold_scaled_leakage"]) == {f"fold{i}" for i in range(5)}
    assert cert["ilp_gap"] <= 0.01 + 1e-9  # optimal within the default mip_gap
    assert 0 < cert["scaled_lower_bound"] <= cert["scaled_leakage"] + 1e-12 and 0 <= cert["gap"] < 1
    assert res.clusters.shape == (40,) and len(set(res.clusters.tolist())) == 5


@pytest.mark.parametrize("seed,folds,balanced", [(0, 3, True), (1, 2, False), (2, 2, True)])
def test_star_lower_bound_is_below_every_feasible_assignment(seed, folds, balanced):
    inst = _instance(np.random.default_rng(seed), 7, folds)
    n = inst.kappa.sum()
    if balanced:
        capacity = upper_bounds(n, inst.fractions, 0.3).max()
    else:
        low = lower_bounds(n, inst.fractions, 0.3)
        capacity = (n - (low.sum() - low)).max()
    bound = star_lower_bound(inst.weights, inst.kappa, capacity)
    best = _brute_force(inst, 0.3, balanced)
    assert 0 < bound <= best + 1e-9
    assert star_lower_bound(inst.weights, inst.kappa, n) == pytest.approx(0.0)  # one fold may hold everything
