# Molecular leakage-split experiments of the DataSAIL paper (Fig. 3-6): datasets -> fingerprints ->
# one split job per (dataset, method, repeat) -> one model job per split fitting every model (or, with
# molecules.model_jobs: per_model, one per model)
# -> tables split_leakage.csv / split_performance.csv and figures; plus the Fig. 6 ablations.


wildcard_constraints:
    dataset="[a-z0-9_]+",
    method="[a-z0-9_]+",
    repeat=r"\d+",
    model="|".join(MODEL_NAMES),
    sweep="clusters|margins|size",


rule mol_dataset:
    """One dataset as tables with stable ids: samples (1-D: molecules with labels; 2-D: pairs), molecules
    (id, smiles), proteins (id, sequence; empty for 1-D data); dropped rows and why in dropped.csv."""
    input:
        lambda wc: [f"{DATA_CACHE}/{p}" for p in dataset_info(wc.dataset).files],
    output:
        samples="results/molecules/{dataset}/samples.csv",
        dropped="results/molecules/{dataset}/dropped.csv",
        molecules="results/molecules/{dataset}/molecules.csv",
        proteins="results/molecules/{dataset}/proteins.csv",
    log:
        "logs/molecules/{dataset}/dataset.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        max_rows=lambda wc: MOL["max_molecules"].get(wc.dataset),
        seed=config["seed"],
    script:
        "../../scripts/mol_dataset.py"


rule mol_features:
    """ECFP4 bits of the molecules (drugs) and, for pairs, the targets' features: composition or ESM-2 t12
    embeddings (molecules.protein_representation; a local weights file, molecules.esm_weights, is an input)."""
    input:
        molecules="results/molecules/{dataset}/molecules.csv",
        proteins="results/molecules/{dataset}/proteins.csv",
        esm_weights=mol_esm_weights,
    output:
        "results/molecules/{dataset}/features.npz",
    log:
        "logs/molecules/{dataset}/features.log",
    benchmark:
        "logs/benchmarks/molecules/{dataset}/features.tsv"
    conda:
        "../envs/benchdesign.yaml"
    threads: 1
    resources:
        mem_mb=mol_features_mem_mb,
        runtime=mol_features_runtime,
    params:
        n_bits=MOL["fingerprint_bits"],
        proteins=lambda wc: protein_options(MOL, wc.dataset),
    script:
        "../../scripts/mol_features.py"


rule mol_split:
    """One split (dataset, method, repeat): fold per sample, and its scaled L(pi) (pairs: also of each side) and
    run time."""
    input:
        unpack(mol_dataset_files),
        features="results/molecules/{dataset}/features.npz",
    output:
        folds="results/molecules/{dataset}/splits/{method}/{repeat}.tsv",
        record="results/molecules/{dataset}/splits/{method}/{repeat}.json",
    log:
        "logs/molecules/{dataset}/splits/{method}/{repeat}.log",
    benchmark:
        "logs/benchmarks/molecules/{dataset}/splits/{method}/{repeat}.tsv"
    conda:
        "../envs/benchdesign.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc: 12000 if wc.method in ("datasail_s1", "lohi", "lohi_drug", "graphpart_target") else 4000,
        runtime=lambda wc: 120 if wc.method in ("datasail_s1", "lohi", "lohi_drug", "graphpart_target") else 30,
    params:
        fractions=MOL["fractions"],
        seed=config["seed"],
        options=lambda wc: split_options(MOL, wc.dataset, wc.method),
    script:
        "../../scripts/mol_split.py"


rule mol_model:
    """Train the models on the training fold of one split and score them on the test fold: every model of the
    dataset in one job (molecules.model_jobs: per_split), or one model per job (per_model)."""
    input:
        unpack(mol_dataset_files),
        features="results/molecules/{dataset}/features.npz",
        folds="results/molecules/{dataset}/splits/{method}/{repeat}.tsv",
    output:
        MOL_MODEL_OUTPUT,
    log:
        f"logs/molecules/{{dataset}}/scores/{{method}}/{{repeat}}/{MOL_MODEL_JOB}.log",
    benchmark:
        f"logs/benchmarks/molecules/{{dataset}}/scores/{{method}}/{{repeat}}/{MOL_MODEL_JOB}.tsv"
    wildcard_constraints:
        dataset=MOL_MODEL_DATASETS,
    conda:
        "../envs/benchdesign.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=mol_model_runtime,
    params:
        # {model: options} of the job's models, in the order of its outputs
        options=lambda wc: {m: MOL["model_options"].get(m, {}) for m in mol_job_models(wc)},
        seed=config["seed"],
    script:
        "../../scripts/mol_model.py"


