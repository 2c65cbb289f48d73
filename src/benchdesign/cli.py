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

from benchdesign import __version__
from benchdesign.selection_cli import OUTPUT_RULE, SELECTION_SUBCOMMANDS

__all__ = ["build_parser", "main", "SUBCOMMANDS"]


def _split_command(args: argparse.Namespace) -> int:
    from benchdesign.splitting.pipeline import EntityInput, SplitJob
    from benchdesign.splitting.tasks import SplitSpec

    spec = SplitSpec.from_options({**_split_options(args), **_fold_layout(args), "verbose": args.verbose})
    _fasta_defaults(args)
    if args.pairs:
        return _run_split_job(_pair_table_job(args, spec))
    _check_no_pair_table_options(args)
    if not args.input:
        raise ValueError("give the entity table (--input) or one long table of pairs (--pairs)")
    side_a = EntityInput(
        path=args.input, id_col=args.id_col, smiles_col=args.smiles_col, sequence_col=args.sequence_col,
        feature_cols=tuple(args.feature_cols or ()), matrix=args.matrix, matrix_kind=args.matrix_kind,
        metric=args.metric, class_cols=tuple(args.class_col or ()), sequence_similarity=args.sequence_similarity,
        identity=_identity(args),
    )
    side_b = None
    if args.input_b:
        side_b = EntityInput(
            path=args.input_b, id_col=args.id_col_b, smiles_col=args.smiles_col_b, sequence_col=args.sequence_col_b,
            feature_cols=tuple(args.feature_cols_b or ()), matrix=args.matrix_b, matrix_kind=args.matrix_kind_b,
            metric=args.metric_b, class_cols=tuple(args.class_col_b or ()),
            sequence_similarity=args.sequence_similarity, identity=_identity(args),
        )
    job = SplitJob(
        task=args.task, entities=side_a, out=args.out, spec=spec, interactions=args.interactions,
        inter_a_col=args.inter_a_col, inter_b_col=args.inter_b_col, inter_id_col=args.inter_id_col,
        entities_b=side_b, side=args.side, drop_invalid=args.drop_invalid, radius=args.fp_radius,
        n_bits=args.fp_bits, kmer=args.kmer, report=args.report, fold_column=bool(args.folds),
        clusters_out=args.clusters_out, entity_folds_out=args.entity_folds, sep=_sep(args.sep),
        summary=args.summary, scaffold_baseline=args.scaffold_baseline, clean_sequences=args.clean_sequences,
        duplicate_pairs=args.duplicate_pairs,
    )
    return _run_split_job(job)


def _run_split_job(job) -> int:
    """Split; the result's summary on stdout (progress went to stderr), on stderr when the TSV is on stdout."""
    from benchdesign.files import is_stdout
    from benchdesign.splitting.pipeline import run_split, summarize

    text = summarize(run_split(job), verbose=job.spec.verbose)
    print(text, file=sys.stderr if is_stdout(job.out) else sys.stdout)
    return 0


def _pair_table_job(args: argparse.Namespace, spec):
    """The split job of ``--pairs FILE --a-col ... --b-col ...``: one long table, entities by value (or id)."""
    from benchdesign.splitting.pipeline import SplitJob

    side_a, side_b = _pair_table_sides(args)
    return SplitJob(
        task=args.task, entities=side_a, out=args.out, spec=spec, interactions=args.pairs,
        inter_a_col=side_a.id_col, inter_b_col=side_b.id_col, inter_id_col=args.inter_id_col, entities_b=side_b,
        side=args.side, drop_invalid=args.drop_invalid, radius=args.fp_radius, n_bits=args.fp_bits, kmer=args.kmer,
        report=args.report, fold_column=bool(args.folds), clusters_out=args.clusters_out,
        entity_folds_out=args.entity_folds, sep=_sep(args.sep), summary=args.summary,
        scaffold_baseline=args.scaffold_baseline, clean_sequences=args.clean_sequences,
        duplicate_pairs=args.duplicate_pairs,
    )


# options that name the tables of the other 2-D route, or how to read them: not with --pairs
_NOT_WITH_PAIRS = ("input", "input_b", "interactions", "id_col", "id_col_b", "smiles_col", "smiles_col_b",
                   "sequence_col", "sequence_col_b", "feature_cols", "feature_cols_b", "matrix", "matrix_b")


