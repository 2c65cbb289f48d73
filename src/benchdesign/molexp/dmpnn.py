"""The DataSAIL paper's fifth model: a directed message-passing network (D-MPNN) from chemprop.

Optional: needs the ``chemprop`` extra (``pip install torch==2.13.0 -e ".[chemprop]"``) and is switched on by
listing ``dmpnn`` in ``molecules: models:`` of the config. Paper setup ("Training of supervised machine learning
models"): chemprop v1.6.1 with default parameters, 50 epochs, SMILES input. Here chemprop 2.2 with its defaults
(bond message passing, hidden size 300, depth 3, mean aggregation, one 300-unit FFN layer, batch 64, Noam
learning-rate schedule 1e-4 -> 1e-3 -> 1e-4 with 2 warm-up epochs) trained for a fixed number of epochs on the
CPU; chemprop 1.6 also kept the epoch with the best score on a validation split, which a fixed budget skips so
that every training row is used. For drug-target pairs the protein features enter as extra descriptors
(chemprop's ``x_d``, standardised on the training rows) after the drug graph's aggregation.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["DMPNN_DEFAULTS", "fit_predict_dmpnn"]

DMPNN_DEFAULTS: dict[str, Any] = {
    "epochs": 50,
    "batch_size": 64,
    "hidden_size": 300,
    "depth": 3,
    "ffn_hidden_size": 300,
    "ffn_num_layers": 1,
    "dropout": 0.0,
}
"""Chemprop's defaults and the paper's 50 epochs; ``molecules: model_options: dmpnn:`` overrides them."""


def _settings(overrides: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(overrides) - set(DMPNN_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown dmpnn option(s) {unknown}; allowed: {sorted(DMPNN_DEFAULTS)}")
    settings = DMPNN_DEFAULTS | overrides
    for key, value in settings.items():
        if key == "dropout":
            if not 0 <= float(value) < 1:
                raise ValueError(f"dmpnn dropout must be in [0, 1), got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"dmpnn {key} must be a positive integer, got {value!r}")
    return settings


def _datapoints(smiles: Sequence[str], Y: np.ndarray | None, extra: np.ndarray | None, name: str) -> list:
    from chemprop.data import MoleculeDatapoint
    from rdkit import Chem

    points = []
    for row, smi in enumerate(smiles):
        if Chem.MolFromSmiles(smi) is None:
            raise ValueError(f"{name}: row {row} has a SMILES string RDKit cannot parse: {smi!r}")
        points.append(MoleculeDatapoint.from_smi(
            smi, y=None if Y is None else Y[row], x_d=None if extra is None else extra[row]))
    return points


def _check_inputs(smiles_train, Y_train, smiles_test, extra_train, extra_test, classification):
    from benchdesign.molexp.models import _as_2d_targets, _check_binary

    y = _as_2d_targets(Y_train, "Y_train")
    if y.shape[0] != len(smiles_train):
        raise ValueError(f"Y_train must have one row per training SMILES ({len(smiles_train)}), got shape {y.shape}")
    if classification:
        _check_binary(y, "Y_train")
    if (extra_train is None) != (extra_test is None):
        raise ValueError("give extra descriptors for both training and test rows, or for neither")
    if extra_train is not None:
        extra_train = np.asarray(extra_train, dtype=np.float32)
        extra_test = np.asarray(extra_test, dtype=np.float32)
        if extra_train.shape != (len(smiles_train), extra_train.shape[-1]) or \
                extra_test.shape != (len(smiles_test), extra_train.shape[-1]):
            raise ValueError(f"extra descriptors must be (n_rows, d) for both sets with one d; got "
                             f"{extra_train.shape} for {len(smiles_train)} and {extra_test.shape} for "
                             f"{len(smiles_test)} rows")
    return y, extra_train, extra_test


def fit_predict_dmpnn(task_type: str, smiles_train: Sequence[str], Y_train: np.ndarray,
                      smiles_test: Sequence[str], seed: int, extra_train: np.ndarray | None = None,
                      extra_test: np.ndarray | None = None, n_jobs: int = 1, **overrides: Any) -> np.ndarray:
    """Train a multi-task D-MPNN on the training SMILES and predict the test SMILES, float64 (n_test, n_targets).

    Same contract as :func:`benchdesign.molexp.models.fit_predict`: ``Y_train`` is (n,) or (n, n_targets) with
    NaN = missing (masked out of the loss); classification (0/1 labels) returns the positive-class probability,
    regression the prediction (targets standardised for training). A target with no labelled training row, or
    (classification) a single class among them, gets all-NaN predictions. ``extra_*``: per-row descriptors
    (e.g. protein features of drug-target pairs). ``n_jobs`` torch threads. Deterministic for a fixed ``seed``.
    """
    from benchdesign.molexp.models import TASK_TYPES

    if task_type not in TASK_TYPES:
        raise ValueError(f"unknown task type {task_type!r}; allowed: {', '.join(TASK_TYPES)}")
    classification = task_type == "classification"
    settings = _settings(overrides)
    y, extra_train, extra_test = _check_inputs(smiles_train, Y_train, smiles_test, extra_train, extra_test,
                                               classification)
    fitted = np.array([np.unique(col[~np.isnan(col)]).size >= (2 if classification else 1) for col in y.T])
    out = np.full((len(smiles_test), y.shape[1]), np.nan)
    if not fitted.any() or len(smiles_test) == 0:
        return out
    y_fit = y[:, fitted]

    import lightning.pytorch as pl
    import torch
    from chemprop import data, featurizers, models, nn

    for name in ("lightning.pytorch", "lightning.fabric", "lightning"):
        logging.getLogger(name).setLevel(logging.ERROR)
    torch.set_num_threads(int(n_jobs))
    pl.seed_everything(int(seed) % 2**32, workers=True, verbose=False)
    featurizer = featurizers.SimpleMoleculeMolGraphFeaturizer()
    train_set = data.MoleculeDataset(_datapoints(smiles_train, y_fit, extra_train, "training SMILES"), featurizer)
    test_set = data.MoleculeDataset(_datapoints(smiles_test, None, extra_test, "test SMILES"), featurizer)
    x_d_transform = None
    if extra_train is not None:
        # the training rows are standardised here; the model standardises other rows when predicting
        x_d_scaler = train_set.normalize_inputs("X_d")
        x_d_transform = nn.ScaleTransform.from_standard_scaler(x_d_scaler)
    message_passing = nn.BondMessagePassing(d_h=settings["hidden_size"], depth=settings["depth"],
                                            dropout=settings["dropout"])
    ffn_options = dict(n_tasks=y_fit.shape[1], input_dim=message_passing.output_dim + train_set.d_xd,
                       hidden_dim=settings["ffn_hidden_size"], n_layers=settings["ffn_num_layers"],
                       dropout=settings["dropout"])
    if classification:
        ffn = nn.BinaryClassificationFFN(**ffn_options)
    else:
        scaler = train_set.normalize_targets()
        ffn = nn.RegressionFFN(**ffn_options, output_transform=nn.UnscaleTransform.from_standard_scaler(scaler))
    model = models.MPNN(message_passing, nn.MeanAggregation(), ffn, X_d_transform=x_d_transform)
    train_loader = data.build_dataloader(train_set, batch_size=settings["batch_size"], seed=int(seed) % 2**32)
    test_loader = data.build_dataloader(test_set, batch_size=settings["batch_size"], shuffle=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lightning's advice on srun, dataloader workers and GPUs
        trainer = pl.Trainer(accelerator="cpu", devices=1, max_epochs=settings["epochs"], logger=False,
                             enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                             deterministic=True)
        trainer.fit(model, train_loader)
        predictions = trainer.predict(model, test_loader)
    out[:, fitted] = torch.cat(predictions).reshape(len(smiles_test), -1).double().numpy()
    return out
