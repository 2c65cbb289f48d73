"""Fig. 6 tables (one per sweep) and the four-panel figure."""

import json
from pathlib import Path

import pandas as pd

from benchdesign.molexp.plots import ablation_figure
from benchdesign.selection.plotting import save_figure
from benchdesign.workflow.io import write_csv
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
SWEEP_COLUMNS = {
    "clusters": ["dataset", "method", "clusters", "solver"],
    "margins": ["dataset", "method", "epsilon", "delta"],
    "size": ["dataset", "method"],
}
tables = {}
for sweep, keys in SWEEP_COLUMNS.items():
    records = [json.loads(Path(p).read_text()) for p in snakemake.input if Path(p).parent.name == sweep]
    columns = keys + ["n_molecules", "scaled_leakage", "seconds", "status"]
    tables[sweep] = pd.DataFrame(records, columns=columns).sort_values(keys, kind="stable").reset_index(drop=True)
    log.info("%s: %d points", sweep, len(records))
for sweep, path in zip(SWEEP_COLUMNS, snakemake.output.tables, strict=True):
    write_csv(tables[sweep], path)
save_figure(ablation_figure(tables["clusters"], tables["margins"], tables["size"]),
            Path(snakemake.output.png).with_suffix(""))