def _pair_table_sides(args: argparse.Namespace):
    """The two ``EntityInput``s of ``--pairs FILE --a-col ... --b-col ...`` (``split`` and ``leakage``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options: ``pairs``, ``a_col``, ``b_col``, ``a_id_col``, ``b_id_col``, ``a_kind``,
        ``b_kind``, ``sequence_similarity``.

    Returns
    -------
    tuple[EntityInput, EntityInput]
        Side a and side b, both read from the one table.

    Raises
    ------
    ValueError
        When an option of the three-table route (an entity table, the interaction table, a column or a matrix
        of one) is also given, or --a-col / --b-col is missing.
    """
    from benchdesign.splitting.pipeline import pair_table_inputs

    given = ["--" + name.replace("_", "-") for name in _NOT_WITH_PAIRS if getattr(args, name, None)]
    if given:
        raise ValueError(f"--pairs is one table of pairs; do not combine it with {', '.join(given)}")
    classes = [f"--{name.replace('_', '-')}" for name in ("class_col", "class_col_b") if getattr(args, name, None)]
    if classes:
        raise ValueError(f"{', '.join(classes)}: classes for stratification belong to an entity table; with --pairs "
                         "there is none: give an entity table per side (--input, --input-b) and --interactions")
    if not (args.a_col and args.b_col):
        raise ValueError("--pairs needs the columns of the two entities of a pair: --a-col and --b-col")
    return pair_table_inputs(args.pairs, args.a_col, args.b_col, args.a_id_col, args.b_id_col,
                             (args.a_kind, args.b_kind), args.sequence_similarity, _identity(args))


FASTA_INPUT_HELP = ("entity table (CSV/TSV, may be gzipped) or FASTA file (.fasta/.fa/.faa/.fas, may be gzipped, or "
                    "'>' first: columns id, description, sequence; --sequence-col then defaults to sequence and "
                    "--id-col to id)")


def _fasta_defaults(args: argparse.Namespace) -> None:
    """A FASTA file as --input (or --input-b) of `split` / `leakage`: --sequence-col defaults to ``sequence``
    (without another representation) and --id-col to ``id``, the columns of ``read_fasta``'s table."""
    from benchdesign.splitting.sequences import is_fasta

    if getattr(args, "pairs", None):
        return
    for suffix in ("", "_b"):
        path = getattr(args, "input" + suffix, None)
        if not path or not is_fasta(path):
            continue
        if not any(getattr(args, name + suffix, None) for name in ("smiles_col", "sequence_col", "feature_cols", "matrix")):
            setattr(args, "sequence_col" + suffix, "sequence")
        if getattr(args, "id_col" + suffix, None) is None:
            setattr(args, "id_col" + suffix, "id")


def _check_no_pair_table_options(args: argparse.Namespace) -> None:
    """Refuse --a-col, --b-col, --a-id-col, --b-id-col and a --a-kind / --b-kind other than auto without --pairs:
    they name columns of the --pairs table, and would otherwise be ignored."""
    given = [f"--{name.replace('_', '-')}" for name in ("a_col", "b_col", "a_id_col", "b_id_col")
             if getattr(args, name, None)]
    given += [f"--{side}-kind" for side in ("a", "b") if getattr(args, f"{side}_kind", "auto") != "auto"]
    if given:
        raise ValueError(f"{', '.join(given)} name columns of the one table of pairs: give it with --pairs FILE "
                         "(with entity tables, use --smiles-col / --sequence-col and their -b forms)")


def _split_options(args: argparse.Namespace) -> dict:
    """The values of the split options (options.SPLIT_OPTIONS) given on the command line."""
    from benchdesign.splitting.options import SPLIT_OPTIONS

    return {o.name: getattr(args, o.name) for o in SPLIT_OPTIONS}


def _fold_layout(args: argparse.Namespace) -> dict:
    """``folds`` (k equal folds), or ``fractions`` and ``names``, for SplitSpec.from_options."""
    if args.folds is None:
        if not args.fractions:
            raise ValueError("give the split fractions (--fractions) or a number of folds (--folds)")
        return {"fractions": args.fractions, "names": args.names}
    if args.fractions or args.names:
        raise ValueError("--folds makes k equal folds fold0 .. fold{k-1}; do not combine it with --fractions/--names")
    return {"folds": args.folds}


def _nullable(kind: type) -> Callable[[str], object]:
    """argparse type of an option that also takes 'none'."""
    def parse(text: str):
        return None if text.lower() == "none" else kind(text)

    parse.__name__ = kind.__name__  # argparse names the type in its error message
    return parse


