"""Leakage of an existing split (made by any tool): the engine of ``benchdesign leakage``.

Given the entities (with their similarity) and a table of (id, fold) rows, reports
- L(pi) of eq. (2) and scaled L(pi) of eq. (20) ([`leakage_summary`][]),
- for each evaluated test fold, statistics of the eq. (1) summand max_{x' in train} sim(x, x') over
  its samples x (mean = eq. (1) itself, median, quantiles, min, max),
all computed tile by tile (no n x n matrix). Entities of the table that the split file does not list,
or lists as unassigned, belong to no fold and are left out of every sum.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchdesign.splitting.inputs import entities_from_table, load_matrix, read_table
from benchdesign.splitting.leakage import (
    UNASSIGNED_LABELS,
    _save_npz,
    encode_folds,
    leakage_shard,
    leakage_summary,
    max_train_similarity,
    sampled_leakage,
)
from benchdesign.splitting.options import DEFAULT_QUANTILES, DEFAULT_SEQUENCE_SIMILARITY
from benchdesign.splitting.pipeline import PairInputs, PairTables, _usage_lines, load_pairs, similarity_entry
from benchdesign.splitting.sequences import sequence_note_lines
from benchdesign.splitting.similarity import FingerprintSimilarity, describe_similarity, describe_text
from benchdesign.splitting.tasks import KFOLD_NAME, EntitySet, SplitResult, fold_usage

__all__ = [
    "DEFAULT_QUANTILES",
    "check_fold_names",
    "fold_labels_for_entities",
    "max_similarity_stats",
    "evaluate_split",
    "evaluate_split_files",
    "compare_split_files",
    "format_report",
    "format_comparison",
    "read_split_inputs",
    "split_codes",
    "leakage_shard_files",
    "leakage_shard_inputs",
    "leakage_shard_from_inputs",
    "PairSplit",
    "read_pair_split",
    "entity_folds_from_pairs",
    "evaluate_pair_split",
    "evaluate_pair_split_files",
    "format_pair_report",
]

DEFAULT_SAMPLE_TEST = 1000  # with --sample: test entities whose eq. (1) maxima are computed exactly


def fold_labels_for_entities(
    entity_ids: Sequence[object], split_ids: Sequence[object], split_labels: Sequence[object]
) -> tuple[np.ndarray, int]:
    """Fold label per entity (None where the split does not list it) and the count of such entities.

    Raises ValueError naming split ids that are missing from the entity table, or listed twice.
    """
    if len(split_ids) != len(split_labels):
        raise ValueError(f"split has {len(split_ids)} ids but {len(split_labels)} labels")
    pos = split_positions(entity_ids, split_ids)
    labels = np.full(len(entity_ids), None, dtype=object)
    labels[pos] = np.asarray(split_labels, dtype=object)
    return labels, int(len(entity_ids) - len(pos))


def _listed(values: np.ndarray) -> str:
    return ", ".join(map(str, values[:10])) + (" ..." if values.size > 10 else "")


def split_positions(row_ids: Sequence[object], split_ids: Sequence[object], where: str = "split file",
                    table: str = "the entity table", hint: str = "--id-col / --split-id-col") -> np.ndarray:
    """Row of ``row_ids`` of each split id (ids compared as stripped strings).

    Raises ValueError (prefixed ``where``) naming split ids listed twice or missing from ``table``.
    """
    ids = pd.Index([str(i).strip() for i in row_ids])
    sid = pd.Series([str(i).strip() for i in split_ids])
    dup = sid[sid.duplicated()].unique()
    if dup.size:
        raise ValueError(f"{where}: {dup.size} ids listed more than once: {_listed(dup)}")
    pos = pd.Series(np.arange(len(ids)), index=ids).reindex(sid.to_numpy())
    unknown = pos.isna().to_numpy()
    if unknown.any():
        bad = sid.to_numpy()[unknown]
        raise ValueError(f"{where}: {bad.size} ids are not in {table}: {_listed(bad)} (check {hint})")
    return pos.to_numpy().astype(np.int64)


def check_fold_names(split_labels: Sequence[object], folds: Sequence[str] | None = None) -> None:
    """Refuse fold labels outside ``folds`` (when given), or differing only in case / spaces (when not).

    Unassigned labels (``UNASSIGNED_LABELS``, missing) are always allowed.
    """
    labels = pd.Series(split_labels, dtype=object)
    assigned = labels[~labels.isna()].astype(str)
    assigned = assigned[~assigned.str.strip().str.lower().isin(UNASSIGNED_LABELS)]
    if folds is not None:
        unknown = assigned[~assigned.isin([str(f) for f in folds])]
        if len(unknown):
            names = sorted(unknown.unique())
            raise ValueError(f"split file: fold name(s) {names} are not among the expected folds {list(folds)} "
                             f"(--fold-names); {len(unknown)} rows, first at row {int(unknown.index[0])}")
        return
    groups: dict[str, set[str]] = {}
    for name in assigned.unique():
        groups.setdefault(name.strip().lower(), set()).add(name)
    clash = [sorted(v) for v in groups.values() if len(v) > 1]
    if clash:
        raise ValueError(f"split file: fold names {clash[0]} differ only in case or spaces; fix the file, or list "
                         "the intended fold names with --fold-names")


def max_similarity_stats(values: np.ndarray, quantiles: Sequence[float] = DEFAULT_QUANTILES) -> dict:
    """Summary of the per-test-sample max-train similarities; ``mean`` is eq. (1)."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        raise ValueError("no values to summarise")
    q = [float(x) for x in quantiles]
    if any(not 0 <= x <= 1 for x in q):
        raise ValueError(f"quantiles must lie in [0, 1], got {q}")
    return {
        "n_test": int(v.size),
        "mean": float(v.mean()),
        "median": float(np.median(v)),
        "std": float(v.std()),
        "min": float(v.min()),
        "max": float(v.max()),
        "quantiles": {f"{x:g}": float(np.quantile(v, x)) for x in q},
    }


