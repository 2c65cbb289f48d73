"""One dataset of the molecular experiments in memory, and the two job kinds run on it: a split
(folds + scaled L(pi) + seconds) and a model fit (test score on one split)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.molexp.datasets import MolDataset, dataset_info
from benchdesign.molexp.features import pair_features
from benchdesign.molexp.methods import repeat_seed, split_molecules, split_pairs
from benchdesign.molexp.scoring import molecule_leakage, no_skill_score, pair_side_leakage
from benchdesign.splitting import FingerprintSimilarity, SimilaritySource, SplitResult
from benchdesign.splitting.options import DEFAULT_SEQUENCE_SIMILARITY, SEQUENCE_SIMILARITIES
from benchdesign.splitting.tasks import UNASSIGNED

__all__ = ["ExperimentData", "load_experiment", "run_molecule_split", "read_folds", "run_model", "FOLD_NAMES",
           "GRAPH_MODEL", "PAIR_MODEL", "experiment_from_molecules", "entity_fold_labels", "fold_labels",
           "target_similarity"]

FOLD_NAMES = ("train", "test")
COMPETITOR_TOOLS = ("lohi", "datasail_s1", "lohi_drug", "graphpart_target")
"""Peer tools whose failure, time-out or missing package is recorded in the split's status, not raised."""
GRAPH_MODEL = "dmpnn"
"""The optional chemprop D-MPNN (extra ``chemprop``): reads SMILES, not fingerprints."""
PAIR_MODEL = "deepdta"
"""The optional DeepDTA (torch): reads each pair's SMILES string and amino-acid sequence; drug-target pairs only."""


@dataclass(frozen=True)
class ExperimentData:
    """samples : the dataset's rows; molecule_bits : ECFP4 per molecule; molecule_index : sample -> molecule
    row; for 2-D data also proteins (id, sequence), protein_features, protein_index and protein_representation
    (``molecules.protein_representation`` of the feature job: composition or esm2_t12)."""

    info: MolDataset
    samples: pd.DataFrame
    molecules: pd.DataFrame
    molecule_bits: np.ndarray
    molecule_index: np.ndarray
    proteins: pd.DataFrame
    protein_features: np.ndarray
    protein_index: np.ndarray | None
    protein_representation: str = ""

    def labels(self) -> np.ndarray:
        """(n_samples, n_targets) float labels, NaN = missing."""
        return self.samples[list(self.info.targets)].to_numpy(dtype=float)

    def features(self) -> np.ndarray:
        """Model input per sample: ECFP4 bits (1-D) or drug bits + protein features (2-D)."""
        if self.protein_index is None:
            return self.molecule_bits[self.molecule_index].astype(np.float32)
        return pair_features(self.molecule_bits, self.protein_features, self.molecule_index, self.protein_index)


def _index(ids: pd.Series, table: pd.DataFrame, what: str, path: object) -> np.ndarray:
    position = pd.Series(np.arange(len(table)), index=table["id"].astype(str))
    missing = ~ids.astype(str).isin(position.index)
    if missing.any():
        raise ValueError(f"{path}: {what} {ids[missing].iloc[0]!r} (and {int(missing.sum()) - 1} more) "
                         f"not in the {what} table")
    return position.loc[ids.astype(str)].to_numpy()


def load_experiment(dataset: str, samples: str | Path, molecules: str | Path, proteins: str | Path,
                    features: str | Path) -> ExperimentData:
    """Read the tables written by the dataset and feature rules."""
    info = dataset_info(dataset)
    sample_table = pd.read_csv(samples, dtype={"id": str, "drug_id": str, "target_id": str})
    molecule_table = pd.read_csv(molecules, dtype={"id": str})
    protein_table = pd.read_csv(proteins, dtype={"id": str})
    with np.load(features, allow_pickle=False) as npz:
        bits, prot = npz["molecule_bits"], npz["protein_features"]
        # a file written before the key was recorded holds composition features, the only kind then
        representation = str(npz["protein_representation"]) if "protein_representation" in npz.files else "composition"
    if len(bits) != len(molecule_table):
        raise ValueError(f"{features}: {len(bits)} fingerprints for {len(molecule_table)} molecules in {molecules}")
    if info.kind == "1d":
        mol_index = _index(sample_table["id"], molecule_table, "molecule", samples)
        prot_index = None
    else:
        mol_index = _index(sample_table["drug_id"], molecule_table, "drug", samples)
        prot_index = _index(sample_table["target_id"], protein_table, "target", samples)
    return ExperimentData(info, sample_table, molecule_table, bits, mol_index, protein_table, prot, prot_index,
                          representation if prot_index is not None else "")


