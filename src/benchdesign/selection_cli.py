"""``benchdesign select``, ``benchdesign evaluate``, ``benchdesign agreement``: dataset selection on
a user's own benchmark (the Python API behind them is :mod:`benchdesign.selection.api`).

Same conventions as ``split``: exit code 0 on success, 2 for invalid input (message on stderr,
nothing written), outputs written atomically once everything is computed; progress on stderr.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import sys
from pathlib import Path

__all__ = ["add_select_parser", "add_evaluate_parser", "add_agreement_parser", "add_predict_parser",
           "SELECTION_SUBCOMMANDS"]


OUTPUT_RULE = (
    "Outputs: a file that exists is replaced (atomically, keeping its mode), as in every benchdesign command; "
    "an output that is an input or another output, a directory where a file is expected (a file where "
    "evaluate's --out folder is expected) or a FIFO/device is refused before any work."
)


def _features(paths: list[str], args: argparse.Namespace, datasets=None, command: str = "evaluate"
              ) -> dict[str, "object"]:
    """Feature tables by name (file stem; error when two files share one).  Given the scores' ``datasets``,
    rows of other datasets are dropped with a note on stderr: the scores define the benchmark."""
    from benchdesign.domains import read_feature_table

    tables = {}
    for path in paths:
        name = Path(path).name.split(".")[0]
        if name in tables:
            raise ValueError(f"two feature files are named {name!r}; rename one")
        table = read_feature_table(path, dataset_column=args.dataset_column, transpose=args.transpose_features)
        if datasets is not None:
            table = _only_scored(table, set(datasets), path, command)
        tables[name] = table
    return tables


def _only_scored(table, datasets: set, path: str, command: str):
    """``table`` without the rows of datasets that have no scores (noted on stderr)."""
    extra = [d for d in table.index if d not in datasets]
    if extra:
        shown = ", ".join(map(repr, extra[:5])) + (f" and {len(extra) - 5} more" if len(extra) > 5 else "")
        print(f"benchdesign {command}: note: {path}: ignoring {len(extra)} row(s) of dataset(s) not in the "
              f"scores ({shown}); the scores define the benchmark", file=sys.stderr)
    return table.loc[[d for d in table.index if d in datasets]]


def _check_out_folder(out: str, inputs: dict) -> None:
    """evaluate's --out must be a folder (created if absent), not a file, nor hold an input it would replace."""
    from benchdesign.files import check_writable

    if Path(out).exists() and not Path(out).is_dir():
        raise ValueError(f"--out {out} is a file; evaluate writes a folder of tables and figures: give a folder "
                         "path (files of the same names in it are replaced)")
    check_writable("--out", out)
    folder = Path(out).resolve()
    for option, paths in inputs.items():
        for path in [paths] if isinstance(paths, str) else paths:
            if Path(path).resolve().parent == folder and Path(path).name.split(".")[0] in _EVALUATE_STEMS:
                raise ValueError(f"--out {out} holds the input {option} {path}, which evaluate would replace; "
                                 "choose another folder")


_EVALUATE_STEMS = {"trials", "curves", "coverage", "p_eff", "provenance", "recommendation", "table1_auc",
                   "table2_kstar", "table3_wilcoxon_holm", "table3_summary", "conclusion_stability"}


def _read_scores(path: str, args: argparse.Namespace, higher_is_better: bool, **limits):
    """The scores file read with the command's column and layout options (``add_table_options``)."""
    from benchdesign.domains import read_scores_table

    return read_scores_table(path, higher_is_better, dataset_column=args.dataset_column,
                             model_column=args.model_column, score_column=args.score_column,
                             fold_column=args.fold_column, transpose=args.transpose_scores, **limits)


