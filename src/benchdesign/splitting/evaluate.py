"""Leakage of an existing split (made by any tool): the engine of ``benchdesign leakage``.

Given the entities (with their similarity) and a table of (id, fold) rows, reports
- L(pi) of eq. (2) and scaled L(pi) of eq. (20) (:func:`~benchdesign.splitting.leakage.leakage_summary`),
- for each evaluated test fold, statistics of the eq. (1) summand max_{x' in train} sim(x, x') over
  its samples x (mean = eq. (1) itself, median, quantiles, min, max),
all computed tile by tile (no n x n matrix). Entities of the table that the split file does not list,
or lists as unassigned, belong to no fold and are left out of every sum.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from benchdesign.splitting.options import DEFAULT_QUANTILES
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
from benchdesign.splitting.similarity import FingerprintSimilarity
from benchdesign.splitting.tasks import EntitySet

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
]

DEFAULT_SAMPLE_TEST = 1000  # with --sample: test entities whose eq. (1) maxima are computed exactly


def fold_labels_for_entities(
    entity_ids: Sequence[object], split_ids: Sequence[object], split_labels: Sequence[object]
) -> tuple[np.ndarray, int]:
    """Fold label per entity (None where the split does not list it) and the count of such entities.

    Raises ValueError naming split ids that are missing from the entity table, or listed twice.
    """
    ids = pd.Index([str(i).strip() for i in entity_ids])
    sid = pd.Series([str(i).strip() for i in split_ids])
    if len(sid) != len(split_labels):
        raise ValueError(f"split has {len(sid)} ids but {len(split_labels)} labels")
    dup = sid[sid.duplicated()].unique()
    if dup.size:
        raise ValueError(
            f"split file: {dup.size} ids listed more than once: {', '.join(map(str, dup[:10]))}"
            + (" ..." if dup.size > 10 else "")
        )
    pos = pd.Series(np.arange(len(ids)), index=ids).reindex(sid.to_numpy())
    unknown = pos.isna().to_numpy()
    if unknown.any():
        bad = sid.to_numpy()[unknown]
        raise ValueError(
            f"split file: {bad.size} ids are not in the entity table: {', '.join(map(str, bad[:10]))}"
            + (" ..." if bad.size > 10 else "") + " (check --id-col / --split-id-col)"
        )
    labels = np.full(len(ids), None, dtype=object)
    labels[pos.to_numpy().astype(np.int64)] = np.asarray(split_labels, dtype=object)
    return labels, int(len(ids) - len(sid))


def check_fold_names(split_labels: Sequence[object], folds: Sequence[str] | None = None) -> None:
    """Refuse fold labels outside ``folds`` (when given), or differing only in case / spaces (when not).

    Unassigned labels (:data:`~benchdesign.splitting.leakage.UNASSIGNED_LABELS`, missing) are always allowed.
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
) -> dict:
    """Leakage report of a split of ``entities`` given as (id, fold label) pairs.

    Parameters
    ----------
    entities : the entities and their similarity (over the valid entities)
    split_ids, split_labels : one row of the split file each; unassigned labels ("unassigned", "")
        and entities not listed belong to no fold
    test : fold names whose eq. (1) statistics are reported (default: every fold)
    train : training folds for eq. (1) (default: all folds other than the test fold)
    folds : the fold names the split may use; any other label is an error. Without it, labels that differ
        only in case or surrounding spaces (``Test`` beside ``test``) are an error.
    sample : estimate L(pi) and scaled L(pi) from this many random pairs, with ``confidence`` intervals
        (:func:`~benchdesign.splitting.leakage.sampled_leakage`, seeded by ``seed``) instead of all
        pairs, and the eq. (1) statistics from ``sample_test`` random test entities per fold

    A split with fewer than two folds is refused (its leakage would be 0 by definition).
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
    }
    if sample is None:
        summary = leakage_summary(entities.similarity, [codes], **kwargs)[0]
        report.update({"leakage": summary.leakage, "total_similarity": summary.total,
                       "scaled_leakage": summary.scaled})
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
    return report


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
    sequence_similarity: str = "kmer",
    sep: str | None = None,
):
    """The entity set of ``table`` and a reader: split file -> (ids, labels), with column checks.

    The keyword arguments (the "representation" of :func:`evaluate_split_files` and
    :func:`compare_split_files`) say how to read the entity table and the split files.
    """
    if not any([smiles_col, sequence_col, feature_cols, matrix]):
        raise ValueError("give the representation of the entities: a SMILES, sequence or feature columns, or a matrix")
    df = read_table(table, [c for c in (id_col,) if c], sep=sep)
    ent = entities_from_table(
        df, id_col=id_col, smiles_col=smiles_col, sequence_col=sequence_col, feature_cols=feature_cols,
        matrix=load_matrix(matrix) if matrix else None, matrix_kind=matrix_kind, drop_invalid=drop_invalid,
        metric=metric, radius=radius, n_bits=n_bits, kmer=kmer, what="input", sequence_similarity=sequence_similarity,
    )

    def read_split(split: str) -> tuple[list, list]:
        sp_df = read_table(split, [split_id_col, split_col], sep=sep, what="split file")
        for col, what in ((split_id_col, "--split-id-col"), (split_col, "--split-col")):
            if col not in sp_df.columns:
                raise ValueError(
                    f"column {col!r} ({what}) not in the split file {split}; columns are {list(sp_df.columns)}"
                )
        if sp_df[split_id_col].isna().any():
            rows = np.flatnonzero(sp_df[split_id_col].isna().to_numpy())
            raise ValueError(f"split file {split}: missing ids in column {split_id_col!r} at rows {rows[:10].tolist()}")
        return sp_df[split_id_col].tolist(), sp_df[split_col].tolist()

    return ent, read_split


def read_split_inputs(table: str, split: str, **representation) -> tuple[EntitySet, list, list]:
    """The entity set of ``table`` and the ids and fold labels of the split file ``split``
    (``representation`` as in :func:`evaluate_split_files`)."""
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
    **representation,
) -> dict:
    """Read an entity table and a split TSV/CSV (columns ``split_id_col``, ``split_col``) and evaluate.

    ``folds``: the fold names the split may use (:func:`check_fold_names`); ``sample``, ``confidence``,
    ``seed``, ``sample_test``: the sampled estimate of :func:`evaluate_split`. ``representation``:
    ``id_col``, ``smiles_col``, ``sequence_col``, ``feature_cols``, ``matrix``, ``matrix_kind``,
    ``metric``, ``split_id_col``, ``split_col``, ``drop_invalid``, ``radius``, ``n_bits``, ``kmer``,
    ``sequence_similarity``, ``sep`` (defaults in :func:`_entities_and_split_reader`).
    """
    ent, ids, labels = read_split_inputs(table, split, **representation)
    report = evaluate_split(ent, ids, labels, test, train, quantiles, folds=folds, sample=sample,
                            confidence=confidence, seed=seed, sample_test=sample_test)
    return {"input": str(table), "split": str(split), **report}


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

    ``representation``: as in :func:`evaluate_split_files`. The entities and their similarity are
    built once. Returns ``{"input", "n_valid", "splits": [row, ...]}`` with one row per split file: its
    fold sizes, L(pi), scaled L(pi), per test fold the mean of eq. (1) (``eq1_mean``) and the mean of
    those over the test folds (``eq1_mean_over_folds``).
    """
    if len(splits) < 1:
        raise ValueError("give at least one split file to compare")
    ent, read_split = _entities_and_split_reader(table, **representation)
    rows = []
    for path in splits:
        ids, labels = read_split(path)
        rep = evaluate_split(ent, ids, labels, test, train, (0.5,), folds=folds)
        eq1 = {f: st["mean"] for f, st in rep["max_train_similarity"].items()}
        rows.append({
            "split": str(path), "n_assigned": rep["n_assigned"], "n_not_in_split": rep["n_not_in_split"],
            "fold_sizes": rep["fold_sizes"], "leakage": rep["leakage"], "scaled_leakage": rep["scaled_leakage"],
            "eq1_mean": eq1, "eq1_mean_over_folds": float(np.mean(list(eq1.values()))) if eq1 else float("nan"),
        })
    return {"input": str(table), "n_valid": int(np.sum(ent.valid)), "splits": rows}