def evaluate_split(
    entities: EntitySet,
    split_ids: Sequence[object],
    split_labels: Sequence[object],
    test: Sequence[str] | None = None,
    train: Sequence[str] | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    block_size: int | None = None,
    folds: Sequence[str] | None = None,
    sample: int | None = None,
    confidence: float = 0.95,
    seed: int = 0,
    sample_test: int = DEFAULT_SAMPLE_TEST,
    smiles: Sequence[str] | None = None,
    random_seed: int = 0,
    summary: bool = True,
    scaffold_baseline: bool = False,
) -> dict:
    """Leakage report of a split of ``entities`` given as (id, fold label) pairs.

    A split with fewer than two folds is refused (its leakage would be 0 by definition). Invalid entities
    (kept out of the similarity) and entities unassigned or not listed are left out, and counted.

    Parameters
    ----------
    entities : EntitySet
        The entities and their similarity (over the valid entities).
    split_ids : Sequence[object]
        The entity id of each row of the split file.
    split_labels : Sequence[object]
        The fold label of each row; unassigned labels ("unassigned", "") and entities not listed belong to no
        fold.
    test : Sequence[str] | None
        Fold names whose eq. (1) statistics are reported (None: every fold).
    train : Sequence[str] | None
        Training folds for eq. (1) (None: all folds other than the test fold).
    quantiles : Sequence[float]
        Quantiles of the eq. (1) nearest-neighbour similarities.
    block_size : int | None
        Tile size of the exact pair sums (None: the default).
    folds : Sequence[str] | None
        The fold names the split may use; any other label is an error. Without it, labels that differ only in
        case or surrounding spaces (``Test`` beside ``test``) are an error.
    sample : int | None
        Estimate L(pi) and scaled L(pi) from this many random pairs, with ``confidence`` intervals
        ([`sampled_leakage`][], seeded by ``seed``) instead of all pairs, and the eq. (1) statistics from
        ``sample_test`` random test entities per fold.
    confidence : float
        Level of the sampled intervals.
    seed : int
        Seed of the sampled estimate.
    sample_test : int
        Test entities per fold sampled for eq. (1).
    smiles : Sequence[str] | None
        SMILES of the valid entities: the summary block names them molecules.
    random_seed : int
        Seed of the summary block's random splits of the same fold sizes.
    summary : bool
        Add the summary block (``report["summary"]``, as in ``benchdesign split``).
    scaffold_baseline : bool
        With ``smiles``: the summary block adds a Bemis-Murcko scaffold split of the same fractions.
    Returns
    -------
    dict
        The report (JSON-serialisable).

    Examples
    --------
    Two pairs of similar entities (0.8 and 0.6). Kept together, nothing crosses the folds; split up, both
    pairs do, and each test entity's nearest training entity is its partner (eq. 1: the mean of 0.8 and 0.6):

    >>> import numpy as np
    >>> from benchdesign.splitting import EntitySet, MatrixSimilarity, evaluate_split
    >>> sim = MatrixSimilarity(np.array([[1.0, 0.8, 0.0, 0.0], [0.8, 1.0, 0.0, 0.0],
    ...                                  [0.0, 0.0, 1.0, 0.6], [0.0, 0.0, 0.6, 1.0]]))
    >>> entities = EntitySet(np.array(["a", "b", "c", "d"]), np.ones(4, dtype=bool), sim)
    >>> report = evaluate_split(entities, ["a", "b", "c", "d"], ["train", "train", "test", "test"], summary=False)
    >>> report["fold_sizes"], report["leakage"], report["max_train_similarity"]["test"]["mean"]
    ({'train': 2, 'test': 2}, 0.0, 0.0)
    >>> report = evaluate_split(entities, ["a", "b", "c", "d"], ["train", "test", "train", "test"], summary=False)
    >>> [round(report[key], 3) for key in ("leakage", "total_similarity", "scaled_leakage")]
    [1.4, 6.8, 0.412]
    >>> round(report["max_train_similarity"]["test"]["mean"], 3)
    0.7
    """
    if entities.similarity is None:
        raise ValueError("the entity table needs a representation (SMILES, sequences, features or a matrix)")
    check_fold_names(split_labels, folds)
    labels, n_unlisted = fold_labels_for_entities(entities.ids, split_ids, split_labels)
    valid = np.asarray(entities.valid, dtype=bool)
    codes_all, _ = encode_folds(labels)
    n_invalid_assigned = int(((codes_all >= 0) & ~valid).sum())
    codes, names = encode_folds(labels[valid])
    if (codes >= 0).sum() == 0:
        raise ValueError("no valid entity of the table is assigned to a fold by the split file")
    fold_names = [str(x) for x in names]
    if len(fold_names) < 2:
        raise ValueError(f"the split assigns the valid entities to {len(fold_names)} fold ({fold_names}); leakage "
                         "needs at least two folds (check --split-col, or the file is not a split)")
    kwargs = {} if block_size is None else {"block_size": block_size}
    report: dict = {
        "n_entities": int(len(entities.ids)),
        "n_valid": int(valid.sum()),
        "n_assigned": int((codes >= 0).sum()),
        "n_not_in_split": n_unlisted,
        "n_invalid_assigned": n_invalid_assigned,
        "fold_sizes": {f: int((codes == i).sum()) for i, f in enumerate(fold_names)},
        "similarity": describe_similarity(entities.similarity),
    }
    cert = _certificate(entities.similarity, codes, fold_names, sample, seed, random_seed if summary else None, kwargs)
    if sample is None:
        report.update({"leakage": cert["leakage"], "total_similarity": cert["total_similarity"],
                       "scaled_leakage": cert["scaled_leakage"]})
    else:
        est = sampled_leakage(entities.similarity, codes, sample, seed=seed, confidence=confidence)
        report.update({
            "leakage": est.leakage, "leakage_ci": list(est.leakage_ci), "total_similarity": est.total,
            "scaled_leakage": est.scaled, "scaled_leakage_ci": list(est.scaled_ci),
            "scaled_leakage_se": est.scaled_se,
            "sampled": {"n_pairs": est.n_pairs, "confidence": est.confidence, "seed": est.seed,
                        "n_test_per_fold": int(sample_test), "design": est.design},
        })
    tests = list(test) if test else fold_names
    for t in tests:
        if t not in fold_names:
            raise ValueError(f"test fold {t!r} is not in the split; folds are {fold_names}")
    if train:
        for t in train:
            if t not in fold_names:
                raise ValueError(f"training fold {t!r} is not in the split; folds are {fold_names}")
    named = np.array([fold_names[c] if c >= 0 else None for c in codes], dtype=object)
    rng = np.random.default_rng(seed)
    per_fold = {}
    for t in tests:
        train_folds = [f for f in (train or fold_names) if f != t]
        if not train_folds:
            continue
        labels_t = named
        if sample is not None:  # eq. (1) maxima of a uniform sample of the test fold, exact over the training folds
            members = np.flatnonzero(named == t)
            if members.size > sample_test:
                labels_t = named.copy()
                labels_t[np.setdiff1d(members, rng.choice(members, sample_test, replace=False))] = None
        values = max_train_similarity(entities.similarity, labels_t, t, train_folds, **kwargs)
        per_fold[t] = {"train_folds": train_folds, **max_similarity_stats(values, quantiles)}
    report["max_train_similarity"] = per_fold
    listed = np.array([lab is not None for lab in labels[valid]], dtype=bool)
    left = {entities.invalid_reason: int((~valid).sum()), "unassigned in the split file": int(listed.sum() - (codes >= 0)
            .sum()), "not in the split file": int((~listed).sum())}
    if summary:
        report["summary"] = _summary(entities, codes, fold_names, cert, smiles, random_seed, left, scaffold_baseline)
    return report


