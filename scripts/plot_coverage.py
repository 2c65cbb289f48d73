"""Covering radius against k beside the bound and the p_eff fit, for one domain and representation."""

from pathlib import Path

import pandas as pd

from benchdesign.domains import DOMAIN_LABELS
from benchdesign.selection.frames import representation_label
from benchdesign.selection.guarantee import p_eff_table
from benchdesign.selection.plotting import plot_coverage, save_figure
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc = snakemake.wildcards
coverage = pd.read_csv(snakemake.input[0])
figure = plot_coverage(coverage, p_eff_table(coverage),
                       f"{DOMAIN_LABELS.get(wc.domain, wc.domain)} / {representation_label(wc.representation)}: "
                       "covering radius of the selection over the pool")
save_figure(figure, Path(snakemake.output.png).with_suffix(""))
log.info("figure written: %s", snakemake.output.png)
