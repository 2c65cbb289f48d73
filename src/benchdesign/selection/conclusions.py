"""Would a subset change a paper's conclusions?  Pairwise verdicts and critical-difference diagrams.

The verdict on a model pair (A, B) over a set of datasets is ``+1`` (A better), ``-1`` (B better)
or ``0`` (no significant difference): a two-sided Wilcoxon signed-rank test over the datasets'
scores (averaged over folds), Holm-corrected over all pairs at level ``alpha`` (Demšar 2006;
Benavoli et al. 2016).  The *conclusion stability* of a subset is the share of pairs whose verdict
on the subset equals the verdict on the full benchmark (``VerdictCache`` over the protocol's
trials, at ``STABILITY_KS``).  Critical-difference diagrams ([`plot_critical_difference`][]) show the
models' average ranks and join, by one bar each, the maximal groups of models no two of which differ by those
same Wilcoxon-Holm verdicts ([`wilcoxon_holm_matrix`][]; drawn by scikit-posthocs'
``critical_difference_diagram``), for the full benchmark and for subsets chosen by the best configuration
(``best_config``; ``benchdesign.selection.api.critical_difference_subsets``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.stats import rankdata

from benchdesign.selection.statistics import holm, signed_rank_pvalues

__all__ = ["dataset_scores", "pairwise_verdicts", "wilcoxon_holm_matrix", "conclusion_stability", "holm_floor",
           "cd_titles", "plot_critical_difference", "STABILITY_KS", "VerdictCache", "best_config"]

STABILITY_KS = (5, 10, 20)
"""Subset sizes k at which the conclusion stability is recorded."""


def dataset_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Long scores (dataset, model, fold, score) -> datasets x models, averaged over folds (row and
    column order of first appearance).

    Parameters
    ----------
    scores : pd.DataFrame
        Long scores (dataset, model, fold, score).

    Returns
    -------
    pd.DataFrame
        Datasets x models.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection import dataset_scores
    >>> scores = pd.DataFrame({"dataset": ["d1"] * 4 + ["d2"] * 4, "model": ["a", "a", "b", "b"] * 2,
    ...                        "fold": [0, 1] * 4, "score": [0.8, 0.9, 0.6, 0.7, 0.5, 0.7, 0.4, 0.4]})
    >>> dataset_scores(scores).round(2)  # doctest: +NORMALIZE_WHITESPACE
    model       a     b
    dataset
    d1       0.85  0.65
    d2       0.60  0.40
    """
    datasets = list(dict.fromkeys(scores["dataset"]))
    models = list(dict.fromkeys(scores["model"]))
    wide = scores.groupby(["dataset", "model"])["score"].mean().unstack("model")
    return wide.loc[datasets, models]


def _pair_differences(S: ArrayLike, higher_is_better: bool) -> tuple[np.ndarray, np.ndarray]:
    """(differences of every pair i < j, oriented so that > 0 favours model i; their Holm-adjusted two-sided
    Wilcoxon signed-rank p-values, 1 for a pair that never differs or with fewer than 2 datasets)."""
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
    return diff, holm(p)


def pairwise_verdicts(S: ArrayLike, higher_is_better: bool, alpha: float = 0.05) -> NDArray[np.int8]:
    """Verdicts on every model pair i < j (in ``np.triu_indices(M, 1)`` order) from an
    (n_datasets, M) score matrix: +1 model i better, -1 model j better, 0 no significant difference.

    Parameters
    ----------
    S : ArrayLike
        (n_datasets, M) scores.
    higher_is_better : bool
        Whether a higher score is better.
    alpha : float
        Significance level of the Holm-corrected Wilcoxon tests.

    Returns
    -------
    NDArray[np.int8]
        (M (M - 1) / 2,) verdicts.

    Examples
    --------
    Over 8 datasets model a beats b and c everywhere, while b and c trade places; the pairs are (a, b), (a, c),
    (b, c):

    >>> import numpy as np
    >>> from benchdesign.selection import pairwise_verdicts
    >>> a = np.linspace(0.8, 0.95, 8)
    >>> S = np.column_stack([a, a - 0.3, a - 0.3 + np.tile([-0.01, 0.01], 4)])
    >>> pairwise_verdicts(S, higher_is_better=True).tolist()
    [1, 1, 0]
    >>> pairwise_verdicts(S, higher_is_better=False).tolist()  # the same scores as errors
    [-1, -1, 0]
    """
    diff, adjusted = _pair_differences(S, higher_is_better)
    significant = adjusted < alpha
    direction = np.sign(np.median(diff, axis=0))
    direction[direction == 0] = np.sign(diff.mean(axis=0))[direction == 0]
    return np.where(significant, direction, 0).astype(np.int8)


