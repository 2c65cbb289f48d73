"""One split of one dataset: fold per sample (TSV) and its split_leakage.csv record (JSON)."""

import json

import pandas as pd

from benchdesign.molexp.experiment import fold_labels, load_experiment, run_molecule_split
from benchdesign.workflow.io import without_timings, write_csv, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
wc = snakemake.wildcards
data = load_experiment(wc.dataset, snakemake.input.samples, snakemake.input.molecules, snakemake.input.proteins,
                       snakemake.input.features)
log.info("%s: split %s, repeat %s, %d samples, %d molecules", wc.dataset, wc.method, wc.repeat,
         len(data.samples), len(data.molecules))
folds, record = run_molecule_split(data, wc.method, int(wc.repeat), snakemake.params.fractions,
                                   snakemake.params.seed, snakemake.params.options)
log.info("status %s: %d train, %d test, %d dropped, scaled L = %.4f, %.1f s", record["status"], record["n_train"],
         record["n_test"], record["n_dropped"], record["scaled_leakage"], record["seconds"])
write_csv(pd.DataFrame({"id": data.samples["id"], "split": fold_labels(folds)}), snakemake.output.folds,
          sep="\t")
# timings stay in the log and logs/benchmarks/ (two runs of one config write identical records)
write_text(json.dumps(without_timings(record), indent=1, default=str) + "\n", snakemake.output.record)