def _add_split_options(p: argparse.ArgumentParser) -> None:
    """One argument per split option of options.SPLIT_OPTIONS (name, default, help from the table)."""
    from benchdesign.splitting.options import SPLIT_OPTIONS

    g = p.add_argument_group("split options (the same names, with underscores, in the config's splitting: block)")
    for o in SPLIT_OPTIONS:
        if o.type is bool:
            action = "store_false" if o.default else "store_true"
            g.add_argument(o.flag, dest=o.name, action=action, default=o.default,
                           help=o.help + (" (on by default; this flag turns it off)" if o.default else ""))
            continue
        shown = "none" if o.default is None else o.default
        g.add_argument(o.flag, dest=o.name, type=_nullable(o.type) if o.nullable else o.type, default=o.default,
                       choices=o.choices, help=f"{o.help} (default {shown})")


def _add_crossval_arguments(p: argparse.ArgumentParser) -> None:
    """k-fold CV, cluster output and solver log options of `split`."""
    g = p.add_argument_group("k-fold and outputs")
    g.add_argument("--folds", type=int,
                   help="k equal folds fold0 .. fold{k-1} from one ILP (instead of --fractions); "
                        "adds a `fold` column 0..k-1")
    g.add_argument("--clusters-out", help="write the cluster id of every entity to this TSV (S1/S2)")
    g.add_argument("--verbose", action="store_true", help="print the MILP solver's log (e.g. HiGHS) to stderr")
    g.add_argument("--no-summary", dest="summary", action="store_false",
                   help="skip the summary block (the nearest-neighbour view beside random splits of the same fold "
                        "sizes); the leakage against random splits is still reported")
    g.add_argument("--scaffold-baseline", action="store_true",
                   help="add a Bemis-Murcko scaffold split of the same fractions to the summary (with --smiles-col; "
                        "parses every molecule again, so it costs about as much CPU as the split itself)")


def _task_name(text: str) -> str:
    """DataSAIL's tasks in upper case (s1 -> S1), the baselines (scaffold, butina) in lower case."""
    from benchdesign.splitting.options import TASKS

    return text.upper() if text.upper() in TASKS else text.lower()


def _sep(value: str | None) -> str | None:
    """``--sep`` value: ``tab`` / ``\\t`` -> a tab character; None -> sniffed."""
    return "\t" if value in ("tab", "\\t", "\t") else value


def _identity(args: argparse.Namespace):
    """The MMseqs2 identity settings of --coverage, --coverage-mode, --sensitivity, --max-seqs, --exact-check."""
    from benchdesign.splitting.mmseqs import IdentitySettings

    return IdentitySettings(coverage=args.coverage, coverage_mode=args.coverage_mode, sensitivity=args.sensitivity,
                            max_seqs=args.max_seqs, exact_check=args.exact_check)


