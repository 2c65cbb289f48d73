"""File-level entry point shared by the CLI (`benchdesign split`) and the Snakemake rule.

Output TSV (one row per input row; for 2-D data one row per interaction row), columns:
- ``id``: the id column's value, or the 0-based row number when no id column is given
- ``split``: the fold name, or ``unassigned``
- ``reason``: empty for assigned rows; otherwise ``invalid_smiles`` / ``invalid_sequence`` /
  ``invalid_features`` (row excluded with --drop-invalid) or ``entities_in_different_folds``
  (2-D I2/S2: the interaction's two entities landed in different folds and it was dropped) or
  ``duplicate_pair`` (2-D, ``SplitJob.duplicate_pairs='merge'``: the row repeats the (a, b) pair of an
  earlier row, which alone is split);
  with --max-similarity ``dropped_above_max_similarity`` (unassigned) or ``moved_above_max_similarity``
  (assigned, but moved to another fold than the ILP's)
- ``fold`` (k-fold splits only, ``SplitJob.fold_column``): the fold index 0..k-1, -1 when unassigned
- ``fold_a``, ``fold_b`` (2-D k-fold splits by I2/S2; only the split side's for I1/S1): the fold of the
  interaction's entity of that side. In the default 'cold_both' scheme (``SplitSpec.pair_scheme``)
  fold f tests on the rows with fold_a == fold_b == f (their ``split``/``fold``) and trains on the
  rows with fold_a != f and fold_b != f; rows whose entities are in different folds are tested in no
  fold (``split`` unassigned, reason ``entities_in_different_folds``) but train in k - 2 folds.

``SplitJob.clusters_out`` writes the cluster of each entity (S tasks): columns ``id``, ``cluster``
(1-D) or ``side``, ``id``, ``cluster`` (2-D; -1 for entities without a valid interaction).
``SplitJob.entity_folds_out`` writes the fold of each entity of a 2-D split (I1/I2/S1/S2): columns
``side``, ``id``, ``fold`` (-1 without a valid interaction) and ``split`` (fold name or ``unassigned``).

Outputs are written atomically (temporary file + os.replace): on any error no output file appears.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.files import check_output_paths, write_atomic
from benchdesign.splitting.inputs import (
    ROWS_COUNTED,
    entities_from_table,
    entity_ids,
    index_interactions,
    load_matrix,
    missing_classes,
    read_table,
    require_columns,
)
from benchdesign.splitting.leakage import sampled_leakage
from benchdesign.splitting.mmseqs import IdentitySettings
from benchdesign.splitting.options import (
    DEFAULT_SEQUENCE_SIMILARITY,
    GROUP_TASKS,
    SAMPLED_REPORT_PAIRS,
    STRING_KINDS,
    TASK_TABLE,
)
from benchdesign.splitting.progress import Progress, stage
from benchdesign.splitting.similarity import describe_similarity, describe_text
from benchdesign.splitting.tasks import (
    TASKS,
    UNASSIGNED,
    EntitySet,
    SplitResult,
    SplitSpec,
    split_entities,
    split_groups,
    split_interactions,
    validate_spec,
)

__all__ = [
    "EntityInput", "PairInputs", "PairTables", "SplitJob", "check_job", "clusters_table", "entity_folds_table",
    "duplicate_pairs", "input_note_lines", "load_pairs", "run_split",
    "similarity_entry", "similarity_lines", "solver_summary", "summarize", "summary_words",
    "without_timings", "write_atomic", "write_split_tsv",
]


@dataclass(frozen=True)
class EntityInput:
    """Where one entity table lives and which columns describe its entities.

    Attributes
    ----------
    path : str
        The table (CSV / TSV, optionally compressed).
    id_col : str | None
        Column of the entity ids (None: the row numbers).
    smiles_col : str | None
        Column of SMILES.
    sequence_col : str | None
        Column of protein sequences.
    feature_cols : tuple[str, ...]
        Columns of a feature vector.
    matrix : str | None
        Path of an (n, n) similarity or distance matrix over the rows.
    matrix_kind : str
        ``'similarity'`` or ``'distance'``.
    metric : str
        Similarity of feature vectors: ``'cosine'`` or ``'euclidean'``.
    class_cols : tuple[str, ...]
        Columns of the classes of the stratification.
    sequence_similarity : str
        Of ``sequence_col``: ``'mmseqs'`` identity with coverage, ``'alignment'`` identity or ``'kmer'`` cosine.
    identity : IdentitySettings | None
        For ``'mmseqs'``: what counts as similar (coverage) and the search (None: the defaults).
    repeated : bool
        Rows repeat entities (one long pairs table): one entity per id, its first row.
    string_col : str | None
        SMILES or sequences, told apart when read.

    Examples
    --------
    >>> from benchdesign.splitting import EntityInput
    >>> molecules = EntityInput("molecules.csv", id_col="id", smiles_col="smiles", class_cols=("active",))
    >>> molecules.smiles_col, molecules.class_cols, molecules.matrix_kind
    ('smiles', ('active',), 'similarity')
    >>> EntityInput("proteins.csv", sequence_col="sequence").sequence_similarity
    'mmseqs'
    """

    path: str
    id_col: str | None = None
    smiles_col: str | None = None
    sequence_col: str | None = None
    feature_cols: tuple[str, ...] = ()
    matrix: str | None = None
    matrix_kind: str = "similarity"
    metric: str = "cosine"
    class_cols: tuple[str, ...] = ()
    sequence_similarity: str = DEFAULT_SEQUENCE_SIMILARITY  # of sequence_col: 'mmseqs' | 'alignment' | 'kmer'
    identity: IdentitySettings | None = None  # for 'mmseqs': coverage and search (None: the defaults)
    repeated: bool = False  # rows repeat entities (one long pairs table): one entity per id, its first row
    string_col: str | None = None  # SMILES or sequences, told apart when read (``resolved``)


@dataclass(frozen=True)
class SplitJob:
    """A complete split request: task, inputs, options and output paths (what ``benchdesign split`` runs).

    For 1-D data only ``entities`` is needed; for 2-D data give ``interactions`` (with its two id
    columns) and ``entities_b`` for the second side (``entities`` is side a).

    Attributes
    ----------
    task : str
        R, I1, I2, S1, S2, or a group task (scaffold, butina).
    entities : EntityInput
        The entities (side a of 2-D data).
    out : str
        Path of the split TSV.
    spec : SplitSpec
        Fold names, fractions and the split options.
    interactions : str | None
        Path of the interaction table of 2-D data.
    inter_a_col : str
        Its column of side-a ids.
    inter_b_col : str
        Its column of side-b ids.
    inter_id_col : str | None
        Its column of interaction ids (None: the row numbers).
    entities_b : EntityInput | None
        The entities of side b.
    side : str
        For I1 / S1 on 2-D data, the side whose entities are split.
    drop_invalid : bool
        Keep invalid rows out of the split (and report them) instead of failing.
    radius : int
        Morgan radius of the fingerprints.
    n_bits : int
        Fingerprint length.
    kmer : int
        k of the sequence k-mers.
    report : str | None
        Path of the JSON report (None: none).
    fold_column : bool
        k-fold splits: add the fold index column.
    clusters_out : str | None
        Path of a TSV of the cluster of each entity (S tasks).
    entity_folds_out : str | None
        2-D: path of a TSV of the fold of every entity (side, id, fold, split).
    sep : str | None
        Delimiter of every input table (None: sniffed).
    summary : bool
        1-D splits with a certificate: add the summary block (each fold's nearest-neighbour view beside
        random splits of the same fold sizes; ``split_summary``). False: the certificate's line only.
    scaffold_baseline : bool
        Add a Bemis-Murcko scaffold split of the same fractions to the summary (needs SMILES; on Tox21 it
        costs more CPU than the rest of the summary, hence off by default).
    clean_sequences : bool
        Remove digits, whitespace and gap / stop characters from protein sequences instead of refusing them
        (``sequences.check_sequences``); the report's ``sequences`` counts the changed ones.
    duplicate_pairs : str
        2-D data: rows whose (a, b) pair repeats an earlier row's: ``'keep'`` (split as rows of their own),
        ``'merge'`` (the first row of each pair is split, the others unassigned with reason ``duplicate_pair``)
        or ``'refuse'`` (an error naming them, before any similarity is computed). Counted in the report's
        ``duplicate_pairs`` whatever the choice.

    Examples
    --------
    >>> from benchdesign.splitting import EntityInput, SplitJob, kfold_spec
    >>> job = SplitJob("S1", EntityInput("molecules.csv", smiles_col="smiles"), "split.tsv", kfold_spec(5),
    ...                fold_column=True)
    >>> job.spec.names, job.interactions, job.radius, job.n_bits
    (('fold0', 'fold1', 'fold2', 'fold3', 'fold4'), None, 2, 1024)
    """

    task: str
    entities: EntityInput
    out: str
    spec: SplitSpec = field(default_factory=SplitSpec)
    interactions: str | None = None
    inter_a_col: str = "id_a"
    inter_b_col: str = "id_b"
    inter_id_col: str | None = None
    entities_b: EntityInput | None = None
    side: str = "a"
    drop_invalid: bool = False
    radius: int = 2
    n_bits: int = 1024
    kmer: int = 3
    report: str | None = None
    fold_column: bool = False
    clusters_out: str | None = None
    entity_folds_out: str | None = None  # 2-D: TSV of the fold of every entity (side, id, fold, split)
    sep: str | None = None  # delimiter of every input table; None: sniffed (benchdesign.files.sniff_sep)
    summary: bool = True
    scaffold_baseline: bool = False
    clean_sequences: bool = False
    duplicate_pairs: str = "keep"  # 2-D rows repeating an (a, b) pair: DUPLICATE_PAIRS


DUPLICATE_PAIRS = ("keep", "merge", "refuse")
"""What ``SplitJob.duplicate_pairs`` does with 2-D rows whose (a, b) pair repeats an earlier row's."""


