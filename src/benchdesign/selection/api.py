"""The method on anyone's benchmark: select datasets, evaluate the strategies, check a subset.

Inputs are plain DataFrames: ``scores`` in the long layout (dataset, model, [fold], score; without a ``fold``
column one fold, as ``benchdesign.domains.read_scores_table`` reads a file without folds) and ``features``
indexed by dataset name.  These are the functions behind ``benchdesign select``, ``benchdesign evaluate`` and
``benchdesign agreement``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from benchdesign.logs import logger
from benchdesign.selection import aggregation, tables
from benchdesign.selection import markdown as md
from benchdesign.selection.classes import SEEN_RANKS_SUFFIX, seen_ranks_name
from benchdesign.selection.conclusions import (
    STABILITY_KS,
    VerdictCache,
    best_config,
    cd_titles,
    dataset_scores,
    plot_critical_difference,
)
from benchdesign.selection.frames import DRAW, TRIAL_COLUMNS, class_column, draws_of
from benchdesign.selection.guarantee import (
    COVERAGE_COLUMNS,
    COVERAGE_STRATEGIES,
    RADIUS_COLUMNS,
    coverage_curves,
    covering_bound,
    covering_radius,
    diameter,
    p_eff_table,
    radius_rows,
    summarise_coverage,
)
from benchdesign.selection.metrics import METRICS, rank_metrics
from benchdesign.selection.options import (
    FAFI_STARTS,
    HOLDOUT_FRACTION,
    RANDOM_DRAWS,
    RANDOM_SUBSETS,
    SELECT_STRATEGY,
    STANDARDIZATIONS,
)
from benchdesign.selection.protocol import (
    check_k_grid,
    dataset_pool_draws,
    fold_ranks,
    holdout_size,
    model_holdout_draws,
    n_draws,
    pool_size,
    score_cube,
    standardize_rows,
    strategy_options,
)
from benchdesign.selection.ranking import mean_ranks, rank_scores, with_fold
from benchdesign.selection.representations import check_representation, oracle_representation
from benchdesign.selection.strategies import (
    EVALUATE_STRATEGIES,
    PREFIX_ORDERS,
    STRATEGIES,
    STRATEGY_REGISTRY,
    farthest_first_order,
)
from benchdesign.selection.verdicts import (
    FULL_REFERENCE,
    HOLDOUT_REFERENCE,
    MIN_JUDGES_VERDICT,
    MIN_JUDGES_WARN,
    check_k_targets,
    few_models_note,
    strategy_verdicts,
    verdict_text,
)

__all__ = [
    "Selection", "select_datasets", "select_from_scores", "subset_agreement", "Evaluation", "evaluate_benchmark",
    "coverage_curves", "p_eff_table", "run_configuration", "recommendation", "evaluation_figures",
    "held_out_warning",
]

def _deprecated(new_value, old_value, old: str, new: str, where: str):
    """``old_value`` (given under its deprecated name ``old``) with a FutureWarning, else ``new_value``."""
    if old_value is None:
        return new_value
    warnings.warn(f"{where}: {old}= is deprecated and will be removed in 0.3; use {new}=", FutureWarning, stacklevel=3)
    return old_value


FAFI_METRIC = {"fafi_cosine": "cosine", "fafi_euclidean": "euclidean"}


# ------------------------------------------------------------------------------------- select

@dataclass(frozen=True)
class Selection:
    """The result of [`select_datasets`][]: k datasets in selection order, and what a report needs.

    For greedy strategies every prefix is that strategy's selection of its size. As a yardstick for the
    covering radius, ``random_radii`` holds the covering radii of ``RANDOM_SUBSETS`` random subsets of the same
    size from the same pool (holding the same included datasets).

    Attributes
    ----------
    datasets : list[str]
        The k chosen datasets, in selection order.
    strategy : str
        The strategy that chose them.
    standardize : str
        ``'pool'`` (features z-scored over the pool) or ``'none'``.
    metric : str
        Metric of the covering radius: ``'cosine'`` for ``fafi_cosine``, else ``'euclidean'``.
    covering_radius : float
        Largest distance of a pool dataset to its nearest chosen dataset.
    prefix_radii : list[float]
        Covering radius of the first j chosen datasets, j = 1..k.
    diameter : float
        Largest distance between two pool datasets.
    n_features : int
        Number of feature columns.
    pool : list[str]
        The datasets chosen from (all but ``exclude``).
    random_radii : list[float]
        Covering radii of the random subsets.

    Examples
    --------
    [`select_datasets`][] returns one; here with the last dataset left out of the pool:

    >>> import pandas as pd
    >>> from benchdesign.selection import select_datasets
    >>> features = pd.DataFrame({"size": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0],
    ...                          "classes": [2.0, 2.0, 3.0, 8.0, 9.0, 9.0]},
    ...                         index=["a", "b", "c", "d", "e", "f"])
    >>> selection = select_datasets(features, 3, "fafi_euclidean", exclude=["f"])
    >>> selection.pool, selection.datasets
    (['a', 'b', 'c', 'd', 'e'], ['c', 'e', 'a'])
    >>> [round(r, 3) for r in selection.prefix_radii]  # the covering radius shrinks with every dataset
    [2.726, 0.575, 0.404]
    >>> round(selection.share_random_worse, 2)  # share of random 3-subsets with a larger radius
    0.32
    """

    datasets: list[str]
    strategy: str
    standardize: str
    metric: str
    covering_radius: float
    prefix_radii: list[float]
    diameter: float
    n_features: int
    pool: list[str] = field(repr=False)
    random_radii: list[float] = field(default_factory=list, repr=False)

    @property
    def random_median_radius(self) -> float:
        """Median covering radius of the random subsets (NaN without them)."""
        return float(np.median(self.random_radii)) if self.random_radii else float("nan")

    @property
    def share_random_worse(self) -> float:
        """Share of the random subsets whose covering radius is larger than this selection's (NaN without them)."""
        radii = np.asarray(self.random_radii)
        return float(np.mean(radii > self.covering_radius + 1e-12)) if radii.size else float("nan")

    def report(self) -> dict[str, Any]:
        """The selection as a JSON-ready dict (what ``benchdesign select`` writes), with the covering bound."""
        return {
            "strategy": self.strategy, "k": len(self.datasets), "datasets": self.datasets,
            "standardize": self.standardize, "pool_size": len(self.pool),
            "covering_metric": self.metric, "covering_radius": self.covering_radius,
            "covering_radius_by_prefix": self.prefix_radii, "pool_diameter": self.diameter,
            "covering_bound": float(covering_bound([len(self.datasets)], self.diameter,
                                                   self.n_features)[0]) if len(self.datasets) > 1 else None,
            "random_subsets": {"n": len(self.random_radii), "median_covering_radius": self.random_median_radius,
                               "share_with_larger_covering_radius": self.share_random_worse},
        }


