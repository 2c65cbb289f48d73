"""The TSC Table 3 MAE gap (this project 4.66 against the paper's 5.38), factor by factor (issue 45, item 2).

Three sub-commands, each writing one CSV under ``benchmarks/results/`` (run from the repository root with the
project's ``.venv``; the mirror is ``../shared/data`` unless ``--mirror`` says otherwise):

``ties``
    The reference ranking with the authors' ``np.argsort`` ranks against average ranks
    (``scipy.stats.rankdata``, the project's ``rank_scores``), on the 105 offline datasets with the MiniRocket
    representation of a pipeline run: the Random level, every strategy's AUC(MAE) and AUC(Spearman), the best
    strategy and its gain, under the project's trial draws and under the authors' (see *protocols*)::

        python benchmarks/tsc_gap_factors.py ties \\
            --representation DIR/results/prepared/tsc/representation_minirocket.csv

    (DIR = the working directory of a default run, ``snakemake --cores 2 --config mirror=../shared/data``.
    17 CPU-min, 27 min wall beside other work (load 5-9) on 2026-12-06, of which k-means on 9,996 features
    about 7 CPU-min (``--strategies random fafi_cosine fafi_euclidean a_optimal d_optimal`` leaves it out) and
    reading the 9,996-column CSV about 1 min.)  Output ``benchmarks/results/tsc_gap_ties.csv``.

``datasets``
    105 against 112 datasets with the scores only: the Random level and the oracle (each dataset described by
    its model ranks) on all 112 datasets of the bake-off and on the 105 with offline series, under each
    ranking and both protocols::

        python benchmarks/tsc_gap_factors.py datasets

    (4 CPU-min, 6 min wall beside other work.)  Output ``benchmarks/results/tsc_gap_datasets.csv``.

``minirocket``
    aeon's ``MiniRocket`` against sktime's ``MiniRocketMultivariate`` (the project's), fitted identically on
    the pooled sample of the five UCR datasets bundled with sktime (``fit_sample``: 50 series per dataset, padded
    or trimmed to 512 points, 10,000 kernels, one seed) and applied to at most 200 series per dataset:
    fitted parameters and features compared, and the project's own fit and transform (``fit_minirocket``,
    ``minirocket_features``) against aeon's.  aeon is not a project dependency and installing it into the
    project's ``.venv`` would replace numpy (2.4.6 -> 2.3.5 with aeon 1.6.0, by ``pip install --dry-run``), so
    it runs in a separate venv with the project's sktime and the project's source on ``PYTHONPATH``::

        python3.11 -m venv ../aeon-venv
        ../aeon-venv/bin/pip install aeon "sktime==$(.venv/bin/python -c 'import sktime; print(sktime.__version__)')" pyyaml
        PYTHONPATH=src ../aeon-venv/bin/python benchmarks/tsc_gap_factors.py minirocket

    Output ``benchmarks/results/tsc_gap_minirocket.csv``.  Without aeon the sub-command stops with exit code 3
    and says how to run it.

Rankings (``--rankings``) of the models on each (dataset, fold), 1 = best, then averaged over folds and datasets:

* ``average``: tied models share the mean of their positions (the project).
* ``argsort``: the authors' ``utils/get_ranks.py``: ``ranks[np.argsort(accuracy)] = 1..M`` (ascending accuracy,
  so their 1 is the worst model; the ranks are turned round here, M + 1 - r, which leaves MAE and Spearman
  unchanged), models in the order of the authors' score dict (file names sorted), ties broken by numpy's
  generic introsort.  Computed as ``np.argsort`` of an object array, which runs that introsort; a float64 array
  gives the same order when numpy's SIMD sorts are switched off (checked with ``NPY_DISABLE_CPU_FEATURES``).
* ``argsort_native``: ``np.argsort`` of the float64 accuracies in this process: on a CPU with AVX-512 numpy >=
  1.25 sorts with x86-simd-sort, which orders ties differently (the CSV's ``numpy`` column names the version and
  the SIMD extensions numpy found).
* ``argsort_stable``: ``np.argsort(kind="stable")``: ties in model order.

Protocols (``--protocols``), both 200 trials on pools of floor(0.8 n) datasets, k = 2..20, the reference
over all n datasets, AUC = trapezoid over k:

* ``project``: the pipeline's trials (``dataset_pool_draws`` with the config's seed and strategy options:
  the default config/config.yaml is the paper's farthest-first start and per-pool standardisation).
* ``authors``: the trial draws of the authors' ``testing_pipeline`` (``testing_pipeline_stats.py``):
  ``np.random.seed(42)``, the 200 pools drawn one after the other, then Random's subsets from the same global
  generator, k in the outer loop and trials in the inner (``eval_method_mean``, ``rand_ind_method``); the
  datasets in sorted order (``chosen_datasets = sorted(datasets)``).  The other strategies are the project's
  implementations run on those pools (k-means seeded by ``default_rng([seed, trial])``).

Columns of the ``ties`` / ``datasets`` CSVs: ``n_datasets, ranking, protocol, representation, strategy,
auc_mae, auc_mae_sd, auc_spearman, random_auc_mae, gain_mae, gain_mae_se`` (paired over trials),
``best`` (the best AUC(MAE) of the row's setting), ``tied_cells`` (share of (dataset, fold) with a tie),
``n_trials``, ``numpy``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
RANKINGS = ("average", "argsort", "argsort_native", "argsort_stable")
PROTOCOLS = ("project", "authors")
AUTHORS_SEED = 42  # testing_pipeline(random_state=42)
SUFFIX = "_TESTFOLDS.csv"
METRICS = ("mae", "spearman")
BUNDLED = ("ACSF1", "ArrowHead", "GunPoint", "ItalyPowerDemand", "OSULeaf")  # as benchmarks/tsc_minirocket_pattern.py


# ------------------------------------------------------------------------------------------------- rankings

def fold_ranks(values: np.ndarray, ranking: str) -> np.ndarray:
    """Ranks of the models (columns) on every row of higher-is-better scores, 1 = best.

    Parameters
    ----------
    values : np.ndarray
        (R, M) scores, one row per (dataset, fold), larger = better (accuracy).
    ranking : str
        ``average`` (ties share their mean position), ``argsort`` (the authors' ``np.argsort`` of the
        ascending scores through numpy's generic introsort), ``argsort_native`` (``np.argsort`` of float64 in
        this process) or ``argsort_stable`` (ties in column order); see the module docstring.

    Returns
    -------
    np.ndarray
        (R, M) ranks in 1..M; every row of an ``argsort*`` ranking is a permutation of 1..M.

    Examples
    --------
    >>> fold_ranks(np.array([[0.9, 0.5, 0.9]]), "average").tolist()
    [[1.5, 3.0, 1.5]]
    >>> fold_ranks(np.array([[0.9, 0.5, 0.9]]), "argsort_stable").tolist()  # ascending: 0.9 first is rank 2
    [[2.0, 3.0, 1.0]]
    """
    from benchdesign.selection.ranking import average_ranks

    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[1] < 2:
        raise ValueError(f"values must be (rows, models >= 2), got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError("values hold NaN or infinite scores")
    if ranking == "average":
        return average_ranks(-v, axis=1)
    if ranking not in RANKINGS:
        raise ValueError(f"unknown ranking {ranking!r}; choose from {list(RANKINGS)}")
    m = v.shape[1]
    ascending = np.empty_like(v)
    for i, row in enumerate(v):
        if ranking == "argsort":
            order = np.argsort(row.astype(object))  # numpy's generic introsort (no SIMD path for objects)
        elif ranking == "argsort_stable":
            order = np.argsort(row, kind="stable")
        else:
            order = np.argsort(row)
        ascending[i, order] = np.arange(1, m + 1)  # the authors' t[np.argsort(t)] = 1..M: 1 = lowest accuracy
    return m + 1.0 - ascending


def dataset_ranks(cube: np.ndarray, ranking: str) -> np.ndarray:
    """Mean over folds of the fold ranks of an (n, F, M) score cube: (n, M), 1 = best.

    Parameters
    ----------
    cube : np.ndarray
        (n datasets, F folds, M models) higher-is-better scores.
    ranking : str
        One of ``RANKINGS`` ([`fold_ranks`][]).

    Returns
    -------
    np.ndarray
        (n, M) per-dataset mean ranks.

    Examples
    --------
    >>> cube = np.array([[[0.9, 0.9], [0.8, 0.9]]])  # 1 dataset, 2 folds, 2 models
    >>> dataset_ranks(cube, "average").tolist(), dataset_ranks(cube, "argsort_stable").tolist()
    ([[1.75, 1.25]], [[1.5, 1.5]])
    """
    n, f, m = cube.shape
    return fold_ranks(cube.reshape(n * f, m), ranking).reshape(n, f, m).mean(axis=1)


def tied_share(cube: np.ndarray) -> float:
    """Share of (dataset, fold) rows of an (n, F, M) cube in which at least two models tie exactly.

    Examples
    --------
    >>> tied_share(np.array([[[1.0, 1.0, 0.5], [1.0, 0.9, 0.5]]]))
    0.5
    """
    s = np.sort(cube.reshape(-1, cube.shape[-1]), axis=1)
    return float((np.diff(s, axis=1) == 0).any(axis=1).mean())


# ------------------------------------------------------------------------------------------------ protocols

def authors_pools(n: int, n_trials: int, alpha: float, seed: int = AUTHORS_SEED) -> tuple[list[np.ndarray],
                                                                                           np.random.RandomState]:
    """The pools of the authors' ``testing_pipeline`` and the global generator's state after them.

    ``np.random.seed(seed)`` then, per trial, ``np.sort(np.random.choice(np.arange(n, dtype='int16'),
    int(n * ratio), replace=False))``; a ``RandomState`` here stands for numpy's global one (same stream).

    Parameters
    ----------
    n : int
        Number of datasets (in sorted name order).
    n_trials : int
        Trials (``test_iter``).
    alpha : float
        Pool share (``ratio``).
    seed : int
        ``random_state`` of ``testing_pipeline``.

    Returns
    -------
    tuple[list[np.ndarray], np.random.RandomState]
        The pools (sorted row indices) and the generator, positioned where Random's draws start.

    Examples
    --------
    >>> pools, rs = authors_pools(10, 2, 0.8)
    >>> [p.size for p in pools]
    [8, 8]
    """
    rs = np.random.RandomState(seed)
    pools = [np.sort(rs.choice(np.arange(n, dtype="int16"), int(n * alpha), replace=False)).astype(np.intp)
             for _ in range(n_trials)]
    return pools, rs


def authors_random_subsets(pools: Sequence[np.ndarray], ks: Sequence[int],
                           rs: np.random.RandomState) -> list[dict[int, np.ndarray]]:
    """Random's subsets in the authors' loop order: sizes outside, trials inside, one draw each.

    ``rand_ind_method`` without ``random_state``: ``np.sort(np.random.choice(np.arange(pool size), k,
    replace=False))`` mapped to the pool's rows (``indexes_list[i][indxs]``).

    Parameters
    ----------
    pools : Sequence[np.ndarray]
        The trials' pools ([`authors_pools`][]).
    ks : Sequence[int]
        Subset sizes, in the authors' order.
    rs : np.random.RandomState
        The generator after the pools.

    Returns
    -------
    list[dict[int, np.ndarray]]
        Per trial, k -> the chosen rows.

    Examples
    --------
    >>> pools, rs = authors_pools(10, 2, 0.8)
    >>> subsets = authors_random_subsets(pools, [2, 3], rs)
    >>> [sorted(s) for s in subsets], all(np.isin(subsets[0][3], pools[0]))
    ([[2, 3], [2, 3]], True)
    """
    out: list[dict[int, np.ndarray]] = [{} for _ in pools]
    for k in ks:
        for i, pool in enumerate(pools):
            out[i][k] = pool[np.sort(rs.choice(np.arange(pool.shape[0]), k - (k == 110), replace=False))]
    return out


def selections(protocol: str, strategy: str, X: np.ndarray, settings: dict, seed: int
               ) -> Iterator[tuple[int, dict[int, np.ndarray]]]:
    """``(trial, {k: rows})`` of one strategy under one protocol (one draw per trial).

    Parameters
    ----------
    protocol : str
        ``project`` (``dataset_pool_draws`` with the pipeline's seed) or ``authors`` (the authors' pools and
        Random draws, [`authors_pools`][]).
    strategy : str
        A strategy of ``benchdesign.selection.strategies``.
    X : np.ndarray
        (n, p) representation, rows in the order of the ranks.
    settings : dict
        ``trial_settings`` of the config (ks, n_trials, alpha, options, standardize).
    seed : int
        The config's seed (project draws; k-means under the authors' pools).

    Yields
    ------
    tuple[int, dict[int, np.ndarray]]
        The trial and its subsets.
    """
    from benchdesign.selection.protocol import dataset_pool_draws, selection_orders, standardize_rows

    ks, n_trials, alpha = settings["ks"], settings["n_trials"], settings["alpha"]
    if protocol == "project":
        for trial, _, by_draw in dataset_pool_draws(X, strategy, ks, n_trials, alpha, seed, settings["options"],
                                                    settings.get("standardize", "all"), 1):
            yield trial, by_draw[0]
        return
    if protocol != "authors":
        raise ValueError(f"unknown protocol {protocol!r}; choose from {list(PROTOCOLS)}")
    pools, rs = authors_pools(X.shape[0], n_trials, alpha)
    if strategy == "random":
        yield from enumerate(authors_random_subsets(pools, ks, rs))
        return
    per_pool = settings.get("standardize", "all") == "pool"
    X_all = standardize_rows(X)
    for trial, pool in enumerate(pools):
        X_trial = standardize_rows(X, pool) if per_pool else X_all
        rng = np.random.default_rng([seed, trial])
        yield trial, selection_orders(strategy, X_trial, pool, ks, rng, settings["options"])


def score_selections(subsets: Sequence[tuple[int, dict[int, np.ndarray]]], ranks: np.ndarray) -> pd.DataFrame:
    """Trial-wise AUC over k of the MAE and Spearman of ``R_S`` against ``R_D`` (all datasets).

    Parameters
    ----------
    subsets : Sequence[tuple[int, dict[int, np.ndarray]]]
        ``(trial, {k: rows})`` of [`selections`][].
    ranks : np.ndarray
        (n, M) dataset ranks.

    Returns
    -------
    pd.DataFrame
        One row per trial: ``trial, mae, spearman`` (AUCs by ``benchdesign.selection.trial_auc``).

    Examples
    --------
    >>> ranks = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, 2.0]])
    >>> score_selections([(0, {1: np.array([0]), 3: np.array([0, 1, 2])})], ranks).round(3).to_dict("records")
    [{'trial': 0, 'mae': 0.667, 'spearman': 1.0}]
    """
    from benchdesign.selection.aggregation import trial_auc
    from benchdesign.selection.metrics import rank_metrics
    from benchdesign.selection.ranking import mean_ranks

    reference = mean_ranks(ranks)
    rows = []
    for trial, by_k in subsets:
        for k, chosen in by_k.items():
            values = rank_metrics(mean_ranks(ranks, chosen), reference)
            rows += [(trial, k, metric, float(values[metric])) for metric in METRICS]
    long = pd.DataFrame(rows, columns=["trial", "k", "metric", "value"]).assign(
        domain="tsc", variation="dataset_pool", strategy="s", representation="r")
    auc = trial_auc(long)
    return auc.pivot(index="trial", columns="metric", values="auc").reset_index()[["trial", *METRICS]]


def summarise(per_trial: dict[str, pd.DataFrame], setting: dict) -> pd.DataFrame:
    """One row per strategy of one setting: mean AUCs, the gain over Random with its paired standard error.

    Parameters
    ----------
    per_trial : dict[str, pd.DataFrame]
        Strategy -> [`score_selections`][] of its trials; must hold ``random``.
    setting : dict
        Columns that name the setting (n_datasets, ranking, protocol, representation, ...).

    Returns
    -------
    pd.DataFrame
        Columns ``*setting, strategy, auc_mae, auc_mae_sd, auc_spearman, random_auc_mae, gain_mae, gain_mae_se,
        best, n_trials``; ``best`` is the lowest AUC(MAE) of the setting's non-random strategies.

    Examples
    --------
    >>> t = {"random": pd.DataFrame({"trial": [0, 1], "mae": [3.0, 5.0], "spearman": [0.5, 0.5]}),
    ...      "x": pd.DataFrame({"trial": [0, 1], "mae": [2.0, 3.0], "spearman": [0.7, 0.9]})}
    >>> summarise(t, {"ranking": "average"})[["strategy", "auc_mae", "gain_mae", "gain_mae_se", "best"]]
      strategy  auc_mae  gain_mae  gain_mae_se  best
    0   random      4.0       0.0          0.0   2.5
    1        x      2.5       1.5          0.5   2.5
    """
    random = per_trial["random"].set_index("trial")["mae"]
    rows = []
    for strategy, frame in per_trial.items():
        mae = frame.set_index("trial")["mae"]
        diff = (random - mae).to_numpy()
        rows.append({**setting, "strategy": strategy, "auc_mae": mae.mean(), "auc_mae_sd": mae.std(ddof=0),
                     "auc_spearman": frame["spearman"].mean(), "random_auc_mae": random.mean(),
                     "gain_mae": diff.mean(), "gain_mae_se": diff.std(ddof=1) / np.sqrt(diff.size),
                     "n_trials": diff.size})
    out = pd.DataFrame(rows)
    others = out.loc[out["strategy"] != "random", "auc_mae"]
    out.insert(out.columns.get_loc("n_trials"), "best", others.min() if len(others) else np.nan)
    return out


# ------------------------------------------------------------------------------------------------- the data

def read_bakeoff(mirror: Path) -> tuple[pd.DataFrame, list[str]]:
    """The bake-off scores of the mirror (``tsc/bakeoff2023``) and the authors' model order.

    Returns
    -------
    tuple[pd.DataFrame, list[str]]
        Long scores (``load_tsc_bakeoff``: the 112 datasets in every file) and the models in the order of the
        sorted file names (the order of the authors' score dict, as their notebook's table shows it).
    """
    from benchdesign.data import load_tsc_bakeoff

    files = sorted((mirror / "tsc" / "bakeoff2023").glob(f"*{SUFFIX}"))
    if not files:
        raise SystemExit(f"no *{SUFFIX} under {mirror / 'tsc' / 'bakeoff2023'}; pass --mirror")
    return load_tsc_bakeoff(files), [f.name[: -len(SUFFIX)] for f in files]


def offline_datasets() -> set[str]:
    """The datasets with offline series: those of the package's UCR checksum manifest (105)."""
    from benchdesign.domains.tsc.data import load_checksums

    return set(load_checksums()["dataset"])


