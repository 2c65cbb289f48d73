"""Figures of the molecular experiments: ids shown in words, legends beside the data, the datasets named."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from figure_helpers import figure_texts, overlapping_legends

from benchdesign.molexp import plots
from benchdesign.molexp.datasets import DATASETS
from benchdesign.molexp.methods import ONE_D_METHODS, TWO_D_METHODS
from benchdesign.molexp.settings import MODEL_NAMES
from benchdesign.selection.plotting import save_figure

RAW_IDS = re.compile(r"\b(rf|svm|xgb|hgb|mlp|deepdta|s1|s2|i2|datasail_s1|i1_drug|s1_target|qm8|tox21|sr_are|esol|davis)\b")


def split_tables(dataset: str, methods: list[str], models=("rf", "xgb", "hgb", "mlp")) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(0)
    leakage = pd.DataFrame([(dataset, m, r, rng.uniform(0, 1)) for m in methods for r in range(3)],
                           columns=["dataset", "split_method", "repeat", "scaled_leakage"])
    performance = pd.DataFrame([(dataset, m, r, model, "mae", rng.uniform(0.5, 1)) for m in methods
                                for r in range(3) for model in models],
                               columns=["dataset", "split_method", "repeat", "model", "metric", "value"])
    return leakage, performance


def test_every_id_has_a_display_name():
    assert set(DATASETS) <= set(plots.DATASET_LABELS)
    assert set(ONE_D_METHODS) | set(TWO_D_METHODS) <= set(plots.METHOD_LABELS)
    assert set(MODEL_NAMES) <= set(plots.MODEL_LABELS)
    assert plots.method_label("s1", "davis") == "S1 drugs" and plots.method_label("s1", "qm8") == "S1"


def test_performance_figure_in_words_with_its_legend_below_the_bars(tmp_path):
    leakage, performance = split_tables("qm8", ["random", "s1", "datasail_s1", "scaffold"])
    fig = plots.performance_figure(leakage, performance, "qm8")
    texts = figure_texts(fig)
    assert not [t for t in texts if RAW_IDS.search(t)], [t for t in texts if RAW_IDS.search(t)]
    for name in ("random forest", "XGBoost", "HistGradientBoosting", "MLP", "S1", "datasail's S1"):
        assert name in texts
    assert fig.get_suptitle().startswith("QM8: ")
    assert overlapping_legends(fig) == []
    _, pdf = save_figure(fig, tmp_path / "molecules_qm8")
    assert b"/Type3" not in pdf.read_bytes()


def test_pairs_figure_names_the_split_side():
    leakage, performance = split_tables("davis", ["random", "i1_drug", "s1", "s1_target", "s2"])
    texts = figure_texts(plots.performance_figure(leakage, performance, "davis"))
    assert {"random pairs", "I1 drugs", "S1 drugs", "S1 targets", "S2"} <= set(texts)
    assert "DAVIS: model performance and information leakage per split" in texts


def test_tsne_legends_lie_below_the_points():
    embedding = np.random.default_rng(1).normal(size=(40, 2))
    folds = np.array(["train"] * 30 + ["test"] * 10)
    fig = plots.tsne_figure(embedding, [("random", folds), ("S1", folds[::-1])], "Tox21: t-SNE")
    assert overlapping_legends(fig) == []


@pytest.fixture
def ablation_tables() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    clusters = pd.DataFrame([("tox21", "s1", k, solver, 100, 0.1 * k / 50, 0.5 * k, "ok")
                             for solver in ("HIGHS", "SCIP") for k in (10, 50)],
                            columns=["dataset", "method", "clusters", "solver", "n_molecules", "scaled_leakage",
                                     "seconds", "status"])
    margins = pd.DataFrame([("sr_are", "s1", e, d, 100, e + d, 1.0, "ok") for e in (0.05, 0.2) for d in (0.05, 0.2)],
                           columns=["dataset", "method", "epsilon", "delta", "n_molecules", "scaled_leakage",
                                    "seconds", "status"])
    size = pd.DataFrame([(d, m, n, 0.1, n / 100, "ok") for d, n in (("esol", 1100), ("freesolv", 640))
                         for m in ("s1", "datasail_s1", "scaffold")],
                        columns=["dataset", "method", "n_molecules", "scaled_leakage", "seconds", "status"])
    return clusters, margins, size


def test_fig6_names_its_datasets_and_methods_in_words(ablation_tables):
    fig = plots.ablation_figure(*ablation_tables)
    title = " ".join(fig.get_suptitle().split())
    assert "a, b: Tox21" in title and "c: Tox21 SR-ARE" in title and "d: ESOL, FreeSolv" in title
    texts = figure_texts(fig)
    assert {"S1", "datasail's S1", "scaffold", "HIGHS", "SCIP"} <= set(texts)
    assert not [t for t in texts if RAW_IDS.search(t)]
    assert overlapping_legends(fig) == []


def _points_by_fold(ax) -> dict[str, int]:
    """Points drawn in one t-SNE panel per fold name (each fold is one scatter, labelled "<fold> (<n>)")."""
    return {c.get_label().split(" (")[0]: len(c.get_offsets()) for c in ax.collections}


def _colour_of(ax, fold: str) -> tuple:
    from matplotlib.colors import to_rgb

    (collection,) = [c for c in ax.collections if c.get_label().startswith(f"{fold} (")]
    return to_rgb(collection.get_facecolor()[0][:3])


def test_pairs_figure_shows_the_leakage_of_each_side():
    """A pair dataset's figure has one leakage panel per side (Fig. 4c, f, i), each bar the side's mean over the
    repeats, in the order of the splits; a 1-D dataset keeps its one panel of scaled L(π)."""
    methods = ["random", "s1", "s1_target", "s2"]
    leakage, performance = split_tables("davis", methods)
    leakage["drug_leakage"] = [0.9, 0.8, 0.7, 0.2, 0.2, 0.2, 0.6, 0.6, 0.6, 0.1, 0.1, 0.1]
    leakage["target_leakage"] = leakage["drug_leakage"][::-1].to_numpy()
    fig = plots.performance_figure(leakage, performance, "davis")
    by_title = {ax.get_title(): ax for ax in fig.axes}
    assert {"drug side", "target side"} <= set(by_title)
    for side, column in (("drug side", "drug_leakage"), ("target side", "target_leakage")):
        heights = [p.get_height() for p in by_title[side].patches]
        assert heights == pytest.approx(leakage.groupby("split_method", sort=False)[column].mean().to_list())
        assert [t.get_text() for t in by_title[side].get_xticklabels()] == ["random pairs", "S1 drugs",
                                                                            "S1 targets", "S2"]
    assert overlapping_legends(fig) == []
    one_d, perf = split_tables("qm8", ["random", "s1"])
    one_d["drug_leakage"] = one_d["target_leakage"] = np.nan  # the columns of a 1-D dataset are empty
    fig = plots.performance_figure(one_d, perf, "qm8")
    assert len(fig.axes) == 2 and not {"drug side", "target side"} & set(figure_texts(fig))


def test_tsne_grid_draws_each_fold_in_its_colour():
    embedding = np.arange(12.0).reshape(6, 2)
    labels = np.array(["train", "train", "test", "unassigned", "unassigned", "both"])
    fig = plots.tsne_grid([("drugs", embedding, [("S2", labels), ("random", labels[::-1])]),
                           ("proteins", embedding[:3], [("S2", labels[:3])])], "DAVIS: t-SNE")
    drugs_s2, drugs_random, proteins_s2, hidden = fig.axes
    assert _points_by_fold(drugs_s2) == {"train": 2, "test": 1, "unassigned": 2, "both": 1}
    assert _points_by_fold(proteins_s2) == {"train": 2, "test": 1} and not hidden.get_visible()
    assert _colour_of(drugs_s2, "unassigned") == pytest.approx((0.78, 0.78, 0.78), abs=0.01)  # grey
    colours = {_colour_of(drugs_s2, f) for f in ("train", "test", "unassigned", "both")}
    assert len(colours) == 4
    assert drugs_s2.get_title() == "drugs\nS2" and proteins_s2.get_title() == "proteins\nS2"
    assert overlapping_legends(fig) == []


def _tiny_pairs():
    """6 drugs x 3 targets, every pair; drug d3's pairs are all dropped by the S2-like split below."""
    from benchdesign.molexp.datasets import dataset_info
    from benchdesign.molexp.experiment import ExperimentData

    rng = np.random.default_rng(0)
    di, ti = np.repeat(np.arange(6), 3), np.tile(np.arange(3), 6)
    samples = pd.DataFrame({"id": [f"P{i}" for i in range(18)], "drug_id": [f"D{d}" for d in di],
                            "target_id": [f"T{t}" for t in ti], "label": rng.normal(size=18)})
    molecules = pd.DataFrame({"id": [f"D{d}" for d in range(6)], "smiles": ["C"] * 6})
    proteins = pd.DataFrame({"id": ["T0", "T1", "T2"], "sequence": ["MKV", "MKA", "GGG"]})
    bits = (rng.random((6, 64)) < 0.3).astype(np.uint8)
    bits[:, 0] = 1  # no empty fingerprint
    data = ExperimentData(dataset_info("davis"), samples, molecules, bits, di, proteins,
                          rng.normal(size=(3, 8)).astype(np.float32), ti)
    s2 = np.where((di < 3) & (ti < 2), 0, np.where((di >= 4) & (ti == 2), 1, -1))
    random = rng.integers(0, 2, 18)
    return data, {"random": random, "s2": s2}


def test_split_tsne_figure_draws_drugs_and_proteins_with_dropped_ones_grey():
    data, folds = _tiny_pairs()
    fig = plots.split_tsne_figure(data, folds, max_points=100, seed=1)
    drugs_random, drugs_s2, proteins_random, proteins_s2 = fig.axes
    assert drugs_s2.get_title() == "6 drugs (ECFP4, Tanimoto)\nS2"
    assert proteins_s2.get_title() == "3 proteins (protein features, Euclidean)\nS2"
    # S2: d0-d2 train, d4, d5 test, d3 every pair dropped; targets t0, t1 train, t2 test
    assert _points_by_fold(drugs_s2) == {"train": 3, "test": 2, "unassigned": 1}
    assert _points_by_fold(proteins_s2) == {"train": 2, "test": 1}
    # random pairs: an entity with pairs in both folds is "both"
    di, random = data.molecule_index, folds["random"]
    both = sum(len(set(random[di == d])) == 2 for d in range(6))
    assert both > 0 and _points_by_fold(drugs_random).get("both", 0) == both
    assert sum(_points_by_fold(proteins_random).values()) == 3
    assert "grey: every pair of the entity dropped" in " ".join(fig.get_suptitle().split())
