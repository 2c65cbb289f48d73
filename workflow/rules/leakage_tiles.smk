# Exact leakage L(pi) (eq. 2) / scaled L(pi) (eq. 20) of one split, sharded into tile jobs and gathered
# by a reduce job (for sets where all n^2 / 2 pairs do not fit one machine's time budget: 1.25e12 pairs
# for the 1.58M MOSES molecules). Config: the `leakage_tiles:` block (keys and defaults in
# workflow/schemas/config.schema.yaml). The fingerprints and fold codes are computed once (rule
# leakage_fingerprints) and read by every tile job. Each shard is resumable (an interrupted job continues from
# its .part.npz); the reduce checks that the shards belong to one split and cover every tile once.
# Output: results/leakage/<name>.exact.json.

LEAKAGE_TILES = config["leakage_tiles"]
LEAKAGE_DIR = f"results/leakage/{LEAKAGE_TILES['name']}"


rule leakage_fingerprints:
    """Bit-packed fingerprints and fold codes of the split's entities, computed once for all tile jobs."""
    input:
        table=LEAKAGE_TILES["input"],
        split=LEAKAGE_TILES["split"],
    output:
        f"{LEAKAGE_DIR}/fingerprints.npz",
    log:
        f"logs/leakage/{LEAKAGE_TILES['name']}/fingerprints.log",
    conda:
        "../envs/benchdesign.yaml"
    threads: 2
    resources:
        mem_mb=LEAKAGE_TILES["mem_mb"],
        runtime=LEAKAGE_TILES["runtime"],
    params:
        read={
            k: LEAKAGE_TILES[k]
            for k in ("id_col", "smiles_col", "split_id_col", "split_col", "drop_invalid", "fp_radius", "fp_bits")
        },
    script:
        "../../scripts/leakage_fingerprints.py"


rule leakage_tile:
    """One shard (every n_shards-th tile) of the exact pair sums of a split."""
    input:
        rules.leakage_fingerprints.output,
    output:
        f"{LEAKAGE_DIR}/shard_{{shard}}_of_{LEAKAGE_TILES['shards']}.npz",
    log:
        f"logs/leakage/{LEAKAGE_TILES['name']}/shard_{{shard}}.log",
    conda:
        "../envs/benchdesign.yaml"
    threads: 1
    resources:
        mem_mb=LEAKAGE_TILES["mem_mb"],
        runtime=LEAKAGE_TILES["runtime"],
    params:
        shard=lambda wildcards: int(wildcards.shard),
        n_shards=LEAKAGE_TILES["shards"],
        block_size=LEAKAGE_TILES["block_size"],
    script:
        "../../scripts/leakage_tile.py"


rule leakage_reduce:
    """Exact L(pi) and scaled L(pi) from all shards."""
    input:
        expand(f"{LEAKAGE_DIR}/shard_{{shard}}_of_{LEAKAGE_TILES['shards']}.npz", shard=range(LEAKAGE_TILES["shards"])),
    output:
        f"results/leakage/{LEAKAGE_TILES['name']}.exact.json",
    log:
        f"logs/leakage/{LEAKAGE_TILES['name']}/reduce.log",
    conda:
        "../envs/benchdesign.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/leakage_reduce.py"