def _read_side(inp: EntityInput, job: SplitJob, what: str) -> pd.DataFrame:
    """Read one entity table and check that every column it names is there (before any parsing)."""
    df = read_table(inp.path, [c for c in (inp.id_col,) if c], sep=job.sep, what=f"{what} table")
    cols = [(inp.id_col, "id column"), (inp.smiles_col, "SMILES column"), (inp.sequence_col, "sequence column"),
            (inp.string_col, "SMILES or sequence column")]
    cols += [(c, "feature column") for c in inp.feature_cols] + [(c, "class column") for c in inp.class_cols]
    require_columns(df, cols, f"{what} {inp.path}")
    return unique_entities(df, inp, what) if inp.repeated else df


def unique_entities(df: pd.DataFrame, inp: EntityInput, what: str) -> pd.DataFrame:
    """The first row of every id of a long pairs table, keeping its row label (data rows from 0), so errors
    name the pair table's rows; a missing id, or an id written with two different values, is refused."""
    value = inp.smiles_col or inp.sequence_col or inp.string_col
    missing = df.index[df[inp.id_col].isna().to_numpy()]
    if missing.size:
        raise ValueError(f"{what} {inp.path}: {missing.size} rows without a value in column {inp.id_col!r}: rows "
                         f"{missing[:10].tolist()}{' ...' if missing.size > 10 else ''} {ROWS_COUNTED}; fill or "
                         "remove them")
    ids = df[inp.id_col].astype(str).str.strip()
    if value is not None and value != inp.id_col:
        values = df.groupby(ids, sort=False)[value].nunique(dropna=False)
        if (values > 1).any():
            bad = values.index[values > 1]
            raise ValueError(f"{what} {inp.path}: {bad.size} ids of column {inp.id_col!r} have several values in "
                             f"column {value!r}, e.g. {bad[0]!r}; one id must name one entity")
    return df.loc[~ids.duplicated().to_numpy()]


def pair_table_inputs(path: str, a_col: str, b_col: str, a_id_col: str | None = None, b_id_col: str | None = None,
                      kinds: tuple[str, str] = ("auto", "auto"),
                      sequence_similarity: str = DEFAULT_SEQUENCE_SIMILARITY,
                      identity: IdentitySettings | None = None) -> tuple[EntityInput, EntityInput]:
    """The two entity inputs of one long table with a row per pair (e.g. ligand SMILES, target sequence).

    Each side's entities are the distinct values of ``a_col`` / ``b_col`` (or of the id columns when
    given: then one id must have one value), so a molecule or a sequence written in many rows is one
    entity and lands in one fold. ``kinds``: 'smiles', 'sequence' or 'auto' (told apart by the alphabet
    when the table is read, ``detect_string_kind``). The
    interactions are the table's rows, with ``a_id_col or a_col`` and ``b_id_col or b_col`` as ids.
    """
    sides = []
    for col, id_col, kind, option in ((a_col, a_id_col, kinds[0], "--a-kind"), (b_col, b_id_col, kinds[1], "--b-kind")):
        if kind not in STRING_KINDS:
            raise ValueError(f"{option} must be one of {STRING_KINDS}, got {kind!r}")
        column = {"auto": "string_col", "smiles": "smiles_col", "sequence": "sequence_col"}[kind]
        sides.append(EntityInput(path=path, id_col=id_col or col, repeated=True,
                                 sequence_similarity=sequence_similarity, identity=identity, **{column: col}))
    return sides[0], sides[1]


def resolved(inp: EntityInput, df: pd.DataFrame) -> EntityInput:
    """``inp`` with its ``string_col`` read as a SMILES or a sequence column, by the alphabet of its values."""
    if inp.string_col is None:
        return inp
    from benchdesign.splitting.similarity import detect_string_kind

    kind = detect_string_kind(df[inp.string_col].dropna().astype(str).unique().tolist())
    column = "smiles_col" if kind == "smiles" else "sequence_col"
    return dataclasses.replace(inp, string_col=None, **{column: inp.string_col})


