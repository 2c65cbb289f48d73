"""t-SNE of the dataset's molecule fingerprints coloured by fold, one panel per split (repeat 0)."""

from pathlib import Path

from benchdesign.molexp.experiment import entity_fold_labels, load_experiment, read_folds
from benchdesign.molexp.plots import dataset_label, fingerprint_tsne, method_label, tsne_figure
from benchdesign.selection.plotting import save_figure
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc = snakemake.wildcards
data = load_experiment(wc.dataset, snakemake.input.samples, snakemake.input.molecules, snakemake.input.proteins,
                       snakemake.input.features)
index, embedding = fingerprint_tsne(data.molecule_bits, snakemake.params.max_points, snakemake.params.seed)
panels = []
for path in snakemake.input.folds:
    folds = read_folds(path, data.samples["id"].tolist())
    labels = entity_fold_labels(data.molecule_index, folds, len(data.molecules))
    panels.append((method_label(Path(path).parent.name, wc.dataset), labels[index]))
what = "molecules" if data.protein_index is None else "drugs"
figure = tsne_figure(embedding, panels, f"{dataset_label(wc.dataset)}: t-SNE of ECFP4 ({len(index)} {what}), coloured by fold")
save_figure(figure, Path(snakemake.output.png).with_suffix(""))
log.info("t-SNE of %d %s, %d panels: %s", len(index), what, len(panels), snakemake.output.png)