def _certificate(source, codes: np.ndarray, names: list[str], sample: int | None, seed: int, random_seed: int | None,
                 kwargs: dict) -> dict:
    """The split certificate of ``codes`` beside random splits of the same fold sizes from ``random_seed`` (none
    when None; no ILP figures)."""
    from benchdesign.splitting.certificate import random_baselines, split_certificate
    from benchdesign.splitting.options import DEFAULT_MAX_PAIRS, SPLIT_DEFAULTS

    randoms = [] if random_seed is None else random_baselines(codes, random_seed, SPLIT_DEFAULTS["certificate_seeds"])
    pairs = {} if sample is None else {"max_pairs": 0, "n_pairs": sample}
    return split_certificate(source, codes, names, randoms, seed=seed, **{"max_pairs": DEFAULT_MAX_PAIRS, **pairs},
                             **kwargs)


def _summary(entities: EntitySet, codes: np.ndarray, names: list[str], cert: dict, smiles, random_seed: int,
             left: dict, scaffold_baseline: bool) -> dict:
    """The summary block of the split, its folds in natural order (fold2 before fold10); the scaffold split
    of ``smiles`` with ``scaffold_baseline``."""
    from benchdesign.splitting.pipeline import summary_words
    from benchdesign.splitting.summary import split_summary

    entry = describe_similarity(entities.similarity)
    molecules = smiles is not None and bool(entry) and entry.get("kind") == "fingerprint_tanimoto"
    codes, order = _sorted_codes(codes, names)
    cert = cert | {key: {n: cert[key][n] for n in order} for key in ("fold_scaled_leakage", "random_fold_scaled_leakage")
                   if key in cert}
    return split_summary(entities.similarity, codes, order, cert, seed=random_seed,
                         smiles=smiles if molecules and scaffold_baseline else None,
                         unassigned={k: v for k, v in left.items() if v}, words=summary_words(entry, molecules))


def _entities_and_split_reader(
    table: str,
    *,
    id_col: str | None = None,
    smiles_col: str | None = None,
    sequence_col: str | None = None,
    feature_cols: Sequence[str] = (),
    matrix: str | None = None,
    matrix_kind: str = "similarity",
    metric: str = "cosine",
    split_id_col: str = "id",
    split_col: str = "split",
    drop_invalid: bool = False,
    radius: int = 2,
    n_bits: int = 1024,
    kmer: int = 3,
    sequence_similarity: str = DEFAULT_SEQUENCE_SIMILARITY,
    sep: str | None = None,
    identity=None,
    clean_sequences: bool = False,
):
    """The entity set of ``table`` and a reader: split file -> (ids, labels), with column checks.

    The keyword arguments (the "representation" of [`evaluate_split_files`][] and
    [`compare_split_files`][]) say how to read the entity table and the split files.
    """
    if not any([smiles_col, sequence_col, feature_cols, matrix]):
        raise ValueError("give the representation of the entities: a SMILES, sequence or feature columns, or a matrix")
    df = read_table(table, [c for c in (id_col,) if c], sep=sep)
    ent = entities_from_table(
        df, id_col=id_col, smiles_col=smiles_col, sequence_col=sequence_col, feature_cols=feature_cols,
        matrix=load_matrix(matrix) if matrix else None, matrix_kind=matrix_kind, drop_invalid=True,
        metric=metric, radius=radius, n_bits=n_bits, kmer=kmer, what="input", sequence_similarity=sequence_similarity,
        identity=identity, clean_sequences=clean_sequences,
    )
    value_col = smiles_col or sequence_col

    def read_split(split: str) -> tuple[list, list]:
        sp_df = read_split_table(split, split_id_col, split_col, sep)
        ids, labels = sp_df[split_id_col].tolist(), sp_df[split_col].tolist()
        if not drop_invalid:
            _refuse_invalid_in_folds(ent, ids, labels, df[value_col].tolist() if value_col else None)
        return ids, labels

    read_split.smiles = (df[smiles_col].astype(str).to_numpy()[np.asarray(ent.valid, dtype=bool)].tolist()
                         if smiles_col else None)
    return ent, read_split


def _refuse_invalid_in_folds(ent: EntitySet, ids: list, labels: list, values: list | None) -> None:
    """Without --drop-invalid, invalid rows are accepted only when the split leaves them out (e.g. the
    'unassigned' rows of ``split --drop-invalid``); an invalid row the split puts in a fold is an error."""
    from benchdesign.splitting.inputs import _report_invalid

    fold_of, _ = fold_labels_for_entities(ent.ids, ids, labels)
    codes, _ = encode_folds(fold_of)
    bad = np.flatnonzero((codes >= 0) & ~np.asarray(ent.valid, dtype=bool))
    if bad.size:
        shown = values if values is not None else ["?"] * len(ent.ids)
        raise ValueError(_report_invalid("input", ent.invalid_reason, ent.ids, shown, bad)
                         .replace("leave them unassigned", "leave them out") + " (the split puts them in a fold)")


def read_split_table(split: str, split_id_col: str = "id", split_col: str = "split",
                     sep: str | None = None) -> pd.DataFrame:
    """The split file ``split`` with its id and fold columns checked (present; no missing id)."""
    sp_df = read_table(split, [split_id_col, split_col], sep=sep, what="split file")
    for col, what in ((split_id_col, "--split-id-col"), (split_col, "--split-col")):
        if col not in sp_df.columns:
            raise ValueError(
                f"column {col!r} ({what}) not in the split file {split}; columns are {list(sp_df.columns)}"
            )
    if sp_df[split_id_col].isna().any():
        rows = np.flatnonzero(sp_df[split_id_col].isna().to_numpy())
        raise ValueError(f"split file {split}: missing ids in column {split_id_col!r} at rows {rows[:10].tolist()}")
    return sp_df


def read_split_inputs(table: str, split: str, **representation) -> tuple[EntitySet, list, list]:
    """The entity set of ``table`` and the ids and fold labels of the split file ``split``
    (``representation`` as in [`evaluate_split_files`][])."""
    ent, read_split = _entities_and_split_reader(table, **representation)
    ids, labels = read_split(split)
    return ent, ids, labels


