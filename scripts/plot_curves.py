"""Fig. 2-style curves (PNG + PDF) for one domain and variation."""

from pathlib import Path

from benchdesign.domains import DOMAIN_LABELS
from benchdesign.selection.aggregation import curves
from benchdesign.selection.plotting import plot_curves, save_figure
from benchdesign.workflow.io import read_trials
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc = snakemake.wildcards
figure = plot_curves(curves(read_trials(snakemake.input.trials)), wc.domain, variation=wc.variation,
                     domain_label=DOMAIN_LABELS.get(wc.domain))
save_figure(figure, Path(snakemake.output.png).with_suffix(""))
log.info("figure written: %s", snakemake.output.png)
