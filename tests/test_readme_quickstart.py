"""Every quick-start block of the README runs as written.

A block is a fenced code block after a marker line ``<!-- quickstart: NAME -->``. Shell blocks run with bash in a
temporary directory holding tiny inputs of the names the README uses; the Snakemake block runs as a dry run
(``snakemake`` is ``snakemake -n``) in a directory laid out like a clone next to the data mirror. Python blocks
run with ``exec`` in the same directory as the shell block of their quick start.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from workflow_helpers import REPO, every_package_present

README = REPO / "README.md"
BLOCK = re.compile(r"^<!-- quickstart: (?P<name>[\w-]+) -->\n```(?P<lang>\w+)\n(?P<code>.*?)^```", re.M | re.S)
# The quick starts the README promises, by section, and the blocks each must have.
EXPECTED = {"reproduce": "bash", "split": "bash", "split-python": "python", "select": "bash",
            "select-python": "python"}
TEST_COMMAND = 'pip install -e ".[test]" && python -m pytest -q'


def quickstart_blocks(text: str | None = None) -> dict[str, tuple[str, str]]:
    """Marked blocks of the README: name -> (language, code)."""
    text = README.read_text() if text is None else text
    return {m["name"]: (m["lang"], m["code"]) for m in BLOCK.finditer(text)}


def run_bash(code: str, cwd: Path, prelude: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", prelude + code], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"block failed ({result.returncode}):\n{code}\n{result.stdout[-3000:]}\n" \
                                   f"{result.stderr[-3000:]}"
    return result


def run_python(code: str, cwd: Path, monkeypatch, capsys) -> str:
    monkeypatch.chdir(cwd)
    exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})
    return capsys.readouterr().out


# ---------------------------------------------------------------------------------------------- tiny inputs
def write_molecules(folder: Path) -> None:
    """``mols.csv`` (id, smiles, active; > 50 molecules for the default K = 50) and ``pairs.csv``."""
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    rings = ["c1ccccc1", "C1CCCCC1", "c1ccncc1", "C1CCOCC1", "c1ccsc1", "C1CCNCC1", "c1ccoc1", "C1CCCC1"]
    groups = ["C", "CC", "CCC", "O", "N", "Cl", "F", "C(=O)O", "C#N", "OC", "C(F)(F)F", "S", "Br", "NC(=O)C", "CO"]
    smiles, seen = [], set()
    for ring, group in itertools.product(rings, groups):
        mol = Chem.MolFromSmiles(group + ring)
        if mol is not None and Chem.MolToSmiles(mol) not in seen:
            seen.add(Chem.MolToSmiles(mol))
            smiles.append(group + ring)
    rng = np.random.default_rng(0)
    pd.DataFrame({"id": [f"m{i:03d}" for i in range(len(smiles))], "smiles": smiles,
                  "active": rng.integers(0, 2, len(smiles))}).to_csv(folder / "mols.csv", index=False)
    amino = np.array(list("ACDEFGHIKLMNPQRSTVWY"))
    families = rng.choice(amino, (6, 60))
    sequences = []
    for family in families:
        for _ in range(10):
            seq = family.copy()
            seq[rng.choice(60, rng.integers(1, 15), replace=False)] = rng.choice(amino, 1)
            sequences.append("".join(seq))
    sequences = list(dict.fromkeys(sequences))[:55]
    pairs = [(d, t, round(float(rng.normal(6, 1)), 3)) for d in smiles[:55] for t in sequences if rng.random() < 0.15]
    pd.DataFrame(pairs, columns=["smiles", "sequence", "affinity"]).to_csv(folder / "pairs.csv", index=False)


def write_benchmark(folder: Path) -> None:
    """``scores.csv`` (5 models on 24 datasets, 3 folds) and ``features.csv`` (3 features per dataset)."""
    rng = np.random.default_rng(0)
    datasets = [f"dataset{i}" for i in range(24)]
    latent = rng.normal(size=(24, 3))
    features = pd.DataFrame(latent + 0.1 * rng.normal(size=(24, 3)), columns=["f1", "f2", "f3"],
                            index=pd.Index(datasets, name="dataset"))
    features.to_csv(folder / "features.csv")
    pd.DataFrame([(d, f"model{m}", fold, float(latent[i] @ rng.normal(size=3) + 0.2 * m + 0.05 * rng.normal()))
                  for i, d in enumerate(datasets) for m in range(5) for fold in range(3)],
                 columns=["dataset", "model", "fold", "score"]).to_csv(folder / "scores.csv", index=False)


# ---------------------------------------------------------------------------------------------- the README itself
def test_readme_shape():
    text = README.read_text()
    lines = text.splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines (at most 250)"
    assert TEST_COMMAND in lines, "the README's test command (CI runs it) is missing or changed"
    blocks = quickstart_blocks(text)
    assert {name: lang for name, (lang, _) in blocks.items()} == EXPECTED
    sections = re.split(r"^## ", text, flags=re.M)
    quick = [s for s in sections if s.startswith("Quick start")]
    assert len(quick) == 3, "three quick starts: reproduce, split, select"
    for section in quick:
        fences = re.findall(r"^```\w*\n(.*?)^```", section, re.M | re.S)
        assert fences and len(re.findall(r"^<!-- quickstart: ", section, re.M)) == len(fences), \
            f"every code block of {section.splitlines()[0]!r} must carry a quickstart marker"
        code_lines = sum(len(f.splitlines()) for f in fences)
        assert code_lines <= 15, f"{section.splitlines()[0]!r}: {code_lines} lines of code (at most 15)"


# ---------------------------------------------------------------------------------------------- the quick starts
@pytest.mark.workflow
def test_quickstart_reproduce_dry_run(tmp_path, mirror_dir):
    """The Snakemake commands as written, as dry runs, in a clone-like directory beside ``../shared/data``."""
    code = quickstart_blocks()["reproduce"][1]
    if "workflow/profiles/slurm" in code and importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip("the SLURM line needs the `slurm` extra (snakemake-executor-plugin-slurm)")
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("workflow", "config", "data", "scripts", "src"):
        if (REPO / name).exists():
            (clone / name).symlink_to(REPO / name)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(mirror_dir)
    # planning needs none of the optional packages the configs ask for: every one is reported installed
    shim = every_package_present(tmp_path / "shim")["PYTHONPATH"]
    prelude = f'snakemake() {{ PYTHONPATH={shlex.quote(shim)} "{sys.executable}" -m snakemake -n "$@"; }}\n'
    result = run_bash(code, clone, prelude)
    commands = len(re.findall(r"^snakemake ", code, re.M))
    assert commands >= 2 and (result.stdout + result.stderr).count("This was a dry-run") == commands


def test_quickstart_split(tmp_path, monkeypatch, capsys):
    write_molecules(tmp_path)
    run_bash(quickstart_blocks()["split"][1], tmp_path)
    split = pd.read_csv(tmp_path / "split.tsv", sep="\t")
    assert set(split["split"]) == {"train", "test"}
    assert (tmp_path / "split.json").is_file()
    folds = pd.read_csv(tmp_path / "folds.tsv", sep="\t")
    assert {"fold_a", "fold_b"} <= set(folds.columns)
    out = run_python(quickstart_blocks()["split-python"][1], tmp_path, monkeypatch, capsys)
    assert "fold0" in out and "fold4" in out


def test_quickstart_select(tmp_path, monkeypatch, capsys):
    write_benchmark(tmp_path)
    out = run_bash(quickstart_blocks()["select"][1], tmp_path).stdout
    assert len((tmp_path / "chosen.txt").read_text().split()) == 5
    assert "spearman" in out
    assert (tmp_path / "evaluation" / "recommendation.txt").is_file()
    out = run_python(quickstart_blocks()["select-python"][1], tmp_path, monkeypatch, capsys)
    assert "C-FAFI" in out and "spearman" in out
