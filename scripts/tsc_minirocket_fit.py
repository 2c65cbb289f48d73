"""The shared MiniRocket transform, fitted once on a seeded sample of every available dataset."""

import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

from benchdesign.domains.tsc.data import read_available, read_ucr_tsv
from benchdesign.domains.tsc.minirocket import fit_minirocket, fit_sample, save_parameters
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
options = dict(snakemake.params.options)
folders = list(snakemake.input.raw)  # the raw-data folders of the batches, in the configured order
series = {}
for name in read_available(snakemake.input.available):  # every available dataset, in the configured order
    folder = next(f for f in folders if os.path.isfile(f"{f}/{name}_TRAIN.tsv"))
    series[name] = np.vstack([read_ucr_tsv(f"{folder}/{name}_{split}.tsv")[0] for split in ("TRAIN", "TEST")])
start = time.perf_counter()
sample = fit_sample(series, options["per_dataset"], options["length"], options["seed"])
with threadpool_limits(limits=snakemake.threads):
    parameters = fit_minirocket(sample, options["n_kernels"], random_state=options["seed"])
log.info("fitted on %d series (%d datasets, length %d): %d features, %d dilations, in %.2f s",
         sample.shape[0], len(series), sample.shape[1], parameters.n_features,
         parameters.dilations.size, time.perf_counter() - start)
save_parameters(parameters, snakemake.output[0])