def add_table_options(p: argparse.ArgumentParser, features: bool) -> None:
    """The options that say how the input tables are laid out: column names and transposition."""
    group = p.add_argument_group(
        "input layout", "files whose columns have other names, or whose columns are the datasets")
    group.add_argument("--dataset-column", default="dataset", metavar="NAME",
                       help="the column naming the datasets (default 'dataset')")
    group.add_argument("--model-column", default="model", metavar="NAME",
                       help="long scores: the column naming the models (default 'model')")
    group.add_argument("--score-column", default="score", metavar="NAME",
                       help="long scores: the column holding the scores (default 'score')")
    group.add_argument("--fold-column", default="fold", metavar="NAME",
                       help="the column numbering the folds, if any (default 'fold')")
    group.add_argument("--transpose-scores", action="store_true",
                       help="the scores file has one row per model and one column per dataset (its first column "
                            "names the models; no folds)")
    if features:
        group.add_argument("--transpose-features", action="store_true",
                           help="the feature files have one row per feature and one column per dataset (first "
                                "column: the feature names)")


def _strata_option(spec: str | None, datasets, strategies) -> dict:
    """``{"strata": labels}`` from ``--strata FILE:COLUMN`` (a CSV with a 'dataset' column), one label per
    entry of ``datasets`` in their order; ``{}`` without ``--strata`` (an error if ``stratified`` is asked)."""
    if spec is None:
        if "stratified" in strategies:
            raise ValueError("the 'stratified' strategy needs --strata FILE:COLUMN (a label per dataset)")
        return {}
    from benchdesign.domains.table import read_strata

    path, sep, column = spec.rpartition(":")
    if not sep or not path or not column:
        raise ValueError(f"--strata {spec!r} must be FILE:COLUMN")
    return {"strata": read_strata(path, column, list(datasets))}


def _select_command(args: argparse.Namespace) -> int:
    from benchdesign.files import check_output_paths, is_stdout, write_atomic
    from benchdesign.selection.api import select_datasets
    from benchdesign.selection.classes import class_label, selection_class

    out = None if is_stdout(args.out) else args.out  # `--out -`: the list to stdout, as without --out
    report_path = args.report or (f"{out}.json" if out else None)
    check_output_paths({"--out": out, "--report": report_path}, {"--features": args.features, "--scores": args.scores})
    _refuse_duplicates(args.include or (), "--include")
    _refuse_duplicates(args.exclude or (), "--exclude")
    scores = _select_scores(args, report_path)

    features, representation = _select_features(args, scores)
    result = select_datasets(
        features, args.k, strategy=args.strategy, include=args.include or (),
        exclude=args.exclude or (), random_state=args.seed, standardize=not args.no_standardize,
        options={"start": args.fafi_start, **_strata_option(args.strata, features.index, [args.strategy])},
    )
    cls = selection_class(args.strategy, representation)
    source = args.features or f"{args.scores} (the models' ranks)"
    report = {"features": args.features, "representation": representation, **result.report(), "class": cls,
              "seed": args.seed}
    if args.strategy.startswith("fafi"):
        report["fafi_start"] = args.fafi_start
    if args.estimator is not None:
        from benchdesign.selection.estimators import fit_subset_estimator

        fitted = fit_subset_estimator(scores, result.datasets, args.higher_is_better, args.estimator, args.level)
        report["estimator"] = fitted.to_dict()
    if scores is not None:
        report["scores"] = args.scores
    listing = "".join(f"{name}\n" for name in result.datasets)
    if out:
        write_atomic(out, listing)
        write_atomic(args.report or f"{out}.json", json.dumps(report, indent=2) + "\n")
    else:
        sys.stdout.write(listing)
        if args.report:
            write_atomic(args.report, json.dumps(report, indent=2) + "\n")
    print(f"{args.strategy} on {source}: class {class_label(cls)} (classes: a priori uses the datasets' "
          "features only; informed also the models' scores, e.g. the scores file itself, an oracle.csv of model "
          "ranks or NAME+seen.csv)", file=sys.stderr)
    print(f"covering radius ({result.metric}) of the {args.k} datasets: {result.covering_radius:.4g} "
          f"(pool diameter {result.diameter:.4g}); {len(result.random_radii)} random subsets of {args.k} from the "
          f"same pool: median {result.random_median_radius:.4g}, {result.share_random_worse:.0%} of them cover the "
          "pool worse (a larger radius)", file=sys.stderr)
    if args.estimator is not None:
        half = fitted.half_width
        print(f"estimator {fitted.estimator} fitted on {len(fitted.models)} models and {fitted.n_datasets} datasets: "
              f"a new model's full-benchmark win share within ±{half:.3g} at level {fitted.level:g} (leave-one-model-"
              f"out); `benchdesign predict --estimator {report_path} --scores NEW.csv` ranks new models"
              if math.isfinite(half) else
              f"estimator {fitted.estimator} fitted on {len(fitted.models)} models: too few models for an interval "
              f"at level {fitted.level:g} (need (M + 1) x level <= M); lower --level", file=sys.stderr)
    return 0