def _add_similarity_arguments(p: argparse.ArgumentParser, required: bool) -> None:
    """Options that say how to compare the entities of --input (shared by `split` and `leakage`)."""
    from benchdesign.splitting.options import (
        COVERAGE_MODES,
        DEFAULT_COVERAGE,
        DEFAULT_COVERAGE_MODE,
        DEFAULT_MAX_SEQS,
        DEFAULT_SENSITIVITY,
        DEFAULT_SEQUENCE_SIMILARITY,
        EXHAUSTIVE_PAIRS,
        SEQUENCE_SIMILARITIES,
    )

    rep = p.add_mutually_exclusive_group(required=required)
    rep.add_argument("--smiles-col", help="SMILES column -> ECFP4 Tanimoto similarity")
    rep.add_argument("--sequence-col", help="protein sequence column -> --sequence-similarity (default: MMseqs2 "
                                            "identity)")
    rep.add_argument("--feature-cols", nargs="+", help="numeric feature columns -> --metric similarity")
    rep.add_argument("--matrix", help="precomputed matrix, .npy (dense) or .npz (scipy sparse), row order of --input")
    p.add_argument("--matrix-kind", choices=("similarity", "distance"), default="similarity")
    p.add_argument("--metric", choices=("cosine", "euclidean"), default="cosine", help="for --feature-cols")
    p.add_argument("--fp-bits", type=int, default=1024, help="ECFP length (default 1024)")
    p.add_argument("--fp-radius", type=int, default=2, help="Morgan radius (default 2 = ECFP4)")
    p.add_argument("--kmer", type=int, default=3,
                   help="k of the sequence k-mers (k-mer cosine, or the alignment's prefilter; default 3)")
    p.add_argument("--sequence-similarity", choices=SEQUENCE_SIMILARITIES, default=DEFAULT_SEQUENCE_SIMILARITY,
                   help=f"for --sequence-col(-b): 'mmseqs' = MMseqs2 identity (identical residues / aligned columns) of "
                        f"alignments covering >= --coverage of the sequences (--coverage-mode), every candidate of a "
                        f"-s --sensitivity search aligned; 'alignment' = Smith-Waterman identity (parasail; BLOSUM62, "
                        f"gap 11/1) of the k-mer prefilter's candidate pairs; 'kmer' = k-mer cosine (default "
                        f"{DEFAULT_SEQUENCE_SIMILARITY})")
    p.add_argument("--coverage", type=float, default=DEFAULT_COVERAGE,
                   help=f"mmseqs: smallest share of a sequence an alignment must span to count (MMseqs2 -c; default "
                        f"{DEFAULT_COVERAGE:g})")
    p.add_argument("--coverage-mode", type=int, choices=tuple(COVERAGE_MODES), default=DEFAULT_COVERAGE_MODE,
                   help="mmseqs: whose coverage counts (MMseqs2 --cov-mode): "
                        + ", ".join(f"{k} = {v}" for k, v in COVERAGE_MODES.items()) + f" (default {DEFAULT_COVERAGE_MODE})")
    p.add_argument("--sensitivity", type=float, default=DEFAULT_SENSITIVITY,
                   help=f"mmseqs: prefilter sensitivity of the all-against-all search beyond 10,000 sequences "
                        f"(MMseqs2 -s, 1-7.5; default "
                        f"{DEFAULT_SENSITIVITY:g})")
    p.add_argument("--max-seqs", type=int, default=DEFAULT_MAX_SEQS,
                   help=f"mmseqs: candidates aligned per sequence (MMseqs2 --max-seqs; default {DEFAULT_MAX_SEQS})")
    p.add_argument("--exact-check", action="store_true",
                   help=f"mmseqs: the checks after the split (--max-similarity, nearest training sequence) align "
                        f"every pair of different folds, however many: exact, CPU grows with test x training pairs "
                        f"(default: every pair up to {EXHAUSTIVE_PAIRS:,.0f} pairs, beyond a prefilter that can miss "
                        f"homologs)")
    p.add_argument("--sep", help="column delimiter of the input tables, e.g. ',' ';' or tab (default: from the "
                                 "header line, else tab for .tsv/.txt and comma otherwise)")
    p.add_argument("--clean-sequences", action="store_true",
                   help="remove digits, whitespace and gap / stop characters (- . *) from protein sequences instead "
                        "of refusing them (the changed ones are counted); lower case is always compared as upper case")


def _add_pair_table_arguments(g: argparse._ArgumentGroup, why: str) -> None:
    """The options of one long table of pairs (``--pairs``, ``--a-col`` ...), shared by `split` and `leakage`;
    ``why`` ends the help of --pairs."""
    from benchdesign.splitting.options import STRING_KINDS

    g.add_argument("--pairs", metavar="FILE",
                   help="one table with a row per pair (e.g. ligand SMILES, target sequence, affinity); each side's "
                        f"entities are the distinct values of --a-col / --b-col (or of --a-id-col / --b-id-col), so {why}")
    g.add_argument("--a-col", help="--pairs: column of side a (SMILES or sequences)")
    g.add_argument("--b-col", help="--pairs: column of side b (SMILES or sequences)")
    g.add_argument("--a-id-col", help="--pairs: id column of side a (default: the values of --a-col)")
    g.add_argument("--b-id-col", help="--pairs: id column of side b (default: the values of --b-col)")
    for side in ("a", "b"):
        g.add_argument(f"--{side}-kind", choices=STRING_KINDS, default="auto",
                       help=f"--pairs: read --{side}-col as SMILES or protein sequences (default auto: by the alphabet)")


