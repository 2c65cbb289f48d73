"""The ILP stops the same way on every machine (node limit, one HiGHS thread, the split's seed); what blocks an
infeasible split is said in plain words before the solver runs; no assignment within the limits is not called
infeasible."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

import cvxpy.settings as cps
import numpy as np
import pytest

import benchdesign.splitting.ilp as ilp
from benchdesign.cli import main
from benchdesign.splitting.ilp import (
    ClusterInstance,
    InfeasibleSplitError,
    NoAssignmentFoundError,
    feasibility_obstacles,
    solve_split_ilp,
    solver_options,
    time_limit_words,
)
from benchdesign.splitting.options import SPLIT_DEFAULTS
from benchdesign.splitting.pipeline import without_timings

MOLS = Path(__file__).parent / "fixtures" / "mols.csv"


def blob_instance(k: int, folds: int, seed: int = 0) -> ClusterInstance:
    """``k`` clusters of 1-19 entities with a smooth similarity: the ILP needs branch and bound, not only its root."""
    rng = np.random.default_rng(seed)
    kappa = rng.integers(1, 20, k).astype(float)
    pts = rng.normal(size=(k, 8))
    sim = np.exp(-((pts[:, None] - pts[None]) ** 2).sum(-1) / 8)
    weights = np.outer(kappa, kappa) * sim
    np.fill_diagonal(weights, 0)
    return ClusterInstance(kappa, weights, np.full(folds, 1 / folds))


@contextlib.contextmanager
def busy(n: int):
    """``n`` processes spinning on the CPU for the block (a loaded machine)."""
    children = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for child in children:
            child.kill()
            child.wait()


# --- deterministic by default ------------------------------------------------------------------------------


def test_default_limits_stop_by_nodes_with_the_time_as_a_safety_net():
    assert SPLIT_DEFAULTS["node_limit"] == 100 and SPLIT_DEFAULTS["time_limit"] == 600.0
    assert SPLIT_DEFAULTS["mip_gap"] == 0.01
    opts = solver_options("HIGHS", 600.0, seed=7, node_limit=100, mip_gap=0.01)
    assert opts["mip_max_nodes"] == 100 and opts["mip_rel_gap"] == 0.01 and opts["time_limit"] == 600.0
    assert opts["threads"] == 1 and opts["random_seed"] == 7  # the same search on every machine, from the split's seed
    assert solver_options("HIGHS", 1.0, seed=2**31 + 5)["random_seed"] == 6  # HiGHS takes seeds below 2^31 - 1


def test_node_limit_is_reported_by_the_node_count():
    inst = blob_instance(16, 3)
    res = solve_split_ilp([inst], 0.1, 0.1, time_limit=600, node_limit=4, mip_gap=0.01, balanced=True)
    assert res.status == "node_limit" and res.extra["nodes"] == 4
    assert res.message.startswith("node limit of 4 reached")


def test_same_folds_idle_and_beside_busy_processes():
    """A branch and bound that runs past its root (node limit 4; the gap is still ~6 %) gives the same folds when
    two processes spin beside it on this machine's cores; so does one that stops at the gap (1 %) after ~9 nodes."""
    for node_limit in (4, None):
        inst = blob_instance(16, 3)
        runs = []
        for n_busy in (0, 2):
            with busy(n_busy):
                runs.append(solve_split_ilp([inst], 0.1, 0.1, time_limit=600, node_limit=node_limit, mip_gap=0.01,
                                            balanced=True, seed=3))
        assert runs[0].extra["nodes"] > 1  # not decided at the root
        assert runs[0].status == ("node_limit" if node_limit else "optimal")
        np.testing.assert_array_equal(runs[0].assignments[0], runs[1].assignments[0])
        assert runs[0].objective == runs[1].objective and runs[0].extra["nodes"] == runs[1].extra["nodes"]