def _select_features(args: argparse.Namespace, scores):
    """select's representation: the feature file (a priori, unless named as informed), or without one the
    scores' model ranks (the oracle representation: informed). Returns (datasets x features, its name)."""
    if args.features is None:
        from benchdesign.selection.ranking import rank_scores
        from benchdesign.selection.representations import oracle_representation

        return oracle_representation(rank_scores(scores, args.higher_is_better)), "oracle"
    from benchdesign.domains import read_feature_table

    features = read_feature_table(args.features, dataset_column=args.dataset_column,
                                  transpose=args.transpose_features)
    if scores is not None:  # the scores define the benchmark: only scored datasets can be chosen
        features = _only_scored(features, set(scores["dataset"]), args.features, "select")
    return features, Path(args.features).name.split(".")[0]


def _select_scores(args: argparse.Namespace, report_path: str | None):
    """select's scores (long frame) when they are used: to select from (no --features) or to fit an
    estimator (--estimator); else None. Errors for options without their partners."""
    if args.features is None and args.scores is None:
        raise ValueError("give --features FILE (select from the datasets' features: a priori) or --scores FILE "
                         "(select from the models' scores: informed)")
    if args.estimator is None and args.features is not None:
        given = [name for name, value in (("--scores", args.scores), ("--level", args.level),
                                          ("--higher-is-better/--lower-is-better", args.higher_is_better))
                 if value is not None]
        if given:
            raise ValueError(f"{' and '.join(given)} {'goes' if len(given) == 1 else 'go'} only with --estimator NAME "
                             "(fit an estimator on the scores) or without --features (select from the scores)")
        return None
    if args.estimator is None and args.level is not None:
        raise ValueError("--level goes only with --estimator NAME (fit an estimator on the scores)")
    if args.scores is None or args.higher_is_better is None:
        raise ValueError((f"--estimator {args.estimator}" if args.estimator else "selecting from the scores")
                         + " needs --scores FILE (the models already run) and --higher-is-better or "
                         "--lower-is-better")
    if args.estimator is not None and report_path is None:
        raise ValueError(f"--estimator {args.estimator} writes the fitted estimator into the JSON report: give --out "
                         "FILE (report FILE.json) or --report FILE.json")
    from benchdesign.selection.options import ESTIMATOR_LEVEL

    args.level = ESTIMATOR_LEVEL if args.level is None else args.level
    return _read_scores(args.scores, args, args.higher_is_better)


