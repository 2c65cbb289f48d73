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


def _read_csv(path: str | os.PathLike, what: str) -> pd.DataFrame:
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
    if "dataset" not in frame.columns:
        raise ValueError(f"{what} {str(path)!r} has no 'dataset' column; columns: {list(frame.columns)}")
    frame["dataset"] = frame["dataset"].str.strip()
    return frame


def _numeric(column: pd.Series, path: str | os.PathLike, frame: pd.DataFrame, what: str) -> pd.Series:
    """Column as float; error naming the first empty or non-numeric cell (line numbers 1-based, header = 1)."""
    text = column.str.strip()
    values = pd.to_numeric(text.where(text != ""), errors="coerce")
    bad = values.isna() | ~np.isfinite(values.fillna(0.0))
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        cell = text.iloc[i]
        kind = "missing (NaN)" if cell == "" or cell.lower() in ("nan", "na", "n/a", "none", "null") \
            else "not a number"
        raise ValueError(
            f"{what} {str(path)!r}, line {i + 2} (dataset {frame['dataset'].iloc[i]!r}), "
            f"column {column.name!r}: {kind}: {cell!r}"
        )
    return values.astype(np.float64)


def read_scores_table(
    path: str | os.PathLike, higher_is_better: bool, models: Sequence[str] | None = None, min_models: int = 2,
    min_datasets: int = 2,
) -> pd.DataFrame:
    """Long scores frame (dataset, model, fold, score) of a scores CSV in the long or wide layout.

    Long layout: columns ``dataset, model, [fold], score``; wide layout: ``dataset, [fold]`` and one column
    per model. Without a ``fold`` column every score is fold 0.

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

    Returns
    -------
    pd.DataFrame
        Columns ``dataset, model, fold, score``.

    Raises
    ------
    ValueError
        Naming the file and line: a non-numeric score, a duplicate row, an unknown model, a missing score,
        fewer than ``min_models`` models or ``min_datasets`` datasets.

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
    """
    frame = _read_csv(path, "scores file")
    has_fold = "fold" in frame.columns
    if _LONG <= set(frame.columns):
        extra = sorted(set(frame.columns) - _LONG - {"fold"})
        if extra:
            raise ValueError(f"scores file {str(path)!r} (long layout) has unexpected column(s) {extra}")
        long = frame.assign(score=_numeric(frame["score"], path, frame, "scores file"))
        long["model"] = long["model"].str.strip()
    else:
        model_cols = [c for c in frame.columns if c not in ("dataset", "fold")]
        if "model" in frame.columns:  # a long table whose value column is not named 'score'
            values = [c for c in model_cols if c != "model"]
            raise ValueError(
                f"scores file {str(path)!r} has a 'model' column but no 'score' column; found columns "
                f"{list(frame.columns)}. Expected the long layout dataset, model, [fold], score (rename the value "
                f"column{' ' + repr(values[0]) if len(values) == 1 else ''} to 'score') or the wide layout "
                "dataset, [fold], one column per model")
        for c in model_cols:
            frame[c] = _numeric(frame[c], path, frame, "scores file")
        long = frame.melt(id_vars=["dataset", "fold"] if has_fold else ["dataset"], value_vars=model_cols,
                          var_name="model", value_name="score")
    if has_fold:
        long["fold"] = _numeric(long["fold"].astype(str), path, long, "scores file")
        if not (long["fold"] == np.round(long["fold"])).all():
            raise ValueError(f"scores file {str(path)!r}: the fold column must hold integers")
    long = with_fold(long)  # a file without folds is one fold, as a DataFrame without one in the API
    long["fold"] = long["fold"].astype(np.int64)
    key = ["dataset", "model", "fold"]
    dup = long[long.duplicated(key, keep=False)]
    if len(dup):
        first = dup.iloc[0]
        raise ValueError(
            f"scores file {str(path)!r}: {len(dup)} duplicate (dataset, model{', fold' if has_fold else ''}) "
            f"rows, e.g. dataset {first['dataset']!r}, model {first['model']!r}"
            + (f", fold {first['fold']}" if has_fold else "")
        )
    available = list(dict.fromkeys(long["model"]))
    if models is not None:
        unknown = [m for m in models if m not in available]
        if unknown:
            raise ValueError(f"scores file {str(path)!r}: unknown model(s) {unknown}; available: {available}")
        long = long[long["model"].isin(list(models))]
        available = list(models)
    if len(available) < min_models:
        raise ValueError(f"scores file {str(path)!r}: {len(available)} model(s) {available}; need at least "
                         f"{min_models}")
    if long["dataset"].nunique() < min_datasets:
        raise ValueError(f"scores file {str(path)!r}: {long['dataset'].nunique()} dataset(s); need at least "
                         f"{min_datasets}")
    counts = long.groupby(["dataset", "fold"])["model"].nunique()
    short = counts[counts < len(available)]
    if len(short):
        dataset, fold = short.index[0]
        have = set(long.loc[(long["dataset"] == dataset) & (long["fold"] == fold), "model"])
        raise ValueError(
            f"scores file {str(path)!r}: dataset {dataset!r}" + (f", fold {fold}" if has_fold else "")
            + f" has no score for model(s) {[m for m in available if m not in have]}"
        )
    long = long[["dataset", "model", "fold", "score"]].reset_index(drop=True)
    long.attrs["higher_is_better"] = bool(higher_is_better)
    return long


def read_feature_table(path: str | os.PathLike) -> pd.DataFrame:
    """Features of a feature CSV: a ``dataset`` column and numeric feature columns.

    Parameters
    ----------
    path : str | os.PathLike
        The CSV.

    Returns
    -------
    pd.DataFrame
        Datasets x features, indexed by dataset.
    """
    frame = _read_csv(path, "feature file")
    dup = frame["dataset"][frame["dataset"].duplicated()].unique().tolist()
    if dup:
        raise ValueError(f"feature file {str(path)!r}: duplicate dataset row(s) {dup}")
    columns = [c for c in frame.columns if c != "dataset"]
    if not columns:
        raise ValueError(f"feature file {str(path)!r} has no feature column besides 'dataset'")
    out = pd.DataFrame({c: _numeric(frame[c], path, frame, "feature file") for c in columns})
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
