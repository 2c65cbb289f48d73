"""The shared MiniRocket transform, fitted once on a seeded sample of every available dataset."""

import time

import numpy as np
from threadpoolctl import threadpool_limits

from benchdesign.domains.tsc.data import read_ucr_tsv
from benchdesign.domains.tsc.minirocket import fit_minirocket, fit_sample, save_parameters
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
options = dict(snakemake.params.options)
paths = list(snakemake.input.series)
series = {}
for train, test in zip(paths[0::2], paths[1::2]):  # TRAIN, TEST of each dataset, in order
    name = train.rsplit("/", 2)[-2]
    series[name] = np.vstack([read_ucr_tsv(train)[0], read_ucr_tsv(test)[0]])
start = time.perf_counter()
sample = fit_sample(series, options["per_dataset"], options["length"], options["seed"])
with threadpool_limits(limits=snakemake.threads):
    parameters = fit_minirocket(sample, options["n_kernels"], random_state=options["seed"])
log.info("fitted on %d series (%d datasets, length %d): %d features, %d dilations, in %.2f s",
         sample.shape[0], len(series), sample.shape[1], parameters.n_features,
         parameters.dilations.size, time.perf_counter() - start)
save_parameters(parameters, snakemake.output[0])