if MOL_MODEL_1D_RULE:

    use rule mol_model as mol_model_1d with:
        output:
            expand(MOL_SCORE, model=MOL_MODELS_1D, allow_missing=True),
        wildcard_constraints:
            dataset=MOL_DATASETS_1D,


rule mol_tables:
    """split_leakage.csv, split_performance.csv and a Markdown summary (mean +- sd over repeats)."""
    input:
        splits=lambda wc: [f for d in MOL["datasets"] for f in mol_split_files(d) if f.endswith(".json")],
        scores=lambda wc: [f for d in MOL["datasets"] for f in mol_score_files(d)],
    output:
        leakage=report(
            "results/tables/split_leakage.csv", caption="../report/split_leakage.rst", category="Leakage-reduced splits"
        ),
        performance=report(
            "results/tables/split_performance.csv", caption="../report/split_performance.rst", category="Leakage-reduced splits"
        ),
        summary="results/tables/split_summary.md",
    log:
        "logs/molecules/tables.log",
    localrule: True
    conda:
        "../envs/benchdesign.yaml"
    script:
        "../../scripts/mol_tables.py"


rule mol_figure:
    """Fig. 3-5 style: test performance per model and split beside each split's scaled L(pi) (pairs: of each side,
    Fig. 4c, f, i)."""
    input:
        leakage="results/tables/split_leakage.csv",
        performance="results/tables/split_performance.csv",
    output:
        png=report(
            "results/figures/molecules_{dataset}.png",
            caption="../report/molecules_figure.rst",
            category="Leakage-reduced splits",
        ),
        pdf="results/figures/molecules_{dataset}.pdf",
    log:
        "logs/molecules/{dataset}/figure.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/mol_figure.py"


rule mol_tsne:
    """t-SNE (sub-sampled) coloured by fold for the random split and S1 (pairs: S1 of each side and S2): of the
    fingerprints (Tanimoto) and, for pairs, of the protein features (Euclidean)."""
    input:
        unpack(mol_dataset_files),
        features="results/molecules/{dataset}/features.npz",
        folds=lambda wc: [f"results/molecules/{wc.dataset}/splits/{m}/0.tsv" for m in tsne_methods(MOL, wc.dataset)],
    output:
        png=report("results/figures/tsne_{dataset}.png", caption="../report/tsne.rst", category="Leakage-reduced splits"),
        pdf="results/figures/tsne_{dataset}.pdf",
    log:
        "logs/molecules/{dataset}/tsne.log",
    benchmark:
        "logs/benchmarks/molecules/{dataset}/tsne.tsv"
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        max_points=MOL["tsne_points"],
        seed=config["seed"],
    script:
        "../../scripts/mol_tsne.py"


rule mol_ablation_point:
    """One point of a Fig. 6 sweep: K x solver, epsilon x delta, or dataset size x method."""
    input:
        lambda wc: [f"{DATA_CACHE}/{p}" for p in source_paths([ablation_points(MOL)[wc.sweep][wc.point]["dataset"]])],
    output:
        "results/molecules/ablation/{sweep}/{point}.json",
    log:
        "logs/molecules/ablation/{sweep}/{point}.log",
    benchmark:
        "logs/benchmarks/molecules/ablation/{sweep}/{point}.tsv"
    conda:
        "../envs/benchdesign.yaml"
    threads: 1
    resources:
        mem_mb=12000,
        runtime=120,
    params:
        point=lambda wc: ablation_points(MOL)[wc.sweep][wc.point],
        fractions=MOL["fractions"],
        seed=config["seed"],
    script:
        "../../scripts/mol_ablation_point.py"


rule mol_ablation_report:
    """Fig. 6: split quality and run time vs K and solver, quality vs epsilon and delta, run time vs size."""
    input:
        lambda wc: [
            f"results/molecules/ablation/{sweep}/{point}.json"
            for sweep, points in ablation_points(MOL).items()
            for point in points
        ],
    output:
        tables=[
            report(f"results/tables/ablation_{s}.csv", caption="../report/ablation.rst", category="Leakage-reduced splits")
            for s in ("clusters", "margins", "size")
        ],
        png=report("results/figures/fig6_ablation.png", caption="../report/ablation.rst", category="Leakage-reduced splits"),
        pdf="results/figures/fig6_ablation.pdf",
    log:
        "logs/molecules/ablation/report.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/mol_ablation_report.py"
