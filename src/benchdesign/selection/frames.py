"""The long result frames of the protocol: their columns (docs/CONTRACTS.md), the fixed name orders they
are sorted by, display labels of strategy configurations, and the checks every aggregation step shares.

Nothing here knows a benchmark: domains are sorted in the order a caller passes (``domain_order``, e.g. the
built-in domains' registry order), the others alphabetically after them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from benchdesign.selection.classes import CLASS_LABELS, CLASSES, INFORMED, selection_class
from benchdesign.selection.metrics import METRIC_HIGHER_IS_BETTER
from benchdesign.selection.options import VARIATIONS
from benchdesign.selection.strategies import STRATEGIES, STRATEGY_REGISTRY

VARIATION_ORDER = VARIATIONS
STRATEGY_ORDER = tuple(STRATEGIES)
REPRESENTATION_ORDER = ("interaction", "metadata", "oracle", "none")
METRIC_ORDER = ("mae", "spearman", "kendall", "ndcg5", "mrr", "ndcg5_paper")
REGIME_ORDER = ("oracle", "broken")
INFORMED_LABEL = f"best {CLASS_LABELS[INFORMED]}"
"""How Table 1, Table 3 and the figures name the best informed configuration (the oracle is one), shown apart from
the a-priori contenders, never as "best" or "upper bound": true under both protocols (the paper's, where all
models build it and judge it, and model holdout, where only the seen models build it)."""
CRITERION_ORDER = ("mean", "conservative")
CLASS_ORDER = CLASSES
# Column order of the paper's Table 1.
PAPER_METRIC_ORDER = ("mae", "spearman", "ndcg5", "kendall", "mrr", "ndcg5_paper")

STRATEGY_LABELS = {name: s.label for name, s in STRATEGY_REGISTRY.items()}
"""Display name of every registered strategy (the ``Strategy`` labels)."""
REPRESENTATION_LABELS = {
    "simple": "simple features",
    "catch22": "catch22",
    "tsfresh": "tsfresh",
    "summary": "summary statistics",
    "minirocket": "MiniRocket",
    "landmarking": "landmarking",
    "simple_paper": "simple features, paper's code",
    "catch22_paper": "catch22, paper's code",
    "tsfresh_paper": "tsfresh, paper's code",
    "summary_paper": "summary statistics, paper's code",
    "landmarking_paper": "landmarking, paper's code",
    "interaction": "interaction",
    "metadata": "metadata",
    "description": "task description",
    "oracle": "oracle",
}
"""Display name of each built-in representation in tables and figures; any other name (a user's own
representation) is shown as it is (``representation_label``)."""
DASH = "–"

CONFIG = ["domain", "variation", "strategy", "representation"]
TRIAL_COLUMNS = [*CONFIG, "trial", "k", "metric", "value"]
DRAW = "draw"
"""Optional column of a trials frame: a random baseline's draw within the trial (0, 1, ...; absent or NaN: one
draw).  ``trial_means`` averages a trial's draws."""
CURVE_COLUMNS = [*CONFIG, "metric", "k", "mean", "lo", "hi", "n_trials"]
AUC_COLUMNS = [*CONFIG, "metric", "trial", "auc"]
TABLE1_COLUMNS = [
    "domain", "strategy", "representation", "class", "metric", "auc_mean", "auc_sd", "n_trials", "n_datasets",
]
SHARE_COLUMNS = [*CONFIG, "metric", "k", "threshold", "share", "n_trials"]
VERDICT_COLUMNS = [
    "domain", "k", "pool_size", "n_datasets", "metric", "threshold", "best_strategy", "best_representation", "best_share",
    "random_share", "n_trials", "n_judges", "wins", "losses", "p_raw", "p_holm", "significant", "n_contenders",
    "class", "informed_strategy", "informed_representation", "informed_share", "informed_p_holm",
]
KSTAR_COLUMNS = [
    "domain", "metric", "strategy", "representation", "class", "threshold", "kstar_mean", "kstar_conservative",
]
TABLE2_COLUMNS = [
    "domain", "metric", "threshold", "criterion", "best", "median", "worst", "n_reached", "n_configs",
    "best_configs", "best_classes",
]
TABLE3_COLUMNS = [
    "domain", "metric", "class", "best_strategy", "best_representation", "other_strategy",
    "other_representation", "best_auc", "other_auc", "p_raw", "p_holm", "significant",
]
TABLE3_SUMMARY_COLUMNS = [
    "domain", "metric", "class", "best_strategy", "best_representation", "best_auc", "random_auc",
    "gain_vs_random", "p_holm_vs_random", "closest_strategy", "closest_representation",
    "closest_auc", "closest_p_holm", "informed_strategy", "informed_representation", "informed_auc",
]
REFERENCE_COLUMNS = ["domain", "metric", "informed_strategy", "informed_representation", "informed_auc"]
SYNTHETIC_AUC_COLUMNS = ["regime", "strategy", "seed", "metric", "auc"]
TABLE4_COLUMNS = ["regime", "strategy", "metric", "auc_mean", "auc_sd", "n_seeds"]

