"""Text embeddings: MTEB Table 11 (Muennighoff et al., EACL 2023), 56 tasks x 31 models; the task
metadata of MTEB's README, and description embeddings computed by the NLP feature rules."""

from __future__ import annotations

from collections.abc import Mapping

from benchdesign.data.loaders import SCORES_HIGHER_IS_BETTER, load_mteb_metadata, load_mteb_table11
from benchdesign.domains.nlp.metadata import nlp_metadata_representation
from benchdesign.domains.registry import Domain, one_input


def _ada_dir(files: Mapping[str, str]) -> str:
    """Folder of the local copies of the MTEB results JSON files (the part before ``results/``)."""
    jsons = [local for path, local in files.items() if path.endswith(".json")]
    if not jsons:
        raise ValueError("nlp: the MTEB results JSON files (source nlp_mteb_results_json) are missing")
    return jsons[0][: jsons[0].rindex("/results/")]


NLP = Domain(
    name="nlp",
    label="NLP",
    higher_is_better=SCORES_HIGHER_IS_BETTER["nlp"],
    load_scores=lambda files, models: load_mteb_table11(
        one_input(files, "all_en.txt", "nlp"), models, ada_fill=_ada_dir(files)
    ),
    sources=("nlp_mteb_table11", "nlp_mteb_metadata", "nlp_mteb_results_json"),
    builders={
        "metadata": lambda files: nlp_metadata_representation(
            load_mteb_metadata(one_input(files, "README.md", "nlp"))
        ),
    },
    computed=("description",),
)
