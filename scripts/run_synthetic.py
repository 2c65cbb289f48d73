"""Per-seed AUCs of one (regime, strategy) of the synthetic ablation (paper section 6.4)."""

import pandas as pd

from benchdesign.selection.aggregation import trial_auc
from benchdesign.selection.synthetic import SyntheticSettings, seed_trials
from benchdesign.workflow.io import write_csv
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc = snakemake.wildcards
protocol = snakemake.params.protocol
settings = SyntheticSettings(**snakemake.params.settings)
frames = []
for seed in range(protocol["n_seeds"]):
    trials = seed_trials(
        wc.regime, wc.strategy, snakemake.params.seed + seed, settings,
        protocol["ks"], protocol["trials_per_seed"], protocol["alpha"], protocol["options"],
        protocol["random_draws"],
    )
    trials = trials.assign(domain="synthetic", variation="dataset_pool",
                           strategy=wc.strategy, representation=wc.regime)
    auc = trial_auc(trials).groupby("metric", as_index=False)["auc"].mean()
    frames.append(auc.assign(regime=wc.regime, strategy=wc.strategy, seed=seed))
    if (seed + 1) % 10 == 0:
        log.info("%s/%s: %d of %d seeds done", wc.regime, wc.strategy, seed + 1, protocol["n_seeds"])
result = pd.concat(frames)[["regime", "strategy", "seed", "metric", "auc"]]
write_csv(result, snakemake.output[0])
