"""benchmarks/selection_goals.py: the rule that chooses select's default, on a hand-built summary table."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "selection_goals.py"


@pytest.fixture(scope="module")
def goals():
    sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("selection_goals", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(domain, design, strategy, features, reading, cls, share5, share10, median=0.9):
    return {
        "domain": domain,
        "design": design,
        "strategy": strategy,
        "features": features,
        "reading": reading,
        "class": cls,
        "share k=5": share5,
        "share k=10": share10,
        "median k=5": median,
        "median k=10": median,
    }


def _table():
    rows = [
        # scores, feature tables averaged within a domain: kmeans (0.7 + 0.3 + 0.5) / 3 = 0.5,
        # kmedoids (0.6 + 0.4 + 0.65) / 3 = 0.55; with the best table per domain kmeans would win (0.633 > 0.567)
        _row("nlp", "random", "kmeans", "metadata", "rank", "a priori", 0.6, 0.8),
        _row("nlp", "random", "kmedoids", "metadata", "rank", "a priori", 0.5, 0.7),
        _row("recsys", "crossfit", "kmeans", "interaction", "rank", "a priori", 0.2, 0.4),
        _row("recsys", "crossfit", "kmedoids", "interaction", "rank", "a priori", 0.3, 0.5),
        _row("tsc", "random", "kmeans", "t1", "rank", "a priori", 0.9, 0.9),
        _row("tsc", "random", "kmeans", "t2", "rank", "a priori", 0.1, 0.1),
        _row("tsc", "random", "kmedoids", "t1", "rank", "a priori", 0.7, 0.7),
        _row("tsc", "random", "kmedoids", "t2", "rank", "a priori", 0.6, 0.6),
        # left out: a random baseline, MMTEB's elimination, an informed row, a secondary design
        *[
            _row(d, g, "random", "none", "rank", "a priori", 1.0, 1.0)
            for d, g in (("nlp", "random"), ("recsys", "crossfit"), ("tsc", "random"))
        ],
        *[
            _row(d, g, "backward_elimination", "oracle", "rank", "informed", 1.0, 1.0)
            for d, g in (("nlp", "random"), ("recsys", "crossfit"), ("tsc", "random"))
        ],
        *[
            _row(d, g, "kmeans", "x+seen", "rank", "informed", 1.0, 1.0)
            for d, g in (("nlp", "random"), ("recsys", "crossfit"), ("tsc", "random"))
        ],
        _row("nlp", "family", "kmeans", "metadata", "rank", "a priori", 1.0, 1.0),
    ]
    for domain, design, features in (
        ("nlp", "random", "metadata"),
        ("recsys", "crossfit", "interaction"),
        ("tsc", "random", "t1"),
    ):
        rows += [
            _row(domain, design, "kmedoids", features, "anchor", "informed", 0.5, 0.5),
            _row(domain, design, "kmedoids", features, "gaussian", "informed", 0.6, 0.6),
            _row(domain, design, "kmeans", features, "mean", "informed", 1.0, 1.0),  # not the chosen strategy
            _row(domain, design, "kmedoids", "x+seen", "mean", "informed", 1.0, 1.0),
        ]  # informed features
    return pd.DataFrame(rows)


def test_default_rule_averages_feature_tables_and_skips_baselines(goals):
    strategies, estimators = goals.choose_default(_table(), [5, 10])
    assert list(strategies.index) == ["kmedoids", "kmeans"]
    assert strategies["score"].tolist() == pytest.approx([0.55, 0.5])
    assert list(estimators.index) == ["gaussian", "anchor"]
    assert estimators["score"].tolist() == pytest.approx([0.6, 0.5])


def test_default_rule_breaks_ties_by_median(goals):
    table = _table()
    rank_rows = (table["reading"] == "rank") & table["strategy"].isin(["kmeans", "kmedoids"])
    table.loc[rank_rows, ["share k=5", "share k=10"]] = 0.5
    table.loc[rank_rows & (table["strategy"] == "kmeans"), ["median k=5", "median k=10"]] = 0.95
    strategies, _ = goals.choose_default(table, [5, 10])
    assert list(strategies.index)[:2] == ["kmeans", "kmedoids"]
    assert strategies.loc["kmeans", "score"] == strategies.loc["kmedoids", "score"]
