# NLP (MTEB) `description` representation (paper section 5.2): hand-written structured task
# descriptions (benchdesign/data/nlp_task_descriptions.yaml, package data) rendered with a fixed template and embedded.
# Settings: `features: nlp:` of the config (defaults: benchdesign.domains.nlp.descriptions.DEFAULT_SETTINGS).
import os

from benchdesign.domains.nlp.descriptions import DEFAULT_SETTINGS as NLP_FEATURE_DEFAULTS, default_descriptions_path

NLP_FEATURES = {**NLP_FEATURE_DEFAULTS, **((config.get("features") or {}).get("nlp") or {})}
if NLP_FEATURES["seed"] is None:
    NLP_FEATURES["seed"] = config.get("seed", 0)


rule nlp_description_features:
    """Embedding of every task description: TF-IDF + truncated SVD (offline default) or a Hugging
    Face encoder (mean pooling over non-padding tokens), rows l2-normalised."""
    input:
        # shipped inside the package (a stable local path; workflow.source_path changes between invocations)
        descriptions=str(default_descriptions_path()),
    output:
        "results/features/nlp/description.csv",
    log:
        "logs/features/nlp_description_features.log",
    conda:
        "../envs/benchdesign.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc: 1000 if NLP_FEATURES["encoder"] == "tfidf" else 4000,
        runtime=lambda wc: 5 if NLP_FEATURES["encoder"] == "tfidf" else 30,
    params:
        encoder=NLP_FEATURES["encoder"],
        svd_components=NLP_FEATURES["svd_components"],
        max_length=NLP_FEATURES["max_length"],
        batch_size=NLP_FEATURES["batch_size"],
        seed=NLP_FEATURES["seed"],
    script:
        "../../scripts/nlp_description_features.py"