def _build_side(df: pd.DataFrame, inp: EntityInput, job: SplitJob, what: str) -> EntitySet:
    """The [`EntitySet`][] of a table read by ``_read_side`` (fingerprints / k-mers computed here)."""
    inp = resolved(inp, df)
    matrix = load_matrix(inp.matrix) if inp.matrix else None
    return entities_from_table(
        df, id_col=inp.id_col, smiles_col=inp.smiles_col, sequence_col=inp.sequence_col,
        feature_cols=inp.feature_cols, matrix=matrix, matrix_kind=inp.matrix_kind, class_cols=inp.class_cols,
        drop_invalid=job.drop_invalid, metric=inp.metric, radius=job.radius, n_bits=job.n_bits, kmer=job.kmer,
        what=what, sequence_similarity=inp.sequence_similarity, identity=inp.identity,
        clean_sequences=job.clean_sequences,
    )


@dataclass(frozen=True)
class PairInputs:
    """Where 2-D data live (an interaction table and one entity table per side) and how to read them; the
    reading fields of [`SplitJob`][] (``benchdesign leakage`` reads a 2-D split's inputs with it)."""

    interactions: str
    entities: EntityInput
    entities_b: EntityInput
    inter_a_col: str = "id_a"
    inter_b_col: str = "id_b"
    inter_id_col: str | None = None
    drop_invalid: bool = False
    radius: int = 2
    n_bits: int = 1024
    kmer: int = 3
    sep: str | None = None
    clean_sequences: bool = False


@dataclass(frozen=True)
class PairTables:
    """2-D inputs read and checked: interaction ids, each row's entity index per side, both entity sets; the
    rows repeating an earlier row's (a, b) pair (``duplicates``, [`duplicate_pairs`][]) and, when they are
    merged, which rows are split (``keep``; None: every row)."""

    ids: np.ndarray
    index_a: np.ndarray
    index_b: np.ndarray
    side_a: EntitySet
    side_b: EntitySet
    table_a: pd.DataFrame
    table_b: pd.DataFrame
    duplicates: dict = field(default_factory=dict)
    keep: np.ndarray | None = None


