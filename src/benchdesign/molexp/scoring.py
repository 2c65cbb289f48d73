"""Leakage of the experiments' splits and the two result tables of issue 5.

1-D: scaled L(pi) of eq. (20) over the assigned molecules, ECFP4 Tanimoto (as in Fig. 3).
2-D: the same eq. (20) with the kept pairs as data elements and sim(p, p') = (sim_drug + sim_target) / 2
of their drugs and targets (cross-type similarities are 0 in the paper, so each half is the leakage of
one entity type, weighted by how many pairs each entity has in each fold). This also scores the random
pair split R, where one drug can sit in both folds. Each half on its own is the scaled L(pi) of one side
(:func:`pair_side_leakage`), as Fig. 4c, f, i show it per entity type: columns ``drug_leakage`` and
``target_leakage`` of split_leakage.csv (empty for 1-D datasets).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from benchdesign.splitting import SimilaritySource, leakage_summary

__all__ = ["LEAKAGE_COLUMNS", "PERFORMANCE_COLUMNS", "SIDE_COLUMNS", "PairLeakage", "molecule_leakage", "pair_leakage",
           "pair_side_leakage", "leakage_table", "performance_table"]

SIDE_COLUMNS = ("drug_leakage", "target_leakage")
"""Scaled L(pi) of each side of a pair split (:func:`pair_side_leakage`) in split_leakage.csv; empty for 1-D data."""
LEAKAGE_COLUMNS = ["dataset", "split_method", "repeat", "scaled_leakage", *SIDE_COLUMNS, "n_train", "n_test",
                   "n_dropped", "seconds", "status"]
"""Columns of split_leakage.csv."""
PERFORMANCE_COLUMNS = ["dataset", "split_method", "repeat", "model", "metric", "value"]


def molecule_leakage(similarity: SimilaritySource, folds: np.ndarray) -> float:
    """Scaled L(pi) (eq. 20) of a molecule split; molecules with fold -1 are left out."""
    return leakage_summary(similarity, [np.asarray(folds)])[0].scaled


def _entity_fold_counts(index: np.ndarray, folds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (entity, fold) pairs among assigned rows and how many rows each has."""
    keep = folds >= 0
    keys, counts = np.unique(np.stack([index[keep], folds[keep]]), axis=1, return_counts=True)
    return keys[0], keys[1], counts.astype(float)


class PairLeakage(NamedTuple):
    """Scaled L(pi) (eq. 20) of a pair split: of the pairs (both halves) and of each side alone.

    Attributes
    ----------
    pairs : float
        sim(p, p') = (sim_drug + sim_target) / 2 over the kept pairs (:func:`pair_leakage`).
    drug : float
        The drug side: eq. (20) over the drugs, each (drug, fold) weighted by its pairs in that fold.
    target : float
        The target side, likewise.
    """

    pairs: float
    drug: float
    target: float


def _side_sums(similarity: SimilaritySource, index: np.ndarray, folds: np.ndarray) -> tuple[float, float]:
    """L(pi) and the eq. (20) denominator of one side: its (entity, fold) copies weighted by their pairs."""
    entity, fold, count = _entity_fold_counts(np.asarray(index), folds)
    if entity.size == 0:
        return 0.0, 0.0
    s = leakage_summary(similarity.subset(entity), [fold], weights=count)[0]
    return s.leakage, s.total


