"""Tables 1-3 (CSV + Markdown), the mean curves and the "which strategy for k" verdicts from the dataset-pool
(or the model-holdout) trials."""

import pandas as pd

from benchdesign.domains import BUILTIN_DOMAINS as ORDER
from benchdesign.domains import DOMAIN_LABELS as LABELS
from benchdesign.selection import aggregation, markdown, tables
from benchdesign.selection.protocol import holdout_size
from benchdesign.selection.verdicts import FULL_REFERENCE, strategy_verdicts, verdict_text
from benchdesign.workflow.io import read_trials, write_csv, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
out = snakemake.output
trials = read_trials(snakemake.input.trials)
shapes = {path.split("/")[-2]: pd.read_csv(path, index_col=0).shape for path in snakemake.input.ranks}
n_datasets = {domain: n for domain, (n, _) in shapes.items()}
# the models each rho is computed on: all of them, or (model holdout) the held-out ones of every trial
fractions = getattr(snakemake.params, "holdout_fraction", None)
n_judges = {domain: holdout_size(m, fractions[domain]) if fractions else m for domain, (_, m) in shapes.items()}
log.info("%d trial rows from %d files; datasets per domain %s",
         len(trials), len(snakemake.input.trials), n_datasets)

curves = aggregation.curves(trials, domain_order=ORDER)
write_csv(curves, out.curves)
trial_auc = aggregation.trial_auc(trials, domain_order=ORDER)
write_csv(trial_auc, out.trial_auc)

table1 = tables.table1(trials, n_datasets, domain_order=ORDER)
write_csv(table1, out.table1)
write_text(markdown.table1_markdown(table1, LABELS, ORDER), out.table1_md)

per_config = aggregation.kstar_per_config(curves, snakemake.params.thresholds, domain_order=ORDER)
write_csv(per_config, out.table2_per_config)
table2 = tables.table2(curves, snakemake.params.thresholds, domain_order=ORDER)
write_csv(table2, out.table2)
write_text(markdown.table2_markdown(table2, LABELS), out.table2_md)

table3 = tables.table3(trial_auc, domain_order=ORDER)
write_csv(table3, out.table3)
summary = tables.table3_summary(table3, tables.reference_auc(trial_auc, domain_order=ORDER), domain_order=ORDER)
write_csv(summary, out.table3_summary)
write_text(markdown.table3_markdown(summary, LABELS), out.table3_md)

verdicts = strategy_verdicts(trials, n_datasets, snakemake.params.alpha, "spearman",
                             snakemake.params.thresholds["spearman"], domain_order=ORDER, n_judges=n_judges)
write_csv(verdicts, out.recommendation_csv)
reference = getattr(snakemake.params, "reference", None) or FULL_REFERENCE
write_text(verdict_text(verdicts, domain_labels=LABELS, reference=reference) + "\n", out.recommendation)
log.info("tables written")
