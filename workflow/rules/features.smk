rule prepare_scores:
    """Scores of one domain in long form and per-dataset model ranks (1 = best, ties averaged),
    restricted to the datasets every enabled feature representation covers."""
    input:
        data=lambda wc: fetched(wc.domain),
        covered=lambda wc: feature_dataset_lists(wc.domain),
    output:
        scores="results/prepared/{domain}/scores.csv",
        ranks="results/prepared/{domain}/dataset_ranks.csv",
        datasets="results/prepared/{domain}/datasets_used.txt",
        provenance="results/prepared/{domain}/provenance.json",
    log:
        "logs/prepare_scores/{domain}.log",
    priority: CRITICAL_PATH
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        domain=lambda wc: domain_entry(config, wc.domain),
        models=lambda wc: config["domains"][wc.domain].get("models"),
    script:
        "../../scripts/prepare_scores.py"


rule representation:
    """One standardised dataset representation of a domain."""
    input:
        data=lambda wc: fetched(wc.domain),
        ranks="results/prepared/{domain}/dataset_ranks.csv",
        features=lambda wc: feature_matrix(wc.domain, wc.representation),
    output:
        "results/prepared/{domain}/representation_{representation}.csv",
    log:
        "logs/representation/{domain}_{representation}.log",
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        domain=lambda wc: domain_entry(config, wc.domain),
    script:
        "../../scripts/make_representation.py"
