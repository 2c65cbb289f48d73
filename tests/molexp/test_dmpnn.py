"""The optional chemprop D-MPNN (model ``dmpnn``): contract of fit_predict_dmpnn, its use by run_model and
the config switch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from markers import needs

needs_chemprop = needs("chemprop", "chemprop", "torch")

FIXTURE = Path(__file__).parent / "fixtures" / "splitters_tox21_60.smi"


def _molecules() -> tuple[list[str], np.ndarray]:
    """60 Tox21 molecules and a target a mean-aggregating graph network can learn: 10 x the fraction of
    aromatic heavy atoms."""
    from rdkit import Chem

    smiles = FIXTURE.read_text().split()
    mols = [Chem.MolFromSmiles(s) for s in smiles]
    return smiles, np.array([10 * sum(a.GetIsAromatic() for a in m.GetAtoms()) / m.GetNumAtoms() for m in mols])


@needs_chemprop
def test_regression_learns_and_is_deterministic():
    from benchdesign.molexp.dmpnn import fit_predict_dmpnn

    smiles, aromatic = _molecules()
    train, test = smiles[:45], smiles[45:]
    first = fit_predict_dmpnn("regression", train, aromatic[:45], test, seed=3, epochs=25)
    again = fit_predict_dmpnn("regression", train, aromatic[:45], test, seed=3, epochs=25)
    assert first.shape == (15, 1) and first.dtype == np.float64
    np.testing.assert_array_equal(first, again)
    mean_guess = np.abs(aromatic[:45].mean() - aromatic[45:]).mean()
    assert np.abs(first[:, 0] - aromatic[45:]).mean() < 0.6 * mean_guess


@needs_chemprop
def test_classification_masks_missing_labels_and_skips_unfittable_targets():
    from benchdesign.molexp.dmpnn import fit_predict_dmpnn

    smiles, aromatic = _molecules()
    big = (aromatic > np.median(aromatic)).astype(float)
    partly = np.where(np.arange(60) % 3 == 0, np.nan, big)   # a third of the labels missing
    Y = np.stack([big, partly, np.full(60, np.nan), np.zeros(60)], axis=1)
    pred = fit_predict_dmpnn("classification", smiles[:45], Y[:45], smiles[45:], seed=0, epochs=5)
    assert pred.shape == (15, 4)
    assert np.isnan(pred[:, 2]).all() and np.isnan(pred[:, 3]).all()   # no label / a single class
    assert ((pred[:, :2] > 0) & (pred[:, :2] < 1)).all()


@needs_chemprop
def test_extra_descriptors_are_learned_from_raw_values():
    """A target carried by an extra descriptor far from mean 0 / sd 1 (as protein features are): the model
    standardises training and test descriptors alike, so it predicts the test rows."""
    from benchdesign.molexp.dmpnn import fit_predict_dmpnn

    smiles, aromatic = _molecules()
    extra = 50 + 0.01 * np.random.default_rng(0).normal(size=(60, 3))
    y = 300 * (extra[:, 0] - 50)
    pred = fit_predict_dmpnn("regression", smiles[:45], y[:45], smiles[45:], extra_train=extra[:45],
                             extra_test=extra[45:], seed=1, epochs=25, batch_size=8)
    assert pred.shape == (15, 1)
    assert np.abs(pred[:, 0] - y[45:]).mean() < 0.6 * np.abs(y[:45].mean() - y[45:]).mean()


@pytest.mark.parametrize("kwargs, message", [
    ({"epochs": 0}, "epochs must be a positive integer"),
    ({"dropout": 1.5}, r"dropout must be in \[0, 1\)"),
    ({"layers": 2}, r"unknown dmpnn option\(s\) \['layers'\]"),
    ({"extra_train": np.zeros((3, 2))}, "for both training and test rows"),
    ({"extra_train": np.zeros((2, 2)), "extra_test": np.zeros((1, 2))}, r"got \(2, 2\) for 3 .* rows"),
    ({"Y_train": np.ones(2)}, r"one row per training SMILES \(3\)"),
    ({"task_type": "classification", "Y_train": np.array([0, 1, 2])}, "0/1 labels"),
])
def test_bad_options_name_the_value(kwargs, message):
    from benchdesign.molexp.dmpnn import fit_predict_dmpnn

    arguments = {"task_type": "regression", "Y_train": np.ones(3)} | kwargs
    with pytest.raises(ValueError, match=message):
        fit_predict_dmpnn(smiles_train=["C", "CC", "CCC"], smiles_test=["CO"], seed=0, **arguments)


@needs_chemprop
def test_unparsable_smiles_names_the_row():
    from benchdesign.molexp.dmpnn import fit_predict_dmpnn

    with pytest.raises(ValueError, match=r"training SMILES: row 1 .*'C1CC'"):
        fit_predict_dmpnn("regression", ["C", "C1CC", "CCC"], np.ones(3), ["CO"], seed=0, epochs=1)


@needs_chemprop
def test_run_model_trains_dmpnn_on_smiles():
    from benchdesign.molexp.datasets import dataset_info
    from benchdesign.molexp.experiment import experiment_from_molecules, run_model
    from benchdesign.molexp.features import molecule_fingerprints

    smiles, aromatic = _molecules()
    table = pd.DataFrame({"id": [f"M{i}" for i in range(60)], "smiles": smiles,
                          "SR-ARE": (aromatic > np.median(aromatic)).astype(float)})
    data = experiment_from_molecules(dataset_info("sr_are"), table, molecule_fingerprints(smiles))
    folds = np.array([0] * 45 + [1] * 15)
    result = run_model(data, folds, "dmpnn", seed=4, options={"epochs": 20})
    assert result["status"] == "ok" and result["metric"] == "roc_auc"
    assert (result["n_train"], result["n_test"]) == (45, 15)
    assert result["value"] > 0.7   # "more aromatic than the median" is easy to see in a graph


def test_config_switch_needs_the_extra(monkeypatch):
    """Listing dmpnn without chemprop installed is refused before any job (the workflow's package check)."""
    import importlib.util
    import re

    from benchdesign.molexp.settings import mol_settings
    from benchdesign.workflow.preflight import check_packages, install_hint

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "chemprop" else real(name, *a))
    config = {"molecules": {"enabled": True, "models": ["rf", "dmpnn"], "methods_1d": ["random", "s1"],
                            "ablation": {"enabled": False}}}
    with pytest.raises(ValueError, match=re.escape(f"molecules.models: dmpnn needs chemprop ({install_hint('chemprop')})")):
        check_packages(config)
    check_packages({"molecules": {"enabled": False, "models": ["dmpnn"]}})
    assert mol_settings(config)["models"] == ["rf", "dmpnn"]