def _names(values: Sequence[str], known: pd.Index, what: str) -> list[str]:
    values = list(dict.fromkeys(values))
    unknown = [v for v in values if v not in known]
    if unknown:
        raise ValueError(f"{what}: unknown dataset(s) {unknown}")
    return values


def select_datasets(
    features: pd.DataFrame,
    k: int,
    strategy: str = SELECT_STRATEGY,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    random_state: int = 0,
    standardize: bool = True,
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
) -> Selection:
    """Choose ``k`` datasets (rows of ``features``) with ``strategy``.

    ``exclude`` leaves datasets out of the pool; ``include`` forces datasets in: they come first,
    farthest-first continues its traversal from them, the other strategies fill the remaining
    ``k - len(include)`` places from the rest of the pool. This is the function behind ``benchdesign select``.

    Parameters
    ----------
    features : pd.DataFrame
        One row of numeric features per dataset, indexed by dataset name.
    k : int
        Number of datasets to choose, 1 to the pool size.
    strategy : str
        A name of ``STRATEGIES``: ``'random'``, ``'kmeans'``, ``'fafi_cosine'``, ``'fafi_euclidean'``,
        ``'a_optimal'``, ``'d_optimal'``, ``'kmedoids'``, ``'facility_location'``, ``'mutual_information'``,
        ``'stratified'`` or ``'backward_elimination'``.
    include : Sequence[str]
        Datasets that must be chosen.
    exclude : Sequence[str]
        Datasets left out of the pool.
    random_state : int
        Seed of the strategy's random draws and of the random subsets.
    standardize : bool
        z-score the features over the pool first, as the protocol does (never for a strategy that reads them
        unstandardised, ``Strategy.standardized``: ``covariance``).
    options : Mapping[str, Any] | None
        Options of the strategy (e.g. ``n_init`` of k-means, ``start`` of farthest-first); entries another
        strategy takes are ignored.
    seed : int | None
        Deprecated name of ``random_state`` (a FutureWarning).

    Returns
    -------
    Selection
        The chosen datasets in order, the covering radius (cosine for ``fafi_cosine``, Euclidean otherwise) and,
        as its yardstick, the covering radii of random subsets of the same size.

    Raises
    ------
    ValueError
        For an unknown strategy or dataset name, a dataset both included and excluded, or ``k`` outside
        1..pool size.

    Examples
    --------
    Six datasets in two far-apart groups; farthest-first picks from both:

    >>> import pandas as pd
    >>> from benchdesign.selection import select_datasets
    >>> features = pd.DataFrame({"size": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0],
    ...                          "classes": [2.0, 2.0, 3.0, 8.0, 9.0, 9.0]},
    ...                         index=["a", "b", "c", "d", "e", "f"])
    >>> selection = select_datasets(features, 3, "fafi_euclidean")
    >>> selection.datasets
    ['c', 'f', 'a']
    >>> round(selection.covering_radius, 3)
    0.537
    """
    seed = _deprecated(random_state, seed, "seed", "random_state", "select_datasets")
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose from {list(STRATEGIES)}")
    X = check_representation(features)
    names = X.index
    include = _names(include, names, "include")
    exclude = _names(exclude, names, "exclude")
    both = sorted(set(include) & set(exclude))
    if both:
        raise ValueError(f"dataset(s) {both} are both included and excluded")
    pool = np.array([i for i, name in enumerate(names) if name not in set(exclude)], dtype=np.intp)
    if not 1 <= k <= len(pool):
        raise ValueError(f"k={k} must lie in 1..{len(pool)} (the pool size)")
    if len(include) > k:
        raise ValueError(f"{len(include)} included datasets do not fit in k={k}")
    values = X.to_numpy(dtype=float)
    standardize = standardize and STRATEGY_REGISTRY[strategy].standardized  # covariance reads the values raw
    Z = standardize_rows(values, pool) if standardize else values
    rng = np.random.default_rng(seed)
    kwargs = strategy_options(strategy, dict(options or {}))
    forced = np.array([names.get_loc(n) for n in include], dtype=np.intp)
    if strategy in FAFI_METRIC:
        chosen = farthest_first_order(Z, pool, k, FAFI_METRIC[strategy], initial=forced if len(forced) else None,
                                      **kwargs)
    else:
        rest = np.setdiff1d(pool, forced)
        picked = (PREFIX_ORDERS[strategy](Z, rest, k - len(forced), rng, **kwargs) if strategy in PREFIX_ORDERS
                  else STRATEGIES[strategy](Z, k - len(forced), rest, rng, **kwargs)) if k > len(forced) else []
        chosen = np.concatenate([forced, np.asarray(picked, dtype=np.intp)])
    metric = FAFI_METRIC.get(strategy, "euclidean")
    radii = [covering_radius(Z, chosen[:j], pool, metric) for j in range(1, k + 1)]
    random_radii = _random_subset_radii(Z, pool, forced, k, metric, seed)
    return Selection(
        datasets=[str(names[i]) for i in chosen], strategy=strategy,
        standardize="pool" if standardize else "none", metric=metric, covering_radius=radii[-1],
        prefix_radii=radii, diameter=diameter(Z, pool, metric), pool=[str(names[i]) for i in pool],
        n_features=Z.shape[1], random_radii=random_radii,
    )


