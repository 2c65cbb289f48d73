"""Embed the structured MTEB task descriptions -> results/features/nlp/description.csv."""

from benchdesign.domains.nlp.descriptions import description_texts, encode_descriptions
from benchdesign.workflow.io import write_csv
from benchdesign.workflow.logs import start_log

snakemake = globals()["snakemake"]
log = start_log(snakemake.log[0])
params = snakemake.params
texts = description_texts(snakemake.input.descriptions)
log.info("%d task descriptions; encoder %s", len(texts), params.encoder)
embeddings = encode_descriptions(texts, params.encoder, svd_components=params.svd_components,
                                 seed=params.seed, max_length=params.max_length,
                                 batch_size=params.batch_size)
embeddings.index.name = "dataset"
write_csv(embeddings, snakemake.output[0], index=True)
log.info("wrote %d x %d to %s", *embeddings.shape, snakemake.output[0])
