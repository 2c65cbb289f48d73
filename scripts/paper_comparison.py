"""This run against the two papers: every claim of the claims table with this run's value and a verdict
(results/paper_comparison.csv and .md; benchdesign.workflow.paper_comparison)."""

from benchdesign.workflow.io import write_csv, write_text
from benchdesign.workflow.logs import start_log
from benchdesign.workflow.paper_comparison import STATUSES, compare_claims, comparison_markdown, load_claims

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
claims = load_claims(snakemake.input.claims)
# the rule's inputs are the result files at their canonical paths (relative to the working directory)
results = {str(path): str(path) for path in snakemake.input.results}
comparison = compare_claims(claims, results, snakemake.params.settings)
write_csv(comparison, snakemake.output.csv)
write_text(comparison_markdown(comparison, snakemake.params.settings), snakemake.output.md)
counts = comparison["status"].value_counts()
log.info("%d claims from %d result files: %s", len(comparison), len(results),
         ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES))
