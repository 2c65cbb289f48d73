"""Competitor splitters (scaffold, fingerprint, LoHi) and the DataSAIL peer run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from markers import needs_datasail, needs_lohi
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator

from benchdesign.molexp.peers import PeerTimeout, datasail_s1_split
from benchdesign.molexp.splitters import (
    check_fractions,
    fingerprint_split,
    lohi_split,
    murcko_scaffolds,
    neighborhood_graph,
    processing_order,
    scaffold_split,
)

FIXTURES = Path(__file__).parent / "fixtures"
TOX21_60 = (FIXTURES / "splitters_tox21_60.smi").read_text().split()  # 60 random valid Tox21 SMILES
# 45 Tox21 molecules connected at ECFP4 Tanimoto > 0.4 (breadth-first from a hub) + 15 singletons
LOHI_60 = (FIXTURES / "splitters_lohi_60.smi").read_text().split()

# 16 molecules, scaffold sets of size 5 (benzene), 3 (pyridine), 3 (cyclohexane), 3 (acyclic), 1, 1
SCAFFOLD_SMILES = [
    "Cc1ccccc1", "Oc1ccccc1", "Nc1ccccc1", "Clc1ccccc1", "OC(=O)c1ccccc1",  # 0-4 benzene
    "Cc1ccncc1", "Nc1ccncc1", "Oc1ccncc1",  # 5-7 pyridine
    "CC1CCCCC1", "OC1CCCCC1", "NC1CCCCC1",  # 8-10 cyclohexane
    "CCO", "CCCC", "CC(=O)O",  # 11-13 acyclic (scaffold '')
    "Cc1ccc2ccccc2c1",  # 14 naphthalene
    "Cc1ccc(-c2ccccc2)cc1",  # 15 biphenyl
]
SETS = [range(0, 5), range(5, 8), range(8, 11), range(11, 14), [14], [15]]


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("fractions", [(1.0,), (0.8, 0.3), (0.0, 1.0), (1.2, -0.2), (float("nan"), 0.5)])
def test_bad_fractions_are_named(fractions):
    with pytest.raises(ValueError, match="fractions"):
        check_fractions(fractions)
    with pytest.raises(ValueError, match="fractions"):
        scaffold_split(SCAFFOLD_SMILES, fractions)


@pytest.mark.parametrize("fn", [scaffold_split, fingerprint_split])
def test_unparsable_smiles_names_the_row(fn):
    bad = SCAFFOLD_SMILES[:3] + ["C1CC(", "CCO"]
    with pytest.raises(ValueError, match=r"row 3: 'C1CC\('"):
        fn(bad)


def test_negative_seed_is_rejected():
    with pytest.raises(ValueError, match="seed must be >= 0, got -1"):
        scaffold_split(SCAFFOLD_SMILES, seed=-1)


# --------------------------------------------------------------------------- scaffold


def test_murcko_scaffolds_by_hand():
    scaf = murcko_scaffolds(SCAFFOLD_SMILES)
    assert set(scaf[0:5]) == {"c1ccccc1"}
    assert set(scaf[5:8]) == {"c1ccncc1"}
    assert set(scaf[8:11]) == {"C1CCCCC1"}
    assert set(scaf[11:14]) == {""}
    assert len(set(scaf)) == 6


def test_scaffold_split_deepchem_order_by_hand():
    # cutoff 0.8 * 16 = 12.8: benzene 5, acyclic 3, cyclohexane 3 (ties: larger first position first) -> 11;
    # pyridine would give 14 -> test; biphenyl (position 15) -> 12 train; naphthalene -> 13 > 12.8 -> test
    folds = scaffold_split(SCAFFOLD_SMILES, shuffle=False)
    expected = np.zeros(16, dtype=int)
    expected[[5, 6, 7, 14]] = 1
    np.testing.assert_array_equal(folds, expected)


def test_scaffold_split_three_folds_by_hand():
    # cutoffs 8 and 12: benzene, acyclic -> train (8); cyclohexane -> valid (11); pyridine -> test;
    # biphenyl -> valid (12); naphthalene -> test
    folds = scaffold_split(SCAFFOLD_SMILES, (0.5, 0.25, 0.25), shuffle=False)
    expected = np.array([0] * 5 + [2] * 3 + [1] * 3 + [0] * 3 + [2, 1])
    np.testing.assert_array_equal(folds, expected)


def test_scaffold_split_seeds_keep_sets_and_sizes_and_vary_ties():
    outcomes = set()
    for seed in range(12):
        folds = scaffold_split(SCAFFOLD_SMILES, seed=seed)
        for members in SETS:
            assert len(set(folds[list(members)])) == 1, (seed, list(members))
        assert (folds[:5] == 0).all()  # the largest set always fills train first
        assert (folds == 1).sum() == 4  # one 3-set and one singleton, whichever the ties choose
        np.testing.assert_array_equal(folds, scaffold_split(SCAFFOLD_SMILES, seed=seed))
        outcomes.add(tuple(folds))
    assert len(outcomes) >= 3


# --------------------------------------------------------------------------- fingerprint


def _deepchem_split_fingerprints(fps, size1, size2):
    """Literal dense transcription of DeepChem's _split_fingerprints (RDKit BulkTanimotoSimilarity)."""
    groups = ([fps[0]], [])
    idx = ([0], [])
    remaining_fp = fps[1:]
    remaining = list(range(1, len(fps)))
    max_sim = [np.array(DataStructs.BulkTanimotoSimilarity(fps[0], remaining_fp)), np.zeros(len(remaining_fp))]
    if size2 == 0:
        return list(range(len(fps))), []
    while remaining_fp:
        group = 0 if len(groups[0]) / size1 <= len(groups[1]) / size2 else 1
        i = int(np.argmin(max_sim[1 - group]))
        fp = remaining_fp[i]
        groups[group].append(fp)
        idx[group].append(remaining[i])
        sim = DataStructs.BulkTanimotoSimilarity(fp, remaining_fp)
        max_sim[group] = np.delete(np.maximum(sim, max_sim[group]), i)
        max_sim[1 - group] = np.delete(max_sim[1 - group], i)
        del remaining_fp[i]
        del remaining[i]
    return idx


