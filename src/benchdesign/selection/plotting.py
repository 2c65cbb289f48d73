"""Figures: rank-preservation curves (paper Fig. 2) and the synthetic ablation (Table 4).

Figures are built as standalone ``matplotlib.figure.Figure`` objects on the Agg canvas, never
through pyplot, so no global figure state is created.  Every figure file of the project is written by
``write_figure`` (or ``save_figure``, which calls it), so every PDF embeds TrueType fonts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from benchdesign.selection.aggregation import curve_auc
from benchdesign.selection.classes import A_PRIORI, CLASS_LABELS, INFORMED, selection_class
from benchdesign.selection.frames import (
    CURVE_COLUMNS,
    METRIC_ORDER,
    STRATEGY_LABELS,
    STRATEGY_ORDER,
    TABLE4_COLUMNS,
    check_metrics,
    class_column,
    config_label,
    require_columns,
    sort_frame,
)
from benchdesign.selection.metrics import METRIC_HIGHER_IS_BETTER
from benchdesign.selection.strategies import STRATEGY_REGISTRY
from benchdesign.selection.tables import table4

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
OUTPUT_RC = {"pdf.fonttype": 42, "ps.fonttype": 42}
"""matplotlib settings of every written figure: TrueType (Type 42) fonts in PDF and PostScript, which
journals ask for and editors read as text, instead of matplotlib's default Type 3 fonts (glyphs as drawing
procedures)."""


def _new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _color(strategy: str, index: int) -> str:
    return STRATEGY_COLORS.get(strategy, _FALLBACK_COLORS[index % len(_FALLBACK_COLORS)])


def _wrap(text: str, width_in: float, fontsize: float) -> str:
    """``text`` wrapped to lines that fit ``width_in`` inches at ``fontsize`` points (about 0.55 em a character)."""
    import textwrap

    return "\n".join(textwrap.wrap(text, max(20, int(width_in * 72 / (0.55 * fontsize)))))


CLASS_LINESTYLES = {A_PRIORI: "-", INFORMED: "--"}
"""Line style of each class (``classes.selection_class``) in the curve and stability figures."""
CLASS_LEGEND_TITLE = " · ".join(f"{'solid' if CLASS_LINESTYLES[c] == '-' else 'dashed'}: {CLASS_LABELS[c]}"
                                for c in CLASS_LINESTYLES)
"""Legend title of those figures: which line style is which class."""


def _reference_label(strategy: str, representation: str) -> str:
    """Legend label: an informed configuration is prefixed "informed:", never named "upper bound"."""
    if selection_class(strategy, representation) == INFORMED:
        return f"{INFORMED}: {config_label(strategy, representation)}"
    return config_label(strategy, representation)


def _trials(curves_df: pd.DataFrame) -> str:
    """How many trials the curves average, as the figure says it: "50 trials", or "40–50 trials" when they differ."""
    counts = curves_df["n_trials"].astype(int)
    low, high = counts.min(), counts.max()
    return f"{low} trials" if low == high else f"{low}–{high} trials"


def _representation_markers(representations) -> dict[str, str]:
    """One marker per representation (first-appearance order), the same in every panel."""
    shapes = ("o", "s", "^", "D", "v", "P", "X", "*")
    return {rep: shapes[i % len(shapes)] for i, rep in enumerate(dict.fromkeys(representations))}


def best_representations(curves_df: pd.DataFrame, domain: str, variation: str, metric: str,
                         references: bool = True) -> dict[str, str]:
    """Per strategy, the representation whose mean curve has the best AUC for ``metric`` (with
    ``references=False`` among the a-priori ones only: no informed one, the oracle among them, is chosen)."""
    mask = (
        (curves_df["domain"] == domain)
        & (curves_df["variation"] == variation)
        & (curves_df["metric"] == metric)
    )
    if not references:
        mask &= class_column(curves_df) == A_PRIORI
    aucs = curve_auc(curves_df[mask])
    best: dict[str, str] = {}
    for strategy, block in aucs.groupby("strategy", sort=False):
        values = block["auc"].to_numpy()
        i = int(np.argmax(values) if METRIC_HIGHER_IS_BETTER[metric] else np.argmin(values))
        best[strategy] = block["representation"].iloc[i]
    return best


def _best_reference(curves_df: pd.DataFrame, metric: str) -> tuple[str, str] | None:
    """The informed (strategy, representation) with the best AUC of ``metric``; None without one."""
    block = curves_df[(curves_df["metric"] == metric) & (class_column(curves_df) == INFORMED)]
    if block.empty:
        return None
    aucs = curve_auc(block)
    i = int(np.argmax(aucs["auc"]) if METRIC_HIGHER_IS_BETTER[metric] else np.argmin(aucs["auc"]))
    return str(aucs["strategy"].iloc[i]), str(aucs["representation"].iloc[i])


def _draw_curve(ax, sub: pd.DataFrame, metric: str, config: tuple[str, str], **style) -> None:
    """Mean curve and 95% band of one (strategy, representation) for ``metric``."""
    strategy, rep = config
    mask = (sub["metric"] == metric) & (sub["strategy"] == strategy) & (sub["representation"] == rep)
    line = sort_frame(sub[mask], ["k"])
    ax.plot(line["k"], line["mean"], lw=1.6, marker="o", ms=2.5, **style)
    ax.fill_between(line["k"], line["lo"], line["hi"], color=style["color"], alpha=0.12, lw=0)


def plot_curves(
    curves_df: pd.DataFrame,
    domain: str,
    variation: str = "dataset_pool",
    metrics: Sequence[str] = METRIC_ORDER,
    domain_label: str | None = None,
    choose_by: str = "spearman",
) -> Figure:
    """Fig. 2 style: one panel per metric, mean curve and 95% band over trials vs k.  Each strategy is
    drawn with one representation, the same in every panel (so a colour is one (strategy,
    representation) throughout): its a-priori representation with the best AUC of ``choose_by`` (the
    first of ``metrics`` when that is not drawn): the a-priori class, solid lines.  The best informed
    configuration (``classes.selection_class``: the oracle, features with the seen models' ranks; by the same AUC)
    is a dashed black reference labelled "informed: ..."; the legend's title names both classes.  The title names the domain by
    ``domain_label`` (default: ``domain``) and the number of trials the curves average (the ``n_trials``
    column), so a caption of another configuration's trial count cannot pass unnoticed."""
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
    chooser = choose_by if choose_by in metrics else metrics[0]
    chosen = best_representations(sub, domain, variation, chooser, references=False)
    strategies = [s for s in STRATEGY_ORDER if s in chosen] + sorted(set(chosen) - set(STRATEGY_ORDER))
    reference = _best_reference(sub, chooser)

    ncols = min(3, len(metrics))
    nrows = math.ceil(len(metrics) / ncols)
    fig = _new_figure(4.2 * ncols, 3.2 * nrows + 0.9)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax, metric in zip(axes, metrics):
        for i, strategy in enumerate(strategies):
            _draw_curve(ax, sub, metric, (strategy, chosen[strategy]), color=_color(strategy, i),
                        label=config_label(strategy, chosen[strategy]))
        if reference:
            _draw_curve(ax, sub, metric, reference, color="black", ls="--", label=_reference_label(*reference))
        ax.set_title(METRIC_AXIS_LABELS[metric].rsplit(" ", 1)[0])
        ax.set_xlabel("subset size k")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(METRIC_AXIS_LABELS[metric])
        ax.grid(alpha=0.3)
    for ax in axes[len(metrics):]:
        ax.set_visible(False)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(4, max(1, len(labels))), fontsize=8,
               title=CLASS_LEGEND_TITLE, title_fontsize=8)
    fig.suptitle(_wrap(
        f"{domain_label or domain}: rank preservation vs subset size ({variation.replace('_', '-')} variation; "
        f"mean and 95% band over {_trials(sub)}). Each strategy with its representation of best "
        f"AUC({METRIC_AXIS_LABELS[chooser].rsplit(' ', 1)[0]}), the same in every panel", 4.2 * ncols, 11),
        fontsize=11)
    return fig


