"""Fig. 2-style curves (PNG + PDF) for one domain and variation."""

from pathlib import Path

import pandas as pd

from benchdesign.logs import start_log
from benchdesign.plotting import plot_curves, save_figure

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc = snakemake.wildcards
curves = pd.read_csv(snakemake.input.curves)
figure = plot_curves(curves, wc.domain, variation=wc.variation)
save_figure(figure, Path(snakemake.output.png).with_suffix(""))
log.info("figure written: %s", snakemake.output.png)