def pair_side_leakage(drug_similarity: SimilaritySource, target_similarity: SimilaritySource,
                      drug_index: np.ndarray, target_index: np.ndarray, folds: np.ndarray) -> PairLeakage:
    """Scaled L(pi) (eq. 20) of a pair split, of the pairs and of each side; pairs with fold -1 left out.

    A side's entity with pairs in both folds (random pair splits) counts once per fold, weighted by its pairs
    there, so its two copies leak to each other with similarity 1.

    Parameters
    ----------
    drug_similarity, target_similarity : SimilaritySource
        Similarities of the drugs and of the targets.
    drug_index, target_index : np.ndarray
        (n_pairs,) row of each pair's drug and target in those sources.
    folds : np.ndarray
        (n_pairs,) fold per pair (-1: dropped).

    Returns
    -------
    PairLeakage
        Each in [0, 1]; 0 when nothing is assigned.

    Examples
    --------
    >>> from benchdesign.splitting import MatrixSimilarity
    >>> drugs, targets = MatrixSimilarity(np.eye(2)), MatrixSimilarity(np.ones((1, 1)))
    >>> leak = pair_side_leakage(drugs, targets, np.array([0, 1]), np.array([0, 0]), np.array([0, 1]))
    >>> [round(v, 3) for v in leak]  # two unlike drugs, one target in both folds
    [0.333, 0.0, 0.5]
    """
    folds = np.asarray(folds)
    drug_cross, drug_total = _side_sums(drug_similarity, drug_index, folds)
    target_cross, target_total = _side_sums(target_similarity, target_index, folds)
    total = drug_total + target_total
    return PairLeakage(
        pairs=2.0 * (drug_cross + target_cross) / total if total > 0 else 0.0,
        drug=2.0 * drug_cross / drug_total if drug_total > 0 else 0.0,
        target=2.0 * target_cross / target_total if target_total > 0 else 0.0,
    )


def pair_leakage(drug_similarity: SimilaritySource, target_similarity: SimilaritySource,
                 drug_index: np.ndarray, target_index: np.ndarray, folds: np.ndarray) -> float:
    """Scaled L(pi) (eq. 20) of a pair split with sim(p, p') = (sim_drug + sim_target) / 2; fold -1 left out."""
    return pair_side_leakage(drug_similarity, target_similarity, drug_index, target_index, folds).pairs


def leakage_table(records: Iterable[Mapping[str, object]]) -> pd.DataFrame:
    """split_leakage.csv: one row per (dataset, split_method, repeat), sorted."""
    table = pd.DataFrame(list(records), columns=LEAKAGE_COLUMNS)
    return table.sort_values(["dataset", "split_method", "repeat"], kind="stable").reset_index(drop=True)


def performance_table(records: Iterable[Mapping[str, object]]) -> pd.DataFrame:
    """split_performance.csv: one row per (dataset, split_method, repeat, model), sorted."""
    table = pd.DataFrame(list(records), columns=PERFORMANCE_COLUMNS)
    return table.sort_values(["dataset", "split_method", "repeat", "model"], kind="stable").reset_index(drop=True)


def _mean_sd(values: pd.Series) -> str:
    values = values.dropna()
    if values.empty:
        return "n/a"
    return f"{values.mean():.3f} ± {values.std(ddof=1):.3f}" if len(values) > 1 else f"{values.mean():.3f}"


def summary_table(leakage: pd.DataFrame, performance: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, split_method): mean ± sd over repeats of scaled L(pi) and of each model's score; for pair
    splits also of each side's scaled L(pi) and of the pairs dropped (n_dropped)."""
    rows = []
    for (dataset, method), group in leakage.groupby(["dataset", "split_method"], sort=False):
        row = {"dataset": dataset, "split_method": method, "scaled_leakage": _mean_sd(group["scaled_leakage"])}
        sides = [c for c in SIDE_COLUMNS if c in group.columns and group[c].notna().any()]
        for side in sides:  # pair splits only: 1-D rows leave them empty (dropped by summary_markdown)
            row[side] = _mean_sd(group[side])
        if sides and "n_dropped" in group.columns:  # the pairs a 2-D split drops
            row["n_dropped"] = _mean_sd(group["n_dropped"].astype(float))
        scores = performance[(performance["dataset"] == dataset) & (performance["split_method"] == method)]
        for (model, metric), sc in scores.groupby(["model", "metric"], sort=True):
            row[f"{model} ({metric})"] = _mean_sd(sc["value"])
        rows.append(row)
    return pd.DataFrame(rows)


def summary_markdown(leakage: pd.DataFrame, performance: pd.DataFrame) -> str:
    """split_summary.md: one Markdown table per dataset (rows = split methods)."""
    parts = ["# Leakage-reduced splits: scaled L(π) and test scores (mean ± sd over repeats)\n"]
    summary = summary_table(leakage, performance)
    for dataset, table in summary.groupby("dataset", sort=False):
        table = table.drop(columns="dataset").dropna(axis=1, how="all")
        parts.append(f"\n## {dataset}\n\n" + table.to_markdown(index=False) + "\n")
    return "".join(parts)
