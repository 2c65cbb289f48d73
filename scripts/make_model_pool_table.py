"""AUC table of the model-pool variation and its mean curves."""

import pandas as pd

from benchdesign.domains import BUILTIN_DOMAINS as ORDER
from benchdesign.domains import DOMAIN_LABELS as LABELS
from benchdesign.selection.aggregation import curves
from benchdesign.selection.markdown import table1_markdown
from benchdesign.selection.tables import table1
from benchdesign.workflow.io import read_trials, write_csv, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
trials = read_trials(snakemake.input.trials)
n_datasets = {
    path.split("/")[-2]: len(pd.read_csv(path, index_col=0)) for path in snakemake.input.ranks
}
write_csv(curves(trials, domain_order=ORDER), snakemake.output.curves)
table = table1(trials, n_datasets, domain_order=ORDER)
write_csv(table, snakemake.output.table1)
write_text(table1_markdown(table, LABELS, ORDER), snakemake.output.table1_md)
log.info("model-pool table: %d rows", len(table))