def wilcoxon_holm_matrix(S: pd.DataFrame) -> pd.DataFrame:
    """Holm-adjusted two-sided Wilcoxon signed-rank p-values of every model pair (the tests behind
    [`pairwise_verdicts`][]: a pair differs significantly at ``alpha`` where the value is below ``alpha``).

    Parameters
    ----------
    S : pd.DataFrame
        Datasets x models scores (at least two models, unique names).

    Returns
    -------
    pd.DataFrame
        Symmetric models x models (the columns of ``S``), 1 on the diagonal.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection import wilcoxon_holm_matrix
    >>> S = pd.DataFrame({"a": [0.9, 0.8, 0.7], "b": [0.5, 0.6, 0.4]})
    >>> float(wilcoxon_holm_matrix(S).loc["a", "b"])
    0.25
    """
    if S.columns.has_duplicates:
        raise ValueError(f"model names must be unique, got {list(S.columns)}")
    _, adjusted = _pair_differences(S.to_numpy(dtype=float), True)  # two-sided: the orientation does not matter
    M = S.shape[1]
    P = np.ones((M, M))
    i, j = np.triu_indices(M, 1)
    P[i, j] = P[j, i] = adjusted
    return pd.DataFrame(P, index=S.columns, columns=S.columns)


def conclusion_stability(full: ArrayLike, subset: ArrayLike) -> float:
    """Share of model pairs whose verdict on the subset equals the one on the full benchmark.

    Parameters
    ----------
    full : ArrayLike
        Verdicts of [`pairwise_verdicts`][] on the full benchmark.
    subset : ArrayLike
        Verdicts on the subset, same pair order.

    Returns
    -------
    float
        The share, in [0, 1].

    Examples
    --------
    On 3 of the 8 datasets no pair differs significantly, so only the verdict on (b, c) stays:

    >>> import numpy as np
    >>> from benchdesign.selection import conclusion_stability, pairwise_verdicts
    >>> a = np.linspace(0.8, 0.95, 8)
    >>> S = np.column_stack([a, a - 0.3, a - 0.3 + np.tile([-0.01, 0.01], 4)])
    >>> full, subset = pairwise_verdicts(S, True), pairwise_verdicts(S[:3], True)
    >>> full.tolist(), subset.tolist()
    ([1, 1, 0], [0, 0, 0])
    >>> round(conclusion_stability(full, subset), 3)
    0.333
    """
    full, subset = np.asarray(full), np.asarray(subset)
    if full.shape != subset.shape or full.size == 0:
        raise ValueError(f"verdict vectors differ in shape: {full.shape} vs {subset.shape}")
    return float(np.mean(full == subset))


class VerdictCache:
    """Wilcoxon-Holm verdicts of subsets of the rows of ``S``, computed once per distinct subset."""

    def __init__(self, S: np.ndarray, higher_is_better: bool, alpha: float = 0.05):
        self.S, self.higher_is_better, self.alpha = S, higher_is_better, alpha
        self.full = pairwise_verdicts(S, higher_is_better, alpha)
        self._seen: dict[bytes, float] = {}

    def stability(self, rows: np.ndarray) -> float:
        key = np.sort(np.asarray(rows, dtype=np.intp)).tobytes()
        if key not in self._seen:
            verdicts = pairwise_verdicts(self.S[np.sort(rows)], self.higher_is_better, self.alpha)
            self._seen[key] = conclusion_stability(self.full, verdicts)
        return self._seen[key]


def holm_floor(n_datasets: int, n_models: int) -> float:
    """Smallest Holm-adjusted p-value any model pair can get over ``n_datasets`` datasets: the number of
    pairs times the smallest two-sided signed-rank p-value (all differences of one sign, no ties).  When it
    is at least ``alpha`` no verdict can be significant."""
    if n_datasets < 1 or n_models < 2:
        return 1.0
    p_min = float(signed_rank_pvalues(np.arange(1.0, n_datasets + 1)[:, None])[0])
    return min(1.0, n_models * (n_models - 1) / 2 * p_min)


def best_config(summary: pd.DataFrame, metric: str = "spearman") -> tuple[str, str]:
    """(strategy, representation) with the best AUC of ``metric`` in a Table 3 summary; random when
    the summary has no row (no a-priori contender besides random)."""
    row = summary[summary["metric"] == metric]
    if row.empty:
        return "random", "none"
    return str(row["best_strategy"].iloc[0]), str(row["best_representation"].iloc[0])


CLIQUE_GID = "cd-clique"
"""``gid`` of every clique bar of [`plot_critical_difference`][] (so a figure's cliques can be read back)."""


