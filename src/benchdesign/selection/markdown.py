"""Paper-style Markdown of Tables 1-4 (tabulate pipe tables): the rendering of
``tables``' frames. Domains are shown by ``domain_labels`` (default: their names).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from tabulate import tabulate

from benchdesign.selection.classes import A_PRIORI, INFORMED
from benchdesign.selection.frames import (
    CRITERION_ORDER,
    DASH,
    INFORMED_LABEL,
    PAPER_METRIC_ORDER,
    STRATEGY_LABELS,
    TABLE1_COLUMNS,
    TABLE2_COLUMNS,
    TABLE3_SUMMARY_COLUMNS,
    TABLE4_COLUMNS,
    best_index,
    check_metrics,
    config_label,
    representation_label,
    require_columns,
    sort_frame,
)
from benchdesign.selection.metrics import METRIC_HIGHER_IS_BETTER

METRIC_SYMBOLS = {
    "mae": "MAE", "spearman": "ρ", "kendall": "τ", "ndcg5": "NDCG@5", "mrr": "MRR",
    "ndcg5_paper": "NDCG@5 (paper's code)",
}
METRIC_DECIMALS = {"mae": 2, "spearman": 3, "kendall": 3, "ndcg5": 3, "mrr": 3, "ndcg5_paper": 3}


def to_markdown(df: pd.DataFrame, floatfmt: str = "g", disable_numparse: bool = False) -> str:
    """Render ``df`` (without index) as a Markdown pipe table via tabulate.

    Parameters
    ----------
    df : pd.DataFrame
        The table.
    floatfmt : str
        Format of the floats (tabulate's ``floatfmt``).
    disable_numparse : bool
        Keep every cell as written (tabulate's ``disable_numparse``).

    Returns
    -------
    str
        The Markdown table.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection import to_markdown
    >>> print(to_markdown(pd.DataFrame({"model": ["a", "b"], "rho": [0.91234, 0.5]}), floatfmt=".2f"))
    | model   |   rho |
    |:--------|------:|
    | a       |  0.91 |
    | b       |  0.50 |
    """
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


def _fmt_k(value: float) -> str:
    if pd.isna(value):
        return DASH
    return f"{value:g}"


def _best_rows(block: pd.DataFrame, strategies: Sequence[str], metric: str) -> list[pd.Series | None]:
    """Per strategy, its row with the best AUC for ``metric`` (None if it has none)."""
    out = []
    for strategy in strategies:
        rows = block[(block["strategy"] == strategy) & (block["metric"] == metric)]
        out.append(None if rows.empty else rows.iloc[best_index(rows["auc_mean"], metric)])
    return out


def _auc_cell(row: pd.Series, metric: str, best_shown: str | None, label: str | None) -> str:
    mean = _fmt(row["auc_mean"], metric)
    sd = DASH if pd.isna(row["auc_sd"]) else _fmt(row["auc_sd"], metric)
    value = f"**{mean} ± {sd}**" if mean == best_shown else f"{mean} ± {sd}"
    return value if label is None else f"{value} ({label})"


def table1_markdown(
    t1: pd.DataFrame, domain_labels: Mapping[str, str] | None = None, domain_order: Sequence[str] = ()
) -> str:
    """Paper-style Table 1: per domain, rows = strategies with their best a-priori representation
    per metric ("mean ± sd (representation)"), the best value of each column in bold; a last row
    ``INFORMED_LABEL`` gives the best informed configuration (the ``class`` column: the oracle, features with
    the seen models' ranks) per metric, "mean ± sd (configuration)", never in bold (an a-priori strategy can
    beat it).  The ``Class`` column names each row's class.
    Sections follow ``domain_order`` (``sort_frame``).

    Parameters
    ----------
    t1 : pd.DataFrame
        The result of ``table1``.
    domain_labels : Mapping[str, str] | None
        Display name per domain (None: the names).
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    Six trials of random and of Euclidean farthest-first on the features 'meta', k = 2, 3, 4; farthest-first's ρ
    is 0.2 higher at every k:

    >>> import pandas as pd
    >>> from benchdesign.selection import table1, table1_markdown
    >>> rows = [("toy", "dataset_pool", s, r, t, k, "spearman", v + 0.1 * k + 0.01 * t)
    ...         for s, r, v in [("random", "none", 0.3), ("fafi_euclidean", "meta", 0.5)]
    ...         for t in range(6) for k in (2, 3, 4)]
    >>> trials = pd.DataFrame(rows, columns=["domain", "variation", "strategy", "representation", "trial", "k",
    ...                                      "metric", "value"])
    >>> print(table1_markdown(table1(trials, {"toy": 10})))
    ### toy (10 datasets, 6 trials)
    <BLANKLINE>
    | Strategy   | Class    | AUC(ρ) ↑                 |
    |:-----------|:---------|:-------------------------|
    | Random     | a priori | 1.250 ± 0.037            |
    | E-FAFI     | a priori | **1.650 ± 0.037** (meta) |
    <BLANKLINE>
    """
    require_columns(t1, TABLE1_COLUMNS, "table1 frame")
    check_metrics(t1["metric"].unique())
    sections = []
    names = domain_labels or {}
    for domain in sort_frame(t1[["domain"]].drop_duplicates(), ["domain"], domain_order)["domain"]:
        block = sort_frame(t1[t1["domain"] == domain], ["strategy", "metric", "representation"])
        metrics = [m for m in PAPER_METRIC_ORDER if m in set(block["metric"])]
        is_reference = block["class"] == INFORMED
        apriori, reference = block[~is_reference], block[is_reference]
        strategies = list(dict.fromkeys(apriori["strategy"]))
        labels = [STRATEGY_LABELS.get(s, s) for s in strategies]
        cells: dict[str, list[str]] = {}
        for metric in metrics:
            best_rows = _best_rows(apriori, strategies, metric)
            shown = [_fmt(r["auc_mean"], metric) for r in best_rows if r is not None]
            best_shown = shown[best_index([float(v) for v in shown], metric)]
            column = [
                DASH if row is None
                else _auc_cell(row, metric, best_shown,
                               None if row["representation"] == "none" else representation_label(row["representation"]))
                for row in best_rows
            ]
            if not reference.empty:
                ref = reference[reference["metric"] == metric]
                row = ref.iloc[best_index(ref["auc_mean"], metric)]
                column.append(_auc_cell(row, metric, None, config_label(row["strategy"], row["representation"])))
            arrow = "↑" if METRIC_HIGHER_IS_BETTER[metric] else "↓"
            cells[f"AUC({METRIC_SYMBOLS[metric]}) {arrow}"] = column
        classes = [A_PRIORI] * len(labels)
        if not reference.empty:
            labels.append(INFORMED_LABEL)
            classes.append(INFORMED)
        table = pd.DataFrame({"Strategy": labels, "Class": classes, **cells})
        n = int(block["n_datasets"].iloc[0])
        trials = "/".join(str(v) for v in sorted(block["n_trials"].unique()))
        title = f"### {names.get(domain, domain)} ({n} datasets, {trials} trials)"
        sections.append(f"{title}\n\n{_strings_markdown(table)}")
    return "\n\n".join(sections) + "\n"


def table2_markdown(t2: pd.DataFrame, domain_labels: Mapping[str, str] | None = None) -> str:
    """Paper-style Table 2: best / median / worst k* for the mean and conservative criteria, over the
    configurations of both classes, and the class of those attaining the best.

    Parameters
    ----------
    t2 : pd.DataFrame
        The result of ``table2``.
    domain_labels : Mapping[str, str] | None
        Display name per domain (None: the names).

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    Six trials of random and of Euclidean farthest-first on the features 'meta', k = 2, 3, 4; farthest-first's ρ
    is 0.2 higher at every k. The table is wide; its header and its row:

    >>> import pandas as pd
    >>> from benchdesign.selection import curves, table2, table2_markdown
    >>> rows = [("toy", "dataset_pool", s, r, t, k, "spearman", v + 0.1 * k + 0.01 * t)
    ...         for s, r, v in [("random", "none", 0.3), ("fafi_euclidean", "meta", 0.5)]
    ...         for t in range(6) for k in (2, 3, 4)]
    >>> trials = pd.DataFrame(rows, columns=["domain", "variation", "strategy", "representation", "trial", "k",
    ...                                      "metric", "value"])
    >>> lines = table2_markdown(table2(curves(trials), {"spearman": 0.8})).splitlines()
    >>> print(lines[0], lines[2], sep="\\n")  # doctest: +NORMALIZE_WHITESPACE
    | Domain | Target | k* mean (best / median / worst) | reached (mean) | class of the best (mean) |
      k* conservative (best / median / worst) | reached (conservative) | class of the best (conservative) |
    | toy | ρ ≥ 0.8 | 3 / 3 / 3 | 1/2 | a priori | 3 / 3 / 3 | 1/2 | a priori |
    """
    require_columns(t2, TABLE2_COLUMNS, "table2 frame")
    check_metrics(t2["metric"].unique())
    rows = []
    groups = t2.groupby(["domain", "metric", "threshold"], sort=False)
    for (domain, metric, threshold), block in groups:
        row = {
            "Domain": (domain_labels or {}).get(domain, domain),
            "Target": f"{METRIC_SYMBOLS[metric]} {'≥' if METRIC_HIGHER_IS_BETTER[metric] else '≤'} {threshold:g}",
        }
        for crit in CRITERION_ORDER:
            r = block[block["criterion"] == crit]
            if r.empty:
                row[f"k* {crit} (best / median / worst)"] = DASH
                row[f"reached ({crit})"] = DASH
                row[f"class of the best ({crit})"] = DASH
                continue
            r = r.iloc[0]
            row[f"k* {crit} (best / median / worst)"] = (
                DASH if r["n_reached"] == 0
                else " / ".join(_fmt_k(r[c]) for c in ("best", "median", "worst"))
            )
            row[f"reached ({crit})"] = f"{r['n_reached']}/{r['n_configs']}"
            best_classes = r["best_classes"]
            row[f"class of the best ({crit})"] = best_classes if isinstance(best_classes, str) and best_classes \
                else DASH
        rows.append(row)
    return _strings_markdown(pd.DataFrame(rows)) + "\n"


def table3_markdown(summary: pd.DataFrame, domain_labels: Mapping[str, str] | None = None) -> str:
    """Paper-style Table 3: best method of the contenders' class (a priori), gain over Random, Holm p vs Random,
    closest n.s. rival, and the AUC of the best informed configuration (``INFORMED_LABEL``: the oracle, features
    with the seen models' ranks), shown beside (an a-priori method can beat it).

    Parameters
    ----------
    summary : pd.DataFrame
        The result of ``table3_summary``.
    domain_labels : Mapping[str, str] | None
        Display name per domain (None: the names).

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    Six trials of random and of Euclidean farthest-first on the features 'meta', k = 2, 3, 4; farthest-first's ρ
    is 0.2 higher at every k. The table is wide; its header and its row:

    >>> import pandas as pd
    >>> from benchdesign.selection import table3, table3_markdown, table3_summary, trial_auc
    >>> rows = [("toy", "dataset_pool", s, r, t, k, "spearman", v + 0.1 * k + 0.01 * t)
    ...         for s, r, v in [("random", "none", 0.3), ("fafi_euclidean", "meta", 0.5)]
    ...         for t in range(6) for k in (2, 3, 4)]
    >>> trials = pd.DataFrame(rows, columns=["domain", "variation", "strategy", "representation", "trial", "k",
    ...                                      "metric", "value"])
    >>> summary = table3_summary(table3(trial_auc(trials), metrics=["spearman"]))
    >>> lines = table3_markdown(summary).splitlines()
    >>> print(lines[0], lines[2], sep="\\n")  # doctest: +NORMALIZE_WHITESPACE
    | Domain | Metric | Class | Best method | Best AUC | Gain vs Random | p (Holm) vs Random |
      Closest n.s. competitor | best informed (also the seen models' scores) |
    | toy | ρ ↑ | a priori | E-FAFI (meta) | 1.650 | 0.400 | 0.016 | – | – |
    """
    require_columns(summary, TABLE3_SUMMARY_COLUMNS, "table3 summary frame")
    check_metrics(summary["metric"].unique())
    rows = []
    for _, r in summary.iterrows():
        metric = r["metric"]
        closest = (
            DASH if r["closest_strategy"] == DASH
            else f"{config_label(r['closest_strategy'], r['closest_representation'])} "
            f"(p = {_fmt_p(r['closest_p_holm'])})"
        )
        rows.append({
            "Domain": (domain_labels or {}).get(r["domain"], r["domain"]),
            "Metric": f"{METRIC_SYMBOLS[metric]} {'↑' if METRIC_HIGHER_IS_BETTER[metric] else '↓'}",
            "Class": r["class"],
            "Best method": config_label(r["best_strategy"], r["best_representation"]),
            "Best AUC": _fmt(r["best_auc"], metric),
            "Gain vs Random": DASH if pd.isna(r["gain_vs_random"]) else _fmt(r["gain_vs_random"], metric),
            "p (Holm) vs Random": _fmt_p(r["p_holm_vs_random"]),
            "Closest n.s. competitor": closest,
            INFORMED_LABEL: DASH if r["informed_strategy"] == DASH or pd.isna(r["informed_auc"])
            else f"{_fmt(r['informed_auc'], metric)} ({config_label(r['informed_strategy'], r['informed_representation'])})",
        })
    return _strings_markdown(pd.DataFrame(rows)) + "\n"


def table4_markdown(t4: pd.DataFrame) -> str:
    """Paper-style Table 4: rows regime × strategy, "mean ± sd" per metric, best per regime bold.

    Parameters
    ----------
    t4 : pd.DataFrame
        The result of ``table4``.

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    Per-seed AUCs of two strategies in one regime of the synthetic benchmark:

    >>> import pandas as pd
    >>> from benchdesign.selection import table4, table4_markdown
    >>> synthetic_auc = pd.DataFrame({"regime": "oracle", "strategy": ["random"] * 2 + ["fafi_euclidean"] * 2,
    ...                               "seed": [0, 1, 0, 1], "metric": "spearman", "auc": [1.0, 1.2, 1.5, 1.7]})
    >>> print(table4_markdown(table4(synthetic_auc)))
    | Regime   | Strategy   | AUC(ρ) ↑          |
    |:---------|:-----------|:------------------|
    | Oracle   | Random     | 1.100 ± 0.141     |
    | Oracle   | E-FAFI     | **1.600 ± 0.141** |
    <BLANKLINE>
    """
    require_columns(t4, TABLE4_COLUMNS, "table4 frame")
    check_metrics(t4["metric"].unique())
    t4 = sort_frame(t4, ["regime", "strategy", "metric"])
    metrics = [m for m in PAPER_METRIC_ORDER if m in set(t4["metric"])]
    rows = []
    for regime, block in t4.groupby("regime", sort=False):
        strategies = list(dict.fromkeys(block["strategy"]))
        best_shown = {}
        for metric in metrics:
            vals = block.loc[block["metric"] == metric, "auc_mean"]
            if not vals.empty:
                best_shown[metric] = _fmt(vals.iloc[best_index(vals, metric)], metric)
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
