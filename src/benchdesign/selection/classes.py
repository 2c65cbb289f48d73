"""The two classes of selection methods, named in every table, figure, recommendation and doc.

* *a priori*: the selection sees the datasets' features only (metadata, statistics of the data, a
  description): a curator can run it before any model is evaluated.
* *informed*: the selection also sees model scores on the benchmark, those of the models the selection
  may see (in the model-holdout protocol the seen models, never the held-out ones that judge it; in the
  paper's protocols all models, which then also judge it).  The oracle representation (each dataset
  described by its models' ranks) is one; so are a feature table with the seen models' ranks appended
  (``NAME+seen``, ``benchdesign evaluate --with-seen-ranks``) and the published methods built on scores
  (tinyBenchmarks, Anchor Points, MMTEB's task selection: ``backward_elimination`` on the oracle).

Every registered strategy sees only the rows of its representation, so the representation decides the
class; random and stratified random use no representation and are a priori.  [`selection_class`][] is the
one place that says so; a feature table a user builds from model scores is named a priori unless it follows
the ``+seen`` convention.  No heavy imports: the command line uses this module.
"""

from __future__ import annotations

from benchdesign.selection.options import RANDOM_BASELINES

__all__ = ["A_PRIORI", "INFORMED", "CLASSES", "CLASS_LABELS", "INFORMED_REPRESENTATIONS", "SEEN_RANKS_SUFFIX",
           "selection_class", "class_label", "seen_ranks_name"]

A_PRIORI = "a priori"
"""Class of a selection that sees the datasets' features only."""
INFORMED = "informed"
"""Class of a selection that also sees model scores (the seen models')."""
CLASSES: tuple[str, ...] = (A_PRIORI, INFORMED)
"""Both classes, in the order tables list them."""
CLASS_LABELS = {
    A_PRIORI: "a priori (dataset features only)",
    INFORMED: "informed (also the seen models' scores)",
}
"""How tables, figures and recommendations name each class in words."""
INFORMED_REPRESENTATIONS: tuple[str, ...] = ("oracle",)
"""Representations built from the models' scores: the oracle (each dataset's vector of model ranks)."""
SEEN_RANKS_SUFFIX = "+seen"
"""Suffix of a feature table with the seen models' ranks appended (``metadata+seen``): informed."""


def seen_ranks_name(representation: str) -> str:
    """Name of ``representation`` with the seen models' ranks appended.

    Examples
    --------
    >>> seen_ranks_name("metadata")
    'metadata+seen'
    """
    return f"{representation}{SEEN_RANKS_SUFFIX}"


def selection_class(strategy: str, representation: str) -> str:
    """The class of a (strategy, representation) configuration: ``INFORMED`` or ``A_PRIORI``.

    Informed when the representation is built from model scores (``INFORMED_REPRESENTATIONS``, or a name
    ending in ``SEEN_RANKS_SUFFIX``) and the strategy uses it; the random baselines (``RANDOM_BASELINES``)
    ignore the representation and are a priori.  Any other name (a user's feature table) is a priori.

    Parameters
    ----------
    strategy : str
        A strategy name (e.g. ``'kmeans'``).
    representation : str
        A representation name (``'none'`` for the random baselines).

    Returns
    -------
    str
        ``'a priori'`` or ``'informed'``.

    Examples
    --------
    >>> selection_class("kmeans", "metadata")
    'a priori'
    >>> selection_class("mutual_information", "metadata+seen")
    'informed'
    >>> selection_class("backward_elimination", "oracle")
    'informed'
    >>> selection_class("random", "none")
    'a priori'
    """
    if strategy in RANDOM_BASELINES:
        return A_PRIORI
    if representation in INFORMED_REPRESENTATIONS or representation.endswith(SEEN_RANKS_SUFFIX):
        return INFORMED
    return A_PRIORI


def class_label(name: str) -> str:
    """The class in words, e.g. ``'informed (also the seen models' scores)'``.

    Parameters
    ----------
    name : str
        ``'a priori'`` or ``'informed'``.

    Returns
    -------
    str
        Its ``CLASS_LABELS`` entry.

    Examples
    --------
    >>> class_label("a priori")
    'a priori (dataset features only)'
    """
    if name not in CLASS_LABELS:
        raise ValueError(f"unknown selection class {name!r}; expected one of {list(CLASS_LABELS)}")
    return CLASS_LABELS[name]
