"""Materialise one input file (mirror, else package data, else URL) and verify its sha256."""

from benchdesign.config import untracked
from benchdesign.data.sources import fetch
from benchdesign.logs import start_log
from benchdesign.workflow_io import source_file_from_dict

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
entry = source_file_from_dict(snakemake.params.entry)
used = fetch(
    entry,
    snakemake.output[0],
    mirror=untracked(snakemake.config, "mirror"),
    allow_download=untracked(snakemake.config, "allow_download") is not False,
    log=log.info,
)
log.info("%s: taken from the %s source", entry.path, used)
