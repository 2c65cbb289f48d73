"""Snakemake script of rule `leakage_fingerprints`: the packed fingerprints and fold codes the tile jobs share."""

import sys

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821 (injected by Snakemake)

from benchdesign.splitting.leakage_report import leakage_shard_inputs  # noqa: E402

inp, r = snakemake.input, snakemake.params.read  # noqa: F821
n = leakage_shard_inputs(
    inp.table, inp.split, snakemake.output[0],  # noqa: F821
    id_col=r["id_col"], smiles_col=r["smiles_col"], split_id_col=r["split_id_col"], split_col=r["split_col"],
    drop_invalid=bool(r["drop_invalid"]), radius=int(r["fp_radius"]), n_bits=int(r["fp_bits"]),
)
print(f"{n} fingerprints and fold codes -> {snakemake.output[0]}", file=sys.stderr)  # noqa: F821