def experiment_from_molecules(info: MolDataset, table: pd.DataFrame, bits: np.ndarray) -> ExperimentData:
    """ExperimentData of a 1-D dataset held in memory (table from load_molecules, bits per row)."""
    if info.kind != "1d":
        raise ValueError(f"dataset {info.name!r} is 2-D; build it with load_experiment")
    no_proteins = pd.DataFrame(columns=["id", "sequence"])
    return ExperimentData(info, table, table[["id", "smiles"]], bits, np.arange(len(table)), no_proteins,
                          np.zeros((0, 0), np.float32), None)


def _classes(data: ExperimentData) -> np.ndarray | None:
    """Class membership for a stratified dataset: one column per label value of its single target."""
    if not data.info.stratify:
        return None
    y = data.labels()[:, 0]
    values = np.unique(y[~np.isnan(y)])
    return np.stack([y == v for v in values], axis=1)


def target_similarity(data: ExperimentData, method: str = DEFAULT_SEQUENCE_SIMILARITY) -> SimilaritySource:
    """The similarity of a 2-D dataset's targets (``molecules.protein_similarity``): ``mmseqs`` (MMseqs2 identity at
    80 % coverage of both sequences, the default; :func:`benchdesign.splitting.mmseqs.mmseqs_similarity`, cached
    on disk), ``alignment`` (Smith-Waterman identity of k-mer prefiltered pairs) or ``kmer`` (3-mer cosine).

    The splits of the targets (``s1_target``, ``i2`` / ``s2``'s target side) use it, and every 2-D split's
    ``target_leakage`` is measured on it."""
    from benchdesign.splitting.mmseqs import protein_similarity

    if method not in SEQUENCE_SIMILARITIES:
        raise ValueError(f"protein_similarity must be one of {', '.join(SEQUENCE_SIMILARITIES)}, got {method!r}")
    return protein_similarity(data.proteins["sequence"].tolist(), method)


