"""Input tables -> entity sets and interaction indices, with validation at the boundary.

1-D data: a table of entities (id, SMILES or sequence or feature columns, optional class columns; a FASTA file
reads as a table of ``id``, ``description`` and ``sequence``: ``sequences.read_fasta``) or a precomputed
similarity / distance matrix (.npy dense, .npz scipy-sparse) in the row order of the table.
2-D data: an interaction table (id_a, id_b, value ...) plus one entity table per side.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from benchdesign.files import read_csv
from benchdesign.splitting.mmseqs import IdentitySettings, protein_similarity
from benchdesign.splitting.options import DEFAULT_SEQUENCE_SIMILARITY, SEQUENCE_SIMILARITIES
from benchdesign.splitting.progress import note, stage
from benchdesign.splitting.sequences import ALPHABET_TEXT, check_sequences, is_fasta, read_fasta
from benchdesign.splitting.similarity import (
    GAP_CHARACTERS,
    FingerprintSimilarity,
    MatrixSimilarity,
    VectorSimilarity,
    _shown,
    packed_fingerprints,
)
from benchdesign.splitting.tasks import EntitySet

__all__ = [
    "SEQUENCE_SIMILARITIES",
    "read_table",
    "require_columns",
    "missing_classes",
    "entity_ids",
    "class_matrix",
    "load_matrix",
    "entities_from_table",
    "index_interactions",
    "pair_indices",
]


def read_table(path: str | Path, str_cols: Sequence[str] = (), sep: str | None = None,
               what: str = "input table") -> pd.DataFrame:
    """Read a CSV / TSV table (optionally compressed) or a FASTA file; ``str_cols`` are read as strings (ids).

    ``sep=None`` sniffs the delimiter; every reading error names the file (``benchdesign.files.read_csv``).
    A FASTA file (named ``.fasta``, ``.fa``, ``.faa``, ``.fas``, optionally compressed, or starting with ``>``:
    ``is_fasta``) is read by [`read_fasta`][benchdesign.splitting.sequences.read_fasta] as a table of ``id``,
    ``description`` and ``sequence`` (``str_cols`` and ``sep`` do not apply).

    Parameters
    ----------
    path : str | Path
        The file (a table or a FASTA file).
    str_cols : Sequence[str]
        Columns read as strings (ids).
    sep : str | None
        The delimiter (None: sniffed).
    what : str
        What the table is, for error messages.

    Returns
    -------
    pd.DataFrame
        The table.

    Examples
    --------
    Ids read as strings keep their leading zeros:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.splitting import read_table
    >>> path = Path(tempfile.mkdtemp()) / "molecules.csv"
    >>> _ = path.write_text("id,smiles,activity\\n007,CCO,1.5\\n012,c1ccccc1,2.0\\n")
    >>> table = read_table(path, str_cols=["id"])
    >>> table["id"].tolist(), table["smiles"].tolist(), table["activity"].tolist()
    (['007', '012'], ['CCO', 'c1ccccc1'], [1.5, 2.0])
    """
    if is_fasta(path):
        return read_fasta(path, what)
    return read_csv(path, what, sep=sep, dtype={c: str for c in str_cols}, keep_default_na=True)


def require_columns(df: pd.DataFrame, columns: Sequence[tuple[str | None, str]], where: str) -> None:
    """Each named column (``(name or None, what it is)``) must be in the table read from ``where``."""
    for col, what in columns:
        if col is not None and col not in df.columns:
            raise ValueError(f"{where}: column {col!r} ({what}) not in the table; columns are {list(df.columns)}")


def _require(df: pd.DataFrame, col: str, what: str) -> None:
    if col not in df.columns:
        raise ValueError(f"column {col!r} ({what}) not in the table; columns are {list(df.columns)}")


ROWS_COUNTED = "(rows count the data rows from 0, as the default ids: file line = row + 2)"
"""How the row numbers of the input errors count (a table's index labels: its data rows from 0)."""


def entity_ids(df: pd.DataFrame, id_col: str | None, what: str = "input") -> np.ndarray:
    """Ids from ``id_col`` (unique, non-missing), or the 0-based row numbers when ``id_col`` is None."""
    if id_col is None:
        return np.array([str(i) for i in range(len(df))], dtype=object)
    _require(df, id_col, "id column")
    ids = df[id_col]
    if ids.isna().any():
        rows = df.index[ids.isna().to_numpy()]
        raise ValueError(f"{what}: missing ids in column {id_col!r} at rows {rows[:10].tolist()} {ROWS_COUNTED}")
    ids = ids.astype(str).str.strip().to_numpy(dtype=object)
    uniq, counts = np.unique(ids, return_counts=True)
    if (counts > 1).any():
        dup = uniq[counts > 1]
        raise ValueError(
            f"{what}: {dup.size} duplicate ids in column {id_col!r}: {', '.join(map(str, dup[:10]))}"
            + (" ..." if dup.size > 10 else "")
        )
    return ids


def pair_indices(values_a: Sequence, values_b: Sequence) -> tuple[np.ndarray, np.ndarray, list, list]:
    """One long table of pairs as the inputs of ``split_pairs``: (index_a, index_b, entities_a, entities_b).

    The entities of a side are its distinct values in order of first appearance, so a molecule or a sequence
    written in many rows is one entity (and lands in one fold).

    Parameters
    ----------
    values_a : Sequence
        Side a of every pair (e.g. the SMILES column).
    values_b : Sequence
        Side b of every pair (e.g. the sequence column).

    Returns
    -------
    index_a : np.ndarray
        (m,) index of each pair's entity a into ``entities_a``.
    index_b : np.ndarray
        (m,) index of each pair's entity b into ``entities_b``.
    entities_a : list
        The distinct values of side a.
    entities_b : list
        The distinct values of side b.

    Examples
    --------
    >>> from benchdesign.splitting import pair_indices
    >>> ia, ib, drugs, targets = pair_indices(["CCO", "CCN", "CCO"], ["MKV", "MKV", "AAA"])
    >>> ia, ib, drugs, targets
    (array([0, 1, 0]), array([0, 0, 1]), ['CCO', 'CCN'], ['MKV', 'AAA'])

    Then ``LeakageKFold(5, similarity=drugs, task="S2").split_pairs(ia, ib, similarity_b=targets)`` splits the
    pairs.
    """
    index_a, uniques_a = pd.factorize(pd.Series(list(values_a), dtype=object), use_na_sentinel=False)
    index_b, uniques_b = pd.factorize(pd.Series(list(values_b), dtype=object), use_na_sentinel=False)
    return index_a.astype(np.int64), index_b.astype(np.int64), list(uniques_a), list(uniques_b)


MAX_CLASS_LEVELS = 100  # a class column with more distinct values (and non-integer numbers) is a measurement


def _check_class_levels(col: str, values: pd.Series, n_levels: int) -> None:
    """Refuse a continuous column (e.g. pIC50) as class labels, which eq. (4) would turn into n classes."""
    numbers = pd.to_numeric(values, errors="coerce")
    continuous = numbers.notna().all() and not np.allclose(numbers, np.round(numbers))
    if n_levels > MAX_CLASS_LEVELS or (continuous and n_levels > 0.5 * max(len(values), 1) and n_levels > 10):
        kind = "a continuous value" if continuous else "too many classes"
        raise ValueError(
            f"class column {col!r} has {n_levels:,} distinct values among {len(values):,} rows: {kind}, not a class "
            "label; bin it first (e.g. pandas.qcut into 5 bins) or leave it out"
        )


def class_matrix(df: pd.DataFrame, class_cols: Sequence[str]) -> tuple[np.ndarray | None, tuple[str, ...]]:
    """Class membership sigma(x): every distinct non-missing value v of column c is a class "c=v".

    Several columns give multi-label membership (eq. 4 allows sigma(x) to hold several classes).
    Returns (n, C) bool and the class names, or (None, ()) without class columns.
    """
    if not class_cols:
        return None, ()
    blocks, names = [], []
    for col in class_cols:
        _require(df, col, "class column")
        values = df[col]
        present = values.notna().to_numpy()
        as_str = values.astype(str).to_numpy()
        levels = sorted(set(as_str[present]))
        _check_class_levels(col, values[present], len(levels))
        for lv in levels:
            blocks.append(present & (as_str == lv))
            names.append(f"{col}={lv}")
    return np.column_stack(blocks).astype(bool), tuple(names)


def missing_classes(df: pd.DataFrame, class_cols: Sequence[str]) -> dict[str, list[int]]:
    """Per class column, the rows (index labels: data rows from 0) where it is missing (they belong to no class
    of that column)."""
    return {c: df.index[df[c].isna().to_numpy()].tolist() for c in class_cols if df[c].isna().any()}


def load_matrix(path: str | Path) -> np.ndarray | sp.csr_matrix:
    """A square matrix from .npy (dense) or .npz (scipy.sparse.save_npz)."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"matrix file not found: {p}")
    if p.suffix not in (".npy", ".npz"):
        raise ValueError(f"matrix file must be .npy (dense) or .npz (scipy sparse), got {p.name}")
    try:
        return np.load(p, allow_pickle=False) if p.suffix == ".npy" else sp.load_npz(p).tocsr()
    except (OSError, ValueError, KeyError, EOFError) as exc:
        kind = "a numpy .npy array (np.save)" if p.suffix == ".npy" else "a scipy sparse matrix (save_npz)"
        raise ValueError(f"matrix file {p}: cannot read it as {kind}: {exc}") from None


def _report_invalid(what: str, reason: str, ids: np.ndarray, values: Sequence[object], bad: np.ndarray,
                    rows: pd.Index | None = None, counted: str = ROWS_COUNTED, fix: str = "Fix them") -> str:
    """The error of invalid entities ``bad`` (positions), each named by its row label in ``rows`` (default: its
    position) and its id; ``counted`` says how the rows count, ``fix`` what to do besides --drop-invalid."""
    rows = pd.RangeIndex(len(ids)) if rows is None else rows
    shown = "; ".join(f"row {rows[i]} (id={ids[i]}): {values[i]!r}" for i in bad[:10])
    more = f" and {bad.size - 10} more" if bad.size > 10 else ""
    return (
        f"{what}: {bad.size} rows with {reason.replace('_', ' ')}: {shown}{more} {counted}. "
        f"{fix}, or pass --drop-invalid to leave them unassigned"
    )


class _Described(str):
    """A value shown in an error as its text, unquoted (a sequence and what is wrong with it)."""

    def __repr__(self) -> str:
        return str(self)


def _invalid_sequences(what: str, ids: np.ndarray, values: Sequence[object], problems: Sequence[str],
                       bad: np.ndarray, df: pd.DataFrame, gapped: bool) -> str:
    """The error of the invalid protein sequences ``bad``: each row's sequence (shortened) and what is wrong."""
    shown = [_Described(f"{_shown(v) if isinstance(v, str) else repr(v)} has {p}" if p != "empty or missing"
                        else f"{v!r}: empty or missing") for v, p in zip(values, problems, strict=True)]
    fix = (f"Fix them ({ALPHABET_TEXT}"
           + (f"; gap / stop characters {' '.join(GAP_CHARACTERS)}: give the unaligned sequences" if gapped else "")
           + "), pass --clean-sequences to remove digits, whitespace and gap / stop characters")
    return _report_invalid(what, "invalid protein sequences", ids, shown, bad, df.index,
                           df.attrs.get("rows_counted", ROWS_COUNTED), fix)


def entities_from_table(
    df: pd.DataFrame,
    *,
    id_col: str | None = None,
    smiles_col: str | None = None,
    sequence_col: str | None = None,
    feature_cols: Sequence[str] = (),
    matrix: np.ndarray | sp.spmatrix | None = None,
    matrix_kind: str = "similarity",
    class_cols: Sequence[str] = (),
    drop_invalid: bool = False,
    metric: str = "cosine",
    radius: int = 2,
    n_bits: int = 1024,
    kmer: int = 3,
    what: str = "input",
    sequence_similarity: str = DEFAULT_SEQUENCE_SIMILARITY,
    identity: IdentitySettings | None = None,
    clean_sequences: bool = False,
) -> EntitySet:
    """Build an [`EntitySet`][] from a table and at most one representation.

    Invalid rows (unparsable SMILES, empty sequences, non-finite features) raise ValueError listing
    them, unless ``drop_invalid`` is set, in which case they are kept out of the split and reported.
    Protein sequences are checked against the IUPAC protein alphabet (``sequences.check_sequences``): digits,
    whitespace inside, gap / stop characters, ``>`` and other characters are invalid (``clean_sequences``
    removes digits, whitespace and gap / stop characters instead); lower case is compared as upper case. The
    counts of lower-case and cleaned sequences are in the returned set's ``notes``.
    Sequences are compared by MMseqs2 identity with coverage (``sequence_similarity="mmseqs"``, the default,
    ``mmseqs.mmseqs_similarity``), the Smith-Waterman identity of the k-mer prefilter's candidate pairs
    (``"alignment"``) or k-mer cosine (``"kmer"``).

    Parameters
    ----------
    df : pd.DataFrame
        The table, one row per entity.
    id_col : str | None
        Column of the entity ids (None: the row numbers).
    smiles_col : str | None
        Column of SMILES (Morgan fingerprints, Tanimoto).
    sequence_col : str | None
        Column of protein sequences.
    feature_cols : Sequence[str]
        Columns of a feature vector.
    matrix : np.ndarray | sp.spmatrix | None
        An (n, n) matrix over the rows.
    matrix_kind : str
        Whether ``matrix`` holds ``'similarity'`` or ``'distance'`` values.
    class_cols : Sequence[str]
        Columns of the classes of the stratification.
    drop_invalid : bool
        Keep invalid rows out of the split (and report them) instead of raising.
    metric : str
        Similarity of feature vectors: ``'cosine'`` or ``'euclidean'``.
    radius : int
        Radius of the Morgan fingerprints.
    n_bits : int
        Length of the Morgan fingerprints.
    kmer : int
        k of the sequence k-mers.
    what : str
        What the table is, for error messages.
    sequence_similarity : str
        ``'mmseqs'`` (identity with coverage), ``'alignment'`` or ``'kmer'``.
    identity : IdentitySettings | None
        For ``'mmseqs'``: what counts as similar (coverage) and the search (None: the defaults).
    clean_sequences : bool
        Remove digits, whitespace and gap / stop characters from the sequences instead of refusing them.

    Returns
    -------
    EntitySet
        The entities, with their validity, similarity and classes.

    Examples
    --------
    Ethanol written twice (Tanimoto similarity 1.0), benzene, and an unparsable SMILES left out with
    ``drop_invalid``; the similarity covers the three valid molecules:

    >>> import numpy as np
    >>> import pandas as pd
    >>> from benchdesign.splitting import entities_from_table
    >>> df = pd.DataFrame({"id": ["a", "b", "c", "d"], "smiles": ["CCO", "OCC", "c1ccccc1", "not a smiles"]})
    >>> entities = entities_from_table(df, id_col="id", smiles_col="smiles", drop_invalid=True)
    >>> entities.valid.tolist(), entities.invalid_reason
    ([True, True, True, False], 'invalid_smiles')
    >>> entities.similarity.block(np.arange(3), np.arange(3)).round(2).tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    if sequence_similarity not in SEQUENCE_SIMILARITIES:
        raise ValueError(f"sequence_similarity must be one of {SEQUENCE_SIMILARITIES}, got {sequence_similarity!r}")
    given = [x for x in (smiles_col, sequence_col, matrix) if x is not None] + ([1] if feature_cols else [])
    if len(given) > 1:
        raise ValueError(f"{what}: give at most one of SMILES column, sequence column, feature columns, matrix")
    ids = entity_ids(df, id_col, what)
    classes, class_names = class_matrix(df, class_cols)
    n = len(df)
    valid = np.ones(n, dtype=bool)
    similarity = None
    reason = "invalid_input"
    notes: dict = {}
    if smiles_col is not None:
        _require(df, smiles_col, "SMILES column")
        smiles = df[smiles_col].tolist()
        with stage("fingerprints"):
            packed, valid = packed_fingerprints(
                smiles, radius=radius, n_bits=n_bits, on_chunk=lambda done, total: note(f"{done} of {total} SMILES")
            )
        reason = "invalid_smiles"
        if not valid.all() and not drop_invalid:
            raise ValueError(_report_invalid(what, reason, ids, smiles, np.flatnonzero(~valid), df.index))
        if valid.any():
            with stage("fingerprint_index"):
                similarity = FingerprintSimilarity.from_packed(packed, n_bits, radius)
    elif sequence_col is not None:
        _require(df, sequence_col, "sequence column")
        checked = check_sequences(df[sequence_col].tolist(), clean=clean_sequences)
        seqs, valid, notes = checked.sequences, checked.valid, {"sequences": checked.notes(clean_sequences)}
        reason = "invalid_sequence"
        if not valid.all() and not drop_invalid:
            raise ValueError(_invalid_sequences(what, ids, df[sequence_col].tolist(), checked.problems,
                                                np.flatnonzero(~valid), df, checked.gapped))
        if valid.any():
            kept = [q for q, v in zip(seqs, valid, strict=True) if v]
            with stage("sequence_similarity"):
                similarity = protein_similarity(kept, sequence_similarity, kmer, identity)
    elif feature_cols:
        for c in feature_cols:
            _require(df, c, "feature column")
        x = df[list(feature_cols)].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
        valid = np.isfinite(x).all(axis=1)
        reason = "invalid_features"
        if not valid.all() and not drop_invalid:
            rows = [str(df.iloc[i][list(feature_cols)].tolist()) for i in range(n)]
            raise ValueError(_report_invalid(what, reason, ids, rows, np.flatnonzero(~valid), df.index))
        if valid.any():
            similarity = VectorSimilarity(x[valid], metric=metric)
    elif matrix is not None:
        if matrix.shape != (n, n):
            raise ValueError(f"{what}: the matrix has shape {matrix.shape} but the table has {n} rows")
        similarity = MatrixSimilarity(matrix, matrix_kind)
    return EntitySet(ids, valid, similarity, classes, class_names, reason, notes)


def index_interactions(
    a_values: Sequence[object], b_values: Sequence[object], ids_a: np.ndarray, ids_b: np.ndarray,
    a_col: str = "id_a", b_col: str = "id_b",
) -> tuple[np.ndarray, np.ndarray]:
    """Map the interaction table's id columns to entity indices; unknown ids raise ValueError.

    Parameters
    ----------
    a_values : Sequence[object]
        Side-a ids of the interactions.
    b_values : Sequence[object]
        Side-b ids of the interactions.
    ids_a : np.ndarray
        The ids of the side-a entities.
    ids_b : np.ndarray
        The ids of the side-b entities.
    a_col : str
        Name of the side-a column, for error messages.
    b_col : str
        Name of the side-b column, for error messages.

    Returns
    -------
    inter_a : np.ndarray
        Index of each interaction's entity a into ``ids_a``.
    inter_b : np.ndarray
        Index of each interaction's entity b into ``ids_b``.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.splitting import index_interactions
    >>> drugs, targets = np.array(["d1", "d2"]), np.array(["t1", "t2", "t3"])
    >>> index_interactions(["d2", "d1", "d2"], ["t3", "t1", "t1"], drugs, targets)
    (array([1, 0, 1]), array([2, 0, 0]))
    >>> try:
    ...     index_interactions(["d1", "d9"], ["t1", "t1"], drugs, targets)
    ... except ValueError as err:
    ...     print(err)
    interactions: 1 ids in column 'id_a' are not in the side-a (--input) entity table: d9
    """
    out, errors = [], []
    for values, ids, col in ((a_values, ids_a, a_col), (b_values, ids_b, b_col)):
        vals = pd.Series(values)
        if vals.isna().any():
            rows = np.flatnonzero(vals.isna().to_numpy())
            errors.append(f"missing ids in column {col!r} at rows {rows[:10].tolist()} {ROWS_COUNTED}")
            out.append(None)
            continue
        vals = vals.astype(str).str.strip()
        lookup = pd.Series(np.arange(len(ids)), index=pd.Index(ids))
        pos = lookup.reindex(vals.to_numpy())
        unknown = pos.isna().to_numpy()
        if unknown.any():
            bad = pd.unique(vals.to_numpy()[unknown])
            side = "a (--input)" if col == a_col else "b (--input-b)"
            errors.append(
                f"{bad.size} ids in column {col!r} are not in the side-{side} entity table: "
                f"{', '.join(map(str, bad[:10]))}" + (" ..." if bad.size > 10 else "")
            )
            out.append(None)
            continue
        out.append(pos.to_numpy().astype(np.int64))
    if errors:
        raise ValueError("interactions: " + "; ".join(errors))
    return out[0], out[1]
