"""p_eff per domain, representation, strategy and metric from the covering-radius tables."""

import pandas as pd

from benchdesign.selection.frames import class_column
from benchdesign.selection.guarantee import p_eff_table
from benchdesign.selection.markdown import to_markdown
from benchdesign.workflow.io import write_csv, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
frames = []
for path in snakemake.input:
    coverage = pd.read_csv(path)
    table = p_eff_table(coverage)
    table.insert(0, "representation", coverage["representation"].iloc[0])
    table.insert(0, "domain", coverage["domain"].iloc[0])
    frames.append(table)
table = pd.concat(frames, ignore_index=True)
table["class"] = class_column(table)  # a priori, or informed on the oracle
write_csv(table, snakemake.output.csv)
write_text(to_markdown(table, floatfmt=".3g") + "\n", snakemake.output.md)
log.info("p_eff of %d curves", len(table))