def add_select_parser(subparsers: argparse._SubParsersAction) -> None:
    """``benchdesign select``: k datasets of a feature table, in selection order."""
    from benchdesign.selection.options import ESTIMATOR_LEVEL, ESTIMATOR_NAMES, FAFI_STARTS, SELECT_STRATEGY
    from benchdesign.selection.strategies import STRATEGIES

    p = subparsers.add_parser(
        "select", help="choose k datasets of a benchmark from their features (rank-preserving selection)",
        description=(
            "Print the k chosen datasets in selection order, one per line (for the greedy strategies every "
            "prefix is that strategy's choice of its size, so the first j are its best j-subset), and write a "
            "JSON report: strategy, standardisation, covering radius of the chosen set over the pool."
        ),
    )
    p.add_argument("--features", help="feature CSV: a 'dataset' column and numeric columns (a priori); without it, "
                                      "the datasets are chosen from --scores, their models' ranks (informed)")
    p.add_argument("-k", type=int, required=True, help="number of datasets to choose")
    p.add_argument("--strategy", choices=list(STRATEGIES), default=SELECT_STRATEGY,
                   help=f"default {SELECT_STRATEGY}: the highest share of held-out rho >= 0.9 over NLP, RecSys and "
                        "TSC on the tuning seeds (docs/guides/select.md); fafi_cosine is the paper's")
    p.add_argument("--include", nargs="+", help="datasets that must be chosen (they come first)")
    p.add_argument("--exclude", nargs="+", help="datasets that must not be chosen")
    p.add_argument("--seed", type=int, default=0, help="seed of the random and k-means strategies")
    p.add_argument("--strata", metavar="FILE:COLUMN",
                   help="labels of the 'stratified' strategy: COLUMN of a CSV with a 'dataset' column")
    p.add_argument("--no-standardize", action="store_true", help="use the features as they are (no z-score)")
    p.add_argument("--fafi-start", choices=list(FAFI_STARTS), default=FAFI_STARTS[0],
                   help="farthest-first (without --include) starts at the dataset nearest the pool mean "
                        "(default) or farthest from it (the paper's code)")
    p.add_argument("--out", help="write the list here (default: stdout) and the report to OUT.json (an existing "
                                 "file is replaced)")
    p.add_argument("--report", help="JSON report path (default OUT.json; without --out: none)")
    est = p.add_argument_group("estimator", "fit an estimator from the chosen datasets' scores to the full benchmark "
                                            "on the models already run; written into the report's 'estimator' entry "
                                            "for `benchdesign predict`")
    est.add_argument("--estimator", choices=list(ESTIMATOR_NAMES),
                     help="auto: of mean (the paper's unweighted mean rank), anchor (each dataset weighted by the "
                          "share of the benchmark it stands for), ridge (regression on the seen models) and gaussian "
                          "(conditional mean of the other datasets), the one with the least leave-one-model-out "
                          "error")
    est.add_argument("--scores", help="scores CSV of the models already run (long or wide); its datasets are the "
                                      "full benchmark and only they can be chosen; without --features, the "
                                      "datasets are chosen from it")
    est.add_argument("--level", type=float, default=None,
                     help=f"coverage level of the interval (default {ESTIMATOR_LEVEL})")
    _add_direction(est, required=False, default=None)
    add_table_options(p, features=True)
    p.set_defaults(func=_select_command)


def _add_direction(p: argparse.ArgumentParser, required: bool, default: bool | None = True) -> None:
    """--higher-is-better / --lower-is-better: the direction of the scores (unless required, ``default``)."""
    direction = p.add_mutually_exclusive_group(required=required)
    direction.add_argument("--higher-is-better", dest="higher_is_better", action="store_true",
                           default=None if required else default, help="scores: higher is better")
    direction.add_argument("--lower-is-better", dest="higher_is_better", action="store_false",
                           help="scores: lower is better (errors, losses)")


def _figure_bytes(fig, fmt: str) -> bytes:
    from benchdesign.selection.plotting import write_figure

    buffer = io.BytesIO()
    write_figure(fig, buffer, fmt)
    return buffer.getvalue()


