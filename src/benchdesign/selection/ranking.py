"""Model rankings from benchmark scores.

A model's rank on a (dataset, fold) is its position among all models by score, 1 = best, with
tied models sharing the average of the positions they occupy (``average_ranks``, as
``scipy.stats.rankdata`` with ``method="average"``).  A model's rank on a dataset is the mean of its fold ranks, and the mean
rank vector of a set of datasets ``S`` is ``R_S = mean over d in S of dataset_ranks[d]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

__all__ = ["average_ranks", "with_fold", "rank_scores", "mean_ranks", "rerank"]

_SCORE_COLUMNS = ("dataset", "model", "fold", "score")


def average_ranks(values: ArrayLike, axis: int = -1) -> NDArray[np.float64]:
    """Ranks 1..m along ``axis``, smallest first, ties sharing the mean of their positions.

    The same values as ``scipy.stats.rankdata(values, method="average", axis=axis)`` for data without NaN,
    without importing ``scipy.stats`` (most of a pipeline job's start-up).

    >>> average_ranks([30, 10, 30, 20]).tolist()
    [3.5, 1.0, 3.5, 2.0]
    """
    a = np.moveaxis(np.asarray(values, dtype=float), axis, -1)
    m = a.shape[-1]
    order = np.argsort(a, axis=-1, kind="stable")
    ordered = np.take_along_axis(a, order, axis=-1)
    position = np.broadcast_to(np.arange(m), a.shape)
    starts = np.ones(a.shape, dtype=bool)  # a tie group begins here
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    ends = np.ones(a.shape, dtype=bool)  # a tie group ends here
    ends[..., :-1] = starts[..., 1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, position, m - 1), axis=-1), axis=-1), axis=-1)
    ranks = np.empty(a.shape)
    np.put_along_axis(ranks, order, (first + last) / 2.0 + 1.0, axis=-1)
    return np.moveaxis(ranks, -1, axis)


def _py(value: object) -> object:
    """numpy scalar -> Python scalar, so messages read 'd0' / 1 rather than np.str_('d0')."""
    return value.item() if isinstance(value, np.generic) else value


def with_fold(scores: pd.DataFrame) -> pd.DataFrame:
    """The long scores with a ``fold`` column: scores without one are a single fold, 0.

    How a scores file without folds is read (``benchdesign agreement`` and ``evaluate``,
    ``benchdesign.domains.read_scores_table``) and how [`rank_scores`][],
    ``subset_agreement`` and ``evaluate_benchmark``
    take a DataFrame without folds.

    Parameters
    ----------
    scores : pd.DataFrame
        Long scores with columns ``dataset, model, score`` and optionally ``fold``.

    Returns
    -------
    pd.DataFrame
        ``scores`` itself when it has a ``fold`` column, else a copy with ``fold`` = 0 (int64) inserted
        before ``score`` when there is one.

    Examples
    --------
    >>> scores = pd.DataFrame({"dataset": ["d0", "d0"], "model": ["a", "b"], "score": [0.7, 0.9]})
    >>> with_fold(scores).columns.tolist()
    ['dataset', 'model', 'fold', 'score']
    """
    if "fold" in scores.columns:
        return scores
    out = scores.copy()
    at = out.columns.get_loc("score") if "score" in out.columns else len(out.columns)
    out.insert(at, "fold", np.zeros(len(out), dtype=np.int64))
    return out


def rank_scores(scores: pd.DataFrame, higher_is_better: bool) -> pd.DataFrame:
    """Per-dataset model ranks (1 = best, ties averaged), averaged over folds.

    Parameters
    ----------
    scores : pd.DataFrame
        Long scores with columns ``dataset, model, fold, score`` (without ``fold``: one fold, [`with_fold`][]):
        every (dataset, model, fold) exactly once, every (dataset, fold) scored for every model, no NaN.
    higher_is_better : bool
        True if a larger score is better (accuracy), False for errors and losses.

    Returns
    -------
    pd.DataFrame
        (n_datasets, n_models): index ``dataset``, columns ``model``, both in order of first
        appearance in ``scores``; entry = mean over the dataset's folds of the model's rank among all models on
        that (dataset, fold).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection import rank_scores
    >>> scores = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2"], "model": ["a", "b", "a", "b"],
    ...                        "fold": 0, "score": [0.9, 0.8, 0.6, 0.7]})
    >>> rank_scores(scores, higher_is_better=True)  # doctest: +NORMALIZE_WHITESPACE
    model      a    b
    dataset
    d1       1.0  2.0
    d2       2.0  1.0
    """
    if not isinstance(scores, pd.DataFrame):
        raise ValueError(f"scores must be a pandas DataFrame, got {type(scores).__name__}")
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise ValueError(f"higher_is_better={higher_is_better!r} must be a bool")
    scores = with_fold(scores)
    missing = [c for c in _SCORE_COLUMNS if c not in scores.columns]
    if missing:
        raise ValueError(f"scores is missing columns {missing}; has {list(scores.columns)}")
    if len(scores) == 0:
        raise ValueError("scores is empty")
    if not pd.api.types.is_numeric_dtype(scores["score"]) or pd.api.types.is_bool_dtype(
        scores["score"]
    ):
        raise ValueError(f"scores['score'] must be numeric, got dtype {scores['score'].dtype}")
    df = scores.loc[:, list(_SCORE_COLUMNS)]
    for col in ("dataset", "model", "fold"):
        if df[col].isna().any():
            at = _py(df.index[df[col].isna()][0])
            raise ValueError(f"scores[{col!r}] has a missing value at row {at!r}")

    def where(mask: NDArray[np.bool_]) -> str:
        row = df.iloc[int(np.flatnonzero(mask)[0])]
        return ", ".join(f"{c}={_py(row[c])!r}" for c in ("dataset", "model", "fold"))

    nan = df["score"].isna().to_numpy()
    if nan.any():
        raise ValueError(f"scores has a NaN score for {where(nan)}")
    dup = df.duplicated(["dataset", "model", "fold"]).to_numpy()
    if dup.any():
        raise ValueError(f"scores has duplicated rows for {where(dup)}")

    datasets = pd.unique(df["dataset"])
    models = pd.unique(df["model"])
    wide = df.pivot(index=["dataset", "fold"], columns="model", values="score")
    wide = wide.reindex(columns=models)
    values = wide.to_numpy(dtype=float)
    holes = np.isnan(values)
    if holes.any():
        i, j = np.argwhere(holes)[0]
        dataset, fold = wide.index[i]
        raise ValueError(
            f"scores is missing model={_py(models[j])!r} for dataset={_py(dataset)!r}, "
            f"fold={_py(fold)!r}"
        )
    fold_ranks = average_ranks(-values if higher_is_better else values, axis=1)
    ranks = pd.DataFrame(fold_ranks, index=wide.index, columns=models)
    out = ranks.groupby(level="dataset", sort=False).mean().reindex(datasets)
    out.index = pd.Index(datasets, name="dataset")
    out.columns = pd.Index(models, name="model")
    return out


def mean_ranks(
    dataset_ranks: pd.DataFrame | NDArray[np.floating],
    rows: ArrayLike | Sequence[str] | None = None,
) -> NDArray[np.float64]:
    """Mean rank vector ``R_S`` of the selected datasets.

    Parameters
    ----------
    dataset_ranks : pd.DataFrame | NDArray[np.floating]
        (n, M) ranks from [`rank_scores`][] (or an equivalent array).
    rows : ArrayLike | Sequence[str] | None
        None for all datasets, else a non-empty 1-D array of integer row positions, or of dataset labels when
        ``dataset_ranks`` is a DataFrame.

    Returns
    -------
    NDArray[np.float64]
        (M,) column means of the selected rows, summed in ascending row order so the
        result is bitwise independent of the order of ``rows`` (selecting every row reproduces
        ``mean_ranks(dataset_ranks)`` exactly).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection import mean_ranks
    >>> ranks = pd.DataFrame({"a": [1.0, 2.0, 1.0], "b": [2.0, 1.0, 2.0]}, index=["d1", "d2", "d3"])
    >>> mean_ranks(ranks).round(3).tolist()  # R_D over all three datasets
    [1.333, 1.667]
    >>> mean_ranks(ranks, ["d1", "d2"]).tolist(), mean_ranks(ranks, [1]).tolist()
    ([1.5, 1.5], [2.0, 1.0])
    """
    values = np.asarray(dataset_ranks, dtype=float)
    if values.ndim != 2 or values.shape[0] == 0:
        raise ValueError(f"dataset_ranks must be a non-empty 2-D table, got shape {values.shape}")
    if rows is None:
        return values.mean(axis=0)
    idx = np.asarray(rows)
    if idx.ndim != 1 or idx.size == 0:
        raise ValueError(f"rows must be a non-empty 1-D array, got shape {idx.shape}")
    if not np.issubdtype(idx.dtype, np.integer):
        if not isinstance(dataset_ranks, pd.DataFrame):
            raise ValueError(f"rows must be integer positions, got dtype {idx.dtype}")
        pos = dataset_ranks.index.get_indexer(idx)
        if (pos < 0).any():
            raise ValueError(f"rows has unknown dataset {_py(idx[pos < 0][0])!r}")
        idx = pos
    elif idx.min() < 0 or idx.max() >= values.shape[0]:
        bad = idx[(idx < 0) | (idx >= values.shape[0])][0]
        raise ValueError(f"rows has position {bad} outside 0..{values.shape[0] - 1}")
    return values[np.sort(idx)].mean(axis=0)


def rerank(values: ArrayLike) -> NDArray[np.float64]:
    """Average ranks 1..m of a vector, smallest value = rank 1, ties share the mean position.

    Parameters
    ----------
    values : ArrayLike
        (m,) finite numbers (e.g. a mean-rank vector restricted to a model subset).

    Returns
    -------
    NDArray[np.float64]
        (m,) ranks in [1, m] (``scipy.stats.rankdata(values, method="average")``).

    Examples
    --------
    >>> from benchdesign.selection import rerank
    >>> rerank([2.5, 1.0, 2.5, 4.0]).tolist()  # the tied pair shares positions 2 and 3
    [2.5, 1.0, 2.5, 4.0]
    >>> rerank([1.8, 1.2, 3.0]).tolist()
    [2.0, 1.0, 3.0]
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array, got shape {v.shape}")
    if not np.isfinite(v).all():
        at = int(np.flatnonzero(~np.isfinite(v))[0])
        raise ValueError(f"values has a non-finite entry at position {at}")
    return average_ranks(v)
