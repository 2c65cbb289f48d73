"""Run every trial of one (variation, domain, representation, strategy) and write the long table."""

import pandas as pd

from benchdesign.domains.table import read_strata
from benchdesign.selection.protocol import dataset_pool_trials, model_holdout_trials, model_pool_trials, score_cube
from benchdesign.workflow.io import read_representation, write_csv
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc = snakemake.wildcards
protocol = snakemake.params.protocol
ranks = pd.read_csv(snakemake.input.ranks, index_col=0)
X = read_representation(snakemake.input.get("representation"), ranks.index)
settings = dict(
    strategy=wc.strategy,
    ks=protocol["ks"],
    n_trials=protocol["n_trials"],
    alpha=protocol["alpha"],
    seed=snakemake.params.seed,
    options={**protocol["options"], **(  # the stratified strategy's labels
        {"strata": read_strata(snakemake.input.strata, protocol["strata_column"], ranks.index)}
        if "strata" in snakemake.input.keys() else {})},
    standardize=protocol.get("standardize", "all"),  # random ignores the representation
    random_draws=protocol.get("random_draws", 1),  # set for the random baselines only: the others draw once
)
log.info("%s %s/%s/%s: %d trials, k=%d..%d", wc.variation, wc.domain, wc.representation,
         wc.strategy, protocol["n_trials"], protocol["ks"][0], protocol["ks"][-1])
if wc.variation == "dataset_pool":
    trials = dataset_pool_trials(ranks.to_numpy(), X, **settings)
else:
    cube = score_cube(pd.read_csv(snakemake.input.scores), ranks.index, ranks.columns)
    higher = snakemake.params.higher_is_better
    if wc.variation == "model_pool":
        trials = model_pool_trials(cube, higher, X, **settings)
    else:  # the oracle is rebuilt in every trial from the seen models' ranks only
        X = None if wc.representation == "oracle" else X
        trials = model_holdout_trials(cube, higher, X, holdout_fraction=protocol["holdout_fraction"], **settings)
trials.insert(0, "representation", wc.representation)
trials.insert(0, "strategy", wc.strategy)
trials.insert(0, "variation", wc.variation)
trials.insert(0, "domain", wc.domain)
write_csv(trials, snakemake.output[0])
log.info("wrote %d rows to %s", len(trials), snakemake.output[0])
