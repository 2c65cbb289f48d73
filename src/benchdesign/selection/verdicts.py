"""Which strategy for my k: per subset size, the a-priori configuration with the highest share of pools that
meet the target, random's share at the same k, and an exact paired test of the two.

The *share of pools* of a configuration at k is [`pool_shares`][]: the
fraction of the dataset-pool trials (each a random pool of floor(alpha * n) datasets, the same pools for
every strategy) whose k selected datasets pass [`meets_target`][], the
target test of Table 2's k*; a random baseline counts each trial by the share of its draws that pass.  The
test is the one-sided exact McNemar (sign) test on the paired trials (``mcnemar_exact``; against a random
baseline's shares its generalisation, the paired sign-flip test [`paired_share_test`][]), Holm-corrected over
the a-priori configurations at
that k, as Table 3 corrects over its contenders.  The answer comes from the a-priori class
(``classes.selection_class``); the best informed configuration (the oracle, features with the seen models' ranks)
is reported beside it with its own test against random.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from benchdesign.selection.aggregation import meets_target, pool_shares
from benchdesign.selection.classes import (
    A_PRIORI,
    CLASS_LABELS,
    INFORMED,
    INFORMED_REPRESENTATIONS,
    SEEN_RANKS_SUFFIX,
    selection_class,
)
from benchdesign.selection.frames import (
    STRATEGY_LABELS,
    VERDICT_COLUMNS,
    select_variation,
    sort_frame,
)
from benchdesign.selection.markdown import METRIC_SYMBOLS
from benchdesign.selection.metrics import METRIC_HIGHER_IS_BETTER
from benchdesign.selection.protocol import pool_size
from benchdesign.selection.statistics import holm, paired_share_test

__all__ = ["N_DEFAULT_TARGETS", "MIN_JUDGES_WARN", "MIN_JUDGES_VERDICT", "TEST_NAME", "default_k_targets",
           "check_k_targets", "strategy_verdicts", "verdict_text", "rho_step", "few_models_note"]

N_DEFAULT_TARGETS = 3
MIN_JUDGES_WARN = 5
"""Below this many models per value (model holdout: held out) ``benchdesign evaluate`` warns: Spearman's ρ over
m < 5 models moves in steps of 0.2 or more ([`rho_step`][]), so ρ ≥ 0.9 demands the exact order."""
MIN_JUDGES_VERDICT = 4
"""Below this many models per value there is no ρ-based verdict: over 3 models ρ takes 4 values (±1, ±0.5), over
2 only ±1."""
TEST_NAME = ("one-sided exact McNemar (sign) test on the paired trials (with random's pass in a trial the share of "
             "its draws that meet the target: the paired sign-flip permutation test on the pass shares, "
             "statistics.paired_share_test)")


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

    Examples
    --------
    >>> from benchdesign.selection import default_k_targets
    >>> default_k_targets(range(1, 11), pool=10)  # 1..9 without the whole pool, ends and middle
    [1, 5, 9]
    >>> default_k_targets([5, 10], pool=20)
    [5, 10]
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


def _against_random(ok: pd.DataFrame, shares: pd.Series, means: pd.Series, metric: str, candidates: list,
                    random: list) -> dict:
    """The best of ``candidates`` (highest share) and its test against random, Holm-corrected over ``candidates``."""
    best = _pick(shares[candidates], means[candidates], metric)
    out = {"best": best, "share": float(shares[best]), "wins": 0, "losses": 0, "p_raw": np.nan, "p_holm": np.nan}
    if random:
        tests = [paired_share_test(ok[c].to_numpy(), ok[random[0]].to_numpy()) for c in candidates]
        adjusted = holm([p for _, _, p in tests])
        i = candidates.index(best)
        out.update(wins=tests[i][0], losses=tests[i][1], p_raw=tests[i][2], p_holm=float(adjusted[i]))
    return out


def _verdict_at(ok: pd.DataFrame, shares: pd.Series, means: pd.Series, metric: str) -> dict:
    """Best a-priori configuration at one k against random, and the best informed one beside it: ``ok`` trials x
    configurations (pass/fail)."""
    configs = list(ok.columns)
    informed = [c for c in configs if selection_class(*c) == INFORMED]
    random = [c for c in configs if c[0] == "random" and c not in informed][:1]
    contenders = [c for c in configs if c not in informed and c[0] != "random"]
    row = {"n_contenders": len(contenders), "random_share": shares[random[0]] if random else np.nan,
           "best_strategy": "random", "best_representation": "none", "wins": 0, "losses": 0,
           "p_raw": np.nan, "p_holm": np.nan, "significant": False, "class": A_PRIORI, "informed_strategy": None,
           "informed_representation": None, "informed_share": np.nan, "informed_p_holm": np.nan}
    if informed:
        best = _against_random(ok, shares, means, metric, informed, random)
        row.update(informed_strategy=best["best"][0], informed_representation=best["best"][1],
                   informed_share=best["share"], informed_p_holm=best["p_holm"])
    if not contenders:
        row["best_share"] = row["random_share"]
        return row
    best = _against_random(ok, shares, means, metric, contenders, random)
    row.update(best_strategy=best["best"][0], best_representation=best["best"][1], best_share=best["share"],
               wins=best["wins"], losses=best["losses"], p_raw=best["p_raw"], p_holm=best["p_holm"])
    return row


def strategy_verdicts(
    trials: pd.DataFrame, n_datasets: Mapping[str, int], alpha: Mapping[str, float] | float,
    metric: str = "spearman", threshold: float = 0.90, k_targets: Sequence[int] | None = None,
    level: float = 0.05, variation: str | None = None, *, domain_order: Sequence[str] = (),
    n_judges: Mapping[str, int] | int | None = None,
) -> pd.DataFrame:
    """One row per (domain, k target) of the dataset-pool or model-holdout ``trials`` (``variation``: None = the
    single one present): the a-priori configuration (class ``'a priori'``, the ``class`` column) with the
    highest share of pools meeting ``metric``'s ``threshold``, random's share (each trial counted by the share
    of random's draws that meet it), the paired test of the two (``paired_share_test``: the exact McNemar test on
    pass/fail; wins / losses: trials where the configuration's share is higher / lower), and beside it the informed configuration
    with the highest share (``classes.selection_class``: the oracle, features with the seen models' ranks) with
    its own test against random, Holm-corrected over the informed configurations (``informed_p_holm``).

    ``k_targets`` (default [`default_k_targets`][] per domain) must be evaluated sizes within the pool
    floor(alpha * n_datasets[domain]). ``n_judges`` is the number of models each value is computed on (model
    holdout: the held-out models); below ``MIN_JUDGES_VERDICT`` nothing is ``significant`` (the text gives no
    verdict, [`verdict_text`][]). Columns ``VERDICT_COLUMNS``.

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
    n_judges : Mapping[str, int] | int | None
        Models each value is computed on, per domain or one for all (None: not stated, no check).

    Returns
    -------
    pd.DataFrame
        One row per (domain, k target), columns ``VERDICT_COLUMNS``.

    Examples
    --------
    Six pools of 8 of 10 datasets: at k = 2 k-means meets rho >= 0.9 in 5 pools, random in none (McNemar:
    p = 1 / 2^5); at k = 4 both meet it everywhere:

    >>> import pandas as pd
    >>> from benchdesign.selection import strategy_verdicts
    >>> values = {("kmeans", "meta"): {2: [0.95] * 5 + [0.5], 4: [0.95] * 6},
    ...           ("random", "none"): {2: [0.5] * 6, 4: [0.95] * 6}}
    >>> rows = [("bench", "dataset_pool", s, r, t, k, "spearman", v) for (s, r), by_k in values.items()
    ...         for k, per_trial in by_k.items() for t, v in enumerate(per_trial)]
    >>> trials = pd.DataFrame(rows, columns=["domain", "variation", "strategy", "representation", "trial", "k",
    ...                                      "metric", "value"])
    >>> verdicts = strategy_verdicts(trials, {"bench": 10}, alpha=0.8)
    >>> verdicts[["k", "best_strategy", "best_share", "random_share", "wins", "p_holm", "significant"]].round(3)
       k best_strategy  best_share  random_share  wins  p_holm  significant
    0  2        kmeans       0.833           0.0     5   0.031         True
    1  4        kmeans       1.000           1.0     0   1.000        False
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
            ok = at.groupby(["trial", "strategy", "representation"], sort=False)["ok"].mean().unstack(
                ["strategy", "representation"])[configs]  # a random baseline: the share of its draws that pass
            means = at.groupby(["strategy", "representation"], sort=False)["value"].mean()[configs]
            row = _verdict_at(ok, here.loc[k]["share"][configs], means, metric)
            judges = n_judges.get(domain) if isinstance(n_judges, Mapping) else n_judges
            enough = judges is None or judges >= MIN_JUDGES_VERDICT
            rows.append({**row, "domain": domain, "k": int(k), "pool_size": pool, "n_datasets": n,
                         "metric": metric, "threshold": float(threshold), "n_trials": int(len(ok)),
                         "n_judges": np.nan if judges is None else int(judges),
                         "significant": enough and bool(row["p_holm"] < level)
                         and row["best_share"] > row["random_share"]})
    return pd.DataFrame(rows, columns=VERDICT_COLUMNS)


def _label(strategy: str, representation: str) -> str:
    if representation == "none":
        where = ""
    elif representation in INFORMED_REPRESENTATIONS:
        where = f" on the {representation} (the seen models' ranks)"
    elif representation.endswith(SEEN_RANKS_SUFFIX):
        where = f" on the features '{representation[:-len(SEEN_RANKS_SUFFIX)]}' with the seen models' ranks"
    else:
        where = f" on the features '{representation}'"
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


def _informed(r: pd.Series, held_out: bool, level: float) -> str:
    """The best informed configuration at one k, beside the a-priori answer ("" without one)."""
    if not isinstance(r["informed_strategy"], str):
        return ""
    text = (f" {CLASS_LABELS[INFORMED][0].upper()}{CLASS_LABELS[INFORMED][1:]}: "
            f"{_label(r['informed_strategy'], r['informed_representation'])}, {r['informed_share']:.0%} of pools")
    if not pd.isna(r["informed_p_holm"]):
        verdict = ("significantly higher than random's" if r["informed_p_holm"] < level
                   and r["informed_share"] > r["random_share"] else "not significantly higher than random's")
        text += f" ({_p(r['informed_p_holm'])} against random, Holm over the informed configurations: {verdict})"
    return text + (" -- usable by a curator who has the seen models' scores on every dataset." if held_out else
                   " -- judged by the models whose scores built it: for comparison only, not advice.")


def _line(r: pd.Series, held_out: bool, level: float) -> str:
    """The verdict at one k: the a-priori class's answer, then the informed class's beside it."""
    share = f"{r['best_share']:.0%}"
    apriori = CLASS_LABELS[A_PRIORI]
    if r["k"] >= r["pool_size"]:
        return (f"k = {r['k']} is the whole pool: every strategy selects the same {r['k']} datasets "
                f"({share} of pools), so no strategy can differ.")
    if r["n_contenders"] == 0:
        text = f"k = {r['k']}, {apriori}: only random was evaluated ({share} of pools)."
    elif pd.isna(r["random_share"]):
        text = (f"k = {r['k']}, {apriori}: {_label(r['best_strategy'], r['best_representation'])} has the highest "
                f"share, {share} of pools; random was not evaluated, so there is no comparison.")
    else:
        n = r["n_contenders"]
        text = (f"k = {r['k']}, {apriori}: {_label(r['best_strategy'], r['best_representation'])} has the highest "
                f"share, {share} of pools, against {r['random_share']:.0%} for random (ahead of / behind random in "
                f"{r['wins']} / {r['losses']} trials, {_p(r['p_holm'])} Holm over {n} "
                f"configuration{'s' if n > 1 else ''}): {_conclusion(r)}.")
    return text + _informed(r, held_out, level)


FULL_REFERENCE = "the full benchmark's model ranking"
HOLDOUT_REFERENCE = "the full benchmark's ranking of the held-out models (models the selection never saw)"


def rho_step(n_models: int) -> float:
    """The step of Spearman's ρ between two rankings of ``n_models`` models without ties: ρ = 1 - 6 Σd² /
    (m (m² - 1)) with Σd² even, so ρ moves in steps of 12 / (m (m² - 1)).

    Parameters
    ----------
    n_models : int
        Number of models ranked (at least 2).

    Returns
    -------
    float
        The step: 2 for 2 models, 0.5 for 3, 0.2 for 4, 0.1 for 5.

    Examples
    --------
    >>> [rho_step(m) for m in (3, 4, 5)]
    [0.5, 0.2, 0.1]
    """
    if n_models < 2:
        raise ValueError(f"a ranking needs at least 2 models, got {n_models}")
    return 12 / (n_models * (n_models ** 2 - 1))


def few_models_note(n_models: int, threshold: float, symbol: str = "ρ") -> str:
    """What a ρ over ``n_models`` < ``MIN_JUDGES_WARN`` models can say: its step ([`rho_step`][]) and, when
    ``threshold`` lies above the second-highest value, that meeting it demands the exact order.

    Parameters
    ----------
    n_models : int
        Models each ρ is computed on.
    threshold : float
        The target of ρ.
    symbol : str
        How the text names ρ.

    Returns
    -------
    str
        The note, e.g. "over 4 models ρ moves in steps of 0.2 (no ties), so ρ ≥ 0.9 demands their exact order".
    """
    step = rho_step(n_models)
    text = f"over {n_models} models {symbol} moves in steps of {step:g} (no ties)"
    if threshold > 1 - step:
        text += f", so {symbol} ≥ {threshold:g} demands their exact order"
    return text


def _judges(r: pd.Series, held_out: bool, symbol: str) -> str:
    """What the domain line says of the models each value is computed on, with the warnings below
    ``MIN_JUDGES_WARN`` ("" when not stated)."""
    if pd.isna(r["n_judges"]):
        return ""
    m = int(r["n_judges"])
    models = f"the {m} held-out models" if held_out else f"all {m} models"
    text = f" Each {symbol} is computed on {models}."
    note = few_models_note(m, r["threshold"], symbol) if r["metric"] == "spearman" else f"over {m} models"
    if m < MIN_JUDGES_VERDICT:
        return text + (f" No {symbol}-based verdict below {MIN_JUDGES_VERDICT} models: {note}"
                       + (" (hold out more models: --holdout-fraction)." if held_out else "."))
    if m < MIN_JUDGES_WARN:
        return text + f" Warning: {note}; the shares are coarse."
    return text


def verdict_text(verdicts: pd.DataFrame, level: float = 0.05, domain_labels: Mapping[str, str] | None = None,
                 reference: str = FULL_REFERENCE) -> str:
    """The verdicts of [`strategy_verdicts`][] as text: the definition, then per domain the models each value is
    computed on and one line per k: the a-priori class's answer, then the informed class's beside it (under model
    holdout, ``reference`` ``HOLDOUT_REFERENCE``, usable by a curator with the seen models' scores; otherwise
    judged by the models that built it, for comparison only).  A domain whose values are computed on fewer than
    ``MIN_JUDGES_VERDICT`` models gets no verdict.

    Parameters
    ----------
    verdicts : pd.DataFrame
        The rows of [`strategy_verdicts`][].
    level : float
        Significance level the verdicts were tested at.
    domain_labels : Mapping[str, str] | None
        Display name per domain (None: the names).
    reference : str
        What the subsets are compared with (model holdout: ``HOLDOUT_REFERENCE``, the held-out models' ranking).

    Returns
    -------
    str
        The advice as text.

    Examples
    --------
    The verdicts of [`strategy_verdicts`][]'s example:

    >>> import pandas as pd
    >>> from benchdesign.selection import strategy_verdicts, verdict_text
    >>> values = {("kmeans", "meta"): {2: [0.95] * 5 + [0.5], 4: [0.95] * 6},
    ...           ("random", "none"): {2: [0.5] * 6, 4: [0.95] * 6}}
    >>> rows = [("bench", "dataset_pool", s, r, t, k, "spearman", v) for (s, r), by_k in values.items()
    ...         for k, per_trial in by_k.items() for t, v in enumerate(per_trial)]
    >>> trials = pd.DataFrame(rows, columns=["domain", "variation", "strategy", "representation", "trial", "k",
    ...                                      "metric", "value"])
    >>> verdicts = strategy_verdicts(trials, {"bench": 10}, alpha=0.8)
    >>> print(verdict_text(verdicts))  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    Which strategy for k datasets, by the share of pools with ρ ≥ 0.9: ... level 0.05.
    bench: 6 trials, pools of 8 of the 10 datasets.
    - k = 2, a priori (dataset features only): K-Means (kmeans) on the features 'meta' has the highest share, 83% of
      pools, against 0% for random (ahead of / behind random in 5 / 0 trials, p = 0.031 Holm over 1 configuration):
      significantly higher: use it for k = 2.
    - k = 4, a priori (dataset features only): K-Means (kmeans) on the features 'meta' has the highest share, 100% of
      pools, against 100% for random ...: random does as well: no a-priori strategy helps at this k.
    """
    if verdicts.empty:
        return "No verdict: the trials hold no subset size to judge."
    first = verdicts.iloc[0]
    higher = METRIC_HIGHER_IS_BETTER[first["metric"]]
    symbol = METRIC_SYMBOLS[first["metric"]]
    target = f"{symbol} {'≥' if higher else '≤'} {first['threshold']:g}"
    held_out = reference == HOLDOUT_REFERENCE
    lines = [
        f"Which strategy for k datasets, by the share of pools with {target}: the fraction of the trials (each "
        f"a random pool of floor(alpha x n) datasets, the same pools for every strategy) in which the k datasets "
        f"a strategy selects give {target} against {reference} (the target test of "
        f"Table 2's k*). The answer comes from the {CLASS_LABELS[A_PRIORI]} class; the best of the "
        f"{CLASS_LABELS[INFORMED]} class (the oracle is one) is shown beside it. Test: {TEST_NAME} of the best "
        f"configuration of a class against random at the same k, Holm-corrected over the class's configurations "
        f"at that k, level {level:g}."
    ]
    for domain, block in verdicts.groupby("domain", sort=False):
        r = block.iloc[0]
        name = (domain_labels or {}).get(domain, domain)
        lines.append(f"{name}: {r['n_trials']} trials, pools of {r['pool_size']} of the {r['n_datasets']} "
                     f"datasets.{_judges(r, held_out, symbol)}")
        if not pd.isna(r["n_judges"]) and r["n_judges"] < MIN_JUDGES_VERDICT:
            continue
        lines += [f"- {_line(row, held_out, level)}" for _, row in block.iterrows()]
    return "\n".join(lines)
