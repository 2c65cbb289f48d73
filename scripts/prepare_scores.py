"""Scores of one domain in long form, the per-dataset model ranks, and the datasets used."""

from pathlib import Path

from benchdesign.domains import HIGHER_IS_BETTER, common_datasets, load_scores, restrict_datasets
from benchdesign.logs import start_log
from benchdesign.selection.ranking import rank_scores
from benchdesign.workflow_io import cached_inputs, write_csv, write_text

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
domain = snakemake.wildcards.domain
scores = load_scores(domain, cached_inputs(snakemake.input.data), snakemake.params.models)
covered = [Path(path).read_text().split() for path in snakemake.input.covered]
scores = restrict_datasets(scores, common_datasets(covered), f"{domain} feature representations")
ranks = rank_scores(scores, HIGHER_IS_BETTER[domain])
log.info("%s: %d datasets x %d models, %d folds", domain, *ranks.shape, scores["fold"].nunique())
write_csv(scores, snakemake.output.scores)
write_csv(ranks, snakemake.output.ranks, index=True)
write_text("".join(f"{name}\n" for name in ranks.index), snakemake.output.datasets)