def add_split_parser(subparsers: argparse._SubParsersAction) -> None:
    """``benchdesign split``: leakage-reduced data splitting (DataSAIL tasks R, I1, I2, S1, S2)."""
    from benchdesign.splitting.options import GROUP_TASKS, TASK_TABLE, TASKS

    p = subparsers.add_parser(
        "split",
        help="split a dataset into folds with low similarity-induced leakage (DataSAIL)",
        description=(
            "Split 1-D data (an entity table) or 2-D data (an interaction table plus two entity tables) "
            "into folds. Output TSV columns: id, split, reason (split 'unassigned' with reason "
            "invalid_smiles/invalid_sequence/invalid_features for rows excluded by --drop-invalid, or "
            "entities_in_different_folds for 2-D interactions dropped by I2/S2). Without --id-col the "
            "id is the 0-based row number. 2-D k-fold CV (--task I2/S2 --folds k) is cold on both sides by "
            "default (see --pair-scheme): the TSV adds columns fold_a and fold_b, the entity folds of each "
            "pair; fold f tests on the pairs with fold_a == fold_b == f and trains on those with neither "
            "equal to f; pairs whose entities are in different folds have split 'unassigned' (tested in no "
            "fold) but train in the other folds."
        ),
    )
    p.add_argument("--task", required=True, type=_task_name, choices=TASKS + tuple(GROUP_TASKS),
                   help="; ".join([*(f"{t.name} = {t.words}" for t in TASK_TABLE.values()),
                                   *(f"{name} = {words}" for name, words in GROUP_TASKS.items())]))
    p.add_argument("--input", help=FASTA_INPUT_HELP + "; side a for 2-D data (or --pairs)")
    p.add_argument("--out", required=True, help="output TSV (written atomically)")
    p.add_argument("--fractions", "--splits", dest="fractions", nargs="+", type=float,
                   help="split fractions, summing to 1 (or --folds); --splits is the older spelling")
    p.add_argument("--names", nargs="+", help="fold names (default split0 split1 ...)")
    p.add_argument("--id-col", help="id column (default: row number; id for a FASTA --input)")
    _add_similarity_arguments(p, required=False)
    p.add_argument("--class-col", nargs="+", action="extend", help="class column(s) for stratification (eq. 4)")
    p.add_argument("--drop-invalid", action="store_true",
                   help="leave rows with invalid SMILES/sequences/features unassigned instead of failing")
    p.add_argument("--report", help="write a JSON report (solver status, leakage, fold sizes, certificate)")
    _add_crossval_arguments(p)
    _add_split_options(p)
    g2 = p.add_argument_group("2-D data: one long table of pairs, or an interaction table and two entity tables")
    _add_pair_table_arguments(g2, "a molecule or sequence in many rows is one entity in one fold")
    g2.add_argument("--interactions", help="interaction table with one row per (id_a, id_b) pair")
    g2.add_argument("--inter-a-col", default="id_a", help="column of side-a ids (default id_a)")
    g2.add_argument("--inter-b-col", default="id_b", help="column of side-b ids (default id_b)")
    g2.add_argument("--inter-id-col", help="interaction id column (default: row number)")
    g2.add_argument("--side", choices=("a", "b"), default="a",
                    help="side split by I1/S1 on 2-D data (cold on that side: fold f tests on the pairs whose "
                         "entity is in f)")
    g2.add_argument("--duplicate-pairs", choices=("keep", "merge", "refuse"), default="keep",
                    help="rows whose (a, b) pair repeats an earlier row's: keep (default: split as rows of their own), "
                         "merge (the first row of each pair is split, the others unassigned with reason "
                         "duplicate_pair) or refuse (an error naming them); always counted in the summary and report")
    g2.add_argument("--entity-folds", metavar="FILE",
                    help="write the fold of every entity of a 2-D I1/I2/S1/S2 split to this TSV (columns side, "
                         "id, fold, split; written atomically)")
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
    from benchdesign.splitting.leakage_report import compare_split_files, format_comparison

    report = compare_split_files(
        args.input, args.compare, id_col=args.id_col, smiles_col=args.smiles_col, sequence_col=args.sequence_col,
        feature_cols=tuple(args.feature_cols or ()), matrix=args.matrix, matrix_kind=args.matrix_kind,
        metric=args.metric, split_id_col=args.split_id_col, split_col=args.split_col,
        drop_invalid=args.drop_invalid, radius=args.fp_radius, n_bits=args.fp_bits, kmer=args.kmer,
        test=args.test, train=args.train, sequence_similarity=args.sequence_similarity, folds=args.folds,
        identity=_identity(args),
        sep=_sep(args.sep), clean_sequences=args.clean_sequences,
    )
    print(format_comparison(report))
    if args.json:
        write_atomic(args.json, json.dumps(report, indent=2) + "\n")
    return 0


