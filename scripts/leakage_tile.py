"""Snakemake script of rule `leakage_tile`: one shard of the exact tiled leakage of a split file."""

import sys

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821 (injected by Snakemake)

from benchdesign.splitting.evaluate import leakage_shard_files  # noqa: E402

inp, par = snakemake.input, snakemake.params  # noqa: F821
r = par.read
n = leakage_shard_files(
    inp.table, inp.split, par.shard, par.n_shards, snakemake.output[0], block_size=par.block_size,  # noqa: F821
    id_col=r["id_col"], smiles_col=r["smiles_col"], split_id_col=r["split_id_col"], split_col=r["split_col"],
    drop_invalid=bool(r["drop_invalid"]), radius=int(r["fp_radius"]), n_bits=int(r["fp_bits"]),
)
print(f"shard {par.shard} of {par.n_shards}: {n} tiles", file=sys.stderr)
