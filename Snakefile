# benchdesign: regenerate the tables and figures of the rank-preserving dataset-selection paper.
# Run: snakemake --cores N [--config mirror=DIR]; see README.md.
import sys

from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/tsc_common.smk"
include: "workflow/rules/tsc_features.smk"
include: "workflow/rules/nlp_features.smk"
include: "workflow/rules/features.smk"
include: "workflow/rules/selection.smk"
include: "workflow/rules/reports.smk"
include: "workflow/rules/guarantee.smk"
include: "workflow/rules/synthetic.smk"
include: "workflow/rules/molecules.smk"


# Leakage-reduced splitting of one dataset (DataSAIL method): runs when the config has a
# `splitting:` block (see config/splitting.yaml), e.g. --configfile config/splitting.yaml.
if config.get("splitting"):

    include: "workflow/rules/splitting.smk"


# Exact leakage of one split file as SLURM-friendly tile jobs: runs when the config has a
# `leakage_tiles:` block; target results/leakage/<name>.exact.json.
if config.get("leakage_tiles"):

    include: "workflow/rules/leakage_tiles.smk"


onstart:
    # Snakemake 9's job rate limiter (--max-jobs-per-timespan, default 100/1s) starts a one-second timer at each
    # scheduling round, and the timers pile up (one more per finished job): a few hundred jobs in, the scheduler
    # re-plans hundreds of times a second and takes a core of its own (docs/performance.md). Run locally, jobs
    # start as others finish and nothing needs limiting; on a cluster the limiter stays.
    if workflow.local_exec and getattr(workflow.scheduler, "job_rate_limiter", None) is not None:
        workflow.scheduler.job_rate_limiter = None


onerror:
    # The console otherwise shows only "CalledProcessError ... check log": show each failed job's log tail.
    from benchdesign.workflow.preflight import failed_job_logs

    print(failed_job_logs(log), file=sys.stderr)


rule all:
    default_target: True
    input:
        final_targets(),
        mol_targets(),
