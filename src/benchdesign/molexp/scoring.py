"""Leakage of the experiments' splits and the two result tables of issue 5.

1-D: scaled L(pi) of eq. (20) over the assigned molecules, ECFP4 Tanimoto (as in Fig. 3).
2-D: the same eq. (20) with the kept pairs as data elements and sim(p, p') = (sim_drug + sim_target) / 2
of their drugs and targets (cross-type similarities are 0 in the paper, so each half is the leakage of
one entity type, weighted by how many pairs each entity has in each fold). This also scores the random
pair split R, where one drug can sit in both folds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from benchdesign.splitting import SimilaritySource, leakage_summary

__all__ = ["LEAKAGE_COLUMNS", "PERFORMANCE_COLUMNS", "molecule_leakage", "pair_leakage", "no_skill_score",
           "leakage_table", "performance_table", "protein_representations", "summary_markdown"]

LEAKAGE_COLUMNS = ["dataset", "split_method", "repeat", "scaled_leakage", "n_train", "n_test", "n_dropped",
                   "seconds", "status", "no_skill_score"]
PERFORMANCE_COLUMNS = ["dataset", "split_method", "repeat", "model", "metric", "value"]


def molecule_leakage(similarity: SimilaritySource, folds: np.ndarray) -> float:
    """Scaled L(pi) (eq. 20) of a molecule split; molecules with fold -1 are left out."""
    return leakage_summary(similarity, [np.asarray(folds)])[0].scaled


def _entity_fold_counts(index: np.ndarray, folds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (entity, fold) pairs among assigned rows and how many rows each has."""
    keep = folds >= 0
    keys, counts = np.unique(np.stack([index[keep], folds[keep]]), axis=1, return_counts=True)
    return keys[0], keys[1], counts.astype(float)


def pair_leakage(drug_similarity: SimilaritySource, target_similarity: SimilaritySource,
                 drug_index: np.ndarray, target_index: np.ndarray, folds: np.ndarray) -> float:
    """Scaled L(pi) (eq. 20) of a pair split with sim(p, p') = (sim_drug + sim_target) / 2; fold -1 left out."""
    folds = np.asarray(folds)
    cross = total = 0.0
    for sim, index in ((drug_similarity, np.asarray(drug_index)), (target_similarity, np.asarray(target_index))):
        entity, fold, count = _entity_fold_counts(index, folds)
        if entity.size == 0:
            continue
        s = leakage_summary(sim.subset(entity), [fold], weights=count)[0]
        cross += 2.0 * s.leakage
        total += s.total
    return cross / total if total > 0 else 0.0


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
    """Per (dataset, split_method): mean ± sd over repeats of scaled L(pi) and of each model's score."""
    rows = []
    for (dataset, method), group in leakage.groupby(["dataset", "split_method"], sort=False):
        row = {"dataset": dataset, "split_method": method, "scaled_leakage": _mean_sd(group["scaled_leakage"])}
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
