"""Domains of kind ``table``: a user's own benchmark given as plain CSV files.

Scores come in one of two layouts (the delimiter is sniffed; ``.gz`` is read transparently):

* **long**: columns ``dataset, model, score`` and optionally ``fold``, one row per
  (dataset, model[, fold]);
* **wide**: a ``dataset`` column, optionally a ``fold`` column, and one numeric column per model.

Each feature table has a ``dataset`` column and numeric feature columns (one representation per
table).  Errors name the file and the offending row, cell or column: a missing or non-numeric
score, duplicate (dataset, model[, fold]) rows, fewer than two models or datasets, a fold missing
for some model, a non-numeric feature, a dataset of the scores missing from a feature table.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.data.sources import sha256_file
from benchdesign.domains.registry import Domain
from benchdesign.files import check_table_file, refuse_duplicate_columns
from benchdesign.selection.ranking import with_fold

__all__ = ["read_scores_table", "read_feature_table", "table_domain", "file_provenance", "NAME_PATTERN"]

NAME_PATTERN = r"[A-Za-z][A-Za-z0-9_]*"
"""Domain and representation names (they become wildcard values and file names)."""
_LONG = {"dataset", "model", "score"}


class _Problems:
    """The problems of one file, collected so that a run reports all of them at once (up to ``SHOWN``)."""

    SHOWN = 20

    def __init__(self, path: str | os.PathLike, what: str, note: str = ""):
        self.prefix = f"{what} {str(path)!r}{note}"
        self.messages: list[str] = []

    def add(self, message: str) -> None:
        """Record one problem: ``message`` follows the file's name (e.g. ``", line 3 (...): not a number"``)."""
        self.messages.append(message)

    def raise_any(self) -> None:
        """ValueError with every recorded problem; one problem reads as a single sentence."""
        if len(self.messages) == 1:
            raise ValueError(self.prefix + self.messages[0])
        if self.messages:
            shown = "\n".join(f"  - {m.lstrip(',:').strip()}" for m in self.messages[:self.SHOWN])
            more = len(self.messages) - self.SHOWN
            raise ValueError(f"{self.prefix} has {len(self.messages)} problems:\n{shown}"
                             + (f"\n  ... and {more} more" if more > 0 else ""))