def duplicate_pairs(index_a: np.ndarray, index_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows whose (a, b) entity pair repeats an earlier row's, and for each row the first row of its pair.

    Parameters
    ----------
    index_a : np.ndarray
        (m,) entity index of side a per row.
    index_b : np.ndarray
        (m,) entity index of side b per row.

    Returns
    -------
    repeats : np.ndarray
        (m,) bool: the row repeats the pair of an earlier row.
    first : np.ndarray
        (m,) the first row of each row's pair (the row itself when it is the first).

    Examples
    --------
    >>> from benchdesign.splitting.pipeline import duplicate_pairs
    >>> duplicate_pairs(np.array([0, 1, 0, 0]), np.array([0, 0, 0, 1]))
    (array([False, False,  True, False]), array([0, 1, 0, 3]))
    """
    ia, ib = np.asarray(index_a, dtype=np.int64), np.asarray(index_b, dtype=np.int64)
    if ia.size == 0:
        return np.zeros(0, dtype=bool), np.zeros(0, dtype=np.int64)
    codes, _ = pd.factorize(ia * (int(ib.max()) + 1) + ib)  # codes in order of first appearance
    first = np.unique(codes, return_index=True)[1][codes]
    return first != np.arange(ia.size), first.astype(np.int64)


def _pair_text(value: object) -> str:
    text = str(value)
    return repr(text if len(text) <= 30 else text[:30] + "...")


def _duplicate_record(src: SplitJob | PairInputs, inter: pd.DataFrame, ids_a: np.ndarray, ids_b: np.ndarray,
                      ia: np.ndarray, ib: np.ndarray, mode: str) -> tuple[dict, np.ndarray | None]:
    """The report's ``duplicate_pairs`` (mode, counts, the first rows with their pairs) and, for 'merge', the
    rows that are split; 'refuse' raises ValueError naming the first rows."""
    repeats, first = duplicate_pairs(ia, ib)
    rows = np.flatnonzero(repeats)
    labels = inter.index
    shown = [{"row": int(labels[r]), "first_row": int(labels[first[r]]), "a": str(ids_a[ia[r]]),
              "b": str(ids_b[ib[r]])} for r in rows[:10]]
    record = {"mode": mode, "n_rows": int(rows.size), "n_pairs": int(np.unique(first[rows]).size), "rows": shown}
    if rows.size and mode == "refuse":
        listed = "; ".join(f"row {d['row']} = row {d['first_row']} ({_pair_text(d['a'])}, {_pair_text(d['b'])})"
                           for d in shown) + (f" and {rows.size - 10} more" if rows.size > 10 else "")
        raise ValueError(f"interactions {src.interactions}: {rows.size} rows repeat the (a, b) pair of an earlier row: "
                         f"{listed} {ROWS_COUNTED}. Remove them, or pass --duplicate-pairs keep (split as rows of "
                         "their own) or merge (the first row of each pair is split, the others unassigned)")
    return record, (~repeats if rows.size and mode == "merge" else None)


def duplicate_pair_lines(record: dict | None) -> list[str]:
    """The console line of the report's ``duplicate_pairs`` (none without repeated pairs)."""
    if not record or not record.get("n_rows"):
        return []
    n, shown = record["n_rows"], record["rows"]
    rows = ", ".join(f"row {d['row']} = row {d['first_row']}" for d in shown[:3]) + (" ..." if n > 3 else "")
    what = ("unassigned with reason duplicate_pair (--duplicate-pairs merge)" if record["mode"] == "merge"
            else "kept as rows of their own: each counts in the fold sizes (--duplicate-pairs merge or refuse to "
                 "change that)")
    return [f"note: {n} row{'s repeat' if n != 1 else ' repeats'} the (a, b) pair of an earlier row ({rows}; "
            f"{record['n_pairs']} distinct pairs): {what}"]


def load_pairs(src: SplitJob | PairInputs, check: Callable[[np.ndarray], None] | None = None,
               duplicate_pairs: str = "keep") -> PairTables:
    """Read the interaction table and both entity tables of ``src``; every column and id is checked, and
    ``check`` called with the interaction ids, before any fingerprint or alignment is computed (stage
    ``similarity``). Rows repeating an earlier row's (a, b) pair are counted (``PairTables.duplicates``)
    and, by ``duplicate_pairs`` (``SplitJob.duplicate_pairs``), kept, merged (``PairTables.keep``) or
    refused."""
    if duplicate_pairs not in DUPLICATE_PAIRS:
        raise ValueError(f"duplicate_pairs must be one of {DUPLICATE_PAIRS}, got {duplicate_pairs!r}")
    inter = read_table(src.interactions, [c for c in (src.inter_a_col, src.inter_b_col, src.inter_id_col) if c],
                       sep=src.sep, what="interaction table")
    require_columns(inter, [(src.inter_a_col, "--inter-a-col"), (src.inter_b_col, "--inter-b-col"),
                            (src.inter_id_col, "--inter-id-col")], f"interactions {src.interactions}")
    df_a = _read_side(src.entities, src, "input (side a)")
    df_b = _read_side(src.entities_b, src, "input (side b)")
    ids_a = entity_ids(df_a, src.entities.id_col, "input (side a)")
    ids_b = entity_ids(df_b, src.entities_b.id_col, "input (side b)")
    ia, ib = index_interactions(inter[src.inter_a_col].tolist(), inter[src.inter_b_col].tolist(), ids_a, ids_b,
                                src.inter_a_col, src.inter_b_col)
    ids = entity_ids(inter, src.inter_id_col, "interactions")
    duplicates, keep = _duplicate_record(src, inter, ids_a, ids_b, ia, ib, duplicate_pairs)
    if check is not None:
        check(ids)
    with stage("similarity"):
        ent_a = _build_side(df_a, src.entities, src, "input (side a)")
        ent_b = _build_side(df_b, src.entities_b, src, "input (side b)")
    return PairTables(ids, ia, ib, ent_a, ent_b, df_a, df_b, duplicates, keep)


def _check_group_task(job: SplitJob, task: str) -> None:
    """A scaffold / Butina split: 1-D data, SMILES for scaffolds, a similarity for Butina; outputs checked."""
    if job.interactions is not None:
        raise ValueError(f"task {task} splits 1-D data (one entity table), not pairs")
    inp = job.entities
    if task == "scaffold" and not inp.smiles_col:
        raise ValueError("task scaffold needs the molecules' SMILES: give --smiles-col")
    if task == "butina" and not (inp.smiles_col or inp.sequence_col or inp.feature_cols or inp.matrix):
        raise ValueError("task butina needs a similarity: give a SMILES, sequence or feature column(s), or a matrix")
    for flag, value in (("--entity-folds", job.entity_folds_out), ("--clusters-out", job.clusters_out)):
        if value:
            raise ValueError(f"{flag} is not written by task {task}")
    check_output_paths({"--out": job.out, "--report": job.report},
                       {"--input": inp.path, "--matrix": inp.matrix})


def _check_summary_options(job: SplitJob, two_d: bool) -> None:
    """``scaffold_baseline`` is part of the 1-D summary of molecules given as SMILES."""
    if not job.scaffold_baseline:
        return
    if not job.summary:
        raise ValueError("--scaffold-baseline adds a line to the summary; it cannot be combined with --no-summary")
    if two_d or not job.entities.smiles_col:
        raise ValueError("--scaffold-baseline compares with a scaffold split of the molecules: it needs 1-D data "
                         "with --smiles-col")


def check_job(job: SplitJob) -> None:
    """Every option and output path of a split request, checked before any input is parsed."""
    validate_spec(job.spec)
    if job.duplicate_pairs not in DUPLICATE_PAIRS:
        raise ValueError(f"duplicate_pairs (--duplicate-pairs) must be one of {', '.join(DUPLICATE_PAIRS)}, got "
                         f"{job.duplicate_pairs!r}")
    task = job.task.upper()
    two_d = job.interactions is not None
    _check_summary_options(job, two_d)
    if task.lower() in GROUP_TASKS:
        _check_group_task(job, task.lower())
        return
    if task not in TASKS:
        raise ValueError(f"unknown task {job.task!r}; choose from {TASKS + tuple(GROUP_TASKS)}")
    if not two_d and job.entities_b is not None:
        raise ValueError("a second entity table needs an interaction table (--interactions)")
    if two_d and job.entities_b is None:
        raise ValueError("2-D data needs an entity table for each side (--input and --input-b)")
    kind = TASK_TABLE[task]
    if not two_d and kind.two_sided:
        raise ValueError(f"task {task} splits 2-D data: give --interactions and --input-b")
    if job.side not in ("a", "b"):
        raise ValueError(f"side must be 'a' or 'b', got {job.side!r}")
    if job.radius < 0 or job.n_bits < 8 or job.kmer < 1:
        raise ValueError(f"need --fp-radius >= 0, --fp-bits >= 8 and --kmer >= 1; got {job.radius}, {job.n_bits}, "
                         f"{job.kmer}")
    sides = [("--input", job.entities)] + ([("--input-b", job.entities_b)] if job.entities_b else [])
    for option, inp in sides:
        if inp.matrix_kind not in ("similarity", "distance"):
            raise ValueError(f"matrix kind of {option} must be 'similarity' or 'distance', got {inp.matrix_kind!r}")
        if inp.metric not in ("cosine", "euclidean"):
            raise ValueError(f"metric of {option} must be 'cosine' or 'euclidean', got {inp.metric!r}")
        one_side = not two_d or (option == "--input") == (job.side == "a")
        needs = kind.by_similarity and (kind.two_sided or one_side)
        if needs and not (inp.smiles_col or inp.sequence_col or inp.string_col or inp.feature_cols or inp.matrix):
            raise ValueError(f"task {task} needs a similarity for {option}: give a SMILES, sequence or feature "
                             "column(s), or a matrix")
    inputs = {"--input": job.entities.path, "--matrix": job.entities.matrix, "--interactions": job.interactions}
    if job.entities_b is not None:
        inputs.update({"--input-b": job.entities_b.path, "--matrix-b": job.entities_b.matrix})
    if job.entity_folds_out and (not two_d or kind.is_random):
        raise ValueError(f"--entity-folds needs a 2-D split (--interactions) by I1, I2, S1 or S2; task {task} "
                         f"{'splits no entities' if two_d else 'on 1-D data has no entity sides'}")
    check_output_paths({"--out": job.out, "--report": job.report, "--clusters-out": job.clusters_out,
                        "--entity-folds": job.entity_folds_out}, inputs)


def write_split_tsv(path: str | Path, ids: Sequence[object], result: SplitResult, fold_column: bool = False) -> None:
    """Atomically write the ``id``/``split``/``reason`` TSV (plus ``fold`` and, for 2-D data, ``fold_a`` /
    ``fold_b`` with ``fold_column``)."""
    table = pd.DataFrame({"id": list(ids), "split": result.labels(), "reason": result.reason})
    if fold_column:
        table["fold"] = result.fold
        for sd, folds in sorted(result.pair_folds.items()):
            table[f"fold_{sd}"] = folds
    write_atomic(path, table.to_csv(sep="\t", index=False, lineterminator="\n"))


def clusters_table(result: SplitResult, ids: Sequence[object] | dict) -> pd.DataFrame:
    """Cluster id per entity: ``id``, ``cluster`` (1-D; ``ids`` the entity ids) or ``side``, ``id``, ``cluster``
    (2-D; ``ids`` maps side 'a'/'b' to that side's entity ids)."""
    if result.clusters is None:
        raise ValueError("no clusters to write: only the similarity-based tasks S1 and S2 cluster the entities")
    if isinstance(result.clusters, dict):
        parts = [pd.DataFrame({"side": sd, "id": list(ids[sd]), "cluster": cl}) for sd, cl in result.clusters.items()]
        return pd.concat(parts, ignore_index=True)
    return pd.DataFrame({"id": list(ids), "cluster": result.clusters})


def entity_folds_table(result: SplitResult, ids: dict) -> pd.DataFrame:
    """Fold per entity of each split side of a 2-D split: ``side``, ``id``, ``fold`` and ``split`` (fold name or
    ``unassigned`` for entities without a valid interaction); ``ids`` maps side 'a'/'b' to its entity ids."""
    if not result.entity_folds:
        raise ValueError("no entity folds to write: only 2-D splits by I1, I2, S1 or S2 assign entities to folds")
    names = np.asarray(list(result.names) + [UNASSIGNED], dtype=object)
    parts = [pd.DataFrame({"side": sd, "id": list(ids[sd]), "fold": f,
                           "split": names[np.where(f >= 0, f, len(result.names))]})
             for sd, f in sorted(result.entity_folds.items())]
    return pd.concat(parts, ignore_index=True)


def _json_default(obj: object) -> object:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj)}")


