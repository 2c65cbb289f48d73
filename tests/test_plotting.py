"""Tests for benchdesign.selection.plotting."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from benchdesign.selection import aggregation, frames, tables
from benchdesign.selection import plotting


def curves_frame(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    configs = [("random", "none", 0.0), ("kmeans", "oracle", 0.6), ("kmeans", "metadata", 0.1),
               ("fafi_cosine", "oracle", 0.4)]
    for strategy, rep, effect in configs:
        for trial in range(8):
            for k in range(2, 11):
                base = 1 - np.exp(-k * (0.1 + 0.3 * effect))
                e = rng.normal(0, 0.03)
                for metric, value in (("mae", 3 * (1 - base) + abs(e)), ("spearman", base + e),
                                      ("kendall", base + e), ("ndcg5", base + e), ("mrr", base + e),
                                      ("ndcg5_paper", base + e)):
                    rows.append(("tsc", "dataset_pool", strategy, rep, trial, k, metric, value))
    return aggregation.curves(pd.DataFrame(rows, columns=frames.TRIAL_COLUMNS))


@pytest.fixture(scope="module")
def curves() -> pd.DataFrame:
    return curves_frame(np.random.default_rng(0))


def test_plot_curves_panels_labels_and_files(curves, tmp_path):
    fig = plotting.plot_curves(curves, "tsc", domain_label="TSC")
    assert isinstance(fig, Figure)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 6
    labels = visible[0].get_legend_handles_labels()[1]
    assert labels == ["Random", "K-Means (oracle)", "C-FAFI (oracle)"]
    assert visible[0].get_xlabel() == "subset size k"
    assert "TSC" in fig.get_suptitle()
    png, pdf = plotting.save_figure(fig, tmp_path / "figs" / "curves_tsc")
    assert png.name == "curves_tsc.png" and pdf.name == "curves_tsc.pdf"
    assert png.stat().st_size > 0 and pdf.stat().st_size > 0
    assert plt.get_fignums() == []  # no pyplot state


def test_best_representations_and_errors(curves):
    assert plotting.best_representations(curves, "tsc", "dataset_pool", "mae") == {
        "random": "none", "kmeans": "oracle", "fafi_cosine": "oracle"}
    with pytest.raises(ValueError, match="nlp"):
        plotting.plot_curves(curves, "nlp")
    with pytest.raises(ValueError, match="rmse"):
        plotting.plot_curves(curves, "tsc", metrics=("rmse",))
    with pytest.raises(ValueError, match=r"\.png"):
        plotting.save_figure(Figure(), "x.png")


def test_plot_synthetic_from_seeds_and_table4(tmp_path):
    rng = np.random.default_rng(3)
    seeds = pd.DataFrame(
        [(reg, s, seed, m, rng.normal(30 if m == "mae" else 15, 1))
         for reg in ("oracle", "broken") for s in ("random", "fafi_cosine")
         for seed in range(10) for m in ("mae", "spearman")],
        columns=frames.SYNTHETIC_AUC_COLUMNS,
    )
    for frame in (seeds, tables.table4(seeds)):
        fig = plotting.plot_synthetic(frame)
        assert len(fig.axes) == 2
        assert fig.axes[0].get_legend_handles_labels()[1] == ["Random", "C-FAFI"]
        png, pdf = plotting.save_figure(fig, tmp_path / "synthetic")
        assert png.stat().st_size > 0 and pdf.stat().st_size > 0
