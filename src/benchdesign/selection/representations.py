"""Dataset representations: one feature vector per dataset, used by the selection strategies.

Every function returns a float DataFrame indexed by dataset name with no NaN. The pipeline checks a
representation with :func:`check_representation` (constant columns dropped) and the protocol z-scores
it right before selection (over all datasets, or over each trial's pool:
``benchdesign.selection.protocol.standardize_rows``); the builders below do not standardise themselves.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "RECSYS_SIZE_COLUMNS",
    "check_representation",
    "check_same_datasets",
    "nlp_metadata_representation",
    "oracle_representation",
    "recsys_interaction_representation",
    "standardize",
]

RECSYS_SIZE_COLUMNS = ("Nu", "Ni", "Nr", "SpaceSize")
"""Heavy-tailed size features of the RecSys table (users, items, ratings, users x items)."""


def _check_frame(X: pd.DataFrame, what: str) -> None:
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


def _drop_constant(X: pd.DataFrame, what: str) -> pd.DataFrame:
    constant = [c for c in X.columns if X[c].nunique(dropna=False) <= 1]
    kept = X.drop(columns=constant)
    if kept.shape[1] == 0:
        raise ValueError(f"{what}: every column is constant over the {X.shape[0]} dataset(s): {constant}")
    return kept


def check_representation(X: pd.DataFrame) -> pd.DataFrame:
    """``X`` as float with its constant columns dropped, after checking it is numeric and finite.

    Raises
    ------
    ValueError naming the columns holding NaN (or inf, or non-numeric values), or when every column
    is constant.
    """
    _check_frame(X, "representation")
    return _drop_constant(X.astype(np.float64), "representation")


def standardize(X: pd.DataFrame) -> pd.DataFrame:
    """Z-score every column (mean 0, population standard deviation 1); drop constant columns.

    Parameters
    ----------
    X : DataFrame (n_datasets, n_features), numeric, index = dataset names.

    Returns
    -------
    DataFrame (n_datasets, n_kept) of float, same index, the non-constant columns in their order.

    Raises
    ------
    ValueError naming the columns holding NaN (or inf, or non-numeric values), or when every column
    is constant.
    """
    _check_frame(X, "standardize")
    kept = _drop_constant(X.astype(np.float64), "standardize")
    values = kept.to_numpy(dtype=np.float64)
    mean = values.mean(axis=0)
    sd = values.std(axis=0, ddof=0)
    return pd.DataFrame((values - mean) / sd, index=kept.index, columns=kept.columns)


def oracle_representation(dataset_ranks: pd.DataFrame) -> pd.DataFrame:
    """The oracle representation: each dataset is described by its vector of model ranks.

    This uses the very quantity that the selection is meant to preserve, so it is only available
    *a posteriori* (after every model ran on every dataset): an upper bound on what any a-priori
    representation (metadata, interaction statistics, ...) can reach, not a usable method.

    Parameters
    ----------
    dataset_ranks : DataFrame (n_datasets, n_models) of ranks (1 = best), index = dataset names.

    Returns
    -------
    A float copy of ``dataset_ranks`` (columns = models).
    """
    _check_frame(dataset_ranks, "oracle_representation")
    return dataset_ranks.astype(np.float64).copy()


def recsys_interaction_representation(features: pd.DataFrame, log_sizes: bool = False) -> pd.DataFrame:
    """The RecSys 'interaction' representation: the 18 dataset statistics of Shevchenko et al. (2024).

    The paper only says the features are standardised, and its code z-scores the raw values, so the
    default keeps them as they are (standardisation follows in the protocol). ``log_sizes=True``
    replaces the heavy-tailed size columns :data:`RECSYS_SIZE_COLUMNS` (Nu, Ni, Nr, SpaceSize, which
    span several orders of magnitude, so a few very large datasets dominate their z-scores) by their
    log10 -- a deviation from the paper offered for ablations.

    Parameters
    ----------
    features : DataFrame (n_datasets, n_features) from :func:`benchdesign.data.load_recsys`.
    log_sizes : apply log10 to the size columns that are present (they must be > 0).

    Returns
    -------
    Float DataFrame, same index and columns (size columns renamed ``log10_<name>`` when logged).
    """
    _check_frame(features, "recsys_interaction_representation")
    out = features.astype(np.float64).copy()
    if log_sizes:
        for c in RECSYS_SIZE_COLUMNS:
            if c in out.columns:
                bad = out.index[out[c] <= 0].tolist()
                if bad:
                    raise ValueError(f"recsys_interaction_representation: column {c!r} must be > 0 for "
                                     f"log10, not for dataset(s) {bad}")
                out[c] = np.log10(out[c])
        out = out.rename(columns={c: f"log10_{c}" for c in RECSYS_SIZE_COLUMNS if c in out.columns})
    return out


def nlp_metadata_representation(meta: pd.DataFrame) -> pd.DataFrame:
    """The NLP 'metadata' representation of MTEB tasks (paper Table 2 columns).

    Columns: one-hot ``type=<Type>`` and ``category=<s2s|s2p|p2p>``; ``n_langs``;
    ``log1p_{train,dev,test}_samples``; ``avg_chars_{train,dev,test}``. The numeric (non one-hot)
    columns are min-max rescaled to [0, 1]; constant columns are dropped.

    Parameters
    ----------
    meta : DataFrame from :func:`benchdesign.data.load_mteb_metadata` (index = task names), with
        columns type, category, n_langs, {train,dev,test}_samples, avg_chars_{train,dev,test}.

    Returns
    -------
    Float DataFrame (n_tasks, n_features), same index.
    """
    if not isinstance(meta, pd.DataFrame):
        raise TypeError(f"nlp_metadata_representation: expected a DataFrame, got {type(meta).__name__}")
    needed = ["type", "category", "n_langs", "train_samples", "dev_samples", "test_samples",
              "avg_chars_train", "avg_chars_dev", "avg_chars_test"]
    missing = [c for c in needed if c not in meta.columns]
    if missing:
        raise ValueError(f"nlp_metadata_representation: missing column(s) {missing}")
    nan_cols = [c for c in needed if meta[c].isna().any()]
    if nan_cols:
        raise ValueError(f"nlp_metadata_representation: column(s) with NaN: {nan_cols}")
    dup = meta.index[meta.index.duplicated()].unique().tolist()
    if dup:
        raise ValueError(f"nlp_metadata_representation: duplicate task name(s) in the index: {dup}")
    numeric = pd.DataFrame(index=meta.index)
    numeric["n_langs"] = meta["n_langs"].astype(np.float64)
    for split in ("train", "dev", "test"):
        n = meta[f"{split}_samples"].astype(np.float64)
        if (n < 0).any():
            raise ValueError(f"nlp_metadata_representation: negative {split}_samples for "
                             f"{meta.index[n < 0].tolist()}")
        numeric[f"log1p_{split}_samples"] = np.log1p(n)
    for split in ("train", "dev", "test"):
        numeric[f"avg_chars_{split}"] = meta[f"avg_chars_{split}"].astype(np.float64)
    lo, hi = numeric.min(), numeric.max()
    span = (hi - lo).replace(0.0, 1.0)  # constant columns become 0 and are dropped below
    numeric = (numeric - lo) / span
    onehot = pd.concat(
        [pd.get_dummies(meta["type"].astype(str), prefix="type", prefix_sep="="),
         pd.get_dummies(meta["category"].astype(str), prefix="category", prefix_sep="=")],
        axis=1,
    ).astype(np.float64)
    out = pd.concat([onehot, numeric], axis=1)
    return _drop_constant(out, "nlp_metadata_representation")


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
