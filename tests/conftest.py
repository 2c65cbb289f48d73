"""Shared pytest fixtures."""
from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def mirror_dir() -> Path:
    """Root of the data mirror: $BENCHDESIGN_MIRROR, else <repo>/../shared/data; skip when absent."""
    env = os.environ.get("BENCHDESIGN_MIRROR")
    path = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "data"
    if not path.is_dir():
        origin = "$BENCHDESIGN_MIRROR" if env else "default <repo>/../shared/data"
        pytest.skip(f"data mirror not found at {path} ({origin}); set BENCHDESIGN_MIRROR=DIR to run mirror tests")
    return path


@pytest.fixture(scope="session")
def claims():
    """The paper claims table (benchdesign/data/paper_claims.csv), checked by ``load_claims``."""
    from benchdesign.workflow.paper_comparison import load_claims

    return load_claims()


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory, mirror_dir) -> Path:
    """One complete run of the tiny config (.test/config/config.yaml) per session; do not modify it."""
    from workflow_helpers import snakemake

    workdir = tmp_path_factory.mktemp("finished_tiny_run")
    snakemake(workdir, "--config", f"mirror={mirror_dir}")
    return workdir


@pytest.fixture(autouse=True, scope="session")
def similarity_cache(tmp_path_factory):
    """The MMseqs2 similarity cache (splitting/mmseqs.py) of this test session: a fresh folder, never the user's."""
    folder = tmp_path_factory.mktemp("similarity-cache")
    old = os.environ.get("BENCHDESIGN_CACHE")
    os.environ["BENCHDESIGN_CACHE"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("BENCHDESIGN_CACHE", None)
    else:
        os.environ["BENCHDESIGN_CACHE"] = old
