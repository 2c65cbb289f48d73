# Leakage-reduced data splitting (DataSAIL tasks R, I1, I2, S1, S2) of one dataset.
# Config: the flat `splitting:` block (see config/splitting.yaml); optional keys fall back to the
# defaults below. Output: results/splitting/<name>.tsv with columns id, split, reason (plus fold
# 0..k-1 when `folds: k` asks for k-fold CV), and a JSON report (solver status, leakage, fold sizes,
# certificate).


rule split_dataset:
    """Split one dataset into folds with low similarity-induced leakage (benchdesign.splitting)."""
    input:
        # the entity table, plus the interaction table / side-b table / matrices when configured
        unpack(
            lambda wildcards: {
                ("table" if key == "input" else key): config["splitting"][key]
                for key in ("input", "interactions", "input_b", "matrix", "matrix_b")
                if config["splitting"].get(key)
            }
        ),
    output:
        tsv=f"results/splitting/{config['splitting']['name']}.tsv",
        report=f"results/splitting/{config['splitting']['name']}.report.json",
    log:
        f"logs/splitting/{config['splitting']['name']}.log",
    params:
        task=config["splitting"].get("task", "S1"),
        id_col=config["splitting"].get("id_col"),
        smiles_col=config["splitting"].get("smiles_col"),
        sequence_col=config["splitting"].get("sequence_col"),
        feature_cols=config["splitting"].get("feature_cols", []),
        matrix_kind=config["splitting"].get("matrix_kind", "similarity"),
        metric=config["splitting"].get("metric", "cosine"),
        class_cols=config["splitting"].get("class_cols", []),
        drop_invalid=config["splitting"].get("drop_invalid", False),
        fractions=config["splitting"].get("fractions", [0.8, 0.2]),
        names=config["splitting"].get("names", ["train", "test"]),
        folds=config["splitting"].get("folds"),
        max_similarity=config["splitting"].get("max_similarity"),
        threshold_action=config["splitting"].get("threshold_action", "drop"),
        certificate_seeds=config["splitting"].get("certificate_seeds", 3),
        sequence_similarity=config["splitting"].get("sequence_similarity", "kmer"),
        clusters=config["splitting"].get("clusters", 50),
        micro_clusters=config["splitting"].get("micro_clusters", 1000),
        epsilon=config["splitting"].get("epsilon", 0.1),
        delta=config["splitting"].get("delta", 0.1),
        linkage=config["splitting"].get("linkage", "average"),
        solver=config["splitting"].get("solver", "HIGHS"),
        time_limit=config["splitting"].get("time_limit", 10),
        node_limit=config["splitting"].get("node_limit"),
        mip_gap=config["splitting"].get("mip_gap", 0.01),
        seed=config["splitting"].get("seed", 0),
        refine=config["splitting"].get("refine", True),
        fp_bits=config["splitting"].get("fp_bits", 1024),
        fp_radius=config["splitting"].get("fp_radius", 2),
        kmer=config["splitting"].get("kmer", 3),
        inter_a_col=config["splitting"].get("inter_a_col", "id_a"),
        inter_b_col=config["splitting"].get("inter_b_col", "id_b"),
        inter_id_col=config["splitting"].get("inter_id_col"),
        side=config["splitting"].get("side", "a"),
        id_col_b=config["splitting"].get("id_col_b"),
        smiles_col_b=config["splitting"].get("smiles_col_b"),
        sequence_col_b=config["splitting"].get("sequence_col_b"),
        feature_cols_b=config["splitting"].get("feature_cols_b", []),
        matrix_kind_b=config["splitting"].get("matrix_kind_b", "similarity"),
        metric_b=config["splitting"].get("metric_b", "cosine"),
        class_cols_b=config["splitting"].get("class_cols_b", []),
    threads: config["splitting"].get("threads", 2)
    resources:
        mem_mb=config["splitting"].get("mem_mb", 4000),
        runtime=config["splitting"].get("runtime", 30),
    conda:
        "../envs/benchdesign.yaml"
    script:
        "../../scripts/split.py"
