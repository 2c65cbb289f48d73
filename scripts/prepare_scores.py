"""Scores of one domain in long form, the per-dataset model ranks, the datasets used, and the
provenance (path, size, sha256) of the domain's input files."""

import json
from pathlib import Path

from benchdesign.domains import common_datasets, file_provenance, get_domain, load_scores, restrict_datasets
from benchdesign.selection.ranking import rank_scores
from benchdesign.workflow.io import domain_inputs, write_csv, write_text
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
domain = get_domain(snakemake.wildcards.domain, snakemake.params.domain)
scores = load_scores(domain, domain_inputs(domain, snakemake.input.data), snakemake.params.models)
covered = [Path(path).read_text().split() for path in snakemake.input.covered]
scores = restrict_datasets(scores, common_datasets(covered), f"{domain.name} feature representations")
ranks = rank_scores(scores, domain.higher_is_better)
log.info("%s: %d datasets x %d models, %d folds", domain.name, *ranks.shape, scores["fold"].nunique())
write_csv(scores, snakemake.output.scores)
write_csv(ranks, snakemake.output.ranks, index=True)
write_text("".join(f"{name}\n" for name in ranks.index), snakemake.output.datasets)
provenance = {"domain": domain.name, "higher_is_better": domain.higher_is_better,
              "files": file_provenance(snakemake.input.data)}
write_text(json.dumps(provenance, indent=2) + "\n", snakemake.output.provenance)