def evaluate_split_files(
    table: str,
    split: str,
    *,
    test: Sequence[str] | None = None,
    train: Sequence[str] | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    folds: Sequence[str] | None = None,
    sample: int | None = None,
    confidence: float = 0.95,
    seed: int = 0,
    sample_test: int = DEFAULT_SAMPLE_TEST,
    random_seed: int = 0,
    scaffold_baseline: bool = False,
    **representation,
) -> dict:
    """Read an entity table and a split TSV/CSV (columns ``split_id_col``, ``split_col``) and evaluate it.

    The file-level form of [`evaluate_split`][], behind ``benchdesign leakage``.

    Parameters
    ----------
    table : str
        Path of the entity table.
    split : str
        Path of the split file.
    test : Sequence[str] | None
        Fold names whose eq. (1) statistics are reported (None: every fold).
    train : Sequence[str] | None
        Training folds for eq. (1) (None: all folds other than the test fold).
    quantiles : Sequence[float]
        Quantiles of the eq. (1) nearest-neighbour similarities.
    folds : Sequence[str] | None
        The fold names the split may use; any other label is an error. Without it (``check_fold_names``),
        labels that differ only in case or surrounding spaces (``Test`` beside ``test``) are an error.
    sample : int | None
        Estimate L(pi) and scaled L(pi) from this many random pairs, with ``confidence`` intervals
        ([`sampled_leakage`][], seeded by ``seed``) instead of all pairs, and the eq. (1) statistics from
        ``sample_test`` random test entities per fold.
    confidence : float
        Level of the sampled intervals.
    seed : int
        Seed of the sampled estimate.
    sample_test : int
        Test entities per fold sampled for eq. (1).
    random_seed : int
        Seed of the summary block's random splits of the same fold sizes.
    scaffold_baseline : bool
        Molecules given by SMILES: add a Bemis-Murcko scaffold split of the same fractions to the summary.
    **representation : object
        Keyword arguments naming the columns and the similarity: ``id_col``, ``smiles_col``, ``sequence_col``,
        ``feature_cols``, ``matrix``, ``matrix_kind``, ``metric``, ``split_id_col``, ``split_col``,
        ``drop_invalid``, ``radius``, ``n_bits``, ``kmer``, ``sequence_similarity``, ``sep``, ``identity``
        (``mmseqs.IdentitySettings`` of ``'mmseqs'``), ``clean_sequences``.
    Returns
    -------
    dict
        The report of [`evaluate_split`][], with the inputs (and ``sequences``: the counts of lower-case and
        cleaned protein sequences, when the entities are sequences).

    Examples
    --------
    Ethanol and benzene, each written twice (Tanimoto similarity 1.0 within a pair, 0 between them), and a
    split that puts one copy of each in train and one in test: every test molecule has an identical training
    molecule (eq. 1: 1.0), and both pairs of copies cross the folds (L(pi) = 2; scaled L(pi) = 2 x 2 / 8 = 0.5,
    8 being the ordered pairs of similarity 1, each molecule with itself included):

    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.splitting import evaluate_split_files
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "molecules.csv").write_text("id,smiles\\nm1,CCO\\nm2,OCC\\nm3,c1ccccc1\\nm4,C1=CC=CC=C1\\n")
    >>> _ = (folder / "split.csv").write_text("id,split\\nm1,train\\nm2,test\\nm3,train\\nm4,test\\n")
    >>> report = evaluate_split_files(str(folder / "molecules.csv"), str(folder / "split.csv"), id_col="id",
    ...                               smiles_col="smiles")
    >>> report["fold_sizes"], report["leakage"], report["scaled_leakage"]
    ({'train': 2, 'test': 2}, 2.0, 0.5)
    >>> report["max_train_similarity"]["test"]["mean"]
    1.0
    """
    ent, read_split = _entities_and_split_reader(table, **representation)
    ids, labels = read_split(split)
    report = evaluate_split(ent, ids, labels, test, train, quantiles, folds=folds, sample=sample,
                            confidence=confidence, seed=seed, sample_test=sample_test, smiles=read_split.smiles,
                            random_seed=random_seed, scaffold_baseline=scaffold_baseline)
    return {"input": str(table), "split": str(split), **report, **ent.notes}


def compare_split_files(
    table: str,
    splits: Sequence[str],
    *,
    test: Sequence[str] | None = None,
    train: Sequence[str] | None = None,
    folds: Sequence[str] | None = None,
    **representation,
) -> dict:
    """Evaluate several split files of the same entity table (e.g. made by different tools).

    The entities and their similarity are built once.

    Parameters
    ----------
    table : str
        Path of the entity table.
    splits : Sequence[str]
        Paths of the split files.
    test : Sequence[str] | None
        Fold names whose eq. (1) statistics are reported (None: every fold).
    train : Sequence[str] | None
        Training folds for eq. (1) (None: all folds other than the test fold).
    folds : Sequence[str] | None
        The fold names the split may use; any other label is an error. Without it, labels that differ only in
        case or surrounding spaces (``Test`` beside ``test``) are an error.
    **representation : object
        As in [`evaluate_split_files`][]; keyword arguments naming the columns and the similarity:
        ``id_col``, ``smiles_col``, ``sequence_col``,
        ``feature_cols``, ``matrix``, ``matrix_kind``, ``metric``, ``split_id_col``, ``split_col``,
        ``drop_invalid``, ``radius``, ``n_bits``, ``kmer``, ``sequence_similarity``, ``sep``, ``identity``
        (``mmseqs.IdentitySettings`` of ``'mmseqs'``), ``clean_sequences``.
    Returns
    -------
    dict
        ``{"input", "n_valid", "splits": [row, ...]}`` with one row per split file: its fold sizes, L(pi),
        scaled L(pi), per test fold the mean of eq. (1) (``eq1_mean``) and the mean of those over the test
        folds (``eq1_mean_over_folds``).

    Examples
    --------
    Ethanol and benzene, each written twice: a split that keeps the copies together leaks nothing, one that
    puts one copy in each fold leaks half of the similarity:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.splitting import compare_split_files
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "molecules.csv").write_text("id,smiles\\nm1,CCO\\nm2,OCC\\nm3,c1ccccc1\\nm4,C1=CC=CC=C1\\n")
    >>> _ = (folder / "together.csv").write_text("id,split\\nm1,train\\nm2,train\\nm3,test\\nm4,test\\n")
    >>> _ = (folder / "apart.csv").write_text("id,split\\nm1,train\\nm2,test\\nm3,train\\nm4,test\\n")
    >>> report = compare_split_files(str(folder / "molecules.csv"), [str(folder / "together.csv"),
    ...                              str(folder / "apart.csv")], id_col="id", smiles_col="smiles")
    >>> [(Path(row["split"]).name, row["scaled_leakage"], row["eq1_mean_over_folds"]) for row in report["splits"]]
    [('together.csv', 0.0, 0.0), ('apart.csv', 0.5, 1.0)]
    """
    if len(splits) < 1:
        raise ValueError("give at least one split file to compare")
    ent, read_split = _entities_and_split_reader(table, **representation)
    rows = []
    for path in splits:
        ids, labels = read_split(path)
        rep = evaluate_split(ent, ids, labels, test, train, (0.5,), folds=folds, summary=False)
        eq1 = {f: st["mean"] for f, st in rep["max_train_similarity"].items()}
        rows.append({
            "split": str(path), "n_assigned": rep["n_assigned"], "n_not_in_split": rep["n_not_in_split"],
            "fold_sizes": rep["fold_sizes"], "leakage": rep["leakage"], "scaled_leakage": rep["scaled_leakage"],
            "eq1_mean": eq1, "eq1_mean_over_folds": float(np.mean(list(eq1.values()))) if eq1 else float("nan"),
        })
    return {"input": str(table), "n_valid": int(np.sum(ent.valid)), "similarity": describe_similarity(ent.similarity),
            "splits": rows, **ent.notes}