def plot_synthetic(frame: pd.DataFrame, metrics: Sequence[str] = ("mae", "spearman")) -> Figure:
    """Bar chart of AUC mean ± sd per regime × strategy, one panel per metric; the legend lies below the panels.

    Accepts a ``benchdesign.selection.tables.table4`` frame or the per-seed frame it is built from.
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
    fig = _new_figure(4.5 * len(metrics), 4.0)
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
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(6, len(labels)), fontsize=8)
    fig.suptitle("Synthetic ablation: AUC over k (mean ± sd over seeds)")
    return fig


def write_figure(fig: Figure, target, fmt: str | None = None, dpi: float = 150) -> None:
    """Write ``fig`` to ``target`` with ``OUTPUT_RC`` (TrueType fonts in a PDF).

    Parameters
    ----------
    fig : the figure.
    target : a path or a binary file object (as for ``Figure.savefig``).
    fmt : file format (``"png"``, ``"pdf"``, ...); None takes it from the path's suffix.
    dpi : resolution of raster formats.
    """
    with matplotlib.rc_context(OUTPUT_RC):
        fig.savefig(target, format=fmt, dpi=dpi)


def save_figure(fig: Figure, path_without_suffix: str | Path) -> tuple[Path, Path]:
    """Write ``fig`` to ``<path>.png`` (dpi 150) and ``<path>.pdf`` by ``write_figure``; returns both paths."""
    base = Path(path_without_suffix)
    if base.suffix in {".png", ".pdf"}:
        raise ValueError(f"path {str(base)!r} must not carry a .png/.pdf suffix")
    base.parent.mkdir(parents=True, exist_ok=True)
    png, pdf = base.with_name(base.name + ".png"), base.with_name(base.name + ".pdf")
    write_figure(fig, png)
    write_figure(fig, pdf)
    return png, pdf


def plot_coverage(coverage: pd.DataFrame, p_eff: pd.DataFrame, title: str) -> Figure:
    """Covering radius r_k vs k (mean and 95% band over trials) of farthest-first, random and k-means,
    one panel per metric, beside the bound 2Δ/(k^(1/p) - 1) and the fitted c k^(-1/p_eff) of
    farthest-first (``benchdesign.selection.api.coverage_curves``, ``p_eff_table``)."""
    require_columns(coverage, ["strategy", "metric", "k", "radius", "radius_lo", "radius_hi", "bound"], "coverage")
    metrics = list(dict.fromkeys(coverage["metric"]))
    fig = _new_figure(4.4 * len(metrics), 4.3)
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
        fit = p_eff[(p_eff["strategy"] == fafi) & (p_eff["metric"] == metric)]
        fit = fit.iloc[0] if len(fit) else None
        if len(ref) and fit is not None and np.isfinite(fit["p_eff"]):  # NaN: no fit (the subsets cover the pool)
            ax.plot(ref["k"], fit["c"] * ref["k"].astype(float) ** (-1.0 / fit["p_eff"]), "k--", lw=1,
                    label=f"fit c·k^(−1/p_eff), p_eff = {fit['p_eff']:.3g}")
        top = block["radius_hi"].max()
        top = 1.15 * top if np.isfinite(top) and top > 0 else 1.0
        if len(ref):
            top = _draw_bound(ax, ref, top)
        ax.set_ylim(0, top)
        ax.set_title(f"{metric} (unit-normalised rows)" if metric == "cosine" else metric)
        ax.set_xlabel("subset size k")
        ax.set_ylabel("covering radius r_k")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=2, framealpha=0.8)
    fig.suptitle(_wrap(title, 4.4 * len(metrics), 11), fontsize=11)
    return fig


BOUND_RAISE_MAX = 3.0
"""The y-axis of a coverage panel is raised to show the bound when its lowest point is at most this many
times the top of the radii; a bound higher still is stated as off-scale inside the axes."""


def _draw_bound(ax, ref: pd.DataFrame, top: float) -> float:
    """Draw the bound 2Δ/(k^(1/p) − 1) of ``ref`` (one strategy's coverage rows) on ``ax`` and return the
    y-limit to use: raised to the bound's lowest point when that is near, else unchanged with a note in
    the axes that (and where) the bound lies above it."""
    finite = ref[np.isfinite(ref["bound"])]
    label = f"bound 2Δ/(k^(1/p) − 1), p = {int(ref['p'].iloc[0])}"
    if finite.empty:
        return top
    low = float(finite["bound"].min())
    if top < low <= BOUND_RAISE_MAX * top:
        top = 1.08 * low
    above = finite[finite["bound"] > top]
    if len(above) == len(finite):
        note = (f"{label}: off-scale, above the axis for every k (lowest {low:.3g}, at "
                f"k = {int(finite.loc[finite['bound'].idxmin(), 'k'])})")
        ax.text(0.03, 0.04, _wrap(note, 3.3, 6.5), transform=ax.transAxes,
                fontsize=6.5, ha="left", va="bottom",
                bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "0.6", "alpha": 0.9})
        return top
    if len(above):
        label += f" (above the axis for k ≤ {int(above['k'].max())})"
    ax.plot(finite["k"], finite["bound"], "k:", lw=1.2, label=label)
    return top


def plot_stability(stability: pd.DataFrame, title: str, n_models: int | None = None,
                   n_datasets: int | None = None, alpha: float = 0.05) -> Figure:
    """Conclusion stability (mean share of model pairs with the full benchmark's Wilcoxon-Holm verdict)
    vs k, one line per (strategy, representation): colour = strategy, marker = representation, line style =
    class (``CLASS_LINESTYLES``: the informed ones, the oracle among them, dashed).  Given ``n_models`` (and
    ``n_datasets``, the full benchmark's size), the figure says at which k no Holm-corrected test can be
    significant (``holm_floor``)."""
    require_columns(stability, ["strategy", "representation", "k", "mean"], "stability")
    fig = _new_figure(7.4, 5.6)
    ax = fig.subplots()
    markers = _representation_markers(stability["representation"])
    for i, ((strategy, rep), line) in enumerate(stability.groupby(["strategy", "representation"], sort=False)):
        line = line.sort_values("k")
        ax.plot(line["k"], line["mean"], color=_color(strategy, i), marker=markers[rep], ms=4, lw=1.3,
                ls=CLASS_LINESTYLES[selection_class(strategy, rep)],
                label=_reference_label(strategy, rep))
    ax.set_xlabel("subset size k")
    ax.set_ylabel("share of pairs with the full verdict")
    ax.set_ylim(0, 1.02)
    ks = sorted(set(stability["k"].astype(int)))
    ax.grid(alpha=0.3)
    if len(stability):
        ax.set_xticks(ks)
        ax.set_xlim(ks[0] - 1, ks[-1] + 1)
        fig.legend(fontsize=7, loc="outside lower center", ncols=2, framealpha=0.8, title=CLASS_LEGEND_TITLE,
                   title_fontsize=7)
        note = stability_note(ks, n_models, n_datasets, alpha)
        if note:
            ax.text(0.02, 0.03, _wrap(note, 6.4, 7.5), transform=ax.transAxes, fontsize=7, ha="left",
                    va="bottom", bbox={"boxstyle": "round", "facecolor": "#fff8dc", "edgecolor": "0.6"})
    else:
        ax.text(0.5, 0.5, "no trial at k = 5, 10 or 20", ha="center", va="center", transform=ax.transAxes)
    fig.suptitle(_wrap(title, 7.4, 10), fontsize=10)
    return fig


def stability_note(ks: Sequence[int], n_models: int | None, n_datasets: int | None, alpha: float = 0.05) -> str:
    """What the stability figure must say when no Holm-corrected Wilcoxon test can be significant: on the
    full benchmark (every line is then 1) or on subsets of size k (lines there all equal the full
    benchmark's share of non-significant pairs); empty when every k can give a significant verdict."""
    from benchdesign.selection.conclusions import holm_floor

    if not n_models:
        return ""
    pairs = n_models * (n_models - 1) // 2
    if n_datasets and holm_floor(n_datasets, n_models) >= alpha:
        return (f"No Holm-corrected Wilcoxon test over the {pairs} model pairs can reach α = {alpha:g} with the "
                f"full benchmark's {n_datasets} datasets: every verdict is 'no difference', so every line is 1 "
                "and the figure says nothing about the strategies.")
    blind = [k for k in ks if holm_floor(k, n_models) >= alpha]
    if not blind:
        return ""
    where = f"k = {blind[0]}" if len(blind) == 1 else "k = " + ", ".join(map(str, blind))
    return (f"At {where} no Holm-corrected Wilcoxon test over the {pairs} model pairs can reach α = {alpha:g} "
            f"(≤ {max(blind)} datasets): every subset verdict is 'no difference', so all lines there coincide "
            "at the full benchmark's share of non-significant pairs and do not compare the strategies.")