def run_split(job: SplitJob, progress: Progress | None = None) -> SplitResult:
    """Read the inputs, split, and write the TSV (and the JSON report when ``job.report`` is set).

    Stage timings (similarity / split / write, nested stages as ``split/leaders`` ...) go to
    ``progress`` (default: a [`Progress`][] logging to ``benchdesign.progress``, ``benchdesign.logs``) and
    into the report as ``stage_seconds`` (wall) and ``stage_cpu_seconds`` (CPU, with the worker processes).
    The report's ``similarity`` records what compared the entities (``similarity_entry``; 2-D: per side
    ``a`` / ``b``).

    Parameters
    ----------
    job : SplitJob
        The request.
    progress : Progress | None
        Where stage timings go (None: a [`Progress`][] on the ``benchdesign.progress`` logger).

    Returns
    -------
    SplitResult
        The split, also written to ``job.out``.

    Examples
    --------
    Four molecules, ethanol written twice and two aromatics, split S1 in halves; each pair stays in one fold:

    >>> import pathlib
    >>> import tempfile
    >>> import pandas as pd
    >>> from benchdesign.splitting import EntityInput, SplitJob, SplitSpec, run_split
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"id": ["m1", "m2", "m3", "m4"], "smiles": ["CCO", "OCC", "c1ccccc1", "Cc1ccccc1"]}).to_csv(
    ...     folder / "molecules.csv", index=False)
    >>> job = SplitJob("S1", EntityInput(str(folder / "molecules.csv"), id_col="id", smiles_col="smiles"),
    ...                str(folder / "split.tsv"), SplitSpec(fractions=(0.5, 0.5), clusters=2))
    >>> result = run_split(job)
    >>> result.labels().tolist()
    ['train', 'train', 'test', 'test']
    >>> table = pd.read_table(folder / "split.tsv")
    >>> table["id"].tolist(), table["split"].tolist()
    (['m1', 'm2', 'm3', 'm4'], ['train', 'train', 'test', 'test'])
    >>> [name for name in result.report["stage_seconds"] if "/" not in name]
    ['similarity', 'split', 'summary', 'write']
    """
    check_job(job)
    prog = Progress() if progress is None else progress
    start = time.perf_counter()
    with prog.activate():
        result, ids, cluster_ids = _split_job(job)
        with stage("write"):
            # the cluster table first: it may be refused (task without clusters) before anything is written
            clusters = clusters_table(result, cluster_ids) if job.clusters_out else None
            entity_folds = entity_folds_table(result, cluster_ids) if job.entity_folds_out else None
            write_split_tsv(job.out, ids, result, job.fold_column)
            if clusters is not None:
                write_atomic(job.clusters_out, clusters.to_csv(sep="\t", index=False, lineterminator="\n"))
            if entity_folds is not None:
                write_atomic(job.entity_folds_out, entity_folds.to_csv(sep="\t", index=False, lineterminator="\n"))
    result.report["stage_seconds"] = prog.rounded()
    result.report["stage_cpu_seconds"] = prog.rounded(cpu=True)
    result.report["total_seconds"] = round(time.perf_counter() - start, 3)
    if job.report:
        write_atomic(job.report, json.dumps(result.report, indent=2, default=_json_default) + "\n")
    return result


def without_timings(report: object) -> object:
    """A copy of a split's JSON report without its timings: every key ``seconds`` or ending in ``_seconds``, at
    any depth (``stage_seconds``, ``stage_cpu_seconds``, ``total_seconds``, ``solver_seconds``,
    ``clustering_seconds``, ``summary.solver.seconds``).

    Everything else of the report is the same for two runs of one split when the ILP ends by optimality or by
    its node limit (not by its time limit): compare or digest this copy, e.g.
    ``hashlib.sha256(json.dumps(without_timings(report), sort_keys=True).encode()).hexdigest()``.

    Parameters
    ----------
    report : object
        The report (a dict loaded from the JSON file), or any part of it.

    Returns
    -------
    object
        The same structure without the timing keys.

    Examples
    --------
    >>> from benchdesign.splitting import without_timings
    >>> report = {"task": "S1", "total_seconds": 1.2, "stage_seconds": {"split": 1.0},
    ...           "summary": {"solver": {"status": "optimal", "seconds": 0.4}}, "folds": [{"n": 3, "seconds": 0.1}]}
    >>> without_timings(report)
    {'task': 'S1', 'summary': {'solver': {'status': 'optimal'}}, 'folds': [{'n': 3}]}
    """
    if isinstance(report, dict):
        return {k: without_timings(v) for k, v in report.items()
                if not (isinstance(k, str) and (k == "seconds" or k.endswith("_seconds")))}
    if isinstance(report, list):
        return [without_timings(v) for v in report]
    return report


SAMPLED_REPORT_MIN = 100_000  # from this many entities the report adds a sampled L(pi) with intervals


def _sampled_report(ent: EntitySet, result: SplitResult, seed: int) -> dict:
    """Sampled scaled L(pi) (eq. 20) with 95 % intervals of the split and of a random split of the same
    fold sizes (the reference), for 1-D data too large for the exact pass."""
    folds = result.fold[np.asarray(ent.valid, dtype=bool)]
    rng = np.random.default_rng(seed)
    reference = folds.copy()
    assigned = np.flatnonzero(folds >= 0)
    reference[assigned] = folds[rng.permutation(assigned)]
    out = {"n_pairs": SAMPLED_REPORT_PAIRS, "confidence": 0.95}
    for name, f in (("split", folds), ("random", reference)):
        est = sampled_leakage(ent.similarity, f, SAMPLED_REPORT_PAIRS, seed=seed)
        out[name] = {"scaled_leakage": est.scaled, "scaled_leakage_ci": list(est.scaled_ci)}
    return out


