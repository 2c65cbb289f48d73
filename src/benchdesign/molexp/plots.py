"""Figures of the molecular experiments: Fig. 3-5 (scores beside scaled L(pi)), t-SNE panels, Fig. 6."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from benchdesign.molexp.models import HIGHER_IS_BETTER
from benchdesign.selection.plotting import _new_figure

__all__ = ["performance_figure", "fingerprint_tsne", "tsne_figure", "ablation_figure"]

FOLD_COLORS = {"train": "#1f77b4", "test": "#ff7f0e", "unassigned": "#c7c7c7", "both": "#9467bd"}


def _methods_in_order(leakage: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(leakage["split_method"]))


def performance_figure(leakage: pd.DataFrame, performance: pd.DataFrame, dataset: str) -> Figure:
    """Test score of each model under each split (mean ± sd over repeats) beside each split's scaled L(pi)."""
    leak = leakage[leakage["dataset"] == dataset]
    perf = performance[performance["dataset"] == dataset]
    if leak.empty:
        raise ValueError(f"no splits of dataset {dataset!r} in the leakage table")
    methods = _methods_in_order(leak)
    models = sorted(perf["model"].unique())
    metric = perf["metric"].iloc[0] if len(perf) else "score"
    fig = _new_figure(9.0, 3.6)
    ax_perf, ax_leak = fig.subplots(1, 2, width_ratios=[3, 1])
    width = 0.8 / max(len(methods), 1)
    colors = [f"C{i}" for i in range(len(methods))]
    for j, method in enumerate(methods):
        stats = perf[perf["split_method"] == method].groupby("model")["value"].agg(["mean", "std"]).reindex(models)
        x = np.arange(len(models)) + (j - (len(methods) - 1) / 2) * width
        ax_perf.bar(x, stats["mean"], width, yerr=stats["std"].fillna(0), label=method, color=colors[j], capsize=2)
    direction = "higher is better" if HIGHER_IS_BETTER.get(metric, True) else "lower is better"
    ax_perf.set_xticks(np.arange(len(models)), models)
    ax_perf.set_ylabel(f"test {metric.upper()} ({direction})")
    ax_perf.legend(fontsize=7, ncols=min(len(methods), 4))
    ax_perf.grid(axis="y", alpha=0.3)
    lstats = leak.groupby("split_method")["scaled_leakage"].agg(["mean", "std"]).reindex(methods)
    ax_leak.bar(np.arange(len(methods)), lstats["mean"], yerr=lstats["std"].fillna(0), color=colors, capsize=2)
    ax_leak.set_xticks(np.arange(len(methods)), methods, rotation=60, fontsize=7)
    ax_leak.set_ylabel("scaled L(π) (eq. 20)")
    ax_leak.grid(axis="y", alpha=0.3)
    fig.suptitle(f"{dataset}: model performance and information leakage per split")
    return fig


def fingerprint_tsne(bits: np.ndarray, max_points: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """2-D t-SNE of at most ``max_points`` fingerprints (seeded sub-sample; PCA to 50 dims first).

    Returns the sub-sample's row indices and its (m, 2) embedding.
    """
    from sklearn.decomposition import PCA
    from sklearn.manifold import TSNE

    rng = np.random.default_rng(seed)
    n = len(bits)
    index = np.sort(rng.choice(n, size=min(n, max_points), replace=False))
    x = bits[index].astype(np.float32)
    if x.shape[1] > 50 and len(index) > 50:
        x = PCA(n_components=50, random_state=seed % 2**32).fit_transform(x)
    perplexity = float(min(30.0, max(2.0, (len(index) - 1) / 3)))
    emb = TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed % 2**32).fit_transform(x)
    return index, emb


def tsne_figure(embedding: np.ndarray, panels: Sequence[tuple[str, np.ndarray]], title: str) -> Figure:
    """One scatter panel per split: points coloured by fold name (train / test / unassigned / both)."""
    fig = _new_figure(4.0 * len(panels), 4.0)
    axes = np.atleast_1d(fig.subplots(1, len(panels)))
    for ax, (name, labels) in zip(axes, panels, strict=True):
        for fold, color in FOLD_COLORS.items():
            mask = np.asarray(labels) == fold
            if mask.any():
                ax.scatter(embedding[mask, 0], embedding[mask, 1], s=4, c=color, label=f"{fold} ({mask.sum()})",
                           alpha=0.7, linewidths=0)
        ax.set_title(name)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.legend(fontsize=7, markerscale=3)
    fig.suptitle(title)
    return fig


def ablation_figure(clusters: pd.DataFrame, margins: pd.DataFrame, size: pd.DataFrame) -> Figure:
    """Fig. 6: (a) scaled L(pi) and (b) seconds vs K per solver; (c) scaled L(pi) over epsilon x delta;
    (d) seconds vs number of molecules per method (log-log; skipped / timed-out runs left out)."""
    fig = _new_figure(13.0, 3.4)
    ax_a, ax_b, ax_c, ax_d = fig.subplots(1, 4)
    for solver, group in clusters.groupby("solver"):
        group = group.sort_values("clusters")
        ax_a.plot(group["clusters"], group["scaled_leakage"], marker="o", label=solver)
        ax_b.plot(group["clusters"], group["seconds"], marker="o", label=solver)
    ax_a.set(xlabel="clusters K", ylabel="scaled L(π)", title="a  quality vs K")
    ax_b.set(xlabel="clusters K", ylabel="seconds", title="b  run time vs K")
    grid = margins.pivot_table(index="delta", columns="epsilon", values="scaled_leakage")
    image = ax_c.imshow(grid.to_numpy(), origin="lower", cmap="viridis", aspect="auto")
    ax_c.set_xticks(range(grid.shape[1]), [f"{v:g}" for v in grid.columns])
    ax_c.set_yticks(range(grid.shape[0]), [f"{v:g}" for v in grid.index])
    ax_c.set(xlabel="ε", ylabel="δ", title="c  scaled L(π) vs ε, δ")
    fig.colorbar(image, ax=ax_c)
    done = size[size["status"] == "ok"]
    for method, group in done.groupby("method"):
        group = group.sort_values("n_molecules")
        ax_d.plot(group["n_molecules"], group["seconds"], marker="o", label=method)
    ax_d.set(xscale="log", yscale="log", xlabel="molecules", ylabel="seconds", title="d  run time vs size")
    for ax in (ax_a, ax_b, ax_d):
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    return fig
