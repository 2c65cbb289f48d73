"""Recommender systems: Shevchenko et al. (KDD 2024), 30 datasets x 9 models, with the 18 dataset
interaction statistics of the same table as the a-priori representation."""

from __future__ import annotations

from benchdesign.data.loaders import SCORES_HIGHER_IS_BETTER, load_recsys
from benchdesign.domains.recsys.features import recsys_interaction_representation
from benchdesign.domains.registry import Domain, one_input

RECSYS_TABLE = "Datafeatures_and_metrics.csv"

RECSYS = Domain(
    name="recsys",
    label="RecSys",
    higher_is_better=SCORES_HIGHER_IS_BETTER["recsys"],
    load_scores=lambda files, models: load_recsys(one_input(files, RECSYS_TABLE, "recsys"), models)[0],
    sources=("recsys_shevchenko2024",),
    builders={
        "interaction": lambda files: recsys_interaction_representation(
            load_recsys(one_input(files, RECSYS_TABLE, "recsys"))[1]
        ),
    },
)
