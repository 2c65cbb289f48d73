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

from benchdesign.selection.aggregation import curve_auc
from benchdesign.selection.frames import (
    CURVE_COLUMNS,
    METRIC_ORDER,
    REFERENCE_REPRESENTATIONS,
    STRATEGY_LABELS,
    STRATEGY_ORDER,
    TABLE4_COLUMNS,
    check_metrics,
    config_label,
    require_columns,
    sort_frame,
)
from benchdesign.selection.metrics import METRIC_HIGHER_IS_BETTER
from benchdesign.selection.tables import table4
from benchdesign.selection.strategies import STRATEGY_REGISTRY

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
    domain_label: str | None = None,
) -> Figure:
    """Fig. 2 style: one panel per metric, mean curve and 95% band over trials vs k for each
    strategy with its best representation (by AUC of that panel's metric); the title names the domain
    by ``domain_label`` (default: ``domain``)."""
    require_columns(curves_df, CURVE_COLUMNS, "curves frame")
    check_metrics(metrics)
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
        f"{domain_label or domain}: rank preservation vs subset size "
        f"({variation.replace('_', '-')} variation; mean and 95% band over trials)"
    )
    return fig


def plot_synthetic(frame: pd.DataFrame, metrics: Sequence[str] = ("mae", "spearman")) -> Figure:
    """Bar chart of AUC mean ± sd per regime × strategy, one panel per metric.

    Accepts a :func:`benchdesign.selection.tables.table4` frame or the per-seed frame it is built from.
    """
    t4 = table4(frame) if "auc" in frame.columns else frame
    require_columns(t4, TABLE4_COLUMNS, "synthetic frame")
    check_metrics(metrics)
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


def plot_coverage(coverage: pd.DataFrame, p_eff: pd.DataFrame, title: str) -> Figure:
    """Covering radius r_k vs k (mean and 95% band over trials) of farthest-first, random and k-means,
    one panel per metric, beside the bound 2Δ/(k^(1/p) - 1) and the fitted c k^(-1/p_eff) of
    farthest-first (:func:`benchdesign.selection.api.coverage_curves`, :func:`~benchdesign.selection.api.p_eff_table`)."""
    require_columns(coverage, ["strategy", "metric", "k", "radius", "radius_lo", "radius_hi", "bound"], "coverage")
    metrics = list(dict.fromkeys(coverage["metric"]))
    fig = _new_figure(4.4 * len(metrics), 3.4)
    axes = fig.subplots(1, len(metrics), squeeze=False).ravel()
    for ax, metric in zip(axes, metrics):
        block = coverage[coverage["metric"] == metric]
        for i, strategy in enumerate(dict.fromkeys(block["strategy"])):
            line = block[block["strategy"] == strategy].sort_values("k")
            color = _color(strategy, i)
            ax.plot(line["k"], line["radius"], color=color, lw=1.5, marker="o", ms=2.5,
                    label=STRATEGY_LABELS.get(strategy, strategy))
            ax.fill_between(line["k"], line["radius_lo"], line["radius_hi"], color=color, alpha=0.12, lw=0)
        fafi = "fafi_cosine" if metric == "cosine" else "fafi_euclidean"
        ref = block[block["strategy"] == fafi].sort_values("k")
        if len(ref):
            fit = p_eff[(p_eff["strategy"] == fafi) & (p_eff["metric"] == metric)].iloc[0]
            ax.plot(ref["k"], fit["c"] * ref["k"].astype(float) ** (-1.0 / fit["p_eff"]), "k--", lw=1,
                    label=f"fit c·k^(−1/p_eff), p_eff = {fit['p_eff']:.3g}")
            finite = ref[np.isfinite(ref["bound"])]
            ax.plot(finite["k"], finite["bound"], "k:", lw=1,
                    label=f"bound 2Δ/(k^(1/p) − 1), p = {int(ref['p'].iloc[0])}")
        top = block["radius_hi"].max()
        ax.set_ylim(0, 1.15 * top if np.isfinite(top) and top > 0 else None)
        ax.set_title(f"{metric} (unit-normalised rows)" if metric == "cosine" else metric)
        ax.set_xlabel("subset size k")
        ax.set_ylabel("covering radius r_k")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6.5, loc="upper right", framealpha=0.8)
    fig.suptitle(title)
    return fig


def plot_stability(stability: pd.DataFrame, title: str) -> Figure:
    """Conclusion stability (mean share of model pairs with the full benchmark's Wilcoxon-Holm verdict)
    vs k, one line per (strategy, representation)."""
    require_columns(stability, ["strategy", "representation", "k", "mean"], "stability")
    fig = _new_figure(5.2, 3.6)
    ax = fig.subplots()
    for i, ((strategy, rep), line) in enumerate(stability.groupby(["strategy", "representation"], sort=False)):
        line = line.sort_values("k")
        ax.plot(line["k"], line["mean"], color=_color(strategy, i), marker="o", ms=3, lw=1.3,
                ls="--" if rep in REFERENCE_REPRESENTATIONS else "-", label=config_label(strategy, rep))
    ax.set_xlabel("subset size k")
    ax.set_ylabel("share of pairs with the full verdict")
    ax.set_ylim(0, 1.02)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    if len(stability):
        ax.legend(fontsize=6.5, loc="lower right", framealpha=0.8)
    else:
        ax.text(0.5, 0.5, "no trial at k = 5, 10 or 20", ha="center", va="center", transform=ax.transAxes)
    ax.set_title(title, fontsize=9)
    return fig
