"""Option vocabularies of the selection protocol, in a module without heavy imports (the command line builds its
parsers from these; the modules that use them import them from here). The first value of each is the default."""

from __future__ import annotations

FAFI_STARTS: tuple[str, ...] = ("nearest", "farthest")
"""Start rules of the farthest-first traversal (:func:`~benchdesign.selection.strategies.farthest_first_order`)."""
STANDARDIZATIONS: tuple[str, ...] = ("all", "pool")
"""Where the representation is z-scored: over all datasets once, or over each trial's pool rows."""
BASELINE_STRATEGIES: tuple[str, ...] = ("kmedoids", "facility_location", "mutual_information", "stratified")
"""Curator baselines (issue 22) of the strategy registry: ``select --strategy`` / ``evaluate --strategies`` run
them when named; runs without a strategy list (the pipeline, ``evaluate``) leave them out.  ``stratified`` needs
a label per dataset (option ``strata``; CLI ``--strata FILE:COLUMN``)."""
