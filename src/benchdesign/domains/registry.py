"""The domain registry: what the pipeline needs to know of one benchmark.

A [`Domain`][] names its inputs (manifest sources, or the user's own files for kind ``table``),
the direction of its scores, how its scores and representations are loaded, and its display label.
The built-in domains (tsc, recsys, nlp) register themselves when ``benchdesign.domains`` is
imported; a user's benchmark is a domain of kind ``table`` built from its config entry
(``benchdesign.domains.table.table_domain``); a test or a library user may
[`register_domain`][] another one.
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
    """One benchmark: its inputs, the direction of its scores, how its scores and representations are loaded.

    Parameters
    ----------
    name : str
        Config key and wildcard value (letters, digits, underscores).
    label : str
        Name shown in tables and figures.
    higher_is_better : bool
        Direction of the benchmark's *scores* (accuracy: True, error: False); not to be confused with
        ``benchdesign.selection.metrics.METRIC_HIGHER_IS_BETTER``, the direction of the rank-agreement metrics.
    load_scores : ScoresLoader
        ``(files, models) -> scores``: files maps input paths to local copies, models restricts the models
        (None: all); the result is the long scores frame (dataset, model, fold, score).
    sources : tuple[str, ...]
        Manifest sources (``data/sources.yaml``) the domain reads; empty for user files.
    inputs : tuple[str, ...]
        The user's own files (kind ``table``): read directly and checksummed into provenance.
    builders : Mapping[str, FeatureBuilder]
        Representation name -> ``(files) -> features`` (datasets x features), for representations built from
        the domain's inputs. ``oracle`` is always available.
    computed : tuple[str, ...]
        Representations computed by the feature rules into ``results/features/<domain>/<name>.csv``.
    partial_coverage : bool
        The computed representations may cover only some datasets (their rules write
        ``<name>_datasets.txt``); the scores are then restricted to the covered datasets.

    Examples
    --------
    >>> from benchdesign.domains import Domain
    >>> domain = Domain("toy", "Toy benchmark", higher_is_better=False, load_scores=lambda files, models: None,
    ...                 computed=("catch22",))
    >>> domain.label, domain.sources, domain.representations
    ('Toy benchmark', (), ('catch22', 'oracle'))
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
    """Add ``domain`` to ``REGISTRY``, where the pipeline and ``get_domain`` find it by name.

    Parameters
    ----------
    domain : Domain
        The domain; its name must not be taken by another domain.

    Returns
    -------
    Domain
        ``domain`` itself, so that [`register_domain`][] can wrap a definition.

    Raises
    ------
    ValueError
        If another domain of that name is registered (registering the same domain again is allowed).

    Examples
    --------
    A benchmark of two datasets and two models, its scores from memory:

    >>> import pandas as pd
    >>> from benchdesign.domains import REGISTRY, Domain, load_scores, register_domain
    >>> def scores(files, models):
    ...     return pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2"], "model": ["a", "b", "a", "b"],
    ...                          "fold": 0, "score": [0.9, 0.8, 0.7, 0.75]})
    >>> domain = register_domain(Domain("toy", "Toy benchmark", higher_is_better=True, load_scores=scores))
    >>> REGISTRY["toy"] is domain
    True
    >>> load_scores(domain, {}, None).shape
    (4, 4)
    >>> del REGISTRY["toy"]
    """
    if domain.name in REGISTRY and REGISTRY[domain.name] is not domain:
        raise ValueError(f"domain {domain.name!r} is already registered")
    REGISTRY[domain.name] = domain
    return domain


def domain_source_paths(domain: Domain, manifest: Mapping[str, SourceFile]) -> list[str]:
    """Manifest paths of every file the domain reads (none for a domain of user files).

    Parameters
    ----------
    domain : Domain
        The domain.
    manifest : Mapping[str, SourceFile]
        The data manifest (``benchdesign.data.sources``), path -> source file.

    Returns
    -------
    list[str]
        The paths of the files of the domain's ``sources``.

    Examples
    --------
    A manifest of two files, one of the source of the built-in ``tsc`` domain:

    >>> from benchdesign.data.sources import SourceFile
    >>> from benchdesign.domains import domain_source_paths, get_domain, table_domain
    >>> manifest = {
    ...     "tsc/results.csv": SourceFile("tsc_bakeoff2023", "tsc/results.csv", None, "https://example.org/results.csv"),
    ...     "nlp/table.csv": SourceFile("nlp_mteb_table11", "nlp/table.csv", None, "https://example.org/table.csv"),
    ... }
    >>> domain_source_paths(get_domain("tsc"), manifest)
    ['tsc/results.csv']
    >>> domain_source_paths(table_domain("mine", {"scores": "s.csv", "higher_is_better": True, "features": {}}), manifest)
    []
    """
    return [f.path for source in domain.sources for f in files_of(dict(manifest), source)]


def one_input(files: Mapping[str, str], suffix: str, domain: str) -> str:
    """The local copy of the single input whose path ends in ``suffix``."""
    found = [local for path, local in files.items() if path.endswith(suffix)]
    if len(found) != 1:
        raise ValueError(f"{domain}: expected one input ending in {suffix!r}, got {found}")
    return found[0]