def _reference_fingerprint_split(smiles, fractions, order):
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)
    fps = [gen.GetFingerprint(Chem.MolFromSmiles(smiles[i])) for i in order]
    n = len(fps)
    train_size = int(fractions[0] * n)
    folds = np.full(n, -1)
    train, rest = _deepchem_split_fingerprints(fps, train_size, n - train_size)
    folds[order[train]] = 0
    if len(fractions) == 2:
        folds[order[rest]] = 1
        return folds
    valid_size = int(fractions[1] * n)
    test, val = _deepchem_split_fingerprints([fps[i] for i in rest], n - train_size - valid_size, valid_size)
    folds[order[[rest[i] for i in test]]] = 2
    folds[order[[rest[i] for i in val]]] = 1
    return folds


def test_fingerprint_split_deepchem_docstring_example():
    # DeepChem's FingerprintSplitter doc: train ['C' 'CCCCC' 'CCCC' 'CCC'], test ['CC']
    folds = fingerprint_split(["C", "CC", "CCC", "CCCC", "CCCCC"], shuffle=False)
    np.testing.assert_array_equal(folds, [0, 1, 0, 0, 0])


@pytest.mark.parametrize("fractions", [(0.8, 0.2), (0.7, 0.2, 0.1)])
@pytest.mark.parametrize("shuffle,seed", [(False, 0), (True, 0), (True, 3)])
def test_fingerprint_split_matches_dense_deepchem(fractions, shuffle, seed):
    smiles = TOX21_60[:50]
    order = processing_order(len(smiles), seed, shuffle)
    expected = _reference_fingerprint_split(smiles, fractions, order)
    folds = fingerprint_split(smiles, fractions, seed, shuffle=shuffle)
    np.testing.assert_array_equal(folds, expected)
    assert (folds == 0).sum() == int(fractions[0] * 50)


def test_fingerprint_split_seeds_differ_and_repeat():
    a = fingerprint_split(TOX21_60, seed=1)
    np.testing.assert_array_equal(a, fingerprint_split(TOX21_60, seed=1))
    assert not np.array_equal(a, fingerprint_split(TOX21_60, seed=2))


def test_fingerprint_split_rejects_four_folds_and_empty_train():
    with pytest.raises(ValueError, match="2 or 3 fractions"):
        fingerprint_split(TOX21_60, (0.4, 0.2, 0.2, 0.2))
    with pytest.raises(ValueError, match="empty train fold"):
        fingerprint_split(["CCO", "CCN"], (0.4, 0.6))


# --------------------------------------------------------------------------- LoHi

@needs_lohi
def test_neighborhood_graph_equals_lohi():
    import lohi_splitter as lohi

    ref = lohi.get_neighborhood_graph(LOHI_60, 0.4)
    ours = neighborhood_graph(LOHI_60, 0.4, block_size=7)
    assert list(ours.nodes) == list(ref.nodes)
    assert list(ours.edges(data="weight")) == list(ref.edges(data="weight"))


