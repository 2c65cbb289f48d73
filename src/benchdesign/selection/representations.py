"""Dataset representations: one feature vector per dataset, used by the selection strategies.

Every function returns a float DataFrame indexed by dataset name with no NaN. The pipeline checks a
representation with [`check_representation`][] (constant columns dropped) and the protocol z-scores
it right before selection (over all datasets, or over each trial's pool:
``benchdesign.selection.protocol.standardize_rows``); builders do not standardise themselves. The builders of
the built-in benchmarks live with their domain (``benchdesign.domains.recsys.features``,
``benchdesign.domains.nlp.metadata``) and start with ``check_frame``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "check_frame",
    "check_representation",
    "check_same_datasets",
    "drop_constant",
    "oracle_representation",
]

def check_frame(X: pd.DataFrame, what: str) -> None:
    """TypeError / ValueError, prefixed by ``what``, unless ``X`` is a non-empty DataFrame with unique dataset
    names and numeric, finite columns (the checks every representation builder starts with)."""
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"{what}: expected a pandas DataFrame, got {type(X).__name__}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{what}: empty frame of shape {X.shape}")
    dup = X.index[X.index.duplicated()].unique().tolist()
    if dup:
        raise ValueError(f"{what}: duplicate dataset name(s) in the index: {dup}")
    non_numeric = [c for c in X.columns if not (pd.api.types.is_numeric_dtype(X[c])
                                                or pd.api.types.is_bool_dtype(X[c]))]
    if non_numeric:
        raise ValueError(f"{what}: non-numeric column(s) {non_numeric}")
    nan_cols = [c for c in X.columns if X[c].isna().any()]
    if nan_cols:
        raise ValueError(f"{what}: column(s) with NaN: {nan_cols}")
    inf_cols = [c for c in X.columns if not np.isfinite(X[c].to_numpy(dtype=float)).all()]
    if inf_cols:
        raise ValueError(f"{what}: column(s) with infinite values: {inf_cols}")


def drop_constant(X: pd.DataFrame, what: str) -> pd.DataFrame:
    """``X`` without its constant columns; ValueError, prefixed by ``what``, when every column is constant."""
    constant = [c for c in X.columns if X[c].nunique(dropna=False) <= 1]
    kept = X.drop(columns=constant)
    if kept.shape[1] == 0:
        raise ValueError(f"{what}: every column is constant over the {X.shape[0]} dataset(s): {constant}")
    return kept


def check_representation(X: pd.DataFrame) -> pd.DataFrame:
    """``X`` as float with its constant columns dropped, after checking it is numeric and finite.

    Parameters
    ----------
    X : pd.DataFrame
        Datasets x features.

    Returns
    -------
    pd.DataFrame
        ``X`` as float, its constant columns dropped.

    Raises
    ------
    ValueError
        Naming the columns holding NaN (or inf, or non-numeric values), or when every column is constant.

    Examples
    --------
    The constant column ``classes`` is dropped and the booleans become floats:

    >>> import pandas as pd
    >>> from benchdesign.selection import check_representation
    >>> X = pd.DataFrame({"size": [100, 2000, 50], "classes": [2, 2, 2], "balanced": [True, False, True]},
    ...                  index=["d1", "d2", "d3"])
    >>> check_representation(X)
          size  balanced
    d1   100.0       1.0
    d2  2000.0       0.0
    d3    50.0       1.0
    """
    check_frame(X, "representation")
    return drop_constant(X.astype(np.float64), "representation")


def oracle_representation(dataset_ranks: pd.DataFrame) -> pd.DataFrame:
    """The oracle representation: each dataset is described by its vector of model ranks.

    This uses the very quantity that the selection is meant to preserve, so it is only available
    *a posteriori* (after every model ran on every dataset): a reference built from the benchmark's scores,
    not a usable method, and not a ceiling either (an a-priori representation can select better subsets).

    Parameters
    ----------
    dataset_ranks : pd.DataFrame
        (n_datasets, n_models) ranks (1 = best), index = dataset names.

    Returns
    -------
    pd.DataFrame
        A float copy of ``dataset_ranks`` (columns = models).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection import oracle_representation, rank_scores
    >>> scores = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2"], "model": ["a", "b", "a", "b"],
    ...                        "score": [0.9, 0.8, 0.6, 0.7]})
    >>> oracle_representation(rank_scores(scores, higher_is_better=True))  # doctest: +NORMALIZE_WHITESPACE
    model      a    b
    dataset
    d1       1.0  2.0
    d2       2.0  1.0
    """
    check_frame(dataset_ranks, "oracle_representation")
    return dataset_ranks.astype(np.float64).copy()


def check_same_datasets(a, b, what: str) -> None:
    """Raise ValueError if two collections of dataset names differ, listing the names only in each.

    Parameters
    ----------
    a, b : index-like collections of dataset names (e.g. ``dataset_ranks.index`` and
        ``representation.index``).
    what : what is compared, used as the message prefix (e.g. "nlp scores vs metadata").
    """
    sa, sb = pd.Index(a), pd.Index(b)
    set_a, set_b = set(sa), set(sb)
    only_a = [x for x in sa if x not in set_b]
    only_b = [x for x in sb if x not in set_a]
    if only_a or only_b:
        raise ValueError(f"{what}: dataset names differ; only in the first ({len(only_a)}): {only_a}; "
                         f"only in the second ({len(only_b)}): {only_b}")
