"""Example files of the quick starts, shipped with the package: small slices of public data sets.

``mols.csv`` (200 BBBP molecules: ``id, smiles, active``), ``pairs.csv`` (150 drug–target pairs of DataSAIL's
test set: ``smiles, sequence, label``), ``scores.csv`` (MTEB: 10 models on 56 tasks, long layout
``dataset, model, score``) and ``features.csv`` (the 56 tasks' metadata features). Sources and licences:
``README.md`` in this folder. ``python -m benchdesign.examples DIR`` copies them into DIR.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["EXAMPLES", "example_file", "copy_examples"]

FOLDER = Path(__file__).resolve().parent
EXAMPLES = ("mols.csv", "pairs.csv", "scores.csv", "features.csv")
"""The example data files, by name."""
_NOTES = ("README.md", "LICENSES.txt")


def example_file(name: str) -> Path:
    """Path of one shipped example file.

    Parameters
    ----------
    name : one of :data:`EXAMPLES` (``"mols.csv"``, ``"pairs.csv"``, ``"scores.csv"``, ``"features.csv"``).

    Returns
    -------
    Path
        The file inside the installed package.

    Examples
    --------
    >>> import pandas as pd
    >>> pd.read_csv(example_file("mols.csv")).columns.tolist()
    ['id', 'smiles', 'active']
    """
    if name not in EXAMPLES:
        raise ValueError(f"no example file {name!r}; the examples are {list(EXAMPLES)}")
    return FOLDER / name


def copy_examples(folder: str | os.PathLike) -> list[Path]:
    """Copy the example files, their README and licences into ``folder`` (created; files of the same names
    are replaced).

    Parameters
    ----------
    folder : destination folder.

    Returns
    -------
    list of Path
        The copies, data files first.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in copy_examples(tmp)][:2]
    ['mols.csv', 'pairs.csv']
    """
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file; give a folder to copy the examples into")
    out.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copyfile(FOLDER / name, out / name)) for name in (*EXAMPLES, *_NOTES)]
