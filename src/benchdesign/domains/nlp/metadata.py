"""The NLP 'metadata' representation of MTEB tasks (paper Table 2 columns), from the task metadata of
MTEB's README (``benchdesign.data.load_mteb_metadata``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchdesign.selection.representations import drop_constant

__all__ = ["nlp_metadata_representation"]


def nlp_metadata_representation(meta: pd.DataFrame) -> pd.DataFrame:
    """The NLP 'metadata' representation of MTEB tasks (paper Table 2 columns).

    Columns: one-hot ``type=<Type>`` and ``category=<s2s|s2p|p2p>``; ``n_langs``;
    ``log1p_{train,dev,test}_samples``; ``avg_chars_{train,dev,test}``. The numeric (non one-hot)
    columns are min-max rescaled to [0, 1]; constant columns are dropped.

    Parameters
    ----------
    meta : DataFrame from ``benchdesign.data.load_mteb_metadata`` (index = task names), with
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
    return drop_constant(out, "nlp_metadata_representation")
