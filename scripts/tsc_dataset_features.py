"""One representation of one UCR dataset -> a one-row CSV indexed by the dataset name."""

import time

from threadpoolctl import threadpool_limits

from benchdesign.domains.tsc.data import read_ucr_tsv
from benchdesign.domains.tsc.features import REPRESENTATIONS, dataset_features
from benchdesign.workflow.io import write_csv
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
name, representation = snakemake.wildcards.dataset, snakemake.wildcards.representation
options = dict(snakemake.params.options)
X_train, y_train = read_ucr_tsv(snakemake.input.train)
X_test, y_test = read_ucr_tsv(snakemake.input.test)
log.info("%s %s: train %s, test %s, options %s", name, representation, X_train.shape, X_test.shape,
         options)
if "transform" in snakemake.input.keys():
    from benchdesign.domains.tsc.minirocket import load_parameters

    options["minirocket_parameters"] = load_parameters(snakemake.input.transform)
    log.info("shared MiniRocket transform %s", snakemake.input.transform)
family = REPRESENTATIONS[representation].family
start = time.perf_counter()
with threadpool_limits(limits=snakemake.threads):  # BLAS/OpenMP threads = the job's threads
    vector = dataset_features(representation, X_train, y_train, X_test, y_test, dataset=name,
                              n_jobs=snakemake.threads if family in ("tsfresh", "minirocket") else 1,
                              **options)
log.info("%d features in %.2f s (%d undefined)", vector.size, time.perf_counter() - start,
         int(vector.isna().sum()))
frame = vector.to_frame().T
frame.index.name = "dataset"
write_csv(frame, snakemake.output[0], index=True)
