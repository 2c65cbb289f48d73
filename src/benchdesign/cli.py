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

    spec = SplitSpec(
        fractions=tuple(args.splits),
        names=tuple(args.names) if args.names else tuple(f"split{i}" for i in range(len(args.splits))),
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
    )
    side_a = EntityInput(
        path=args.input, id_col=args.id_col, smiles_col=args.smiles_col, sequence_col=args.sequence_col,
        feature_cols=tuple(args.feature_cols or ()), matrix=args.matrix, matrix_kind=args.matrix_kind,
        metric=args.metric, class_cols=tuple(args.class_col or ()),
    )
    side_b = None
    if args.input_b:
        side_b = EntityInput(
            path=args.input_b, id_col=args.id_col_b, smiles_col=args.smiles_col_b, sequence_col=args.sequence_col_b,
            feature_cols=tuple(args.feature_cols_b or ()), matrix=args.matrix_b, matrix_kind=args.matrix_kind_b,
            metric=args.metric_b, class_cols=tuple(args.class_col_b or ()),
        )
    job = SplitJob(
        task=args.task, entities=side_a, out=args.out, spec=spec, interactions=args.interactions,
        inter_a_col=args.inter_a_col, inter_b_col=args.inter_b_col, inter_id_col=args.inter_id_col,
        entities_b=side_b, side=args.side, drop_invalid=args.drop_invalid, radius=args.fp_radius,
        n_bits=args.fp_bits, kmer=args.kmer, report=args.report,
    )
    result = run_split(job)
    print(summarize(result), file=sys.stderr)
    return 0


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


def add_split_parser(subparsers: argparse._SubParsersAction) -> None:
    """``benchdesign split``: leakage-reduced data splitting (DataSAIL tasks R, I1, I2, S1, S2)."""
    from benchdesign.splitting.clustering import DEFAULT_MICRO, LINKAGES
    from benchdesign.splitting.tasks import TASKS

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
    p.add_argument("--splits", required=True, nargs="+", type=float, help="split fractions, summing to 1")
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
    p.add_argument("--report", help="write a JSON report (solver status, leakage, fold sizes)")
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


def _leakage_command(args: argparse.Namespace) -> int:
    import json

    from benchdesign.splitting.evaluate import evaluate_split_files, format_report
    from benchdesign.splitting.pipeline import write_atomic

    report = evaluate_split_files(
        args.input, args.split, id_col=args.id_col, smiles_col=args.smiles_col, sequence_col=args.sequence_col,
        feature_cols=tuple(args.feature_cols or ()), matrix=args.matrix, matrix_kind=args.matrix_kind,
        metric=args.metric, split_id_col=args.split_id_col, split_col=args.split_col,
        drop_invalid=args.drop_invalid, radius=args.fp_radius, n_bits=args.fp_bits, kmer=args.kmer,
        test=args.test, train=args.train, quantiles=args.quantiles,
    )
    print(format_report(report))
    if args.json:
        write_atomic(args.json, json.dumps(report, indent=2) + "\n")
    return 0


def add_leakage_parser(subparsers: argparse._SubParsersAction) -> None:
    """``benchdesign leakage``: leakage of an existing split, L(pi) (eq. 2), scaled L(pi) (eq. 20), eq. (1)."""
    from benchdesign.splitting.evaluate import DEFAULT_QUANTILES

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
    p.add_argument("--split", required=True, help="split table (CSV/TSV) with an id and a fold column")
    p.add_argument("--id-col", help="id column of --input (default: 0-based row number, as in `split`)")
    p.add_argument("--split-id-col", default="id", help="id column of --split (default id)")
    p.add_argument("--split-col", default="split", help="fold column of --split (default split)")
    _add_similarity_arguments(p, required=True)
    p.add_argument("--drop-invalid", action="store_true",
                   help="leave rows with invalid SMILES/sequences/features out instead of failing")
    p.add_argument("--test", nargs="+", help="fold(s) to report eq. (1) statistics for (default: every fold)")
    p.add_argument("--train", nargs="+", help="training fold(s) of eq. (1) (default: all other folds)")
    p.add_argument("--quantiles", nargs="+", type=float, default=list(DEFAULT_QUANTILES),
                   help="quantiles of the max-train-similarity distribution to report")
    p.add_argument("--json", help="also write the report as JSON (atomically)")
    p.set_defaults(func=_leakage_command)


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    add_split_parser, add_leakage_parser, *SELECTION_SUBCOMMANDS,
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
