"""Time-series classification: the 2023 bake-off redux (Middlehurst et al.), 112 UCR datasets x 35
classifiers x 30 resamples; representations computed from the raw series by the TSC feature rules."""

from __future__ import annotations

from benchdesign.data.loaders import SCORES_HIGHER_IS_BETTER, load_tsc_bakeoff
from benchdesign.domains.registry import Domain
from benchdesign.domains.tsc.features import REPRESENTATIONS as TSC_REPRESENTATIONS

TSC = Domain(
    name="tsc",
    label="TSC",
    higher_is_better=SCORES_HIGHER_IS_BETTER["tsc"],
    load_scores=lambda files, models: load_tsc_bakeoff(list(files.values()), models),
    sources=("tsc_bakeoff2023",),
    computed=tuple(TSC_REPRESENTATIONS),  # the feature rules' registry, paper variants included
    partial_coverage=True,
)
