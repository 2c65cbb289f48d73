"""One point of a Fig. 6 sweep: split one dataset with one setting; record quality, run time, status."""

import json
import time

from benchdesign.molexp.datasets import dataset_info, load_molecules, subsample_rows
from benchdesign.molexp.experiment import experiment_from_molecules, run_molecule_split
from benchdesign.molexp.features import molecule_fingerprints
from benchdesign.workflow.io import cached_inputs, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
point = dict(snakemake.params.point)
info = dataset_info(point["dataset"])
table, dropped = load_molecules(info, cached_inputs(snakemake.input)[info.files[0]])
table = table.iloc[subsample_rows(len(table), point["max_molecules"], snakemake.params.seed)].reset_index(drop=True)
log.info("%s point %s: %s, %d molecules (%d dropped), method %s", snakemake.wildcards.sweep,
         snakemake.wildcards.point, info.name, len(table), len(dropped), point["method"])
start = time.perf_counter()
bits = molecule_fingerprints(table["smiles"].tolist())
fingerprint_seconds = time.perf_counter() - start
data = experiment_from_molecules(info, table, bits)
_, record = run_molecule_split(data, point["method"], 0, snakemake.params.fractions, snakemake.params.seed,
                               point["options"])
record = {k: v for k, v in point.items() if k not in ("options", "max_molecules")} | {
    "n_molecules": len(table), "scaled_leakage": record["scaled_leakage"], "status": record["status"],
    # our own methods get the fingerprints' time added: the competitors compute theirs inside the call
    "seconds": record["seconds"] + (fingerprint_seconds if point["method"] in ("s1", "random") else 0.0),
    "report": record["report"]}
log.info("status %s, scaled L = %.4f, %.1f s", record["status"], record["scaled_leakage"], record["seconds"])
write_text(json.dumps(record, indent=1, default=str) + "\n", snakemake.output[0])
