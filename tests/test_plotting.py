"""Tests for benchdesign.selection.plotting."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from figure_helpers import figure_texts, overlapping_legends
from matplotlib.figure import Figure

from benchdesign.selection import aggregation, frames, plotting, tables


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
    # a-priori strategies with their a-priori representation; the informed oracle apart, never "upper bound"
    assert labels == ["Random", "K-Means (metadata)", "informed: K-Means (oracle)"]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == labels
    assert fig.legends[0].get_title().get_text() == (
        "solid: a priori (dataset features only) · dashed: informed (also the seen models' scores)")
    assert not any("upper bound" in t.lower() for t in labels + [fig.get_suptitle()])
    assert visible[0].get_xlabel() == "subset size k"
    assert "TSC" in fig.get_suptitle()
    png, pdf = plotting.save_figure(fig, tmp_path / "figs" / "curves_tsc")
    assert png.name == "curves_tsc.png" and pdf.name == "curves_tsc.pdf"
    assert png.stat().st_size > 0 and pdf.stat().st_size > 0
    assert plt.get_fignums() == []  # no pyplot state


def test_curves_colour_is_one_configuration_in_every_panel_and_oracle_is_dashed(curves):
    fig = plotting.plot_curves(curves, "tsc")
    styles = {}
    for ax in fig.axes:
        for line in ax.get_lines():
            styles.setdefault(line.get_label(), set()).add((line.get_color(), line.get_linestyle()))
    assert all(len(s) == 1 for s in styles.values())  # one colour and style per label across the six panels
    colours = [next(iter(s))[0] for s in styles.values()]
    assert len(set(colours)) == len(colours)  # and one label per colour
    assert styles["informed: K-Means (oracle)"] == {("black", "--")}
    assert all(len(ax.get_lines()) == 3 for ax in fig.axes)


def test_best_representations_and_errors(curves):
    assert plotting.best_representations(curves, "tsc", "dataset_pool", "mae") == {
        "random": "none", "kmeans": "oracle", "fafi_cosine": "oracle"}
    assert plotting.best_representations(curves, "tsc", "dataset_pool", "mae", references=False) == {
        "random": "none", "kmeans": "metadata"}
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


def stability_frame(ks=(5, 10)) -> pd.DataFrame:
    rows = [(s, r, k, 0.4 + 0.01 * k) for s, r in (("random", "none"), ("kmeans", "meta"), ("kmeans", "oracle"))
            for k in ks]
    return pd.DataFrame(rows, columns=["strategy", "representation", "k", "mean"])


def _texts(fig) -> str:
    return " ".join(t.get_text() for ax in fig.axes for t in ax.texts)


def test_stability_says_when_no_holm_test_can_be_significant():
    # 7 models = 21 pairs: with 5 datasets the smallest p is 2/32, 21 x 2/32 > 0.05; with 10, 21 x 2/1024 < 0.05
    fig = plotting.plot_stability(stability_frame(), "t", n_models=7, n_datasets=30)
    text = " ".join(_texts(fig).split())
    assert "At k = 5 no Holm-corrected Wilcoxon test over the 21 model pairs can reach α = 0.05" in text
    assert "k = 10" not in text
    full = " ".join(_texts(plotting.plot_stability(stability_frame(), "t", n_models=7, n_datasets=9)).split())
    assert "with the full benchmark's 9 datasets" in full and "every line is 1" in full
    assert _texts(plotting.plot_stability(stability_frame((20,)), "t", n_models=7, n_datasets=30)) == ""
    assert plotting.stability_note([5, 10], None, None) == ""


def test_stability_lines_markers_and_whole_title():
    fig = plotting.plot_stability(stability_frame(), "x " * 80, n_models=4, n_datasets=30)
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert set(lines) == {"Random", "K-Means (meta)", "informed: K-Means (oracle)"}
    assert lines["K-Means (meta)"].get_marker() != lines["informed: K-Means (oracle)"].get_marker()
    assert lines["informed: K-Means (oracle)"].get_linestyle() == "--"
    assert "\n" in fig.get_suptitle()  # wrapped, not cut off
    fig.canvas.draw()
    width = fig.bbox.width
    title = fig._suptitle.get_window_extent()
    assert 0 <= title.x0 and title.x1 <= width


def coverage_frame(bound_scale: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    ks = np.arange(2, 9)
    rows = [(s, "euclidean", k, r, 0.9 * r, 1.1 * r, bound_scale * 2 / (k ** 0.5 - 1), 2)
            for s, f in (("random", 1.3), ("fafi_euclidean", 1.0)) for k in ks for r in [f * k ** -0.5]]
    cov = pd.DataFrame(rows, columns=["strategy", "metric", "k", "radius", "radius_lo", "radius_hi", "bound", "p"])
    p_eff = pd.DataFrame([("fafi_euclidean", "euclidean", 2, 2.0, 1.0)], columns=["strategy", "metric", "p", "p_eff", "c"])
    return cov, p_eff


def test_coverage_bound_is_inside_the_axes_or_stated_off_scale():
    near = plotting.plot_coverage(*coverage_frame(0.5), "t")
    ax = near.axes[0]
    bound = next(line for line in ax.get_lines() if line.get_label().startswith("bound"))
    assert min(bound.get_ydata()) <= ax.get_ylim()[1]
    assert "above the axis for k ≤" in bound.get_label()
    far = plotting.plot_coverage(*coverage_frame(50.0), "t").axes[0]
    assert not any(line.get_label().startswith("bound") for line in far.get_lines())
    note = " ".join(t.get_text() for t in far.texts)
    assert "off-scale, above the axis for every k" in " ".join(note.split())


def test_critical_difference_names_whole_and_titled_with_its_subset():
    from benchdesign.selection.conclusions import cd_titles, holm_floor, plot_critical_difference

    rng = np.random.default_rng(1)
    names = ["xgboost", "lightgbm", "logistic_regression", "random_forest", "knn"]
    S = pd.DataFrame(rng.normal(size=(12, 5)) + np.arange(5), columns=names,
                     index=[f"dataset_{i:02d}" for i in range(12)])
    subset = list(S.index[:6])
    title, subtitle = cd_titles("bench", subset, len(S), "C-FAFI (meta)")
    assert title == "bench: 6 of 12 datasets chosen by C-FAFI (meta)" and "dataset_05" in subtitle
    assert cd_titles("bench", list(S.index), 12)[0] == "bench: all 12 datasets (full benchmark)"
    fig = plot_critical_difference(S.loc[subset], True, title, subtitle=subtitle)
    fig.canvas.draw()
    renderer, frame = fig.canvas.get_renderer(), fig.bbox
    texts = [t for ax in fig.axes for t in ax.texts] + list(fig.texts)
    shown = {t.get_text(): t.get_window_extent(renderer) for t in texts}
    labels = {name: [s for s in shown if s.startswith(f"{name} (") or s.endswith(f") {name}")] for name in names}
    assert all(len(found) == 1 for found in labels.values()), labels  # "name (rank)" or "(rank) name"
    assert title in shown
    for text in [*(found[0] for found in labels.values()), title]:  # model names, title: wholly inside the figure
        box = shown[text]
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, text
    assert holm_floor(5, 7) == 1.0 and holm_floor(10, 7) == pytest.approx(21 * 2 / 1024)
    assert plt.get_fignums() == []


# ---------------------------------------------------------------------------------------------- figure files
def test_figure_files_embed_truetype_fonts(curves, tmp_path):
    import io

    _, pdf = plotting.save_figure(plotting.plot_curves(curves, "tsc"), tmp_path / "curves")
    buffer = io.BytesIO()
    plotting.write_figure(plotting.plot_stability(stability_frame(), "t"), buffer, "pdf")
    for data in (pdf.read_bytes(), buffer.getvalue()):
        assert b"/Type3" not in data and b"/FontFile2" in data  # TrueType programs, no Type 3 glyph procedures


def test_no_figure_writer_bypasses_write_figure():
    """Every figure file is written by plotting.write_figure (TrueType fonts): its savefig is the only one."""
    import re
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    calls = [str(path.relative_to(repo)) for folder in ("src", "scripts", "benchmarks")
             for path in sorted((repo / folder).rglob("*.py"))
             for line in path.read_text().splitlines()
             if re.search(r"\.savefig\(", line) and not line.lstrip().startswith(">>>")]
    assert calls == ["src/benchdesign/selection/plotting.py"], calls


# ---------------------------------------------------------------------------------------------- what a reader sees
def test_curves_state_the_trials_they_average(curves):
    assert "over 8 trials" in " ".join(plotting.plot_curves(curves, "tsc").get_suptitle().split())
    fewer = curves.copy()
    fewer.loc[fewer["strategy"] == "random", "n_trials"] = 5
    assert "over 5–8 trials" in " ".join(plotting.plot_curves(fewer, "tsc").get_suptitle().split())


def test_synthetic_legend_covers_no_bar():
    rng = np.random.default_rng(3)
    seeds = pd.DataFrame(
        [(reg, s, seed, m, rng.normal(30 if m == "mae" else 15, 1))
         for reg in ("oracle", "broken") for s in ("random", "kmeans", "fafi_cosine", "a_optimal")
         for seed in range(5) for m in ("mae", "spearman")],
        columns=frames.SYNTHETIC_AUC_COLUMNS,
    )
    fig = plotting.plot_synthetic(seeds)
    assert overlapping_legends(fig) == []
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["Random", "K-Means", "C-FAFI", "A-optimal"]


def test_curves_name_representations_in_words(curves):
    paper = curves.replace({"representation": {"metadata": "catch22_paper"}})
    fig = plotting.plot_curves(paper, "tsc", domain_label="TSC")
    assert fig.legends[0].get_texts()[1].get_text() == "K-Means (catch22, paper's code)"
    texts = figure_texts(fig)
    raw = [t for t in texts if any(name in t for name in ("catch22_paper", "kmeans", "fafi_cosine", "dataset_pool"))]
    assert not raw, raw


def test_representation_labels_cover_every_builtin_representation():
    from benchdesign.domains import BUILTIN_DOMAINS, REGISTRY

    for domain in BUILTIN_DOMAINS:
        for rep in REGISTRY[domain].representations:
            assert rep in frames.REPRESENTATION_LABELS, f"{domain}/{rep} has no display name"
    assert frames.representation_label("my_features") == "my_features"  # a user's own name as it is
    assert frames.config_label("fafi_cosine", "tsfresh_paper") == "C-FAFI (tsfresh, paper's code)"
