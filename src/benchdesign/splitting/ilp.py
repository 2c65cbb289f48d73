"""The integer linear program of eqs. (12)-(18) of the DataSAIL paper, in matrix form with cvxpy.

For each entity type r the instance holds K_r clusters with cardinalities kappa (K_r,), symmetric
pair weights W[a, b] = kappa_a kappa_b sim_C(a, b) and optionally class cardinalities (K_r, C_r).
Variables: a boolean assignment matrix X_r (K_r x F) per type and one auxiliary zeta per cluster pair
with positive weight. In matrix form:

    min   sum_r w_r . zeta_r                                              (12)
    s.t.  X_r 1_F = 1_K                                                   (13)
          kappa_r^T X_r >= (1 - epsilon) s n_r                            (14)
          Cls_r^T X_r   >= (1 - delta) n_r^c s^T                          (15)
          Cls_r^T X_r   <= (1 + delta) n_r^c s^T              (15, upper; not the paper's)
          D_r X_r <= zeta_r 1_F^T,  D_r = E_a - E_b (pair incidence)      (16)
          X_r boolean                                                     (17)

zeta is declared continuous in [0, 1] instead of boolean (18): for any integral X the minimum over
zeta is attained at zeta = [pi(a) != pi(b)] (eq. 19), so the optimum is unchanged while the solver
branches only on X.

Two folds (the usual train/test case) use an equivalent but much tighter formulation. With
x_a = X[a, 1] and y_ab standing for x_a x_b ("a and b both in fold 1"), the cut indicator of eq. (19)
is zeta_ab = x_a + x_b - 2 y_ab, and (16) becomes the product bounds y_ab <= x_a, y_ab <= x_b plus the
reformulation-linearisation (RLT) products of the size bounds (14) with x_a and 1 - x_a:

          sum_b kappa_b y_ab <= (U_1 - kappa_a) x_a                       (14) x x_a
          sum_b kappa_b (x_b - y_ab) >= L_1 (1 - x_a)                     (14) x (1 - x_a)

(L_1, U_1 = lower/upper size bounds of fold 1). Every integral X with y = x_a x_b satisfies them, and
minimisation pushes y up to x_a x_b, so the optimum of (12)-(18) is unchanged; but the LP relaxation
no longer collapses to 0 (x = s everywhere), which cuts HiGHS's time to proven optimality several-fold.

Three or more folds (k-fold CV) use the same construction per fold: y_abi stands for X[a, i] X[b, i],
the cut indicator is zeta_ab = 1 - sum_i y_abi, y_abi <= X[a, i], y_abi <= X[b, i], and the size
bounds of every fold i are multiplied by X[a, i] and 1 - X[a, i] (U_i = (1 + epsilon) s_i n for
balanced folds, else n minus the other folds' lower bounds). It is used for balanced (k-fold) splits;
other splits into three or more folds keep the plain form (16), whose LP is smaller (a feasible
assignment comes sooner) but whose LP bound is 0.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import cvxpy as cp
import cvxpy.settings as cps
import numpy as np
import scipy.sparse as sp

from benchdesign.splitting.options import DEFAULT_STRATIFICATION, SPLIT_DEFAULTS, STRATIFICATIONS
from benchdesign.splitting.progress import stage

__all__ = [
    "ClusterInstance",
    "IlpResult",
    "InfeasibleSplitError",
    "NoAssignmentFoundError",
    "SOLVER_PACKAGES",
    "available_milp_solvers",
    "solver_options",
    "lower_bounds",
    "upper_bounds",
    "class_bounds",
    "check_assignment",
    "feasibility_obstacles",
    "assignment_objective",
    "solve_split_ilp",
    "solve_group_counts",
    "time_limit_words",
]

_TOL = 1e-9


class InfeasibleSplitError(ValueError):
    """No assignment satisfies the fraction (14) or stratification (15) constraints: shown by a check of the
    cluster and class counts before the solver runs ([`feasibility_obstacles`][]) or proved by the solver.

    The message says what blocks the split, with its numbers, and what to relax.

    Parameters
    ----------
    message : str
        What blocks the split.
    by_classes : bool
        Whether the class counts (the stratification, eq. 15) block it, not the fold sizes alone.

    Examples
    --------
    One cluster holds 7 of 10 entities, but with epsilon 0.2 neither half of a 50/50 split may hold more than 6:

    >>> import numpy as np
    >>> from benchdesign.splitting import ClusterInstance, InfeasibleSplitError
    >>> from benchdesign.splitting.ilp import solve_split_ilp
    >>> inst = ClusterInstance(np.array([7.0, 2.0, 1.0]), np.zeros((3, 3)), np.array([0.5, 0.5]))
    >>> try:
    ...     solve_split_ilp([inst], epsilon=0.2)
    ... except InfeasibleSplitError as err:
    ...     print(str(err).split("; ")[0])
    ...     print(err.by_classes, isinstance(err, ValueError))
    infeasible (found from the cluster and class counts, before the solver ran): cluster 0 holds 7 of 10 entities (70.0%)
    False True
    """

    def __init__(self, message: str, *, by_classes: bool = False) -> None:
        super().__init__(message)
        self.by_classes = by_classes


class NoAssignmentFoundError(RuntimeError):
    """The solver stopped at a node or time limit before it found any feasible assignment.

    Not a proof of infeasibility: a feasible assignment may exist. The message names the limits and what to
    raise or relax.

    Examples
    --------
    [`solve_split_ilp`][benchdesign.splitting.ilp.solve_split_ilp] raises it; it is a RuntimeError, not an
    [`InfeasibleSplitError`][benchdesign.splitting.ilp.InfeasibleSplitError], so the two are caught apart:

    >>> from benchdesign.splitting import InfeasibleSplitError, NoAssignmentFoundError
    >>> issubclass(NoAssignmentFoundError, RuntimeError), issubclass(NoAssignmentFoundError, InfeasibleSplitError)
    (True, False)
    >>> try:
    ...     raise NoAssignmentFoundError("no feasible assignment found within the limits")
    ... except InfeasibleSplitError:
    ...     print("infeasible")
    ... except NoAssignmentFoundError as err:
    ...     print(f"stopped early: {err}")
    stopped early: no feasible assignment found within the limits
    """


@dataclass(frozen=True)
class ClusterInstance:
    """One entity type of the (k, R, C)-DataSAIL instance over clusters.

    Attributes
    ----------
    kappa : np.ndarray
        (K,) cluster cardinalities kappa_C(A) > 0.
    weights : np.ndarray
        (K, K) symmetric, W[a, b] = kappa_a kappa_b sim_C(a, b) >= 0 (diagonal ignored).
    fractions : np.ndarray
        (F,) desired split fractions s_i, summing to 1.
    classes : np.ndarray | None
        (K, C) class cardinalities (sum of kappa of the members of class c), or None.
    class_names : tuple[str, ...]
        Names of the C classes (for messages).
    fold_names : tuple[str, ...]
        Names of the F folds (for messages; empty: fold 0, fold 1, ...).

    Examples
    --------
    Four clusters of 2, 2, 1 and 1 entities, for a 50/50 split; the weights must be K x K:

    >>> import numpy as np
    >>> from benchdesign.splitting import ClusterInstance
    >>> inst = ClusterInstance(kappa=np.array([2.0, 2.0, 1.0, 1.0]), weights=np.zeros((4, 4)),
    ...                        fractions=np.array([0.5, 0.5]), fold_names=("train", "test"))
    >>> float(inst.kappa.sum()), inst.fold_names, inst.classes
    (6.0, ('train', 'test'), None)
    >>> try:
    ...     ClusterInstance(kappa=np.array([2.0, 2.0]), weights=np.zeros((3, 3)), fractions=np.array([0.5, 0.5]))
    ... except ValueError as err:
    ...     print(err)
    weights must have shape (2, 2), got (3, 3)
    """

    kappa: np.ndarray
    weights: np.ndarray
    fractions: np.ndarray
    classes: np.ndarray | None = None
    class_names: tuple[str, ...] = ()
    fold_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        k = np.asarray(self.kappa).size
        if np.asarray(self.weights).shape != (k, k):
            raise ValueError(f"weights must have shape ({k}, {k}), got {np.asarray(self.weights).shape}")
        if self.classes is not None and np.asarray(self.classes).shape[0] != k:
            raise ValueError(f"classes must have {k} rows, got {np.asarray(self.classes).shape[0]}")
        if (np.asarray(self.kappa) <= 0).any():
            raise ValueError("cluster cardinalities kappa must be > 0")


@dataclass(frozen=True)
class IlpResult:
    """The solution of [`solve_split_ilp`][].

    Attributes
    ----------
    assignments : tuple[np.ndarray, ...]
        One (K_r,) fold index array per instance.
    status : str
        ``'optimal'``, ``'time_limit'`` or ``'node_limit'``.
    objective : float
        Objective (12) of the assignment.
    solver : str
        The solver used.
    seconds : float
        Solver time.
    bound : float | None
        The solver's lower bound on the objective, if it reports one.
    message : str
        The solver's message.
    extra : dict
        Further solver figures (e.g. ``mip_gap_tolerance``).

    Examples
    --------
    Clusters 0 and 1 (weight 4 between them) and clusters 2 and 3 (weight 3) stay together; the cut costs the
    two weights of 0.5:

    >>> import numpy as np
    >>> from benchdesign.splitting import ClusterInstance, IlpResult
    >>> from benchdesign.splitting.ilp import solve_split_ilp
    >>> weights = np.array([[0.0, 4.0, 0.5, 0.0], [4.0, 0.0, 0.0, 0.5], [0.5, 0.0, 0.0, 3.0], [0.0, 0.5, 3.0, 0.0]])
    >>> inst = ClusterInstance(np.array([2.0, 2.0, 1.0, 1.0]), weights, np.array([0.5, 0.5]))
    >>> result = solve_split_ilp([inst], epsilon=0.4)
    >>> isinstance(result, IlpResult), result.status, result.solver
    (True, 'optimal', 'HIGHS')
    >>> result.assignments[0].tolist(), result.objective
    ([0, 0, 1, 1], 1.0)
    """

    assignments: tuple[np.ndarray, ...]
    status: str
    objective: float
    solver: str
    seconds: float
    bound: float | None = None
    message: str = ""
    extra: dict = field(default_factory=dict)


def available_milp_solvers() -> list[str]:
    """Installed cvxpy solvers that handle mixed-integer LPs."""
    from cvxpy.reductions.solvers.defines import INSTALLED_MI_SOLVERS

    return list(INSTALLED_MI_SOLVERS)


SOLVER_PACKAGES: dict[str, str] = {
    "HIGHS": "highspy", "SCIP": "pyscipopt", "SCIPY": "scipy", "GLPK_MI": "cvxopt", "CBC": "cylp",
    "GUROBI": "gurobipy", "MOSEK": "mosek", "CPLEX": "cplex", "COPT": "coptpy", "XPRESS": "xpress",
}
"""The MILP solvers ``solver_options`` knows (upper case), each with the module cvxpy's interface to it
imports. The workflow refuses a config naming a solver whose module is not installed
(``benchdesign.workflow.preflight.check_packages``), without importing it."""


_NODE_LIMIT_OPTIONS = {
    "HIGHS": lambda k: {"mip_max_nodes": k},
    "SCIPY": lambda k: {"scipy_options": {"node_limit": k}},
    "SCIP": lambda k: {"scip_params": {"limits/nodes": k}},
    "GUROBI": lambda k: {"NodeLimit": k},
}


def _merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for key, value in extra.items():
        out[key] = {**out[key], **value} if isinstance(value, dict) and key in out else value
    return out


_MIP_GAP_OPTIONS = {
    "HIGHS": lambda g: {"mip_rel_gap": g},
    "SCIPY": lambda g: {"scipy_options": {"mip_rel_gap": g}},
    "SCIP": lambda g: {"scip_params": {"limits/gap": g}},
    "GUROBI": lambda g: {"MIPGap": g},
    "MOSEK": lambda g: {"mosek_params": {"MSK_DPAR_MIO_TOL_REL_GAP": g}},
    "COPT": lambda g: {"RelGap": g},
}


def solver_options(
    solver: str, time_limit: float, seed: int = 0, node_limit: int | None = None, mip_gap: float | None = None
) -> dict:
    """cvxpy keyword arguments that impose ``time_limit`` seconds (and a seed where supported).

    HiGHS also gets ``random_seed`` from ``seed`` and ``threads=1``: its branch and bound then takes the same path
    on every machine, whatever its number of cores (with more threads HiGHS runs more concurrent search workers).

    ``node_limit`` caps the branch-and-bound nodes instead of relying on wall time alone: a run
    stopped by it is reproducible, whereas the best assignment at a time-out depends on machine load.
    ``mip_gap`` is the relative optimality gap at which the solver stops and reports optimality
    (None: the solver's default, 1e-4 for HiGHS); solvers without a known gap option
    (see ``_MIP_GAP_OPTIONS``) keep their default.
    """
    if node_limit is not None and node_limit < 1:
        raise ValueError(f"node_limit must be >= 1, got {node_limit}")
    if mip_gap is not None and not 0 <= mip_gap < 1:
        raise ValueError(f"mip_gap must lie in [0, 1), got {mip_gap}")
    if time_limit <= 0:
        raise ValueError(f"time_limit must be > 0 seconds, got {time_limit}")
    name = solver.upper()
    installed = available_milp_solvers()
    if name not in installed:
        raise ValueError(f"solver {solver!r} is not an installed cvxpy MILP solver; installed: {installed}")
    options = {
        "HIGHS": {"time_limit": float(time_limit), "random_seed": int(seed) % 2147483647, "threads": 1,
                  "output_flag": False},
        "SCIPY": {"scipy_options": {"time_limit": float(time_limit)}},
        "SCIP": {"scip_params": {"limits/time": float(time_limit), "randomization/randomseedshift": int(seed) % 2**31}},
        "GLPK_MI": {"tm_lim": int(1000 * time_limit)},
        "CBC": {"maximumSeconds": int(np.ceil(time_limit))},
        "GUROBI": {"TimeLimit": float(time_limit), "Seed": int(seed) % 2**31},
        "MOSEK": {"mosek_params": {"MSK_DPAR_MIO_MAX_TIME": float(time_limit)}},
        "CPLEX": {"cplex_params": {"timelimit": float(time_limit)}},
        "COPT": {"TimeLimit": float(time_limit)},
        "XPRESS": {"maxtime": -int(np.ceil(time_limit))},
    }
    if name not in options:
        raise ValueError(f"no time-limit option known for solver {solver!r}; use one of {sorted(options)}")
    out = options[name]
    if mip_gap is not None and name in _MIP_GAP_OPTIONS:
        out = _merge(out, _MIP_GAP_OPTIONS[name](float(mip_gap)))
    if node_limit is None:
        return out
    if name not in _NODE_LIMIT_OPTIONS:
        raise ValueError(f"no node-limit option known for solver {solver!r} (node_limit={node_limit}): use one of "
                         f"{sorted(_NODE_LIMIT_OPTIONS)}, or node_limit none (--node-limit none), so that the time "
                         "limit alone stops it")
    return _merge(out, _NODE_LIMIT_OPTIONS[name](int(node_limit)))


def lower_bounds(total: float, fractions: np.ndarray, slack: float) -> np.ndarray:
    """(1 - slack) * s_i * total, the right-hand side of eqs. (14)/(15), minus a float tolerance."""
    return (1.0 - slack) * np.asarray(fractions, dtype=float) * total - _TOL * max(1.0, total)


def upper_bounds(total: float, fractions: np.ndarray, slack: float) -> np.ndarray:
    """(1 + slack) * s_i * total plus a float tolerance: the upper size bounds of balanced (k-fold) splits."""
    return (1.0 + slack) * np.asarray(fractions, dtype=float) * total + _TOL * max(1.0, total)


def class_bounds(totals: np.ndarray, fractions: np.ndarray, delta: float,
                 stratification: str = DEFAULT_STRATIFICATION) -> tuple[np.ndarray, np.ndarray]:
    """(C, F) lower and upper bounds of every fold's class counts, with a float tolerance.

    ``totals``: (C,) members n_c of every class (class counts are whole numbers). 'paper': eq. (15),
    at least (1 - delta) n_c s_i, no upper bound. 'two_sided' (the default): between (1 - delta) n_c s_i
    and (1 + delta) n_c s_i, widened to the whole numbers next to n_c s_i where delta n_c s_i is below one
    member (10 actives in 3 folds: 3 to 4 each, as scikit-learn's StratifiedKFold; else infeasible).
    """
    _check_stratification(stratification)
    target = np.outer(np.asarray(totals, dtype=float), np.asarray(fractions, dtype=float))
    tol = _TOL * max(1.0, float(np.sum(totals)))
    low = (1.0 - delta) * target
    if stratification == "paper":
        return low - tol, np.full(target.shape, np.inf)
    high = np.maximum((1.0 + delta) * target, np.ceil(target - 1e-9))
    return np.minimum(low, np.floor(target + 1e-9)) - tol, high + tol


def _check_stratification(stratification: str) -> None:
    if stratification not in STRATIFICATIONS:
        raise ValueError(f"stratification must be one of {STRATIFICATIONS}, got {stratification!r}")


def check_assignment(
    inst: ClusterInstance, folds: np.ndarray, epsilon: float, delta: float, balanced: bool = False,
    stratification: str = DEFAULT_STRATIFICATION,
) -> list[str]:
    """Names of the violated constraints (empty list when ``folds`` is feasible).

    ``balanced`` adds the upper size bounds (1 + epsilon) s_i n of every fold (k-fold CV);
    ``stratification='two_sided'`` the upper class bounds about (1 + delta) n_c s_i (``class_bounds``).
    """
    f = np.asarray(inst.fractions).size
    folds = np.asarray(folds)
    if folds.shape != (inst.kappa.size,) or folds.min(initial=0) < 0 or folds.max(initial=0) >= f:
        return ["(13) every cluster in exactly one fold"]
    x = np.zeros((folds.size, f))
    x[np.arange(folds.size), folds] = 1.0
    bad = []
    sizes = inst.kappa @ x
    lb = lower_bounds(inst.kappa.sum(), inst.fractions, epsilon)
    for i in np.flatnonzero(sizes < lb):
        bad.append(f"(14) fold {i}: size {sizes[i]:g} < {lb[i]:g}")
    if balanced:
        ub = upper_bounds(inst.kappa.sum(), inst.fractions, epsilon)
        for i in np.flatnonzero(sizes > ub):
            bad.append(f"(14, upper) fold {i}: size {sizes[i]:g} > {ub[i]:g}")
    if inst.classes is not None:
        cls = np.asarray(inst.classes, dtype=float)
        per = cls.T @ x
        lbc, ubc = class_bounds(cls.sum(axis=0), inst.fractions, delta, stratification)
        for c, i in zip(*np.nonzero(per < lbc), strict=True):
            bad.append(f"(15) class {_class_name(inst, c)} fold {i}: {per[c, i]:g} < {lbc[c, i]:g}")
        for c, i in zip(*np.nonzero(per > ubc), strict=True):
            bad.append(f"(15, upper) class {_class_name(inst, c)} fold {i}: {per[c, i]:g} > {ubc[c, i]:g}")
    return bad


def _class_name(inst: ClusterInstance, c: int) -> str:
    return inst.class_names[c] if c < len(inst.class_names) else str(c)


def _fold_name(inst: ClusterInstance, i: int) -> str:
    return f"fold {inst.fold_names[i]!r}" if i < len(inst.fold_names) else f"fold {i}"


def _fold_capacity(n: float, s: np.ndarray, epsilon: float, balanced: bool) -> np.ndarray:
    """The most fold i may hold: (1 + epsilon) s_i n (balanced), else n minus the other folds' least sizes."""
    if balanced:
        return (1.0 + epsilon) * s * n
    low = (1.0 - epsilon) * s * n
    return n - (low.sum() - low)


def feasibility_obstacles(instances: Sequence[ClusterInstance], epsilon: float, delta: float,
                          balanced: bool = False, stratification: str = DEFAULT_STRATIFICATION) -> list[str]:
    """What makes constraints (13)-(15) infeasible, found from the cluster and class counts alone.

    Necessary conditions, checked in a few microseconds before the solver runs (an empty list does not
    prove feasibility; the solver may still find the instance infeasible):

    * at least as many clusters as folds that must hold something (lower bound (1 - epsilon) s_i n > 0);
    * every cluster fits some fold: kappa_a <= (1 + epsilon) max_i s_i n for balanced (k-fold) splits, else
      n minus the other folds' least sizes;
    * every class c is spread over at least as many clusters as folds that must hold members of it (lower
      bound of ``class_bounds`` > 0), and under ``'two_sided'`` no cluster holds more members of c than any
      fold may hold.

    Parameters
    ----------
    instances : Sequence[ClusterInstance]
        One instance per entity type.
    epsilon, delta : float
        Relative tolerances of the fold sizes (eq. 14) and class counts (eq. 15).
    balanced : bool
        Every fold also bounded from above by (1 + epsilon) s_i n (k-fold).
    stratification : str
        ``'two_sided'`` or ``'paper'`` (``class_bounds``).

    Returns
    -------
    list[str]
        One sentence per obstacle: what blocks the split, with its numbers, and what to relax; empty when
        none was found.

    Examples
    --------
    A cluster of 7 of 10 entities fits no half of a 50/50 split with epsilon 0.2 (each half must hold at least
    4, so at most 6); with epsilon 0.4 it does:

    >>> import numpy as np
    >>> from benchdesign.splitting import ClusterInstance, feasibility_obstacles
    >>> inst = ClusterInstance(np.array([7.0, 2.0, 1.0]), np.zeros((3, 3)), np.array([0.5, 0.5]))
    >>> obstacles = feasibility_obstacles([inst], epsilon=0.2, delta=0.1)
    >>> len(obstacles), obstacles[0].split("; ")[0]
    (1, 'cluster 0 holds 7 of 10 entities (70.0%)')
    >>> "raise epsilon (--epsilon, now 0.2) to at least 0.40" in obstacles[0]
    True
    >>> feasibility_obstacles([inst], epsilon=0.4, delta=0.1)
    []
    """
    sizes, classes = _obstacles(instances, epsilon, delta, balanced, stratification)
    return sizes + classes


def _obstacles(instances, epsilon, delta, balanced, stratification) -> tuple[list[str], list[str]]:
    """The obstacles of ``feasibility_obstacles``: of the fold sizes, and of the class counts."""
    out, by_class = [], []
    many = len(instances) > 1
    for r, inst in enumerate(instances):
        where = f"entity type {r}: " if many else ""
        kappa = np.asarray(inst.kappa, dtype=float)
        s = np.asarray(inst.fractions, dtype=float)
        n, k, f = float(kappa.sum()), kappa.size, s.size
        must = int((lower_bounds(n, s, epsilon) > 0).sum())
        if k < must:
            out.append(f"{where}only {k} cluster(s) for {f} folds, each of which must hold at least "
                       f"(1 - epsilon) s_i n > 0 entities: use at most {k} folds, or more clusters (now {k})")
        cap = _fold_capacity(n, s, epsilon, balanced)
        best = int(np.argmax(cap))
        a = int(np.argmax(kappa))
        if kappa[a] > cap[best] + _TOL * max(1.0, n):
            out.append(_too_large(where, inst, a, kappa[a], n, cap[best], best, s, epsilon, balanced))
        if inst.classes is not None:
            by_class += _class_obstacles(where, inst, s, delta, stratification)
    return out, by_class


def _too_large(where: str, inst: ClusterInstance, a: int, size: float, n: float, cap: float, fold: int,
               s: np.ndarray, epsilon: float, balanced: bool) -> str:
    """The sentence of a cluster too large for every fold, with the epsilon that would let it fit."""
    if balanced:
        bound, need = "(1 + epsilon) s_i n", size / (s.max() * n) - 1.0
    else:
        bound, need = "n minus the other folds' least sizes (1 - epsilon) s_j n", 1.0 - (n - size) / ((1 - s.max()) * n)
    raise_eps = (f"raise epsilon (--epsilon, now {epsilon:g}) to at least {np.ceil(need * 100) / 100:.2f}, or "
                 if need < 1 else f"no epsilon below 1 lets it fit ({need:.2f} would be needed); ")
    return (f"{where}cluster {a} holds {size:,.0f} of {n:,.0f} entities ({size / n:.1%}); {_fold_name(inst, fold)} "
            f"may hold at most {cap:,.0f} ({bound}), and no fold more: {raise_eps}raise the number of clusters "
            f"(--clusters, now {inst.kappa.size}) so that no cluster is that large")


def _class_obstacles(where: str, inst: ClusterInstance, s: np.ndarray, delta: float, stratification: str) -> list[str]:
    """The class-count obstacles of ``feasibility_obstacles``."""
    cls = np.asarray(inst.classes, dtype=float)
    totals = cls.sum(axis=0)
    low, high = class_bounds(totals, s, delta, stratification)
    out = []
    for c in np.flatnonzero(totals > 0):
        name = _class_name(inst, int(c))
        holders = int((cls[:, c] > 0).sum())
        must = int((low[c] > 0).sum())
        if holders < must:
            out.append(f"{where}class {name!r} has its {totals[c]:,.0f} members in only {holders} cluster(s), but "
                       f"{must} folds must each hold at least (1 - delta) s_i n_c of them (delta {delta:g}): raise "
                       f"delta (--delta) to 1, or use more clusters (--clusters, now {inst.kappa.size}) or fewer "
                       "folds")
        if stratification == "two_sided":
            a = int(np.argmax(cls[:, c]))
            best = int(np.argmax(high[c]))
            if cls[a, c] > high[c, best]:
                need = cls[a, c] / (s.max() * totals[c]) - 1.0
                out.append(f"{where}cluster {a} holds {cls[a, c]:,.0f} of the {totals[c]:,.0f} members of class "
                           f"{name!r} ({cls[a, c] / totals[c]:.1%}); {_fold_name(inst, best)} may hold at most "
                           f"{np.floor(high[c, best] + 1e-9):,.0f} of them ((1 + delta) s_i n_c, delta {delta:g}), "
                           f"and no fold more: raise delta (--delta) to at least {np.ceil(need * 100) / 100:.2f}, use "
                           f"stratification 'paper' (no upper bound), or more clusters (--clusters, now "
                           f"{inst.kappa.size})")
    return out


def assignment_objective(inst: ClusterInstance, folds: np.ndarray) -> float:
    """Objective (12): sum over cluster pairs in different folds of W[a, b] (= L(pi) of eq. (2))."""
    folds = np.asarray(folds)
    w = np.asarray(inst.weights, dtype=float)
    return float(np.triu(w * (folds[:, None] != folds[None, :]), 1).sum())


def _pairs(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ia, ib = np.triu_indices(weights.shape[0], 1)
    w = weights[ia, ib]
    keep = w > 0
    return ia[keep], ib[keep], w[keep]


def _fold_constraints(inst: ClusterInstance, x: cp.Variable, epsilon, delta, balanced: bool = False,
                      stratification: str = DEFAULT_STRATIFICATION) -> list:
    """Eqs. (13)-(15); ``epsilon``/``delta`` may be floats or cvxpy scalars (relaxation ILPs).

    ``balanced`` adds the upper bounds kappa^T X <= (1 + epsilon) s n (equal folds for k-fold CV);
    ``stratification='two_sided'`` the upper class bounds Cls^T X <= (1 + delta) n^c s^T, both class bounds
    widened to whole numbers as ``class_bounds`` for a float ``delta``. A cvxpy ``delta`` (the
    relaxation that finds the smallest feasible delta) leaves out that widening, which is not linear in
    delta: the delta it finds is feasible, and the smallest one unless a class has fewer than about
    1 / delta members per fold.
    """
    s = np.asarray(inst.fractions, dtype=float)
    n = float(np.sum(inst.kappa))
    cons = [cp.sum(x, axis=1) == 1]  # (13)
    cons.append(inst.kappa @ x >= (1 - epsilon) * (s * n) - _TOL * max(1.0, n))  # (14)
    if balanced:
        cons.append(inst.kappa @ x <= (1 + epsilon) * (s * n) + _TOL * max(1.0, n))
    if inst.classes is not None and delta is not None:
        cls = np.asarray(inst.classes, dtype=float)
        keep = cls.sum(axis=0) > 0
        if keep.any():
            cls = cls[:, keep]
            if isinstance(delta, cp.Expression):
                target, tol = np.outer(cls.sum(axis=0), s), _TOL * max(1.0, cls.sum())
                low, high = (1 - delta) * target - tol, (1 + delta) * target + tol
            else:
                low, high = class_bounds(cls.sum(axis=0), s, delta, stratification)
            cons.append(cls.T @ x >= low)  # (15)
            if stratification == "two_sided":
                cons.append(cls.T @ x <= high)
    return cons


def _leakage_terms(inst: ClusterInstance, x: cp.Variable, scale: float) -> tuple[cp.Expression | None, list]:
    """Objective (12) with constraints (16) over the upper-triangle pairs of positive weight."""
    ia, ib, w = _pairs(np.asarray(inst.weights, dtype=float))
    if w.size == 0:
        return None, []
    k, f = x.shape
    p = w.size
    rows = np.r_[np.arange(p), np.arange(p)]
    d = sp.csr_matrix((np.r_[np.ones(p), -np.ones(p)], (rows, np.r_[ia, ib])), shape=(p, k))
    zeta = cp.Variable((p, 1), nonneg=True)
    cons = [d @ x <= zeta @ np.ones((1, f)), zeta <= 1]  # (16), zeta in [0, 1]
    return (w / scale) @ zeta[:, 0], cons


def _leakage_terms_many_folds(
    inst: ClusterInstance, x: cp.Variable, scale: float, epsilon: float, balanced: bool = False
) -> tuple[cp.Expression | None, list]:
    """Objective (12) and constraints (16) for F >= 3 in the product (RLT) form (module docstring)."""
    ia, ib, w = _pairs(np.asarray(inst.weights, dtype=float))
    if w.size == 0:
        return None, []
    kappa = np.asarray(inst.kappa, dtype=float)
    total = float(kappa.sum())
    k, p, f = kappa.size, w.size, x.shape[1]
    low = lower_bounds(total, inst.fractions, epsilon)
    hi = upper_bounds(total, inst.fractions, epsilon) if balanced else total - (low.sum() - low)
    pair = np.arange(p)
    ea = sp.csr_matrix((np.ones(p), (pair, ia)), shape=(p, k))
    eb = sp.csr_matrix((np.ones(p), (pair, ib)), shape=(p, k))
    m = sp.csr_matrix((np.r_[kappa[ib], kappa[ia]], (np.r_[ia, ib], np.r_[pair, pair])), shape=(k, p))
    y = cp.Variable((p, f), nonneg=True)  # y[ab, i] = X[a, i] X[b, i]
    others = np.ones((k, 1)) @ (kappa @ x)[None, :] - cp.multiply(kappa[:, None], x)  # sum_{b != a} kappa_b X[b, i]
    cons = [
        y <= ea @ x,
        y <= eb @ x,
        m @ y <= cp.multiply(hi[None, :] - kappa[:, None], x),  # upper size bound of fold i, times X[a, i]
        others - m @ y >= cp.multiply(low[None, :], 1 - x),  # lower size bound of fold i, times 1 - X[a, i]
    ]
    zeta = cp.Variable(p, nonneg=True)  # the cut indicator; no constant term (HiGHS's bound omits offsets)
    cons.append(zeta >= 1 - cp.sum(y, axis=1))
    return (w / scale) @ zeta, cons


def _leakage_terms_two_folds(
    inst: ClusterInstance, x: cp.Variable, scale: float, epsilon: float, balanced: bool = False
) -> tuple[cp.Expression | None, list]:
    """Objective (12) and constraints (16) for F = 2 in the tightened product form (module docstring).

    One continuous y_ab >= 0 per upper-triangle pair of positive weight; the cut indicator
    zeta_ab = x_a + x_b - 2 y_ab equals [pi(a) != pi(b)] at the optimum for integral x.
    """
    ia, ib, w = _pairs(np.asarray(inst.weights, dtype=float))
    if w.size == 0:
        return None, []
    kappa = np.asarray(inst.kappa, dtype=float)
    k, p = kappa.size, w.size
    low = lower_bounds(kappa.sum(), inst.fractions, epsilon)  # (14): size of fold i >= low[i]
    hi1 = float(kappa.sum() - low[0])  # fold 1 holds what fold 0 leaves over
    if balanced:  # and at most (1 + epsilon) s_1 n; fold 0's upper bound raises fold 1's lower bound
        up = upper_bounds(kappa.sum(), inst.fractions, epsilon)
        hi1 = min(hi1, float(up[1]))
        low = np.array([low[0], max(low[1], float(kappa.sum() - up[0]))])
    x1 = x[:, 1]
    pair = np.arange(p)
    ea = sp.csr_matrix((np.ones(p), (pair, ia)), shape=(p, k))
    eb = sp.csr_matrix((np.ones(p), (pair, ib)), shape=(p, k))
    # m[a, pair] = kappa of the pair's other end, so (m @ y)[a] = sum_b kappa_b y_ab
    m = sp.csr_matrix((np.r_[kappa[ib], kappa[ia]], (np.r_[ia, ib], np.r_[pair, pair])), shape=(k, p))
    y = cp.Variable(p, nonneg=True)
    others_in_fold1 = kappa @ x1 - cp.multiply(kappa, x1)  # [a] = sum_{b != a} kappa_b x_b
    cons = [
        y <= ea @ x1,
        y <= eb @ x1,
        m @ y <= cp.multiply(hi1 - kappa, x1),  # (14) upper bound of fold 1, times x_a
        others_in_fold1 - m @ y >= low[1] * (1 - x1),  # (14) lower bound of fold 1, times 1 - x_a
    ]
    ws = w / scale
    linear = (ea + eb).T @ ws  # coefficient of x_a: the total weight of a's pairs
    return linear @ x1 - 2.0 * (ws @ y), cons


@contextlib.contextmanager
def _stdout_to(fd: int):
    """Send fd 1 (where solver libraries such as HiGHS print) to the file descriptor ``fd`` for the block."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(fd, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _reset_highs_scheduler() -> None:
    """Drop HiGHS's process-wide thread pool, so that the next run makes one of its own ``threads`` option.

    HiGHS refuses a run whose ``threads`` differs from the pool an earlier run of the process made (e.g. a
    cvxpy solve with HiGHS's default, all cores); the ILPs here run on one thread (``solver_options``), and
    after them other code may again use the default.
    """
    import highspy

    highspy.Highs.resetGlobalScheduler(True)


@functools.cache
def _silence_highs_banner() -> None:
    """highspy prints a banner to stdout when the first Highs object is created; swallow it once."""
    import highspy

    with open(os.devnull, "w") as devnull, _stdout_to(devnull.fileno()):
        highspy.Highs()


def _solve(
    problem: cp.Problem, solver: str, time_limit: float, seed: int, node_limit: int | None = None,
    mip_gap: float | None = None, verbose: bool = False,
) -> tuple[str, float]:
    options = solver_options(solver, time_limit, seed, node_limit, mip_gap)
    highs = solver.upper() == "HIGHS"
    if highs:
        _silence_highs_banner()
        if verbose:  # HiGHS's own log only, not cvxpy's verbose chatter (which goes to Python's stdout)
            options.update(output_flag=True, log_to_console=True)
    start = time.perf_counter()
    try:
        if highs:
            _reset_highs_scheduler()
        with warnings.catch_warnings(), (_stdout_to(2) if verbose else contextlib.nullcontext()):
            warnings.simplefilter("ignore", UserWarning)  # "Solution may be inaccurate" on time-out
            problem.solve(solver=solver.upper(), verbose=verbose and not highs, **options)
    except cp.error.SolverError as err:
        raise RuntimeError(f"solver {solver} failed: {err}") from err
    finally:
        if highs:
            _reset_highs_scheduler()
    return problem.status, time.perf_counter() - start


def _relaxation(
    instances, which: str, epsilon: float, solver: str, time_limit: float, seed: int, balanced: bool = False,
    stratification: str = DEFAULT_STRATIFICATION,
) -> float | None:
    """Smallest epsilon (which='epsilon') or delta (which='delta', epsilon fixed) that admits an assignment."""
    t = cp.Variable(nonneg=True)
    cons = [t <= 1]
    for inst in instances:
        x = cp.Variable((inst.kappa.size, inst.fractions.size), boolean=True)
        if which == "epsilon":
            cons += _fold_constraints(inst, x, t, None, balanced)
        else:
            cons += _fold_constraints(inst, x, epsilon, t, balanced, stratification)
    problem = cp.Problem(cp.Minimize(t), cons)
    status, _ = _solve(problem, solver, time_limit, seed)
    if status in (cps.OPTIMAL, cps.OPTIMAL_INACCURATE, cps.USER_LIMIT) and t.value is not None:
        return float(np.ceil(float(t.value) * 1000) / 1000)
    return None


def _node_count(problem: cp.Problem) -> int | None:
    """Branch-and-bound nodes of the last solve, where the solver reports them (HiGHS: ``mip_node_count``)."""
    stats = problem.solver_stats
    info = getattr(stats, "extra_stats", None) if stats is not None else None
    count = getattr(info, "mip_node_count", None)
    return None if count is None or count < 0 else int(count)


def _stopped_by_nodes(node_limit: int | None, nodes: int | None, seconds: float, time_limit: float) -> bool:
    """Whether the node limit (not the clock) stopped the solver: by the node count where the solver reports it,
    else by the time used."""
    if node_limit is None:
        return False
    if nodes is not None:
        return nodes >= node_limit
    return seconds < 0.95 * time_limit


def time_limit_words(time_limit: float, node_limit: int | None, nodes: int | None = None) -> str:
    """The sentence of a solve the clock stopped: that the folds depend on the machine and its load, and the fix.

    Parameters
    ----------
    time_limit : float
        The time limit in seconds.
    node_limit : int | None
        The node limit the solve had (None: none).
    nodes : int | None
        The nodes explored by then, if known.

    Returns
    -------
    str
        One sentence without a final full stop.
    """
    after = f" after {nodes:,} nodes" if nodes is not None else ""
    if node_limit is None:
        return (f"the solver stopped at its time limit of {time_limit:g} s{after} (no node limit); the folds may "
                "differ on another machine or under other load; set --node-limit (node_limit) for a stop that is "
                "the same everywhere")
    return (f"the solver stopped at its safety time limit of {time_limit:g} s{after}, before its node limit of "
            f"{node_limit:,}; the folds may differ on another machine or under other load; lower --node-limit "
            "(node_limit) so that it stops the solver first, or raise --time-limit (time_limit)")


def _no_assignment_message(solver: str, status: str, seconds: float, time_limit: float, node_limit: int | None,
                           nodes: int | None) -> str:
    by_nodes = _stopped_by_nodes(node_limit, nodes, seconds, time_limit)
    limit = f"node limit of {node_limit:,}" if by_nodes else f"time limit of {time_limit:g} s"
    after = f" ({nodes:,} nodes, {seconds:.1f} s)" if nodes is not None else f" ({seconds:.1f} s)"
    return (f"no feasible assignment found within the limits: solver {solver} stopped at its {limit}{after} with "
            f"status {status!r} and no assignment that meets the fold-size and class bounds. This does not show "
            "that none exists: raise --node-limit and --time-limit (node_limit, time_limit), or relax epsilon / "
            "delta, or use fewer clusters (--clusters) for a smaller ILP")


def _infeasible_message(instances, epsilon, delta, solver, time_limit, seed, balanced=False,
                        stratification=DEFAULT_STRATIFICATION) -> str:
    eps_needed = _relaxation(instances, "epsilon", epsilon, solver, time_limit, seed, balanced)
    biggest = max(float(inst.kappa.max() / inst.kappa.sum()) for inst in instances)
    if eps_needed is None or eps_needed > epsilon + 1e-9:
        hint = f"; the smallest feasible epsilon is about {eps_needed:.3f}" if eps_needed is not None else ""
        return (
            f"infeasible: the split-fraction constraint (eq. 14) cannot hold with epsilon={epsilon} "
            f"(the largest of the clusters holds {biggest:.1%} of the data){hint}. "
            f"Use a larger epsilon or more clusters."
        )
    delta_needed = _relaxation(instances, "delta", epsilon, solver, time_limit, seed, balanced, stratification)
    hint = f"; the smallest feasible delta is about {delta_needed:.3f}" if delta_needed is not None else ""
    return (
        f"infeasible: the stratification constraint (eq. 15, {_BOUND_WORDS[stratification]}) cannot hold with "
        f"delta={delta} (epsilon={epsilon}){hint}. Use a larger delta (or epsilon), or more clusters."
    )


_BOUND_WORDS = {"two_sided": "class counts within delta both ways", "paper": "class counts bounded from below"}


@stage("ilp")
def solve_split_ilp(
    instances: Sequence[ClusterInstance],
    epsilon: float = 0.1,
    delta: float = 0.1,
    solver: str = "HIGHS",
    time_limit: float = SPLIT_DEFAULTS["time_limit"],
    seed: int = 0,
    node_limit: int | None = SPLIT_DEFAULTS["node_limit"],
    mip_gap: float | None = None,
    verbose: bool = False,
    balanced: bool = False,
    stratification: str = DEFAULT_STRATIFICATION,
) -> IlpResult:
    """Solve eqs. (12)-(18) jointly for all entity types (R = len(instances); one for S1, two for S2).

    Returns the optimal assignment, or the best feasible one found when ``node_limit`` branch-and-bound nodes
    were explored (status ``'node_limit'``: the same on every machine and under any load) or ``time_limit``
    seconds passed first (status ``'time_limit'``, a safety net: the assignment then depends on the machine's
    speed and load, and the message says so). With ``mip_gap`` the solver stops at that relative gap between
    the assignment and its lower bound, and ``'optimal'`` then means optimal within that gap
    (``IlpResult.extra['mip_gap_tolerance']``; None here: the solver's default, near the exact optimum).
    ``IlpResult.extra['nodes']`` holds the nodes explored where the solver reports them (HiGHS).

    Before the solver runs, [`feasibility_obstacles`][] checks the cluster and class counts against the fold
    bounds; an obstacle found there is raised at once, in plain words with its numbers.

    Parameters
    ----------
    instances : Sequence[ClusterInstance]
        One instance per entity type.
    epsilon : float
        Relative tolerance of the fold sizes (eq. 14).
    delta : float
        Relative tolerance of the class shares (eq. 15).
    solver : str
        cvxpy MILP solver.
    time_limit : float
        Time limit in seconds, a safety net behind ``node_limit``.
    seed : int
        Seed passed to the solver (HiGHS: ``random_seed``, on one thread).
    node_limit : int | None
        Branch-and-bound node cap (None: none), the reproducible limit.
    mip_gap : float | None
        Relative optimality gap at which the solver stops (None: the solver's default).
    verbose : bool
        Pass the solver's own log (e.g. HiGHS's branch-and-bound progress) to stderr.
    balanced : bool
        Also bound every fold from above by (1 + epsilon) s_i n (equal k-fold CV folds; the paper's eq. (14)
        only bounds from below).
    stratification : str
        ``'two_sided'``: also bound every fold's class counts from above by (1 + delta) n_c s_i; ``'paper'``:
        eq. (15)'s lower bound only.

    Returns
    -------
    IlpResult
        The assignment per instance, with status, objective and bound.

    Raises
    ------
    InfeasibleSplitError
        When the counts show it before solving (what blocks the split and what to relax), or the solver proves
        it (the violated constraint family and the smallest epsilon / delta that would be feasible).
    NoAssignmentFoundError
        When the node or time limit stops the solver before any feasible assignment is found (not a proof of
        infeasibility).

    Examples
    --------
    Four clusters of one entity each: 0 and 1 are similar, 2 and 3 are similar, no similarity between the two
    pairs. A 50/50 split keeps each pair in one fold, so no similarity crosses the folds (objective 0):

    >>> import numpy as np
    >>> from benchdesign.splitting import ClusterInstance, solve_split_ilp
    >>> weights = np.array([[0.0, 2.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0], [0.0, 0.0, 2.0, 0.0]])
    >>> inst = ClusterInstance(np.ones(4), weights, np.array([0.5, 0.5]), fold_names=("train", "test"))
    >>> result = solve_split_ilp([inst], epsilon=0.1, seed=0)
    >>> result.status, result.assignments[0].tolist(), result.objective
    ('optimal', [1, 1, 0, 0], 0.0)
    """
    if not instances:
        raise ValueError("at least one cluster instance is needed")
    if not 0 <= epsilon < 1:
        raise ValueError(f"epsilon must lie in [0, 1), got {epsilon}")
    if not 0 <= delta <= 1:
        raise ValueError(f"delta must lie in [0, 1], got {delta}")
    _check_stratification(stratification)
    sizes, classes = _obstacles(instances, epsilon, delta, balanced, stratification)
    if sizes or classes:
        raise InfeasibleSplitError("infeasible (found from the cluster and class counts, before the solver ran): "
                                   + "; ".join(sizes + classes), by_classes=not sizes)
    scale = max(float(np.max(inst.weights, initial=0.0)) for inst in instances) or 1.0
    xs, cons, terms = [], [], []
    for inst in instances:
        x = cp.Variable((inst.kappa.size, np.asarray(inst.fractions).size), boolean=True)
        xs.append(x)
        cons += _fold_constraints(inst, x, epsilon, delta, balanced, stratification)
        if np.asarray(inst.fractions).size == 2:
            term, pair_cons = _leakage_terms_two_folds(inst, x, scale, epsilon, balanced)
        elif balanced:
            term, pair_cons = _leakage_terms_many_folds(inst, x, scale, epsilon, balanced)
        else:
            term, pair_cons = _leakage_terms(inst, x, scale)
        cons += pair_cons
        if term is not None:
            terms.append(term)
    objective = cp.Minimize(cp.sum(cp.hstack(terms)) if terms else cp.Constant(0.0))
    problem = cp.Problem(objective, cons)
    status, seconds = _solve(problem, solver, time_limit, seed, node_limit, mip_gap, verbose)
    if status in (cps.INFEASIBLE, cps.INFEASIBLE_OR_UNBOUNDED):
        text = _infeasible_message(instances, epsilon, delta, solver, time_limit, seed, balanced, stratification)
        raise InfeasibleSplitError(f"proved infeasible by the solver: {text}",
                                   by_classes="stratification constraint" in text)
    nodes = _node_count(problem)
    assignments = []
    for inst, x in zip(instances, xs, strict=True):
        folds = None if x.value is None else np.argmax(x.value, axis=1)
        if folds is None or not np.allclose(x.value.sum(axis=1), 1, atol=1e-6) or check_assignment(
                inst, folds, epsilon, delta, balanced, stratification):
            raise NoAssignmentFoundError(_no_assignment_message(solver, status, seconds, time_limit, node_limit,
                                                                nodes))
        assignments.append(folds)
    objective_value = sum(assignment_objective(i, a) for i, a in zip(instances, assignments, strict=True))
    bound = None
    extra: dict = {"mip_gap_tolerance": mip_gap}
    if nodes is not None:
        extra["nodes"] = nodes
    stats = problem.solver_stats
    info = getattr(stats, "extra_stats", None) if stats is not None else None
    if info is not None and hasattr(info, "mip_dual_bound"):
        bound = float(info.mip_dual_bound) * scale
        extra["mip_gap"] = float(info.mip_gap)
    if status == cps.OPTIMAL:
        label = "optimal"
        message = f"optimal assignment within the relative gap {mip_gap:g}" if mip_gap else "optimal assignment found"
    elif status in (cps.USER_LIMIT, cps.OPTIMAL_INACCURATE):
        by_nodes = _stopped_by_nodes(node_limit, nodes, seconds, time_limit)
        label = "node_limit" if by_nodes else "time_limit"
        figures = f"(objective {objective_value:.6g}" + (f", lower bound {bound:.6g})" if bound is not None else ")")
        if by_nodes:
            message = f"node limit of {node_limit} reached: returning the best feasible assignment found {figures}"
        else:
            message = f"{time_limit_words(time_limit, node_limit, nodes)}; the best feasible assignment found {figures}"
    else:
        raise RuntimeError(f"solver {solver} ended with status {status!r}")
    return IlpResult(tuple(assignments), label, objective_value, solver.upper(), seconds, bound, message, extra)


@stage("ilp")
def solve_group_counts(
    sizes: np.ndarray,
    weights: np.ndarray,
    fractions: np.ndarray,
    epsilon: float,
    delta: float,
    classes: np.ndarray | None = None,
    class_names: tuple[str, ...] = (),
    solver: str = "HIGHS",
    time_limit: float = SPLIT_DEFAULTS["time_limit"],
    seed: int = 0,
    stratification: str = DEFAULT_STRATIFICATION,
) -> np.ndarray:
    """Identity-based splitting (I1/I2): how many members of each group go to each fold.

    Groups hold interchangeable entities (same weight, same classes). Y (G x F) is integer with
    Y 1 = sizes, subject to eqs. (14)/(15) on the weights; the objective keeps every group as close
    as possible to proportional allocation, sum_{g,i} w_g |Y_gi - s_i m_g|. Members are then drawn
    at random, which gives a (stratified) random split honouring the constraints (the class counts
    also bounded from above under ``stratification='two_sided'``, as in [`solve_split_ilp`][]).
    """
    _check_stratification(stratification)
    sizes = np.asarray(sizes, dtype=float)
    weights = np.asarray(weights, dtype=float)
    s = np.asarray(fractions, dtype=float)
    g, f = sizes.size, s.size
    y = cp.Variable((g, f), integer=True)
    u = cp.Variable((g, f), nonneg=True)
    target = np.outer(sizes, s)
    cons = [y >= 0, cp.sum(y, axis=1) == sizes, u >= y - target, u >= target - y]
    total = float(weights @ sizes)
    cons.append(weights @ y >= lower_bounds(total, s, epsilon))  # (14)
    if classes is not None:
        cls = np.asarray(classes, dtype=float) * weights[:, None]
        keep = (cls.T @ sizes) > 0
        if keep.any():
            cls = cls[:, keep]
            low, high = class_bounds(cls.T @ sizes, s, delta, stratification)
            cons.append(cls.T @ y >= low)
            if stratification == "two_sided":
                cons.append(cls.T @ y <= high)
    problem = cp.Problem(cp.Minimize(cp.sum(u.T @ weights)), cons)
    status, _ = _solve(problem, solver, time_limit, seed)
    if status in (cps.INFEASIBLE, cps.INFEASIBLE_OR_UNBOUNDED):
        if classes is not None and _fold_feasible_counts(sizes, weights, s, epsilon, solver, time_limit, seed):
            raise InfeasibleSplitError(
                f"infeasible: the stratification constraint (eq. 15, {_BOUND_WORDS[stratification]}) cannot hold "
                f"with delta={delta} (epsilon={epsilon}); use a larger delta", by_classes=True
            )
        raise InfeasibleSplitError(
            f"infeasible: the split-fraction constraint (eq. 14) cannot hold with epsilon={epsilon} "
            f"(entity weights are too coarse for the fractions {s.tolist()}); use a larger epsilon"
        )
    if y.value is None:
        raise NoAssignmentFoundError(f"solver {solver} returned status {status!r} without a solution within the time "
                                     f"limit of {time_limit:g} s; raise --time-limit (time_limit)")
    return np.rint(y.value).astype(np.int64)


def _fold_feasible_counts(sizes, weights, s, epsilon, solver, time_limit, seed) -> bool:
    y = cp.Variable((sizes.size, s.size), integer=True)
    total = float(weights @ sizes)
    cons = [y >= 0, cp.sum(y, axis=1) == sizes, weights @ y >= lower_bounds(total, s, epsilon)]
    status, _ = _solve(cp.Problem(cp.Minimize(0), cons), solver, time_limit, seed)
    return status in (cps.OPTIMAL, cps.OPTIMAL_INACCURATE)
