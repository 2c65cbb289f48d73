"""ECFP4 bits of the dataset's molecules and, for 2-D data, composition features of its proteins."""

import io

import numpy as np
import pandas as pd

from benchdesign.molexp.features import molecule_fingerprints, protein_features
from benchdesign.workflow.io import write_bytes
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
molecules = pd.read_csv(snakemake.input.molecules, dtype={"id": str})
proteins = pd.read_csv(snakemake.input.proteins, dtype={"id": str})
bits = molecule_fingerprints(molecules["smiles"].tolist(), n_bits=snakemake.params.n_bits)
prot = protein_features(proteins["sequence"].tolist()) if len(proteins) else np.zeros((0, 0), np.float32)
log.info("%d molecules x %d bits, %d proteins x %d features", *bits.shape, *prot.shape)
buffer = io.BytesIO()
np.savez_compressed(buffer, molecule_bits=bits, protein_features=prot)
write_bytes(buffer.getvalue(), snakemake.output[0])
