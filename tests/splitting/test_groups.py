"""Scaffold and Butina splits (``split --task scaffold | butina``) against RDKit and by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from rdkit import DataStructs
from rdkit.Chem import AllChem, MolFromSmiles
from rdkit.ML.Cluster import Butina

from benchdesign.cli import main
from benchdesign.splitting.groups import butina_clusters, murcko_scaffolds
from benchdesign.splitting.similarity import FingerprintSimilarity
from benchdesign.splitting.tasks import EntitySet, SplitSpec, group_folds, kfold_spec, split_groups

SMILES = [
    "c1ccccc1O", "c1ccccc1N", "c1ccccc1C", "c1ccccc1CC", "c1ccccc1CCC", "c1ccccc1CCO", "c1ccc2ccccc2c1",
    "c1ccc2ccccc2c1O", "c1ccc2ccccc2c1N", "C1CCCCC1", "C1CCCCC1O", "C1CCCCC1N", "C1CCNCC1", "C1CCNCC1C",
    "CCO", "CCCO", "CCCCO", "CCN", "CCCN", "CC(=O)O", "CC(=O)N", "CC(=O)OC", "c1ccncc1", "c1ccncc1C",
    "c1ccncc1O", "O=C(O)c1ccccc1", "O=C(N)c1ccccc1", "CC(C)Cc1ccc(cc1)C(C)C(=O)O", "CC(=O)Nc1ccc(O)cc1",
    "Cn1cnc2c1c(=O)n(C)c(=O)n2C",
]


def test_butina_equals_rdkit_cluster_data():
    fps = [AllChem.GetMorganFingerprintAsBitVect(MolFromSmiles(s), 2, 1024) for s in SMILES]
    dists = []
    for i in range(1, len(fps)):
        dists.extend(1.0 - np.asarray(DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i])))
    for cutoff in (0.35, 0.6, 0.8):
        rdkit = Butina.ClusterData(dists, len(fps), cutoff, isDistData=True)
        ours = butina_clusters(FingerprintSimilarity.from_smiles(SMILES), 1.0 - cutoff)
        assert sorted(sorted(c) for c in rdkit) == sorted(sorted(np.flatnonzero(ours == g)) for g in np.unique(ours))


def test_group_folds_keep_groups_whole_and_sizes_by_hand():
    groups = np.array([0] * 5 + [1] * 3 + [2] * 2 + [3] * 2 + [4] * 1 + [5] * 1)  # 14 entities
    folds = group_folds(groups, np.full(3, 1 / 3))
    for g in np.unique(groups):
        assert np.unique(folds[groups == g]).size == 1
    # largest first to the fold furthest below 14/3: 5 -> f0, 3 -> f1, 2 -> f2, 2 -> f2, 1 -> f1, 1 -> f1
    assert np.bincount(folds).tolist() == [5, 5, 4]


def test_split_groups_reports_the_random_yardstick():
    src = FingerprintSimilarity.from_smiles(SMILES)
    n = len(SMILES)
    ent = EntitySet(np.array([str(i) for i in range(n)], dtype=object), np.ones(n, dtype=bool), src)
    scaffolds = np.unique(murcko_scaffolds(SMILES), return_inverse=True)[1]
    res = split_groups("scaffold", ent, scaffolds, kfold_spec(3, SplitSpec(certificate_seeds=2)))
    cert = res.report["certificate"]
    assert set(cert["fold_scaled_leakage"]) == {"fold0", "fold1", "fold2"} and cert["random_seeds"] == 2
    assert res.report["n_groups"] == np.unique(scaffolds).size
    for g in np.unique(scaffolds):
        assert np.unique(res.fold[scaffolds == g]).size == 1


@pytest.mark.parametrize("task", ["scaffold", "butina", "Scaffold"])
def test_cli_group_tasks(tmp_path, task, capsys):
    table = tmp_path / "mols.csv"
    pd.DataFrame({"smiles": SMILES}).to_csv(table, index=False)
    out = tmp_path / "split.tsv"
    code = main(["split", "--task", task, "--input", str(table), "--smiles-col", "smiles", "--folds", "3",
                 "--out", str(out)])
    err = capsys.readouterr().out  # the result's lines
    assert code == 0 and f"{task.lower()}: {len(SMILES)} rows" in err and "random" in err
    assert sorted(pd.read_csv(out, sep="\t")["fold"].unique()) == [0, 1, 2]


def test_cli_group_task_errors(tmp_path, capsys):
    table = tmp_path / "mols.csv"
    pd.DataFrame({"smiles": SMILES, "x": np.arange(len(SMILES))}).to_csv(table, index=False)
    code = main(["split", "--task", "scaffold", "--input", str(table), "--feature-cols", "x", "--folds", "3",
                 "--out", str(tmp_path / "o.tsv")])
    assert code == 2 and "task scaffold needs the molecules' SMILES: give --smiles-col" in capsys.readouterr().err
    code = main(["split", "--task", "butina", "--input", str(table), "--folds", "3", "--out", str(tmp_path / "o.tsv")])
    assert code == 2 and "task butina needs a similarity" in capsys.readouterr().err
    assert not (tmp_path / "o.tsv").exists()