def format_comparison(report: dict) -> str:
    """A fixed-width table of a [`compare_split_files`][] report, one line per split file."""
    width = max([len("split")] + [len(r["split"]) for r in report["splits"]])
    head = f"{'split':<{width}}  {'assigned':>8}  {'folds':>5}  {'scaled L(pi)':>12}  {'eq.(1) mean':>11}"
    lines = [f"{report['n_valid']} valid entities of {report['input']}; similarity: "
             f"{describe_text(report.get('similarity'))}", *sequence_note_lines(report.get("sequences")), head]
    for r in report["splits"]:
        lines.append(f"{r['split']:<{width}}  {r['n_assigned']:>8}  {len(r['fold_sizes']):>5}  "
                     f"{r['scaled_leakage']:>12.4f}  {r['eq1_mean_over_folds']:>11.4f}")
    lines.append("scaled L(pi): eq. (20); eq.(1) mean: mean over test folds of the mean max similarity to training")
    return "\n".join(lines)
def split_codes(entities: EntitySet, split_ids: Sequence[object], split_labels: Sequence[object]) -> np.ndarray:
    """Fold codes (-1: no fold) of the valid entities, in the order of ``entities.similarity``."""
    labels, _ = fold_labels_for_entities(entities.ids, split_ids, split_labels)
    codes, _ = encode_folds(labels[np.asarray(entities.valid, dtype=bool)])
    if (codes >= 0).sum() == 0:
        raise ValueError("no valid entity of the table is assigned to a fold by the split file")
    return codes


def leakage_shard_files(table: str, split: str, index: int, n_shards: int, out: str,
                        block_size: int | None = None, **read_options) -> int:
    """One shard of the exact tiled L(pi) of a split file ([`leakage_shard`][]).

    Returns the shard's number of tiles; combine the shard files with ``benchdesign leakage-reduce``.
    """
    ent, split_ids, split_labels = read_split_inputs(table, split, **read_options)
    if ent.similarity is None:
        raise ValueError("the entity table needs a representation (SMILES, sequences, features or a matrix)")
    kwargs = {} if block_size is None else {"block_size": block_size}
    return leakage_shard(ent.similarity, [split_codes(ent, split_ids, split_labels)], index, n_shards, out, **kwargs)


def leakage_shard_inputs(table: str, split: str, out: str, **read_options) -> int:
    """Write the bit-packed fingerprints and fold codes of a SMILES table's split to the .npz ``out``.

    Computed once, read by every tile job (``leakage_shard_from_inputs``) instead of reparsing the
    SMILES: plain arrays (``packed`` uint8 (n, width), ``n_bits``, ``codes`` int64 (n,), -1 = no fold),
    no pickle, written atomically. Returns the number of fingerprinted (valid) entities.
    """
    ent, split_ids, split_labels = read_split_inputs(table, split, **read_options)
    if not isinstance(ent.similarity, FingerprintSimilarity):
        raise ValueError(f"the tile inputs of {table} need SMILES (a SMILES column): fingerprints are shared")
    codes = split_codes(ent, split_ids, split_labels)
    _save_npz(out, packed=ent.similarity.packed8, n_bits=np.int64(ent.similarity.n_bits), codes=codes)
    return int(ent.similarity.n)


def leakage_shard_from_inputs(inputs: str, index: int, n_shards: int, out: str, block_size: int | None = None) -> int:
    """One shard of the exact tiled L(pi) from the file of ``leakage_shard_inputs`` (equal to
    ``leakage_shard_files`` on the table and split it was made from)."""
    with np.load(inputs, allow_pickle=False) as z:
        missing = {"packed", "n_bits", "codes"} - set(z.files)
        if missing:
            raise ValueError(f"tile inputs file {inputs} lacks {sorted(missing)}: not written by leakage_shard_inputs")
        packed, n_bits, codes = z["packed"], int(z["n_bits"]), z["codes"]
    if codes.shape != (packed.shape[0],):
        raise ValueError(f"tile inputs file {inputs}: {codes.shape} fold codes for {packed.shape[0]} fingerprints")
    kwargs = {} if block_size is None else {"block_size": block_size}
    return leakage_shard(FingerprintSimilarity.from_packed(packed, n_bits), [codes], index, n_shards, out, **kwargs)


def _left_out_lines(report: dict) -> list[str]:
    """One line per kind of row left out of every figure (invalid, unassigned, not listed)."""
    why = {"unassigned in the split file": "labelled unassigned (or empty) in the split file",
           "not in the split file": "not listed in the split file"}
    left, in_fold = report.get("summary", {}).get("unassigned", {}), report.get("n_invalid_assigned", 0)
    invalid = (f"; {in_fold} of them are in a fold of the split file (--drop-invalid)" if in_fold
               else "; the split leaves them unassigned")
    return [f"left out: {n} rows " + (why[k] if k in why else f"with {k.replace('_', ' ').replace('smiles', 'SMILES')}"
                                      f" (no similarity{invalid})") for k, n in left.items()]


