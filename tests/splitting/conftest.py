"""Shared fixtures for the splitting tests."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]


def mirror_root() -> Path:
    """The data mirror: $BENCHDESIGN_MIRROR, else ../shared/data next to the repository."""
    env = os.environ.get("BENCHDESIGN_MIRROR")
    return Path(env) if env else REPO.parent / "shared" / "data"


def moleculenet(name: str) -> Path:
    """Path of a MoleculeNet CSV in the mirror; skips the test when it is absent."""
    path = mirror_root() / "mol" / "chemprop_moleculenet" / name
    if not path.is_file():
        pytest.skip(f"data mirror not available: {path} is missing (set BENCHDESIGN_MIRROR)")
    return path


@pytest.fixture
def fixtures() -> Path:
    """Directory of the tiny input files."""
    return FIXTURES


@pytest.fixture
def rand_sim():
    """Factory of random symmetric similarity matrices."""
    return random_similarity


@pytest.fixture
def mirror_csv():
    """Factory: MoleculeNet file name -> path in the mirror (skips when absent)."""
    return moleculenet


def random_similarity(n: int, rng: np.random.Generator) -> np.ndarray:
    """A random symmetric similarity matrix in [0, 1] with unit diagonal."""
    a = rng.random((n, n))
    s = (a + a.T) / 2
    np.fill_diagonal(s, 1.0)
    return s
