"""The targets' similarity of the 2-D molecular experiments: MMseqs2 by default, ``molecules.protein_similarity``
switches it, and only the 2-D split jobs carry the key."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from benchdesign.molexp import experiment
from benchdesign.molexp.datasets import dataset_info
from benchdesign.molexp.experiment import ExperimentData, run_molecule_split, target_similarity
from benchdesign.molexp.features import molecule_fingerprints
from benchdesign.molexp.scoring import pair_side_leakage
from benchdesign.molexp.settings import MOL_DEFAULTS, mol_settings, split_options
from benchdesign.splitting import FingerprintSimilarity, KmerSimilarity
from benchdesign.splitting.alignment import covered_identities
from benchdesign.splitting.mmseqs import MmseqsSimilarity
from benchdesign.splitting.options import DEFAULT_SEQUENCE_SIMILARITY, SEQUENCE_SIMILARITIES

SCHEMA = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml"
DRUGS = ["CCO", "CCCO", "CCCCO", "c1ccccc1", "c1ccccc1O", "c1ccccc1N", "CC(=O)O", "CC(=O)OC"]
AMINO = np.array(list("ACDEFGHIKLMNPQRSTVWY"))


def _targets() -> list[str]:
    """8 random 80-residue proteins: two families of 2 (one residue in ten redrawn) and 4 unrelated ones."""
    rng = np.random.default_rng(3)
    out = []
    for _ in range(2):
        base = rng.choice(AMINO, 80)
        for _ in range(2):
            variant = base.copy()
            variant[rng.choice(80, 8, replace=False)] = rng.choice(AMINO, 8)
            out.append("".join(variant))
    return out + ["".join(rng.choice(AMINO, 80)) for _ in range(4)]


TARGETS = _targets()


def _experiment() -> ExperimentData:
    """Every drug with every target: 64 pairs."""
    drug, target = np.repeat(np.arange(len(DRUGS)), len(TARGETS)), np.tile(np.arange(len(TARGETS)), len(DRUGS))
    samples = pd.DataFrame({"id": [f"P{i:03d}" for i in range(drug.size)], "drug_id": [f"D{d}" for d in drug],
                            "target_id": [f"T{t}" for t in target], "label": np.linspace(5, 9, drug.size)})
    return ExperimentData(dataset_info("davis"), samples, pd.DataFrame({"id": [f"D{i}" for i in range(len(DRUGS))],
                                                                        "smiles": DRUGS}),
                          molecule_fingerprints(DRUGS), drug,
                          pd.DataFrame({"id": [f"T{i}" for i in range(len(TARGETS))], "sequence": TARGETS}),
                          np.zeros((len(TARGETS), 4), np.float32), target)


def test_the_default_is_the_schemas_and_the_splitting_librarys():
    spec = yaml.safe_load(SCHEMA.read_text())["properties"]["molecules"]["properties"]["protein_similarity"]
    assert spec["default"] == MOL_DEFAULTS["protein_similarity"] == DEFAULT_SEQUENCE_SIMILARITY == "mmseqs"
    assert spec["enum"] == list(SEQUENCE_SIMILARITIES)


def test_only_the_2d_split_jobs_carry_the_key():
    """split_options is the params of rule mol_split: a changed protein_similarity reruns DAVIS's and KIBA's
    splits (their target leakage is measured on it) and no 1-D dataset's."""
    default, kmer = mol_settings({}), mol_settings({"molecules": {"protein_similarity": "kmer"}})
    for method in ("random", "s1", "s1_target", "i2", "s2", "graphpart_target"):
        assert split_options(default, "davis", method)["protein_similarity"] == "mmseqs"
        assert split_options(kmer, "kiba", method)["protein_similarity"] == "kmer"
    for method in ("random", "s1", "scaffold"):
        assert split_options(kmer, "tox21", method) == split_options(default, "tox21", method)
        assert "protein_similarity" not in split_options(kmer, "tox21", method)


@pytest.mark.parametrize("kind, expected", [(None, MmseqsSimilarity), ("mmseqs", MmseqsSimilarity),
                                            ("kmer", KmerSimilarity)])
def test_the_target_side_of_s2_uses_the_configured_similarity(monkeypatch, kind, expected):
    seen = []
    real = experiment.split_pairs

    def spy(method, drug_index, target_index, drug_sim, target_sim, *args, **kwargs):
        seen.append(target_sim)
        return real(method, drug_index, target_index, drug_sim, target_sim, *args, **kwargs)

    monkeypatch.setattr(experiment, "split_pairs", spy)
    data = _experiment()
    options = {"ilp": {"clusters": 4, "epsilon": 0.3, "delta": 0.3, "time_limit": 20}}
    if kind is not None:
        options["protein_similarity"] = kind
    folds, record = run_molecule_split(data, "s2", 0, (0.75, 0.25), 1, options)
    assert record["status"] == "ok" and type(seen[0]) is expected
    assert record["protein_similarity"] == (kind or "mmseqs")
    leak = pair_side_leakage(FingerprintSimilarity(data.molecule_bits), seen[0], data.molecule_index,
                             data.protein_index, folds)
    assert record["target_leakage"] == pytest.approx(leak.target)


def test_the_mmseqs_target_similarity_is_identity_with_coverage():
    """The family pairs at ~90 % identity, everything else 0: the exact Smith-Waterman values (parasail)."""
    sim = target_similarity(_experiment())
    rows, cols = np.triu_indices(len(TARGETS), 1)
    values = sim.block(np.arange(len(TARGETS)), np.arange(len(TARGETS)))[rows, cols]
    exact = covered_identities(TARGETS, rows, cols)
    assert np.flatnonzero(values > 0).tolist() == np.flatnonzero(exact > 0).tolist()
    assert values[values > 0] == pytest.approx(exact[exact > 0], abs=0.02) and (values[values > 0] > 0.8).all()
    with pytest.raises(ValueError, match="protein_similarity must be one of"):
        target_similarity(_experiment(), "blast")


def test_1d_records_name_no_protein_similarity():
    from benchdesign.molexp.experiment import experiment_from_molecules

    table = pd.DataFrame({"id": [f"M{i}" for i in range(len(DRUGS))], "smiles": DRUGS,
                          **{t: np.linspace(0, 1, len(DRUGS)) for t in dataset_info("qm8").targets}})
    data = experiment_from_molecules(dataset_info("qm8"), table, molecule_fingerprints(DRUGS))
    _, record = run_molecule_split(data, "random", 0, (0.75, 0.25), 1, {"ilp": {"clusters": 4}})
    assert "protein_similarity" not in record
