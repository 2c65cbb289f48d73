rule synthetic_trials:
    """Per-seed AUCs of one (regime, strategy) on freshly drawn synthetic benchmarks (section 6.4)."""
    output:
        "results/synthetic/{regime}/{strategy}.csv",
    log:
        "logs/synthetic/{regime}_{strategy}.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=1500,
        runtime=30,
    params:
        settings=synthetic_settings(config),
        protocol=synthetic_protocol(config),
        seed=config["seed"],
    script:
        "../../scripts/run_synthetic.py"


rule synthetic_table:
    """Table 4: AUC mean ± sd over seeds per regime and strategy."""
    input:
        expand(
            "results/synthetic/{regime}/{strategy}.csv",
            regime=["oracle", "broken"],
            strategy=synthetic_strategies(config),
        ),
    output:
        table="results/tables/table4_synthetic.csv",
        markdown=report(
            "results/tables/table4_synthetic.md",
            caption="../report/table4.rst",
            category="Tables",
        ),
        png=report(
            "results/figures/synthetic.png",
            caption="../report/synthetic.rst",
            category="Figures",
        ),
        pdf="results/figures/synthetic.pdf",
    log:
        "logs/synthetic/table.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/make_synthetic_table.py"
