"""ECFP4 bits of the dataset's molecules and, for 2-D data, its proteins' features (composition or ESM-2)."""

import io

import numpy as np
import pandas as pd

from benchdesign.molexp.features import molecule_fingerprints
from benchdesign.molexp.protein_embeddings import encode_proteins
from benchdesign.workflow.io import write_bytes
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
molecules = pd.read_csv(snakemake.input.molecules, dtype={"id": str})
proteins = pd.read_csv(snakemake.input.proteins, dtype={"id": str})
options = dict(snakemake.params.proteins)  # empty for 1-D data (no proteins)
bits = molecule_fingerprints(molecules["smiles"].tolist(), n_bits=snakemake.params.n_bits)
representation = options.get("representation", "") if len(proteins) else ""
if representation:
    prot = encode_proteins(proteins["sequence"].tolist(), representation, options.get("esm_weights"))
else:
    prot = np.zeros((0, 0), np.float32)
log.info("%d molecules x %d bits, %d proteins x %d features (%s)", *bits.shape, *prot.shape, representation or "none")
buffer = io.BytesIO()
np.savez_compressed(buffer, molecule_bits=bits, protein_features=prot, protein_representation=np.array(representation))
write_bytes(buffer.getvalue(), snakemake.output[0])