def test_highs_runs_after_other_highs_code_with_its_default_threads():
    """HiGHS refuses a run whose thread count differs from an earlier run's in the process; the ILP resets it."""
    import cvxpy as cp

    x = cp.Variable(3, boolean=True)
    cp.Problem(cp.Minimize(cp.sum(x)), [cp.sum(x) >= 2]).solve(solver="HIGHS")  # all cores, HiGHS's default
    res = solve_split_ilp([blob_instance(8, 2)], 0.2, 0.1)
    assert res.status == "optimal"
    cp.Problem(cp.Minimize(cp.sum(x)), [cp.sum(x) >= 2]).solve(solver="HIGHS")  # and other code runs after it
    assert x.value.sum() == pytest.approx(2)


def test_a_time_limit_stop_says_the_folds_depend_on_the_machine(monkeypatch):
    words = time_limit_words(600.0, 100, 42)
    assert words == ("the solver stopped at its safety time limit of 600 s after 42 nodes, before its node limit of "
                     "100; the folds may differ on another machine or under other load; lower --node-limit "
                     "(node_limit) so that it stops the solver first, or raise --time-limit (time_limit)")
    assert "set --node-limit" in time_limit_words(10.0, None)
    # a solve that the clock stopped (node count below the node limit) is labelled and explained so
    real = ilp._solve

    def clock_stop(problem, solver, time_limit, seed, node_limit=None, mip_gap=None, verbose=False):
        status, seconds = real(problem, solver, time_limit, seed, 1, mip_gap, verbose)
        return (cps.USER_LIMIT if status == cps.OPTIMAL else status), seconds

    monkeypatch.setattr(ilp, "_solve", clock_stop)
    res = solve_split_ilp([blob_instance(16, 3)], 0.1, 0.1, time_limit=5.0, node_limit=50, balanced=True)
    assert res.status == "time_limit"
    assert "safety time limit of 5 s" in res.message and "may differ on another machine" in res.message


def test_two_runs_write_the_same_split_and_report_but_for_timings(tmp_path):
    args = ["split", "--task", "S1", "--folds", "3", "--clusters", "12", "--input", str(MOLS), "--id-col", "mol_id",
            "--smiles-col", "smiles", "--class-col", "active", "--node-limit", "4", "--quiet"]
    outs = []
    for run, n_busy in enumerate((0, 2)):
        tsv, rep = tmp_path / f"f{run}.tsv", tmp_path / f"r{run}.json"
        with busy(n_busy):
            assert main([*args, "--out", str(tsv), "--report", str(rep)]) == 0
        outs.append((tsv.read_bytes(), json.loads(rep.read_text())))
    (tsv0, rep0), (tsv1, rep1) = outs
    assert rep0["solver_status"] == "node_limit" and rep0["solver_nodes"] == 4
    assert tsv0 == tsv1
    assert "stage_seconds" in rep0 and "seconds" in rep0["summary"]["solver"]  # timings are kept in the report
    bare = without_timings(rep0)
    assert "stage_seconds" not in bare and "solver_seconds" not in bare and "seconds" not in bare["summary"]["solver"]
    assert json.dumps(bare, sort_keys=True) == json.dumps(without_timings(rep1), sort_keys=True)


# --- infeasibility in plain words ------------------------------------------------------------------------


def test_one_cluster_too_large_for_five_folds_is_named_before_solving(monkeypatch):
    kappa = np.array([60.0, *np.full(8, 5.0)])  # cluster 0 holds 60 % of the 100 entities
    inst = ClusterInstance(kappa, np.zeros((9, 9)), np.full(5, 0.2), fold_names=tuple(f"f{i}" for i in range(5)))
    monkeypatch.setattr(ilp, "_solve", lambda *a, **k: pytest.fail("the solver ran"))
    with pytest.raises(InfeasibleSplitError) as err:
        solve_split_ilp([inst], 0.1, 0.1, balanced=True)
    assert not err.value.by_classes
    text = str(err.value)
    assert text.startswith("infeasible (found from the cluster and class counts, before the solver ran)")
    assert ("cluster 0 holds 60 of 100 entities (60.0%); fold 'f0' may hold at most 22 ((1 + epsilon) s_i n), and "
            "no fold more: no epsilon below 1 lets it fit (2.00 would be needed); raise the number of clusters "
            "(--clusters, now 9)") in text


