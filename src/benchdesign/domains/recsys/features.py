"""The 18 interaction-matrix features of a recommender-system dataset (paper section 5.2).

Definitions follow Deldjoo et al. (2021), "Explaining recommender systems fairness and accuracy
through the lens of data characteristics", Inf. Process. Manag. 58(5), and their implementation by
Shevchenko et al. (2024), "From variability to stability: advancing RecSys benchmarking practices",
KDD '24 (function ``get_dataset_features`` of notebooks/data_analysis/datasets_statistics.ipynb in
github.com/nokiroki/recsys-evaluation-of-dozens-datasets), which produced the 30 x 18 table the
paper uses. With ``U`` users, ``I`` items and ``R`` interaction rows (duplicates count):

* ``Nu = U``, ``Ni = I``, ``Nr = R``, ``SpaceSize = U * I``, ``Shape = U / I``,
  ``Density = R / (U * I)``, ``Rpu = R / U``, ``Rpi = R / I``;
* ``Ginii`` / ``Giniu``: Gini coefficient of the interaction counts per item / per user,
  ``1 - 2 * sum_k (n + 1 - k) * c_(k) / ((n + 1) * R)`` with the counts ``c_(1) <= ... <= c_(n)``
  in ascending order (0 = all equal);
* popularity bias: the popularity of an item is its number of distinct users divided by ``U``; a
  user's popularity bias is the mean popularity over the user's interaction rows; ``APB``, ``StPB``,
  ``SkPB``, ``KuPB`` are the mean, the sample standard deviation (ddof 1), the skewness and the
  excess kurtosis (both biased, scipy's defaults) of the users' popularity biases;
* long tail: items sorted by interaction count, most popular first (ties: smaller item id first);
  the short head is the items before the first position where the cumulative share of interactions
  exceeds 0.8, every other item is in the long tail (the item crossing 0.8 included); a user's long-tail
  share is the fraction of the user's distinct items that are in the long tail; ``LTavg``, ``LTstd``,
  ``LTsk``, ``LTku`` are its mean, sample standard deviation, skewness and excess kurtosis.

The rating column, if any, is not used by any of the 18 features.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchdesign.selection.representations import check_frame

__all__ = ["FEATURE_NAMES", "RECSYS_SIZE_COLUMNS", "gini_coefficient", "interaction_features",
           "recsys_interaction_representation"]

FEATURE_NAMES = ("Nu", "Ni", "Nr", "SpaceSize", "Shape", "Density", "Rpu", "Rpi", "Ginii", "Giniu",
                 "APB", "StPB", "SkPB", "KuPB", "LTavg", "LTstd", "LTsk", "LTku")

RECSYS_SIZE_COLUMNS = ("Nu", "Ni", "Nr", "SpaceSize")
"""Heavy-tailed size features of the RecSys table (users, items, ratings, users x items)."""


def gini_coefficient(counts) -> float:
    """Gini coefficient of non-negative counts (Deldjoo et al. 2021, eq. for Gini_i / Gini_u).

    ``1 - 2 * sum_k (n + 1 - k) * c_(k) / ((n + 1) * sum c)`` with the counts sorted ascending; 0 when
    all counts are equal, close to 1 when one entry holds almost everything.
    """
    c = np.sort(np.asarray(counts, dtype=np.float64))
    if c.ndim != 1 or c.size == 0:
        raise ValueError(f"counts: expected a non-empty 1-d array, got shape {c.shape}")
    if (c < 0).any() or c.sum() <= 0:
        raise ValueError("counts must be non-negative with a positive sum")
    n = c.size
    k = np.arange(1, n + 1)
    return float(1.0 - 2.0 * np.sum((n + 1 - k) * c) / ((n + 1) * c.sum()))


def _moments(values: pd.Series) -> tuple[float, float, float, float]:
    x = values.to_numpy(dtype=np.float64)
    sd = float(np.std(x, ddof=1)) if x.size > 1 else float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        from scipy import stats  # here: importing the domains needs no scipy.stats

        skew = float(stats.skew(x)) if np.ptp(x) > 0 else float("nan")
        kurt = float(stats.kurtosis(x)) if np.ptp(x) > 0 else float("nan")
    return float(x.mean()), sd, skew, kurt


def interaction_features(interactions: pd.DataFrame, user: str = "user", item: str = "item",
                         long_tail_share: float = 0.8) -> pd.Series:
    """The 18 features (``FEATURE_NAMES``) of one interaction table.

    Parameters
    ----------
    interactions : DataFrame with one row per interaction and columns ``user`` and ``item`` (any
        hashable ids; other columns such as a rating are ignored).
    user, item : column names.
    long_tail_share : share of interactions covered by the short head (0.8 in the references).

    Returns
    -------
    Series of float indexed by ``FEATURE_NAMES``. Standard deviation, skewness and kurtosis are
    NaN when undefined (a single user, or a constant per-user quantity).

    Raises
    ------
    ValueError naming the missing column, or when the table is empty or has missing ids.
    """
    if not isinstance(interactions, pd.DataFrame):
        raise TypeError(f"interactions: expected a DataFrame, got {type(interactions).__name__}")
    missing = [c for c in (user, item) if c not in interactions.columns]
    if missing:
        raise ValueError(f"interactions: missing column(s) {missing}; has {list(interactions.columns)}")
    if len(interactions) == 0:
        raise ValueError("interactions: empty table")
    if interactions[[user, item]].isna().any().any():
        raise ValueError("interactions: missing user or item ids")
    if not 0.0 < long_tail_share < 1.0:
        raise ValueError(f"long_tail_share must be in (0, 1), got {long_tail_share}")
    frame = interactions[[user, item]]
    n_users = frame[user].nunique()
    n_items = frame[item].nunique()
    n_rows = len(frame)
    item_counts = frame.groupby(item, sort=True).size()
    user_counts = frame.groupby(user, sort=True).size()

    # popularity bias: mean over a user's rows of (distinct users of the item / U)
    popularity = frame.groupby(item)[user].nunique() / n_users
    user_bias = frame[item].map(popularity).groupby(frame[user]).mean()
    apb, stpb, skpb, kupb = _moments(user_bias)

    # long tail: items by count descending, ties by item id (stable sort on the id-sorted counts)
    ranked = item_counts.sort_values(ascending=False, kind="stable")
    head_end = int(np.argmax(ranked.cumsum().to_numpy() / n_rows > long_tail_share))
    long_tail = set(ranked.index[head_end:])
    distinct = frame.drop_duplicates()
    in_tail = distinct[item].isin(long_tail)
    lt_share = in_tail.groupby(distinct[user]).mean()
    ltavg, ltstd, ltsk, ltku = _moments(lt_share)

    values = {
        "Nu": n_users, "Ni": n_items, "Nr": n_rows, "SpaceSize": n_users * n_items,
        "Shape": n_users / n_items, "Density": n_rows / (n_users * n_items),
        "Rpu": n_rows / n_users, "Rpi": n_rows / n_items,
        "Ginii": gini_coefficient(item_counts.to_numpy()),
        "Giniu": gini_coefficient(user_counts.to_numpy()),
        "APB": apb, "StPB": stpb, "SkPB": skpb, "KuPB": kupb,
        "LTavg": ltavg, "LTstd": ltstd, "LTsk": ltsk, "LTku": ltku,
    }
    return pd.Series(values, index=list(FEATURE_NAMES), dtype=np.float64)


def recsys_interaction_representation(features: pd.DataFrame, log_sizes: bool = False) -> pd.DataFrame:
    """The RecSys 'interaction' representation: the 18 dataset statistics of Shevchenko et al. (2024).

    The paper only says the features are standardised, and its code z-scores the raw values, so the
    default keeps them as they are (standardisation follows in the protocol). ``log_sizes=True``
    replaces the heavy-tailed size columns ``RECSYS_SIZE_COLUMNS`` (Nu, Ni, Nr, SpaceSize, which
    span several orders of magnitude, so a few very large datasets dominate their z-scores) by their
    log10 -- a deviation from the paper offered for ablations.

    Parameters
    ----------
    features : DataFrame (n_datasets, n_features) from ``benchdesign.data.load_recsys``.
    log_sizes : apply log10 to the size columns that are present (they must be > 0).

    Returns
    -------
    Float DataFrame, same index and columns (size columns renamed ``log10_<name>`` when logged).
    """
    check_frame(features, "recsys_interaction_representation")
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
