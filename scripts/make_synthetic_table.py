"""Table 4 (synthetic oracle-vs-broken ablation) and its figure."""

from pathlib import Path

from benchdesign.selection.markdown import table4_markdown
from benchdesign.selection.plotting import plot_synthetic, save_figure
from benchdesign.selection.synthetic import seeds_note
from benchdesign.selection.tables import table4
from benchdesign.workflow.io import read_trials, write_csv, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
per_seed = read_trials(snakemake.input)
table = table4(per_seed)
write_csv(table, snakemake.output.table)
write_text(table4_markdown(table) + "\n" + seeds_note(per_seed), snakemake.output.markdown)
save_figure(plot_synthetic(table), Path(snakemake.output.png).with_suffix(""))
log.info("table 4: %d rows; %s", len(table), seeds_note(per_seed).strip())
