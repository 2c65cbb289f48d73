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
