"""Snakemake script of rule `split_dataset`: reads snakemake.input/params/output, calls the library."""

import sys

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821 (injected by Snakemake)

from threadpoolctl import threadpool_limits  # noqa: E402

from benchdesign.logs import console_logging  # noqa: E402
from benchdesign.splitting.mmseqs import IdentitySettings  # noqa: E402
from benchdesign.splitting.options import SPLIT_OPTIONS  # noqa: E402
from benchdesign.splitting.pipeline import EntityInput, SplitJob, run_split, summarize  # noqa: E402
from benchdesign.splitting.tasks import SplitSpec  # noqa: E402

console_logging()  # the stage lines into the log
inp, par, out = snakemake.input, snakemake.params, snakemake.output  # noqa: F821

layout = {"folds": par.folds, "fractions": par.fractions, "names": par.names}  # folds replace fractions/names
spec = SplitSpec.from_options({**{o.name: getattr(par, o.name) for o in SPLIT_OPTIONS}, **layout})
identity = IdentitySettings(coverage=par.coverage, coverage_mode=int(par.coverage_mode), sensitivity=par.sensitivity,
                            max_seqs=int(par.max_seqs))
side_a = EntityInput(
    path=inp.table, id_col=par.id_col, smiles_col=par.smiles_col, sequence_col=par.sequence_col,
    feature_cols=tuple(par.feature_cols), matrix=inp.get("matrix"), matrix_kind=par.matrix_kind,
    metric=par.metric, class_cols=tuple(par.class_cols), sequence_similarity=par.sequence_similarity, identity=identity,
)
side_b = None
if inp.get("input_b"):
    side_b = EntityInput(
        path=inp.input_b, id_col=par.id_col_b, smiles_col=par.smiles_col_b, sequence_col=par.sequence_col_b,
        feature_cols=tuple(par.feature_cols_b), matrix=inp.get("matrix_b"), matrix_kind=par.matrix_kind_b,
        metric=par.metric_b, class_cols=tuple(par.class_cols_b), sequence_similarity=par.sequence_similarity,
        identity=identity,
    )
job = SplitJob(
    task=par.task, entities=side_a, out=out.tsv, spec=spec, interactions=inp.get("interactions"),
    inter_a_col=par.inter_a_col, inter_b_col=par.inter_b_col, inter_id_col=par.inter_id_col,
    entities_b=side_b, side=par.side, drop_invalid=bool(par.drop_invalid), radius=int(par.fp_radius),
    n_bits=int(par.fp_bits), kmer=int(par.kmer), report=out.report, fold_column=par.folds is not None,
    sep=par.sep,
)
with threadpool_limits(limits=snakemake.threads):  # noqa: F821
    result = run_split(job)
print(summarize(result), file=sys.stderr)
