"""Snakemake script of rule `split_dataset`: reads snakemake.input/params/output, calls the library."""

import sys

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821 (injected by Snakemake)

from threadpoolctl import threadpool_limits  # noqa: E402

from benchdesign.splitting.pipeline import EntityInput, SplitJob, run_split, summarize  # noqa: E402
from benchdesign.splitting.tasks import SplitSpec, kfold_spec  # noqa: E402

inp, par, out = snakemake.input, snakemake.params, snakemake.output  # noqa: F821

spec = SplitSpec(
    fractions=tuple(float(x) for x in par.fractions),
    names=tuple(str(x) for x in par.names),
    n_clusters=int(par.clusters),
    epsilon=float(par.epsilon),
    delta=float(par.delta),
    linkage=par.linkage,
    solver=par.solver,
    time_limit=float(par.time_limit),
    seed=int(par.seed),
    n_micro=int(par.micro_clusters),
    refine=bool(par.refine),
    node_limit=None if par.node_limit is None else int(par.node_limit),
    mip_gap=par.mip_gap,
    max_similarity=None if par.max_similarity is None else float(par.max_similarity),
    threshold_action=par.threshold_action,
    certificate_seeds=int(par.certificate_seeds),
)
if par.folds is not None:  # k equal folds fold0 .. fold{k-1} replace fractions/names
    spec = kfold_spec(int(par.folds), spec)
side_a = EntityInput(
    path=inp.table, id_col=par.id_col, smiles_col=par.smiles_col, sequence_col=par.sequence_col,
    feature_cols=tuple(par.feature_cols), matrix=inp.get("matrix"), matrix_kind=par.matrix_kind,
    metric=par.metric, class_cols=tuple(par.class_cols), sequence_similarity=par.sequence_similarity,
)
side_b = None
if inp.get("input_b"):
    side_b = EntityInput(
        path=inp.input_b, id_col=par.id_col_b, smiles_col=par.smiles_col_b, sequence_col=par.sequence_col_b,
        feature_cols=tuple(par.feature_cols_b), matrix=inp.get("matrix_b"), matrix_kind=par.matrix_kind_b,
        metric=par.metric_b, class_cols=tuple(par.class_cols_b), sequence_similarity=par.sequence_similarity,
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
