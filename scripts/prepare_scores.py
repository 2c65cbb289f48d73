"""Scores of one domain in long form and the per-dataset model ranks."""

from benchdesign.domains import HIGHER_IS_BETTER, load_scores
from benchdesign.logs import start_log
from benchdesign.ranking import rank_scores
from benchdesign.workflow_io import cached_inputs, write_csv

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
domain = snakemake.wildcards.domain
files = cached_inputs(snakemake.input.data)
scores = load_scores(domain, files, snakemake.params.models)
ranks = rank_scores(scores, HIGHER_IS_BETTER[domain])
log.info("%s: %d datasets x %d models, %d folds", domain, *ranks.shape, scores["fold"].nunique())
write_csv(scores, snakemake.output.scores)
write_csv(ranks, snakemake.output.ranks, index=True)