def run_molecule_split(data: ExperimentData, method: str, repeat: int, fractions: Sequence[float], seed: int,
                       options: Mapping[str, object]) -> tuple[np.ndarray, dict]:
    """Folds of one (method, repeat) split and its record for split_leakage.csv (+ status and report).

    A competitor tool (LoHi, datasail) is skipped when the data has more molecules than
    ``options['max_molecules']`` or its package is missing, recorded as ``timeout`` when it exceeds its time
    limit and as ``failed`` when it finds no split; then every sample is unassigned and scaled_leakage is NaN.
    For pairs the record also holds each side's scaled L(pi) (``drug_leakage``, ``target_leakage``; NaN for 1-D
    data), the targets' similarity being ``options['protein_similarity']`` (:func:`target_similarity`; default
    MMseqs2), which the record names (``protein_similarity``; empty for 1-D data).
    """
    from benchdesign.molexp.peers import PeerError, PeerTimeout

    seed_r = repeat_seed(seed, data.info.name, method, repeat)
    n_mol = len(data.proteins) if method == "graphpart_target" else len(data.molecules)  # the side split
    record = {"dataset": data.info.name, "split_method": method, "repeat": repeat, "seed": seed_r}
    folds = np.full(len(data.samples), -1, dtype=np.int64)
    limit = options.get("max_molecules")
    method_options = {k: v for k, v in options.items() if k not in ("max_molecules", "protein_similarity")}
    protein_kind = str(options.get("protein_similarity") or DEFAULT_SEQUENCE_SIMILARITY)
    if data.protein_index is not None:
        record["protein_similarity"] = protein_kind
    drug_sim = FingerprintSimilarity(data.molecule_bits)
    start = time.perf_counter()
    status, report = "ok", {}
    if limit is not None and n_mol > int(limit):
        what = "targets" if method == "graphpart_target" else "molecules"
        status = f"skipped: {n_mol} {what} > max_peer_molecules {limit}"
    else:
        try:
            if data.protein_index is None:
                smiles = data.molecules["smiles"].tolist()
                folds, report = split_molecules(method, smiles, drug_sim, _classes(data), fractions, seed_r,
                                                method_options)
            else:
                target_sim = target_similarity(data, protein_kind)
                folds, report = split_pairs(method, data.molecule_index, data.protein_index, drug_sim, target_sim,
                                            fractions, seed_r, method_options,
                                            drug_smiles=data.molecules["smiles"].tolist(),
                                            target_sequences=data.proteins["sequence"].tolist())
        except PeerTimeout as exc:
            status = f"timeout: {exc}"
        except (ImportError, PeerError, TimeoutError, ValueError) as exc:
            if method not in COMPETITOR_TOOLS:
                raise
            missing = isinstance(exc, ImportError)  # the tool's optional extra is not installed
            status = f"skipped: {exc}" if missing else f"failed: {type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    folds = np.asarray(folds, dtype=np.int64)
    nan = float("nan")
    leak, drug_leak, target_leak = nan, nan, nan  # NaN: 1-D data has no sides; a split not made has no leakage
    if status == "ok":
        if data.protein_index is None:
            leak = molecule_leakage(drug_sim, folds)
        else:
            leak, drug_leak, target_leak = pair_side_leakage(drug_sim, target_sim, data.molecule_index,
                                                             data.protein_index, folds)
    record.update(scaled_leakage=leak, drug_leakage=drug_leak, target_leakage=target_leak,
                  n_train=int((folds == 0).sum()), n_test=int((folds == 1).sum()),
                  n_dropped=int((folds < 0).sum()), seconds=seconds, status=status, report=report,
                  no_skill_score=_no_skill(data, folds))
    return folds, record


def _no_skill(data: ExperimentData, folds: np.ndarray) -> float:
    """The split's yardstick: the test score of predicting the training fold's mean label (NaN without both folds)."""
    train, test = folds == 0, folds == 1
    if not train.any() or not test.any():
        return float("nan")
    labels = data.labels()
    return no_skill_score(data.info.metric, labels[train], labels[test])


def fold_labels(folds: np.ndarray) -> np.ndarray:
    """Fold index -> name (train/test), -1 -> unassigned (as the splitting library writes them)."""
    folds = np.asarray(folds)
    return SplitResult(folds, np.full(folds.shape, "", dtype=object), FOLD_NAMES).labels()


def read_folds(path: str | Path, sample_ids: Sequence[str]) -> np.ndarray:
    """Fold index per sample from a split TSV (id, split), in the order of ``sample_ids``."""
    table = pd.read_csv(path, sep="\t", dtype={"id": str, "split": str}, keep_default_na=False)
    if list(table.columns[:2]) != ["id", "split"]:
        raise ValueError(f"{path}: expected columns id, split; found {', '.join(table.columns)}")
    codes = {name: i for i, name in enumerate(FOLD_NAMES)} | {UNASSIGNED: -1}
    bad = ~table["split"].isin(list(codes))
    if bad.any():
        raise ValueError(f"{path}: unknown split {table.loc[bad, 'split'].iloc[0]!r} "
                         f"(row {int(np.flatnonzero(bad)[0]) + 2}); expected one of {', '.join(codes)}")
    by_id = dict(zip(table["id"], table["split"].map(codes)))
    missing = [i for i in sample_ids if i not in by_id]
    if missing:
        raise ValueError(f"{path}: no split for sample {missing[0]!r} ({len(missing)} missing)")
    return np.array([by_id[i] for i in sample_ids], dtype=np.int64)


