# The paper's guarantee and conclusions made visible (issue 12): covering radius of the selections
# against the bound of Appendix A.2, p_eff per representation, critical-difference diagrams and the
# conclusion stability of every strategy.


rule coverage:
    """Mean covering radius r_k (Euclidean and cosine) of farthest-first, random and k-means over the
    dataset-pool trials of one representation, with the bound 2Δ/(k^(1/p) − 1)."""
    input:
        ranks="results/prepared/{domain}/dataset_ranks.csv",
        representation="results/prepared/{domain}/representation_{representation}.csv",
    output:
        "results/guarantee/{domain}/coverage_{representation}.csv",
    log:
        "logs/guarantee/coverage_{domain}/{representation}.log",
    priority: CRITICAL_PATH
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=1500,
        runtime=30,
    params:
        # what the dataset-pool draws use, so that e.g. holdout_fraction does not rerun them
        protocol=lambda wc: coverage_settings(config, wc.domain),
        seed=config["seed"],
    script:
        "../../scripts/covering_radius.py"


rule coverage_figure:
    """r_k against k beside the bound and the fitted c·k^(−1/p_eff), for one domain and representation."""
    input:
        "results/guarantee/{domain}/coverage_{representation}.csv",
    output:
        png=report(
            "results/figures/coverage_{domain}/{representation}.png",
            caption="../report/coverage.rst",
            category="Guarantee",
        ),
        pdf="results/figures/coverage_{domain}/{representation}.pdf",
    log:
        "logs/figures/coverage_{domain}/{representation}.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/plot_coverage.py"


rule p_eff_table:
    """p_eff of the fit r_k = c·k^(−1/p_eff) per domain, representation, strategy and metric."""
    input:
        coverage_files(),
    output:
        csv="results/guarantee/p_eff.csv",
        md=report("results/guarantee/p_eff.md", caption="../report/p_eff.rst", category="Guarantee"),
    log:
        "logs/guarantee/p_eff.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/p_eff_table.py"


rule conclusions:
    """Conclusion stability of every strategy at k = 5, 10, 20 over the dataset-pool trials, and
    critical-difference diagrams of the full benchmark and of the best strategy's and random's subsets."""
    input:
        unpack(conclusion_inputs),
    output:
        stability="results/conclusions/{domain}/stability.csv",
        stability_md=report(
            "results/conclusions/{domain}/stability.md", caption="../report/stability.rst", category="Conclusions"
        ),
        figure=report("results/figures/stability_{domain}.png", caption="../report/stability.rst", category="Conclusions"),
        cd=report(
            directory("results/figures/cd_{domain}"),
            patterns=["{name}.png"],
            caption="../report/cd.rst",
            category="Conclusions",
        ),
    log:
        "logs/conclusions/{domain}.log",
    priority: CRITICAL_PATH
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        protocols=lambda wc: {s: trial_settings(config, wc.domain, s) for s in domain_protocol(config, wc.domain)["strategies"]},
        representations=lambda wc: domain_representations(config, wc.domain),
        higher_is_better=lambda wc: config_domain(config, wc.domain).higher_is_better,
        seed=config["seed"],
    script:
        "../../scripts/conclusions.py"
