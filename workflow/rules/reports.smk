rule dataset_pool_tables:
    """Tables 1-3 of the paper from the dataset-pool trials of every domain, and the verdict "which
    strategy for k" per domain (recommendation.txt)."""
    input:
        trials=trial_files("dataset_pool"),
        ranks=expand("results/prepared/{domain}/dataset_ranks.csv", domain=DOMAINS),
    output:
        curves="results/tables/curves_dataset_pool.csv",
        trial_auc="results/tables/trial_auc_dataset_pool.csv",
        table1="results/tables/table1_auc.csv",
        table1_md=report(
            "results/tables/table1_auc.md",
            caption="../report/table1.rst",
            category="Tables",
        ),
        table2="results/tables/table2_kstar.csv",
        table2_per_config="results/tables/table2_kstar_per_config.csv",
        table2_md=report(
            "results/tables/table2_kstar.md",
            caption="../report/table2.rst",
            category="Tables",
        ),
        table3="results/tables/table3_wilcoxon_holm.csv",
        table3_summary="results/tables/table3_summary.csv",
        table3_md=report(
            "results/tables/table3_wilcoxon_holm.md",
            caption="../report/table3.rst",
            category="Tables",
        ),
        recommendation=report(
            "results/tables/recommendation.txt",
            caption="../report/recommendation.rst",
            category="Tables",
        ),
        recommendation_csv="results/tables/recommendation.csv",
    log:
        "logs/tables/dataset_pool.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=4000,
        runtime=20,
    params:
        thresholds=config["thresholds"],
        alpha={d: domain_protocol(config, d)["alpha"] for d in DOMAINS},
    script:
        "../../scripts/make_tables.py"


rule model_holdout_tables:
    """Tables 1-3 and the verdict "which strategy for k" of the model-holdout trials: every selection made
    seeing only part of the models, every metric computed on the held-out models' ranks."""
    input:
        trials=trial_files("model_holdout"),
        ranks=expand("results/prepared/{domain}/dataset_ranks.csv", domain=DOMAINS),
    output:
        curves="results/tables/model_holdout/curves.csv",
        trial_auc="results/tables/model_holdout/trial_auc.csv",
        table1="results/tables/model_holdout/table1_auc.csv",
        table1_md=report(
            "results/tables/model_holdout/table1_auc.md",
            caption="../report/model_holdout.rst",
            category="Tables (model holdout)",
        ),
        table2="results/tables/model_holdout/table2_kstar.csv",
        table2_per_config="results/tables/model_holdout/table2_kstar_per_config.csv",
        table2_md=report(
            "results/tables/model_holdout/table2_kstar.md",
            caption="../report/model_holdout.rst",
            category="Tables (model holdout)",
        ),
        table3="results/tables/model_holdout/table3_wilcoxon_holm.csv",
        table3_summary="results/tables/model_holdout/table3_summary.csv",
        table3_md=report(
            "results/tables/model_holdout/table3_wilcoxon_holm.md",
            caption="../report/model_holdout.rst",
            category="Tables (model holdout)",
        ),
        recommendation=report(
            "results/tables/model_holdout/recommendation.txt",
            caption="../report/model_holdout.rst",
            category="Tables (model holdout)",
        ),
        recommendation_csv="results/tables/model_holdout/recommendation.csv",
    log:
        "logs/tables/model_holdout.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=4000,
        runtime=20,
    params:
        thresholds=config["thresholds"],
        reference=HOLDOUT_REFERENCE,
        alpha={d: domain_protocol(config, d)["alpha"] for d in DOMAINS},
        holdout_fraction={d: domain_protocol(config, d)["holdout_fraction"] for d in DOMAINS},
    script:
        "../../scripts/make_tables.py"


rule model_pool_table:
    """AUC table of the model-pool variation (same layout as Table 1), and the single full run of each of its
    configurations (every dataset, every model) that the paper compares it with."""
    input:
        trials=trial_files("model_pool"),
        ranks=expand("results/prepared/{domain}/dataset_ranks.csv", domain=DOMAINS),
        full_run_inputs=sorted({run[key] for run in full_runs() for key in ("scores", "representation_file")}),
    output:
        curves="results/tables/curves_model_pool.csv",
        full_run="results/tables/model_pool_full_run.csv",
        table1="results/tables/table1_auc_model_pool.csv",
        table1_md=report(
            "results/tables/table1_auc_model_pool.md",
            caption="../report/table1_model_pool.rst",
            category="Tables",
        ),
    log:
        "logs/tables/model_pool.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=4000,
        runtime=20,
    params:
        full_runs=full_runs(),
        seed=config["seed"],
        higher_is_better={d: config_domain(config, d).higher_is_better for d in DOMAINS},
    script:
        "../../scripts/make_model_pool_table.py"


rule curve_figure:
    """Fig. 2-style rank-preservation curves of one domain and variation."""
    input:
        # this domain's trials only, so a change in another domain does not redraw this figure
        trials=lambda wc: trial_files(wc.variation, wc.domain),
    output:
        png=report(
            "results/figures/curves_{domain}_{variation}.png",
            caption="../report/curves.rst",
            category="Figures",
        ),
        pdf="results/figures/curves_{domain}_{variation}.pdf",
    log:
        "logs/figures/curves_{domain}_{variation}.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/plot_curves.py"


rule paper_comparison:
    """Every number and claim of the two papers' text the outputs bear on (benchdesign/data/paper_claims.csv)
    against this run: the paper's value, this run's, and a verdict (benchdesign.workflow.paper_comparison)."""
    input:
        claims=PAPER_CLAIMS,
        results=paper_comparison_inputs(),
    output:
        csv="results/paper_comparison.csv",
        md=report(
            "results/paper_comparison.md",
            caption="../report/paper_comparison.rst",
            category="Paper comparison",
        ),
    log:
        "logs/paper_comparison.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        # what the result tables do not record and the verdicts depend on
        settings={
            "synthetic": synthetic_settings(config),
            "synthetic_ks": list(synthetic_protocol(config)["ks"]),
            "nlp_encoder": NLP_FEATURES["encoder"],
            "lohi_time_limit": MOL["method_options"].get("lohi", {}).get("time_limit"),
            "max_molecules": MOL["max_molecules"],
            # the molecular models' settings against the paper's (a section of paper_comparison.md)
            "models": MOL["models"] if MOL["enabled"] else [],
            "model_options": MOL["model_options"],
            "task_types": sorted({dataset_info(d).task_type for d in MOL["datasets"]}),
            # the protein features of the pair models, when the run has 2-D data
            "protein_representation": run_protein_representation(MOL),
        },
    script:
        "../../scripts/paper_comparison.py"