_ORDERS: dict[str, Sequence[str]] = {
    "variation": VARIATION_ORDER,
    "strategy": STRATEGY_ORDER,
    "representation": REPRESENTATION_ORDER,
    "metric": METRIC_ORDER,
    "regime": REGIME_ORDER,
    "criterion": CRITERION_ORDER,
    "other_strategy": STRATEGY_ORDER,
    "other_representation": REPRESENTATION_ORDER,
    "class": CLASS_ORDER,
}


def require_columns(df: pd.DataFrame, required: Iterable[str], what: str) -> None:
    """ValueError naming ``what`` and the missing columns, if ``df`` lacks any of ``required``."""
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(f"{what} is missing columns {missing}; has {list(df.columns)}")


def check_metrics(metrics: Iterable[str]) -> None:
    """ValueError naming the metrics that are not rank-agreement metrics (``METRIC_HIGHER_IS_BETTER``)."""
    unknown = sorted(set(metrics) - set(METRIC_HIGHER_IS_BETTER))
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; expected one of {list(METRIC_HIGHER_IS_BETTER)}")


def _rank_key(column: pd.Series, domain_order: Sequence[str]) -> pd.Series:
    """Sort key: fixed name order first, unknown names after it alphabetically."""
    order = domain_order if column.name == "domain" else _ORDERS.get(str(column.name))
    if order is None:
        return column
    extra = sorted(set(column.astype(str)) - set(order))
    rank = {name: i for i, name in enumerate([*order, *extra])}
    return column.astype(str).map(rank)


def sort_frame(df: pd.DataFrame, by: Sequence[str], domain_order: Sequence[str] = ()) -> pd.DataFrame:
    """Sort ``df`` by ``by`` using the fixed name orders above (strategies in registry order, metrics, ...;
    domains: ``domain_order`` first, then the others alphabetically); fresh index."""
    return df.sort_values(list(by), key=lambda column: _rank_key(column, domain_order),
                          kind="mergesort").reset_index(drop=True)


def config_name(keys: Sequence[str], values: Iterable[object]) -> str:
    """``key=value, ...`` of a configuration, for error messages."""
    return ", ".join(f"{k}={v}" for k, v in zip(keys, values))


def draws_of(trials: pd.DataFrame) -> pd.Series:
    """The ``DRAW`` of every row: 0 where the column is absent or empty (a single draw)."""
    if DRAW not in trials.columns:
        return pd.Series(0, index=trials.index, dtype=int)
    return trials[DRAW].fillna(0).astype(int)


def trial_means(trials: pd.DataFrame) -> pd.DataFrame:
    """``trials`` with one row per (configuration, trial, k, metric): a random baseline's draws averaged (its
    expected value on the trial's pool, estimated from the draws); a frame without several draws is returned as
    it is, without a ``DRAW`` column.

    Parameters
    ----------
    trials : pd.DataFrame
        Long trial rows (``TRIAL_COLUMNS``, optionally ``DRAW``).

    Returns
    -------
    pd.DataFrame
        Columns ``TRIAL_COLUMNS`` (and any other columns of a frame without draws).

    Examples
    --------
    >>> rows = [("b", "model_holdout", "random", "none", 0, d, 5, "spearman", v) for d, v in enumerate([0.8, 1.0])]
    >>> trial_means(pd.DataFrame(rows, columns=[*CONFIG, "trial", DRAW, "k", "metric", "value"]))["value"].tolist()
    [0.9]
    """
    if DRAW not in trials.columns:
        return trials
    if (draws_of(trials) == 0).all():
        return trials.drop(columns=DRAW)
    keys = TRIAL_COLUMNS[:-1]
    return trials.groupby(keys, sort=False, dropna=False)["value"].mean().reset_index()[TRIAL_COLUMNS]


