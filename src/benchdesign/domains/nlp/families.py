"""Model families of MTEB Table 11's 31 models, for the family hold-out (``selection.heldout``).

The table has no family column. A model's family is its name up to the first hyphen (its authors' naming: the
seven ``SGPT-*``, four ``GTR-*``, four ``ST5-*``, three ``MiniLM-*``, two ``MPNet-*`` and two ``SimCSE-BERT-*``
models share their base model and training recipe); a name without a hyphen (``Glove``, ``BERT``, ``Ada
Similarity``, ...) is a family of its own. This is reliable for these 31 names only (checked in
tests/test_heldout.py): 15 families; another benchmark needs its own labels.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["mteb_model_family", "mteb_model_families"]


def mteb_model_family(name: str) -> str:
    """The family of an MTEB Table 11 model: its name up to the first hyphen.

    Parameters
    ----------
    name : str
        A model name of MTEB Table 11.

    Returns
    -------
    str
        The family label.

    Examples
    --------
    >>> mteb_model_family("SGPT-5.8B-msmarco"), mteb_model_family("Ada Similarity")
    ('SGPT', 'Ada Similarity')
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"model name {name!r} must be a non-empty string")
    return name.split("-", 1)[0]


def mteb_model_families(names: Sequence[str]) -> list[str]:
    """The family of every model, in order ([`mteb_model_family`][]).

    Parameters
    ----------
    names : Sequence[str]
        Model names of MTEB Table 11.

    Returns
    -------
    list[str]
        One family label per model.

    Examples
    --------
    >>> mteb_model_families(["GTR-Base", "GTR-XL", "LaBSE"])
    ['GTR', 'GTR', 'LaBSE']
    """
    return [mteb_model_family(name) for name in names]
