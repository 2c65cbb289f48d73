"""The paper's Tables 1-4 as DataFrames (sections 6.1-6.4); Markdown rendering in
``markdown``.

Table functions take ``variation=None`` to mean "the single variation present in the frame" (ValueError if
there are several); pass e.g. ``variation="dataset_pool"`` to pick one. Rows are sorted by
``sort_frame`` with the caller's ``domain_order``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from benchdesign.selection.aggregation import DEFAULT_THRESHOLDS, curve_auc, kstar_per_config, trial_auc
from benchdesign.selection.classes import A_PRIORI, CLASSES, INFORMED
from benchdesign.selection.frames import (
    AUC_COLUMNS,
    CONFIG,
    CRITERION_ORDER,
    DASH,
    REFERENCE_COLUMNS,
    SYNTHETIC_AUC_COLUMNS,
    TABLE1_COLUMNS,
    TABLE2_COLUMNS,
    TABLE3_COLUMNS,
    TABLE3_SUMMARY_COLUMNS,
    TABLE4_COLUMNS,
    best_index,
    check_metrics,
    class_column,
    config_label,
    config_name,
    require_columns,
    select_variation,
    sort_frame,
)
from benchdesign.selection.metrics import METRIC_HIGHER_IS_BETTER
from benchdesign.selection.statistics import holm, paired_wilcoxon


def table1(
    trials: pd.DataFrame, n_datasets: Mapping[str, int], variation: str | None = None, *,
    domain_order: Sequence[str] = (),
) -> pd.DataFrame:
    """AUC aggregates per (domain, strategy, representation, metric) for one variation.

    Columns: domain, strategy, representation, class (``classes.selection_class``: a priori or informed),
    metric, auc_mean, auc_sd (ddof=1 over trials), n_trials, n_datasets. ``auc_mean`` equals the AUC of the mean
    curve (checked).

    Parameters
    ----------
    trials : pd.DataFrame
        Long trial rows of the protocol.
    n_datasets : Mapping[str, int]
        Number of datasets per domain.
    variation : str | None
        The variation to use (None: the single one present).
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    pd.DataFrame
        Table 1 as a frame.

    Examples
    --------
    Two configurations, two trials each, Spearman at k = 1, 2; a trial's AUC is the trapezoid (v1 + v2) / 2:

    >>> import pandas as pd
    >>> from benchdesign.selection import table1
    >>> values = {("kmeans", "meta"): [[0.2, 0.6], [0.4, 0.8]], ("random", "none"): [[0.1, 0.5], [0.1, 0.7]]}
    >>> rows = [("bench", "dataset_pool", s, r, t, k, "spearman", v) for (s, r), per_trial in values.items()
    ...         for t, curve in enumerate(per_trial) for k, v in zip([1, 2], curve)]
    >>> trials = pd.DataFrame(rows, columns=["domain", "variation", "strategy", "representation", "trial", "k",
    ...                                      "metric", "value"])
    >>> table1(trials, {"bench": 10})[["strategy", "representation", "auc_mean", "auc_sd", "n_trials"]].round(3)
      strategy representation  auc_mean  auc_sd  n_trials
    0   random           none      0.35   0.071         2
    1   kmeans           meta      0.50   0.141         2
    """
    sub = select_variation(trials, variation)
    missing = sorted(set(sub["domain"]) - set(n_datasets))
    if missing:
        raise ValueError(f"n_datasets has no entry for domain(s) {missing}")
    for domain, n in n_datasets.items():
        if int(n) != n or n < 1:
            raise ValueError(f"n_datasets[{domain!r}]={n!r} must be a positive integer")
    aucs = trial_auc(sub, domain_order=domain_order)
    keys = ["domain", "strategy", "representation", "metric"]
    grouped = aucs.groupby(keys, sort=False)["auc"]
    out = pd.concat(
        {"auc_mean": grouped.mean(), "auc_sd": grouped.std(ddof=1), "n_trials": grouped.size()},
        axis=1,
    ).reset_index()
    out["n_datasets"] = out["domain"].map(lambda d: int(n_datasets[d]))
    out["class"] = class_column(out)
    out = sort_frame(out[TABLE1_COLUMNS], ["domain", "metric", "strategy", "representation"], domain_order)

    mean_curve = sub.groupby([*CONFIG, "metric", "k"], sort=False)["value"].mean().reset_index()
    check = curve_auc(mean_curve.rename(columns={"value": "mean"}))
    merged = out.merge(check, on=keys, validate="one_to_one")
    if not np.allclose(merged["auc_mean"], merged["auc"], rtol=1e-9, atol=1e-9):
        raise RuntimeError("mean trial AUC differs from the AUC of the mean curve")
    return out


def table2(
    curves_df: pd.DataFrame,
    thresholds: Mapping[str, float] = DEFAULT_THRESHOLDS,
    variation: str | None = None,
    *,
    domain_order: Sequence[str] = (),
) -> pd.DataFrame:
    """Best / median / worst k* over configurations that reach the target.

    One row per (domain, metric, criterion in {mean, conservative}) with columns threshold,
    best, median, worst (NaN if no configuration reaches the target), n_reached, n_configs,
    best_configs (labels of the configurations attaining the best k*, "; "-joined) and best_classes (their
    classes, ``classes.selection_class``: "a priori", "informed" or "a priori; informed"). The
    configurations of both classes count, as in the paper.
    Per-configuration values: [`kstar_per_config`][].

    Parameters
    ----------
    curves_df : pd.DataFrame
        Curves of ``curves``.
    thresholds : Mapping[str, float]
        Metric -> target of k*.
    variation : str | None
        The variation to use (None: the single one present).
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    pd.DataFrame
        Table 2 as a frame.

    Examples
    --------
    K-means' mean curve reaches rho = 0.9 at k = 2 (mean of 0.85 and 1.0), random's at k = 3; the lower end of
    k-means' band at k = 2 stays below 0.9 (its trial with 0.85), so by the conservative criterion both need 3:

    >>> import pandas as pd
    >>> from benchdesign.selection import curves, table2
    >>> values = {("kmeans", "meta"): [[0.5, 0.85, 1.0], [0.7, 1.0, 1.0]],
    ...           ("random", "none"): [[0.3, 0.6, 0.9], [0.5, 0.8, 1.0]]}
    >>> rows = [("bench", "dataset_pool", s, r, t, k, "spearman", v) for (s, r), per_trial in values.items()
    ...         for t, curve in enumerate(per_trial) for k, v in zip([1, 2, 3], curve)]
    >>> trials = pd.DataFrame(rows, columns=["domain", "variation", "strategy", "representation", "trial", "k",
    ...                                      "metric", "value"])
    >>> table2(curves(trials), {"spearman": 0.9})[["criterion", "best", "worst", "n_reached", "best_configs"]]
          criterion  best  worst  n_reached            best_configs
    0          mean   2.0    3.0          2          K-Means (meta)
    1  conservative   3.0    3.0          2  Random; K-Means (meta)
    """
    per_config = kstar_per_config(curves_df, thresholds, variation, domain_order=domain_order)
    rows = []
    for (domain, metric), block in per_config.groupby(["domain", "metric"], sort=False):
        for crit in CRITERION_ORDER:
            ks = block[f"kstar_{crit}"]
            reached = block[ks.notna()]
            kvals = reached[f"kstar_{crit}"]
            best = kvals.min() if len(kvals) else np.nan
            winners = reached[kvals == best]
            rows.append({
                "domain": domain,
                "metric": metric,
                "threshold": float(block["threshold"].iloc[0]),
                "criterion": crit,
                "best": best,
                "median": kvals.median() if len(kvals) else np.nan,
                "worst": kvals.max() if len(kvals) else np.nan,
                "n_reached": int(len(kvals)),
                "n_configs": int(len(block)),
                "best_configs": "; ".join(
                    config_label(s, r) for s, r in zip(winners["strategy"], winners["representation"])
                ),
                "best_classes": "; ".join(c for c in CLASSES if c in set(winners["class"])),
            })
    return sort_frame(pd.DataFrame(rows, columns=TABLE2_COLUMNS), ["domain", "metric", "criterion"], domain_order)


def table3(
    trial_auc_df: pd.DataFrame,
    metrics: Sequence[str] = ("mae", "spearman"),
    variation: str | None = None,
    alpha: float = 0.05,
    within: str = A_PRIORI,
    *,
    domain_order: Sequence[str] = (),
) -> pd.DataFrame:
    """Best pair vs every other pair per (domain, metric) block, Holm-corrected, within one class.

    The contenders are the (strategy, representation) pairs of class ``within`` (``classes.selection_class``;
    default a priori: the informed configurations, the oracle among them, use the benchmark's scores and are
    shown apart, see [`reference_auc`][]); a block with one contender (e.g. only random beside the oracle)
    gives no rows.  The best pair has the best mean trial AUC; each other pair is compared by a one-sided
    paired Wilcoxon signed-rank test on AUCs matched by trial id.
    Columns: domain, metric, class (``within``), best_strategy, best_representation, other_strategy,
    other_representation, best_auc, other_auc (mean trial AUCs), p_raw, p_holm, significant (p_holm < alpha).

    Parameters
    ----------
    trial_auc_df : pd.DataFrame
        Per-trial AUCs of [`trial_auc`][].
    metrics : Sequence[str]
        Metrics to compare on.
    variation : str | None
        The variation to use (None: the single one present).
    alpha : float
        Significance level of the Holm-corrected tests.
    within : str
        The class whose configurations contend: ``'a priori'`` (default) or ``'informed'``.
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    pd.DataFrame
        Table 3 as a frame (all pairs).

    Examples
    --------
    Five trial AUCs per configuration; k-means beats random in all five trials (one-sided p = 1 / 2^5), and the
    oracle (informed) is left out of the a-priori contenders:

    >>> import pandas as pd
    >>> from benchdesign.selection import table3
    >>> aucs = {("kmeans", "meta"): [0.9, 0.8, 0.85, 0.95, 0.7], ("random", "none"): [0.8, 0.78, 0.7, 0.94, 0.5],
    ...         ("kmeans", "oracle"): [0.95, 0.9, 0.9, 0.97, 0.8]}
    >>> df = pd.DataFrame([("bench", "dataset_pool", s, r, "spearman", t, a) for (s, r), v in aucs.items()
    ...                    for t, a in enumerate(v)],
    ...                   columns=["domain", "variation", "strategy", "representation", "metric", "trial", "auc"])
    >>> t3 = table3(df, metrics=["spearman"])
    >>> t3[["best_strategy", "other_strategy", "best_auc", "other_auc", "p_holm", "significant"]].round(3)
      best_strategy other_strategy  best_auc  other_auc  p_holm  significant
    0        kmeans         random      0.84      0.744   0.031         True
    """
    require_columns(trial_auc_df, AUC_COLUMNS, "trial AUC frame")
    check_metrics(metrics)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r} must lie in (0, 1)")
    if within not in CLASSES:
        raise ValueError(f"within={within!r} must be one of {list(CLASSES)}")
    sub = select_variation(trial_auc_df, variation)
    absent = [m for m in metrics if m not in set(sub["metric"])]
    if absent:
        raise ValueError(f"metric(s) {absent} not in the trial AUC frame")
    keep = sub["metric"].isin(list(metrics)) & (class_column(sub) == within)
    sub = sort_frame(sub[keep], ["domain", "metric", "strategy", "representation", "trial"], domain_order)
    rows = []
    for (domain, metric), block in sub.groupby(["domain", "metric"], sort=False):
        wide = block.pivot(index="trial", columns=["strategy", "representation"], values="auc")
        pairs = list(dict.fromkeys(zip(block["strategy"], block["representation"])))
        wide = wide[pairs]
        if len(pairs) < 2:
            continue
        if wide.isna().to_numpy().any():
            col = wide.columns[wide.isna().any(axis=0)][0]
            raise ValueError(
                f"block (domain={domain}, metric={metric}): configuration {col} lacks trial ids "
                f"{wide.index[wide[col].isna()].tolist()[:5]} that others have"
            )
        means = wide.mean(axis=0).to_numpy()
        ib = best_index(means, metric)
        best_pair = pairs[ib]
        best_vals = wide[best_pair].to_numpy()
        others = [i for i in range(len(pairs)) if i != ib]
        p_raw = np.array([
            paired_wilcoxon(best_vals, wide[pairs[i]].to_numpy(), METRIC_HIGHER_IS_BETTER[metric])
            for i in others
        ])
        p_adj = holm(p_raw)
        for j, i in enumerate(others):
            rows.append((
                domain, metric, within, *best_pair, *pairs[i], float(means[ib]), float(means[i]),
                float(p_raw[j]), float(p_adj[j]), bool(p_adj[j] < alpha),
            ))
    out = pd.DataFrame(rows, columns=TABLE3_COLUMNS)
    return sort_frame(out, ["domain", "metric", "other_strategy", "other_representation"], domain_order)


def reference_auc(
    trial_auc_df: pd.DataFrame,
    metrics: Sequence[str] = ("mae", "spearman"),
    variation: str | None = None,
    *,
    domain_order: Sequence[str] = (),
) -> pd.DataFrame:
    """Best informed configuration (``classes.selection_class``: the oracle, features with the seen models'
    ranks) per (domain, metric), by mean trial AUC: shown beside Table 3's a-priori contenders.

    Columns: domain, metric, informed_strategy, informed_representation, informed_auc; no row for a domain
    without an informed configuration.

    Parameters
    ----------
    trial_auc_df : pd.DataFrame
        Per-trial AUCs of [`trial_auc`][].
    metrics : Sequence[str]
        Metrics to compare on.
    variation : str | None
        The variation to use (None: the single one present).
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    pd.DataFrame
        Columns domain, metric, informed_strategy, informed_representation, informed_auc.

    Examples
    --------
    The trial AUCs of [`table3`][]'s example; k-means on the oracle is the one informed configuration:

    >>> import pandas as pd
    >>> from benchdesign.selection import reference_auc
    >>> aucs = {("kmeans", "meta"): [0.9, 0.8, 0.85, 0.95, 0.7], ("random", "none"): [0.8, 0.78, 0.7, 0.94, 0.5],
    ...         ("kmeans", "oracle"): [0.95, 0.9, 0.9, 0.97, 0.8]}
    >>> df = pd.DataFrame([("bench", "dataset_pool", s, r, "spearman", t, a) for (s, r), v in aucs.items()
    ...                    for t, a in enumerate(v)],
    ...                   columns=["domain", "variation", "strategy", "representation", "metric", "trial", "auc"])
    >>> reference_auc(df, metrics=["spearman"]).round(3)
      domain    metric informed_strategy informed_representation  informed_auc
    0  bench  spearman            kmeans                  oracle         0.904
    """
    require_columns(trial_auc_df, AUC_COLUMNS, "trial AUC frame")
    check_metrics(metrics)
    sub = select_variation(trial_auc_df, variation)
    sub = sub[sub["metric"].isin(list(metrics)) & (class_column(sub) == INFORMED)]
    keys = ["domain", "metric", "strategy", "representation"]
    means = sub.groupby(keys, sort=False)["auc"].mean().reset_index()
    rows = []
    for (domain, metric), block in sort_frame(means, keys, domain_order).groupby(["domain", "metric"], sort=False):
        best = block.iloc[best_index(block["auc"], metric)]
        rows.append((domain, metric, best["strategy"], best["representation"], float(best["auc"])))
    return pd.DataFrame(rows, columns=REFERENCE_COLUMNS)


def table3_summary(
    t3: pd.DataFrame, reference: pd.DataFrame | None = None, *, domain_order: Sequence[str] = ()
) -> pd.DataFrame:
    """One row per (domain, metric) block of ``table3``.

    Columns: domain, metric, class (of the contenders, ``table3``'s ``within``), best_strategy,
    best_representation, best_auc, random_auc, gain_vs_random (random − best for lower-is-better metrics,
    best − random otherwise; 0 if random is best), p_holm_vs_random (NaN if random is best or absent), and the
    closest non-significant competitor (closest_strategy / closest_representation, "–" if none;
    closest_auc, closest_p_holm), and the best informed configuration from ``reference``
    ([`reference_auc`][]): informed_strategy, informed_representation ("–" if none) and informed_auc.

    Parameters
    ----------
    t3 : pd.DataFrame
        The result of ``table3``.
    reference : pd.DataFrame | None
        The result of [`reference_auc`][] (None: no informed columns filled).
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    pd.DataFrame
        Table 3 as printed, one row per block.

    Examples
    --------
    The trial AUCs of [`table3`][]'s example: k-means gains 0.84 - 0.744 over random:

    >>> import pandas as pd
    >>> from benchdesign.selection import reference_auc, table3, table3_summary
    >>> aucs = {("kmeans", "meta"): [0.9, 0.8, 0.85, 0.95, 0.7], ("random", "none"): [0.8, 0.78, 0.7, 0.94, 0.5],
    ...         ("kmeans", "oracle"): [0.95, 0.9, 0.9, 0.97, 0.8]}
    >>> df = pd.DataFrame([("bench", "dataset_pool", s, r, "spearman", t, a) for (s, r), v in aucs.items()
    ...                    for t, a in enumerate(v)],
    ...                   columns=["domain", "variation", "strategy", "representation", "metric", "trial", "auc"])
    >>> summary = table3_summary(table3(df, ["spearman"]), reference_auc(df, ["spearman"]))
    >>> summary[["best_strategy", "random_auc", "gain_vs_random", "p_holm_vs_random", "informed_auc"]].round(3)
      best_strategy  random_auc  gain_vs_random  p_holm_vs_random  informed_auc
    0        kmeans       0.744           0.096             0.031         0.904
    """
    require_columns(t3, TABLE3_COLUMNS, "table3 frame")
    if reference is None:
        reference = pd.DataFrame(columns=REFERENCE_COLUMNS)
    require_columns(reference, REFERENCE_COLUMNS, "reference frame")
    upper = {(r.domain, r.metric): (r.informed_strategy, r.informed_representation, float(r.informed_auc))
             for r in reference.itertuples()}
    check_metrics(t3["metric"].unique())
    rows = []
    for (domain, metric), block in t3.groupby(["domain", "metric"], sort=False):
        first = block.iloc[0]
        best_auc = float(first["best_auc"])
        sign = 1.0 if METRIC_HIGHER_IS_BETTER[metric] else -1.0
        random = block[block["other_strategy"] == "random"]
        if len(random) > 1:
            raise ValueError(
                f"block (domain={domain}, metric={metric}) has random with several representations "
                f"{random['other_representation'].tolist()}"
            )
        if first["best_strategy"] == "random":
            random_auc, gain, p_random = best_auc, 0.0, np.nan
        elif len(random) == 1:
            random_auc = float(random["other_auc"].iloc[0])
            gain = sign * (best_auc - random_auc)
            p_random = float(random["p_holm"].iloc[0])
        else:
            random_auc, gain, p_random = np.nan, np.nan, np.nan
        ns = block[~block["significant"].astype(bool)]
        if ns.empty:
            closest = (DASH, DASH, np.nan, np.nan)
        else:
            c = ns.iloc[best_index(ns["other_auc"], metric)]
            closest = (
                c["other_strategy"], c["other_representation"], float(c["other_auc"]),
                float(c["p_holm"]),
            )
        rows.append((
            domain, metric, first["class"], first["best_strategy"], first["best_representation"], best_auc,
            random_auc, gain, p_random, *closest, *upper.get((domain, metric), (DASH, DASH, np.nan)),
        ))
    out = pd.DataFrame(rows, columns=TABLE3_SUMMARY_COLUMNS)
    return sort_frame(out, ["domain", "metric"], domain_order)


def table4(synthetic_auc: pd.DataFrame) -> pd.DataFrame:
    """Mean ± sd (ddof=1) over seeds of per-seed AUCs, and the number of seeds.

    Input columns regime, strategy, seed, metric, auc; output columns regime, strategy, metric,
    auc_mean, auc_sd, n_seeds.

    Parameters
    ----------
    synthetic_auc : pd.DataFrame
        Per-seed AUCs, columns regime, strategy, seed, metric, auc.

    Returns
    -------
    pd.DataFrame
        Columns regime, strategy, metric, auc_mean, auc_sd, n_seeds.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection import table4
    >>> aucs = pd.DataFrame({"regime": "oracle", "strategy": ["kmeans"] * 3 + ["random"] * 3, "seed": [0, 1, 2] * 2,
    ...                      "metric": "spearman", "auc": [0.8, 0.9, 1.0, 0.5, 0.6, 0.4]})
    >>> table4(aucs).round(3)
       regime strategy    metric  auc_mean  auc_sd  n_seeds
    0  oracle   random  spearman       0.5     0.1        3
    1  oracle   kmeans  spearman       0.9     0.1        3
    """
    require_columns(synthetic_auc, SYNTHETIC_AUC_COLUMNS, "synthetic AUC frame")
    if synthetic_auc.empty:
        raise ValueError("synthetic AUC frame is empty")
    check_metrics(synthetic_auc["metric"].unique())
    keys = ["regime", "strategy", "seed", "metric"]
    dup = synthetic_auc.duplicated(keys)
    if dup.any():
        first = synthetic_auc.loc[dup, keys].iloc[0]
        raise ValueError("duplicate synthetic AUC row " + config_name(keys, first))
    bad = ~np.isfinite(synthetic_auc["auc"].to_numpy(dtype=float))
    if bad.any():
        row = synthetic_auc.loc[bad].iloc[0]
        raise ValueError(f"non-finite auc {row['auc']!r} at " + config_name(keys, row[keys]))
    grouped = synthetic_auc.groupby(["regime", "strategy", "metric"], sort=False)["auc"]
    out = pd.concat({"auc_mean": grouped.mean(), "auc_sd": grouped.std(ddof=1), "n_seeds": grouped.size()},
                    axis=1).reset_index()
    return sort_frame(out[TABLE4_COLUMNS], ["regime", "strategy", "metric"])
