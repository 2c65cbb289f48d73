"""Covering radii of farthest-first, random and k-means over the dataset-pool trials of one representation."""

import pandas as pd

from benchdesign.selection.guarantee import COVERAGE_STRATEGIES, coverage_curves
from benchdesign.workflow.io import read_representation, write_csv
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc = snakemake.wildcards
protocol = snakemake.params.protocol
ranks = pd.read_csv(snakemake.input.ranks, index_col=0)
X = read_representation(snakemake.input.representation, ranks.index)
coverage = coverage_curves(X, protocol["ks"], protocol["n_trials"], protocol["alpha"], snakemake.params.seed,
                           COVERAGE_STRATEGIES, protocol["options"], protocol["standardize"])
coverage.insert(0, "representation", wc.representation)
coverage.insert(0, "domain", wc.domain)
write_csv(coverage, snakemake.output[0])
log.info("%s/%s: covering radii of %d strategies, p = %d", wc.domain, wc.representation,
         coverage["strategy"].nunique(), X.shape[1])
