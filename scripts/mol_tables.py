"""Gather the split and model records into split_leakage.csv, split_performance.csv and split_summary.md."""

import json
from pathlib import Path

from benchdesign.molexp.scoring import leakage_table, performance_table, protein_representations, summary_markdown
from benchdesign.workflow.io import write_csv, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
splits = [json.loads(Path(p).read_text()) for p in snakemake.input.splits]
scores = [json.loads(Path(p).read_text()) for p in snakemake.input.scores]
leakage = leakage_table(splits)
performance = performance_table(scores)
not_run = [f"{r['dataset']}/{r['split_method']}/{r['repeat']}: {r['status']}" for r in splits if r["status"] != "ok"]
for line in not_run:
    log.warning("split not made: %s", line)
log.info("%d splits (%d not made), %d model scores", len(leakage), len(not_run), len(performance))
write_csv(leakage, snakemake.output.leakage)
write_csv(performance, snakemake.output.performance)
write_text(summary_markdown(leakage, performance, protein_representations(scores)), snakemake.output.summary)
