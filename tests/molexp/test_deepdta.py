"""DeepDTA (model ``deepdta``): it learns a signal planted in the SMILES strings and sequences of pairs, keeps the
fit_predict contract (missing labels, unfittable targets), follows the LP-PDBBind architecture, and run_model hands
it each pair's SMILES and sequence (2-D data only). Tiny networks and a few epochs: seconds."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from markers import needs
from sklearn.metrics import roc_auc_score

from benchdesign.molexp.deepdta import DEEPDTA_DEFAULTS, DeepDTA, encode_strings, fit_predict_deepdta

needs_torch = needs("torch", "chemprop")
SMALL = {"epochs": 12, "batch_size": 32, "embedding_dim": 16, "filters": 8, "hidden": (64, 32), "dropout": 0.0,
         "max_smiles_length": 40, "max_sequence_length": 70}
"""A small DeepDTA for the tests (the defaults are the paper's)."""
AMINO_ACIDS = list("ACDEFGHIKLMNPQRSTVY")  # no W: the protein motif below is made of W and H
FRAGMENTS = ["C", "CC", "O", "N", "c1ccccc1", "C(C)"]  # no S: the drug motif is a sulfonyl group


def _pairs(n_pairs: int = 200, seed: int = 0):
    """Pairs of 30 drugs and 20 proteins, half of each carrying a motif (a sulfonyl group in the SMILES; the
    segment WWHW in the sequence, anywhere): label = 5 + 2 [drug motif] + 1.5 [protein motif] + noise."""
    rng = np.random.default_rng(seed)
    drug_motif, protein_motif = rng.random(30) < 0.5, rng.random(20) < 0.5

    def drug(motif: bool) -> str:
        parts = rng.choice(FRAGMENTS, rng.integers(3, 7)).tolist()
        if motif:
            parts.insert(int(rng.integers(0, len(parts) + 1)), "S(=O)(=O)")
        return "".join(parts)

    def protein(motif: bool) -> str:
        residues = rng.choice(AMINO_ACIDS, 60).tolist()
        if motif:
            at = int(rng.integers(0, 56))
            residues[at:at + 4] = list("WWHW")
        return "".join(residues)

    drugs, proteins = [drug(m) for m in drug_motif], [protein(m) for m in protein_motif]
    cells = rng.choice(30 * 20, n_pairs, replace=False)
    d, p = cells // 20, cells % 20
    y = 5 + 2.0 * drug_motif[d] + 1.5 * protein_motif[p] + rng.normal(0, 0.1, n_pairs)
    return [drugs[i] for i in d], [proteins[j] for j in p], y, drug_motif[d], protein_motif[p]


def _rmse(a, b) -> float:
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


@needs_torch
def test_learns_the_planted_motifs_of_unseen_pairs_deterministically():
    smiles, sequences, y, _, _ = _pairs()
    train, test = slice(0, 150), slice(150, 200)
    model = DeepDTA(seed=0, **SMALL).fit(smiles[train], sequences[train], y[train])
    pred = model.predict(smiles[test], sequences[test])
    assert pred.shape == (50,) and np.isfinite(pred).all()
    mean_only = _rmse(y[train].mean(), y[test])
    assert _rmse(pred, y[test]) < 0.4 * mean_only, (_rmse(pred, y[test]), mean_only)
    again = DeepDTA(seed=0, **SMALL).fit(smiles[train], sequences[train], y[train]).predict(smiles[test], sequences[test])
    np.testing.assert_array_equal(pred, again)
    other = DeepDTA(seed=1, **SMALL).fit(smiles[train], sequences[train], y[train]).predict(smiles[test], sequences[test])
    assert not np.array_equal(pred, other)


@needs_torch
def test_fit_predict_contract_missing_labels_and_classification():
    """Two targets with missing labels share the network; a target without labels gets NaN; classification
    returns probabilities that separate the classes of a planted motif."""
    smiles, sequences, y, drug_motif, protein_motif = _pairs(seed=3)
    Y = np.column_stack([y, 2.0 * protein_motif + np.random.default_rng(4).normal(0, 0.1, y.size), np.full(y.size, np.nan)])
    Y[::3, 0] = np.nan
    Y[1::3, 1] = np.nan
    pred = fit_predict_deepdta("regression", smiles[:150], sequences[:150], Y[:150], smiles[150:], sequences[150:],
                               seed=2, **SMALL)
    assert pred.shape == (50, 3) and np.isnan(pred[:, 2]).all() and np.isfinite(pred[:, :2]).all()
    for t in range(2):
        known = ~np.isnan(Y[150:, t])
        truth = Y[150:, t][known]
        assert _rmse(pred[known, t], truth) < 0.5 * _rmse(np.nanmean(Y[:150, t]), truth), t
    labels = np.column_stack([drug_motif, np.zeros(y.size)]).astype(float)  # the 2nd: one class only -> NaN
    proba = fit_predict_deepdta("classification", smiles[:150], sequences[:150], labels[:150], smiles[150:],
                                sequences[150:], seed=2, **SMALL)
    assert np.isnan(proba[:, 1]).all() and ((proba[:, 0] > 0) & (proba[:, 0] < 1)).all()
    assert roc_auc_score(labels[150:, 0], proba[:, 0]) > 0.95
    empty = fit_predict_deepdta("regression", smiles[:5], sequences[:5], np.full(5, np.nan), smiles[5:7],
                                sequences[5:7], seed=0)
    assert empty.shape == (2, 1) and np.isnan(empty).all()


@needs_torch
def test_architecture_is_the_lp_pdbbind_deepdta():
    """Defaults: 128-d embeddings, three convolutions of kernel size 8 with 32/64/96 filters per encoder, global
    max pooling, a 1024-1024-512 head with dropout 0.1, Adam 1e-3 / weight decay 1e-5, 256 pairs, 50 epochs."""
    from torch import nn

    assert DEEPDTA_DEFAULTS["epochs"] == 50 and DEEPDTA_DEFAULTS["batch_size"] == 256
    assert (DEEPDTA_DEFAULTS["max_smiles_length"], DEEPDTA_DEFAULTS["max_sequence_length"]) == (200, 2000)
    smiles, sequences, y, _, _ = _pairs(40)
    model = DeepDTA(seed=0, epochs=1, max_sequence_length=70).fit(smiles, sequences, y)
    net = model.network_
    for encoder in (net.smiles, net.sequence):
        convs = [m for m in encoder if isinstance(m, nn.Conv1d)]
        assert [(c.in_channels, c.out_channels, c.kernel_size) for c in convs] == [(128, 32, (8,)), (32, 64, (8,)),
                                                                                   (64, 96, (8,))]
        assert sum(isinstance(m, nn.ReLU) for m in encoder) == 3
        assert isinstance(encoder[-2], nn.AdaptiveMaxPool1d)
    linear = [m for m in net.head if isinstance(m, nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linear] == [(192, 1024), (1024, 1024), (1024, 512), (512, 1)]
    assert [m.p for m in net.head if isinstance(m, nn.Dropout)] == [0.1] * 3
    assert str(next(net.parameters()).device) in ("cpu", "cuda:0")


def test_strings_are_encoded_cut_and_padded():
    vocabulary = {"C": 2, "O": 3}
    np.testing.assert_array_equal(encode_strings(["CCO", "CN", "OOOOOO"], vocabulary, 4),
                                  [[2, 2, 3, 0], [2, 1, 0, 0], [3, 3, 3, 3]])
    assert encode_strings([], vocabulary, 3).shape == (0, 3)


@pytest.mark.parametrize(("options", "message"), [
    ({"layers": 2}, "unknown deepdta option(s) ['layers']"),
    ({"epochs": 0}, "deepdta epochs must be a positive integer, got 0"),
    ({"dropout": 1.0}, "deepdta dropout must be in [0, 1), got 1.0"),
    ({"hidden": [64, 0]}, "deepdta hidden must be a list of positive integers"),
    ({"max_smiles_length": 20}, "max_smiles_length 20 is shorter than the three convolutions of kernel size 8 need (22)"),
    ({"learning_rate": -1}, "deepdta learning_rate must be a number >= 0, got -1"),
    ({"device": 0}, "deepdta device must be a torch device name"),
])
def test_options_are_checked(options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        DeepDTA(**options)


@needs_torch
def test_inputs_are_checked():
    with pytest.raises(ValueError, match="unknown task type 'ranking'"):
        DeepDTA("ranking")
    with pytest.raises(ValueError, match="not fitted yet"):
        DeepDTA().predict(["C"], ["MK"])
    model = DeepDTA(**SMALL)
    with pytest.raises(ValueError, match="one sequence per SMILES string: got 2 SMILES and 1 sequences"):
        model.fit(["C", "CC"], ["MKV"], [1.0, 2.0])
    with pytest.raises(ValueError, match="sequences: row 1 is not a non-empty string: ''"):
        model.fit(["C", "CC"], ["MKV", ""], [1.0, 2.0])
    with pytest.raises(ValueError, match="0/1 labels"):
        DeepDTA("classification", **SMALL).fit(["C", "CC"], ["MKV", "MKL"], [0.0, 2.0])
    with pytest.raises(ValueError, match="y has 3 rows but there are 2 pairs"):
        model.fit(["C", "CC"], ["MKV", "MKL"], [1.0, 2.0, 3.0])


def _pair_experiment(n_pairs: int = 200):
    """ExperimentData of DAVIS's shape (drug_id, target_id, label) built from the planted pairs."""
    from benchdesign.molexp.datasets import dataset_info
    from benchdesign.molexp.experiment import ExperimentData

    smiles, sequences, y, _, _ = _pairs(n_pairs)
    drugs, drug_index = np.unique(smiles, return_inverse=True)
    proteins, protein_index = np.unique(sequences, return_inverse=True)
    samples = pd.DataFrame({"id": [f"P{i}" for i in range(n_pairs)], "drug_id": [f"D{i}" for i in drug_index],
                            "target_id": [f"T{j}" for j in protein_index], "label": y})
    molecules = pd.DataFrame({"id": [f"D{i}" for i in range(len(drugs))], "smiles": drugs})
    targets = pd.DataFrame({"id": [f"T{j}" for j in range(len(proteins))], "sequence": proteins})
    bits = np.zeros((len(drugs), 8), dtype=np.uint8)  # DeepDTA reads the strings, not these
    return ExperimentData(dataset_info("davis"), samples, molecules, bits, drug_index, targets,
                          np.zeros((len(proteins), 4), np.float32), protein_index), y


@needs_torch
def test_run_model_hands_deepdta_each_pairs_smiles_and_sequence():
    from benchdesign.molexp.experiment import run_model

    data, y = _pair_experiment()
    folds = np.array([0] * 150 + [1] * 50)
    result = run_model(data, folds, "deepdta", seed=0, options=SMALL)
    assert result["status"] == "ok" and result["metric"] == "rmse" and (result["n_train"], result["n_test"]) == (150, 50)
    assert result["value"] < 0.4 * _rmse(y[:150].mean(), y[150:])
    smiles, sequences, _, _, _ = _pairs()  # the same pairs, in the same order
    direct = fit_predict_deepdta("regression", smiles[:150], sequences[:150], y[:150], smiles[150:], sequences[150:],
                                 seed=0, **SMALL)
    assert result["value"] == pytest.approx(_rmse(direct[:, 0], y[150:]))


def test_run_model_refuses_deepdta_on_molecules():
    from benchdesign.molexp.datasets import dataset_info
    from benchdesign.molexp.experiment import experiment_from_molecules, run_model

    table = pd.DataFrame({"id": ["M0", "M1"], "smiles": ["C", "CC"], "SR-ARE": [0.0, 1.0]})
    data = experiment_from_molecules(dataset_info("sr_are"), table, np.zeros((2, 8), np.uint8))
    with pytest.raises(ValueError, match="model 'deepdta' needs drug-target pairs; dataset 'sr_are' has molecules only"):
        run_model(data, np.array([0, 1]), "deepdta", seed=0, options={})


def test_deepdta_is_a_model_of_the_2d_datasets_only():
    from benchdesign.molexp.settings import MODEL_NAMES, MODEL_PACKAGES, dataset_models, mol_settings

    assert "deepdta" in MODEL_NAMES and MODEL_PACKAGES["deepdta"] == ("torch",)
    settings = mol_settings({"molecules": {"models": ["rf", "deepdta", "xgb"]}})
    assert dataset_models(settings, "qm8") == ["rf", "xgb"]
    assert dataset_models(settings, "davis") == dataset_models(settings, "kiba") == ["rf", "deepdta", "xgb"]
