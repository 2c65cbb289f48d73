"""Aggregation of trial results into curves, AUCs and the paper's Tables 1-4 (sections 6.1-6.4).

Every function takes and returns DataFrames or strings; nothing here reads or writes files.
The input ``trials`` frame is the long protocol output with columns
``domain, variation, strategy, representation, trial, k, metric, value`` (docs/CONTRACTS.md).
Table functions take ``variation=None`` to mean "the single variation present in the frame"
(ValueError if there are several); pass e.g. ``variation="dataset_pool"`` to pick one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

import numpy as np
import pandas as pd
from scipy.stats import wilcoxon
from tabulate import tabulate

from benchdesign.domains import BUILTIN_DOMAINS, REGISTRY
from benchdesign.selection.metrics import METRIC_HIGHER_IS_BETTER
from benchdesign.selection.strategies import STRATEGIES, STRATEGY_REGISTRY


DOMAIN_ORDER = (*BUILTIN_DOMAINS, "synthetic")
VARIATION_ORDER = ("dataset_pool", "model_pool")
STRATEGY_ORDER = tuple(STRATEGIES)
REPRESENTATION_ORDER = ("interaction", "metadata", "oracle", "none")
METRIC_ORDER = ("mae", "spearman", "kendall", "ndcg5", "mrr", "ndcg5_paper")
REGIME_ORDER = ("oracle", "broken")
REFERENCE_REPRESENTATIONS = ("oracle",)
"""Representations that use the benchmark's own results: upper bounds, shown apart, never "best"."""
CRITERION_ORDER = ("mean", "conservative")
# Column order of the paper's Table 1.
PAPER_METRIC_ORDER = ("mae", "spearman", "ndcg5", "kendall", "mrr", "ndcg5_paper")

STRATEGY_LABELS = {name: s.label for name, s in STRATEGY_REGISTRY.items()}
DOMAIN_LABELS = {**{name: REGISTRY[name].label for name in BUILTIN_DOMAINS}, "synthetic": "Synthetic"}
METRIC_SYMBOLS = {
    "mae": "MAE", "spearman": "ρ", "kendall": "τ", "ndcg5": "NDCG@5", "mrr": "MRR",
    "ndcg5_paper": "NDCG@5 (paper's code)",
}
METRIC_DECIMALS = {"mae": 2, "spearman": 3, "kendall": 3, "ndcg5": 3, "mrr": 3, "ndcg5_paper": 3}
DASH = "–"

DEFAULT_THRESHOLDS: Mapping[str, float] = MappingProxyType({"mae": 1.5, "spearman": 0.90})

CONFIG = ["domain", "variation", "strategy", "representation"]
TRIAL_COLUMNS = [*CONFIG, "trial", "k", "metric", "value"]
CURVE_COLUMNS = [*CONFIG, "metric", "k", "mean", "lo", "hi", "n_trials"]
AUC_COLUMNS = [*CONFIG, "metric", "trial", "auc"]
TABLE1_COLUMNS = [
    "domain", "strategy", "representation", "metric", "auc_mean", "auc_sd", "n_trials", "n_datasets",
]
KSTAR_COLUMNS = [
    "domain", "metric", "strategy", "representation", "threshold", "kstar_mean", "kstar_conservative",
]
TABLE2_COLUMNS = [
    "domain", "metric", "threshold", "criterion", "best", "median", "worst", "n_reached", "n_configs",
    "best_configs",
]
TABLE3_COLUMNS = [
    "domain", "metric", "best_strategy", "best_representation", "other_strategy",
    "other_representation", "best_auc", "other_auc", "p_raw", "p_holm", "significant",
]
TABLE3_SUMMARY_COLUMNS = [
    "domain", "metric", "best_strategy", "best_representation", "best_auc", "random_auc",
    "gain_vs_random", "p_holm_vs_random", "closest_strategy", "closest_representation",
    "closest_auc", "closest_p_holm", "oracle_strategy", "oracle_auc",
]
REFERENCE_COLUMNS = ["domain", "metric", "oracle_strategy", "oracle_auc"]
SYNTHETIC_AUC_COLUMNS = ["regime", "strategy", "seed", "metric", "auc"]
TABLE4_COLUMNS = ["regime", "strategy", "metric", "auc_mean", "auc_sd"]

