"""A plain install: the project's wheel installed (not editable, the core dependencies, no extras) into a fresh venv,
used outside the source tree. Without Snakemake (the ``workflow`` extra) the library's cross-validator and the CLI
split (recorded by ``.ci/core_only_probe.py`` before the extra is added). The package imports from that venv with
its package data and its licence, the CLI splits and scores a split, ``benchdesign evaluate`` and, with the
``workflow`` extra, a RecSys-only pipeline run write every output, the critical-difference diagrams included
(scikit-posthocs, a core dependency; sktime, tsfresh and pycatch22 come with the ``workflow`` extra's ``tsc``; aeon
and its pins are not installed), and the pipeline's split and NLP-description rules read the installed package
data.

The venv is built by ``.ci/wheel_check.sh`` (``.ci/run`` builds it while the CI venv installs and passes it as
BENCHDESIGN_PLAIN_VENV=DIR/venv); without that variable the fixture builds one, which needs PyPI (skipped offline
unless BENCHDESIGN_FRESH_VENV=1). Measured: the install ~3-4 min, evaluate ~20 s, the run ~2 min.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pandas as pd
import pytest
from workflow_helpers import REPO, SNAKEFILE, TINY

pytestmark = pytest.mark.fresh_venv

INDEX = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple")
MOLS = REPO / "tests" / "splitting" / "fixtures" / "mols.csv"
# RecSys only, plus the `splitting:` block: one run covers the selection pipeline and the split rule.
RECSYS_ONLY = f"""\
domains:
  tsc: {{enabled: false}}
  nlp: {{enabled: false}}
synthetic: {{enabled: false}}
protocol:
  variations: [dataset_pool]
  strategies: [random, fafi_cosine]
splitting: {{name: wheel, input: "{MOLS}", id_col: mol_id, smiles_col: smiles, clusters: 4}}
"""


def _index_reachable(url: str) -> bool:
    host = urlparse(url)
    try:
        socket.create_connection((host.hostname, host.port or 443), timeout=5).close()
        return True
    except OSError:
        return False


def _run(cmd: list, timeout: int, cwd: Path) -> subprocess.CompletedProcess:
    """Run ``cmd`` in ``cwd`` (outside the checkout) without PYTHONPATH; fail with the end of its output."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                            env=env)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}")
    return result