def _evaluate_command(args: argparse.Namespace) -> int:
    from benchdesign.domains import file_provenance
    from benchdesign.files import write_atomic
    from benchdesign.selection.api import evaluate_benchmark, evaluation_figures
    from benchdesign.selection.conclusions import dataset_scores
    from benchdesign.selection.ranking import rank_scores

    k_min, k_max = args.k
    if k_min > k_max:
        raise ValueError(f"--k {k_min} {k_max}: the first must not exceed the second")
    _check_out_folder(args.out, {"--scores": args.scores, "--features": args.features})
    scores = _read_scores(args.scores, args, args.higher_is_better)
    features = _features(args.features, args, dict.fromkeys(scores["dataset"]))

    from benchdesign.logs import logger

    def progress(message: str) -> None:  # on stderr unless --quiet (benchdesign.logs)
        logger("evaluate").info(f"benchdesign evaluate: {message}")

    result = evaluate_benchmark(
        scores, features, args.higher_is_better, strategies=args.strategies, n_trials=args.trials,
        pool_fraction=args.pool_fraction, ks=range(k_min, k_max + 1), random_state=args.seed, progress=progress,
        n_jobs=args.jobs,
        fafi_start=args.fafi_start, standardize=args.standardize, k_targets=args.k_target,
        options=_strata_option(args.strata, rank_scores(scores, args.higher_is_better).index, args.strategies),
        variation=args.variation, holdout_fraction=args.holdout_fraction, with_seen_ranks=args.with_seen_ranks,
        random_draws=args.random_draws,
    )
    progress("figures")
    figures = evaluation_figures(result, dataset_scores(scores), features, args.higher_is_better,
                                 random_state=args.seed)
    out = Path(args.out)
    files: dict[str, bytes] = {}
    for name, frame in result.frames.items():
        files[f"{name}.csv"] = frame.to_csv(index=False, float_format="%.10g", lineterminator="\n").encode()
    for name, text in result.markdown.items():
        files[f"{name}.md"] = text.encode()
    for name, fig in figures.items():
        for fmt in ("png", "pdf"):
            files[f"{name}.{fmt}"] = _figure_bytes(fig, fmt)
    files["recommendation.txt"] = (result.recommendation + "\n").encode()
    provenance = {"scores": file_provenance([args.scores])[0], "features": file_provenance(args.features),
                  "higher_is_better": args.higher_is_better, "trials": args.trials, "pool_fraction": args.pool_fraction,
                  "k": [k_min, k_max], "seed": args.seed, "fafi_start": args.fafi_start,
                  "standardize": args.standardize, "variation": args.variation, "random_draws": args.random_draws,
                  **({"holdout_fraction": args.holdout_fraction, "with_seen_ranks": args.with_seen_ranks}
                     if args.variation == "model_holdout" else {}),
                  **({"strata": args.strata} if args.strata else {}),
                  "strategies": sorted(set(result.frames["trials"]["strategy"]))}
    files["provenance.json"] = (json.dumps(provenance, indent=2) + "\n").encode()
    for name, data in files.items():
        write_atomic(out / name, data)
    print(result.recommendation)
    return 0


