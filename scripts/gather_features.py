"""Stack the per-dataset feature vectors of one TSC representation (one file per batch) into the raw matrix."""

import pandas as pd

from benchdesign.domains.tsc.features import gather_features
from benchdesign.workflow.io import write_csv, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
vectors = [pd.read_csv(path, index_col=0) for path in snakemake.input.vectors]
if not vectors:
    raise ValueError("no dataset is available: see results/features/tsc/available.csv")
present = {str(name) for v in vectors for name in v.index}
order = [d for d in snakemake.params.order if d in present]
matrix, dropped, imputed = gather_features(
    vectors, order=order, max_missing_fraction=snakemake.params.max_missing_fraction,
    column_filter=snakemake.params.column_filter)
log.info("%s: %d datasets x %d features", snakemake.wildcards.representation, *matrix.shape)
if dropped and snakemake.params.column_filter == "paper":
    log.info("dropped %d feature(s) with a NaN, an |x| > 1e9 or a single value (the paper's filter): "
             "%s%s", len(dropped), ", ".join(map(str, dropped[:40])), ", ..." if len(dropped) > 40 else "")
elif dropped:
    log.info("dropped %d feature(s) undefined for more than %.0f%% of the datasets: %s", len(dropped),
             100 * snakemake.params.max_missing_fraction, ", ".join(map(str, dropped)))
if imputed:
    log.info("filled %d feature(s) with the median over datasets: %s", len(imputed),
             ", ".join(f"{c} ({n})" for c, n in imputed.items()))
write_csv(matrix, snakemake.output.matrix, index=True)
write_text("".join(f"{d}\n" for d in matrix.index), snakemake.output.datasets)
