"""Tables 1-3 (CSV + Markdown) and the mean curves from the dataset-pool trials."""

import pandas as pd

from benchdesign.selection import aggregate
from benchdesign.workflow.logs import start_log
from benchdesign.workflow.io import read_trials, write_csv, write_text

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
out = snakemake.output
trials = read_trials(snakemake.input.trials)
n_datasets = {
    path.split("/")[-2]: len(pd.read_csv(path, index_col=0)) for path in snakemake.input.ranks
}
log.info("%d trial rows from %d files; datasets per domain %s",
         len(trials), len(snakemake.input.trials), n_datasets)

curves = aggregate.curves(trials)
write_csv(curves, out.curves)
trial_auc = aggregate.trial_auc(trials)
write_csv(trial_auc, out.trial_auc)

table1 = aggregate.table1(trials, n_datasets)
write_csv(table1, out.table1)
write_text(aggregate.table1_markdown(table1), out.table1_md)

per_config = aggregate.kstar_per_config(curves, snakemake.params.thresholds)
write_csv(per_config, out.table2_per_config)
table2 = aggregate.table2(curves, snakemake.params.thresholds)
write_csv(table2, out.table2)
write_text(aggregate.table2_markdown(table2), out.table2_md)

table3 = aggregate.table3(trial_auc)
write_csv(table3, out.table3)
summary = aggregate.table3_summary(table3, aggregate.reference_auc(trial_auc))
write_csv(summary, out.table3_summary)
write_text(aggregate.table3_markdown(summary), out.table3_md)
log.info("tables written")
