# Leakage-reduced data splitting (DataSAIL tasks R, I1, I2, S1, S2) of one dataset.
# Config: the flat `splitting:` block (see config/splitting.yaml); its keys and defaults are in the
# config schema (workflow/schemas/config.schema.yaml), which also rejects unknown keys. Output:
# results/splitting/<name>.tsv with columns id, split, reason (plus fold 0..k-1 when `folds: k` asks
# for k-fold CV), and a JSON report (solver status, leakage, fold sizes, certificate).

from snakemake.utils import validate

# Fills the block's defaults and rejects unknown keys also when this file is included on its own.
validate(config, "../schemas/config.schema.yaml")


rule split_dataset:
    """Split one dataset into folds with low similarity-induced leakage (benchdesign.splitting)."""
    input:
        # the entity table, plus the interaction table / side-b table / matrices when configured
        unpack(
            lambda wildcards: {
                ("table" if key == "input" else key): config["splitting"][key]
                for key in ("input", "interactions", "input_b", "matrix", "matrix_b")
                if config["splitting"][key]
            }
        ),
    output:
        tsv=f"results/splitting/{config['splitting']['name']}.tsv",
        report=f"results/splitting/{config['splitting']['name']}.report.json",
    log:
        f"logs/splitting/{config['splitting']['name']}.log",
    conda:
        "../envs/benchdesign.yaml"
    threads: config["splitting"]["threads"]
    resources:
        mem_mb=config["splitting"]["mem_mb"],
        runtime=config["splitting"]["runtime"],
    params:
        task=config["splitting"]["task"],
        id_col=config["splitting"]["id_col"],
        smiles_col=config["splitting"]["smiles_col"],
        sequence_col=config["splitting"]["sequence_col"],
        feature_cols=config["splitting"]["feature_cols"],
        matrix_kind=config["splitting"]["matrix_kind"],
        metric=config["splitting"]["metric"],
        class_cols=config["splitting"]["class_cols"],
        drop_invalid=config["splitting"]["drop_invalid"],
        fractions=config["splitting"]["fractions"],
        names=config["splitting"]["names"],
        folds=config["splitting"]["folds"],
        max_similarity=config["splitting"]["max_similarity"],
        threshold_action=config["splitting"]["threshold_action"],
        certificate_seeds=config["splitting"]["certificate_seeds"],
        sequence_similarity=config["splitting"]["sequence_similarity"],
        coverage=config["splitting"]["coverage"],
        coverage_mode=config["splitting"]["coverage_mode"],
        sensitivity=config["splitting"]["sensitivity"],
        max_seqs=config["splitting"]["max_seqs"],
        clusters=config["splitting"]["clusters"],
        micro_clusters=config["splitting"]["micro_clusters"],
        epsilon=config["splitting"]["epsilon"],
        delta=config["splitting"]["delta"],
        stratification=config["splitting"]["stratification"],
        linkage=config["splitting"]["linkage"],
        solver=config["splitting"]["solver"],
        time_limit=config["splitting"]["time_limit"],
        node_limit=config["splitting"]["node_limit"],
        mip_gap=config["splitting"]["mip_gap"],
        seed=config["splitting"]["seed"],
        refine=config["splitting"]["refine"],
        fraction_tolerance=config["splitting"]["fraction_tolerance"],
        balance_folds=config["splitting"]["balance_folds"],
        pair_scheme=config["splitting"]["pair_scheme"],
        butina_threshold=config["splitting"]["butina_threshold"],
        fp_bits=config["splitting"]["fp_bits"],
        fp_radius=config["splitting"]["fp_radius"],
        kmer=config["splitting"]["kmer"],
        inter_a_col=config["splitting"]["inter_a_col"],
        inter_b_col=config["splitting"]["inter_b_col"],
        inter_id_col=config["splitting"]["inter_id_col"],
        side=config["splitting"]["side"],
        id_col_b=config["splitting"]["id_col_b"],
        smiles_col_b=config["splitting"]["smiles_col_b"],
        sequence_col_b=config["splitting"]["sequence_col_b"],
        feature_cols_b=config["splitting"]["feature_cols_b"],
        matrix_kind_b=config["splitting"]["matrix_kind_b"],
        metric_b=config["splitting"]["metric_b"],
        class_cols_b=config["splitting"]["class_cols_b"],
        sep=config["splitting"]["sep"],
    script:
        "../../scripts/split.py"