_ORDERS: dict[str, Sequence[str]] = {
    "domain": DOMAIN_ORDER,
    "variation": VARIATION_ORDER,
    "strategy": STRATEGY_ORDER,
    "representation": REPRESENTATION_ORDER,
    "metric": METRIC_ORDER,
    "regime": REGIME_ORDER,
    "criterion": CRITERION_ORDER,
    "other_strategy": STRATEGY_ORDER,
    "other_representation": REPRESENTATION_ORDER,
}

_trapezoid = getattr(np, "trapezoid", None) or np.trapz  # numpy < 2.0 has only trapz


# --------------------------------------------------------------------------------------------
# helpers


def _require_columns(df: pd.DataFrame, required: Iterable[str], what: str) -> None:
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(f"{what} is missing columns {missing}; has {list(df.columns)}")


def _check_metrics(metrics: Iterable[str]) -> None:
    unknown = sorted(set(metrics) - set(METRIC_HIGHER_IS_BETTER))
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; expected one of {list(METRIC_HIGHER_IS_BETTER)}")


def _rank_key(column: pd.Series) -> pd.Series:
    """Sort key: fixed name order first, unknown names after it alphabetically."""
    order = _ORDERS.get(str(column.name))
    if order is None:
        return column
    extra = sorted(set(column.astype(str)) - set(order))
    rank = {name: i for i, name in enumerate([*order, *extra])}
    return column.astype(str).map(rank)