def add_evaluate_parser(subparsers: argparse._SubParsersAction) -> None:
    """``benchdesign evaluate``: the selection protocol on a user's benchmark (model holdout or the paper's)."""
    from benchdesign.selection.options import (
        BASELINE_STRATEGIES,
        FAFI_STARTS,
        HOLDOUT_FRACTION,
        RANDOM_DRAWS,
        STANDARDIZATIONS,
    )
    from benchdesign.selection.strategies import EVALUATE_STRATEGIES, STRATEGIES

    p = subparsers.add_parser(
        "evaluate", help="evaluate the selection strategies on your benchmark",
        description=(
            "Model-holdout protocol (default: each trial draws a pool of datasets and sets --holdout-fraction of "
            "the models aside; the selection sees only the others, the held-out models judge it) or the paper's "
            "dataset-pool protocol (section 5.1) on a scores CSV (long: dataset, model, [fold], score; or "
            "wide: dataset, [fold], one column per model) and feature CSVs (one representation each, named by "
            "the file stem: a priori, they use the datasets' features only; the oracle, informed by the (seen) "
            "models' scores, is added beside them). Writes Table 1/2/3-style CSV + Markdown (a class column: a "
            "priori or informed), "
            "curve, covering-radius, conclusion-stability and critical-difference figures, p_eff, "
            "recommendation.txt and .csv (which strategy for each --k-target k, against random: the a-priori "
            "class's answer, the informed class's beside it; each held-out ρ's number of models) and "
            "provenance.json (sha256 of the inputs) into --out."
        ),
    )
    p.add_argument("--scores", required=True, help="scores CSV")
    p.add_argument("--features", required=True, nargs="+", help="feature CSV(s)")
    _add_direction(p, required=True)
    others = [s for s in BASELINE_STRATEGIES if s not in EVALUATE_STRATEGIES]
    p.add_argument("--strategies", nargs="+", choices=list(STRATEGIES), default=list(EVALUATE_STRATEGIES),
                   help=f"default: {' '.join(EVALUATE_STRATEGIES)} (the paper's six and select's default; the "
                        f"baselines {' '.join(others)} only when named)")
    p.add_argument("--strata", metavar="FILE:COLUMN",
                   help="labels of the 'stratified' strategy: COLUMN of a CSV with a 'dataset' column")
    p.add_argument("--variation", choices=["model_holdout", "dataset_pool"], default="model_holdout",
                   help="model_holdout (default): judged by models the selection never saw; dataset_pool: the "
                        "paper's protocol, judged by the models whose scores the oracle used")
    p.add_argument("--holdout-fraction", type=float, default=HOLDOUT_FRACTION,
                   help=f"share of the models held out in every model_holdout trial (default {HOLDOUT_FRACTION}; "
                        "at least 2 models)")
    p.add_argument("--with-seen-ranks", action="store_true",
                   help="model_holdout: also run every feature table NAME as NAME+seen, the features with the seen "
                        "models' ranks appended (informed: it uses the seen models' scores, never the held-out ones)")
    p.add_argument("--trials", type=int, default=200, help="number of trials T (default 200)")
    p.add_argument("--random-draws", type=int, default=RANDOM_DRAWS,
                   help=f"random subsets random / stratified draw per trial (default {RANDOM_DRAWS}): a trial's value "
                        "is their mean, its pass share the share of them meeting the target (1: the paper's protocol)")
    p.add_argument("--pool-fraction", "--alpha", dest="pool_fraction", type=float, default=0.8,
                   help="each trial selects from a pool of floor(POOL_FRACTION x n) datasets (default 0.8; the "
                        "paper's alpha; --alpha is the older name)")
    p.add_argument("--k", nargs=2, type=int, default=[2, 20], metavar=("K_MIN", "K_MAX"),
                   help="subset sizes (default 2 20)")
    p.add_argument("--k-target", nargs="+", type=int, metavar="K",
                   help="subset sizes the verdict in recommendation.txt answers 'which strategy for k' for "
                        "(each within --k and the pool; default: 3 spread over --k)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--fafi-start", choices=list(FAFI_STARTS), default=FAFI_STARTS[0],
                   help="farthest-first starts at the pool row nearest the pool mean (default) or farthest "
                        "from it (the paper's code)")
    p.add_argument("--standardize", choices=list(STANDARDIZATIONS), default=STANDARDIZATIONS[0],
                   help="z-score the features over all datasets (default) or over each trial's pool (the "
                        "paper's code)")
    p.add_argument("--jobs", type=int, default=1,
                   help="processes (default 1; the results do not depend on it)")
    p.add_argument("--out", required=True, help="output folder (created; files of the same names are replaced)")
    add_table_options(p, features=True)
    p.set_defaults(func=_evaluate_command)


def _agreement_command(args: argparse.Namespace) -> int:
    from benchdesign.files import check_output_paths, write_atomic
    from benchdesign.selection.api import subset_agreement
    from benchdesign.selection.markdown import to_markdown

    check_output_paths({"--json": args.json}, {"--scores": args.scores, "--subset": args.subset})
    if not Path(args.subset).is_file():
        raise ValueError(f"subset file {args.subset!r} does not exist")
    subset = [line.strip() for line in Path(args.subset).read_text().splitlines() if line.strip()]
    _refuse_duplicates(subset, f"subset file {args.subset!r}")
    scores = _read_scores(args.scores, args, args.higher_is_better)
    table = subset_agreement(scores, subset, args.higher_is_better, n_boot=args.bootstrap, random_state=args.seed)
    print(to_markdown(table, floatfmt=".4f"))
    print(f"benchdesign agreement: {table.attrs['interval']}", file=sys.stderr)
    if args.json:
        write_atomic(args.json, table.to_json(orient="records", indent=2) + "\n")
    return 0


def _refuse_duplicates(names, where: str) -> None:
    """ValueError naming the first dataset listed twice in ``names``."""
    seen: dict[str, int] = {}
    for i, name in enumerate(names, 1):
        if name in seen:
            raise ValueError(f"{where}: dataset {name!r} is listed twice (entries {seen[name]} and {i}); "
                             "list each dataset once")
        seen[name] = i


