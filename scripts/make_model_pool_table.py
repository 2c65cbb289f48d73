"""AUC table of the model-pool variation and its mean curves."""

import pandas as pd

from benchdesign.selection import aggregate
from benchdesign.workflow.logs import start_log
from benchdesign.workflow.io import read_trials, write_csv, write_text

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
trials = read_trials(snakemake.input.trials)
n_datasets = {
    path.split("/")[-2]: len(pd.read_csv(path, index_col=0)) for path in snakemake.input.ranks
}
write_csv(aggregate.curves(trials), snakemake.output.curves)
table = aggregate.table1(trials, n_datasets)
write_csv(table, snakemake.output.table1)
write_text(aggregate.table1_markdown(table), snakemake.output.table1_md)
log.info("model-pool table: %d rows", len(table))
