"""Strata of the stratified strategy: ``domains.<d>.strata`` of a ``kind: table`` domain, and their reader."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from workflow_helpers import REPO, snakemake

from benchdesign.domains import read_strata
from benchdesign.selection.protocol import dataset_pool_trials
from benchdesign.selection.ranking import rank_scores
from benchdesign.workflow.config import trial_combinations, trial_settings

NAMES = [f"set{d}" for d in range(10)]
TYPES = ["a"] * 6 + ["b"] * 4


def _bench(root):
    rng = np.random.default_rng(5)
    latent = rng.normal(size=(10, 2))
    wide = pd.DataFrame({f"model{m}": latent @ rng.normal(size=2) + 0.2 * m for m in range(4)}, index=NAMES)
    wide.rename_axis("dataset").to_csv(root / "scores.csv")
    pd.DataFrame(latent, index=pd.Index(NAMES, name="dataset"), columns=["f1", "f2"]).to_csv(root / "meta.csv")
    pd.DataFrame({"dataset": NAMES[::-1], "type": TYPES[::-1]}).to_csv(root / "types.csv", index=False)


def _config(strata=True):
    entry = {"kind": "table", "scores": "scores.csv", "higher_is_better": True, "features": {"meta": "meta.csv"},
             **({"strata": {"file": "types.csv", "column": "type"}} if strata else {})}
    return {"domains": {"tsc": {"enabled": False}, "recsys": {"enabled": False}, "nlp": {"enabled": False},
                        "mine": entry},
            "protocol": {"n_trials": 4, "k_min": 2, "k_max": 5, "strategies": ["random", "stratified"],
                         "variations": ["dataset_pool"]},
            "seed": 3, "synthetic": {"enabled": False}, "molecules": {"enabled": False}}


def test_read_strata_orders_labels_and_names_what_is_missing(tmp_path):
    _bench(tmp_path)
    assert read_strata(tmp_path / "types.csv", "type", NAMES).tolist() == TYPES
    with pytest.raises(ValueError, match="has no column 'kind'"):
        read_strata(tmp_path / "types.csv", "kind", NAMES)
    with pytest.raises(ValueError, match=r"no 'type' label for dataset\(s\) \['set99'\]"):
        read_strata(tmp_path / "types.csv", "type", ["set99"])


def test_stratified_needs_strata_and_tracks_their_column():
    with pytest.raises(ValueError, match="needs config key domains.mine.strata"):
        trial_combinations(_config(strata=False))
    assert ("dataset_pool", "mine", "none", "stratified") in trial_combinations(_config())
    assert trial_settings(_config(), "mine", "stratified")["strata_column"] == "type"
    assert "strata_column" not in trial_settings(_config(), "mine", "random")


@pytest.mark.workflow
def test_pipeline_stratified_trials_use_the_strata_file(tmp_path):
    _bench(tmp_path)
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(yaml.safe_dump(_config()))
    target = "results/trials/dataset_pool/mine/none/stratified.csv"
    snakemake(tmp_path, target, configfiles=(REPO / "config/config.yaml", overlay))
    trials = pd.read_csv(tmp_path / target)
    # the library with the labels of types.csv gives the same numbers
    wide = pd.read_csv(tmp_path / "scores.csv")
    long = wide.melt(id_vars="dataset", var_name="model", value_name="score").assign(fold=0)
    ranks = rank_scores(long, higher_is_better=True)
    labels = read_strata(tmp_path / "types.csv", "type", ranks.index)
    expected = dataset_pool_trials(ranks.to_numpy(), np.zeros((10, 1)), "stratified", [2, 3, 4, 5], 4, 0.8, 3,
                                   {"strata": labels}, random_draws=1)  # config/config.yaml: the paper's one draw
    np.testing.assert_allclose(trials["value"].to_numpy(), expected["value"].to_numpy())
    other = dataset_pool_trials(ranks.to_numpy(), np.zeros((10, 1)), "stratified", [2, 3, 4, 5], 4, 0.8, 3,
                                {"strata": np.arange(10) % 2}, random_draws=1)
    assert not np.allclose(other["value"], expected["value"])  # the labels matter
