"""Model families of MTEB Table 11's 31 models, for the family hold-out (``selection.heldout``).

The table has no family column. A model's family is its name up to the first hyphen (its authors' naming: the
seven ``SGPT-*``, four ``GTR-*``, four ``ST5-*``, three ``MiniLM-*``, two ``MPNet-*`` and two ``SimCSE-BERT-*``
models share their base model and training recipe); a name without a hyphen (``Glove``, ``BERT``, ``Ada
Similarity``, ...) is a family of its own. This is reliable for these 31 names only (checked in
tests/test_heldout.py): 15 families; another benchmark needs its own labels.

The *coarse* split (``coarse=True``, issue 45) merges these families by base architecture, so that a held-out
family has no close relative among the seen models: the T5 encoders (``GTR-*`` and ``ST5-*``: ``T5``), the
sentence-transformers checkpoints of MiniLM and MPNet (``MiniLM-*``, ``MPNet-*``: ``MiniLM/MPNet``) and the
BERT-architecture encoders (``BERT``, ``SimCSE-BERT-*``, ``coCondenser-msmarco`` and ``Contriever``, both
initialised from BERT-base, ``SPECTER``, initialised from SciBERT, and ``LaBSE``, a BERT encoder: ``BERT``).
The others keep their family (``SGPT``, ``Glove``, ``Komninos``, ``LASER2``, ``Ada Similarity``): 8 coarse
families of Table 11's 31 models.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["COARSE_FAMILIES", "mteb_model_family", "mteb_model_families"]

COARSE_FAMILIES: dict[str, str] = {
    "GTR": "T5",
    "ST5": "T5",
    "MiniLM": "MiniLM/MPNet",
    "MPNet": "MiniLM/MPNet",
    "BERT": "BERT",
    "SimCSE": "BERT",
    "coCondenser": "BERT",
    "Contriever": "BERT",
    "SPECTER": "BERT",
    "LaBSE": "BERT",
}
"""Family (name up to the first hyphen) -> coarse family; a family not listed is its own coarse family."""


def mteb_model_family(name: str, coarse: bool = False) -> str:
    """The family of an MTEB Table 11 model: its name up to the first hyphen, or its coarse family.

    Parameters
    ----------
    name : str
        A model name of MTEB Table 11.
    coarse : bool
        Map the family to its coarse family (``COARSE_FAMILIES``; the module docstring).

    Returns
    -------
    str
        The family label.

    Examples
    --------
    >>> mteb_model_family("SGPT-5.8B-msmarco"), mteb_model_family("Ada Similarity")
    ('SGPT', 'Ada Similarity')
    >>> mteb_model_family("ST5-XL"), mteb_model_family("ST5-XL", coarse=True)
    ('ST5', 'T5')
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"model name {name!r} must be a non-empty string")
    family = name.split("-", 1)[0]
    return COARSE_FAMILIES.get(family, family) if coarse else family


def mteb_model_families(names: Sequence[str], coarse: bool = False) -> list[str]:
    """The family of every model, in order ([`mteb_model_family`][]).

    Parameters
    ----------
    names : Sequence[str]
        Model names of MTEB Table 11.
    coarse : bool
        The coarse families (GTR/ST5, MiniLM/MPNet and the BERT-based encoders merged; ``COARSE_FAMILIES``).

    Returns
    -------
    list[str]
        One family label per model.

    Examples
    --------
    >>> mteb_model_families(["GTR-Base", "GTR-XL", "LaBSE"])
    ['GTR', 'GTR', 'LaBSE']
    >>> mteb_model_families(["GTR-Base", "ST5-XL", "MPNet", "MiniLM-L6", "SimCSE-BERT-sup", "LaBSE"], coarse=True)
    ['T5', 'T5', 'MiniLM/MPNet', 'MiniLM/MPNet', 'BERT', 'BERT']
    """
    return [mteb_model_family(name, coarse) for name in names]