def _leakage_command(args: argparse.Namespace) -> int:
    import json

    from benchdesign.files import check_output_paths, write_atomic
    from benchdesign.splitting.leakage_report import evaluate_split_files, format_report, leakage_shard_files

    check_output_paths({"--json": args.json, "--shard-out": args.shard_out},
                       {"--input": args.input, "--split": args.split, "--matrix": args.matrix, "--pairs": args.pairs,
                        "--interactions": args.interactions, "--input-b": args.input_b, "--matrix-b": args.matrix_b})
    if not args.pairs:
        _check_no_pair_table_options(args)
    _fasta_defaults(args)
    if args.pairs or args.interactions or args.input_b:
        return _leakage_pairs_command(args)
    if not args.input:
        raise ValueError("give the entity table (--input), or for 2-D data one long table of pairs (--pairs)")
    _require_similarity(args, "")
    if args.compare:
        return _leakage_compare_command(args)
    read = dict(
        id_col=args.id_col, smiles_col=args.smiles_col, sequence_col=args.sequence_col,
        feature_cols=tuple(args.feature_cols or ()), matrix=args.matrix, matrix_kind=args.matrix_kind,
        metric=args.metric, split_id_col=args.split_id_col, split_col=args.split_col,
        drop_invalid=args.drop_invalid, radius=args.fp_radius, n_bits=args.fp_bits, kmer=args.kmer,
        sequence_similarity=args.sequence_similarity, sep=_sep(args.sep), identity=_identity(args),
        clean_sequences=args.clean_sequences,
    )
    if args.shard is not None:
        if not args.shard_out:
            raise ValueError("--shard needs --shard-out (the shard's .npz file)")
        index, count = args.shard
        n = leakage_shard_files(args.input, args.split, index, count, args.shard_out, **read)
        from benchdesign.logs import logger

        logger("leakage").info(f"shard {index} of {count}: {n} tiles -> {args.shard_out}")
        return 0
    report = evaluate_split_files(
        args.input, args.split, test=args.test, train=args.train, quantiles=args.quantiles, folds=args.folds,
        sample=args.sample, confidence=args.confidence, seed=args.sample_seed, sample_test=args.sample_test,
        random_seed=args.seed, scaffold_baseline=args.scaffold_baseline, **read,
    )
    print(format_report(report))
    if args.json:
        write_atomic(args.json, json.dumps(report, indent=2) + "\n")
    return 0


def _require_similarity(args: argparse.Namespace, suffix: str) -> None:
    """Refuse an entity table without a representation: ``suffix`` '' for --input, '_b' for --input-b."""
    options = ("smiles_col", "sequence_col", "feature_cols", "matrix")
    if not any(getattr(args, name + suffix) for name in options):
        flags = ["--" + (name + suffix).replace("_", "-") for name in options]
        what = "side b" if suffix else ("side a" if args.input_b or args.interactions else "--input")
        raise ValueError(f"{what} needs a similarity: give {', '.join(flags[:-1])} or {flags[-1]}")


def _leakage_pairs_command(args: argparse.Namespace) -> int:
    """``benchdesign leakage --pairs ... | --interactions ...``: per-side leakage of a 2-D split (the per-pair
    `split` TSV)."""
    import json

    from benchdesign.files import write_atomic
    from benchdesign.splitting.leakage_report import evaluate_pair_split_files, format_pair_report

    refused = [opt for opt, given in (("--compare", args.compare), ("--sample", args.sample is not None),
                                      ("--shard", args.shard is not None)) if given]
    if refused:
        raise ValueError(f"{', '.join(refused)}: 1-D data only; a 2-D split is scored exactly per side")
    inputs = _pair_table_inputs(args) if args.pairs else _pair_files_inputs(args)
    if args.fp_radius < 0 or args.fp_bits < 8 or args.kmer < 1:
        raise ValueError(f"need --fp-radius >= 0, --fp-bits >= 8 and --kmer >= 1; got {args.fp_radius}, "
                         f"{args.fp_bits}, {args.kmer}")
    report = evaluate_pair_split_files(
        inputs, args.split, split_id_col=args.split_id_col, split_col=args.split_col, pair_scheme=args.pair_scheme,
        seed=args.seed, test=args.test, train=args.train, quantiles=args.quantiles, folds=args.folds,
    )
    print(format_pair_report(report))
    if args.json:
        write_atomic(args.json, json.dumps(report, indent=2) + "\n")
    return 0