@pytest.fixture(scope="module")
def plain_venv(tmp_path_factory) -> Path:
    """bin/ of a fresh venv (no system site-packages) holding the project's wheel (.ci/wheel_check.sh)."""
    given = os.environ.get("BENCHDESIGN_PLAIN_VENV")
    if given:
        assert (Path(given) / "bin" / "python").exists(), f"BENCHDESIGN_PLAIN_VENV={given} holds no venv"
        return Path(given) / "bin"
    if not _index_reachable(INDEX):
        reason = f"offline: the package index {INDEX} is unreachable, and a plain install needs it"
        if os.environ.get("BENCHDESIGN_FRESH_VENV") == "1":
            pytest.fail(f"BENCHDESIGN_FRESH_VENV=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("plain_install")
    subprocess.run(["bash", str(REPO / ".ci/wheel_check.sh"), sys.executable, str(root)], check=True,
                   capture_output=True, timeout=1800)
    return root / "venv" / "bin"


def test_the_package_its_data_its_licence_and_the_core_dependencies_come_from_the_wheel(plain_venv, tmp_path):
    probe = """\
import importlib.util, json, sys
from importlib.metadata import distribution
import benchdesign
from benchdesign.domains.nlp.descriptions import load_descriptions
from benchdesign.domains.tsc.data import load_checksums
from benchdesign.examples import EXAMPLES, FOLDER, example_file
dist = distribution("benchdesign")
url = dist.read_text("direct_url.json")
licence = [f for f in dist.files if f.name == "LICENSE"]
found = {m: importlib.util.find_spec(m) is not None for m in ("aeon", "sktime", "tsfresh", "pycatch22", "scikit_posthocs")}
print(json.dumps({"file": benchdesign.__file__, "prefix": sys.prefix, "found": found,
                  "editable": bool(url and json.loads(url).get("dir_info", {}).get("editable")),
                  "checksums": len(load_checksums()), "descriptions": len(load_descriptions()),
                  "licence": licence[0].read_text() if licence else "",
                  "examples": sorted(p.name for p in map(example_file, EXAMPLES) if p.stat().st_size > 0),
                  "example_notes": sorted(p.name for p in FOLDER.iterdir() if p.suffix in (".md", ".txt"))}))
"""
    got = json.loads(_run([plain_venv / "python", "-c", probe], 120, tmp_path).stdout)
    assert not got["file"].startswith(str(REPO)) and got["file"].startswith(got["prefix"]), got
    assert not got["editable"] and got["found"] == {"aeon": False, "sktime": True, "tsfresh": True, "pycatch22": True,
                                                    "scikit_posthocs": True}, got
    assert got["checksums"] > 100 and got["descriptions"] > 50, got
    assert got["licence"].startswith("MIT License"), "the wheel carries no LICENSE text"
    assert got["examples"] == sorted(["mols.csv", "pairs.csv", "scores.csv", "features.csv"]), got
    assert got["example_notes"] == ["LICENSES.txt", "README.md"], "the examples' sources and licences"


def test_the_library_and_the_cli_run_without_the_workflow_extra(plain_venv):
    # recorded by .ci/core_only_probe.py before .ci/wheel_check.sh added the `workflow` extra
    got = json.loads((plain_venv.parent.parent / "core_only.json").read_text())
    # the core install: neither Snakemake nor the TSC stack (the `tsc` extra, which `workflow` brings)
    assert got == {"absent": ["snakemake", "jsonschema", "sktime", "numba", "pycatch22", "tsfresh"],
                   "kfold_test_sizes": [20, 20], "split_exit": 0,
                   "split_rows": len(pd.read_csv(MOLS))}, got


def test_cli_splits_and_scores_a_split_in_a_plain_install(plain_venv, tmp_path):
    common = ["--input", MOLS, "--id-col", "mol_id", "--smiles-col", "smiles"]
    _run([plain_venv / "benchdesign", "split", "--task", "S1", *common, "--splits", "0.8", "0.2", "--names", "train",
          "test", "--clusters", "4", "--out", "split.tsv"], 300, tmp_path)
    split = pd.read_csv(tmp_path / "split.tsv", sep="\t")
    assert len(split) == len(pd.read_csv(MOLS)) and {"train", "test"} <= set(split["split"])
    result = _run([plain_venv / "benchdesign", "leakage", *common, "--split", "split.tsv"], 300, tmp_path)
    assert "40 of 40 valid entities assigned" in result.stdout and "scaled L(pi)" in result.stdout


def test_evaluate_in_a_plain_install_writes_everything_with_the_cd_diagrams(plain_venv, tmp_path):
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
                   "--strategies", "random", "kmeans", "--k-target", "3", "--variation", "dataset_pool", "--out", out],
                  600, tmp_path)  # 4 models: model holdout would judge on 2 and give no verdict
    assert "configurations x 4 trials" in result.stderr
    produced = {p.name for p in out.iterdir()}
    assert {"table1_auc.md", "table2_kstar.md", "table3_wilcoxon_holm.md", "curves.png", "recommendation.txt",
            "recommendation.csv", "provenance.json", "cd_full.png", "cd_random_k5.png"} <= produced
    text = (out / "recommendation.txt").read_text()
    assert "- k = 3, a priori (dataset features only): K-Means (kmeans) on the features 'meta'" in text
    assert "install" not in text


@pytest.mark.workflow
def test_recsys_only_pipeline_in_a_plain_install(plain_venv, tmp_path, mirror_dir):
    overlay = tmp_path / "recsys_only.yaml"
    overlay.write_text(RECSYS_ONLY)
    work = tmp_path / "run"
    _run([plain_venv / "python", "-m", "snakemake", "--snakefile", SNAKEFILE, "--directory", work,
          "--cores", "2", "--config", f"mirror={mirror_dir}", "--configfile", TINY, overlay, "--",
          "all", "results/splitting/wheel.tsv", "results/features/nlp/description.csv"], 900, tmp_path)
    results = work / "results"
    cd = results / "figures" / "cd_recsys"
    assert not (cd / "NOTE.txt").exists() and (cd / "full.png").stat().st_size > 1000 and len(list(cd.glob("*.png"))) > 1
    assert (results / "conclusions" / "recsys" / "stability.md").is_file()
    assert (results / "figures" / "curves_recsys_dataset_pool.png").stat().st_size > 1000
    assert "RecSys: 6 trials, pools of 24 of the 30 datasets." in (results / "tables" / "recommendation.txt").read_text()
    assert "CD diagrams: ['full'" in (work / "logs" / "conclusions" / "recsys.log").read_text()
    split = pd.read_csv(results / "splitting" / "wheel.tsv", sep="\t")
    assert len(split) == len(pd.read_csv(MOLS))
    assert (results / "features" / "nlp" / "description.csv").stat().st_size > 0