def numpy_note() -> str:
    """numpy's version and the SIMD extensions it found (what ``argsort_native`` depends on)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_features__ as features
    found = [name for name in ("AVX512_SKX", "AVX512_ICL", "AVX512_SPR", "AVX2") if features.get(name)]
    return f"{np.__version__} ({' '.join(found) or 'no AVX2/AVX-512'})"


def load_config(paths: Sequence[str]) -> dict:
    """The merged config files (later ones override), as the pipeline reads them."""
    import yaml

    config: dict = {}

    def merge(base: dict, extra: dict) -> dict:
        for key, value in extra.items():
            base[key] = merge(dict(base.get(key) or {}), value) if isinstance(value, dict) else value
        return base

    for path in paths:
        config = merge(config, yaml.safe_load(Path(path).read_text()) or {})
    return config


def run_grid(cube: np.ndarray, datasets: list[str], rankings: Sequence[str], protocols: Sequence[str],
             representation: str, X: np.ndarray | None, strategies: Sequence[str], config: dict) -> pd.DataFrame:
    """Every (ranking, protocol, strategy) on one dataset set.

    Rows are in the pipeline's dataset order (its pools are row indices); the authors' protocol sorts them by
    name first, as their notebook does.  The selections are shared by the rankings, except on the oracle,
    whose features are the ranks themselves.

    Parameters
    ----------
    cube : np.ndarray
        (n, F, M) scores, higher is better.
    datasets : list[str]
        The n dataset names, in the pipeline's order.
    rankings, protocols, strategies : Sequence[str]
        What to run (``RANKINGS``, ``PROTOCOLS``, strategy names; ``random`` among them).
    representation : str
        ``oracle`` or the name of ``X``.
    X : np.ndarray | None
        (n, p) features in the order of ``datasets`` (None for the oracle).
    config : dict
        The merged config (``seed``, ``protocol``).

    Returns
    -------
    pd.DataFrame
        [`summarise`][] rows of every (ranking, protocol), with ``tied_cells`` and ``numpy``.
    """
    from benchdesign.selection.representations import oracle_representation
    from benchdesign.workflow.config import trial_settings

    tied = tied_share(cube)
    parts = []
    for protocol in protocols:
        order = np.argsort(np.array(datasets, dtype=object)) if protocol == "authors" else np.arange(len(datasets))
        names = [datasets[i] for i in order]
        ranks = {r: dataset_ranks(cube[order], r) for r in rankings}
        per_trial: dict[str, dict[str, pd.DataFrame]] = {r: {} for r in rankings}
        for strategy in strategies:
            settings = trial_settings(config, "tsc", strategy)
            if representation == "oracle":
                for r in rankings:
                    Xr = oracle_representation(pd.DataFrame(ranks[r], index=names)).to_numpy(dtype=float)
                    chosen = list(selections(protocol, strategy, Xr, settings, config["seed"]))
                    per_trial[r][strategy] = score_selections(chosen, ranks[r])
            else:
                chosen = list(selections(protocol, strategy, X[order], settings, config["seed"]))
                for r in rankings:
                    per_trial[r][strategy] = score_selections(chosen, ranks[r])
            print(f"  n={len(datasets)} {protocol:8s} {strategy:15s} "
                  + "  ".join(f"{r} {per_trial[r][strategy]['mae'].mean():.3f}" for r in rankings), flush=True)
        for r in rankings:
            parts.append(summarise(per_trial[r], {"n_datasets": len(datasets), "ranking": r, "protocol": protocol,
                                                  "representation": representation}))
    out = pd.concat(parts, ignore_index=True)
    out["tied_cells"] = tied
    out["numpy"] = numpy_note()
    return out


def _cube(scores: pd.DataFrame, keep: set[str] | None, models: list[str]) -> tuple[np.ndarray, list[str]]:
    from benchdesign.selection.protocol import score_cube

    datasets = [d for d in pd.unique(scores["dataset"]) if keep is None or d in keep]  # the pipeline's order
    return score_cube(scores, datasets, models), datasets


def _write(frame: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, float_format="%.6g")
    print(f"wrote {path}")


def _print_best(frame: pd.DataFrame) -> None:
    keys = ["n_datasets", "representation", "ranking", "protocol"]
    for key, block in frame.groupby(keys, sort=False):
        rest = block[block["strategy"] != "random"]
        best = rest.loc[rest["auc_mae"].idxmin()] if len(rest) else None
        line = f"{', '.join(str(x) for x in key)}: Random {block['random_auc_mae'].iat[0]:.3f}"
        if best is not None:
            line += (f", best {best['strategy']} {best['auc_mae']:.3f}, gain {best['gain_mae']:.3f} "
                     f"(se {best['gain_mae_se']:.3f})")
        print(line)


# ----------------------------------------------------------------------------------------------- sub-commands

def cmd_ties(args: argparse.Namespace) -> int:
    """The tie convention on the 105 offline datasets with a pipeline run's representation."""
    from benchdesign.workflow.io import read_representation

    scores, models = read_bakeoff(Path(args.mirror))
    config = load_config(args.config)
    cube, datasets = _cube(scores, offline_datasets(), models)
    X = read_representation(args.representation, datasets)
    config = _with_trials(config, args.trials)
    out = run_grid(cube, datasets, args.rankings, args.protocols, args.name, X, args.strategies, config)
    _print_best(out)
    _write(out, Path(args.out))
    return 0