def _read_csv(
    path: str | os.PathLike, what: str, columns: Mapping[str, str] | None = None, transpose: bool = False,
) -> pd.DataFrame:
    """The table as strings with a ``dataset`` column.

    ``columns`` maps our column names (``dataset``, ``model``, ...) to the file's; ``transpose`` reads a file
    whose columns are the datasets (its first column names the rows: features or models).  A transposed frame
    keeps the file's line of every row in ``attrs["lines"]`` (row name -> line), for error messages.
    """
    if not Path(path).exists():
        raise ValueError(f"{what} {str(path)!r} does not exist")
    check_table_file(path, what)  # empty, not a file, gzip named without .gz
    try:
        frame = pd.read_csv(path, sep=None, engine="python", dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise ValueError(f"{what} {str(path)!r} is not a readable CSV: {err}") from None
    except csv.Error as err:  # the delimiter sniffer found nothing to go by
        raise ValueError(f"{what} {str(path)!r} is not a readable CSV: {err} (empty after decompression, or a "
                         "single column?); expected a 'dataset' column and comma-separated columns") from None
    refuse_duplicate_columns(path, what)
    frame.columns = [str(c).strip() for c in frame.columns]
    if transpose:
        frame = _transposed(frame, path, what)
    else:
        frame = _renamed(frame, dict(columns or {}), path, what)
    if "dataset" not in frame.columns:
        raise ValueError(f"{what} {str(path)!r} has no 'dataset' column; columns: {list(frame.columns)}. Name the "
                         "column that holds the dataset names (--dataset-column NAME; dataset_column= in Python), "
                         "or transpose the file if its columns are the datasets (--transpose; transpose=True)")
    frame["dataset"] = frame["dataset"].str.strip()
    return frame


def _renamed(frame: pd.DataFrame, columns: Mapping[str, str], path: str | os.PathLike, what: str) -> pd.DataFrame:
    """``frame`` with the file's columns renamed to ours (``columns``: ours -> the file's); errors name the
    file, a column it lacks, or a column whose new name another column already has."""
    renames = {theirs: ours for ours, theirs in columns.items() if theirs != ours}
    for ours, theirs in columns.items():
        if theirs != ours and theirs not in frame.columns:
            raise ValueError(f"{what} {str(path)!r} has no column {theirs!r} (given as the {ours} column); "
                             f"columns: {list(frame.columns)}")
        if theirs != ours and ours in frame.columns and ours not in renames:
            raise ValueError(f"{what} {str(path)!r} has a column {ours!r} besides {theirs!r}, given as the {ours} "
                             "column; rename one of them")
    return frame.rename(columns=renames)


def _transposed(frame: pd.DataFrame, path: str | os.PathLike, what: str) -> pd.DataFrame:
    """A file with datasets as columns turned into one row per dataset: its first column names the rows
    (features, or models in a wide scores file), the other columns are the datasets."""
    if frame.shape[1] < 2:
        raise ValueError(f"{what} {str(path)!r} (transposed: datasets as columns) has no dataset column besides "
                         f"the row names {list(frame.columns)}")
    names = frame.iloc[:, 0].str.strip()
    problems = _Problems(path, what, " (transposed: datasets as columns)")
    for name in names[names.duplicated()].unique():
        lines = [int(i) + 2 for i in np.flatnonzero(names.to_numpy() == name)]
        problems.add(f": row name {name!r} appears on lines {lines}; each row once")
    for name in sorted({"dataset", "fold"} & set(names)):
        problems.add(f": a row is named {name!r}, which names a column once transposed; rename it")
    if (names == "").any():
        problems.add(f": line {int(np.flatnonzero(names.to_numpy() == '')[0]) + 2} has no row name (first column)")
    problems.raise_any()
    out = frame.iloc[:, 1:].T
    out.columns = list(names)
    out.insert(0, "dataset", [str(c) for c in out.index])
    out = out.reset_index(drop=True)
    out.attrs["lines"] = {name: i + 2 for i, name in enumerate(names)}
    return out


def _cell_place(frame: pd.DataFrame, i: int, column: str) -> str:
    """Where a cell is in the file: line and column, or, in a transposed file, its row and column there."""
    dataset = frame["dataset"].iloc[i]
    lines = frame.attrs.get("lines")
    if lines is not None and column in lines:
        return f", line {lines[column]} (row {column!r}), column {dataset!r}"
    return f", line {i + 2} (dataset {dataset!r}), column {column!r}"


def _numeric(column: pd.Series, frame: pd.DataFrame, problems: _Problems) -> pd.Series:
    """Column as float; every empty or non-numeric cell is recorded in ``problems`` (lines 1-based, header = 1)."""
    text = column.str.strip()
    values = pd.to_numeric(text.where(text != ""), errors="coerce")
    bad = values.isna() | ~np.isfinite(values.fillna(0.0))
    for i in np.flatnonzero(bad.to_numpy()):
        cell = text.iloc[i]
        kind = "missing (NaN)" if cell == "" or cell.lower() in ("nan", "na", "n/a", "none", "null") \
            else "not a number"
        problems.add(f"{_cell_place(frame, int(i), str(column.name))}: {kind}: {cell!r}")
    return values.astype(np.float64)


def read_scores_table(
    path: str | os.PathLike, higher_is_better: bool, models: Sequence[str] | None = None, min_models: int = 2,
    min_datasets: int = 2, *, dataset_column: str = "dataset", model_column: str = "model",
    score_column: str = "score", fold_column: str = "fold", transpose: bool = False,
) -> pd.DataFrame:
    """Long scores frame (dataset, model, fold, score) of a scores CSV in the long or wide layout.

    Long layout: columns ``dataset, model, [fold], score``; wide layout: ``dataset, [fold]`` and one column
    per model. Without a ``fold`` column every score is fold 0. The columns may have other names
    (``dataset_column`` ...); a wide file with one row per model and one column per dataset is read with
    ``transpose=True`` (its first column names the models; no folds). Every problem of the file's cells
    (non-numeric or missing scores, duplicate rows, missing scores of a model) is reported in one error.

    Parameters
    ----------
    path : str | os.PathLike
        The CSV (or TSV, optionally compressed).
    higher_is_better : bool
        Direction of the scores, kept in the frame's ``attrs``.
    models : Sequence[str] | None
        Models to keep (None: all).
    min_models : int
        Fewest models the file may hold (2: a ranking; 1 for new models' scores, ``benchdesign predict``).
    min_datasets : int
        Fewest datasets the file may hold.
    dataset_column, model_column, score_column, fold_column : str
        The file's names of the columns ``dataset``, ``model``, ``score`` (long layout) and ``fold``.
    transpose : bool
        The file's columns are the datasets and its rows the models (the wide layout turned around).

    Returns
    -------
    pd.DataFrame
        Columns ``dataset, model, fold, score``.

    Raises
    ------
    ValueError
        Naming the file and every bad line: a non-numeric score, a duplicate row, an unknown model, a missing
        score, fewer than ``min_models`` models or ``min_datasets`` datasets.

    Examples
    --------
    A wide file, one column per model and no folds:

    >>> import pathlib
    >>> import tempfile
    >>> import pandas as pd
    >>> from benchdesign.domains import read_scores_table
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "scores.csv"
    >>> pd.DataFrame({"dataset": ["d1", "d2"], "knn": [0.8, 0.7], "forest": [0.9, 0.6]}).to_csv(path, index=False)
    >>> read_scores_table(path, higher_is_better=True)
      dataset   model  fold  score
    0      d1     knn     0    0.8
    1      d2     knn     0    0.7
    2      d1  forest     0    0.9
    3      d2  forest     0    0.6

    The same scores as a leaderboard, one row per model:

    >>> pd.DataFrame({"model": ["knn", "forest"], "d1": [0.8, 0.9], "d2": [0.7, 0.6]}).to_csv(path, index=False)
    >>> read_scores_table(path, higher_is_better=True, transpose=True)["score"].tolist()
    [0.8, 0.7, 0.9, 0.6]
    """
    columns = {"dataset": dataset_column, "model": model_column, "score": score_column, "fold": fold_column}
    frame = _read_csv(path, "scores file", columns, transpose)
    problems = _Problems(path, "scores file")
    has_fold = "fold" in frame.columns
    if _LONG <= set(frame.columns):
        extra = sorted(set(frame.columns) - _LONG - {"fold"})
        if extra:
            raise ValueError(f"scores file {str(path)!r} (long layout) has unexpected column(s) {extra}")
        long = frame.assign(score=_numeric(frame["score"], frame, problems))
        long["model"] = long["model"].str.strip()
    else:
        model_cols = [c for c in frame.columns if c not in ("dataset", "fold")]
        if "model" in frame.columns:  # a long table whose value column is not named 'score'
            values = [c for c in model_cols if c != "model"]
            raise ValueError(
                f"scores file {str(path)!r} has a 'model' column but no 'score' column; found columns "
                f"{list(frame.columns)}. Expected the long layout dataset, model, [fold], score (rename the value "
                f"column{' ' + repr(values[0]) if len(values) == 1 else ''} to 'score', or name it with "
                "--score-column; score_column= in Python) or the wide layout dataset, [fold], one column per model")
        for c in model_cols:
            frame[c] = _numeric(frame[c], frame, problems)
        long = frame.melt(id_vars=["dataset", "fold"] if has_fold else ["dataset"], value_vars=model_cols,
                          var_name="model", value_name="score")
    if has_fold:
        fold_problems = _Problems(path, "scores file")
        fold = _numeric(frame["fold"].astype(str), frame, fold_problems)
        for message in fold_problems.messages:
            problems.add(message)
        if not fold_problems.messages and not (fold == np.round(fold)).all():
            problems.add(": the fold column must hold integers")
        long["fold"] = long["fold"].str.strip()
    problems.raise_any()  # the keys below need numbers
    long = with_fold(long)  # a file without folds is one fold, as a DataFrame without one in the API
    long["fold"] = pd.to_numeric(long["fold"]).astype(np.int64)
    _key_problems(long, has_fold, models, min_models, min_datasets, problems)
    problems.raise_any()
    if models is not None:
        long = long[long["model"].isin(list(models))]
    long = long[["dataset", "model", "fold", "score"]].reset_index(drop=True)
    long.attrs["higher_is_better"] = bool(higher_is_better)
    return long


def _key_problems(long: pd.DataFrame, has_fold: bool, models, min_models: int, min_datasets: int,
                  problems: _Problems) -> None:
    """Record duplicate (dataset, model[, fold]) rows, unknown or too few models and datasets, and every
    (dataset[, fold]) without a score of some model."""
    key = ["dataset", "model", "fold"]
    dup = long[long.duplicated(key, keep=False)]
    if len(dup):
        first = dup.iloc[0]
        problems.add(f": {len(dup)} duplicate (dataset, model{', fold' if has_fold else ''}) rows, e.g. dataset "
                     f"{first['dataset']!r}, model {first['model']!r}" + (f", fold {first['fold']}" if has_fold else ""))
    available = list(dict.fromkeys(long["model"]))
    if models is not None:
        unknown = [m for m in models if m not in available]
        if unknown:
            problems.add(f": unknown model(s) {unknown}; available: {available}")
        long = long[long["model"].isin(list(models))]
        available = [m for m in models if m in available]
    if len(available) < min_models:
        problems.add(f": {len(available)} model(s) {available}; need at least {min_models}")
    if long["dataset"].nunique() < min_datasets:
        problems.add(f": {long['dataset'].nunique()} dataset(s); need at least {min_datasets}")
    counts = long.groupby(["dataset", "fold"], sort=False)["model"].unique()
    for (dataset, fold), have in counts.items():
        lacking = [m for m in available if m not in set(have)]
        if lacking:
            problems.add(f": dataset {dataset!r}" + (f", fold {fold}" if has_fold else "")
                         + f" has no score for model(s) {lacking}")


def read_feature_table(
    path: str | os.PathLike, *, dataset_column: str = "dataset", transpose: bool = False,
) -> pd.DataFrame:
    """Features of a feature CSV: a ``dataset`` column and numeric feature columns.

    Every problem of the file's cells (duplicate datasets, empty or non-numeric values) is reported in one
    error, each with its line and column.

    Parameters
    ----------
    path : str | os.PathLike
        The CSV.
    dataset_column : str
        The column that names the datasets.
    transpose : bool
        The file's columns are the datasets and its rows the features (first column: the feature names).

    Returns
    -------
    pd.DataFrame
        Datasets x features, indexed by dataset.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "features.csv"
    >>> _ = path.write_text("name,length,classes\\nECG200,96,2\\nWafer,152,2\\n")
    >>> features = read_feature_table(path, dataset_column="name")
    >>> features.index.tolist(), features.loc["Wafer"].tolist()
    (['ECG200', 'Wafer'], [152.0, 2.0])
    """
    frame = _read_csv(path, "feature file", {"dataset": dataset_column}, transpose)
    problems = _Problems(path, "feature file")
    dup = frame["dataset"][frame["dataset"].duplicated()].unique().tolist()
    if dup:
        problems.add(f": duplicate dataset row(s) {dup}")
    columns = [c for c in frame.columns if c != "dataset"]
    if not columns:
        raise ValueError(f"feature file {str(path)!r} has no feature column besides 'dataset'")
    out = pd.DataFrame({c: _numeric(frame[c], frame, problems) for c in columns})
    problems.raise_any()
    out.index = pd.Index(frame["dataset"], name="dataset")
    return out


def read_strata(path: str | os.PathLike, column: str, datasets: Sequence[str]) -> np.ndarray:
    """The strata of the ``stratified`` strategy: one label per dataset from a column of a CSV.

    Parameters
    ----------
    path : str | os.PathLike
        A CSV with a ``dataset`` column.
    column : str
        The column holding the labels.
    datasets : Sequence[str]
        The datasets to label, in order.

    Returns
    -------
    np.ndarray
        One label (str) per entry of ``datasets``.

    Raises
    ------
    ValueError
        Naming the file, when the column or a label is missing.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> from benchdesign.domains import read_strata
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "strata.csv"
    >>> _ = path.write_text("dataset,family\\nd1,image\\nd2,sensor\\nd3,image\\n")
    >>> read_strata(path, "family", ["d3", "d2", "d1"]).tolist()
    ['image', 'sensor', 'image']
    """
    frame = _read_csv(path, "strata file")
    if column not in frame.columns:
        raise ValueError(f"strata file {str(path)!r} has no column {column!r}; columns: {list(frame.columns)}")
    labels = frame.drop_duplicates("dataset").set_index("dataset")[column].astype(str).str.strip()
    missing = [d for d in datasets if d not in labels.index or labels[d] in ("", "nan")]
    if missing:
        raise ValueError(f"strata file {str(path)!r}: no {column!r} label for dataset(s) {missing[:5]}")
    return labels.loc[list(datasets)].to_numpy()


def file_provenance(paths: Sequence[str | os.PathLike]) -> list[dict[str, object]]:
    """Path, size and sha256 of each file: what a result was computed from.

    Parameters
    ----------
    paths : Sequence[str | os.PathLike]
        The files.

    Returns
    -------
    list[dict[str, object]]
        One ``{"path", "bytes", "sha256"}`` per file.

    Examples
    --------
    >>> import hashlib
    >>> import pathlib
    >>> import tempfile
    >>> from benchdesign.domains import file_provenance
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "scores.csv"
    >>> content = b"dataset,knn\\nd1,0.8\\n"
    >>> _ = path.write_bytes(content)
    >>> [entry] = file_provenance([path])
    >>> entry["path"] == str(path), entry["bytes"], entry["sha256"] == hashlib.sha256(content).hexdigest()
    (True, 19, True)
    >>> entry["sha256"][:12]
    'a2f3f9cb19a3'
    """
    return [{"path": str(p), "bytes": Path(p).stat().st_size, "sha256": sha256_file(p)} for p in paths]


def table_domain(name: str, entry: Mapping[str, object]) -> Domain:
    """The [`Domain`][] of a config entry of kind ``table``: a user's benchmark from its own files.

    Parameters
    ----------
    name : str
        The domain's name (also its label).
    entry : Mapping[str, object]
        The config entry: ``scores`` (path of the scores CSV, read by [`read_scores_table`][]),
        ``higher_is_better`` (bool), ``features`` (representation name -> path of a feature CSV) and
        optionally ``strata`` (``{file, column}``: the labels of the ``stratified`` strategy).

    Returns
    -------
    Domain
        A domain whose inputs are the named files (not registered).

    Raises
    ------
    ValueError
        If a key is missing, ``higher_is_better`` is not a bool, or a feature is named ``oracle`` or ``none``.

    Examples
    --------
    >>> from benchdesign.domains import table_domain
    >>> domain = table_domain("mine", {"scores": "scores.csv", "higher_is_better": True,
    ...                                "features": {"meta": "features.csv"}})
    >>> domain.inputs
    ('scores.csv', 'features.csv')
    >>> domain.representations
    ('meta', 'oracle')
    """
    for key in ("scores", "higher_is_better", "features"):
        if key not in entry:
            raise ValueError(f"domain {name!r} of kind table: missing key {key!r}")
    scores = str(entry["scores"])
    features = {str(k): str(v) for k, v in dict(entry["features"] or {}).items()}
    higher = entry["higher_is_better"]
    if not isinstance(higher, bool):
        raise ValueError(f"domain {name!r}: higher_is_better={higher!r} must be true or false")
    reserved = {"oracle", "none"} & set(features)
    if reserved:
        raise ValueError(f"domain {name!r}: feature name(s) {sorted(reserved)} are reserved")

    def builder(path: str):
        return lambda files: read_feature_table(files.get(path, path))

    return Domain(
        name=name,
        label=name,
        higher_is_better=higher,
        load_scores=lambda files, models: read_scores_table(files.get(scores, scores), higher, models),
        inputs=(scores, *features.values(), *([str(entry["strata"]["file"])] if entry.get("strata") else [])),
        builders={rep: builder(path) for rep, path in features.items()},
    )
