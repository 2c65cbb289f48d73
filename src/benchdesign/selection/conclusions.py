"""Would a subset change a paper's conclusions?  Pairwise verdicts and critical-difference diagrams.

The verdict on a model pair (A, B) over a set of datasets is ``+1`` (A better), ``-1`` (B better)
or ``0`` (no significant difference): a two-sided Wilcoxon signed-rank test over the datasets'
scores (averaged over folds), Holm-corrected over all pairs at level ``alpha`` (Demšar 2006;
Benavoli et al. 2016).  The *conclusion stability* of a subset is the share of pairs whose verdict
on the subset equals the verdict on the full benchmark.  Critical-difference diagrams are drawn by
aeon's ``plot_critical_difference`` (Wilcoxon-Holm cliques).
"""

from __future__ import annotations


import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from benchdesign.selection.statistics import holm, signed_rank_pvalues

__all__ = ["dataset_scores", "pairwise_verdicts", "conclusion_stability", "plot_critical_difference"]


def dataset_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Long scores (dataset, model, fold, score) -> datasets x models, averaged over folds (row and
    column order of first appearance)."""
    datasets = list(dict.fromkeys(scores["dataset"]))
    models = list(dict.fromkeys(scores["model"]))
    wide = scores.groupby(["dataset", "model"])["score"].mean().unstack("model")
    return wide.loc[datasets, models]


def pairwise_verdicts(S: ArrayLike, higher_is_better: bool, alpha: float = 0.05) -> NDArray[np.int8]:
    """Verdicts on every model pair i < j (in ``np.triu_indices(M, 1)`` order) from an
    (n_datasets, M) score matrix: +1 model i better, -1 model j better, 0 no significant difference."""
    S = np.asarray(S, dtype=float)
    if S.ndim != 2 or S.shape[1] < 2:
        raise ValueError(f"scores must be (n_datasets, n_models >= 2), got shape {S.shape}")
    i, j = np.triu_indices(S.shape[1], 1)
    diff = S[:, i] - S[:, j]
    if not higher_is_better:
        diff = -diff
    p = np.ones(diff.shape[1])
    tested = np.any(diff != 0, axis=0)
    if S.shape[0] >= 2 and tested.any():
        with np.errstate(invalid="ignore", divide="ignore"):
            p[tested] = np.nan_to_num(signed_rank_pvalues(diff[:, tested]), nan=1.0)
    significant = holm(p) < alpha
    direction = np.sign(np.median(diff, axis=0))
    direction[direction == 0] = np.sign(diff.mean(axis=0))[direction == 0]
    return np.where(significant, direction, 0).astype(np.int8)


def conclusion_stability(full: ArrayLike, subset: ArrayLike) -> float:
    """Share of model pairs whose verdict on the subset equals the one on the full benchmark."""
    full, subset = np.asarray(full), np.asarray(subset)
    if full.shape != subset.shape or full.size == 0:
        raise ValueError(f"verdict vectors differ in shape: {full.shape} vs {subset.shape}")
    return float(np.mean(full == subset))


def plot_critical_difference(S: pd.DataFrame, higher_is_better: bool, title: str, alpha: float = 0.05):
    """Critical-difference diagram of the models (columns) over the datasets (rows) of ``S``, by aeon
    (Wilcoxon-Holm cliques at ``alpha``); returns the matplotlib figure, detached from pyplot (aeon
    draws through pyplot; the figure stays drawable and savable, but no global figure state is left)."""
    import matplotlib.pyplot as plt
    from aeon.visualisation import plot_critical_difference as aeon_cd

    fig, ax = aeon_cd(S.to_numpy(dtype=float), [str(c) for c in S.columns],
                      lower_better=not higher_is_better, alpha=alpha)
    ax.set_title(title, fontsize=9)
    plt.close(fig)
    return fig
