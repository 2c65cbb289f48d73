"""Command-line interface: ``benchdesign <subcommand> ...``.

Each subcommand registers itself through an ``add_<name>_parser(subparsers)`` function that sets
``func`` (a callable taking the parsed namespace and returning an exit code) as default; add new
subcommands to :data:`SUBCOMMANDS`.

Exit codes: 0 success, 2 invalid input or options (message on stderr, no output written),
1 other failures (e.g. the solver found no assignment in time).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from benchdesign.selection_cli import SELECTION_SUBCOMMANDS

__all__ = ["build_parser", "main", "SUBCOMMANDS"]


def _split_command(args: argparse.Namespace) -> int:
    from benchdesign.splitting.pipeline import EntityInput, SplitJob, run_split, summarize
    from benchdesign.splitting.tasks import SplitSpec

    fractions, names, balanced = _fractions_and_names(args)
    spec = SplitSpec(
        fractions=fractions,
        names=names,
        balanced=balanced,
        n_clusters=args.clusters,
        epsilon=args.epsilon,
        delta=args.delta,
        linkage=args.linkage,
        solver=args.solver,
        time_limit=args.time_limit,
        seed=args.seed,
        n_micro=args.micro_clusters,
        refine=not args.no_refine,
        node_limit=args.node_limit,
        mip_gap=args.mip_gap,
        **_crossval_spec_options(args),
    )
    side_a = EntityInput(
        path=args.input, id_col=args.id_col, smiles_col=args.smiles_col, sequence_col=args.sequence_col,
        feature_cols=tuple(args.feature_cols or ()), matrix=args.matrix, matrix_kind=args.matrix_kind,
        metric=args.metric, class_cols=tuple(args.class_col or ()), sequence_similarity=args.sequence_similarity,
    )
    side_b = None
    if args.input_b:
        side_b = EntityInput(
            path=args.input_b, id_col=args.id_col_b, smiles_col=args.smiles_col_b, sequence_col=args.sequence_col_b,
            feature_cols=tuple(args.feature_cols_b or ()), matrix=args.matrix_b, matrix_kind=args.matrix_kind_b,
            metric=args.metric_b, class_cols=tuple(args.class_col_b or ()),
            sequence_similarity=args.sequence_similarity,
        )
    job = SplitJob(
        task=args.task, entities=side_a, out=args.out, spec=spec, interactions=args.interactions,
        inter_a_col=args.inter_a_col, inter_b_col=args.inter_b_col, inter_id_col=args.inter_id_col,
        entities_b=side_b, side=args.side, drop_invalid=args.drop_invalid, radius=args.fp_radius,
        n_bits=args.fp_bits, kmer=args.kmer, report=args.report, fold_column=bool(args.folds),
        clusters_out=args.clusters_out, sep=_sep(args.sep),
    )
    result = run_split(job)
    print(summarize(result), file=sys.stderr)
    return 0


def _crossval_spec_options(args: argparse.Namespace) -> dict:
    """SplitSpec options of the k-fold / threshold / certificate / verbose flags (issue 14)."""
    return {
        "max_similarity": args.max_similarity, "threshold_action": args.threshold_action,
        "certificate_seeds": args.certificate_seeds, "verbose": args.verbose,
    }


def _fractions_and_names(args: argparse.Namespace) -> tuple[tuple[float, ...], tuple[str, ...], bool]:
    """Fractions, fold names and balance of --splits/--names, or of --folds k (k equal folds, balanced)."""
    from benchdesign.splitting.tasks import kfold_spec

    if args.folds is None:
        if not args.splits:
            raise ValueError("give the split fractions (--splits) or a number of folds (--folds)")
        names = tuple(args.names) if args.names else tuple(f"split{i}" for i in range(len(args.splits)))
        return tuple(args.splits), names, False
    if args.splits or args.names:
        raise ValueError("--folds makes k equal folds fold0 .. fold{k-1}; do not combine it with --splits/--names")
    spec = kfold_spec(args.folds)
    return spec.fractions, spec.names, spec.balanced


def _add_crossval_arguments(p: argparse.ArgumentParser) -> None:
    """k-fold CV, hard threshold, cluster output, certificate and solver log options of `split`."""
    from benchdesign.splitting.options import THRESHOLD_ACTIONS

    g = p.add_argument_group("k-fold, threshold and certificate")
    g.add_argument("--folds", type=int,
                   help="k equal folds fold0 .. fold{k-1} from one ILP (instead of --splits); "
                        "adds a `fold` column 0..k-1")
    g.add_argument("--max-similarity", type=float,
                   help="hard threshold t: afterwards no sample has a neighbour above t in another fold")
    g.add_argument("--threshold-action", choices=THRESHOLD_ACTIONS, default="drop",
                   help="for --max-similarity: drop the fewest samples (default) or move whole components")
    g.add_argument("--clusters-out", help="write the cluster id of every entity to this TSV (S1/S2)")
    g.add_argument("--certificate-seeds", type=int, default=3,
                   help="random splits scored as the certificate's baseline (default 3; 0 = none)")
    g.add_argument("--verbose", action="store_true", help="print the MILP solver's log (e.g. HiGHS) to stderr")


def _sep(value: str | None) -> str | None:
    """``--sep`` value: ``tab`` / ``\\t`` -> a tab character; None -> sniffed."""
    return "\t" if value in ("tab", "\\t", "\t") else value


def _add_similarity_arguments(p: argparse.ArgumentParser, required: bool) -> None:
    """Options that say how to compare the entities of --input (shared by `split` and `leakage`)."""
    rep = p.add_mutually_exclusive_group(required=required)
    rep.add_argument("--smiles-col", help="SMILES column -> ECFP4 Tanimoto similarity")
    rep.add_argument("--sequence-col", help="sequence column -> k-mer cosine similarity")
    rep.add_argument("--feature-cols", nargs="+", help="numeric feature columns -> --metric similarity")
    rep.add_argument("--matrix", help="precomputed matrix, .npy (dense) or .npz (scipy sparse), row order of --input")
    p.add_argument("--matrix-kind", choices=("similarity", "distance"), default="similarity")
    p.add_argument("--metric", choices=("cosine", "euclidean"), default="cosine", help="for --feature-cols")
    p.add_argument("--fp-bits", type=int, default=1024, help="ECFP length (default 1024)")
    p.add_argument("--fp-radius", type=int, default=2, help="Morgan radius (default 2 = ECFP4)")
    p.add_argument("--kmer", type=int, default=3, help="k of the sequence k-mers (default 3)")
    p.add_argument("--sequence-similarity", choices=("kmer", "alignment"), default="kmer",
                   help="for --sequence-col: k-mer cosine (default) or Smith-Waterman identity (parasail) "
                        "of the k-mer prefilter's candidate pairs")
    p.add_argument("--sep", help="column delimiter of the input tables, e.g. ',' ';' or tab (default: from the "
                                 "header line, else tab for .tsv/.txt and comma otherwise)")


def add_split_parser(subparsers: argparse._SubParsersAction) -> None:
    """``benchdesign split``: leakage-reduced data splitting (DataSAIL tasks R, I1, I2, S1, S2)."""
    from benchdesign.splitting.options import DEFAULT_MICRO, LINKAGES, TASKS

    p = subparsers.add_parser(
        "split",
        help="split a dataset into folds with low similarity-induced leakage (DataSAIL)",
        description=(
            "Split 1-D data (an entity table) or 2-D data (an interaction table plus two entity tables) "
            "into folds. Output TSV columns: id, split, reason (split 'unassigned' with reason "
            "invalid_smiles/invalid_sequence/invalid_features for rows excluded by --drop-invalid, or "
            "entities_in_different_folds for 2-D interactions dropped by I2/S2). Without --id-col the "
            "id is the 0-based row number."
        ),
    )
    p.add_argument("--task", required=True, type=str.upper, choices=TASKS, help="splitting task")
    p.add_argument("--input", required=True, help="entity table (CSV/TSV, may be gzipped); side a for 2-D data")
    p.add_argument("--out", required=True, help="output TSV (written atomically)")
    p.add_argument("--splits", nargs="+", type=float, help="split fractions, summing to 1 (or --folds)")
    p.add_argument("--names", nargs="+", help="fold names (default split0 split1 ...)")
    p.add_argument("--id-col", help="id column (default: row number)")
    _add_similarity_arguments(p, required=False)
    p.add_argument("--class-col", nargs="+", action="extend", help="class column(s) for stratification (eq. 4)")
    p.add_argument("--drop-invalid", action="store_true",
                   help="leave rows with invalid SMILES/sequences/features unassigned instead of failing")
    p.add_argument("--clusters", type=int, default=50, help="number of clusters K (default 50)")
    p.add_argument("--micro-clusters", type=int, default=DEFAULT_MICRO,
                   help=f"leader pre-clustering size for large data (default {DEFAULT_MICRO})")
    p.add_argument("--epsilon", type=float, default=0.1, help="relative error of the split fractions (eq. 3)")
    p.add_argument("--delta", type=float, default=0.1, help="relative error of the stratification (eq. 4)")
    p.add_argument("--linkage", choices=LINKAGES, default="average", help="inter-cluster similarity")
    p.add_argument("--solver", default="HIGHS", help="cvxpy MILP solver (default HIGHS)")
    p.add_argument("--time-limit", type=float, default=10.0,
                   help="ILP time limit in seconds (default 10; the best assignment found is returned)")
    p.add_argument("--node-limit", type=int,
                   help="branch-and-bound node cap: a reproducible limit (a time-out depends on machine load)")
    p.add_argument("--mip-gap", type=float, default=0.01,
                   help="relative optimality gap at which the ILP stops (default 0.01; 0 = prove optimality)")
    p.add_argument("--seed", type=int, default=0,
                   help="random seed (same seed -> same split when the ILP ends by optimality or --node-limit)")
    p.add_argument("--no-refine", action="store_true", help="skip the micro-cluster refinement of the ILP solution")
    p.add_argument("--report", help="write a JSON report (solver status, leakage, fold sizes, certificate)")
    _add_crossval_arguments(p)
    g2 = p.add_argument_group("2-D data")
    g2.add_argument("--interactions", help="interaction table with one row per (id_a, id_b) pair")
    g2.add_argument("--inter-a-col", default="id_a", help="column of side-a ids (default id_a)")
    g2.add_argument("--inter-b-col", default="id_b", help="column of side-b ids (default id_b)")
    g2.add_argument("--inter-id-col", help="interaction id column (default: row number)")
    g2.add_argument("--side", choices=("a", "b"), default="a", help="side split by I1/S1 on 2-D data")
    g2.add_argument("--input-b", help="entity table of side b")
    g2.add_argument("--id-col-b")
    rep_b = g2.add_mutually_exclusive_group()
    rep_b.add_argument("--smiles-col-b")
    rep_b.add_argument("--sequence-col-b")
    rep_b.add_argument("--feature-cols-b", nargs="+")
    rep_b.add_argument("--matrix-b")
    g2.add_argument("--matrix-kind-b", choices=("similarity", "distance"), default="similarity")
    g2.add_argument("--metric-b", choices=("cosine", "euclidean"), default="cosine")
    g2.add_argument("--class-col-b", nargs="+", action="extend")
    p.set_defaults(func=_split_command)


def _leakage_compare_command(args: argparse.Namespace) -> int:
    """``benchdesign leakage --compare a.tsv b.tsv ...``: several splits of one dataset in one table."""
    import json

    from benchdesign.files import write_atomic
    from benchdesign.splitting.evaluate import compare_split_files, format_comparison

    report = compare_split_files(
        args.input, args.compare, id_col=args.id_col, smiles_col=args.smiles_col, sequence_col=args.sequence_col,
        feature_cols=tuple(args.feature_cols or ()), matrix=args.matrix, matrix_kind=args.matrix_kind,
        metric=args.metric, split_id_col=args.split_id_col, split_col=args.split_col,
        drop_invalid=args.drop_invalid, radius=args.fp_radius, n_bits=args.fp_bits, kmer=args.kmer,
        test=args.test, train=args.train, sequence_similarity=args.sequence_similarity, folds=args.folds,
        sep=_sep(args.sep),
    )
    print(format_comparison(report))
    if args.json:
        write_atomic(args.json, json.dumps(report, indent=2) + "\n")
    return 0


def _leakage_command(args: argparse.Namespace) -> int:
    import json

    from benchdesign.files import check_output_paths, write_atomic
    from benchdesign.splitting.evaluate import evaluate_split_files, format_report, leakage_shard_files

    check_output_paths({"--json": args.json, "--shard-out": args.shard_out},
                       {"--input": args.input, "--split": args.split, "--matrix": args.matrix})
    if args.compare:
        return _leakage_compare_command(args)
    read = dict(
        id_col=args.id_col, smiles_col=args.smiles_col, sequence_col=args.sequence_col,
        feature_cols=tuple(args.feature_cols or ()), matrix=args.matrix, matrix_kind=args.matrix_kind,
        metric=args.metric, split_id_col=args.split_id_col, split_col=args.split_col,
        drop_invalid=args.drop_invalid, radius=args.fp_radius, n_bits=args.fp_bits, kmer=args.kmer,
        sequence_similarity=args.sequence_similarity, sep=_sep(args.sep),
    )
    if args.shard is not None:
        if not args.shard_out:
            raise ValueError("--shard needs --shard-out (the shard's .npz file)")
        index, count = args.shard
        n = leakage_shard_files(args.input, args.split, index, count, args.shard_out, **read)
        print(f"shard {index} of {count}: {n} tiles -> {args.shard_out}", file=sys.stderr)
        return 0
    report = evaluate_split_files(
        args.input, args.split, test=args.test, train=args.train, quantiles=args.quantiles, folds=args.folds,
        sample=args.sample, confidence=args.confidence, seed=args.sample_seed, sample_test=args.sample_test,
        **read,
    )
    print(format_report(report))
    if args.json:
        write_atomic(args.json, json.dumps(report, indent=2) + "\n")
    return 0


def _leakage_reduce_command(args: argparse.Namespace) -> int:
    import json

    from benchdesign.files import write_atomic
    from benchdesign.splitting.leakage import reduce_leakage_shards

    s = reduce_leakage_shards(args.shards)[0]
    report = {"leakage": s.leakage, "total_similarity": s.total, "scaled_leakage": s.scaled,
              "n_assigned": s.n_assigned, "n_shards": len(args.shards)}
    print(f"L(pi) (eq. 2) {s.leakage:.6g}; scaled L(pi) (eq. 20) {s.scaled:.4f} (exact, {len(args.shards)} shards)")
    if args.json:
        write_atomic(args.json, json.dumps(report, indent=2) + "\n")
    return 0


def add_leakage_reduce_parser(subparsers: argparse._SubParsersAction) -> None:
    """``benchdesign leakage-reduce``: exact L(pi) from the shard files of ``leakage --shard``."""
    p = subparsers.add_parser(
        "leakage-reduce", help="combine the shard files of `leakage --shard` into the exact L(pi)",
        description="Check that the shard files belong to one split and cover every tile once, then sum them.",
    )
    p.add_argument("shards", nargs="+", help="shard .npz files")
    p.add_argument("--json", help="also write the result as JSON (atomically)")
    p.set_defaults(func=_leakage_reduce_command)


def add_leakage_parser(subparsers: argparse._SubParsersAction) -> None:
    """``benchdesign leakage``: leakage of an existing split, L(pi) (eq. 2), scaled L(pi) (eq. 20), eq. (1)."""
    from benchdesign.splitting.options import DEFAULT_QUANTILES

    p = subparsers.add_parser(
        "leakage",
        help="measure the similarity-induced leakage of an existing split (from any tool)",
        description=(
            "Evaluate a split file (one row per entity: id and fold name) against an entity table. Prints "
            "L(pi) (eq. 2), scaled L(pi) (eq. 20) and, per test fold, statistics of the maximum similarity "
            "of each test sample to the training folds (eq. 1: their mean). Computed tile by tile, no n x n "
            "matrix. Entities missing from the split file, or labelled 'unassigned' or empty, are left out."
        ),
    )
    p.add_argument("--input", required=True, help="entity table (CSV/TSV, may be gzipped)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--split", help="split table (CSV/TSV) with an id and a fold column")
    which.add_argument("--compare", nargs="+", metavar="SPLIT",
                       help="several split tables of the same entities (e.g. from different tools): one table")
    p.add_argument("--id-col", help="id column of --input (default: 0-based row number, as in `split`)")
    p.add_argument("--split-id-col", default="id", help="id column of --split (default id)")
    p.add_argument("--split-col", default="split", help="fold column of --split (default split)")
    _add_similarity_arguments(p, required=True)
    p.add_argument("--drop-invalid", action="store_true",
                   help="leave rows with invalid SMILES/sequences/features out instead of failing")
    p.add_argument("--fold-names", "--folds", dest="folds", nargs="+",
                   help="the fold names the split file may use; other labels are reported as errors (default: "
                        "any, but names differing only in case are refused). --folds is the older spelling; in "
                        "`split`, --folds is a number of folds")
    p.add_argument("--test", nargs="+", help="fold(s) to report eq. (1) statistics for (default: every fold)")
    p.add_argument("--train", nargs="+", help="training fold(s) of eq. (1) (default: all other folds)")
    p.add_argument("--quantiles", nargs="+", type=float, default=list(DEFAULT_QUANTILES),
                   help="quantiles of the max-train-similarity distribution to report")
    p.add_argument("--json", help="also write the report as JSON (atomically)")
    big = p.add_argument_group("large data")
    big.add_argument("--sample", type=int, metavar="N",
                     help="estimate L(pi) from N random pairs with a confidence interval (and eq. 1 from "
                          "--sample-test test samples per fold) instead of all pairs")
    big.add_argument("--confidence", type=float, default=0.95, help="interval level of --sample (default 0.95)")
    big.add_argument("--sample-seed", type=int, default=0, help="seed of --sample (default 0)")
    big.add_argument("--sample-test", type=int, default=1000,
                     help="with --sample: test samples per fold for the eq. (1) statistics (default 1000)")
    big.add_argument("--shard", type=int, nargs=2, metavar=("INDEX", "COUNT"),
                     help="compute only shard INDEX of COUNT of the exact tiles (resumable); see leakage-reduce")
    big.add_argument("--shard-out", help="the shard's .npz file (with --shard)")
    p.set_defaults(func=_leakage_command)


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    add_split_parser, add_leakage_parser, add_leakage_reduce_parser, *SELECTION_SUBCOMMANDS,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchdesign",
        description="Rank-preserving benchmark dataset selection and leakage-reduced data splitting.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except ValueError as err:  # bad input or options: clear message, nothing written
        print(f"benchdesign {args.command}: error: {err}", file=sys.stderr)
        return 2
    except RuntimeError as err:
        print(f"benchdesign {args.command}: failed: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
