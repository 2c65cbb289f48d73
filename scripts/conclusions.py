"""Conclusion stability of every strategy (k = 5, 10, 20) and critical-difference diagrams of one domain."""

from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.domains import DOMAIN_LABELS
from benchdesign.selection.aggregation import trial_auc
from benchdesign.selection.api import critical_difference_subsets, run_configuration
from benchdesign.selection.conclusions import (
    STABILITY_KS,
    best_config,
    cd_titles,
    dataset_scores,
    plot_critical_difference,
)
from benchdesign.selection.frames import class_column, config_label
from benchdesign.selection.markdown import to_markdown
from benchdesign.selection.plotting import plot_stability, save_figure, write_figure
from benchdesign.selection.strategies import STRATEGY_REGISTRY
from benchdesign.selection.tables import reference_auc, table3, table3_summary
from benchdesign.workflow.io import read_representation, read_trials, write_csv, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc, params = snakemake.wildcards, snakemake.params
ranks = pd.read_csv(snakemake.input.ranks, index_col=0)
scores = pd.read_csv(snakemake.input.scores)
S = dataset_scores(scores).loc[ranks.index]
reps = {rep: read_representation(path, ranks.index)
        for rep, path in zip(params.representations, snakemake.input.representations)}
frames = []
for strategy, protocol in params.protocols.items():
    uses = STRATEGY_REGISTRY[strategy].uses_representation
    for rep, X in (reps.items() if uses else [("none", np.zeros((len(ranks), 1)))]):
        ks = [k for k in STABILITY_KS if k in protocol["ks"]]
        _, stability, _ = run_configuration(ranks.to_numpy(), X, strategy, protocol["ks"], protocol["n_trials"],
                                            protocol["alpha"], params.seed, protocol["options"], S.to_numpy(),
                                            params.higher_is_better, stability_ks=ks,
                                            standardize=protocol.get("standardize", "all"),
                                            random_draws=1)  # stability uses a random baseline's first draw only
        frames.append(stability.assign(strategy=strategy, representation=rep))
        log.info("%s/%s: stability at k=%s", strategy, rep, ks)
stability = pd.concat(frames, ignore_index=True)
summary = (stability.groupby(["strategy", "representation", "k"], sort=False)["stability"]
           .agg(["mean", "std", "min"]).reset_index())
summary.insert(2, "class", class_column(summary))  # a priori or informed (the oracle)
write_csv(summary.assign(domain=wc.domain), snakemake.output.stability)
write_text(to_markdown(summary, floatfmt=".3f") + "\n", snakemake.output.stability_md)
domain = DOMAIN_LABELS.get(wc.domain, wc.domain)
save_figure(plot_stability(summary, f"{domain}: Wilcoxon-Holm verdicts (α = 0.05) of the subset = of the full "
                                    "benchmark", n_models=S.shape[1], n_datasets=len(S)),
            Path(snakemake.output.figure).with_suffix(""))

auc = trial_auc(read_trials(snakemake.input.trials))
strategy, rep = best_config(table3_summary(table3(auc), reference_auc(auc)))
features = {r: pd.DataFrame(X, index=ranks.index) for r, X in reps.items()}
out = Path(snakemake.output.cd)
out.mkdir(parents=True, exist_ok=True)
subsets = {"full": list(ranks.index), **critical_difference_subsets(features, len(ranks), strategy, rep,
                                                                      seed=params.seed)}
for stem, subset in subsets.items():
    chooser = None if stem == "full" else "Random" if stem.startswith("random_") else config_label(strategy, rep)
    title, subtitle = cd_titles(domain, subset, len(ranks), chooser)
    fig = plot_critical_difference(S.loc[subset], params.higher_is_better, title, subtitle=subtitle)
    write_figure(fig, out / f"{stem}.png")
log.info("CD diagrams: %s", list(subsets))