def model_overrides(options: Mapping[str, object], task_type: str) -> dict:
    """Estimator settings of one model for one task type: the shared keys, then those under
    ``regression:`` / ``classification:`` (e.g. ``rf: {n_estimators: 100, regression: {max_features: sqrt}}``)."""
    shared = {k: v for k, v in options.items() if k not in ("regression", "classification")}
    return shared | dict(options.get(task_type) or {})


def run_model(data: ExperimentData, folds: np.ndarray, model: str, seed: int,
              options: Mapping[str, object]) -> dict:
    """Fit ``model`` (one of models.MODELS, GRAPH_MODEL or, for drug-target pairs, PAIR_MODEL) on the training
    fold, score it on the test fold with the dataset's metric. For drug-target pairs the record says which
    protein features the model read (``protein_representation``; DeepDTA reads the sequences)."""
    from benchdesign.molexp.models import fit_predict, score

    train, test = np.flatnonzero(folds == 0), np.flatnonzero(folds == 1)
    out = {"dataset": data.info.name, "model": model, "metric": data.info.metric,
           "n_train": int(train.size), "n_test": int(test.size)}
    if data.protein_index is not None:
        out["protein_representation"] = "sequence" if model == PAIR_MODEL else data.protein_representation
    if train.size == 0 or test.size == 0:
        return out | {"value": float("nan"), "seconds": 0.0, "status": "no split: empty training or test fold"}
    if model == PAIR_MODEL and data.protein_index is None:
        raise ValueError(f"model {PAIR_MODEL!r} needs drug-target pairs; dataset {data.info.name!r} has molecules only")
    Y, overrides = data.labels(), model_overrides(options, data.info.task_type)
    start = time.perf_counter()
    if model == GRAPH_MODEL:
        from benchdesign.molexp.dmpnn import fit_predict_dmpnn

        smiles = data.molecules["smiles"].to_numpy(dtype=object)[data.molecule_index]
        extra = None if data.protein_index is None else data.protein_features[data.protein_index]
        pred = fit_predict_dmpnn(data.info.task_type, smiles[train].tolist(), Y[train], smiles[test].tolist(),
                                 seed=seed, extra_train=None if extra is None else extra[train],
                                 extra_test=None if extra is None else extra[test], **overrides)
    elif model == PAIR_MODEL:
        from benchdesign.molexp.deepdta import fit_predict_deepdta

        smiles = data.molecules["smiles"].to_numpy(dtype=object)[data.molecule_index]
        sequences = data.proteins["sequence"].to_numpy(dtype=object)[data.protein_index]
        pred = fit_predict_deepdta(data.info.task_type, smiles[train].tolist(), sequences[train].tolist(), Y[train],
                                   smiles[test].tolist(), sequences[test].tolist(), seed=seed, **overrides)
    else:
        X = data.features()
        pred = fit_predict(model, data.info.task_type, X[train], Y[train], X[test], seed=seed, **overrides)
    value = score(data.info.metric, Y[test], pred)
    return out | {"value": float(value), "seconds": time.perf_counter() - start, "status": "ok"}


def entity_fold_labels(entity_index: np.ndarray, folds: np.ndarray, n_entities: int) -> np.ndarray:
    """Fold name per entity from its samples' folds: train / test when all its assigned samples agree,
    "both" when they do not, "unassigned" when it has none (e.g. every pair dropped)."""
    labels = np.full(n_entities, UNASSIGNED, dtype=object)
    assigned = folds >= 0
    for fold, name in enumerate(FOLD_NAMES):
        has = np.bincount(entity_index[assigned & (folds == fold)], minlength=n_entities) > 0
        labels[has & (labels == UNASSIGNED)] = name
        labels[has & (labels != name) & (labels != UNASSIGNED)] = "both"
    return labels
