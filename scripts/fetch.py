"""Materialise one input file (mirror, else package data, else URL) and verify its sha256."""

from pathlib import Path

from benchdesign.data.sources import fetch
from benchdesign.files import cached_sha256
from benchdesign.workflow.config import untracked
from benchdesign.workflow.io import source_file_from_dict
from benchdesign.workflow.logs import start_log
from benchdesign.workflow.preflight import CHECKS_DIR

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
# Record its hash, so jobs reading it later notice a change (benchdesign.workflow.preflight.verify_cached).
cache = snakemake.output[0][: -len(entry.path)]
cached_sha256(snakemake.output[0], Path(cache) / CHECKS_DIR / "sha256")