def sort_frame(df: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Sort ``df`` by ``by`` using the fixed name orders of docs/CONTRACTS.md; fresh index."""
    return df.sort_values(list(by), key=_rank_key, kind="mergesort").reset_index(drop=True)


def _config_name(keys: Sequence[str], values: Iterable[object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in zip(keys, values))


def _validate_trials(trials: pd.DataFrame) -> None:
    _require_columns(trials, TRIAL_COLUMNS, "trials")
    if trials.empty:
        raise ValueError("trials frame is empty")
    _check_metrics(trials["metric"].unique())
    values = trials["value"].to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        row = trials.loc[bad].iloc[0]
        raise ValueError(
            f"non-finite value {row['value']!r} at "
            + _config_name(TRIAL_COLUMNS[:-1], row[TRIAL_COLUMNS[:-1]])
        )
    dup = trials.duplicated(TRIAL_COLUMNS[:-1])
    if dup.any():
        row = trials.loc[dup].iloc[0]
        raise ValueError(
            "duplicate trial row " + _config_name(TRIAL_COLUMNS[:-1], row[TRIAL_COLUMNS[:-1]])
        )


def _select_variation(df: pd.DataFrame, variation: str | None) -> pd.DataFrame:
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


def _best_index(values: Sequence[float] | np.ndarray, metric: str) -> int:
    """Position of the best value (first one on ties)."""
    arr = np.asarray(values, dtype=float)
    return int(np.argmax(arr) if METRIC_HIGHER_IS_BETTER[metric] else np.argmin(arr))


def config_label(strategy: str, representation: str) -> str:
    """Readable label, e.g. ``K-Means (oracle)``; ``Random`` for representation ``none``."""
    label = STRATEGY_LABELS.get(strategy, strategy)
    return label if representation == "none" else f"{label} ({representation})"


def to_markdown(df: pd.DataFrame, floatfmt: str = "g", disable_numparse: bool = False) -> str:
    """Render ``df`` (without index) as a Markdown pipe table via tabulate."""
    return tabulate(
        df, headers="keys", tablefmt="pipe", showindex=False, floatfmt=floatfmt,
        disable_numparse=disable_numparse,
    )


def _strings_markdown(df: pd.DataFrame) -> str:
    return to_markdown(df, disable_numparse=True)


def _fmt(value: float, metric: str) -> str:
    return f"{value:.{METRIC_DECIMALS[metric]}f}"


def _fmt_p(p: float) -> str:
    if not np.isfinite(p):
        return DASH
    return "< 0.001" if p < 1e-3 else f"{p:.3f}"


# --------------------------------------------------------------------------------------------
# curves and AUCs


def curves(trials: pd.DataFrame) -> pd.DataFrame:
    """Mean curve and 95% percentile band over trials.

    One row per (domain, variation, strategy, representation, metric, k) with ``mean``,
    ``lo`` (2.5th percentile), ``hi`` (97.5th percentile, linear interpolation) and ``n_trials``.
    """
    _validate_trials(trials)
    grouped = trials.groupby([*CONFIG, "metric", "k"], sort=False)["value"]
    out = pd.concat(
        {
            "mean": grouped.mean(),
            "lo": grouped.quantile(0.025),
            "hi": grouped.quantile(0.975),
            "n_trials": grouped.size(),
        },
        axis=1,
    ).reset_index()
    return sort_frame(out[CURVE_COLUMNS], [*CONFIG, "metric", "k"])


def trial_auc(trials: pd.DataFrame) -> pd.DataFrame:
    """Trapezoid AUC over k for every trial.

    One row per (domain, variation, strategy, representation, metric, trial) with ``auc``
    (``np.trapezoid`` with x = k). Raises ValueError if the trials of a configuration do not
    share one k grid or the grid has fewer than two points.
    """
    _validate_trials(trials)
    keys = [*CONFIG, "metric"]
    parts = []
    for cfg, block in trials.groupby(keys, sort=False):
        wide = block.pivot(index="trial", columns="k", values="value").sort_index(axis=1)
        name = _config_name(keys, cfg)
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
    return sort_frame(out[AUC_COLUMNS], [*CONFIG, "metric", "trial"])


def curve_auc(curves_df: pd.DataFrame, column: str = "mean") -> pd.DataFrame:
    """Trapezoid AUC over k of one curve column (default the mean curve) per configuration.

    Returns columns domain, variation, strategy, representation, metric, auc.
    """
    _require_columns(curves_df, [*CONFIG, "metric", "k", column], "curves frame")
    keys = [*CONFIG, "metric"]
    rows = []
    for cfg, block in curves_df.groupby(keys, sort=False):
        block = block.sort_values("k")
        if block["k"].duplicated().any():
            raise ValueError(f"configuration ({_config_name(keys, cfg)}) repeats a k value")
        auc = _trapezoid(block[column].to_numpy(dtype=float), x=block["k"].to_numpy(dtype=float))
        rows.append((*cfg, float(auc)))
    return sort_frame(pd.DataFrame(rows, columns=[*keys, "auc"]), keys)


# --------------------------------------------------------------------------------------------
# Table 1


def table1(
    trials: pd.DataFrame, n_datasets: Mapping[str, int], variation: str | None = None
) -> pd.DataFrame:
    """AUC aggregates per (domain, strategy, representation, metric) for one variation.

    Columns: domain, strategy, representation, metric, auc_mean, auc_sd (ddof=1 over trials),
    n_trials, n_datasets. ``auc_mean`` equals the AUC of the mean curve (checked).
    """
    sub = _select_variation(trials, variation)
    missing = sorted(set(sub["domain"]) - set(n_datasets))
    if missing:
        raise ValueError(f"n_datasets has no entry for domain(s) {missing}")
    for domain, n in n_datasets.items():
        if int(n) != n or n < 1:
            raise ValueError(f"n_datasets[{domain!r}]={n!r} must be a positive integer")
    aucs = trial_auc(sub)
    keys = ["domain", "strategy", "representation", "metric"]
    grouped = aucs.groupby(keys, sort=False)["auc"]
    out = pd.concat(
        {"auc_mean": grouped.mean(), "auc_sd": grouped.std(ddof=1), "n_trials": grouped.size()},
        axis=1,
    ).reset_index()
    out["n_datasets"] = out["domain"].map(lambda d: int(n_datasets[d]))
    out = sort_frame(out[TABLE1_COLUMNS], ["domain", "metric", "strategy", "representation"])

    mean_curve = sub.groupby([*CONFIG, "metric", "k"], sort=False)["value"].mean().reset_index()
    check = curve_auc(mean_curve.rename(columns={"value": "mean"}))
    merged = out.merge(check, on=keys, validate="one_to_one")
    if not np.allclose(merged["auc_mean"], merged["auc"], rtol=1e-9, atol=1e-9):
        raise RuntimeError("mean trial AUC differs from the AUC of the mean curve")
    return out


def _best_rows(block: pd.DataFrame, strategies: Sequence[str], metric: str) -> list[pd.Series | None]:
    """Per strategy, its row with the best AUC for ``metric`` (None if it has none)."""
    out = []
    for strategy in strategies:
        rows = block[(block["strategy"] == strategy) & (block["metric"] == metric)]
        out.append(None if rows.empty else rows.iloc[_best_index(rows["auc_mean"], metric)])
    return out


def _auc_cell(row: pd.Series, metric: str, best_shown: str | None, label: str | None) -> str:
    mean = _fmt(row["auc_mean"], metric)
    sd = DASH if pd.isna(row["auc_sd"]) else _fmt(row["auc_sd"], metric)
    value = f"**{mean} ± {sd}**" if mean == best_shown else f"{mean} ± {sd}"
    return value if label is None else f"{value} ({label})"


def table1_markdown(t1: pd.DataFrame) -> str:
    """Paper-style Table 1: per domain, rows = strategies with their best a-priori representation
    per metric ("mean ± sd (representation)"), the best value of each column in bold; a last row
    "Oracle (upper bound)" gives the best strategy on each :data:`REFERENCE_REPRESENTATIONS` entry."""
    _require_columns(t1, TABLE1_COLUMNS, "table1 frame")
    _check_metrics(t1["metric"].unique())
    sections = []
    for domain in sort_frame(t1[["domain"]].drop_duplicates(), ["domain"])["domain"]:
        block = sort_frame(t1[t1["domain"] == domain], ["strategy", "metric", "representation"])
        metrics = [m for m in PAPER_METRIC_ORDER if m in set(block["metric"])]
        is_reference = block["representation"].isin(REFERENCE_REPRESENTATIONS)
        apriori, reference = block[~is_reference], block[is_reference]
        strategies = list(dict.fromkeys(apriori["strategy"]))
        labels = [STRATEGY_LABELS.get(s, s) for s in strategies]
        cells: dict[str, list[str]] = {}
        for metric in metrics:
            best_rows = _best_rows(apriori, strategies, metric)
            shown = [_fmt(r["auc_mean"], metric) for r in best_rows if r is not None]
            best_shown = shown[_best_index([float(v) for v in shown], metric)]
            column = [
                DASH if row is None
                else _auc_cell(row, metric, best_shown,
                               None if row["representation"] == "none" else row["representation"])
                for row in best_rows
            ]
            if not reference.empty:
                ref = reference[reference["metric"] == metric]
                row = ref.iloc[_best_index(ref["auc_mean"], metric)]
                column.append(_auc_cell(row, metric, None, STRATEGY_LABELS.get(row["strategy"],
                                                                                 row["strategy"])))
            arrow = "↑" if METRIC_HIGHER_IS_BETTER[metric] else "↓"
            cells[f"AUC({METRIC_SYMBOLS[metric]}) {arrow}"] = column
        if not reference.empty:
            labels.append("Oracle (upper bound)")
        table = pd.DataFrame({"Strategy": labels, **cells})
        n = int(block["n_datasets"].iloc[0])
        trials = "/".join(str(v) for v in sorted(block["n_trials"].unique()))
        title = f"### {DOMAIN_LABELS.get(domain, domain)} ({n} datasets, {trials} trials)"
        sections.append(f"{title}\n\n{_strings_markdown(table)}")
    return "\n\n".join(sections) + "\n"


# --------------------------------------------------------------------------------------------
# Table 2


def _check_thresholds(thresholds: Mapping[str, float]) -> None:
    if not thresholds:
        raise ValueError("thresholds must name at least one metric")
    _check_metrics(thresholds)
    for metric, value in thresholds.items():
        if not np.isfinite(value):
            raise ValueError(f"threshold for {metric!r} is {value!r}; must be finite")


def kstar_per_config(
    curves_df: pd.DataFrame,
    thresholds: Mapping[str, float] = DEFAULT_THRESHOLDS,
    variation: str | None = None,
) -> pd.DataFrame:
    """Smallest k meeting each target, per (domain, metric, strategy, representation).

    ``kstar_mean`` uses the mean curve, ``kstar_conservative`` the worst side of the band
    (``hi`` for lower-is-better metrics, ``lo`` otherwise); NaN when the target is never met.
    Targets are met by ``value <= threshold`` (lower is better) or ``value >= threshold``.
    """
    _require_columns(curves_df, CURVE_COLUMNS, "curves frame")
    _check_thresholds(thresholds)
    sub = _select_variation(curves_df, variation)
    absent = [m for m in thresholds if m not in set(sub["metric"])]
    if absent:
        raise ValueError(f"threshold metric(s) {absent} not in the curves frame")
    sub = sub[sub["metric"].isin(list(thresholds))].copy()
    sub["threshold"] = sub["metric"].map(dict(thresholds))
    higher = sub["metric"].map(METRIC_HIGHER_IS_BETTER).to_numpy(dtype=bool)
    worst = np.where(higher, sub["lo"], sub["hi"])
    sign = np.where(higher, 1.0, -1.0)
    sub["ok_mean"] = sign * (sub["mean"] - sub["threshold"]) >= 0
    sub["ok_conservative"] = sign * (worst - sub["threshold"]) >= 0
    keys = ["domain", "metric", "strategy", "representation", "threshold"]
    out = sub[keys].drop_duplicates().set_index(keys)
    for crit in CRITERION_ORDER:
        ok = sub[sub[f"ok_{crit}"]]
        out[f"kstar_{crit}"] = ok.groupby(keys)["k"].min().astype(float)
    return sort_frame(out.reset_index()[KSTAR_COLUMNS], ["domain", "metric", "strategy", "representation"])


def table2(
    curves_df: pd.DataFrame,
    thresholds: Mapping[str, float] = DEFAULT_THRESHOLDS,
    variation: str | None = None,
) -> pd.DataFrame:
    """Best / median / worst k* over configurations that reach the target.

    One row per (domain, metric, criterion in {mean, conservative}) with columns threshold,
    best, median, worst (NaN if no configuration reaches the target), n_reached, n_configs and
    best_configs (labels of the configurations attaining the best k*, "; "-joined).
    Per-configuration values: :func:`kstar_per_config`.
    """
    per_config = kstar_per_config(curves_df, thresholds, variation)
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
            })
    return sort_frame(pd.DataFrame(rows, columns=TABLE2_COLUMNS), ["domain", "metric", "criterion"])


def _fmt_k(value: float) -> str:
    if pd.isna(value):
        return DASH
    return f"{value:g}"


def table2_markdown(t2: pd.DataFrame) -> str:
    """Paper-style Table 2: best / median / worst k* for the mean and conservative criteria."""
    _require_columns(t2, TABLE2_COLUMNS, "table2 frame")
    _check_metrics(t2["metric"].unique())
    rows = []
    groups = t2.groupby(["domain", "metric", "threshold"], sort=False)
    for (domain, metric, threshold), block in groups:
        row = {
            "Domain": DOMAIN_LABELS.get(domain, domain),
            "Target": f"{METRIC_SYMBOLS[metric]} {'≥' if METRIC_HIGHER_IS_BETTER[metric] else '≤'} {threshold:g}",
        }
        for crit in CRITERION_ORDER:
            r = block[block["criterion"] == crit]
            if r.empty:
                row[f"k* {crit} (best / median / worst)"] = DASH
                row[f"reached ({crit})"] = DASH
                continue
            r = r.iloc[0]
            row[f"k* {crit} (best / median / worst)"] = (
                DASH if r["n_reached"] == 0
                else " / ".join(_fmt_k(r[c]) for c in ("best", "median", "worst"))
            )
            row[f"reached ({crit})"] = f"{r['n_reached']}/{r['n_configs']}"
        rows.append(row)
    return _strings_markdown(pd.DataFrame(rows)) + "\n"


# --------------------------------------------------------------------------------------------
# Table 3


def holm(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values (same order as the input)."""
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"p-values must be one-dimensional, got shape {p.shape}")
    bad = ~((p >= 0) & (p <= 1))
    if bad.any():
        raise ValueError(f"p-value {p[bad][0]!r} is not in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="mergesort")
    adjusted = np.minimum(np.maximum.accumulate((m - np.arange(m)) * p[order]), 1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out


def paired_wilcoxon(best: np.ndarray, other: np.ndarray, higher_is_better: bool) -> float:
    """One-sided paired Wilcoxon signed-rank p-value for "``best`` is better than ``other``".

    Returns 1.0 when all paired differences are zero.
    """
    a = np.asarray(best, dtype=float)
    b = np.asarray(other, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"paired samples need equal 1-d non-empty shapes, got {a.shape} and {b.shape}")
    if np.all(a == b):
        return 1.0
    alternative = "greater" if higher_is_better else "less"
    return float(wilcoxon(a, b, alternative=alternative).pvalue)


def table3(
    trial_auc_df: pd.DataFrame,
    metrics: Sequence[str] = ("mae", "spearman"),
    variation: str | None = None,
    alpha: float = 0.05,
    references: Sequence[str] = REFERENCE_REPRESENTATIONS,
) -> pd.DataFrame:
    """Best pair vs every other pair per (domain, metric) block, Holm-corrected.

    The contenders are the (strategy, representation) pairs whose representation is not in
    ``references`` (the oracle is an upper bound, see :func:`reference_auc`); a block with a single
    contender (e.g. only random beside the oracle) gives no rows.  The best pair has the best mean
    trial AUC; each other pair is compared by a one-sided paired Wilcoxon signed-rank test on AUCs
    matched by trial id.
    Columns: domain, metric, best_strategy, best_representation, other_strategy,
    other_representation, best_auc, other_auc (mean trial AUCs), p_raw, p_holm,
    significant (p_holm < alpha).
    """
    _require_columns(trial_auc_df, AUC_COLUMNS, "trial AUC frame")
    _check_metrics(metrics)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r} must lie in (0, 1)")
    sub = _select_variation(trial_auc_df, variation)
    absent = [m for m in metrics if m not in set(sub["metric"])]
    if absent:
        raise ValueError(f"metric(s) {absent} not in the trial AUC frame")
    keep = sub["metric"].isin(list(metrics)) & ~sub["representation"].isin(list(references))
    sub = sort_frame(sub[keep], ["domain", "metric", "strategy", "representation", "trial"])
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
        ib = _best_index(means, metric)
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
                domain, metric, *best_pair, *pairs[i], float(means[ib]), float(means[i]),
                float(p_raw[j]), float(p_adj[j]), bool(p_adj[j] < alpha),
            ))
    out = pd.DataFrame(rows, columns=TABLE3_COLUMNS)
    return sort_frame(out, ["domain", "metric", "other_strategy", "other_representation"])


