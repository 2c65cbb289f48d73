"""Wilcoxon-Holm verdicts and conclusion stability (benchdesign.selection.conclusions)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from markers import needs_aeon
from scipy.stats import wilcoxon

from benchdesign.selection.conclusions import (
    conclusion_stability,
    dataset_scores,
    pairwise_verdicts,
    plot_critical_difference,
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


@needs_aeon
def test_critical_difference_diagram_is_drawn_by_aeon():
    S = pd.DataFrame(_scores(), columns=["A", "B", "C"])
    fig = plot_critical_difference(S, True, "test")
    texts = {t.get_text() for ax in fig.axes for t in ax.texts}
    assert {"A", "B", "C"} <= texts
    import matplotlib.pyplot as plt

    assert plt.get_fignums() == []  # detached from pyplot: no global figure state left behind
