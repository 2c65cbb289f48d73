"""Snakemake script of rule `leakage_tile`: one shard of the exact tiled leakage, from the shared fingerprints."""

import sys

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821 (injected by Snakemake)

from benchdesign.splitting.leakage_report import leakage_shard_from_inputs  # noqa: E402

par = snakemake.params  # noqa: F821
n = leakage_shard_from_inputs(snakemake.input[0], par.shard, par.n_shards, snakemake.output[0],  # noqa: F821
                              block_size=par.block_size)
print(f"shard {par.shard} of {par.n_shards}: {n} tiles", file=sys.stderr)
