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
           "pair_side_leakage", "no_skill_score", "leakage_table", "performance_table", "protein_representations",
           "summary_markdown"]

SIDE_COLUMNS = ("drug_leakage", "target_leakage")
"""Scaled L(pi) of each side of a pair split (:func:`pair_side_leakage`) in split_leakage.csv; empty for 1-D data."""
LEAKAGE_COLUMNS = ["dataset", "split_method", "repeat", "scaled_leakage", *SIDE_COLUMNS, "n_train", "n_test",
                   "n_dropped", "status", "no_skill_score"]
"""Columns of split_leakage.csv (no timing: the split jobs' times are in logs/benchmarks/)."""
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


def no_skill_score(metric: str, Y_train: np.ndarray, Y_test: np.ndarray) -> float:
    """The test score of a model that learned nothing: every test row predicted with its target's training mean.

    The yardstick a split's model scores are read against: test folds differ in how spread their labels are
    (on DAVIS, a drug-cold test fold holding a few promiscuous drugs has a wider label spread than the fold of
    a two-sided cold split), so a raw RMSE compares splits by their test labels as much as by the models. For
    ``roc_auc`` a constant prediction scores 0.5 wherever both classes are present.

    Parameters
    ----------
    metric : str
        ``"rmse"``, ``"mae"`` or ``"roc_auc"`` (see :func:`benchdesign.molexp.models.score`).
    Y_train, Y_test : numpy.ndarray
        Labels of the training and test fold, (n,) or (n, n_targets), NaN = missing.

    Returns
    -------
    float
        Mean over targets of ``metric``; NaN when no target has a labelled training and test row.

    Examples
    --------
    >>> round(no_skill_score("rmse", np.array([1.0, 3.0]), np.array([0.0, 4.0])), 6)
    2.0
    """
    from benchdesign.molexp.models import score

    y_train = np.asarray(Y_train, dtype=float).reshape(len(Y_train), -1)
    y_test = np.asarray(Y_test, dtype=float).reshape(len(Y_test), -1)
    if y_train.shape[1] != y_test.shape[1]:
        raise ValueError(f"Y_train has {y_train.shape[1]} targets but Y_test has {y_test.shape[1]}")
    labelled = (~np.isnan(y_train)).any(axis=0)
    means = np.full(y_train.shape[1], np.nan)
    means[labelled] = np.nanmean(y_train[:, labelled], axis=0)
    return score(metric, y_test, np.broadcast_to(means, y_test.shape).copy())


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
        if "no_skill_score" in group and not scores.empty:
            row[f"no skill ({scores['metric'].iloc[0]})"] = _mean_sd(group["no_skill_score"])
        for (model, metric), sc in scores.groupby(["model", "metric"], sort=True):
            row[f"{model} ({metric})"] = _mean_sd(sc["value"])
        rows.append(row)
    return pd.DataFrame(rows)


def protein_representations(scores: Iterable[Mapping[str, object]]) -> dict[str, str]:
    """Per 2-D dataset, the protein features its fingerprint models read, from the model records (``+``-joined
    when records of one dataset differ); DeepDTA's records (``sequence``) are left out."""
    seen: dict[str, list[str]] = {}
    for record in scores:
        rep = record.get("protein_representation")
        if rep and rep != "sequence" and rep not in seen.setdefault(str(record["dataset"]), []):
            seen[str(record["dataset"])].append(str(rep))
    return {dataset: "+".join(reps) for dataset, reps in seen.items() if reps}


def summary_markdown(leakage: pd.DataFrame, performance: pd.DataFrame,
                     representations: Mapping[str, str] | None = None) -> str:
    """split_summary.md: one Markdown table per dataset (rows = split methods); under a 2-D dataset's heading,
    the protein features of its models (``representations``, :func:`protein_representations`)."""
    parts = ["# Leakage-reduced splits: scaled L(π) and test scores (mean ± sd over repeats)\n\n"
             "*no skill*: the score of predicting every test row with the training fold's mean label, the yardstick "
             "of the models' scores on that split (test folds differ in how spread their labels are).\n"]
    summary = summary_table(leakage, performance)
    for dataset, table in summary.groupby("dataset", sort=False):
        table = table.drop(columns="dataset").dropna(axis=1, how="all")
        rep = (representations or {}).get(str(dataset))
        said = f"Protein features of the fingerprint models: {rep}.\n\n" if rep else ""
        parts.append(f"\n## {dataset}\n\n{said}" + table.to_markdown(index=False) + "\n")
    return "".join(parts)
