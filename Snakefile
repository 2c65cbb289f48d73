# benchdesign: regenerate the tables and figures of the rank-preserving dataset-selection paper.
# Run: snakemake --cores N [--config mirror=DIR]; see README.md.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
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



rule all:
    input:
        final_targets(),
        mol_targets(),
    default_target: True