def _random_subset_radii(Z: np.ndarray, pool: np.ndarray, forced: np.ndarray, k: int, metric: str,
                         seed: int) -> list[float]:
    """Covering radii of ``RANDOM_SUBSETS`` random k-subsets of ``pool`` holding ``forced``."""
    rng = np.random.default_rng([seed, 3])
    rest = np.setdiff1d(pool, forced)
    return [covering_radius(Z, np.concatenate([forced, rng.choice(rest, k - len(forced), replace=False)]), pool,
                            metric) for _ in range(RANDOM_SUBSETS)]


def select_from_scores(
    scores: pd.DataFrame,
    k: int,
    higher_is_better: bool,
    strategy: str = SELECT_STRATEGY,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    random_state: int = 0,
    standardize: bool = True,
    options: Mapping[str, Any] | None = None,
) -> Selection:
    """Choose ``k`` datasets from the models' scores alone: an *informed* selection.

    Each dataset is described by its vector of model ranks (the oracle representation,
    [`oracle_representation`][]) and ``strategy`` chooses from those rows, as tinyBenchmarks and MMTEB's task
    selection choose from scores. Its class is informed (``selection_class(strategy, "oracle")``): the selection
    saw the scores of the models it is meant to rank, so judge it on models it did not see (``benchdesign
    evaluate``, model holdout). This is ``benchdesign select --scores FILE`` without ``--features``.

    Parameters
    ----------
    scores : pd.DataFrame
        Long scores: ``dataset, model, [fold], score``.
    k : int
        Number of datasets to choose.
    higher_is_better : bool
        Whether a higher score is a better model.
    strategy : str
        A name of ``STRATEGIES`` (default: ``select``'s).
    include, exclude : Sequence[str]
        Datasets that must be chosen, and datasets left out of the pool (as in [`select_datasets`][]).
    random_state : int
        Seed of the strategy's random draws and of the random subsets.
    standardize : bool
        z-score the rank vectors over the pool first.
    options : Mapping[str, Any] | None
        Options of the strategy, as in [`select_datasets`][].

    Returns
    -------
    Selection
        As [`select_datasets`][] returns it.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.selection import select_from_scores
    >>> scores = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2", "d3", "d3"], "model": ["a", "b"] * 3,
    ...                        "score": [0.9, 0.8, 0.6, 0.7, 0.5, 0.4]})
    >>> select_from_scores(scores, 2, higher_is_better=True, strategy="fafi_euclidean").datasets
    ['d1', 'd2']
    """
    ranks = oracle_representation(rank_scores(scores, higher_is_better))
    return select_datasets(ranks, k, strategy, include=include, exclude=exclude, random_state=random_state,
                           standardize=standardize, options=options)


# ---------------------------------------------------------------------------------- agreement

def subset_agreement(
    scores: pd.DataFrame,
    subset: Sequence[str],
    higher_is_better: bool,
    *,
    n_boot: int = 1000,
    level: float = 0.95,
    random_state: int = 0,
    seed: int | None = None,
) -> pd.DataFrame:
    """How well a subset of the datasets ranks the models as the full benchmark does.

    Every metric of ``METRICS`` (MAE, Spearman's ρ, Kendall's τ, NDCG@5, MRR) of the subset's mean-rank
    vector R_S against the full benchmark's R_D. With several folds, a percentile bootstrap over folds
    (``n_boot`` resamples of the folds with replacement, ranks recomputed) gives an interval. This is the
    function behind ``benchdesign agreement``.

    Parameters
    ----------
    scores : pd.DataFrame
        Scores in the long layout: columns ``dataset``, ``model``, [``fold``], ``score`` (without ``fold``:
        one fold, as ``benchdesign agreement`` reads a file without folds).
    subset : Sequence[str]
        The datasets of the subset, each once.
    higher_is_better : bool
        Whether a higher score is a better model.
    n_boot : int
        Bootstrap resamples of the folds (0: no interval).
    level : float
        Confidence level of the interval.
    random_state : int
        Seed of the bootstrap.
    seed : int | None
        Deprecated name of ``random_state`` (a FutureWarning).

    Returns
    -------
    pd.DataFrame
        One row per metric, columns ``metric, value, lo, hi`` (``lo`` / ``hi`` NaN with a single fold or
        ``n_boot=0``); ``attrs["interval"]`` says in words what ``lo`` and ``hi`` are, or why they are absent.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from benchdesign.selection import subset_agreement
    >>> rng = np.random.default_rng(0)
    >>> scores = pd.DataFrame([(f"d{i}", f"m{j}", fold, rng.random())
    ...                        for i in range(10) for j in range(4) for fold in range(2)],
    ...                       columns=["dataset", "model", "fold", "score"])
    >>> agreement = subset_agreement(scores, ["d0", "d3", "d7"], higher_is_better=True, n_boot=200)
    >>> agreement.round(2)
            metric  value    lo    hi
    0          mae   0.20  0.20  0.38
    1     spearman   0.80  0.20  0.80
    2      kendall   0.67  0.00  0.67
    3        ndcg5   0.99  0.90  0.99
    4          mrr   1.00  0.33  1.00
    5  ndcg5_paper   1.00  0.96  1.00

    Without a ``fold`` column the scores are one fold, and there is no interval:

    >>> scores = pd.DataFrame({"dataset": ["d0", "d0", "d1", "d1", "d2", "d2"], "model": ["a", "b"] * 3,
    ...                        "score": [0.9, 0.7, 0.8, 0.6, 0.5, 0.6]})
    >>> agreement = subset_agreement(scores, ["d0", "d1"], higher_is_better=True)
    >>> float(agreement.set_index("metric").loc["spearman", "value"])
    1.0
    """
    seed = _deprecated(random_state, seed, "seed", "random_state", "subset_agreement")
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise ValueError(f"the bootstrap resamples (--bootstrap, n_boot) must be an integer >= 0, got {n_boot!r}")
    ranks = rank_scores(scores, higher_is_better)
    scores = with_fold(scores)
    subset = _names(subset, ranks.index, "subset")
    if not subset:
        raise ValueError("the subset is empty")
    rows = np.array([ranks.index.get_loc(s) for s in subset])
    values = rank_metrics(mean_ranks(ranks.to_numpy(), rows), mean_ranks(ranks.to_numpy()))
    out = pd.DataFrame({"metric": list(METRICS), "value": [values[m] for m in METRICS]})
    out["lo"], out["hi"] = np.nan, np.nan
    cube = score_cube(scores, ranks.index, ranks.columns)
    if cube.shape[1] > 1 and n_boot > 0:
        per_fold = fold_ranks(cube, higher_is_better)
        rng = np.random.default_rng(seed)
        draws = []
        for _ in range(n_boot):
            r = per_fold[:, rng.integers(0, cube.shape[1], cube.shape[1]), :].mean(axis=1)
            m = rank_metrics(mean_ranks(r, rows), mean_ranks(r))
            draws.append([m[name] for name in METRICS])
        q = np.nanquantile(np.array(draws), [(1 - level) / 2, (1 + level) / 2], axis=0)
        out["lo"], out["hi"] = q[0], q[1]
    out.attrs["interval"] = _interval_note(cube.shape[1], n_boot, level)
    return out