def reference_auc(
    trial_auc_df: pd.DataFrame,
    metrics: Sequence[str] = ("mae", "spearman"),
    variation: str | None = None,
    representation: str = "oracle",
) -> pd.DataFrame:
    """Best strategy on the reference ``representation`` per (domain, metric), by mean trial AUC.

    Columns: domain, metric, oracle_strategy, oracle_auc; no row for a domain without it.
    """
    _require_columns(trial_auc_df, AUC_COLUMNS, "trial AUC frame")
    _check_metrics(metrics)
    sub = _select_variation(trial_auc_df, variation)
    sub = sub[sub["metric"].isin(list(metrics)) & (sub["representation"] == representation)]
    means = sub.groupby(["domain", "metric", "strategy"], sort=False)["auc"].mean().reset_index()
    rows = []
    for (domain, metric), block in sort_frame(means, ["domain", "metric", "strategy"]).groupby(
            ["domain", "metric"], sort=False):
        best = block.iloc[_best_index(block["auc"], metric)]
        rows.append((domain, metric, best["strategy"], float(best["auc"])))
    return pd.DataFrame(rows, columns=REFERENCE_COLUMNS)


def table3_summary(t3: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (domain, metric) block of :func:`table3`.

    Columns: domain, metric, best_strategy, best_representation, best_auc, random_auc,
    gain_vs_random (random − best for lower-is-better metrics, best − random otherwise; 0 if
    random is best), p_holm_vs_random (NaN if random is best or absent), and the closest
    non-significant competitor (closest_strategy / closest_representation, "–" if none;
    closest_auc, closest_p_holm), and the upper bound from ``reference`` (:func:`reference_auc`):
    oracle_strategy ("–" if none) and oracle_auc.
    """
    _require_columns(t3, TABLE3_COLUMNS, "table3 frame")
    if reference is None:
        reference = pd.DataFrame(columns=REFERENCE_COLUMNS)
    _require_columns(reference, REFERENCE_COLUMNS, "reference frame")
    upper = {(r.domain, r.metric): (r.oracle_strategy, float(r.oracle_auc))
             for r in reference.itertuples()}
    _check_metrics(t3["metric"].unique())
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
            c = ns.iloc[_best_index(ns["other_auc"], metric)]
            closest = (
                c["other_strategy"], c["other_representation"], float(c["other_auc"]),
                float(c["p_holm"]),
            )
        rows.append((
            domain, metric, first["best_strategy"], first["best_representation"], best_auc,
            random_auc, gain, p_random, *closest, *upper.get((domain, metric), (DASH, np.nan)),
        ))
    out = pd.DataFrame(rows, columns=TABLE3_SUMMARY_COLUMNS)
    return sort_frame(out, ["domain", "metric"])


def table3_markdown(summary: pd.DataFrame) -> str:
    """Paper-style Table 3: best a-priori method, gain over Random, Holm p vs Random, closest n.s.
    rival, and the oracle's AUC as the upper bound."""
    _require_columns(summary, TABLE3_SUMMARY_COLUMNS, "table3 summary frame")
    _check_metrics(summary["metric"].unique())
    rows = []
    for _, r in summary.iterrows():
        metric = r["metric"]
        closest = (
            DASH if r["closest_strategy"] == DASH
            else f"{config_label(r['closest_strategy'], r['closest_representation'])} "
            f"(p = {_fmt_p(r['closest_p_holm'])})"
        )
        rows.append({
            "Domain": DOMAIN_LABELS.get(r["domain"], r["domain"]),
            "Metric": f"{METRIC_SYMBOLS[metric]} {'↑' if METRIC_HIGHER_IS_BETTER[metric] else '↓'}",
            "Best method": config_label(r["best_strategy"], r["best_representation"]),
            "Best AUC": _fmt(r["best_auc"], metric),
            "Gain vs Random": DASH if pd.isna(r["gain_vs_random"]) else _fmt(r["gain_vs_random"], metric),
            "p (Holm) vs Random": _fmt_p(r["p_holm_vs_random"]),
            "Closest n.s. competitor": closest,
            "Oracle (upper bound)": DASH if r["oracle_strategy"] == DASH
            else f"{_fmt(r['oracle_auc'], metric)} ({STRATEGY_LABELS.get(r['oracle_strategy'], r['oracle_strategy'])})",
        })
    return _strings_markdown(pd.DataFrame(rows)) + "\n"


# --------------------------------------------------------------------------------------------
# Table 4


def table4(synthetic_auc: pd.DataFrame) -> pd.DataFrame:
    """Mean ± sd (ddof=1) over seeds of per-seed AUCs.

    Input columns regime, strategy, seed, metric, auc; output columns regime, strategy, metric,
    auc_mean, auc_sd.
    """
    _require_columns(synthetic_auc, SYNTHETIC_AUC_COLUMNS, "synthetic AUC frame")
    if synthetic_auc.empty:
        raise ValueError("synthetic AUC frame is empty")
    _check_metrics(synthetic_auc["metric"].unique())
    keys = ["regime", "strategy", "seed", "metric"]
    dup = synthetic_auc.duplicated(keys)
    if dup.any():
        first = synthetic_auc.loc[dup, keys].iloc[0]
        raise ValueError("duplicate synthetic AUC row " + _config_name(keys, first))
    bad = ~np.isfinite(synthetic_auc["auc"].to_numpy(dtype=float))
    if bad.any():
        row = synthetic_auc.loc[bad].iloc[0]
        raise ValueError(f"non-finite auc {row['auc']!r} at " + _config_name(keys, row[keys]))
    grouped = synthetic_auc.groupby(["regime", "strategy", "metric"], sort=False)["auc"]
    out = pd.concat({"auc_mean": grouped.mean(), "auc_sd": grouped.std(ddof=1)}, axis=1).reset_index()
    return sort_frame(out[TABLE4_COLUMNS], ["regime", "strategy", "metric"])


def table4_markdown(t4: pd.DataFrame) -> str:
    """Paper-style Table 4: rows regime × strategy, "mean ± sd" per metric, best per regime bold."""
    _require_columns(t4, TABLE4_COLUMNS, "table4 frame")
    _check_metrics(t4["metric"].unique())
    t4 = sort_frame(t4, ["regime", "strategy", "metric"])
    metrics = [m for m in PAPER_METRIC_ORDER if m in set(t4["metric"])]
    rows = []
    for regime, block in t4.groupby("regime", sort=False):
        strategies = list(dict.fromkeys(block["strategy"]))
        best_shown = {}
        for metric in metrics:
            vals = block.loc[block["metric"] == metric, "auc_mean"]
            if not vals.empty:
                best_shown[metric] = _fmt(vals.iloc[_best_index(vals, metric)], metric)
        for strategy in strategies:
            row = {
                "Regime": str(regime).capitalize(),
                "Strategy": STRATEGY_LABELS.get(strategy, strategy),
            }
            for metric in metrics:
                r = block[(block["strategy"] == strategy) & (block["metric"] == metric)]
                arrow = "↑" if METRIC_HIGHER_IS_BETTER[metric] else "↓"
                col = f"AUC({METRIC_SYMBOLS[metric]}) {arrow}"
                if r.empty:
                    row[col] = DASH
                    continue
                mean = _fmt(r["auc_mean"].iloc[0], metric)
                sd = DASH if pd.isna(r["auc_sd"].iloc[0]) else _fmt(r["auc_sd"].iloc[0], metric)
                row[col] = f"**{mean} ± {sd}**" if mean == best_shown[metric] else f"{mean} ± {sd}"
            rows.append(row)
    return _strings_markdown(pd.DataFrame(rows)) + "\n"