def _split_job(job: SplitJob) -> tuple[SplitResult, Sequence[object], Sequence[object] | dict]:
    """Split ``job``: the result, the ids of the TSV's rows, and the entity ids of the cluster table."""
    task = job.task.upper()
    if job.interactions is None:
        df = _read_side(job.entities, job, "input")
        with stage("similarity"):
            ent = _build_side(df, job.entities, job, "input")
        with stage("split"):
            if task.lower() in GROUP_TASKS:
                result = split_groups(task.lower(), ent, _groups(task.lower(), df, job, ent), job.spec)
            else:
                result = split_entities(task, ent, job.spec)
        result.report["similarity"] = similarity_entry(ent, job.entities)
        result.report.update(ent.notes)
        if "certificate" in result.report and job.summary:
            with stage("summary"):
                result.report["summary"] = _split_summary(df, ent, job, result)
        if ent.similarity is not None and ent.similarity.n >= SAMPLED_REPORT_MIN:
            with stage("leakage_estimate"):
                result.report["sampled_leakage"] = _sampled_report(ent, result, job.spec.seed)
        ids = cluster_ids = ent.ids
        missing = {"input": missing_classes(df, job.entities.class_cols)}
    else:
        # unknown ids of both sides (and refused duplicate pairs) reported before any fingerprint is computed
        pairs = load_pairs(job, duplicate_pairs=job.duplicate_pairs)
        ids, ent_a, ent_b, df_a, df_b = pairs.ids, pairs.side_a, pairs.side_b, pairs.table_a, pairs.table_b
        with stage("split"):
            keep = np.ones(len(ids), dtype=bool) if pairs.keep is None else pairs.keep
            result = split_interactions(task, pairs.index_a[keep], pairs.index_b[keep], ent_a, ent_b, job.spec,
                                        side=job.side)
            if pairs.keep is not None:
                result = _with_merged_rows(result, keep, "duplicate_pair", job.spec)
        result.report["similarity"] = {"a": similarity_entry(ent_a, job.entities),
                                       "b": similarity_entry(ent_b, job.entities_b)}
        result.report["duplicate_pairs"] = pairs.duplicates
        notes = {sd: ent.notes["sequences"] for sd, ent in (("a", ent_a), ("b", ent_b)) if "sequences" in ent.notes}
        if notes:
            result.report["sequences"] = notes
        cluster_ids = {"a": ent_a.ids, "b": ent_b.ids}
        missing = {"side_a": missing_classes(df_a, job.entities.class_cols),
                   "side_b": missing_classes(df_b, job.entities_b.class_cols)}
    missing = {side: cols for side, cols in missing.items() if cols}
    if missing:  # rows without a class value are split, but count for no class of that column in eq. (4)
        result.report["rows_without_class"] = {
            side: {col: {"n": len(rows), "rows": rows[:20]} for col, rows in cols.items()} for side, cols in missing.items()
        }
    return result, ids, cluster_ids


def _with_merged_rows(result: SplitResult, keep: np.ndarray, reason: str, spec: SplitSpec) -> SplitResult:
    """``result`` of the rows ``keep`` spread over every row: the others unassigned with ``reason`` (no fold, no
    entity folds), the report's ``n_rows`` and ``fold_usage`` over every row."""
    from benchdesign.splitting.tasks import fold_usage

    fold = np.full(keep.size, -1, dtype=np.int64)
    fold[keep] = result.fold
    why = np.full(keep.size, reason, dtype=object)
    why[keep] = result.reason
    pair_folds = {}
    for sd, folds in result.pair_folds.items():
        pair_folds[sd] = np.full(keep.size, -1, dtype=np.int64)
        pair_folds[sd][keep] = folds
    merged = dataclasses.replace(result, fold=fold, reason=why, pair_folds=pair_folds,
                                 report={**result.report, "n_rows": int(keep.size)})
    if spec.balanced:
        merged.report["fold_usage"] = fold_usage(merged)
    return merged


def _groups(task: str, df: pd.DataFrame, job: SplitJob, ent: EntitySet) -> np.ndarray:
    """The groups of a scaffold or Butina split, over the valid entities."""
    from benchdesign.splitting.groups import butina_clusters, murcko_scaffolds

    if task == "scaffold":
        smiles = df[job.entities.smiles_col].astype(str).to_numpy()[np.asarray(ent.valid)]
        return np.unique(murcko_scaffolds(list(smiles)), return_inverse=True)[1].reshape(-1)
    return butina_clusters(ent.similarity, job.spec.butina_threshold, job.spec.block_size)


def summary_words(entry: dict | None, smiles: bool) -> dict:
    """How the summary block names the samples and their similarity (molecules and Tanimoto for ECFP of SMILES)."""
    kind = entry.get("kind") if entry else None
    if kind == "mmseqs_identity":
        return {"noun": "sequences", "similarity": "identity"}
    tanimoto = kind == "fingerprint_tanimoto"
    return {"noun": "molecules" if smiles else "samples", "similarity": "Tanimoto" if tanimoto else "similarity"}


def _split_summary(df: pd.DataFrame, ent: EntitySet, job: SplitJob, result: SplitResult) -> dict:
    """The summary block (summary.py) of a 1-D split with a certificate, plus the solver's status in words."""
    from collections import Counter

    from benchdesign.splitting.summary import split_summary

    rep, valid = result.report, np.asarray(ent.valid, dtype=bool)
    entry = rep.get("similarity")
    col = job.entities.smiles_col
    molecules = bool(col and entry and entry.get("kind") == "fingerprint_tanimoto")
    smiles = df[col].astype(str).to_numpy()[valid].tolist() if molecules and job.scaffold_baseline else None
    left = Counter(str(r) or "none" for r in result.reason[result.fold < 0])
    out = split_summary(ent.similarity, result.fold[valid], result.names, rep["certificate"], seed=job.spec.seed,
                        requested=rep.get("requested_fractions"), smiles=smiles, unassigned=dict(sorted(left.items())),
                        words=summary_words(entry, molecules), class_counts=rep.get("class_fold_counts"),
                        stratification=rep.get("stratification"), max_similarity=job.spec.max_similarity)
    if "solver_status" in rep:
        out["solver"] = solver_summary(rep, job.spec.time_limit, job.spec.node_limit)
    return out


REFINE_SUBSTANTIAL = 0.01  # the refinement lowered the ILP's leakage by at least this share: it dominates the result


def _longer_limit(rep: dict, cert: dict) -> tuple[bool, str]:
    """Whether a longer time limit is likely to help a split the solver stopped at the limit, and why."""
    ilp, final = rep.get("ilp_scaled_leakage"), cert["scaled_leakage"]
    gain = 1.0 - final / ilp if rep.get("refined") and ilp else 0.0
    weak = cert.get("ilp_scaled_lower_bound", 0.0) < cert.get("scaled_lower_bound", 0.0)
    why = []
    if gain >= REFINE_SUBSTANTIAL:
        why.append(f"the refinement lowered the ILP's leakage by {gain:.1%}, so the result depends little on the "
                   "ILP's exact optimum")
    if weak:
        why.append("the ILP's remaining gap is that of its cluster-level proxy (its own lower bound "
                   f"{cert.get('ilp_scaled_lower_bound', 0.0):.4f} is below the bound above)")
    if why:
        return False, "a longer --time-limit is unlikely to help: " + "; ".join(why)
    return True, (f"a longer --time-limit may help: the ILP stopped {rep.get('ilp_gap', 1.0):.1%} above its own lower "
                  "bound and the refinement changed little")


SOLVER_NAMES = {"HIGHS": "HiGHS", "GUROBI": "Gurobi", "GLPK_MI": "GLPK", "SCIP": "SCIP", "CBC": "CBC"}