def _interval_note(n_folds: int, n_boot: int, level: float) -> str:
    """What ``lo`` and ``hi`` of [`subset_agreement`][] are, or why they are absent (NaN)."""
    if n_folds < 2:
        return ("no interval (lo, hi empty): the scores have one fold per (dataset, model), and the interval "
                "resamples folds; give the scores per fold (a fold column) for one")
    if n_boot == 0:
        return "no interval (lo, hi empty): no bootstrap resamples were asked for (n_boot=0, --bootstrap 0)"
    return f"lo, hi: a {level:.0%} percentile bootstrap interval over the {n_folds} folds ({n_boot} resamples)"


# ----------------------------------------------------------------------------------- evaluate

@dataclass
class Evaluation:
    """The result of [`evaluate_benchmark`][]: everything ``benchdesign evaluate`` writes.

    Attributes
    ----------
    frames : dict[str, pd.DataFrame]
        Result tables by name: ``trials``, ``curves``, ``table1_auc``, ``table2_kstar``, ``table3_summary``,
        ``table3_wilcoxon_holm``, ``coverage``, ``p_eff``, ``conclusion_stability``, ``recommendation``.
    markdown : dict[str, str]
        The tables as paper-style Markdown, by name.
    recommendation : str
        The advice "which strategy for k" as text.

    Examples
    --------
    [`evaluate_benchmark`][] returns one; 10 datasets with 3 random features, 4 models with random scores:

    >>> import numpy as np
    >>> import pandas as pd
    >>> from benchdesign.selection import evaluate_benchmark
    >>> features = pd.DataFrame(np.random.default_rng(0).normal(size=(10, 3)), index=[f"d{i}" for i in range(10)])
    >>> scores = pd.DataFrame({"dataset": np.repeat(features.index, 4), "model": ["m0", "m1", "m2", "m3"] * 10,
    ...                        "score": np.random.default_rng(1).random(40)})
    >>> result = evaluate_benchmark(scores, {"meta": features}, higher_is_better=True, n_trials=5, ks=[2, 3, 4],
    ...                             strategies=["random", "fafi_euclidean"], variation="dataset_pool")
    >>> print(result.markdown["table1_auc"].splitlines()[0])
    ### benchmark (10 datasets, 5 trials)
    >>> result.frames["table1_auc"][["strategy", "representation", "class"]].drop_duplicates()
             strategy representation     class
    0          random           none  a priori
    1  fafi_euclidean         oracle  informed
    2  fafi_euclidean           meta  a priori
    """

    frames: dict[str, pd.DataFrame]
    markdown: dict[str, str]
    recommendation: str


def _judged_selections(ranks, X, strategy, ks, n_trials, alpha, seed, options, standardize, holdout, draws):
    """(trial, pool, [{k: rows} per draw], ranks that judge them, the judging models' columns or None for all) of
    the dataset-pool trials (``holdout`` None: all models judge) or of the model-holdout trials (``holdout = (cube,
    higher_is_better, fraction, oracle, with_seen)``: the held-out models judge, ranked among themselves;
    ``oracle`` rebuilds X from the seen models in every trial, ``with_seen`` appends their ranks to X)."""
    if holdout is None:
        for trial, pool, by_draw in dataset_pool_draws(X, strategy, ks, n_trials, alpha, seed, options, standardize,
                                                       draws):
            yield trial, pool, by_draw, ranks, None
        return
    cube, higher_is_better, fraction, oracle, with_seen = holdout
    for trial, pool, held, by_draw in model_holdout_draws(cube, higher_is_better, None if oracle else X, strategy,
                                                          ks, n_trials, alpha, seed, fraction, options, standardize,
                                                          with_seen, draws):
        yield trial, pool, by_draw, fold_ranks(cube[:, :, held], higher_is_better).mean(axis=1), held


def run_configuration(
    ranks: np.ndarray, X: np.ndarray, strategy: str, ks: Sequence[int], n_trials: int, alpha: float,
    seed: int, options: Mapping[str, Any] | None, S: np.ndarray, higher_is_better: bool,
    stability_ks: Sequence[int] = STABILITY_KS, coverage: Mapping[str, np.ndarray] | None = None,
    standardize: str = "all", holdout: tuple | None = None, random_draws: int = RANDOM_DRAWS,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame]]:
    """One (strategy, representation) in one pass over the trials (each selection made once): the trial
    metrics (as ``dataset_pool_trials``, or with ``holdout = (cube,
    higher_is_better, holdout_fraction, oracle, with_seen_ranks)`` as
    ``model_holdout_trials``; a random baseline's ``random_draws`` draws per trial each, column ``draw``),
    the conclusion stability at ``stability_ks`` (Wilcoxon-Holm verdicts on the pairs of the models that judge:
    all models, or under model holdout the trial's held-out models, on the subset against on all datasets) and
    the covering radii of the selections in every representation of ``coverage`` (name -> raw features; z-scored
    over all datasets); stability and radii of a random baseline are those of its first draw. ``standardize``:
    z-score X over all datasets ("all") or over each trial's pool rows ("pool", the paper's code)."""
    caches: dict[bytes, VerdictCache] = {}
    Zs = {rep: standardize_rows(Xc) for rep, Xc in (coverage or {}).items()}
    metric_rows, stability = [], []
    radius_by_rep: dict[str, list] = {rep: [] for rep in Zs}
    full_reference = mean_ranks(ranks)
    draws = n_draws(strategy, random_draws)
    for trial, pool, by_draw, judge, models in _judged_selections(ranks, X, strategy, ks, n_trials, alpha, seed,
                                                                  options, standardize, holdout, draws):
        reference = full_reference if judge is ranks else mean_ranks(judge)
        for draw, subsets in enumerate(by_draw):
            for k, chosen in subsets.items():
                values = rank_metrics(mean_ranks(judge, chosen), reference)
                metric_rows += [(trial, draw, k, m, float(values[m])) for m in METRICS]
        subsets = by_draw[0]
        key = b"all" if models is None else np.asarray(models, dtype=np.intp).tobytes()
        if key not in caches and any(k in stability_ks for k in subsets):
            caches[key] = VerdictCache(S if models is None else S[:, models], higher_is_better)
        for k, chosen in subsets.items():
            if k in stability_ks:
                stability.append((trial, k, caches[key].stability(chosen)))
        for rep, Z in Zs.items():
            radius_by_rep[rep] += radius_rows(strategy, Z, pool, subsets, trial)
    metrics = pd.DataFrame(metric_rows, columns=["trial", "draw", "k", "metric", "value"])
    return (metrics if draws > 1 else metrics.drop(columns="draw"),
            pd.DataFrame(stability, columns=["trial", "k", "stability"]),
            {rep: pd.DataFrame(rows, columns=RADIUS_COLUMNS) for rep, rows in radius_by_rep.items()})