def add_agreement_parser(subparsers: argparse._SubParsersAction) -> None:
    """``benchdesign agreement``: how well a subset keeps the full benchmark's model ranking."""
    p = subparsers.add_parser(
        "agreement", help="rank agreement of a dataset subset with the full benchmark",
        description=(
            "MAE, Spearman ρ, Kendall τ, NDCG@5, MRR (and the paper's NDCG@5) of the subset's mean-rank "
            "vector against the full benchmark's; with folds, a 95% percentile bootstrap interval over folds."
        ),
    )
    p.add_argument("--scores", required=True, help="scores CSV (long or wide)")
    p.add_argument("--subset", required=True, help="text file, one dataset per line (e.g. from `select`), each once")
    _add_direction(p, required=True)
    p.add_argument("--bootstrap", type=int, default=1000,
                   help="bootstrap resamples of the folds (default 1000; 0: no interval)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="also write the table as JSON (an existing file is replaced)")
    add_table_options(p, features=False)
    p.set_defaults(func=_agreement_command)


def _predict_command(args: argparse.Namespace) -> int:
    from benchdesign.files import check_output_paths, write_atomic
    from benchdesign.selection.estimators import predict_full_rank
    from benchdesign.selection.markdown import to_markdown

    check_output_paths({"--json": args.json}, {"--estimator": args.estimator, "--scores": args.scores})
    fit = _read_estimator(args.estimator)
    scores = _read_scores(args.scores, args, fit.higher_is_better, min_models=1, min_datasets=1)
    table = predict_full_rank(fit, scores)
    print(f"estimator {fit.estimator} on {len(fit.datasets)} datasets ({', '.join(fit.datasets)}); rank = slot among "
          f"the {len(fit.models)} models it was fitted on (1 = ahead of all, {len(fit.models) + 1} = behind all); "
          f"share = predicted share of them beaten on a dataset of the full benchmark ({fit.n_datasets} datasets); "
          f"interval at level {fit.level:g}", file=sys.stderr)
    print(to_markdown(table, floatfmt=".3f"))
    if args.json:
        write_atomic(args.json, table.to_json(orient="records", indent=2) + "\n")
    return 0


def _read_estimator(path: str):
    """The fitted estimator of ``select --estimator``'s report (its 'estimator' entry) or of a bare entry."""
    from benchdesign.selection.estimators import SubsetEstimator

    if not Path(path).is_file():
        raise ValueError(f"estimator file {path!r} does not exist (write it with `benchdesign select --estimator NAME "
                         "--scores FILE ... --out chosen.txt`: chosen.txt.json)")
    try:
        data = json.loads(Path(path).read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"estimator file {path!r} is not JSON: {err}") from None
    entry = data.get("estimator") if isinstance(data, dict) and isinstance(data.get("estimator"), dict) else data
    if not isinstance(entry, dict) or "weights" not in entry:
        raise ValueError(f"estimator file {path!r} has no fitted estimator; a report of `benchdesign select` without "
                         "--estimator? Run select with --estimator NAME --scores FILE")
    try:
        return SubsetEstimator.from_dict(entry)
    except (TypeError, ValueError) as err:
        raise ValueError(f"estimator file {path!r}: {err}") from None


def add_predict_parser(subparsers: argparse._SubParsersAction) -> None:
    """``benchdesign predict``: where new models rank on the full benchmark, from their scores on the subset."""
    p = subparsers.add_parser(
        "predict", help="predict new models' full-benchmark rank from their scores on the chosen datasets",
        description=(
            "Apply the estimator `select --estimator` fitted (the 'estimator' entry of its JSON report) to new "
            "models' scores on the chosen datasets: each model's predicted full-benchmark win share (the share of "
            "the models already run it beats on a dataset of the benchmark), its rank among those models and the "
            "interval of both (leave-one-model-out jackknife). Scores of other datasets are ignored."
        ),
    )
    p.add_argument("--estimator", required=True, help="JSON report of `select --estimator` (or its 'estimator' entry)")
    p.add_argument("--scores", required=True,
                   help="scores CSV of the new models (long or wide, one model is enough) on every chosen dataset; "
                        "direction as the estimator's")
    p.add_argument("--json", help="also write the table as JSON (an existing file is replaced)")
    add_table_options(p, features=False)
    p.set_defaults(func=_predict_command)


SELECTION_SUBCOMMANDS = [add_select_parser, add_evaluate_parser, add_agreement_parser, add_predict_parser]