@needs_lohi
@pytest.mark.parametrize("coarsening", [None, 0.8])
def test_lohi_split_is_a_hi_split(coarsening):
    folds = lohi_split(LOHI_60, seed=2, coarsening_threshold=coarsening, time_limit=30)
    assert set(np.unique(folds)) <= {-1, 0, 1}
    graph = neighborhood_graph(LOHI_60, 0.4)
    for i, j in graph.edges:
        assert not {folds[i], folds[j]} == {0, 1}, (i, j)  # no train-test pair above the threshold
    np.testing.assert_array_equal(folds, lohi_split(LOHI_60, seed=2, coarsening_threshold=coarsening,
                                                    time_limit=30))


@needs_lohi
def test_lohi_split_accepts_seeds_beyond_a_c_int():
    """The workflow's per-repeat seeds are 32-bit unsigned; CBC takes a signed C int."""
    folds = lohi_split(LOHI_60, seed=2**32 - 1, coarsening_threshold=None, time_limit=30)
    assert set(np.unique(folds)) <= {-1, 0, 1} and (folds == 1).any()


@needs_lohi
def test_lohi_split_infeasible_model_raises_lohis_error():
    # coarsening at 0.6 merges the hub's neighbourhood into one cluster too big to leave 10% for test
    with pytest.raises(ValueError, match="No solution is found"):
        lohi_split(LOHI_60, coarsening_threshold=0.6, time_limit=30)


@needs_lohi
def test_lohi_time_out_without_incumbent_raises(monkeypatch):
    import mip

    monkeypatch.setattr(mip.Model, "optimize", lambda self, **kw: mip.OptimizationStatus.NO_SOLUTION_FOUND)
    with pytest.raises(TimeoutError, match="time_limit=2.5 s"):
        lohi_split(LOHI_60, coarsening_threshold=None, time_limit=2.5)


@needs_lohi
def test_lohi_time_out_with_incumbent_warns_and_returns_it(monkeypatch):
    import mip

    original = mip.Model.optimize

    def stopped_early(self, **kw):
        original(self, **kw)
        return mip.OptimizationStatus.FEASIBLE

    monkeypatch.setattr(mip.Model, "optimize", stopped_early)
    with pytest.warns(RuntimeWarning, match="hit time_limit=30"):
        folds = lohi_split(LOHI_60, coarsening_threshold=None, time_limit=30)
    assert (folds == 0).sum() > 0 and (folds == 1).sum() > 0


@needs_lohi
def test_lohi_split_keeps_as_many_molecules_as_lohi():
    import lohi_splitter as lohi

    train, test = lohi.hi_train_test_split(LOHI_60, 0.4, 0.7, 0.1, verbose=False, max_mip_gap=0.0)
    folds = lohi_split(LOHI_60, shuffle=False, coarsening_threshold=None, max_mip_gap=0.0, time_limit=60)
    assert (folds >= 0).sum() == len(train) + len(test)


@needs_lohi
def test_lohi_split_rejects_three_folds_and_too_small_fractions():
    with pytest.raises(ValueError, match="takes 2 fractions"):
        lohi_split(LOHI_60, (0.6, 0.2, 0.2))
    with pytest.raises(ValueError, match="minus slack"):
        lohi_split(LOHI_60, (0.95, 0.05))


# --------------------------------------------------------------------------- DataSAIL peer

@needs_datasail
def test_datasail_s1_split_on_60_molecules():
    folds = datasail_s1_split(TOX21_60, clusters=10, max_sec=10, timeout=300)
    assert folds.shape == (60,)
    assert set(np.unique(folds)) <= {-1, 0, 1}
    assigned = folds[folds >= 0]
    assert assigned.size >= 54
    assert abs((assigned == 1).mean() - 0.2) <= 0.05 + 1 / 60  # DataSAIL's epsilon plus one molecule


def test_datasail_timeout_raises_peer_timeout():
    with pytest.raises(PeerTimeout) as info:
        datasail_s1_split(TOX21_60, timeout=0.3)
    assert info.value.seconds == 0.3
    assert "0.3 s" in str(info.value)


def test_datasail_missing_package_is_an_import_error(tmp_path):
    # an interpreter that cannot import datasail: isolated mode with an empty site path
    shim = tmp_path / "python"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -I -S \"$@\"\n")
    shim.chmod(0o755)
    assert subprocess.run([str(shim), "-c", "import datasail"], capture_output=True).returncode != 0
    with pytest.raises(ImportError, match="pip install datasail==1.4.0"):
        datasail_s1_split(TOX21_60, python=str(shim), timeout=60)
