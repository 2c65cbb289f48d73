"""AUC table of the model-pool variation and its mean curves, and the single full run of each of its
configurations (every dataset, every model) that the paper compares the model-pool trials with."""

import pandas as pd

from benchdesign.domains import BUILTIN_DOMAINS as ORDER
from benchdesign.domains import DOMAIN_LABELS as LABELS
from benchdesign.selection.aggregation import curves
from benchdesign.selection.markdown import table1_markdown
from benchdesign.selection.protocol import score_cube, single_full_run
from benchdesign.selection.tables import table1
from benchdesign.workflow.io import read_representation, read_trials, write_csv, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
trials = read_trials(snakemake.input.trials)
n_datasets = {
    path.split("/")[-2]: len(pd.read_csv(path, index_col=0)) for path in snakemake.input.ranks
}
write_csv(curves(trials, domain_order=ORDER), snakemake.output.curves)
table = table1(trials, n_datasets, domain_order=ORDER)
write_csv(table, snakemake.output.table1)
write_text(table1_markdown(table, LABELS, ORDER), snakemake.output.table1_md)
log.info("model-pool table: %d rows", len(table))

runs = []
for run in snakemake.params.full_runs:
    ranks = pd.read_csv(run["ranks"], index_col=0)
    cube = score_cube(pd.read_csv(run["scores"]), ranks.index, ranks.columns)
    settings = run["settings"]
    frame = single_full_run(cube, snakemake.params.higher_is_better[run["domain"]],
                            read_representation(run["representation_file"], ranks.index), run["strategy"],
                            settings["ks"], snakemake.params.seed, settings["options"],
                            settings.get("standardize", "all"))
    runs.append(frame.assign(domain=run["domain"], representation=run["representation"], strategy=run["strategy"]))
columns = ["domain", "representation", "strategy", "k", "metric", "value"]
full = pd.concat(runs, ignore_index=True)[columns] if runs else pd.DataFrame(columns=columns)
write_csv(full, snakemake.output.full_run)
log.info("single full runs: %d configurations", len(runs))