def solver_summary(rep: dict, time_limit: float | None, node_limit: int | None = None) -> dict:
    """The solver's status in words: one bound on the split's leakage (the certificate's, over every split of
    the micro-clusters) and its gap, and whether a longer time limit is likely to help.

    The words hold no time (the ``seconds`` entry does), so that two runs of one split write the same text;
    a solve the clock stopped says that its folds depend on the machine and its load (``time_limit_words``).
    """
    from benchdesign.splitting.ilp import time_limit_words

    cert, status = rep.get("certificate", {}), rep["solver_status"]
    out: dict = {"status": status, "seconds": rep.get("solver_seconds"), "time_limit": time_limit,
                 "node_limit": node_limit, "scaled_lower_bound": cert.get("scaled_lower_bound"), "gap": cert.get("gap")}
    name = SOLVER_NAMES.get(str(rep["solver"]).upper(), rep["solver"])
    if status == "time_limit":
        head = (time_limit_words(time_limit, node_limit, rep.get("solver_nodes")) if time_limit
                else "the solver stopped at its time limit")
    elif status == "optimal":
        head = f"{name} found the best assignment of the clusters"
        if rep.get("mip_gap_tolerance"):
            head += f" (within a relative gap of {rep['mip_gap_tolerance']:g})"
    elif status == "node_limit":
        head = (f"{name} stopped at its node limit ({node_limit:,} nodes; the same on every machine)" if node_limit
                else f"{name} stopped at its node limit")
    else:
        head = f"{name} ended with status {status}"
    if cert.get("gap") is not None:
        own = f", this one {cert['scaled_leakage']:.4f}" if "scaled_leakage" in cert else ""
        head += (f". Any split of these micro-clusters leaks at least {cert['scaled_lower_bound']:.4f} (a proven lower "
                 f"bound){own}: no other split can remove more than {cert['gap']:.1%} of its leakage (a ceiling: "
                 "no split may reach the bound)")
    if status == "time_limit" and "scaled_leakage" in cert:
        out["longer_limit_may_help"], advice = _longer_limit(rep, cert)
        head += ". " + advice[0].upper() + advice[1:]
    out["text"] = "solver: " + head
    return out


def solver_detail_line(rep: dict) -> str:
    """The cluster-level figures and the raw solver objective (``--verbose`` only)."""
    cert = rep.get("certificate", {})
    line = f"solver detail: {rep.get('solver')} {rep.get('solver_status')}: {rep.get('solver_message', '')}"
    if "ilp_scaled_objective" in cert:
        line += f"; ILP at cluster level {cert['ilp_scaled_objective']:.4f}"
    if "ilp_gap" in cert:
        line += f", its lower bound {cert['ilp_scaled_lower_bound']:.4f} (gap {cert['ilp_gap']:.1%})"
    if "objective" in rep:
        line += f"; raw objective {rep['objective']:.6g}, lower bound {rep.get('objective_lower_bound', float('nan')):.6g}"
    return line


def similarity_entry(ent: EntitySet, inp: EntityInput) -> dict | None:
    """The report's record of one side's similarity: kind and parameters ([`describe_similarity`][]) plus
    the column(s) or matrix file it came from; None when the side has no similarity."""
    entry = describe_similarity(ent.similarity)
    if entry is None:
        return None
    column = inp.smiles_col or inp.sequence_col or inp.string_col or (list(inp.feature_cols) if inp.feature_cols else None)
    return entry | ({"column": column} if column else {}) | ({"path": inp.matrix} if inp.matrix else {})


def input_note_lines(rep: dict) -> list[str]:
    """Console lines of what reading the inputs changed or found: lower-case and cleaned protein sequences
    (the report's ``sequences``, per side for 2-D data) and rows repeating a pair (``duplicate_pairs``)."""
    from benchdesign.splitting.sequences import sequence_note_lines

    seqs = rep.get("sequences") or {}
    if set(seqs) <= {"a", "b"}:
        lines = [line for sd, notes in sorted(seqs.items()) for line in sequence_note_lines(notes, f"side {sd}: ")]
    else:
        lines = sequence_note_lines(seqs)
    return lines + duplicate_pair_lines(rep.get("duplicate_pairs"))


def similarity_lines(rep: dict) -> list[str]:
    """Console line of the report's ``similarity`` (per side for 2-D data); none without that entry."""
    if "similarity" not in rep:
        return []
    sim = rep["similarity"]
    if isinstance(sim, dict) and set(sim) == {"a", "b"}:
        return [f"similarity: side a {describe_text(sim['a'])}; side b {describe_text(sim['b'])}"]
    return [f"similarity: {describe_text(sim)}"]


def _fraction_lines(rep: dict, result: SplitResult) -> list[str]:
    """Achieved fold fractions beside the requested ones (entity folds for cold-both 2-D k-fold)."""
    if "requested_fractions" not in rep or result.cold_both:
        return []
    achieved = rep["fold_fractions"]
    text = ", ".join(f"{k} {achieved[k]:.1%} (asked {v:.1%})" for k, v in rep["requested_fractions"].items())
    return [f"fractions of the assigned rows: {text}"]


def _per_fold_text(cert: dict) -> str:
    """Every fold's scaled L(pi) against the rest, beside the same fold of the random splits."""
    own, rand = cert["fold_scaled_leakage"], cert.get("random_fold_scaled_leakage")
    if not rand:
        return ", ".join(f"{k} {v:.4f}" for k, v in own.items())
    worse = sum(v > rand[k] for k, v in own.items())
    return (", ".join(f"{k} {v:.4f} (random {rand[k]:.4f})" for k, v in own.items()) + ": "
            + ("no fold is leakier than its random counterpart" if worse == 0
               else f"{worse} of {len(own)} folds are leakier than their random counterparts"))


def certificate_line(cert: dict, verbose: bool = False) -> str:
    """One line of a split certificate (certificate.py) without a summary block: leakage vs random, per-fold
    values, the bound over every split of the micro-clusters (the cluster-level ILP figures with ``verbose``)."""
    from benchdesign.splitting.summary import SCALED_LEAKAGE_TEXT

    line = f"certificate: scaled L(pi) ({SCALED_LEAKAGE_TEXT}) {cert['scaled_leakage']:.4f}"
    if "sampled" in cert:
        line += " [{:.4f}, {:.4f}] (sampled, {} pairs per figure)".format(*cert["sampled"]["scaled_leakage_ci"],
                                                                          cert["sampled"]["n_pairs"])
    if "random_scaled_leakage" in cert:
        line += (f" vs random split {cert['random_scaled_leakage']:.4f} (same fold sizes, mean of "
                 f"{cert['random_seeds']} seeds; {cert['leakage_reduction']:.1%} less)")
    if len(cert.get("fold_scaled_leakage", {})) > 2:
        line += "; per fold (vs the other folds) " + _per_fold_text(cert)
    if "gap" in cert:
        line += f"; lower bound {cert['scaled_lower_bound']:.4f} (gap {cert['gap']:.1%})"
    if "ilp_gap" in cert and verbose:
        line += (f"; ILP at cluster level {cert['ilp_scaled_objective']:.4f}, lower bound "
                 f"{cert['ilp_scaled_lower_bound']:.4f} (gap {cert['ilp_gap']:.1%})")
    return line


_SCHEME_TEXT = {
    "cold_both": "cold both sides: train = pairs with neither entity in the fold, test = pairs with both",
    "same_fold": "same fold: train = pairs of the other folds, test = pairs of the fold; pairs across folds dropped",
    "cold_one_side": "cold side {side}: test = pairs whose side-{side} entity is in the fold, train = the rest",
}


