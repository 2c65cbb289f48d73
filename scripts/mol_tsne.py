"""t-SNE coloured by fold, one panel per split (repeat 0): of the molecule fingerprints (Tanimoto) and, for
drug-target pairs, a second row of the protein features (Euclidean)."""

from pathlib import Path

from benchdesign.molexp.experiment import load_experiment, read_folds
from benchdesign.molexp.plots import split_tsne_figure
from benchdesign.selection.plotting import save_figure
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc = snakemake.wildcards
data = load_experiment(wc.dataset, snakemake.input.samples, snakemake.input.molecules, snakemake.input.proteins,
                       snakemake.input.features)
folds = {Path(p).parent.name: read_folds(p, data.samples["id"].tolist()) for p in snakemake.input.folds}
figure = split_tsne_figure(data, folds, snakemake.params.max_points, snakemake.params.seed)
save_figure(figure, Path(snakemake.output.png).with_suffix(""))
log.info("t-SNE of %s, splits %s: %s", wc.dataset, ", ".join(folds), snakemake.output.png)