def cmd_datasets(args: argparse.Namespace) -> int:
    """Random and the oracle on all 112 datasets and on the 105 offline ones."""
    scores, models = read_bakeoff(Path(args.mirror))
    config = _with_trials(load_config(args.config), args.trials)
    parts = []
    for keep in (None, offline_datasets()):
        cube, datasets = _cube(scores, keep, models)
        parts.append(run_grid(cube, datasets, args.rankings, args.protocols, "oracle", None, args.strategies,
                              config))
    out = pd.concat(parts, ignore_index=True)
    _print_best(out)
    _write(out, Path(args.out))
    return 0


def _with_trials(config: dict, trials: int | None) -> dict:
    if trials is not None:
        protocol = dict(config.get("protocol") or {})
        protocol["n_trials"] = int(trials)
        config = {**config, "protocol": protocol}
    return config


def cmd_minirocket(args: argparse.Namespace) -> int:
    """aeon's MiniRocket against sktime's MiniRocketMultivariate, fitted identically."""
    if importlib.util.find_spec("aeon") is None:
        print("aeon is not installed here (it is not a project dependency, and installing it into the project's "
              ".venv would replace numpy). Run in a separate venv:\n"
              "  python3.11 -m venv ../aeon-venv\n"
              "  ../aeon-venv/bin/pip install aeon \"sktime==<the .venv's sktime>\" pyyaml\n"
              "  PYTHONPATH=src ../aeon-venv/bin/python benchmarks/tsc_gap_factors.py minirocket",
              file=sys.stderr)
        return 3
    from importlib.metadata import version

    from aeon.transformations.collection.convolution_based import MiniRocket
    from sktime.transformations.rocket import MiniRocketMultivariate

    from benchdesign.domains.tsc.data import read_ucr_ts
    from benchdesign.domains.tsc.minirocket import fit_minirocket, fit_sample, minirocket_features, pad_or_trim
    from benchdesign.domains.tsc.series import subsample_indices

    root = Path(importlib.util.find_spec("sktime").submodule_search_locations[0]) / "datasets" / "data"
    data = {name: np.vstack([read_ucr_ts(root / name / f"{name}_{split}.ts")[0] for split in ("TRAIN", "TEST")])
            for name in BUNDLED}
    Z = np.ascontiguousarray(fit_sample(data, 50, args.length, args.seed)[:, None, :], dtype=np.float32)
    sk = MiniRocketMultivariate(num_kernels=args.kernels, random_state=args.seed).fit(Z)
    project = fit_minirocket(Z[:, 0, :], args.kernels, random_state=args.seed)  # the pipeline's fit and transform
    ae = MiniRocket(n_kernels=args.kernels, random_state=args.seed).fit(Z)
    sk_params, ae_params = sk.parameters, ae.parameters
    shared = min(len(sk_params), len(ae_params))
    same_params = [bool(np.array_equal(np.asarray(a), np.asarray(b))) for a, b in zip(sk_params[:shared],
                                                                                       ae_params[:shared])]
    biases_sk, biases_ae = np.asarray(sk_params[-1], dtype=float), np.asarray(ae_params[-1], dtype=float)
    bias_diff = (np.abs(biases_sk - biases_ae) if biases_sk.shape == biases_ae.shape
                 else np.full(1, np.nan))
    rows = []
    for name, X in data.items():
        X = X[subsample_indices(X.shape[0], args.series, np.random.default_rng(args.seed))]
        Zd = np.ascontiguousarray(pad_or_trim(X, args.length)[:, None, :], dtype=np.float32)
        Fs = np.asarray(sk.transform(Zd), dtype=float)
        Fa = np.asarray(ae.transform(Zd), dtype=float)
        if Fs.shape != Fa.shape:
            rows.append({"dataset": name, "n_series": X.shape[0], "features_sktime": Fs.shape[1],
                         "features_aeon": Fa.shape[1]})
            continue
        Fp = minirocket_features(X, project).to_numpy()
        differ = (Fs != Fa).any(axis=0)
        rows.append({"dataset": name, "n_series": X.shape[0], "length": X.shape[1],
                     "features_sktime": Fs.shape[1], "features_aeon": Fa.shape[1],
                     "features_differing": int(differ.sum()), "cells_differing": int((Fs != Fa).sum()),
                     "max_abs_diff": float(np.abs(Fs - Fa).max()),
                     "mean_vector_max_abs_diff": float(np.abs(Fs.mean(axis=0) - Fa.mean(axis=0)).max()),
                     "cells_differing_project_aeon": int((Fp != Fa).sum()) if Fp.shape == Fa.shape else -1})
    out = pd.DataFrame(rows)
    out["fit_series"] = Z.shape[0]
    out["kernels"] = args.kernels
    out["parameters_equal"] = " ".join("1" if s else "0" for s in same_params)
    out["biases_differing"] = int(np.count_nonzero(bias_diff)) if np.isfinite(bias_diff).all() else -1
    out["bias_max_abs_diff"] = float(bias_diff.max())
    out["versions"] = f"aeon=={version('aeon')} sktime=={version('sktime')} numpy=={np.__version__}"
    print(out.to_string(index=False))
    _write(out, Path(args.out))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the sub-command and run it."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--mirror", default=str(REPO.parent / "shared" / "data"))
    common.add_argument("--config", nargs="+", default=[str(REPO / "config" / "config.yaml")],
                        help="config files, merged in order (the protocol and the seed)")
    common.add_argument("--rankings", nargs="+", choices=RANKINGS, default=list(RANKINGS))
    common.add_argument("--protocols", nargs="+", choices=PROTOCOLS, default=list(PROTOCOLS))
    common.add_argument("--trials", type=int, default=None, help="override protocol.n_trials (default: config)")
    strategies = ["random", "kmeans", "fafi_cosine", "fafi_euclidean", "a_optimal", "d_optimal"]
    ties = sub.add_parser("ties", parents=[common], help="argsort against average ranks (105 datasets)")
    ties.add_argument("--representation", required=True, help="a run's results/prepared/tsc/representation_*.csv")
    ties.add_argument("--name", default="minirocket", help="the representation's name in the CSV")
    ties.add_argument("--strategies", nargs="+", default=strategies)
    ties.add_argument("--out", default=str(RESULTS / "tsc_gap_ties.csv"))
    ties.set_defaults(func=cmd_ties)
    ds = sub.add_parser("datasets", parents=[common], help="Random and the oracle, 112 against 105 datasets")
    ds.add_argument("--strategies", nargs="+", default=strategies)
    ds.add_argument("--out", default=str(RESULTS / "tsc_gap_datasets.csv"))
    ds.set_defaults(func=cmd_datasets)
    mr = sub.add_parser("minirocket", help="aeon's MiniRocket against sktime's MiniRocketMultivariate")
    mr.add_argument("--series", type=int, default=200, help="series per dataset transformed")
    mr.add_argument("--length", type=int, default=512, help="padded or trimmed length (fit and transform)")
    mr.add_argument("--kernels", type=int, default=10_000)
    mr.add_argument("--seed", type=int, default=42)
    mr.add_argument("--out", default=str(RESULTS / "tsc_gap_minirocket.csv"))
    mr.set_defaults(func=cmd_minirocket)
    args = parser.parse_args(argv)
    if "random" not in getattr(args, "strategies", ["random"]):
        parser.error("--strategies must include random (the gains are over it)")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
