rule trials:
    """All trials of one (variation, domain, representation, strategy): one row per trial, k, metric."""
    input:
        unpack(trial_inputs),
    output:
        "results/trials/{variation}/{domain}/{representation}/{strategy}.csv",
    log:
        "logs/trials/{variation}/{domain}/{representation}/{strategy}.log",
    conda:
        "../envs/benchdesign.yaml"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=30,
    params:
        protocol=lambda wc: trial_settings(config, wc.domain, wc.strategy, wc.variation),
        seed=config["seed"],
        higher_is_better=lambda wc: config_domain(config, wc.domain).higher_is_better,
    script:
        "../../scripts/run_trials.py"