def _pair_reading(args: argparse.Namespace) -> dict:
    """How `leakage` reads 2-D inputs: the ``PairInputs`` fields other than the tables and their columns."""
    return dict(inter_id_col=args.inter_id_col, drop_invalid=args.drop_invalid, radius=args.fp_radius,
                n_bits=args.fp_bits, kmer=args.kmer, sep=_sep(args.sep), clean_sequences=args.clean_sequences)


def _pair_table_inputs(args: argparse.Namespace):
    """The ``PairInputs`` of ``--pairs FILE --a-col ... --b-col ...``: the interactions are the table's rows,
    whose row numbers (or --inter-id-col) are the ids of `split --pairs` output."""
    from benchdesign.splitting.pipeline import PairInputs

    side_a, side_b = _pair_table_sides(args)
    return PairInputs(interactions=args.pairs, entities=side_a, entities_b=side_b, inter_a_col=side_a.id_col,
                      inter_b_col=side_b.id_col, **_pair_reading(args))


def _pair_files_inputs(args: argparse.Namespace):
    """The ``PairInputs`` of ``--interactions ... --input ... --input-b ...`` (an entity table per side)."""
    from benchdesign.splitting.pipeline import EntityInput, PairInputs

    if not (args.interactions and args.input and args.input_b):
        raise ValueError("2-D data needs the interaction table (--interactions) and an entity table per side "
                         "(--input and --input-b), or one long table of pairs (--pairs)")
    _require_similarity(args, "")
    _require_similarity(args, "_b")
    side = dict(sequence_similarity=args.sequence_similarity, identity=_identity(args))
    return PairInputs(
        interactions=args.interactions, inter_a_col=args.inter_a_col, inter_b_col=args.inter_b_col,
        **_pair_reading(args),
        entities=EntityInput(
            path=args.input, id_col=args.id_col, smiles_col=args.smiles_col, sequence_col=args.sequence_col,
            feature_cols=tuple(args.feature_cols or ()), matrix=args.matrix, matrix_kind=args.matrix_kind,
            metric=args.metric, **side),
        entities_b=EntityInput(
            path=args.input_b, id_col=args.id_col_b, smiles_col=args.smiles_col_b, sequence_col=args.sequence_col_b,
            feature_cols=tuple(args.feature_cols_b or ()), matrix=args.matrix_b, matrix_kind=args.matrix_kind_b,
            metric=args.metric_b, **side),
    )


def _add_pair_leakage_arguments(p: argparse.ArgumentParser) -> None:
    """The 2-D options of `leakage`: those of `split` (one long table of pairs, or the interaction table,
    side-b table and representation)."""
    from benchdesign.splitting.options import PAIR_SCHEMES

    g = p.add_argument_group(
        "2-D data", "score the per-pair TSV of `split --pairs` or `split --interactions` per side (a = --a-col or "
                    "--input, b = --b-col or --input-b): entity folds from fold_a/fold_b when present, else from "
                    "the pairs' split labels")
    _add_pair_table_arguments(g, "every fold counts distinct entities; give the --pairs, --a-col ... given to split")
    g.add_argument("--interactions", help="interaction table with one row per (id_a, id_b) pair, as given to split")
    g.add_argument("--inter-a-col", default="id_a", help="column of side-a ids (default id_a)")
    g.add_argument("--inter-b-col", default="id_b", help="column of side-b ids (default id_b)")
    g.add_argument("--inter-id-col", help="id column of --interactions or --pairs (default: row number, as in split)")
    g.add_argument("--input-b", help="entity table of side b")
    g.add_argument("--id-col-b", help="id column of --input-b (default: row number)")
    rep_b = g.add_mutually_exclusive_group()
    rep_b.add_argument("--smiles-col-b", help="SMILES column of side b")
    rep_b.add_argument("--sequence-col-b", help="sequence column of side b (--sequence-similarity)")
    rep_b.add_argument("--feature-cols-b", nargs="+", help="numeric feature columns of side b")
    rep_b.add_argument("--matrix-b", help="precomputed matrix of side b (.npy / .npz, row order of --input-b)")
    g.add_argument("--matrix-kind-b", choices=("similarity", "distance"), default="similarity")
    g.add_argument("--metric-b", choices=("cosine", "euclidean"), default="cosine")
    g.add_argument("--pair-scheme", choices=PAIR_SCHEMES, default="cold_both",
                   help="scheme of a k-fold file (fold_a/fold_b), as given to split: cold_both (default; pairs "
                        "tested in no fold keep their entity folds) or same_fold (only the kept pairs count)")
    g.add_argument("--seed", type=int, default=0,
                   help="seed of the random splits of the same (entity) fold sizes, per side for 2-D data (default 0)")