def plot_critical_difference(S: pd.DataFrame, higher_is_better: bool, title: str, alpha: float = 0.05,
                             subtitle: str | None = None):
    """Critical-difference diagram of the models (columns) over the datasets (rows) of ``S``.

    Each model sits at its average rank (1 = best, ties averaged) over the datasets; one bar joins each
    maximal group of models no two of which differ significantly by the Wilcoxon-Holm test of
    [`pairwise_verdicts`][] at ``alpha`` ([`wilcoxon_holm_matrix`][]; the bars are drawn by
    scikit-posthocs' ``critical_difference_diagram``, with ``gid`` ``CLIQUE_GID``).

    Parameters
    ----------
    S : pd.DataFrame
        Datasets x models scores (at least two models).
    higher_is_better : bool
        Whether a higher score is better (accuracy) or worse (error).
    title : str
        The figure's title, e.g. from ``cd_titles``.
    alpha : float
        Significance level of the verdicts.
    subtitle : str | None
        A smaller line under the title, wrapped (e.g. the subset's datasets), or None.

    Returns
    -------
    matplotlib.figure.Figure
        Not registered with pyplot, enlarged so every model name and the titles are whole.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection import plot_critical_difference
    >>> S = pd.DataFrame({"a": [0.9, 0.8, 0.7, 0.9], "b": [0.5, 0.6, 0.4, 0.5], "c": [0.6, 0.5, 0.5, 0.6]})
    >>> fig = plot_critical_difference(S, True, "toy: all 4 datasets")
    >>> from benchdesign.selection.plotting import write_figure
    >>> write_figure(fig, "cd_toy.pdf")  # doctest: +SKIP
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from scikit_posthocs import critical_difference_diagram

    if S.shape[1] < 2 or S.shape[0] < 1:
        raise ValueError(f"a critical-difference diagram needs >= 1 dataset and >= 2 models, got shape {S.shape}")
    S = S.set_axis([str(c) for c in S.columns], axis=1)
    P = wilcoxon_holm_matrix(S)
    values = S.to_numpy(dtype=float)
    ranks = pd.Series(rankdata(-values if higher_is_better else values, axis=1).mean(axis=0), index=S.columns)
    fig = Figure(figsize=(6.0, 2.0))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    critical_difference_diagram(ranks, P, alpha=alpha, ax=ax, label_fmt_left="{label} ({rank:.2f})",
                                label_fmt_right="({rank:.2f}) {label}", label_props={"fontsize": 9},
                                elbow_props={"linewidth": 0.8}, crossbar_props={"gid": CLIQUE_GID, "linewidth": 2.5},
                                text_h_margin=0.04 * (len(ranks) - 1))  # in ranks: 0.28 for 8 models
    ax.set_xlim(0.95, len(ranks) + 0.05)  # the whole rank scale, 1 .. number of models
    ax.set_xticks(np.arange(1, len(ranks) + 1))
    ax.tick_params(axis="x", labelsize=8)
    bottom = ax.get_ylim()[0]  # one unit per clique bar and per label row, below the axis at 0
    ax.set_ylim(bottom - 0.5, 0.5)
    fig.set_size_inches(6.0, 0.22 * (1.0 - bottom))
    _fit_to_content(fig, ax, title, subtitle)
    return fig


def cd_titles(name: str, subset: Sequence[str], n_datasets: int, chooser: str | None = None) -> tuple[str, str | None]:
    """Title and subtitle of a critical-difference diagram: which subset it shows (its size, of how many,
    chosen by whom) and, for a subset, its datasets."""
    if chooser is None:
        return f"{name}: all {n_datasets} datasets (full benchmark)", None
    return (f"{name}: {len(subset)} of {n_datasets} datasets chosen by {chooser}",
            "datasets: " + ", ".join(map(str, subset)))


def _fit_to_content(fig, ax, title: str, subtitle: str | None, pad: float = 0.15) -> None:
    """Resize ``fig`` (one axes whose labels reach beyond it) to the extent of what is drawn,
    with room above for the title lines: nothing is clipped."""
    import textwrap

    width, height = fig.get_size_inches()
    box = fig.get_tightbbox(fig.canvas.get_renderer())  # inches; may lie beyond the figure
    new_w = max(box.width + 2 * pad, 4.0)
    chars = max(30, int(new_w * 72 / (0.6 * 8)))  # about 0.6 em per character at 8 pt
    lines = [(title, 11, "bold")] + [(line, 8, "normal") for line in textwrap.wrap(subtitle or "", chars)]
    top = pad + sum(size for _, size, _ in lines) * 1.35 / 72
    new_h = box.height + 2 * pad + top
    x0 = pad - box.x0 + (new_w - box.width - 2 * pad) / 2
    fig.set_size_inches(new_w, new_h)
    ax.set_position([x0 / new_w, (pad - box.y0) / new_h, width / new_w, height / new_h])
    y = 1 - pad / new_h
    for text, size, weight in lines:
        fig.text(0.5, y, text, ha="center", va="top", fontsize=size, fontweight=weight)
        y -= size * 1.35 / 72 / new_h