def recommendation(trials: pd.DataFrame, n_datasets: Mapping[str, int], alpha: Mapping[str, float] | float,
                   metric: str = "spearman", threshold: float = 0.90,
                   k_targets: Sequence[int] | None = None) -> str:
    """Which strategy for each of ``k_targets``: the text of [`strategy_verdicts`][] on the dataset-pool ``trials``.

    Parameters
    ----------
    trials : pd.DataFrame
        Trial rows of the protocol (``Evaluation.frames["trials"]``).
    n_datasets : Mapping[str, int]
        Number of datasets per domain.
    alpha : Mapping[str, float] | float
        Pool fraction of the trials, per domain or one for all.
    metric : str
        Metric the target is set on.
    threshold : float
        Target value of ``metric`` a selection has to meet.
    k_targets : Sequence[int] | None
        The subset sizes to advise on (None: a few spread over the evaluated k).

    Returns
    -------
    str
        One paragraph per domain with a line per k.

    Examples
    --------
    Six trials of random and of farthest-first on the features 'meta'; at k = 4 farthest-first reaches ρ >= 0.9
    in every pool, random at most 0.75 (the text's first line, which explains the test, is left out):

    >>> import pandas as pd
    >>> from benchdesign.selection import recommendation
    >>> rows = [("toy", "dataset_pool", s, r, t, k, "spearman", v + 0.1 * k + 0.01 * t)
    ...         for s, r, v in [("random", "none", 0.3), ("fafi_euclidean", "meta", 0.5)]
    ...         for t in range(6) for k in (2, 3, 4)]
    >>> trials = pd.DataFrame(rows, columns=["domain", "variation", "strategy", "representation", "trial", "k",
    ...                                      "metric", "value"])
    >>> text = recommendation(trials, {"toy": 10}, 0.8, threshold=0.8, k_targets=[4])
    >>> print(*text.splitlines()[1:], sep="\\n")  # doctest: +NORMALIZE_WHITESPACE
    toy: 6 trials, pools of 8 of the 10 datasets.
    - k = 4, a priori (dataset features only): E-FAFI (fafi_euclidean) on the features 'meta' has the highest share,
      100% of pools, against 0% for random (ahead of / behind random in 6 / 0 trials, p = 0.016 Holm over 1
      configuration): significantly higher: use it for k = 4.
    """
    return verdict_text(strategy_verdicts(trials, n_datasets, alpha, metric, threshold, k_targets))


def held_out_warning(n_held: int, n_models: int, holdout_fraction: float, threshold: float = 0.90) -> str:
    """The warning of [`evaluate_benchmark`][] when each held-out ρ is computed on fewer than ``MIN_JUDGES_WARN``
    models (and, below ``MIN_JUDGES_VERDICT``, that the recommendation gives no ρ-based verdict).

    Parameters
    ----------
    n_held : int
        Held-out models per trial.
    n_models : int
        Models of the benchmark.
    holdout_fraction : float
        The share of the models held out.
    threshold : float
        The recommendation's target of ρ.

    Returns
    -------
    str
        The warning.

    Examples
    --------
    >>> print(held_out_warning(4, 14, 0.3))  # doctest: +NORMALIZE_WHITESPACE
    warning: each held-out ρ is computed on 4 held-out models (holdout fraction 0.3 of 14): over 4 models ρ
    moves in steps of 0.2 (no ties), so ρ ≥ 0.9 demands their exact order (raise --holdout-fraction, or
    --variation dataset_pool)
    """
    text = (f"warning: each held-out ρ is computed on {n_held} held-out models (holdout fraction "
            f"{holdout_fraction:g} of {n_models}): {few_models_note(n_held, threshold)}")
    if n_held < MIN_JUDGES_VERDICT:
        text += f"; below {MIN_JUDGES_VERDICT} models recommendation.txt gives no ρ-based verdict"
    return text + " (raise --holdout-fraction, or --variation dataset_pool)"


MIN_SEEN_MODELS = 2
"""Models a model-holdout selection of [`evaluate_benchmark`][] sees at least: the oracle ranks them (one
model's ranks are all 1, an oracle without information)."""


