"""The ILP (12)-(18) reaches the brute-force optimum on tiny instances; failures are explained."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from benchdesign.splitting.ilp import (
    ClusterInstance,
    InfeasibleSplitError,
    assignment_objective,
    available_milp_solvers,
    check_assignment,
    solve_group_counts,
    solve_split_ilp,
    solver_options,
)
from benchdesign.splitting.refine import refine_assignment


def random_instance(rng, k, fractions, n_classes=0):
    kappa = rng.integers(1, 6, k).astype(float)
    sim = rng.random((k, k))
    sim = (sim + sim.T) / 2
    weights = np.outer(kappa, kappa) * sim
    np.fill_diagonal(weights, 0)
    classes = None
    if n_classes:
        member = rng.integers(0, n_classes, k)
        classes = np.zeros((k, n_classes))
        classes[np.arange(k), member] = kappa
    return ClusterInstance(kappa, weights, np.asarray(fractions), classes, tuple(f"c{i}" for i in range(n_classes)))


def brute_force(instances, epsilon, delta):
    best, best_assign = np.inf, None
    spaces = [itertools.product(range(inst.fractions.size), repeat=inst.kappa.size) for inst in instances]
    for combo in itertools.product(*spaces):
        folds = [np.array(c) for c in combo]
        if any(check_assignment(i, f, epsilon, delta) for i, f in zip(instances, folds, strict=True)):
            continue
        value = sum(assignment_objective(i, f) for i, f in zip(instances, folds, strict=True))
        if value < best - 1e-9:
            best, best_assign = value, folds
    return best, best_assign


CASES = [
    (7, (0.8, 0.2), 0.1, 0.1, 0),
    (8, (0.5, 0.5), 0.2, 0.1, 0),
    (6, (0.6, 0.2, 0.2), 0.2, 0.2, 0),
    (8, (0.7, 0.3), 0.3, 0.3, 2),
    (6, (0.5, 0.25, 0.25), 0.3, 0.5, 2),
]


@pytest.mark.parametrize("k,fractions,epsilon,delta,n_classes", CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ilp_optimum_equals_brute_force(k, fractions, epsilon, delta, n_classes, seed):
    rng = np.random.default_rng(seed)
    inst = random_instance(rng, k, fractions, n_classes)
    best, _ = brute_force([inst], epsilon, delta)
    if not np.isfinite(best):
        with pytest.raises(InfeasibleSplitError):
            solve_split_ilp([inst], epsilon, delta, time_limit=30)
        return
    res = solve_split_ilp([inst], epsilon, delta, time_limit=30, seed=seed)
    assert res.status == "optimal"
    assert check_assignment(inst, res.assignments[0], epsilon, delta) == []
    assert res.objective == pytest.approx(best, rel=1e-4, abs=1e-6)


def test_joint_two_type_ilp_equals_brute_force():
    rng = np.random.default_rng(11)
    insts = [random_instance(rng, 5, (0.6, 0.4)), random_instance(rng, 4, (0.6, 0.4))]
    best, _ = brute_force(insts, 0.3, 0.3)
    res = solve_split_ilp(insts, 0.3, 0.3, time_limit=30)
    assert res.objective == pytest.approx(best, rel=1e-4)
    assert len(res.assignments) == 2


def test_other_installed_solver_gives_same_optimum():
    others = [s for s in available_milp_solvers() if s in ("SCIPY", "SCIP", "GLPK_MI", "CBC")]
    if not others:
        pytest.skip("no second MILP solver installed")
    inst = random_instance(np.random.default_rng(3), 7, (0.7, 0.3))
    a = solve_split_ilp([inst], 0.2, 0.2, solver="HIGHS")
    b = solve_split_ilp([inst], 0.2, 0.2, solver=others[0], node_limit=None)  # not every solver takes one
    assert b.objective == pytest.approx(a.objective, rel=1e-4)


def test_infeasible_epsilon_names_constraint_and_suggests_value():
    inst = ClusterInstance(np.array([5.0, 5.0]), np.zeros((2, 2)), np.array([0.8, 0.2]))
    with pytest.raises(InfeasibleSplitError, match=r"eq\. 14.*epsilon=0.1.*smallest feasible epsilon is about 0\.37"):
        solve_split_ilp([inst], epsilon=0.1, delta=0.1)


def test_infeasible_delta_names_stratification():
    kappa = np.ones(4)
    classes = np.array([[1, 0], [1, 0], [1, 0], [0, 1]], dtype=float)  # class c1 has one member only
    inst = ClusterInstance(kappa, np.zeros((4, 4)), np.array([0.5, 0.5]), classes, ("c0", "c1"))
    # 'paper': both folds must hold (1 - delta) 0.5 > 0 members of c1, which sits in one cluster: seen before solving
    with pytest.raises(InfeasibleSplitError, match=r"before the solver ran\): class 'c1' has its 1 members in only 1 "
                                                   r"cluster\(s\), but 2 folds must each hold"):
        solve_split_ilp([inst], epsilon=0.5, delta=0.1, stratification="paper")
    # two-sided: a fold may hold the whole number next to n_c s_i = 0.5 (0 or 1), so this one is feasible
    assert solve_split_ilp([inst], epsilon=0.5, delta=0.1).status == "optimal"
    # four clusters of 4 into two halves: c0 splits 6 | 4 at best (target 5), c1 2 | 4 (target 3): delta >= 1/3
    chunky = ClusterInstance(np.full(4, 4.0), np.zeros((4, 4)), np.array([0.5, 0.5]),
                             np.array([[4, 0], [4, 0], [2, 2], [0, 4]], dtype=float), ("c0", "c1"))
    # seen before solving (cluster 3's 4 members of c1 exceed the 3 a fold may hold), with the same delta as the
    # solver's relaxation (0.334)
    with pytest.raises(InfeasibleSplitError, match=r"cluster 3 holds 4 of the 6 members of class 'c1' \(66\.7%\); fold 0 "
                                                   r"may hold at most 3 of them .*raise delta \(--delta\) to at least "
                                                   r"0\.34"):
        solve_split_ilp([chunky], epsilon=0.0, delta=0.1)


def test_time_limit_returns_best_feasible_and_says_so():
    rng = np.random.default_rng(0)
    inst = random_instance(rng, 40, (0.5, 0.3, 0.2))
    res = solve_split_ilp([inst], 0.05, 0.1, time_limit=0.2)
    assert res.status in ("time_limit", "optimal")
    if res.status == "time_limit":
        assert "time limit" in res.message
    assert check_assignment(inst, res.assignments[0], 0.05, 0.1) == []


def test_node_limit_is_reproducible():
    inst = random_instance(np.random.default_rng(4), 20, (0.7, 0.3))
    runs = [solve_split_ilp([inst], 0.05, 0.1, time_limit=60, node_limit=5, seed=1) for _ in range(2)]
    assert runs[0].status in ("node_limit", "optimal")
    np.testing.assert_array_equal(runs[0].assignments[0], runs[1].assignments[0])
    assert check_assignment(inst, runs[0].assignments[0], 0.05, 0.1) == []


def test_solver_options_validation():
    with pytest.raises(ValueError, match="not an installed"):
        solver_options("NOSUCHSOLVER", 10)
    with pytest.raises(ValueError, match="time_limit"):
        solver_options("HIGHS", 0)
    assert solver_options("HIGHS", 5)["time_limit"] == 5.0
    assert solver_options("HIGHS", 5, node_limit=7)["mip_max_nodes"] == 7
    if "GLPK_MI" in available_milp_solvers():
        with pytest.raises(ValueError, match=r"no node-limit option known for solver 'GLPK_MI' \(node_limit=100\).*"
                                             r"or node_limit none"):
            solver_options("GLPK_MI", 5, node_limit=100)
    with pytest.raises(ValueError, match="node_limit"):
        solver_options("HIGHS", 5, node_limit=0)


def test_group_counts_respect_fractions_and_classes():
    sizes = np.array([30, 7, 3])
    weights = np.array([1.0, 2.0, 1.0])
    classes = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
    y = solve_group_counts(sizes, weights, np.array([0.6, 0.2, 0.2]), 0.05, 0.2, classes)
    np.testing.assert_array_equal(y.sum(axis=1), sizes)
    fold_w = weights @ y
    assert np.all(fold_w >= 0.95 * np.array([0.6, 0.2, 0.2]) * (weights @ sizes) - 1e-9)
    per_class = (classes * weights[:, None]).T @ y
    total_class = (classes * weights[:, None]).T @ sizes
    assert np.all(per_class >= 0.8 * np.outer(total_class, [0.6, 0.2, 0.2]) - 1e-9)


def test_refinement_never_increases_leakage_and_stays_feasible():
    rng = np.random.default_rng(9)
    for _ in range(5):
        inst = random_instance(rng, 12, (0.7, 0.3), n_classes=2)
        res = solve_split_ilp([inst], 0.2, 0.3, time_limit=10)
        start = res.assignments[0]
        better = refine_assignment(inst.weights, inst.kappa, start, inst.fractions, 0.2, 0.3, inst.classes)
        assert assignment_objective(inst, better) <= assignment_objective(inst, start) + 1e-9
        assert check_assignment(inst, better, 0.2, 0.3) == []
        bad = np.zeros(12, dtype=int)  # infeasible start is still improved only through feasible moves
        bad[:4] = 1
        if not check_assignment(inst, bad, 0.2, 0.3):
            out = refine_assignment(inst.weights, inst.kappa, bad, inst.fractions, 0.2, 0.3, inst.classes)
            assert check_assignment(inst, out, 0.2, 0.3) == []