def _usage_lines(rep: dict) -> list[str]:
    """Console lines of the report's ``fold_usage``: per fold the train / test / unused rows and shares."""
    usage = rep.get("fold_usage")
    if not usage:
        return []
    scheme = _SCHEME_TEXT.get(rep.get("pair_scheme"), "test = rows of the fold, train = the rest")
    lines = [f"fold usage ({scheme.format(side=rep.get('side'))}): mean train {usage['mean_train_share']:.1%}, "
             f"test {usage['mean_test_share']:.1%}, unused {usage['mean_unused_share']:.1%} of the rows"]
    for name, f in usage["folds"].items():
        lines.append(f"  {name}: train {f['train']} ({f['train_share']:.1%}), test {f['test']} "
                     f"({f['test_share']:.1%}), unused {f['unused']} ({f['unused_share']:.1%})")
    return lines


def _fit_lines(rep: dict) -> list[str]:
    """Console lines of a k-fold split's ``fold_fit`` (clusters split to fit the folds, changed fold targets) and,
    for 2-D data, each side's entity folds with their share of the rows."""
    lines = [f"note: k-fold: {rep['fold_fit']['text']}"] if rep.get("fold_fit", {}).get("text") else []
    for sd in ("a", "b"):
        side = rep.get(f"side_{sd}", {})
        if side.get("fold_fit", {}).get("text"):
            lines.append(f"note: side {sd}: {side['fold_fit']['text']}")
        if "fold_weights" in side:
            lines.append(f"side {sd} folds (entities, share of the rows): " + ", ".join(
                f"{name} {f['entities']} {f['row_share']:.1%}" for name, f in side["fold_weights"].items()))
    return lines


def threshold_check_line(threshold: float, check: dict) -> str:
    """One line on the independent check of a hard threshold (``threshold.verified_max_similarity``): an exact
    check (every pair aligned) states that no pair is above it; a prefilter's only that it found none."""
    found = (f"{check['pairs_added']} pairs above it that the similarity had missed were added and the repair redone"
             if check["pairs_added"] else "it found none the similarity had missed")
    exact = check.get("exact", True)
    searched = "aligned again" if exact else "searched again with a prefilter"
    head = (f"threshold check: the pairs of different folds {searched} ({check['search']}, "
            f"{check['n_pairs_compared']:,} pairs); {found}")
    rest = check["remaining"]
    if not rest and exact:
        return f"{head}; no pair of different folds is above {threshold:g}"
    if not rest:
        return (f"{head}; it found no pair of different folds above {threshold:g}, but a prefilter aligns only its "
                f"candidates, so homologs it misses can remain (--exact-check aligns every pair)")
    shown = ", ".join(f"{r['a']}-{r['b']} {r['similarity']:.3f}" for r in rest[:10])
    return (f"{head}; WARNING: {len(rest)} pairs of different folds are still above {threshold:g} after "
            f"{check['rounds']} searches: {shown}{' ...' if len(rest) > 10 else ''}")


def missed_by_check_lines(threshold: float, check: dict, summary: dict | None) -> list[str]:
    """A warning when the check searched with a prefilter and the summary's nearest-neighbour view, which aligned
    each of its sequences with every sequence, still finds some with a neighbour in another fold above the
    threshold."""
    nn = (summary or {}).get("nearest_neighbour", {})
    stats = nn.get("split", {}).get("all", {})
    share = stats.get("share_above", {}).get(f"{threshold:g}")
    if check.get("exact", True) or not nn.get("exact") or not share:
        return []
    count = round(share * stats["n_test"])
    return [f"WARNING: the threshold does not hold for every pair. The nearest-neighbour view above aligned each of "
            f"its {stats['n_test']:,} sequences with every sequence and found {count} ({share:.1%}) with a sequence "
            f"of another fold above {threshold:g}, pairs the check's prefilter missed; rerun with --exact-check "
            f"(every pair of different folds aligned; CPU grows with test x training pairs)"]


def _certificate_lines(rep: dict, verbose: bool) -> list[str]:
    """The summary block and the solver's line when the split has them, else the certificate's line."""
    from benchdesign.splitting.summary import summary_lines

    summary = rep.get("summary")
    if summary is None:
        return [certificate_line(rep["certificate"], verbose)] if rep.get("certificate") else []
    lines = summary_lines(summary)
    if "solver" in summary:
        lines.append(summary["solver"]["text"])
    return lines + ([solver_detail_line(rep)] if verbose and "solver_status" in rep else [])


def summarize(result: SplitResult, verbose: bool = False) -> str:
    """Human-readable summary lines of a split (fold sizes, unassigned rows, summary block, solver status);
    ``verbose`` adds the cluster-level ILP figures and the raw solver objective."""
    rep = result.report
    block = "summary" in rep
    sizes = ", ".join(f"{k} {int(v)}" for k, v in rep.get("fold_sizes", {}).items())
    unassigned = "tested in no fold" if result.cold_both else "unassigned"
    line = f"{rep['task']}: {rep['n_rows']} rows -> {sizes}; {unassigned} {int((result.fold < 0).sum())}"
    if "scaled_leakage" in rep and not block:
        line += f"; scaled L(pi) {rep['scaled_leakage']:.4f}"
    if "n_dropped" in rep:
        line += f"; dropped interactions {rep['n_dropped']}"
    if "solver_status" in rep and not block:
        line += f"; solver {rep['solver']} {rep['solver_status']}"
    lines = [line, *([] if block else _fraction_lines(rep, result)), *_usage_lines(rep), *_fit_lines(rep)]
    if not block and rep.get("class_fold_counts"):
        from benchdesign.splitting.summary import class_share_lines, class_shares

        lines += class_share_lines(class_shares(rep["class_fold_counts"], rep["fold_sizes"], rep.get("stratification")))
    lines += similarity_lines(rep)
    lines += input_note_lines(rep)
    lines += _certificate_lines(rep, verbose)
    if "max_similarity" in rep:
        t = rep["max_similarity"]
        lines.append(f"max similarity {t['threshold']:g} ({t['action']}): {t['n_violating_pairs']} violating pairs, "
                     f"dropped {t['n_dropped']}, moved {t['n_moved']} samples")
        if "check" in t:
            lines.append(threshold_check_line(t["threshold"], t["check"]))
            lines += missed_by_check_lines(t["threshold"], t["check"], rep.get("summary"))
    if "sampled_leakage" in rep:
        smp = rep["sampled_leakage"]
        lines.append("sampled scaled L(pi) ({} pairs, 95% interval): split {:.4f} [{:.4f}, {:.4f}], random split "
                     "of the same fold sizes {:.4f} [{:.4f}, {:.4f}]".format(smp["n_pairs"], smp["split"]["scaled_leakage"],
                                               *smp["split"]["scaled_leakage_ci"], smp["random"]["scaled_leakage"],
                                               *smp["random"]["scaled_leakage_ci"]))
    for side in ("side_a", "side_b"):
        if side in rep and "scaled_leakage" in rep[side]:
            lines.append(f"{side}: scaled L(pi) {rep[side]['scaled_leakage']:.4f}")
    for side, cols in rep.get("rows_without_class", {}).items():
        for col, info in cols.items():
            lines.append(f"note: {side}: {info['n']} rows have no value in class column {col!r} (rows "
                         f"{info['rows'][:10]}{' ...' if info['n'] > 10 else ''}); they count for no class of it "
                         "in the stratification")
    if rep.get("solver_status") == "time_limit" and not block:
        lines.append(f"note: {rep['solver_message']}")
    return "\n".join(lines)
