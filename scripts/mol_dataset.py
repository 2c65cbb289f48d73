"""Write one molecular dataset as tables: samples, molecules, proteins (2-D only) and dropped rows."""

import pandas as pd

from benchdesign.molexp.datasets import dataset_info, load_molecules, load_pairs, subsample_rows
from benchdesign.workflow.io import cached_inputs, write_csv
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
info = dataset_info(snakemake.wildcards.dataset)
files = cached_inputs(snakemake.input)
max_rows, seed = snakemake.params.max_rows, snakemake.params.seed
if info.kind == "1d":
    samples, dropped = load_molecules(info, files[info.files[0]])
    samples = samples.iloc[subsample_rows(len(samples), max_rows, seed)].reset_index(drop=True)
    molecules = samples[["id", "smiles"]]
    proteins = pd.DataFrame(columns=["id", "sequence"])
else:
    tables = load_pairs(info, *(files[f] for f in info.files))
    samples = tables.pairs.iloc[subsample_rows(len(tables.pairs), max_rows, seed)].reset_index(drop=True)
    molecules = tables.drugs[tables.drugs["id"].isin(samples["drug_id"])]
    proteins = tables.targets[tables.targets["id"].isin(samples["target_id"])]
    dropped = tables.dropped
log.info("%s: %d samples (%s), %d molecules, %d proteins, %d rows dropped%s", info.name, len(samples),
         "sub-sample of at most %d" % max_rows if max_rows else "all", len(molecules), len(proteins), len(dropped),
         "" if dropped.empty else " (" + ", ".join(f"{k}: {v}" for k, v in dropped["reason"].value_counts().items()) + ")")
write_csv(dropped, snakemake.output.dropped)
write_csv(proteins, snakemake.output.proteins)
write_csv(molecules, snakemake.output.molecules)
write_csv(samples, snakemake.output.samples)
