"""Fixtures of the splitting tests (the data mirror fixture `mirror_dir` comes from tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def random_similarity(n: int, rng: np.random.Generator) -> np.ndarray:
    """A random symmetric similarity matrix in [0, 1] with unit diagonal."""
    a = rng.random((n, n))
    s = (a + a.T) / 2
    np.fill_diagonal(s, 1.0)
    return s


@pytest.fixture
def fixtures() -> Path:
    """Directory of the tiny input files."""
    return FIXTURES


@pytest.fixture
def mols(fixtures):
    """The valid molecules of mols.csv: (SMILES, ECFP4 bits as floats, the ``active`` labels)."""
    import pandas as pd

    from benchdesign.splitting.similarity import smiles_fingerprints

    df = pd.read_csv(fixtures / "mols.csv")
    bits, valid = smiles_fingerprints(df["smiles"].tolist())
    df = df[valid].reset_index(drop=True)
    return df["smiles"].tolist(), bits.astype(float), df["active"].to_numpy()


@pytest.fixture
def rand_sim():
    """Factory of random symmetric similarity matrices."""
    return random_similarity


@pytest.fixture
def mirror_csv(mirror_dir):
    """Factory: MoleculeNet file name -> its path in the mirror (skips when the file is absent)."""

    def path(name: str) -> Path:
        p = mirror_dir / "mol" / "chemprop_moleculenet" / name
        if not p.is_file():
            pytest.skip(f"{p} is not in the data mirror")
        return p

    return path