def load_scores(domain: Domain, files: Mapping[str, str], models: Sequence[str] | None) -> pd.DataFrame:
    """Long scores frame (dataset, model, fold, score) of a domain.

    Parameters
    ----------
    domain : Domain
        The domain; its [`load_scores`][] reads the scores.
    files : Mapping[str, str]
        Input path -> local copy of the file.
    models : Sequence[str] | None
        Models to keep (None: all).

    Returns
    -------
    pd.DataFrame
        Columns ``dataset, model, fold, score``, one row per score.

    Examples
    --------
    The scores of a user's benchmark (a domain of kind ``table``), from a wide CSV with one column per model:

    >>> import pathlib
    >>> import tempfile
    >>> import pandas as pd
    >>> from benchdesign.domains import load_scores, table_domain
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"dataset": ["d1", "d2", "d3"], "knn": [0.8, 0.7, 0.5],
    ...               "forest": [0.9, 0.6, 0.7]}).to_csv(folder / "scores.csv", index=False)
    >>> pd.DataFrame({"dataset": ["d1", "d2", "d3"], "size": [100, 2000, 350]}).to_csv(
    ...     folder / "features.csv", index=False)
    >>> domain = table_domain("mine", {"scores": str(folder / "scores.csv"), "higher_is_better": True,
    ...                                "features": {"meta": str(folder / "features.csv")}})
    >>> load_scores(domain, {}, ["forest", "knn"])
      dataset   model  fold  score
    0      d1     knn     0    0.8
    1      d2     knn     0    0.7
    2      d3     knn     0    0.5
    3      d1  forest     0    0.9
    4      d2  forest     0    0.6
    5      d3  forest     0    0.7
    """
    return domain.load_scores(files, models)


def load_representation(
    domain: Domain,
    representation: str,
    files: Mapping[str, str],
    dataset_ranks: pd.DataFrame,
    features: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Representation (datasets x features, constant columns dropped, not yet z-scored: the protocol
    does that) in the row order of ``dataset_ranks``.

    Parameters
    ----------
    domain : Domain
        The domain.
    representation : str
        Name of the representation: ``oracle``, a name of ``domain.builders``, or a computed one given by
        ``features``.
    files : Mapping[str, str]
        Input path -> local copy, for the builders.
    dataset_ranks : pd.DataFrame
        Model ranks per dataset (datasets x models); the oracle is built from them, and their index orders
        the rows.
    features : pd.DataFrame | None
        The raw matrix of a representation computed by the feature rules (TSC features, NLP descriptions);
        None: built here from the domain's inputs.

    Returns
    -------
    pd.DataFrame
        The checked representation, one row per dataset of ``dataset_ranks``.

    Raises
    ------
    ValueError
        If the representation is not available or lacks a dataset of ``dataset_ranks``.

    Examples
    --------
    A feature CSV of a user's benchmark; its constant column ``channels`` is dropped and the rows follow the
    ranks:

    >>> import pathlib
    >>> import tempfile
    >>> import pandas as pd
    >>> from benchdesign.domains import load_representation, table_domain
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"dataset": ["d1", "d2", "d3"], "size": [100, 2000, 350], "channels": [1, 1, 1]}).to_csv(
    ...     folder / "features.csv", index=False)
    >>> domain = table_domain("mine", {"scores": str(folder / "scores.csv"), "higher_is_better": True,
    ...                                "features": {"meta": str(folder / "features.csv")}})
    >>> ranks = pd.DataFrame({"knn": [2.0, 1.0, 2.0], "forest": [1.0, 2.0, 1.0]}, index=["d3", "d1", "d2"])
    >>> meta = load_representation(domain, "meta", {}, ranks)
    >>> meta.index.tolist(), meta.columns.tolist(), meta["size"].tolist()
    (['d3', 'd1', 'd2'], ['size'], [350.0, 100.0, 2000.0])
    >>> load_representation(domain, "oracle", {}, ranks).to_dict("list")
    {'knn': [2.0, 1.0, 2.0], 'forest': [1.0, 2.0, 1.0]}
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
    """Datasets covered by every feature representation.

    Parameters
    ----------
    dataset_lists : Sequence[Sequence[str]]
        The datasets each representation covers.

    Returns
    -------
    set[str] | None
        Their intersection; None when there is no list.

    Examples
    --------
    >>> from benchdesign.domains import common_datasets
    >>> sorted(common_datasets([["d1", "d2", "d3"], ["d2", "d3", "d4"]]))
    ['d2', 'd3']
    >>> common_datasets([]) is None
    True
    """
    if not dataset_lists:
        return None
    return set.intersection(*(set(names) for names in dataset_lists))


def restrict_datasets(scores: pd.DataFrame, keep: set[str] | None, what: str) -> pd.DataFrame:
    """Keep the scores of the datasets in ``keep``.

    Parameters
    ----------
    scores : pd.DataFrame
        Long scores frame (dataset, model, fold, score).
    keep : set[str] | None
        Datasets to keep (None: all).
    what : str
        What the scores are, for the error message.

    Returns
    -------
    pd.DataFrame
        The rows of the kept datasets.

    Raises
    ------
    ValueError
        If fewer than two datasets remain.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchdesign.domains import restrict_datasets
    >>> scores = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2", "d3", "d3"], "model": ["a", "b"] * 3, "fold": 0,
    ...                        "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]})
    >>> restrict_datasets(scores, {"d1", "d3"}, "toy scores")["dataset"].tolist()
    ['d1', 'd1', 'd3', 'd3']
    >>> try:
    ...     restrict_datasets(scores, {"d1"}, "toy scores")
    ... except ValueError as err:
    ...     print(err)
    toy scores: only 1 dataset(s) have every representation
    """
    if keep is None:
        return scores
    kept = scores[scores["dataset"].isin(keep)]
    if kept["dataset"].nunique() < 2:
        raise ValueError(f"{what}: only {kept['dataset'].nunique()} dataset(s) have every representation")
    return kept
