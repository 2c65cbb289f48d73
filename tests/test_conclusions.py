"""Wilcoxon-Holm verdicts, conclusion stability and critical-difference diagrams (benchdesign.selection.conclusions)."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata, wilcoxon

from benchdesign.selection.conclusions import (
    CLIQUE_GID,
    conclusion_stability,
    dataset_scores,
    pairwise_verdicts,
    plot_critical_difference,
    wilcoxon_holm_matrix,
)
from benchdesign.selection.statistics import EXACT_SIGN_FLIPS_MAX_N, holm, signed_rank_pvalues


def _scores():
    rng = np.random.default_rng(1)
    base = rng.normal(size=(25, 1))
    return np.hstack([base + 1.0 + 0.1 * rng.normal(size=(25, 1)), base + 0.1 * rng.normal(size=(25, 1)),
                      base + 0.1 * rng.normal(size=(25, 1))])


def test_verdicts_match_scipy_pair_by_pair():
    S = _scores()
    pairs = [(0, 1), (0, 2), (1, 2)]
    p = [wilcoxon(S[:, i] - S[:, j]).pvalue for i, j in pairs]
    expected = [int(np.sign(np.median(S[:, i] - S[:, j]))) if q < 0.05 else 0 for (i, j), q in zip(pairs, holm(p))]
    assert pairwise_verdicts(S, True).tolist() == expected
    assert expected[:2] == [1, 1]  # model 0 is clearly better
    assert pairwise_verdicts(S, False).tolist() == [-v for v in expected]


def test_small_subsets_cannot_be_significant_and_stability():
    S = _scores()
    full = pairwise_verdicts(S, True)
    small = pairwise_verdicts(S[:5], True)  # n = 5: the smallest two-sided p is 0.0625
    assert small.tolist() == [0, 0, 0]
    assert conclusion_stability(full, small) == pytest.approx(np.mean(full == 0))
    assert conclusion_stability(full, full) == 1.0
    with pytest.raises(ValueError, match="differ in shape"):
        conclusion_stability(full, full[:2])


def test_signed_rank_pvalues_by_hand():
    # d = 1, 2, 3: the signed-rank sum 6 is the largest of the 8 sign flips, two-sided p = 2/8
    # d = 1, -1, 2: ranks 1.5, 1.5, 3; sums over the flips 0, 1.5, 1.5, 3, 3, 4.5, 4.5, 6; observed 4.5
    p = signed_rank_pvalues(np.array([[1.0, 1.0], [2.0, -1.0], [3.0, 2.0]]))
    assert p.tolist() == pytest.approx([0.25, 0.75])


@pytest.mark.parametrize("kind", ["no ties", "ties", "zeros", "ties and zeros", "large"])
def test_signed_rank_pvalues_equal_scipy(kind):
    """scipy enumerates all 2^n sign flips with ties or zeros (n <= 13); the counted distribution agrees."""
    rng = np.random.default_rng(len(kind))
    for _ in range(6):
        n = int(rng.integers(EXACT_SIGN_FLIPS_MAX_N + 1, 30)) if kind == "large" else int(rng.integers(2, 10))
        d = rng.normal(size=(n, 4))
        if "ties" in kind:
            d = np.round(2 * d) / 2
        if "zeros" in kind:
            d[rng.random(d.shape) < 0.3] = 0.0
        d[:, np.all(d == 0, axis=0)] = 1.0  # an all-zero column has no p-value (pairwise_verdicts skips it)
        expected = wilcoxon(d, axis=0, zero_method="wilcox").pvalue
        assert signed_rank_pvalues(d) == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_dataset_scores_averages_folds():
    long = pd.DataFrame({"dataset": ["b", "b", "a", "a"] * 2, "model": ["x", "x", "x", "x", "y", "y", "y", "y"],
                         "fold": [0, 1] * 4, "score": [1, 3, 5, 7, 0, 0, 1, 1]})
    wide = dataset_scores(long)
    assert list(wide.index) == ["b", "a"] and wide.loc["b", "x"] == 2 and wide.loc["a", "y"] == 1


def _brute_force_cliques(S: pd.DataFrame, alpha: float) -> set[frozenset[str]]:
    """Maximal sets (>= 2 models) no two of which differ: scipy's two-sided Wilcoxon on every pair, Holm's
    step-down by hand, every subset tried."""
    pairs = list(itertools.combinations(S.columns, 2))
    p = np.array([wilcoxon(S[a], S[b], zero_method="wilcox").pvalue for a, b in pairs])
    order = np.argsort(p)
    adjusted, running = np.empty_like(p), 0.0
    for step, idx in enumerate(order):
        running = max(running, min(1.0, (len(p) - step) * p[idx]))
        adjusted[idx] = running
    same = {frozenset(pair) for pair, q in zip(pairs, adjusted) if q >= alpha}
    groups = [frozenset(c) for r in range(2, S.shape[1] + 1) for c in itertools.combinations(S.columns, r)
              if all(frozenset(pair) in same for pair in itertools.combinations(c, 2))]
    return {g for g in groups if not any(g < h for h in groups)}


def _drawn(fig, S: pd.DataFrame, higher_is_better: bool) -> tuple[set[frozenset[str]], dict[str, float]]:
    """The cliques drawn (bars with gid CLIQUE_GID, read back through the models' ranks) and the ranks."""
    ranks = dict(zip(S.columns, rankdata(-S.to_numpy() if higher_is_better else S.to_numpy(), axis=1).mean(axis=0)))
    at = {round(r, 9): m for m, r in ranks.items()}
    assert len(at) == len(ranks), "the test case needs distinct average ranks"
    ax = fig.axes[0]
    bars = [line for line in ax.get_lines() if line.get_gid() == CLIQUE_GID]
    return {frozenset(at[round(x, 9)] for x in line.get_xdata()) for line in bars}, ranks


@pytest.mark.parametrize("higher_is_better", [True, False])
def test_critical_difference_cliques_are_the_brute_force_wilcoxon_holm_ones(higher_is_better):
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(7)
    offsets = np.array([0.0, 0.25, 1.2, 1.45, 3.0, 3.3])
    S = pd.DataFrame(rng.normal(scale=0.35, size=(12, 6)) + offsets,
                     columns=["alpha", "beta", "gamma", "delta", "epsilon", "zeta"])
    S = S if higher_is_better else -S  # errors: the same ranks
    fig = plot_critical_difference(S, higher_is_better, "toy")
    drawn, ranks = _drawn(fig, S, higher_is_better)
    expected = _brute_force_cliques(S, 0.05)
    assert drawn == expected
    assert sum(len(c) > 1 for c in expected) >= 2 and len(set().union(*expected)) < 6  # a case with structure
    assert ranks["zeta"] < ranks["alpha"]  # the best model has the lowest rank
    markers = sorted(float(o.get_offsets()[0][0]) for o in fig.axes[0].collections)
    np.testing.assert_allclose(markers, sorted(ranks.values()))
    # the same p-values as the verdicts: a pair is significant in the matrix iff its verdict is not 0
    P = wilcoxon_holm_matrix(S).to_numpy()
    i, j = np.triu_indices(6, 1)
    np.testing.assert_array_equal(P[i, j] < 0.05, pairwise_verdicts(S.to_numpy(), higher_is_better) != 0)
    assert plt.get_fignums() == []  # not registered with pyplot: no global figure state left behind


def test_critical_difference_of_indistinguishable_models_is_one_bar_and_checks_its_input():
    S = pd.DataFrame(_scores()[:3], columns=["A", "B", "C"])  # 3 datasets: no Holm-adjusted p below 0.05
    drawn, _ = _drawn(plot_critical_difference(S, True, "t"), S, True)
    assert drawn == {frozenset("ABC")}
    with pytest.raises(ValueError, match="2 models"):
        plot_critical_difference(S[["A"]], True, "t")
    with pytest.raises(ValueError, match="unique"):
        wilcoxon_holm_matrix(S.set_axis(["A", "A", "C"], axis=1))
