"""Which strategy for my k: per subset size, the a-priori configuration with the highest share of pools that
meet the target, random's share at the same k, and an exact paired test of the two.

The *share of pools* of a configuration at k is [`pool_shares`][]: the
fraction of the dataset-pool trials (each a random pool of floor(alpha * n) datasets, the same pools for
every strategy) whose k selected datasets pass [`meets_target`][], the
target test of Table 2's k*.  The test is the one-sided exact McNemar (sign) test on the paired trials
([`mcnemar_exact`][]), Holm-corrected over the a-priori configurations at
that k, as Table 3 corrects over its contenders.  The oracle is reported beside, never as the answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from benchdesign.selection.aggregation import meets_target, pool_shares
from benchdesign.selection.frames import (
    ORACLE_LABEL,
    REFERENCE_REPRESENTATIONS,
    STRATEGY_LABELS,
    VERDICT_COLUMNS,
    select_variation,
    sort_frame,
)
from benchdesign.selection.markdown import METRIC_SYMBOLS
from benchdesign.selection.metrics import METRIC_HIGHER_IS_BETTER
from benchdesign.selection.protocol import pool_size
from benchdesign.selection.statistics import holm, mcnemar_exact

__all__ = ["N_DEFAULT_TARGETS", "TEST_NAME", "default_k_targets", "check_k_targets", "strategy_verdicts",
           "verdict_text"]

N_DEFAULT_TARGETS = 3
TEST_NAME = "one-sided exact McNemar (sign) test on the paired trials"


def _span(ks: Sequence[int]) -> str:
    ks = list(ks)
    return f"{ks[0]}..{ks[-1]}" if ks == list(range(ks[0], ks[-1] + 1)) else str(ks)


def default_k_targets(ks: Sequence[int], pool: int, n: int = N_DEFAULT_TARGETS) -> list[int]:
    """``n`` subset sizes spread evenly over the evaluated ``ks`` (smallest and largest included), leaving
    out the whole ``pool`` (where every strategy selects the same datasets) when smaller sizes exist.

    Parameters
    ----------
    ks : Sequence[int]
        The evaluated subset sizes.
    pool : int
        Size of the trials' pool.
    n : int
        Number of targets.

    Returns
    -------
    list[int]
        The subset sizes, ascending.
    """
    ks = sorted({int(k) for k in ks})
    candidates = [k for k in ks if k < pool] or ks
    positions = np.round(np.linspace(0, len(candidates) - 1, min(n, len(candidates)))).astype(int)
    return [candidates[i] for i in dict.fromkeys(positions)]


def check_k_targets(k_targets: Sequence[int], ks: Sequence[int], pool: int, n_datasets: int) -> list[int]:
    """The targets sorted; ValueError for one beyond the pool or not among the evaluated sizes ``ks``."""
    ks = sorted({int(k) for k in ks})
    for k in k_targets:
        if int(k) > pool:
            raise ValueError(f"k-target {k} exceeds the pool of {pool} of the {n_datasets} datasets (alpha x n): "
                             "no subset of a trial's pool is larger")
        if int(k) not in ks:
            raise ValueError(f"k-target {k} is not among the evaluated subset sizes k = {_span(ks)}")
    return sorted({int(k) for k in k_targets})


def _pick(shares: pd.Series, means: pd.Series, metric: str) -> tuple[str, str]:
    """Highest share; ties broken by the better mean value, then by registry order (the column order)."""
    sign = 1.0 if METRIC_HIGHER_IS_BETTER[metric] else -1.0
    order = sorted(range(len(shares)), key=lambda i: (-shares.iloc[i], -sign * means.iloc[i], i))
    return shares.index[order[0]]


def _verdict_at(ok: pd.DataFrame, shares: pd.Series, means: pd.Series, metric: str) -> dict:
    """Best a-priori configuration at one k against random: ``ok`` trials x configurations (pass/fail)."""
    configs = list(ok.columns)
    oracle = [c for c in configs if c[1] in REFERENCE_REPRESENTATIONS]
    random = [c for c in configs if c[0] == "random" and c not in oracle][:1]
    contenders = [c for c in configs if c not in oracle and c[0] != "random"]
    row = {"n_contenders": len(contenders), "random_share": shares[random[0]] if random else np.nan,
           "best_strategy": "random", "best_representation": "none", "wins": 0, "losses": 0,
           "p_raw": np.nan, "p_holm": np.nan, "significant": False, "oracle_strategy": None, "oracle_share": np.nan}
    if oracle:
        row["oracle_strategy"], _ = _pick(shares[oracle], means[oracle], metric)
        row["oracle_share"] = shares[oracle].max()
    if not contenders:
        row["best_share"] = row["random_share"]
        return row
    best = _pick(shares[contenders], means[contenders], metric)
    row.update(best_strategy=best[0], best_representation=best[1], best_share=shares[best])
    if random:
        tests = [mcnemar_exact(ok[c].to_numpy(), ok[random[0]].to_numpy()) for c in contenders]
        adjusted = holm([p for _, _, p in tests])
        i = contenders.index(best)
        row.update(wins=tests[i][0], losses=tests[i][1], p_raw=tests[i][2], p_holm=float(adjusted[i]))
    return row


def strategy_verdicts(
    trials: pd.DataFrame, n_datasets: Mapping[str, int], alpha: Mapping[str, float] | float,
    metric: str = "spearman", threshold: float = 0.90, k_targets: Sequence[int] | None = None,
    level: float = 0.05, variation: str | None = None, *, domain_order: Sequence[str] = (),
) -> pd.DataFrame:
    """One row per (domain, k target) of the dataset-pool or model-holdout ``trials`` (``variation``: None = the
    single one present): the a-priori configuration with the
    highest share of pools meeting ``metric``'s ``threshold``, random's share, the exact McNemar test of
    the two (wins / losses: trials where only one of them meets it) and the oracle's best share.

    ``k_targets`` (default [`default_k_targets`][] per domain) must be evaluated sizes within the pool
    floor(alpha * n_datasets[domain]). Columns ``VERDICT_COLUMNS``.

    Parameters
    ----------
    trials : pd.DataFrame
        Long trial rows of the protocol.
    n_datasets : Mapping[str, int]
        Number of datasets per domain.
    alpha : Mapping[str, float] | float
        Pool fraction of the trials, per domain or one for all.
    metric : str
        Metric the target is set on.
    threshold : float
        Target value of ``metric``.
    k_targets : Sequence[int] | None
        Subset sizes to judge (None: [`default_k_targets`][] per domain).
    level : float
        Significance level of the McNemar test (Holm-corrected).
    variation : str | None
        The variation to use (None: the single one present).
    domain_order : Sequence[str]
        Order of the domains in the result (the others follow alphabetically).

    Returns
    -------
    pd.DataFrame
        One row per (domain, k target), columns ``VERDICT_COLUMNS``.
    """
    sub = select_variation(trials, variation)
    sub = sort_frame(sub[sub["metric"] == metric], ["domain", "strategy", "representation", "k", "trial"],
                     domain_order)
    shares = pool_shares(sub, {metric: threshold})
    sub = sub.assign(ok=meets_target(sub["value"], threshold, METRIC_HIGHER_IS_BETTER[metric]))
    rows = []
    for domain, block in sub.groupby("domain", sort=False):
        n = int(n_datasets[domain])
        pool = pool_size(n, alpha[domain] if isinstance(alpha, Mapping) else alpha)
        ks = sorted(block["k"].unique())
        targets = default_k_targets(ks, pool) if k_targets is None else check_k_targets(k_targets, ks, pool, n)
        configs = list(dict.fromkeys(zip(block["strategy"], block["representation"])))
        here = shares[shares["domain"] == domain].set_index(["k", "strategy", "representation"])
        for k in targets:
            at = block[block["k"] == k]
            ok = at.pivot(index="trial", columns=["strategy", "representation"], values="ok")[configs]
            means = at.groupby(["strategy", "representation"], sort=False)["value"].mean()[configs]
            row = _verdict_at(ok, here.loc[k]["share"][configs], means, metric)
            rows.append({**row, "domain": domain, "k": int(k), "pool_size": pool, "n_datasets": n,
                         "metric": metric, "threshold": float(threshold), "n_trials": int(len(ok)),
                         "significant": bool(row["p_holm"] < level) and row["best_share"] > row["random_share"]})
    return pd.DataFrame(rows, columns=VERDICT_COLUMNS)


def _label(strategy: str, representation: str) -> str:
    where = "" if representation == "none" else f" on the features '{representation}'"
    return f"{STRATEGY_LABELS.get(strategy, strategy)} ({strategy}){where}"


def _p(p: float) -> str:
    return "p < 0.001" if p < 1e-3 else f"p = {p:.3f}"


def _conclusion(r: pd.Series) -> str:
    if r["significant"]:
        return f"significantly higher: use it for k = {r['k']}"
    if r["best_share"] > r["random_share"]:
        return "not significantly higher than random's"
    if r["best_share"] == 0:
        return "neither it nor random meets the target in any pool at this k"
    return "random does as well: no a-priori strategy helps at this k"


def _line(r: pd.Series) -> str:
    """The verdict at one k."""
    share = f"{r['best_share']:.0%}"
    if r["k"] >= r["pool_size"]:
        text = (f"k = {r['k']} is the whole pool: every strategy selects the same {r['k']} datasets "
                f"({share} of pools), so no strategy can differ.")
    elif r["n_contenders"] == 0:
        text = f"k = {r['k']}: only random was evaluated ({share} of pools)."
    elif pd.isna(r["random_share"]):
        text = (f"k = {r['k']}: {_label(r['best_strategy'], r['best_representation'])} has the highest share, "
                f"{share} of pools; random was not evaluated, so there is no comparison.")
    else:
        n = r["n_contenders"]
        text = (f"k = {r['k']}: {_label(r['best_strategy'], r['best_representation'])} has the highest share, "
                f"{share} of pools, against {r['random_share']:.0%} for random (only it / only random met the "
                f"target in {r['wins']} / {r['losses']} trials, {_p(r['p_holm'])} Holm over {n} "
                f"configuration{'s' if n > 1 else ''}): {_conclusion(r)}.")
    if isinstance(r["oracle_strategy"], str):
        text += (f" For comparison, the {ORACLE_LABEL}: {r['oracle_share']:.0%} of pools "
                 f"({STRATEGY_LABELS.get(r['oracle_strategy'], r['oracle_strategy'])}).")
    return text


FULL_REFERENCE = "the full benchmark's model ranking"
HOLDOUT_REFERENCE = "the full benchmark's ranking of the held-out models (models the selection never saw)"


def verdict_text(verdicts: pd.DataFrame, level: float = 0.05, domain_labels: Mapping[str, str] | None = None,
                 reference: str = FULL_REFERENCE) -> str:
    """The verdicts of [`strategy_verdicts`][] as text: the definition, then one line per (domain, k);
    ``reference`` names what the subsets are compared with (model holdout: the held-out models' ranking).

    Parameters
    ----------
    verdicts : pd.DataFrame
        The rows of [`strategy_verdicts`][].
    level : float
        Significance level the verdicts were tested at.
    domain_labels : Mapping[str, str] | None
        Display name per domain (None: the names).
    reference : str
        What the subsets are compared with (model holdout: the held-out models' ranking).

    Returns
    -------
    str
        The advice as text.
    """
    if verdicts.empty:
        return "No verdict: the trials hold no subset size to judge."
    first = verdicts.iloc[0]
    higher = METRIC_HIGHER_IS_BETTER[first["metric"]]
    target = f"{METRIC_SYMBOLS[first['metric']]} {'≥' if higher else '≤'} {first['threshold']:g}"
    lines = [
        f"Which strategy for k datasets, by the share of pools with {target}: the fraction of the trials (each "
        f"a random pool of floor(alpha x n) datasets, the same pools for every strategy) in which the k datasets "
        f"a strategy selects give {target} against {reference} (the target test of "
        f"Table 2's k*). Test: {TEST_NAME} of the best a-priori configuration against random at the same k, "
        f"Holm-corrected over the a-priori configurations at that k, level {level:g}."
    ]
    for domain, block in verdicts.groupby("domain", sort=False):
        r = block.iloc[0]
        name = (domain_labels or {}).get(domain, domain)
        lines.append(f"{name}: {r['n_trials']} trials, pools of {r['pool_size']} of the {r['n_datasets']} "
                     "datasets.")
        lines += [f"- {_line(row)}" for _, row in block.iterrows()]
    return "\n".join(lines)
