"""The three benchmark domains: which manifest sources each needs and how they become scores and
representations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from benchdesign.data.loaders import (
    HIGHER_IS_BETTER,
    load_mteb_metadata,
    load_mteb_table11,
    load_recsys,
    load_tsc_bakeoff,
)
from benchdesign.data.sources import SourceFile, files_of
from benchdesign.selection.representations import (
    check_representation,
    nlp_metadata_representation,
    oracle_representation,
    recsys_interaction_representation,
)

__all__ = ["HIGHER_IS_BETTER", "DOMAIN_SOURCES", "domain_source_paths", "load_scores",
           "load_representation"]

DOMAIN_SOURCES: dict[str, tuple[str, ...]] = {
    "tsc": ("tsc_bakeoff2023",),
    "recsys": ("recsys_shevchenko2024",),
    "nlp": ("nlp_mteb_table11", "nlp_mteb_metadata", "nlp_mteb_results_json"),
}


def domain_source_paths(domain: str, manifest: Mapping[str, SourceFile]) -> list[str]:
    """Manifest paths of every file the domain reads."""
    if domain not in DOMAIN_SOURCES:
        raise ValueError(f"unknown domain {domain!r}; choose from {sorted(DOMAIN_SOURCES)}")
    return [f.path for source in DOMAIN_SOURCES[domain] for f in files_of(dict(manifest), source)]


def _one(files: Mapping[str, str], suffix: str, domain: str) -> str:
    found = [local for path, local in files.items() if path.endswith(suffix)]
    if len(found) != 1:
        raise ValueError(f"{domain}: expected one input ending in {suffix!r}, got {found}")
    return found[0]


def _ada_dir(files: Mapping[str, str]) -> str:
    """Folder of the local copies of the MTEB results JSON files (the part before ``results/``)."""
    jsons = [local for path, local in files.items() if path.endswith(".json")]
    if not jsons:
        raise ValueError("nlp: the MTEB results JSON files (source nlp_mteb_results_json) are missing")
    return jsons[0][: jsons[0].rindex("/results/")]


def load_scores(domain: str, files: Mapping[str, str], models: Sequence[str] | None) -> pd.DataFrame:
    """Long scores frame (dataset, model, fold, score) of a domain.

    ``files`` maps manifest paths to local copies; ``models`` restricts the model columns.
    """
    if domain == "tsc":
        return load_tsc_bakeoff(list(files.values()), models)
    if domain == "recsys":
        return load_recsys(_one(files, "Datafeatures_and_metrics.csv", domain), models)[0]
    if domain == "nlp":
        return load_mteb_table11(_one(files, "all_en.txt", domain), models, ada_fill=_ada_dir(files))
    raise ValueError(f"unknown domain {domain!r}")


def load_representation(
    domain: str,
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
    elif (domain, representation) == ("recsys", "interaction"):
        raw = recsys_interaction_representation(
            load_recsys(_one(files, "Datafeatures_and_metrics.csv", domain))[1]
        )
    elif (domain, representation) == ("nlp", "metadata"):
        raw = nlp_metadata_representation(load_mteb_metadata(_one(files, "README.md", domain)))
    else:
        raise ValueError(f"representation {representation!r} is not available for domain {domain!r}")
    missing = dataset_ranks.index.difference(raw.index)
    if len(missing):
        raise ValueError(
            f"{domain}/{representation}: no features for dataset(s) {list(missing)} of the score table"
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