def evaluate_benchmark(
    scores: pd.DataFrame,
    features: Mapping[str, pd.DataFrame],
    higher_is_better: bool,
    *,
    strategies: Sequence[str] | None = None,
    n_trials: int = 200,
    pool_fraction: float = 0.8,
    ks: Sequence[int] = range(2, 21),
    random_state: int = 0,
    thresholds: Mapping[str, float] = aggregation.DEFAULT_THRESHOLDS,
    options: Mapping[str, Any] | None = None,
    oracle: bool = True,
    name: str = "benchmark",
    progress: Callable[[str], None] | None = None,
    n_jobs: int = 1,
    fafi_start: str = FAFI_STARTS[0],
    standardize: str = STANDARDIZATIONS[0],
    k_targets: Sequence[int] | None = None,
    variation: str = "model_holdout",
    holdout_fraction: float = HOLDOUT_FRACTION,
    with_seen_ranks: bool = False,
    random_draws: int = RANDOM_DRAWS,
    alpha: float | None = None,
    seed: int | None = None,
) -> Evaluation:
    """The selection protocol on a user's benchmark: which strategy and features choose datasets that rank models right.

    Trials of every strategy on every feature table (a priori: the features only) and the oracle (informed: it
    uses the models' scores; ``classes.selection_class``), Tables 1-3 with a ``class`` column, the covering radii
    and p_eff of farthest-first, random and k-means, the conclusion stability of every strategy (under model
    holdout: the Wilcoxon-Holm verdicts on the pairs of each trial's held-out models), and the verdict "which
    strategy for k" at every ``k_targets`` entry: the a-priori class's answer, the informed class's beside it, the
    number of models each ρ is computed on. This is the function behind ``benchdesign evaluate``.

    ``variation="model_holdout"`` (default): every trial also sets ``max(2, floor(holdout_fraction * M))``
    models aside (at least ``MIN_SEEN_MODELS`` stay seen, else ValueError); the selection sees only the others
    (the oracle is rebuilt from their ranks) and the held-out models judge it -- will the subset rank models not
    run yet as the full benchmark would? Fewer than ``MIN_JUDGES_WARN`` (5) held-out models log a warning
    (``held_out_warning``); fewer than ``MIN_JUDGES_VERDICT`` (4) give no ρ-based verdict.
    ``variation="dataset_pool"``: the paper's protocol, where the models that judge a selection are those whose
    scores the oracle used.

    Parameters
    ----------
    scores : pd.DataFrame
        Scores in the long layout: columns ``dataset``, ``model``, [``fold``], ``score`` (without ``fold``: one
        fold, as ``benchdesign evaluate`` reads a file without folds).
    features : Mapping[str, pd.DataFrame]
        Feature tables by representation name, each indexed by dataset name.
    higher_is_better : bool
        Whether a higher score is a better model.
    strategies : Sequence[str] | None
        Strategies to evaluate (None: ``EVALUATE_STRATEGIES``, the paper's six -- random, k-means, cosine and
        Euclidean farthest-first, A- and D-optimal -- and ``select_datasets``' default, k-medoids).
    n_trials : int
        Random pools (trials) per configuration, at least 1.
    pool_fraction : float
        Each trial selects from a pool of floor(pool_fraction * n) datasets (the paper's alpha; ``alpha`` is a
        deprecated alias, since alpha means a significance level elsewhere).
    ks : Sequence[int]
        Subset sizes k, each within the pool.
    random_state : int
        Seed of the trials' pools, holdouts and strategies.
    thresholds : Mapping[str, float]
        Metric -> target value of k* (Table 2).
    options : Mapping[str, Any] | None
        Options of the strategies (e.g. ``n_init``, ``lam``, ``start``), over the protocol's own.
    oracle : bool
        Also evaluate the oracle representation (built from the scores).
    name : str
        Name of the benchmark in the tables and the advice.
    progress : Callable[[str], None] | None
        Called with a message as each configuration finishes (None: silent).
    n_jobs : int
        Processes running the (strategy, representation) configurations; the result does not depend on it.
    fafi_start : str
        Where farthest-first starts: ``'nearest'`` or ``'farthest'`` (the paper's code), as in the pipeline's
        ``protocol`` settings.
    standardize : str
        z-score the features over ``'all'`` datasets (the paper's code) or over each trial's ``'pool'``.
    k_targets : Sequence[int] | None
        Subset sizes the advice covers, each one of ``ks`` (None: a few spread over ``ks``).
    variation : str
        ``'model_holdout'`` or ``'dataset_pool'`` (above).
    holdout_fraction : float
        Share of the models held out per trial (model holdout).
    with_seen_ranks : bool
        Model holdout only: add, for every feature table ``name``, the representation ``name+seen``, the
        features with the seen models' ranks appended (informed: it uses the seen models' scores).
    random_draws : int
        Subsets the random baselines (random, stratified random) draw per trial: a trial's value is their mean,
        its pass share the share of them meeting the target (``protocol.n_draws``).
    alpha : float | None
        Deprecated name of ``pool_fraction`` (a FutureWarning).
    seed : int | None
        Deprecated name of ``random_state`` (a FutureWarning).

    Returns
    -------
    Evaluation
        The result frames, their Markdown and the advice.

    Examples
    --------
    A benchmark of 10 datasets and 4 models, two strategies, 5 trials (the paper runs 200):

    >>> import numpy as np
    >>> import pandas as pd
    >>> from benchdesign.selection import evaluate_benchmark
    >>> rng = np.random.default_rng(0)
    >>> datasets = [f"d{i}" for i in range(10)]
    >>> features = pd.DataFrame(rng.normal(size=(10, 3)), index=datasets, columns=["f1", "f2", "f3"])
    >>> scores = pd.DataFrame([(d, f"m{j}", fold, rng.random())
    ...                        for d in datasets for j in range(4) for fold in range(2)],
    ...                       columns=["dataset", "model", "fold", "score"])
    >>> result = evaluate_benchmark(scores, {"meta": features}, higher_is_better=True,
    ...                             strategies=["random", "fafi_euclidean"], n_trials=5, ks=[2, 3, 4],
    ...                             variation="dataset_pool")
    >>> sorted(result.frames)  # doctest: +NORMALIZE_WHITESPACE
    ['conclusion_stability', 'coverage', 'curves', 'p_eff', 'recommendation', 'table1_auc',
     'table2_kstar', 'table3_summary', 'table3_wilcoxon_holm', 'trials']
    >>> print(result.recommendation.splitlines()[1][:87])
    benchmark: 5 trials, pools of 8 of the 10 datasets. Each ρ is computed on all 4 models.
    """
    alpha = _deprecated(pool_fraction, alpha, "alpha", "pool_fraction", "evaluate_benchmark")
    seed = _deprecated(random_state, seed, "seed", "random_state", "evaluate_benchmark")
    if isinstance(n_trials, bool) or not isinstance(n_trials, (int, np.integer)) or n_trials < 1:
        raise ValueError(f"the number of trials (--trials, n_trials) must be an integer >= 1, got {n_trials!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ValueError(f"the number of processes (--jobs, n_jobs) must be an integer >= 1, got {n_jobs!r}")
    n_draws("random", random_draws)  # ValueError unless an integer >= 1
    strategies = list(strategies or EVALUATE_STRATEGIES)  # the other curator baselines when named
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise ValueError(f"unknown strategy(ies) {unknown}; choose from {list(STRATEGIES)}")
    if standardize not in STANDARDIZATIONS:
        raise ValueError(f"standardize={standardize!r} must be one of {STANDARDIZATIONS}")
    if fafi_start not in FAFI_STARTS:
        raise ValueError(f"fafi_start={fafi_start!r} must be one of {FAFI_STARTS}")
    if variation not in ("dataset_pool", "model_holdout"):
        raise ValueError(f"variation={variation!r} must be 'dataset_pool' or 'model_holdout'")
    options = {"n_init": 3, "lam": 1.0, "start": fafi_start, **dict(options or {})}
    say = progress or (lambda message: None)
    ranks = rank_scores(scores, higher_is_better)
    scores = with_fold(scores)
    pool = pool_size(len(ranks), alpha)
    ks = check_k_grid(ks, pool, f"pool of {pool} = floor({alpha:g} x {len(ranks)}) datasets; lower K_MAX of --k "
                                f"(ks) or raise --pool-fraction (pool_fraction)")
    targets = None if k_targets is None else check_k_targets(k_targets, ks, pool, len(ranks))
    reps = {rep: check_representation(_aligned(f, ranks.index, rep)).to_numpy(dtype=float)
            for rep, f in features.items()}
    if with_seen_ranks and variation != "model_holdout":
        raise ValueError("with_seen_ranks needs variation='model_holdout' (the seen models are those not held out)")
    if with_seen_ranks:
        reps.update({seen_ranks_name(rep): X for rep, X in list(reps.items())})
    if oracle:
        reps["oracle"] = oracle_representation(ranks).to_numpy(dtype=float)
    n_ranks = ranks.to_numpy(dtype=float)
    S = dataset_scores(scores).loc[ranks.index].to_numpy(dtype=float)
    cube, n_judges = None, ranks.shape[1]
    if variation == "model_holdout":
        n_judges = holdout_size(ranks.shape[1], holdout_fraction, MIN_SEEN_MODELS)
        cube = score_cube(scores, ranks.index, ranks.columns)
        if n_judges < MIN_JUDGES_WARN:
            logger("evaluate").warning(held_out_warning(n_judges, ranks.shape[1], holdout_fraction,
                                                        thresholds.get("spearman", 0.90)))
    jobs = []
    for strategy in strategies:
        uses = STRATEGY_REGISTRY[strategy].uses_representation
        for rep, X in (reps.items() if uses else [("none", np.zeros((len(ranks), 1)))]):
            # random ignores X, so its subsets are the same on every representation
            cover = {} if strategy not in COVERAGE_STRATEGIES else (reps if not uses else {rep: X})
            holdout = None if cube is None else (cube, higher_is_better, holdout_fraction, rep == "oracle",
                                                 rep.endswith(SEEN_RANKS_SUFFIX))
            jobs.append((strategy, rep, (n_ranks, X, strategy, ks, n_trials, alpha, seed, options, S,
                                         higher_is_better, STABILITY_KS, cover, standardize, holdout,
                                         random_draws)))
    say(f"{len(jobs)} configurations x {n_trials} trials, k = {ks[0]}..{ks[-1]}, {n_jobs} process(es)")
    if n_jobs > 1:
        with ProcessPoolExecutor(max_workers=n_jobs) as pool:
            results = list(pool.map(_run_job, [args for _, _, args in jobs]))
    else:
        results = [_run_job(args) for _, _, args in jobs]
    trial_frames, stability_frames, radius_frames = [], [], []
    for (strategy, rep, _), (t, s, r) in zip(jobs, results):
        say(f"done: {strategy} on {rep}")
        trial_frames.append(t.assign(domain=name, variation=variation, strategy=strategy, representation=rep))
        stability_frames.append(s.assign(strategy=strategy, representation=rep))
        radius_frames += [(r_rep, frame, reps[r_rep].shape[1]) for r_rep, frame in r.items()]
    trials = pd.concat(trial_frames, ignore_index=True)
    if DRAW in trials.columns:  # a random baseline's draws; the other strategies draw once
        trials = trials.assign(**{DRAW: draws_of(trials)})[[*TRIAL_COLUMNS[:-3], DRAW, *TRIAL_COLUMNS[-3:]]]
    else:
        trials = trials[TRIAL_COLUMNS]
    curves = aggregation.curves(trials)
    trial_auc = aggregation.trial_auc(trials)
    t1 = tables.table1(trials, {name: len(ranks)})
    t2 = tables.table2(curves, thresholds)
    t3 = tables.table3(trial_auc)
    summary = tables.table3_summary(t3, tables.reference_auc(trial_auc))
    stability = pd.concat(stability_frames, ignore_index=True) if stability_frames else pd.DataFrame(
        columns=["trial", "k", "stability", "strategy", "representation"])
    stability_summary = (stability.groupby(["strategy", "representation", "k"], sort=False)["stability"]
                         .agg(["mean", "std", "min"]).reset_index())
    stability_summary.insert(2, "class", class_column(stability_summary))
    coverage = pd.concat([summarise_coverage(pd.concat([f for r, f, _ in radius_frames if r == rep]), p)
                          .assign(representation=rep)
                          for rep, p in {r: p for r, _, p in radius_frames}.items()], ignore_index=True) \
        if radius_frames else pd.DataFrame(columns=COVERAGE_COLUMNS)
    p_eff = pd.concat([p_eff_table(block).assign(representation=rep)
                       for rep, block in coverage.groupby("representation", sort=False)], ignore_index=True) \
        if len(coverage) else pd.DataFrame(columns=["strategy", "metric", "p", "p_eff", "c", "fit", "representation"])
    p_eff["class"] = class_column(p_eff)
    verdicts = strategy_verdicts(trials, {name: len(ranks)}, alpha, "spearman", thresholds.get("spearman", 0.90),
                                 targets, n_judges=n_judges)
    reference = HOLDOUT_REFERENCE if variation == "model_holdout" else FULL_REFERENCE
    advice = verdict_text(verdicts, reference=reference)
    frames = {"recommendation": verdicts, "trials": trials, "curves": curves, "table1_auc": t1, "table2_kstar": t2,
              "table3_wilcoxon_holm": t3, "table3_summary": summary, "conclusion_stability": stability_summary,
              "coverage": coverage, "p_eff": p_eff}
    markdown = {"table1_auc": md.table1_markdown(t1), "table2_kstar": md.table2_markdown(t2),
                "table3_wilcoxon_holm": md.table3_markdown(summary),
                "conclusion_stability": md.to_markdown(stability_summary, floatfmt=".3f"),
                "p_eff": md.to_markdown(p_eff, floatfmt=".3g")}
    return Evaluation(frames=frames, markdown=markdown, recommendation=advice)


def _run_job(args: tuple) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame]]:
    return run_configuration(*args)