def format_report(report: dict) -> str:
    """Human-readable lines of an [`evaluate_split`][] report: counts, the summary block (summary.py), then
    the eq. (1) statistics per test fold."""
    from benchdesign.splitting.summary import SCALED_LEAKAGE_TEXT, summary_lines

    sizes = ", ".join(f"{k} {v}" for k, v in report["fold_sizes"].items())
    lines = [
        f"{report['n_assigned']} of {report['n_valid']} valid entities assigned ({sizes}); "
        f"not in split {report['n_not_in_split']}",
        *_left_out_lines(report),
        f"similarity: {describe_text(report.get('similarity'))}",
        *sequence_note_lines(report.get("sequences")),
        f"scaled L(pi) (eq. 20) {report['scaled_leakage']:.4f}, the {SCALED_LEAKAGE_TEXT.split(' [')[0]}; "
        f"L(pi) (eq. 2) {report['leakage']:.6g}",
    ]
    if "sampled" in report:
        smp, (lo, hi) = report["sampled"], report["scaled_leakage_ci"]
        lines[-1] += (f" ({smp['n_pairs']} sampled pairs; {100 * smp['confidence']:g}% interval [{lo:.4f}, {hi:.4f}];"
                      f" eq. 1 over <= {smp['n_test_per_fold']} sampled test samples per fold)")
    if "summary" in report:
        lines += summary_lines(report["summary"])
    for fold, st in report["max_train_similarity"].items():
        qs = ", ".join(f"q{k} {v:.3f}" for k, v in st["quantiles"].items())
        lines.append(
            f"nearest training neighbour of {fold} samples in {'+'.join(st['train_folds'])} (max similarity, eq. 1): "
            f"mean {st['mean']:.4f}, "
            f"median {st['median']:.4f}, {qs}"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------- 2-D splits (one row per pair)

PAIR_FOLD_COLUMNS = {"a": "fold_a", "b": "fold_b"}  # entity folds of each pair in a k-fold `split` TSV
NN_THRESHOLDS = (0.5, 0.7)  # shares of test entities whose nearest training entity is more similar than these
SEVERAL_FOLDS = -2  # entity fold code: its pairs are in several folds (leakage by identity)


@dataclass(frozen=True)
class PairSplit:
    """A split file of 2-D data on the interaction rows: ``labels`` (m,) split label (None: not in the file),
    ``listed`` (m,) bool, ``reasons`` (m,) ('' without one), ``fold_columns`` side -> (m,) entity fold of each
    row from the columns fold_a / fold_b present (-1: none)."""

    labels: np.ndarray
    listed: np.ndarray
    reasons: np.ndarray
    fold_columns: dict


def _fold_column(table: pd.DataFrame, col: str, split: str) -> np.ndarray:
    """An integer entity-fold column (-1 = none) of the split file, non-integers refused naming the row."""
    num = pd.to_numeric(table[col], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(num) | (num != np.round(num)) | (num < -1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"split file {split}: column {col!r} must hold entity folds (integers, -1 = none); "
                         f"{int(bad.sum())} rows do not, first row {i}: {table[col].iloc[i]!r}")
    return num.astype(np.int64)


def read_pair_split(split: str, row_ids: Sequence[object], interactions: str, split_id_col: str = "id",
                    split_col: str = "split", sep: str | None = None) -> PairSplit:
    """Map the split file of 2-D data (``benchdesign split --interactions`` output) onto the interaction rows
    ``row_ids``; ids missing from the interaction table ``interactions`` or listed twice raise ValueError."""
    table = read_split_table(split, split_id_col, split_col, sep)
    pos = split_positions(row_ids, table[split_id_col], f"split file {split}",
                          f"the interaction table {interactions}", "--inter-id-col / --split-id-col")
    m = len(row_ids)
    labels = np.full(m, None, dtype=object)
    labels[pos] = table[split_col].to_numpy(dtype=object)
    listed = np.zeros(m, dtype=bool)
    listed[pos] = True
    reasons = np.full(m, "", dtype=object)
    if "reason" in table.columns:
        reasons[pos] = table["reason"].fillna("").astype(str).to_numpy(dtype=object)
    folds = {}
    for sd, col in PAIR_FOLD_COLUMNS.items():
        if col in table.columns:
            folds[sd] = np.full(m, -1, dtype=np.int64)
            folds[sd][pos] = _fold_column(table, col, split)
    return PairSplit(labels, listed, reasons, folds)


def entity_folds_from_pairs(index: np.ndarray, codes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per entity (n,): the fold of its pairs with a fold (``codes`` >= 0; -1 without such a pair,
    ``SEVERAL_FOLDS`` when they are in several folds) and the number of those pairs."""
    used = np.asarray(codes) >= 0
    ent, code = np.asarray(index)[used], np.asarray(codes)[used]
    lo, hi = np.full(n, np.iinfo(np.int64).max), np.full(n, -1, dtype=np.int64)
    np.minimum.at(lo, ent, code)
    np.maximum.at(hi, ent, code)
    return np.where(hi < 0, -1, np.where(lo == hi, hi, SEVERAL_FOLDS)), np.bincount(ent, minlength=n)


def _side_row_codes(split: PairSplit, side: str, pair_scheme: str, label_codes: np.ndarray,
                    label_names: list[str]) -> tuple[np.ndarray, list[str], str]:
    """Fold code of every interaction row for ``side`` (-1: none), the fold names and their column: fold_a /
    fold_b when present (cold_both: every pair with a fold counts, also those tested in no fold, as they train
    in k - 2 folds; same_fold: only the kept pairs), else the split label."""
    if side not in split.fold_columns:
        return label_codes, label_names, "split"
    codes = split.fold_columns[side].copy()
    if pair_scheme != "cold_both":
        codes[label_codes < 0] = -1
    k = int(max(c.max(initial=-1) for c in split.fold_columns.values())) + 1
    return codes, [KFOLD_NAME.format(i) for i in range(k)], PAIR_FOLD_COLUMNS[side]


def _sorted_codes(codes: np.ndarray, names: list) -> tuple[np.ndarray, list[str]]:
    """Fold codes renumbered so that the fold names are in natural order (fold2 before fold10)."""
    text = [str(x) for x in names]
    order = sorted(range(len(text)), key=lambda i: (len(text[i]), text[i]))
    new = np.full(len(text) + 1, -1, dtype=np.int64)
    new[order] = np.arange(len(order))
    return new[codes], [text[i] for i in order]


def _random_codes(codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The fold codes permuted among the entities with a fold: a random split of the same fold sizes."""
    out = codes.copy()
    idx = np.flatnonzero(codes >= 0)
    out[idx] = codes[rng.permutation(idx)]
    return out


def _nn_stats(values: np.ndarray, quantiles: Sequence[float]) -> dict:
    shares = {f"{t:g}": float((values > t).mean()) for t in NN_THRESHOLDS}
    return {**max_similarity_stats(values, quantiles), "share_above": shares}


def _nearest_view(sim, codes: np.ndarray, names: list[str], tests: list[str], train: Sequence[str] | None,
                  quantiles: Sequence[float]) -> dict:
    """Each test entity's maximum similarity to the training entities (eq. 1 summand): per test fold and over
    all test entities ("all")."""
    present = [i for i in range(len(names)) if (codes == i).any()]
    per, pooled = {}, []
    for t in tests:
        ti = names.index(t)
        wanted = [names.index(x) for x in train] if train else present
        tr = [i for i in wanted if i != ti and i in present]
        if ti not in present or not tr:
            continue
        values = max_train_similarity(sim, codes, ti, tr)
        per[t] = {"train_folds": [names[i] for i in tr], **_nn_stats(values, quantiles)}
        pooled.append(values)
    return {"all": _nn_stats(np.concatenate(pooled), quantiles) if pooled else None, "folds": per}


def _check_fold_choice(names: list[str], chosen: Sequence[str] | None, what: str, side: str) -> None:
    for t in chosen or ():
        if t not in names:
            raise ValueError(f"{what} fold {t!r} is not among the folds of side {side}: {names}")


def _side_entities(ent: EntitySet, fold: np.ndarray, count: np.ndarray, source: str) -> dict:
    """Counts of one side's distinct entities by how the split places them: with a fold, in several folds, valid
    with no pair in a fold (``n_without_fold``: their pairs are unassigned or not in the split file), invalid
    with a pair in a fold."""
    valid = np.asarray(ent.valid, dtype=bool)
    several = np.flatnonzero(fold == SEVERAL_FOLDS)
    return {
        "fold_source": source, "n_entities": int(len(ent.ids)), "n_valid": int(valid.sum()),
        "n_with_fold": int((fold >= 0).sum()), "n_in_several_folds": int(several.size),
        "in_several_folds": [str(ent.ids[i]) for i in several[:20]],
        "n_pairs_of_entities_in_several_folds": int(count[several].sum()),
        "n_without_fold": int((valid & (fold == -1)).sum()), "n_invalid_with_pair": int((~valid & (fold != -1)).sum()),
    }


def _side_leakage(ent: EntitySet, index: np.ndarray, row_codes: np.ndarray, names: list[str], source: str,
                  rng: np.random.Generator, tests: Sequence[str] | None, train: Sequence[str] | None,
                  quantiles: Sequence[float], side: str) -> dict:
    """One side's entity-level leakage: scaled L(pi) and the nearest-neighbour view, ours vs a random split of
    the same entity fold sizes (entities in several folds are left out of both, and counted)."""
    if ent.similarity is None:
        raise ValueError(f"side {side} needs a similarity (a SMILES, sequence or feature column, or a matrix)")
    fold, count = entity_folds_from_pairs(index, row_codes, len(ent.ids))
    out = _side_entities(ent, fold, count, source)
    valid = np.asarray(ent.valid, dtype=bool)
    codes = np.where(fold >= 0, fold, -1)[valid]
    random = _random_codes(codes, rng)
    sizes = {name: int((codes == i).sum()) for i, name in enumerate(names)}
    out.update(fold_sizes=sizes, random_fold_sizes={name: int((random == i).sum()) for i, name in enumerate(names)})
    filled = [name for name, n in sizes.items() if n]
    if len(filled) < 2:
        out["note"] = (f"the entities with all their pairs in one fold are in {len(filled)} fold(s) {filled}: "
                       "no similarity figures (leakage needs two folds)")
        return out
    _check_fold_choice(names, tests, "test", side)
    _check_fold_choice(names, train, "training", side)
    ours, rand = leakage_summary(ent.similarity, [codes, random])
    weighted = leakage_summary(ent.similarity, [codes], weights=count[valid].astype(float))[0]
    out.update({
        "leakage": ours.leakage, "total_similarity": ours.total, "scaled_leakage": ours.scaled,
        "random": {"leakage": rand.leakage, "scaled_leakage": rand.scaled},
        "leakage_reduction": 1.0 - ours.scaled / rand.scaled if rand.scaled > 0 else None,
        "scaled_leakage_pair_weighted": weighted.scaled,
    })
    chosen = list(tests) if tests else filled
    out["nearest_neighbour"] = {"thresholds": list(NN_THRESHOLDS),
                                "split": _nearest_view(ent.similarity, codes, names, chosen, train, quantiles),
                                "random": _nearest_view(ent.similarity, random, names, chosen, train, quantiles)}
    return out


def _pair_fold_usage(split: PairSplit, pair_scheme: str) -> dict:
    """Per fold the train / test / unused pairs (``fold_usage``) of a k-fold
    split file (columns fold_a / fold_b); empty without them."""
    cols = split.fold_columns
    k = int(max((c.max(initial=-1) for c in cols.values()), default=-1)) + 1
    if k < 1:
        return {}
    names = tuple(KFOLD_NAME.format(i) for i in range(k))
    if len(cols) == 2:
        fa, fb = cols["a"], cols["b"]
        res = SplitResult(np.where((fa == fb) & (fa >= 0), fa, -1), split.reasons, names, pair_folds=dict(cols),
                          cold_both=pair_scheme == "cold_both")
        return {"pair_scheme": pair_scheme, "fold_usage": fold_usage(res)}
    (sd, f), = cols.items()
    res = SplitResult(f, split.reasons, names, pair_folds=dict(cols))
    return {"pair_scheme": "cold_one_side", "side": sd, "fold_usage": fold_usage(res)}


def evaluate_pair_split(
    pairs: PairTables,
    split: PairSplit,
    *,
    pair_scheme: str = "cold_both",
    seed: int = 0,
    test: Sequence[str] | None = None,
    train: Sequence[str] | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    folds: Sequence[str] | None = None,
) -> dict:
    """Leakage report of a 2-D split: per side (``sides.a`` / ``sides.b``) the entity-level scaled L(pi) (eq. 20)
    and nearest-neighbour view against a random split of the same entity fold sizes (seeded by ``seed``), plus
    the pairs' fold usage of a k-fold file. Entity folds come from fold_a / fold_b when present, else from the
    pairs' split labels (an entity whose pairs are in several folds is counted as such: leakage by identity).
    Unassigned pairs are left out (cold_both: a pair tested in no fold keeps its entity folds) and counted.
    Every entity count is of distinct entities of one side: ``fold_sizes`` per fold, and the nearest-neighbour
    view's ``n_test`` per test fold (``folds``) and over the test folds (``all``, each entity once)."""
    if pair_scheme not in ("cold_both", "same_fold"):
        raise ValueError(f"pair_scheme must be 'cold_both' or 'same_fold', got {pair_scheme!r}")
    check_fold_names(split.labels[split.listed], folds)
    label_codes, names = _sorted_codes(*encode_folds(split.labels))
    unassigned = split.listed & (label_codes < 0)
    report: dict = {
        "n_rows": int(split.labels.size), "n_in_split": int(split.listed.sum()),
        "n_not_in_split": int((~split.listed).sum()), "n_unassigned": int(unassigned.sum()),
        "unassigned_reasons": dict(sorted(Counter(str(r) or "none" for r in split.reasons[unassigned]).items())),
        "pair_fold_sizes": {n: int((label_codes == i).sum()) for i, n in enumerate(names)},
        "fold_columns": [PAIR_FOLD_COLUMNS[sd] for sd in sorted(split.fold_columns)], "random_seed": int(seed),
    }
    if len(split.fold_columns) == 2 and pair_scheme == "cold_both":
        fa, fb = split.fold_columns["a"], split.fold_columns["b"]
        report["n_unassigned_with_entity_folds"] = int((unassigned & (fa >= 0) & (fb >= 0)).sum())
    report.update(_pair_fold_usage(split, pair_scheme))
    rng = np.random.default_rng(seed)
    report["sides"] = {}
    for sd, ent, index in (("a", pairs.side_a, pairs.index_a), ("b", pairs.side_b, pairs.index_b)):
        codes, side_names, source = _side_row_codes(split, sd, pair_scheme, label_codes, names)
        report["sides"][sd] = _side_leakage(ent, index, codes, side_names, source, rng, test, train, quantiles, sd)
    return report


def evaluate_pair_split_files(inputs: PairInputs, split: str, *, split_id_col: str = "id",
                              split_col: str = "split", **options) -> dict:
    """Read the 2-D inputs (``load_pairs``) and the split file, then
    ``evaluate_pair_split`` (``options``); the split file's ids are checked before any similarity is
    computed. Each side's entry records its input and similarity (kind, parameters, column or matrix)."""
    mapped: list[PairSplit] = []

    def check(ids: np.ndarray) -> None:
        mapped.append(read_pair_split(split, ids, inputs.interactions, split_id_col, split_col, inputs.sep))

    pairs = load_pairs(inputs, check=check)
    report = evaluate_pair_split(pairs, mapped[0], **options)
    for sd, inp, ent in (("a", inputs.entities, pairs.side_a), ("b", inputs.entities_b, pairs.side_b)):
        report["sides"][sd] = {"input": str(inp.path), "similarity": similarity_entry(ent, inp),
                               **report["sides"][sd], **ent.notes}
    return {"interactions": str(inputs.interactions), "split": str(split), **report}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _pair_lines(rep: dict) -> list[str]:
    reasons = ", ".join(f"{k} {v}" for k, v in rep["unassigned_reasons"].items())
    line = (f"{rep['n_rows']} interaction rows, {rep['n_in_split']} in the split file (not in it "
            f"{rep['n_not_in_split']}); unassigned {rep['n_unassigned']}" + (f" ({reasons})" if reasons else ""))
    kept = rep.get("n_unassigned_with_entity_folds", 0)
    if kept:
        line += (f"; {kept} of them are tested in no fold but keep their entity folds (cold both sides: they train "
                 "in the folds of neither entity)")
    if rep["n_unassigned"] - kept:
        line += f"; {rep['n_unassigned'] - kept} unassigned rows are left out"
    sizes = ", ".join(f"{k} {v}" for k, v in rep["pair_fold_sizes"].items())
    return [line, f"pairs per split label: {sizes}", *_usage_lines(rep)]


def _entities(n: int) -> str:
    return f"{n} {'entity' if n == 1 else 'entities'}"


def _nn_stats_text(label: str, ours: dict, rand: dict) -> str:
    shares = "; ".join(f"above {t}: {_pct(ours['share_above'][t])} vs {_pct(rand['share_above'][t])}"
                       for t in ours["share_above"])
    return f"    {label}: median {ours['median']:.3f} vs {rand['median']:.3f} random; {shares}"


def _nn_lines(nn: dict) -> list[str]:
    """One line per test fold (its distinct test entities and training folds), then, over several test folds,
    one for all of them; ours vs the random split of the same entity fold sizes."""
    ours, rand = nn["split"], nn["random"]
    if ours["all"] is None or rand["all"] is None:
        return ["    no test fold with training entities"]
    lines = [_nn_stats_text(f"fold {name} ({_entities(st['n_test'])}) against {'+'.join(st['train_folds'])}",
                            st, rand["folds"][name])
             for name, st in ours["folds"].items() if name in rand["folds"]]
    if len(ours["folds"]) > 1:
        lines.append(_nn_stats_text(f"all {len(ours['folds'])} folds ({ours['all']['n_test']} entities, each once) "
                                    "against their training folds", ours["all"], rand["all"]))
    return lines


def _side_lines(sd: str, side: dict, seed: int) -> list[str]:
    lines = [f"side {sd} ({side.get('input', '?')}): {side['n_valid']} valid entities; similarity: "
             f"{describe_text(side.get('similarity'))}"]
    sizes = ", ".join(f"{k} {v}" for k, v in side["fold_sizes"].items())
    several = side["n_in_several_folds"]
    text = f"  entities per fold (from {side['fold_source']}): {sizes}; in several folds {several}"
    if several:
        text += (f" (leakage by identity, left out of the figures below; {side['n_pairs_of_entities_in_several_folds']}"
                 f" pairs; e.g. {', '.join(side['in_several_folds'][:5])})")
    lines.append(text + f"; with no pair in a fold {side['n_without_fold']}")
    if "note" in side:
        return [*lines, f"  note: {side['note']}"]
    red = side["leakage_reduction"]
    lines.append(f"  scaled L(pi) (eq. 20) {side['scaled_leakage']:.4f} vs {side['random']['scaled_leakage']:.4f} for "
                 f"a random split of the same entity fold sizes (seed {seed})"
                 + (f": {_pct(red)} less" if red is not None else "")
                 + f"; weighted by pairs per entity {side['scaled_leakage_pair_weighted']:.4f}")
    lines.append("  nearest neighbour (each test entity's maximum similarity to the training entities, eq. 1 summand):")
    return lines + _nn_lines(side["nearest_neighbour"])


def format_pair_report(report: dict) -> str:
    """Human-readable lines of an ``evaluate_pair_split`` report (wording as the summary block's)."""
    from benchdesign.splitting.summary import SCALED_LEAKAGE_TEXT

    lines = [*_pair_lines(report), f"scaled L(pi) = {SCALED_LEAKAGE_TEXT}"]
    for sd, side in report["sides"].items():
        lines += _side_lines(sd, side, report["random_seed"])
    return "\n".join(lines)
