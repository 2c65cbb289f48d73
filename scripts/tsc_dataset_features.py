"""One representation of a batch of UCR datasets -> a CSV with one row per dataset, indexed by its name."""

import time

import pandas as pd
from threadpoolctl import threadpool_limits

from benchdesign.domains.tsc.data import read_ucr_tsv
from benchdesign.domains.tsc.features import REPRESENTATIONS, dataset_features
from benchdesign.workflow.io import write_csv
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
representation = snakemake.wildcards.representation
options = dict(snakemake.params.options)
if "transform" in snakemake.input.keys():
    from benchdesign.domains.tsc.minirocket import load_parameters

    options["minirocket_parameters"] = load_parameters(snakemake.input.transform)
    log.info("shared MiniRocket transform %s", snakemake.input.transform)
family = REPRESENTATIONS[representation].family
rows = []
for name in snakemake.params.datasets:
    X_train, y_train = read_ucr_tsv(f"{snakemake.input.raw}/{name}_TRAIN.tsv")
    X_test, y_test = read_ucr_tsv(f"{snakemake.input.raw}/{name}_TEST.tsv")
    log.info("%s %s: train %s, test %s, options %s", name, representation, X_train.shape, X_test.shape,
             dict(snakemake.params.options))
    start = time.perf_counter()
    with threadpool_limits(limits=snakemake.threads):  # BLAS/OpenMP threads = the job's threads
        vector = dataset_features(representation, X_train, y_train, X_test, y_test, dataset=name,
                                  n_jobs=snakemake.threads if family in ("tsfresh", "minirocket") else 1,
                                  **options)
    log.info("%s: %d features in %.2f s (%d undefined)", name, vector.size, time.perf_counter() - start,
             int(vector.isna().sum()))
    rows.append(vector.to_frame().T)
if not rows:
    raise ValueError(f"batch {snakemake.wildcards.batch}: no available dataset (see {snakemake.input.raw})")
frame = pd.concat(rows, axis=0, sort=False)  # a feature absent for some datasets of the batch: empty there
frame.index.name = "dataset"
write_csv(frame, snakemake.output[0], index=True)
