"""Train the models of one job on one split and write each model's test score (JSON)."""

import json

from benchdesign.molexp.experiment import load_experiment, read_folds, run_model
from benchdesign.workflow.io import without_timings, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc = snakemake.wildcards
data = load_experiment(wc.dataset, snakemake.input.samples, snakemake.input.molecules, snakemake.input.proteins,
                       snakemake.input.features)
folds = read_folds(snakemake.input.folds, data.samples["id"].tolist())
for (model, options), path in zip(dict(snakemake.params.options).items(), snakemake.output, strict=True):
    result = run_model(data, folds, model, snakemake.params.seed, options)
    result.update(split_method=wc.method, repeat=int(wc.repeat))
    log.info("%s %s repeat %s %s: %s = %.4f (%s, %.1f s)", wc.dataset, wc.method, wc.repeat, model,
             result["metric"], result["value"], result["status"], result["seconds"])
    write_text(json.dumps(without_timings(result), indent=1) + "\n", path)  # the time: in the log only
