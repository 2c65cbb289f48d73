"""The domain registry: what the pipeline needs to know of one benchmark.

A ``Domain`` names its inputs (manifest sources, or the user's own files for kind ``table``),
the direction of its scores, how its scores and representations are loaded, and its display label.
The built-in domains (tsc, recsys, nlp) register themselves when ``benchdesign.domains`` is
imported; a user's benchmark is a domain of kind ``table`` built from its config entry
(``benchdesign.domains.table.table_domain``); a test or a library user may
``register_domain`` another one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from benchdesign.data.sources import SourceFile, files_of
from benchdesign.selection.representations import check_representation, oracle_representation

__all__ = [
    "Domain",
    "REGISTRY",
    "register_domain",
    "domain_source_paths",
    "load_scores",
    "load_representation",
    "common_datasets",
    "restrict_datasets",
    "one_input",
]

ScoresLoader = Callable[[Mapping[str, str], Sequence[str] | None], pd.DataFrame]
"""(files: input path -> local copy, models or None) -> long scores frame (dataset, model, fold, score)."""
FeatureBuilder = Callable[[Mapping[str, str]], pd.DataFrame]
"""(files) -> raw features (datasets x features) of one representation."""


@dataclass(frozen=True)
class Domain:
    """One benchmark.

    Parameters
    ----------
    name : config key and wildcard value (letters, digits, underscores).
    label : name shown in tables and figures.
    higher_is_better : direction of the benchmark's *scores* (accuracy: True, error: False); not to
        be confused with ``benchdesign.selection.metrics.METRIC_HIGHER_IS_BETTER``, the
        direction of the rank-agreement metrics.
    load_scores : see ``ScoresLoader``.
    sources : manifest sources (data/sources.yaml) the domain reads; empty for user files.
    inputs : the user's own files (kind ``table``): read directly and checksummed into provenance.
    builders : representation name -> ``FeatureBuilder``, for representations built from the
        domain's inputs.  ``oracle`` is always available.
    computed : representations computed by the feature rules into
        ``results/features/<domain>/<name>.csv``.
    partial_coverage : the computed representations may cover only some datasets (their rules
        write ``<name>_datasets.txt``); the scores are then restricted to the covered datasets.
    """

    name: str
    label: str
    higher_is_better: bool
    load_scores: ScoresLoader
    sources: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    builders: Mapping[str, FeatureBuilder] = field(default_factory=dict)
    computed: tuple[str, ...] = ()
    partial_coverage: bool = False

    @property
    def representations(self) -> tuple[str, ...]:
        """Every representation the domain offers, ``oracle`` last."""
        return (*self.computed, *self.builders, "oracle")


REGISTRY: dict[str, Domain] = {}
"""Registered domains by name, in registration order (the order of the tables)."""


def register_domain(domain: Domain) -> Domain:
    """Add ``domain`` to ``REGISTRY`` (error if the name is taken by another domain)."""
    if domain.name in REGISTRY and REGISTRY[domain.name] is not domain:
        raise ValueError(f"domain {domain.name!r} is already registered")
    REGISTRY[domain.name] = domain
    return domain


def domain_source_paths(domain: Domain, manifest: Mapping[str, SourceFile]) -> list[str]:
    """Manifest paths of every file the domain reads (none for a domain of user files)."""
    return [f.path for source in domain.sources for f in files_of(dict(manifest), source)]


def one_input(files: Mapping[str, str], suffix: str, domain: str) -> str:
    """The local copy of the single input whose path ends in ``suffix``."""
    found = [local for path, local in files.items() if path.endswith(suffix)]
    if len(found) != 1:
        raise ValueError(f"{domain}: expected one input ending in {suffix!r}, got {found}")
    return found[0]


def load_scores(domain: Domain, files: Mapping[str, str], models: Sequence[str] | None) -> pd.DataFrame:
    """Long scores frame (dataset, model, fold, score) of a domain.

    ``files`` maps input paths to local copies; ``models`` restricts the model columns.
    """
    return domain.load_scores(files, models)


def load_representation(
    domain: Domain,
    representation: str,
    files: Mapping[str, str],
    dataset_ranks: pd.DataFrame,
    features: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Representation (datasets × features, constant columns dropped, not yet z-scored: the protocol
    does that) in the row order of ``dataset_ranks``.

    ``features`` is the raw matrix of a representation computed by the feature rules (TSC
    features, NLP descriptions); the others are built here from the domain's inputs.
    """
    if features is not None:
        raw = features
    elif representation == "oracle":
        raw = oracle_representation(dataset_ranks)
    elif representation in domain.builders:
        raw = domain.builders[representation](files)
    else:
        raise ValueError(f"representation {representation!r} is not available for domain {domain.name!r}")
    missing = dataset_ranks.index.difference(raw.index)
    if len(missing):
        raise ValueError(
            f"{domain.name}/{representation}: no features for dataset(s) {list(missing)} of the score table"
        )
    return check_representation(raw.loc[dataset_ranks.index])


def common_datasets(dataset_lists: Sequence[Sequence[str]]) -> set[str] | None:
    """Datasets covered by every feature representation (None when there is none)."""
    if not dataset_lists:
        return None
    return set.intersection(*(set(names) for names in dataset_lists))


def restrict_datasets(scores: pd.DataFrame, keep: set[str] | None, what: str) -> pd.DataFrame:
    """Keep the datasets in ``keep`` (all when None); error when fewer than two remain."""
    if keep is None:
        return scores
    kept = scores[scores["dataset"].isin(keep)]
    if kept["dataset"].nunique() < 2:
        raise ValueError(f"{what}: only {kept['dataset'].nunique()} dataset(s) have every representation")
    return kept