def validate_trials(trials: pd.DataFrame) -> None:
    """ValueError on a trials frame without the ``TRIAL_COLUMNS``, empty, with an unknown metric, a
    non-finite value, a repeated (configuration, trial, draw, k, metric) or a configuration whose trials hold
    different numbers of draws, naming the first bad row."""
    require_columns(trials, TRIAL_COLUMNS, "trials")
    if trials.empty:
        raise ValueError("trials frame is empty")
    check_metrics(trials["metric"].unique())
    values = trials["value"].to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        row = trials.loc[bad].iloc[0]
        raise ValueError(
            f"non-finite value {row['value']!r} at "
            + config_name(TRIAL_COLUMNS[:-1], row[TRIAL_COLUMNS[:-1]])
        )
    keyed = trials.assign(**{DRAW: draws_of(trials)})
    keys = [*TRIAL_COLUMNS[:-3], DRAW, *TRIAL_COLUMNS[-3:-1]]
    dup = keyed.duplicated(keys)
    if dup.any():
        row = keyed.loc[dup].iloc[0]
        raise ValueError("duplicate trial row " + config_name(keys, row[keys]))
    if DRAW in trials.columns:
        counts = keyed.groupby([*CONFIG, "trial"], sort=False)[DRAW].nunique()
        uneven = counts.groupby(level=list(range(len(CONFIG)))).nunique() > 1
        if uneven.any():
            raise ValueError(f"trials of configuration ({config_name(CONFIG, uneven.index[uneven][0])}) hold "
                             "different numbers of draws; every trial needs the same")


def select_variation(df: pd.DataFrame, variation: str | None) -> pd.DataFrame:
    """Rows of ``variation``; ``None`` means the single variation present (error if several)."""
    if variation is None:
        present = sorted(df["variation"].unique())
        if len(present) != 1:
            raise ValueError(f"frame holds variations {present}; pass variation= to choose one")
        return df
    sub = df[df["variation"] == variation]
    if sub.empty:
        raise ValueError(
            f"no rows for variation {variation!r}; present: {sorted(df['variation'].unique())}"
        )
    return sub


def best_index(values: Sequence[float] | np.ndarray, metric: str) -> int:
    """Position of the best value (first one on ties)."""
    arr = np.asarray(values, dtype=float)
    return int(np.argmax(arr) if METRIC_HIGHER_IS_BETTER[metric] else np.argmin(arr))


def representation_label(representation: str) -> str:
    """Display name of a representation: ``REPRESENTATION_LABELS``, else the name itself.

    Examples
    --------
    >>> representation_label("catch22_paper")
    "catch22, paper's code"
    >>> representation_label("my_features")
    'my_features'
    """
    return REPRESENTATION_LABELS.get(representation, representation)


def class_column(df: pd.DataFrame, strategy: str = "strategy", representation: str = "representation") -> pd.Series:
    """The class (``classes.selection_class``) of every row's (strategy, representation), e.g. for a ``class``
    column."""
    return pd.Series([selection_class(s, r) for s, r in zip(df[strategy], df[representation])], index=df.index,
                     dtype=object)


def config_label(strategy: str, representation: str) -> str:
    """Readable label, e.g. ``K-Means (oracle)`` or ``C-FAFI (catch22, paper's code)``; ``Random`` for
    representation ``none``.  Strategies are named by ``STRATEGY_LABELS``, representations by
    ``representation_label``."""
    label = STRATEGY_LABELS.get(strategy, strategy)
    return label if representation == "none" else f"{label} ({representation_label(representation)})"
