"""One dataset representation of a domain (checked; the trials z-score it)."""

import pandas as pd

from benchdesign.domains import get_domain, load_representation
from benchdesign.workflow.io import domain_inputs, write_csv
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc = snakemake.wildcards
domain = get_domain(wc.domain, snakemake.params.domain)
ranks = pd.read_csv(snakemake.input.ranks, index_col=0)
features = pd.read_csv(snakemake.input.features[0], index_col=0) if snakemake.input.features else None
representation = load_representation(
    domain, wc.representation, domain_inputs(domain, snakemake.input.data), ranks, features
)
log.info("%s/%s: %d datasets x %d features", wc.domain, wc.representation, *representation.shape)
write_csv(representation, snakemake.output[0], index=True)