def format_comparison(report: dict) -> str:
    """A fixed-width table of a :func:`compare_split_files` report, one line per split file."""
    width = max([len("split")] + [len(r["split"]) for r in report["splits"]])
    head = f"{'split':<{width}}  {'assigned':>8}  {'folds':>5}  {'scaled L(pi)':>12}  {'eq.(1) mean':>11}"
    lines = [f"{report['n_valid']} valid entities of {report['input']}", head]
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
    """One shard of the exact tiled L(pi) of a split file (:func:`~benchdesign.splitting.leakage.leakage_shard`).

    Returns the shard's number of tiles; combine the shard files with ``benchdesign leakage-reduce``.
    """
    ent, split_ids, split_labels = read_split_inputs(table, split, **read_options)
    if ent.similarity is None:
        raise ValueError("the entity table needs a representation (SMILES, sequences, features or a matrix)")
    kwargs = {} if block_size is None else {"block_size": block_size}
    return leakage_shard(ent.similarity, [split_codes(ent, split_ids, split_labels)], index, n_shards, out, **kwargs)


def leakage_shard_inputs(table: str, split: str, out: str, **read_options) -> int:
    """Write the bit-packed fingerprints and fold codes of a SMILES table's split to the .npz ``out``.

    Computed once, read by every tile job (:func:`leakage_shard_from_inputs`) instead of reparsing the
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
    """One shard of the exact tiled L(pi) from the file of :func:`leakage_shard_inputs` (equal to
    :func:`leakage_shard_files` on the table and split it was made from)."""
    with np.load(inputs, allow_pickle=False) as z:
        missing = {"packed", "n_bits", "codes"} - set(z.files)
        if missing:
            raise ValueError(f"tile inputs file {inputs} lacks {sorted(missing)}: not written by leakage_shard_inputs")
        packed, n_bits, codes = z["packed"], int(z["n_bits"]), z["codes"]
    if codes.shape != (packed.shape[0],):
        raise ValueError(f"tile inputs file {inputs}: {codes.shape} fold codes for {packed.shape[0]} fingerprints")
    kwargs = {} if block_size is None else {"block_size": block_size}
    return leakage_shard(FingerprintSimilarity.from_packed(packed, n_bits), [codes], index, n_shards, out, **kwargs)


def format_report(report: dict) -> str:
    """Human-readable lines of an :func:`evaluate_split` report."""
    sizes = ", ".join(f"{k} {v}" for k, v in report["fold_sizes"].items())
    lines = [
        f"{report['n_assigned']} of {report['n_valid']} valid entities assigned ({sizes}); "
        f"not in split {report['n_not_in_split']}",
        f"L(pi) (eq. 2) {report['leakage']:.6g}; scaled L(pi) (eq. 20) {report['scaled_leakage']:.4f}",
    ]
    if "sampled" in report:
        smp, (lo, hi) = report["sampled"], report["scaled_leakage_ci"]
        lines[-1] += (f" ({smp['n_pairs']} sampled pairs; {100 * smp['confidence']:g}% interval [{lo:.4f}, {hi:.4f}];"
                      f" eq. 1 over <= {smp['n_test_per_fold']} sampled test samples per fold)")
    for fold, st in report["max_train_similarity"].items():
        qs = ", ".join(f"q{k} {v:.3f}" for k, v in st["quantiles"].items())
        lines.append(
            f"max similarity of {fold} samples to {'+'.join(st['train_folds'])} (eq. 1): mean {st['mean']:.4f}, "
            f"median {st['median']:.4f}, {qs}"
        )
    return "\n".join(lines)
