"""Benchmark domains behind one registry ([`REGISTRY`][benchdesign.domains.REGISTRY]).

Built in: the domains ``tsc``, ``recsys`` and ``nlp`` (registered in this order, the order of the tables;
[`BUILTIN_DOMAINS`][benchdesign.domains.BUILTIN_DOMAINS]). A user's benchmark is a domain of kind ``table``
([`table_domain`][benchdesign.domains.table_domain]), and a library user may add one with
[`register_domain`][benchdesign.domains.register_domain]; the pipeline finds a domain by name with
[`get_domain`][benchdesign.domains.get_domain] and reads its scores with
[`load_scores`][benchdesign.domains.load_scores].
"""

from __future__ import annotations

from collections.abc import Mapping

from benchdesign.domains.nlp import NLP
from benchdesign.domains.recsys import RECSYS
from benchdesign.domains.registry import (
    REGISTRY,
    Domain,
    common_datasets,
    domain_source_paths,
    load_representation,
    load_scores,
    register_domain,
    restrict_datasets,
)
from benchdesign.domains.table import (
    NAME_PATTERN,
    file_provenance,
    read_feature_table,
    read_scores_table,
    read_strata,
    table_domain,
)
from benchdesign.domains.tsc import TSC

__all__ = [
    "Domain", "REGISTRY", "BUILTIN_DOMAINS", "DOMAIN_LABELS", "KINDS", "NAME_PATTERN", "get_domain", "register_domain",
    "domain_source_paths", "load_scores", "load_representation", "common_datasets", "restrict_datasets",
    "read_scores_table", "read_feature_table", "read_strata", "table_domain", "file_provenance",
]

for _domain in (TSC, RECSYS, NLP):
    register_domain(_domain)
BUILTIN_DOMAINS = tuple(REGISTRY)
"""Names of the built-in domains, in table order (the ``domain_order`` of the selection tables)."""
DOMAIN_LABELS = {name: REGISTRY[name].label for name in BUILTIN_DOMAINS}
"""Display names of the built-in domains (the ``domain_labels`` of the selection tables and figures)."""
KINDS = {"table": table_domain}
"""Domain kinds built from a config entry: kind -> (name, entry) -> Domain."""


def get_domain(name: str, entry: Mapping[str, object] | None = None) -> Domain:
    """The domain ``name``: built from ``entry`` when it has a ``kind``, else the registered domain of that name.

    Parameters
    ----------
    name : str
        The domain's name.
    entry : Mapping[str, object] | None
        Its config entry; with ``kind`` (e.g. ``table``) the domain is built by that kind of ``KINDS``.

    Returns
    -------
    Domain
        The domain.

    Raises
    ------
    ValueError
        For an unknown kind, or a name neither registered nor given a kind.

    Examples
    --------
    A built-in domain by name, and a user's benchmark from its config entry:

    >>> from benchdesign.domains import get_domain
    >>> get_domain("tsc").label, get_domain("tsc").higher_is_better
    ('TSC', True)
    >>> mine = get_domain("mine", {"kind": "table", "scores": "scores.csv", "higher_is_better": False,
    ...                            "features": {"meta": "meta.csv"}})
    >>> mine.inputs, mine.representations
    (('scores.csv', 'meta.csv'), ('meta', 'oracle'))
    >>> try:
    ...     get_domain("mine", {"kind": "sql"})
    ... except ValueError as err:
    ...     print(err)
    domain 'mine': unknown kind 'sql'; choose from ['table']
    """
    kind = (entry or {}).get("kind")
    if kind is not None:
        if kind not in KINDS:
            raise ValueError(f"domain {name!r}: unknown kind {kind!r}; choose from {sorted(KINDS)}")
        return KINDS[kind](name, entry)
    if name not in REGISTRY:
        raise ValueError(
            f"unknown domain {name!r}; choose from {list(REGISTRY)} or give it `kind: table`"
        )
    return REGISTRY[name]
