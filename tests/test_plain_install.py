"""A plain install (``pip install .``: the core dependencies, no extras) in a fresh venv: ``benchdesign
evaluate`` and a RecSys-only pipeline run write every output, with the note "install benchdesign[plots] for
the CD diagrams" instead of the critical-difference diagrams (aeon is in the extra ``plots``).

Needs PyPI (skipped offline). Measured: the install ~4 min, evaluate ~20 s, the RecSys-only run ~2 min.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pandas as pd
import pytest
from workflow_helpers import REPO, TINY

from benchdesign.selection.api import CD_NOTE

pytestmark = pytest.mark.fresh_venv

INDEX = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple")
RECSYS_ONLY = """\
domains:
  tsc: {enabled: false}
  nlp: {enabled: false}
synthetic: {enabled: false}
protocol:
  variations: [dataset_pool]
  strategies: [random, fafi_cosine]
"""


def _index_reachable(url: str) -> bool:
    host = urlparse(url)
    try:
        socket.create_connection((host.hostname, host.port or 443), timeout=5).close()
        return True
    except OSError:
        return False


def _run(cmd: list, timeout: int, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kwargs)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}")
    return result


@pytest.fixture(scope="module")
def plain_venv(tmp_path_factory) -> Path:
    """bin/ of a fresh venv (no system site-packages) holding ``pip install <copy of the project>``."""
    if not _index_reachable(INDEX):
        pytest.skip(f"offline: the package index {INDEX} is unreachable, and a plain install needs it")
    root = tmp_path_factory.mktemp("plain_install")
    project = root / "project"  # a copy: pip builds in the source tree
    shutil.copytree(REPO / "src", project / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, project / name)
    _run([sys.executable, "-m", "venv", root / "venv"], 120)
    _run([root / "venv" / "bin" / "python", "-m", "pip", "install", "--quiet", project], 1500)
    return root / "venv" / "bin"


def test_plain_install_has_no_aeon(plain_venv):
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('aeon') is not None)"
    assert subprocess.run([plain_venv / "python", "-c", probe]).returncode == 0


def test_evaluate_in_a_plain_install_writes_everything_but_the_cd_diagrams(plain_venv, tmp_path):
    rng = np.random.default_rng(1)
    latent = rng.normal(size=(12, 2))
    names = [f"d{i:02d}" for i in range(12)]
    pd.DataFrame([(d, f"m{m}", float(latent[i] @ rng.normal(size=2) + 0.3 * m)) for i, d in enumerate(names)
                  for m in range(4)], columns=["dataset", "model", "score"]).to_csv(tmp_path / "scores.csv",
                                                                                   index=False)
    pd.DataFrame(latent, index=pd.Index(names, name="dataset"), columns=["f1", "f2"]).to_csv(tmp_path / "meta.csv")
    out = tmp_path / "eval"
    result = _run([plain_venv / "benchdesign", "evaluate", "--scores", tmp_path / "scores.csv", "--features",
                   tmp_path / "meta.csv", "--higher-is-better", "--trials", "4", "--k", "2", "6",
                   "--strategies", "random", "kmeans", "--k-target", "3", "--out", out], 600)
    assert CD_NOTE in result.stderr
    produced = {p.name for p in out.iterdir()}
    assert {"table1_auc.md", "table2_kstar.md", "table3_wilcoxon_holm.md", "curves.png", "recommendation.txt",
            "recommendation.csv", "provenance.json"} <= produced
    assert not [n for n in produced if n.startswith("cd_")]
    text = (out / "recommendation.txt").read_text()
    assert "- k = 3: K-Means (kmeans) on the features 'meta'" in text and text.endswith(CD_NOTE + "\n")


@pytest.mark.workflow
def test_recsys_only_pipeline_in_a_plain_install(plain_venv, tmp_path, mirror_dir):
    overlay = tmp_path / "recsys_only.yaml"
    overlay.write_text(RECSYS_ONLY)
    work = tmp_path / "run"
    _run([plain_venv / "python", "-m", "snakemake", "--snakefile", REPO / "Snakefile", "--directory", work,
          "--cores", "2", "--config", f"mirror={mirror_dir}", "--configfile", TINY, overlay], 900)
    results = work / "results"
    assert (results / "figures" / "cd_recsys" / "NOTE.txt").read_text() == CD_NOTE + "\n"
    assert (results / "conclusions" / "recsys" / "stability.md").is_file()
    assert "RecSys: 6 trials, pools of 24 of the 30 datasets." in (results / "tables" / "recommendation.txt").read_text()
    assert CD_NOTE in (work / "logs" / "conclusions" / "recsys.log").read_text()
