"""Rules leakage_tile / leakage_reduce (workflow/rules/leakage_tiles.smk): the exact leakage of a split of a few
thousand molecules sharded into tile jobs and reduced equals the single-process value bit for bit, run locally
and through the SLURM profile (skips without SLURM unless BENCHDESIGN_SLURM=1; `bash .ci/slurm_up.sh`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from test_slurm import CI_FLAGS, PROFILE, skip_or_fail, slurm_missing
from workflow_helpers import REPO, SNAKEFILE

from benchdesign.splitting.leakage import leakage_summary
from benchdesign.splitting.leakage_report import read_split_inputs, split_codes

pytestmark = pytest.mark.workflow

FRAGMENTS = ["C", "CC", "N", "O", "C(C)", "C(=O)", "c1ccccc1", "C(F)", "S", "C(Cl)", "c1ccncc1", "C1CC1"]
N_MOLS, SHARDS, BLOCK = 2500, 4, 400  # 7 x 7 blocks: 28 tiles, 7 per shard


def write_inputs(tmp: Path) -> dict:
    rng = np.random.default_rng(0)
    smiles = ["".join(rng.choice(FRAGMENTS, size=rng.integers(3, 9))) for _ in range(N_MOLS)]
    smiles[17] = "not a smiles"  # left unassigned by --drop-invalid
    pd.DataFrame({"mol": [f"m{i}" for i in range(N_MOLS)], "smiles": smiles}).to_csv(tmp / "mols.csv", index=False)
    folds = rng.choice(["train", "test"], size=N_MOLS, p=[0.8, 0.2]).astype(object)
    folds[17], folds[40] = "unassigned", "unassigned"
    pd.DataFrame({"id": [f"m{i}" for i in range(N_MOLS)], "split": folds}).to_csv(tmp / "split.tsv", sep="\t",
                                                                                  index=False)
    cfg = {"leakage_tiles": {"name": "tiny", "input": str(tmp / "mols.csv"), "split": str(tmp / "split.tsv"),
                             "smiles_col": "smiles", "id_col": "mol", "shards": SHARDS, "block_size": BLOCK,
                             "mem_mb": 1000, "runtime": 10}}
    (tmp / "config.yaml").write_text(yaml.safe_dump(cfg))
    return cfg


def single_process(tmp: Path):
    ent, ids, labels = read_split_inputs(str(tmp / "mols.csv"), str(tmp / "split.tsv"), id_col="mol",
                                         smiles_col="smiles", drop_invalid=True)
    return leakage_summary(ent.similarity, [split_codes(ent, ids, labels)], block_size=BLOCK)[0]


def run(tmp: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE), "--directory", str(tmp),
           *extra, "--configfile", str(tmp / "config.yaml"), "--", "results/leakage/tiny.exact.json"]
    return subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})


def check(tmp: Path, proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    got = json.loads((tmp / "results/leakage/tiny.exact.json").read_text())
    expected = single_process(tmp)
    assert got["n_shards"] == SHARDS and got["n_assigned"] == expected.n_assigned == N_MOLS - 2
    assert (got["leakage"], got["total_similarity"], got["scaled_leakage"]) == (
        expected.leakage, expected.total, expected.scaled)


def test_tile_jobs_reduce_to_the_single_process_value_locally(tmp_path):
    write_inputs(tmp_path)
    check(tmp_path, run(tmp_path, "--cores", "2"))


def test_tile_jobs_through_slurm_reduce_to_the_single_process_value(tmp_path_factory):
    reason = slurm_missing()
    if reason:
        skip_or_fail(reason)
    shared = os.environ.get("BENCHDESIGN_SLURM_WORKDIR")
    tmp = Path(shared) / f"leakage_tiles_{os.getpid()}" if shared else tmp_path_factory.mktemp("leakage_slurm")
    tmp.mkdir(parents=True, exist_ok=True)
    write_inputs(tmp)
    proc = run(tmp, "--workflow-profile", str(PROFILE), *CI_FLAGS)
    jobs = {m for m in proc.stdout.splitlines() + proc.stderr.splitlines() if "submitted with SLURM jobid" in m}
    check(tmp, proc)
    assert len(jobs) == SHARDS + 2, "\n".join(sorted(jobs))  # the fingerprints, the tiles, the reduce