def _leakage_reduce_command(args: argparse.Namespace) -> int:
    import json

    from benchdesign.files import check_output_paths, write_atomic
    from benchdesign.splitting.leakage import reduce_leakage_shards

    check_output_paths({"--json": args.json}, {f"shard {i + 1}": path for i, path in enumerate(args.shards)})
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
            "matrix. Entities missing from the split file, or labelled 'unassigned' or empty, are left out. "
            "2-D data (--pairs, or --interactions and --input-b): the per-pair TSV of `split` is scored per side "
            "(entity folds from fold_a/fold_b, else from the pairs' labels) against a random split of the same "
            "entity fold sizes; every count is of distinct entities per side and fold."
        ),
    )
    p.add_argument("--input", help=FASTA_INPUT_HELP + "; side a of 2-D data (or --pairs)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--split", help="split table (CSV/TSV) with an id and a fold column")
    which.add_argument("--compare", nargs="+", metavar="SPLIT",
                       help="several split tables of the same entities (e.g. from different tools): one table")
    p.add_argument("--id-col", help="id column of --input (default: 0-based row number, as in `split`; id for a "
                                    "FASTA --input)")
    p.add_argument("--split-id-col", default="id", help="id column of --split (default id)")
    p.add_argument("--split-col", default="split", help="fold column of --split (default split)")
    _add_similarity_arguments(p, required=False)
    p.add_argument("--drop-invalid", action="store_true",
                   help="leave rows with invalid SMILES/sequences/features out even when the split puts them in a "
                        "fold (those the split leaves out, e.g. `split --drop-invalid` output, always are)")
    p.add_argument("--fold-names", "--folds", dest="folds", nargs="+",
                   help="the fold names the split file may use; other labels are reported as errors (default: "
                        "any, but names differing only in case are refused). --folds is the older spelling; in "
                        "`split`, --folds is a number of folds")
    p.add_argument("--test", nargs="+", help="fold(s) to report eq. (1) statistics for (default: every fold)")
    p.add_argument("--train", nargs="+", help="training fold(s) of eq. (1) (default: all other folds)")
    p.add_argument("--quantiles", nargs="+", type=float, default=list(DEFAULT_QUANTILES),
                   help="quantiles of the max-train-similarity distribution to report")
    p.add_argument("--json", "--report", dest="json", help="also write the report as JSON (atomically)")
    p.add_argument("--scaffold-baseline", action="store_true",
                   help="with --smiles-col: add a Bemis-Murcko scaffold split of the same fractions to the summary")
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
    _add_pair_leakage_arguments(p)
    p.set_defaults(func=_leakage_command)


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    add_split_parser, add_leakage_parser, add_leakage_reduce_parser, *SELECTION_SUBCOMMANDS,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchdesign",
        description="Rank-preserving benchmark dataset selection and leakage-reduced data splitting.",
        epilog=OUTPUT_RULE,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress lines on stderr (warnings and errors only); results still go to stdout")
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    for add in SUBCOMMANDS:
        add(sub)
    for command in sub.choices.values():  # also after the subcommand: `benchdesign split ... --quiet`
        command.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                             help="no progress lines on stderr (warnings and errors only)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    from benchdesign.logs import console_logging

    parser = build_parser()
    args = parser.parse_args(argv)
    console_logging(quiet=args.quiet)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError:  # e.g. `benchdesign agreement ... | head`: end quietly
        _silence_stdout()
        return 1
    except ValueError as err:  # bad input or options: clear message, nothing written
        print(f"benchdesign {args.command}: error: {err}", file=sys.stderr)
        return 2
    except (RuntimeError, OSError) as err:  # OSError: e.g. a disk that filled up while an output was written
        print(f"benchdesign {args.command}: failed: {err}", file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so flushing it at exit raises no second BrokenPipeError."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (e.g. captured)
        pass


if __name__ == "__main__":
    sys.exit(main())
