"""Figures: rank-preservation curves (paper Fig. 2) and the synthetic ablation (Table 4).

Figures are built as standalone ``matplotlib.figure.Figure`` objects on the Agg canvas, never
through pyplot, so no global figure state is created.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from benchdesign.selection.strategies import STRATEGY_REGISTRY
from benchdesign.selection.aggregate import (
    CURVE_COLUMNS,
    DOMAIN_LABELS,
    METRIC_HIGHER_IS_BETTER,
    METRIC_ORDER,
    STRATEGY_LABELS,
    STRATEGY_ORDER,
    TABLE4_COLUMNS,
    _check_metrics,
    _require_columns,
    config_label,
    curve_auc,
    sort_frame,
    table4,
)

METRIC_AXIS_LABELS = {
    "mae": "MAE of mean ranks ↓",
    "spearman": "Spearman ρ ↑",
    "kendall": "Kendall τ ↑",
    "ndcg5": "NDCG@5 ↑",
    "mrr": "MRR ↑",
    "ndcg5_paper": "NDCG@5, paper's code ↑",
}
STRATEGY_COLORS = {name: s.color for name, s in STRATEGY_REGISTRY.items()}
_FALLBACK_COLORS = ("#8c564b", "#e377c2", "#bcbd22", "#17becf")


def _new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _color(strategy: str, index: int) -> str:
    return STRATEGY_COLORS.get(strategy, _FALLBACK_COLORS[index % len(_FALLBACK_COLORS)])


def best_representations(curves_df: pd.DataFrame, domain: str, variation: str, metric: str) -> dict[str, str]:
    """Per strategy, the representation whose mean curve has the best AUC for ``metric``."""
    mask = (
        (curves_df["domain"] == domain)
        & (curves_df["variation"] == variation)
        & (curves_df["metric"] == metric)
    )
    aucs = curve_auc(curves_df[mask])
    best: dict[str, str] = {}
    for strategy, block in aucs.groupby("strategy", sort=False):
        values = block["auc"].to_numpy()
        i = int(np.argmax(values) if METRIC_HIGHER_IS_BETTER[metric] else np.argmin(values))
        best[strategy] = block["representation"].iloc[i]
    return best


def plot_curves(
    curves_df: pd.DataFrame,
    domain: str,
    variation: str = "dataset_pool",
    metrics: Sequence[str] = METRIC_ORDER,
) -> Figure:
    """Fig. 2 style: one panel per metric, mean curve and 95% band over trials vs k for each
    strategy with its best representation (by AUC of that panel's metric)."""
    _require_columns(curves_df, CURVE_COLUMNS, "curves frame")
    _check_metrics(metrics)
    if not metrics:
        raise ValueError("metrics must name at least one metric")
    sub = curves_df[(curves_df["domain"] == domain) & (curves_df["variation"] == variation)]
    if sub.empty:
        raise ValueError(f"no curves for domain={domain!r}, variation={variation!r}")
    absent = [m for m in metrics if m not in set(sub["metric"])]
    if absent:
        raise ValueError(f"metric(s) {absent} have no curves for domain={domain!r}")

    ncols = min(3, len(metrics))
    nrows = math.ceil(len(metrics) / ncols)
    fig = _new_figure(4.2 * ncols, 3.4 * nrows)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    strategies = [s for s in STRATEGY_ORDER if s in set(sub["strategy"])]
    strategies += sorted(set(sub["strategy"]) - set(strategies))
    for ax, metric in zip(axes, metrics):
        best = best_representations(sub, domain, variation, metric)
        for i, strategy in enumerate(strategies):
            if strategy not in best:
                continue
            rep = best[strategy]
            mask = (sub["metric"] == metric) & (sub["strategy"] == strategy) & (sub["representation"] == rep)
            line = sort_frame(sub[mask], ["k"])
            color = _color(strategy, i)
            ax.plot(line["k"], line["mean"], color=color, lw=1.6, marker="o", ms=2.5,
                    label=config_label(strategy, rep))
            ax.fill_between(line["k"], line["lo"], line["hi"], color=color, alpha=0.15, lw=0)
        ax.set_title(METRIC_AXIS_LABELS[metric].rsplit(" ", 1)[0])
        ax.set_xlabel("subset size k")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(METRIC_AXIS_LABELS[metric])
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="best", framealpha=0.8)
    for ax in axes[len(metrics):]:
        ax.set_visible(False)
    fig.suptitle(
        f"{DOMAIN_LABELS.get(domain, domain)}: rank preservation vs subset size "
        f"({variation.replace('_', '-')} variation; mean and 95% band over trials)"
    )
    return fig


def plot_synthetic(frame: pd.DataFrame, metrics: Sequence[str] = ("mae", "spearman")) -> Figure:
    """Bar chart of AUC mean ± sd per regime × strategy, one panel per metric.

    Accepts a :func:`benchdesign.selection.aggregate.table4` frame or the per-seed frame it is built from.
    """
    t4 = table4(frame) if "auc" in frame.columns else frame
    _require_columns(t4, TABLE4_COLUMNS, "synthetic frame")
    _check_metrics(metrics)
    absent = [m for m in metrics if m not in set(t4["metric"])]
    if absent:
        raise ValueError(f"metric(s) {absent} not in the synthetic frame")
    t4 = sort_frame(t4, ["regime", "strategy", "metric"])
    regimes = list(dict.fromkeys(t4["regime"]))
    strategies = sort_frame(t4[["strategy"]].drop_duplicates(), ["strategy"])["strategy"].tolist()
    fig = _new_figure(4.5 * len(metrics), 3.6)
    axes = fig.subplots(1, len(metrics), squeeze=False).ravel()
    width = 0.8 / len(strategies)
    x = np.arange(len(regimes))
    for ax, metric in zip(axes, metrics):
        block = t4[t4["metric"] == metric].set_index(["regime", "strategy"])
        for i, strategy in enumerate(strategies):
            idx = [(r, strategy) for r in regimes]
            means = [block["auc_mean"].get(key, np.nan) for key in idx]
            sds = [block["auc_sd"].get(key, np.nan) for key in idx]
            ax.bar(x + (i - (len(strategies) - 1) / 2) * width, means, width, yerr=sds, capsize=3,
                   color=_color(strategy, i), label=STRATEGY_LABELS.get(strategy, strategy))
        ax.set_xticks(x, [str(r).capitalize() for r in regimes])
        ax.set_xlabel("representation regime")
        ax.set_ylabel(f"AUC({METRIC_AXIS_LABELS[metric]})".replace(" ↑)", ") ↑").replace(" ↓)", ") ↓"))
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Synthetic ablation: AUC over k (mean ± sd over seeds)")
    return fig


def save_figure(fig: Figure, path_without_suffix: str | Path) -> tuple[Path, Path]:
    """Write ``fig`` to ``<path>.png`` (dpi 150) and ``<path>.pdf``; returns both paths."""
    base = Path(path_without_suffix)
    if base.suffix in {".png", ".pdf"}:
        raise ValueError(f"path {str(base)!r} must not carry a .png/.pdf suffix")
    base.parent.mkdir(parents=True, exist_ok=True)
    png, pdf = base.with_name(base.name + ".png"), base.with_name(base.name + ".pdf")
    fig.savefig(png, dpi=150)
    fig.savefig(pdf)
    return png, pdf