def _aligned(features: pd.DataFrame, datasets: pd.Index, what: str) -> pd.DataFrame:
    missing = [d for d in datasets if d not in features.index]
    if missing:
        raise ValueError(f"features {what!r}: no row for dataset(s) {missing} of the scores")
    return features.loc[datasets]


def critical_difference_subsets(
    features: Mapping[str, pd.DataFrame], n_datasets: int, strategy: str, representation: str,
    ks: Sequence[int] = STABILITY_KS, seed: int = 0,
) -> dict[str, list[str]]:
    """The subsets a critical-difference diagram is drawn for: the best strategy's and random's
    choice of k datasets from the whole benchmark, for every k < n in ``ks``."""
    out = {}
    for k in [k for k in ks if k < n_datasets]:
        if representation in features and strategy != "random":
            out[f"{strategy}_{representation}_k{k}"] = select_datasets(features[representation], k, strategy,
                                                                       random_state=seed).datasets
        out[f"random_k{k}"] = select_datasets(next(iter(features.values())), k, "random",
                                              random_state=seed).datasets
    return out


def evaluation_figures(
    result: Evaluation, S: pd.DataFrame, features: Mapping[str, pd.DataFrame], higher_is_better: bool,
    *, random_state: int = 0, name: str = "benchmark", seed: int | None = None,
) -> dict[str, Any]:
    """Figures of an evaluation by file stem.

    Curves, covering radius per representation, conclusion stability, and critical-difference diagrams of the
    full benchmark and of the subsets of ``critical_difference_subsets``. Needs matplotlib.

    Parameters
    ----------
    result : Evaluation
        The result of [`evaluate_benchmark`][].
    S : pd.DataFrame
        Scores as a datasets x models table (mean over folds).
    features : Mapping[str, pd.DataFrame]
        The feature tables the evaluation used, by representation name.
    higher_is_better : bool
        Whether a higher score is a better model.
    random_state : int
        Seed of the subsets drawn for the critical-difference diagrams.
    name : str
        Name of the benchmark in the titles.
    seed : int | None
        Deprecated name of ``random_state`` (a FutureWarning).

    Returns
    -------
    dict[str, Any]
        File stem -> matplotlib figure.

    Examples
    --------
    A small evaluation (one strategy, 2 trials); the critical-difference diagrams show the full benchmark and
    random's choice of 5 of its 10 datasets:

    >>> import numpy as np
    >>> import pandas as pd
    >>> from benchdesign.selection import dataset_scores, evaluate_benchmark, evaluation_figures
    >>> meta = pd.DataFrame(np.random.default_rng(0).normal(size=(10, 3)), index=[f"d{i}" for i in range(10)])
    >>> scores = pd.DataFrame({"dataset": np.repeat(meta.index, 4), "model": ["m0", "m1", "m2", "m3"] * 10,
    ...                        "score": np.random.default_rng(1).random(40)})
    >>> result = evaluate_benchmark(scores, {"meta": meta}, higher_is_better=True, strategies=["random"], n_trials=2,
    ...                             ks=[2, 3], oracle=False, variation="dataset_pool")
    >>> figures = evaluation_figures(result, dataset_scores(scores), {"meta": meta}, higher_is_better=True)
    >>> sorted(figures)
    ['cd_full', 'cd_random_k5', 'coverage_meta', 'curves']
    """
    seed = _deprecated(random_state, seed, "seed", "random_state", "evaluation_figures")
    from benchdesign.selection.frames import config_label, representation_label
    from benchdesign.selection.plotting import plot_coverage, plot_curves, plot_stability

    variation = str(result.frames["curves"]["variation"].iloc[0])
    figures: dict[str, Any] = {"curves": plot_curves(result.frames["curves"], name, variation=variation)}
    coverage, p_eff = result.frames["coverage"], result.frames["p_eff"]
    for rep in dict.fromkeys(coverage["representation"]):
        figures[f"coverage_{rep}"] = plot_coverage(
            coverage[coverage["representation"] == rep], p_eff[p_eff["representation"] == rep],
            f"{name} / {representation_label(rep)}: covering radius of the selection over the pool")
    if len(result.frames["conclusion_stability"]):
        figures["conclusion_stability"] = plot_stability(
            result.frames["conclusion_stability"],
            f"{name}: Wilcoxon-Holm verdicts (α = 0.05) of the subset = of the full benchmark",
            n_models=S.shape[1], n_datasets=len(S))
    figures["cd_full"] = plot_critical_difference(S, higher_is_better, cd_titles(name, list(S.index), len(S))[0])
    strategy, rep = best_config(result.frames["table3_summary"])
    for stem, subset in critical_difference_subsets(features, len(S), strategy, rep, seed=seed).items():
        chooser = "Random" if stem.startswith("random_") else config_label(strategy, rep)
        title, subtitle = cd_titles(name, subset, len(S), chooser)
        figures[f"cd_{stem}"] = plot_critical_difference(S.loc[subset], higher_is_better, title, subtitle=subtitle)
    return figures
