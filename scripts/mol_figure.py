"""Fig. 3-5 style figure of one dataset: test scores per model and split beside the splits' scaled L(pi)."""

from pathlib import Path

import pandas as pd

from benchdesign.molexp.plots import performance_figure
from benchdesign.selection.plotting import save_figure
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
figure = performance_figure(pd.read_csv(snakemake.input.leakage), pd.read_csv(snakemake.input.performance),
                            snakemake.wildcards.dataset)
save_figure(figure, Path(snakemake.output.png).with_suffix(""))
log.info("figure written: %s", snakemake.output.png)