def test_a_cluster_too_large_for_a_train_fold_gives_the_epsilon_that_fits():
    kappa = np.array([90.0, 5.0, 5.0])  # train (80 %) may hold 100 - (1 - epsilon) 20
    inst = ClusterInstance(kappa, np.zeros((3, 3)), np.array([0.8, 0.2]), fold_names=("train", "test"))
    [obstacle] = feasibility_obstacles([inst], 0.1, 0.1)
    assert ("cluster 0 holds 90 of 100 entities (90.0%); fold 'train' may hold at most 82 (n minus the other folds' "
            "least sizes (1 - epsilon) s_j n), and no fold more: raise epsilon (--epsilon, now 0.1) to at least "
            "0.50") in obstacle
    assert feasibility_obstacles([inst], 0.5, 0.1) == []
    res = solve_split_ilp([inst], 0.5, 0.1)
    assert res.assignments[0][0] == 0


def test_too_few_clusters_and_class_spread_are_named():
    inst = ClusterInstance(np.array([4.0, 3.0, 3.0]), np.zeros((3, 3)), np.full(5, 0.2))
    assert any("only 3 cluster(s) for 5 folds" in o for o in feasibility_obstacles([inst], 0.1, 0.1, balanced=True))
    kappa = np.full(10, 10.0)
    classes = np.zeros((10, 2))
    classes[:, 0] = 10.0
    classes[:2, 0], classes[:2, 1] = 0.0, 10.0  # class 'rare' sits in two clusters only
    inst = ClusterInstance(kappa, np.zeros((10, 10)), np.full(5, 0.2), classes, ("common", "rare"))
    [obstacle] = feasibility_obstacles([inst], 0.1, 0.1, balanced=True, stratification="paper")
    assert ("class 'rare' has its 20 members in only 2 cluster(s), but 5 folds must each hold at least "
            "(1 - delta) s_i n_c of them (delta 0.1)") in obstacle
    with pytest.raises(InfeasibleSplitError, match="class 'rare' has its 20 members in only 2 cluster") as err:
        solve_split_ilp([inst], 0.1, 0.1, balanced=True, stratification="paper")
    assert err.value.by_classes  # the class counts block it (LeakageKFold then names stratify=False)


def test_a_cluster_with_too_many_members_of_a_class_is_named():
    kappa = np.full(10, 10.0)
    classes = np.column_stack([kappa, np.zeros(10)])
    classes[0] = [0.0, 10.0]
    classes[1:5] = [[8.5, 1.5]] * 4  # class 'b': 10 in cluster 0, 6 in four others; a fold may hold 4 (16 s_i = 3.2)
    inst = ClusterInstance(kappa, np.zeros((10, 10)), np.full(5, 0.2), classes, ("a", "b"))
    [obstacle] = feasibility_obstacles([inst], 0.1, 0.1, balanced=True)
    assert ("cluster 0 holds 10 of the 16 members of class 'b' (62.5%); fold 0 may hold at most 4 of them "
            "((1 + delta) s_i n_c, delta 0.1), and no fold more: raise delta (--delta) to at least 2.13") in obstacle
    assert feasibility_obstacles([inst], 0.1, 0.1, balanced=True, stratification="paper") == []


def test_solver_proof_and_limits_are_told_apart(monkeypatch):
    inst = ClusterInstance(np.array([5.0, 5.0]), np.zeros((2, 2)), np.array([0.8, 0.2]))
    assert feasibility_obstacles([inst], 0.1, 0.1) == []  # only the solver sees that 5 | 5 cannot make 80 / 20
    with pytest.raises(InfeasibleSplitError, match=r"^proved infeasible by the solver: .*eq\. 14"):
        solve_split_ilp([inst], 0.1, 0.1)
    monkeypatch.setattr(ilp, "_solve", lambda *a, **k: (cps.USER_LIMIT, 3.0))  # stopped with no assignment
    with pytest.raises(NoAssignmentFoundError, match=r"no feasible assignment found within the limits: solver HIGHS "
                                                     r"stopped at its time limit of 3 s .*This does not show that "
                                                     r"none exists"):
        solve_split_ilp([blob_instance(8, 2)], 0.1, 0.1, time_limit=3.0, node_limit=100)
    assert issubclass(NoAssignmentFoundError, RuntimeError) and not issubclass(NoAssignmentFoundError, ValueError)
