"""Snakemake script of rule `leakage_reduce`: exact L(pi) from the shard files of rule `leakage_tile`."""

import json
import sys

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821 (injected by Snakemake)

from benchdesign.files import write_atomic  # noqa: E402
from benchdesign.splitting.leakage import reduce_leakage_shards  # noqa: E402

s = reduce_leakage_shards(list(snakemake.input))[0]  # noqa: F821
report = {"leakage": s.leakage, "total_similarity": s.total, "scaled_leakage": s.scaled,
          "n_assigned": s.n_assigned, "n_shards": len(snakemake.input)}  # noqa: F821
write_atomic(snakemake.output[0], json.dumps(report, indent=2) + "\n")  # noqa: F821
print(f"scaled L(pi) {s.scaled:.6f} from {len(snakemake.input)} shards", file=sys.stderr)  # noqa: F821
