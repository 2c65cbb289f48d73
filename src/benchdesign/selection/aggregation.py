"""Curves, AUCs and k* of trial results (paper sections 6.1-6.2).

Every function takes and returns DataFrames; nothing here reads or writes files. The input ``trials`` frame
is the long protocol output (``TRIAL_COLUMNS``, docs/CONTRACTS.md);
``variation=None`` means "the single variation present in the frame" (ValueError if there are several).
Results are sorted by ``sort_frame`` with the caller's ``domain_order``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from benchdesign.selection.frames import (
    AUC_COLUMNS,
    CONFIG,
    CRITERION_ORDER,
    CURVE_COLUMNS,
    KSTAR_COLUMNS,
    SHARE_COLUMNS,
    check_metrics,
    class_column,
    config_name,
    require_columns,
    select_variation,
    sort_frame,
    trial_means,
    validate_trials,
)
from benchdesign.selection.metrics import METRIC_HIGHER_IS_BETTER

DEFAULT_THRESHOLDS: Mapping[str, float] = MappingProxyType({"mae": 1.5, "spearman": 0.90})

_trapezoid = getattr(np, "trapezoid", None) or np.trapz  # numpy < 2.0 has only trapz


def curves(trials: pd.DataFrame, *, domain_order: Sequence[str] = ()) -> pd.DataFrame:
    """Mean curve and 95% percentile band over trials.

    One row per (domain, variation, strategy, representation, metric, k) with ``mean``,
    ``lo`` (2.5th percentile), ``hi`` (97.5th percentile, linear interpolation) and ``n_trials``.  A random
    baseline's draws (``frames.DRAW``) all count: its band is that of one random subset, its mean that of the
    trials' means (every trial has the same number of draws).

    Parameters
    ----------
    trials : pd.DataFrame
        Long trial rows (``TRIAL_COLUMNS``: domain, variation, strategy, representation, trial, k, metric, value).
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    pd.DataFrame
        One row per configuration, metric and k: ``mean``, ``lo``, ``hi``, ``n_trials``.

    Examples
    --------
    Two trials of random, each with a Spearman value at k = 2 and k = 4:

    >>> import pandas as pd
    >>> from benchdesign.selection import curves
    >>> trials = pd.DataFrame({"domain": "toy", "variation": "dataset_pool", "strategy": "random",
    ...                        "representation": "none", "trial": [0, 0, 1, 1], "k": [2, 4, 2, 4],
    ...                        "metric": "spearman", "value": [0.6, 0.8, 0.8, 1.0]})
    >>> curves(trials)[["k", "mean", "lo", "hi", "n_trials"]].round(3)
       k  mean     lo     hi  n_trials
    0  2   0.7  0.605  0.795         2
    1  4   0.9  0.805  0.995         2
    """
    validate_trials(trials)
    grouped = trials.groupby([*CONFIG, "metric", "k"], sort=False)
    out = pd.concat(
        {
            "mean": grouped["value"].mean(),
            "lo": grouped["value"].quantile(0.025),
            "hi": grouped["value"].quantile(0.975),
            "n_trials": grouped["trial"].nunique(),
        },
        axis=1,
    ).reset_index()
    return sort_frame(out[CURVE_COLUMNS], [*CONFIG, "metric", "k"], domain_order)


def trial_auc(trials: pd.DataFrame, *, domain_order: Sequence[str] = ()) -> pd.DataFrame:
    """Trapezoid AUC over k for every trial.

    One row per (domain, variation, strategy, representation, metric, trial) with ``auc``
    (``np.trapezoid`` with x = k) of the trial's values, a random baseline's draws averaged first
    (``frames.trial_means``: its expected AUC on the trial's pool). Raises ValueError if the trials of a configuration do not
    share one k grid or the grid has fewer than two points.

    Parameters
    ----------
    trials : pd.DataFrame
        Long trial rows (``TRIAL_COLUMNS``: domain, variation, strategy, representation, trial, k, metric, value).
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    pd.DataFrame
        One row per configuration, metric and trial, with ``auc``.

    Examples
    --------
    Trial 0 goes from 0.6 at k = 2 to 0.8 at k = 4: AUC (0.6 + 0.8) / 2 * 2 = 1.4:

    >>> import pandas as pd
    >>> from benchdesign.selection import trial_auc
    >>> trials = pd.DataFrame({"domain": "toy", "variation": "dataset_pool", "strategy": "random",
    ...                        "representation": "none", "trial": [0, 0, 1, 1], "k": [2, 4, 2, 4],
    ...                        "metric": "spearman", "value": [0.6, 0.8, 0.8, 1.0]})
    >>> trial_auc(trials)[["strategy", "metric", "trial", "auc"]].round(3)
      strategy    metric  trial  auc
    0   random  spearman      0  1.4
    1   random  spearman      1  1.8
    """
    validate_trials(trials)
    keys = [*CONFIG, "metric"]
    parts = []
    for cfg, block in trial_means(trials).groupby(keys, sort=False):
        wide = block.pivot(index="trial", columns="k", values="value").sort_index(axis=1)
        name = config_name(keys, cfg)
        if wide.isna().to_numpy().any():
            trial = wide.index[wide.isna().any(axis=1)][0]
            have = sorted(block.loc[block["trial"] == trial, "k"].tolist())
            raise ValueError(
                f"trials of configuration ({name}) do not share one k grid: trial {trial} has "
                f"k={have}, other trials have k={wide.columns.tolist()}"
            )
        if wide.shape[1] < 2:
            raise ValueError(
                f"configuration ({name}) has k grid {wide.columns.tolist()}; need >= 2 points"
            )
        auc = _trapezoid(wide.to_numpy(dtype=float), x=wide.columns.to_numpy(dtype=float), axis=1)
        part = pd.DataFrame({"trial": wide.index, "auc": auc})
        for key, value in zip(keys, cfg):
            part[key] = value
        parts.append(part)
    out = pd.concat(parts, ignore_index=True)
    return sort_frame(out[AUC_COLUMNS], [*CONFIG, "metric", "trial"], domain_order)


def curve_auc(curves_df: pd.DataFrame, column: str = "mean", *, domain_order: Sequence[str] = ()) -> pd.DataFrame:
    """Trapezoid AUC over k of one curve column (default the mean curve) per configuration.

    Returns columns domain, variation, strategy, representation, metric, auc.

    Parameters
    ----------
    curves_df : pd.DataFrame
        Curves of ``curves``.
    column : str
        The curve column integrated: ``'mean'``, ``'lo'`` or ``'hi'``.
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    pd.DataFrame
        Columns domain, variation, strategy, representation, metric, auc.

    Examples
    --------
    The AUC of the mean curve (0.7 at k = 2, 0.9 at k = 4) is the mean of the trials' AUCs (1.4 and 1.8):

    >>> import pandas as pd
    >>> from benchdesign.selection import curve_auc, curves
    >>> trials = pd.DataFrame({"domain": "toy", "variation": "dataset_pool", "strategy": "random",
    ...                        "representation": "none", "trial": [0, 0, 1, 1], "k": [2, 4, 2, 4],
    ...                        "metric": "spearman", "value": [0.6, 0.8, 0.8, 1.0]})
    >>> curve_auc(curves(trials))[["strategy", "metric", "auc"]].round(3)
      strategy    metric  auc
    0   random  spearman  1.6
    """
    require_columns(curves_df, [*CONFIG, "metric", "k", column], "curves frame")
    keys = [*CONFIG, "metric"]
    rows = []
    for cfg, block in curves_df.groupby(keys, sort=False):
        block = block.sort_values("k")
        if block["k"].duplicated().any():
            raise ValueError(f"configuration ({config_name(keys, cfg)}) repeats a k value")
        auc = _trapezoid(block[column].to_numpy(dtype=float), x=block["k"].to_numpy(dtype=float))
        rows.append((*cfg, float(auc)))
    return sort_frame(pd.DataFrame(rows, columns=[*keys, "auc"]), keys, domain_order)


def _check_thresholds(thresholds: Mapping[str, float]) -> None:
    if not thresholds:
        raise ValueError("thresholds must name at least one metric")
    check_metrics(thresholds)
    for metric, value in thresholds.items():
        if not np.isfinite(value):
            raise ValueError(f"threshold for {metric!r} is {value!r}; must be finite")


def meets_target(values: ArrayLike, threshold: ArrayLike, higher_is_better: ArrayLike) -> np.ndarray:
    """The one target test of Table 2's k* and of the verdicts (inclusive): ``value >= threshold`` for a
    higher-is-better metric, ``value <= threshold`` otherwise; element-wise, arguments broadcast.

    Parameters
    ----------
    values : ArrayLike
        Metric values.
    threshold : ArrayLike
        Target per value.
    higher_is_better : ArrayLike
        Whether the metric of each value is higher-is-better.

    Returns
    -------
    np.ndarray
        Booleans: the value meets its target.

    Examples
    --------
    Two values of ρ against 0.9 (higher is better) and one MAE against 1.5 (lower is better):

    >>> from benchdesign.selection import meets_target
    >>> meets_target([0.95, 0.85, 1.2], [0.9, 0.9, 1.5], [True, True, False]).tolist()
    [True, False, True]
    """
    values, threshold = np.asarray(values, dtype=float), np.asarray(threshold, dtype=float)
    return np.where(np.asarray(higher_is_better, dtype=bool), values >= threshold, values <= threshold)


def pool_shares(
    trials: pd.DataFrame, thresholds: Mapping[str, float] = DEFAULT_THRESHOLDS, *, domain_order: Sequence[str] = ()
) -> pd.DataFrame:
    """Share of pools meeting the target: per (configuration, metric, k), the fraction of trials (each a
    random pool) whose value passes [`meets_target`][]; a random baseline with several draws per trial counts
    each trial by the share of its draws that pass (the probability that a random subset of that pool meets it).

    Columns: domain, variation, strategy, representation, metric, k, threshold, share, n_trials.

    Parameters
    ----------
    trials : pd.DataFrame
        Long trial rows (``TRIAL_COLUMNS``: domain, variation, strategy, representation, trial, k, metric, value).
    thresholds : Mapping[str, float]
        Metric -> target.
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    pd.DataFrame
        Columns domain, variation, strategy, representation, metric, k, threshold, share, n_trials.

    Examples
    --------
    At k = 2 one of the two trials reaches ρ >= 0.75 (0.8, not 0.6), at k = 4 both do:

    >>> import pandas as pd
    >>> from benchdesign.selection import pool_shares
    >>> trials = pd.DataFrame({"domain": "toy", "variation": "dataset_pool", "strategy": "random",
    ...                        "representation": "none", "trial": [0, 0, 1, 1], "k": [2, 4, 2, 4],
    ...                        "metric": "spearman", "value": [0.6, 0.8, 0.8, 1.0]})
    >>> pool_shares(trials, {"spearman": 0.75})[["k", "threshold", "share", "n_trials"]]
       k  threshold  share  n_trials
    0  2       0.75    0.5         2
    1  4       0.75    1.0         2
    """
    validate_trials(trials)
    _check_thresholds(thresholds)
    sub = trials[trials["metric"].isin(list(thresholds))].copy()
    sub["threshold"] = sub["metric"].map(dict(thresholds))
    sub["ok"] = meets_target(sub["value"], sub["threshold"], sub["metric"].map(METRIC_HIGHER_IS_BETTER))
    per_trial = sub.groupby([*CONFIG, "metric", "k", "threshold", "trial"], sort=False)["ok"].mean()
    grouped = per_trial.groupby(level=[*CONFIG, "metric", "k", "threshold"], sort=False)
    out = pd.concat({"share": grouped.mean(), "n_trials": grouped.size()}, axis=1).reset_index()
    return sort_frame(out[SHARE_COLUMNS], [*CONFIG, "metric", "k"], domain_order)


def kstar_per_config(
    curves_df: pd.DataFrame,
    thresholds: Mapping[str, float] = DEFAULT_THRESHOLDS,
    variation: str | None = None,
    *,
    domain_order: Sequence[str] = (),
) -> pd.DataFrame:
    """Smallest k meeting each target, per (domain, metric, strategy, representation), with the configuration's
    class (``classes.selection_class``).

    ``kstar_mean`` uses the mean curve, ``kstar_conservative`` the worst side of the band
    (``hi`` for lower-is-better metrics, ``lo`` otherwise); NaN when the target is never met.
    Targets are met by ``value <= threshold`` (lower is better) or ``value >= threshold``.

    Parameters
    ----------
    curves_df : pd.DataFrame
        Curves of ``curves``.
    thresholds : Mapping[str, float]
        Metric -> target.
    variation : str | None
        The variation to use (None: the single one present).
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    pd.DataFrame
        ``kstar_mean`` and ``kstar_conservative`` per domain, metric, strategy and representation.

    Examples
    --------
    The mean curve (0.7 at k = 2, 0.9 at k = 4) reaches ρ >= 0.85 at k = 4; the lower end of the band
    (0.805 at k = 4) never does:

    >>> import pandas as pd
    >>> from benchdesign.selection import curves, kstar_per_config
    >>> trials = pd.DataFrame({"domain": "toy", "variation": "dataset_pool", "strategy": "random",
    ...                        "representation": "none", "trial": [0, 0, 1, 1], "k": [2, 4, 2, 4],
    ...                        "metric": "spearman", "value": [0.6, 0.8, 0.8, 1.0]})
    >>> kstar_per_config(curves(trials), {"spearman": 0.85})[["strategy", "class", "kstar_mean", "kstar_conservative"]]
      strategy     class  kstar_mean  kstar_conservative
    0   random  a priori         4.0                 NaN
    """
    require_columns(curves_df, CURVE_COLUMNS, "curves frame")
    _check_thresholds(thresholds)
    sub = select_variation(curves_df, variation)
    absent = [m for m in thresholds if m not in set(sub["metric"])]
    if absent:
        raise ValueError(f"threshold metric(s) {absent} not in the curves frame")
    sub = sub[sub["metric"].isin(list(thresholds))].copy()
    sub["threshold"] = sub["metric"].map(dict(thresholds))
    higher = sub["metric"].map(METRIC_HIGHER_IS_BETTER).to_numpy(dtype=bool)
    worst = np.where(higher, sub["lo"], sub["hi"])
    sub["ok_mean"] = meets_target(sub["mean"], sub["threshold"], higher)
    sub["ok_conservative"] = meets_target(worst, sub["threshold"], higher)
    keys = ["domain", "metric", "strategy", "representation", "threshold"]
    out = sub[keys].drop_duplicates().set_index(keys)
    for crit in CRITERION_ORDER:
        ok = sub[sub[f"ok_{crit}"]]
        out[f"kstar_{crit}"] = ok.groupby(keys)["k"].min().astype(float)
    out = out.reset_index()
    out["class"] = class_column(out)
    return sort_frame(out[KSTAR_COLUMNS], ["domain", "metric", "strategy", "representation"],
                      domain_order)
