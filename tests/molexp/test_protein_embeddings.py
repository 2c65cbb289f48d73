"""ESM-2 protein embeddings (molecules.protein_representation: esm2_t12) on a tiny randomly initialised ESM-2 of
the real architecture, saved as a fair-esm checkpoint and read by the real loading code: the mean over residues
against the model's own forward pass, batching, long sequences, the errors without weights, and the feature
script writing which representation it used. No network: the hub download is replaced by one that fails."""

from __future__ import annotations

import argparse
import logging
import runpy
import sys
import urllib.error
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from markers import needs

from benchdesign.molexp.features import protein_features
from benchdesign.molexp.protein_embeddings import (
    DEFAULT_ESM_MODEL,
    encode_proteins,
    esm2_embeddings,
    esm_weights_url,
    load_esm2,
)

pytestmark = needs("esm", "esm", "torch")
REPO = Path(__file__).resolve().parents[2]
LAYERS, DIM = 2, 16
SEQUENCES = ["MKTAYIAKQRQISFVKSHFSRQ", "GAVLIPFW", "ACDEFGHIKLMNPQRSTVWYACDEFGHIK", "MW"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """(model, alphabet, path): a seeded random ESM-2 (2 layers, 16 dimensions, 2 heads) and its checkpoint in
    the format of fair-esm's ESM-2 files (state dict under encoder.sentence_encoder., cfg["model"] a Namespace)."""
    import esm
    import torch

    torch.manual_seed(0)
    alphabet = esm.data.Alphabet.from_architecture("ESM-1b")
    model = esm.model.esm2.ESM2(num_layers=LAYERS, embed_dim=DIM, attention_heads=2, alphabet=alphabet).eval()
    state = {
        f"encoder.sentence_encoder.{k}": v for k, v in model.state_dict().items() if not k.startswith("contact_head.regression")
    }  # a separate file in fair-esm's downloads
    cfg = argparse.Namespace(encoder_layers=LAYERS, encoder_embed_dim=DIM, encoder_attention_heads=2, token_dropout=True)
    path = tmp_path_factory.mktemp("esm") / "tiny_esm2.pt"  # any name: the loader does not read it
    torch.save({"model": state, "cfg": {"model": cfg}}, path)
    return model, alphabet, path


def _forward_mean(model, alphabet, sequence: str) -> np.ndarray:
    """Mean over the residue tokens (not BOS/EOS) of the last layer of the model's own forward pass."""
    import torch

    _, _, tokens = alphabet.get_batch_converter()([("x", sequence)])
    with torch.no_grad():
        rep = model(tokens, repr_layers=[model.num_layers])["representations"][model.num_layers]
    assert tokens[0, 0] == alphabet.cls_idx and tokens[0, len(sequence) + 1] == alphabet.eos_idx
    return rep[0, 1 : len(sequence) + 1].double().mean(0).numpy()


def test_the_checkpoint_loads_into_the_same_weights(tiny):
    model, _, path = tiny
    loaded, alphabet = load_esm2(path)
    assert (loaded.num_layers, loaded.embed_dim, loaded.training) == (LAYERS, DIM, False)
    theirs = loaded.state_dict()
    for name, value in model.state_dict().items():
        if not name.startswith("contact_head.regression"):
            assert np.array_equal(value.numpy(), theirs[name].numpy()), name


def test_embedding_is_the_mean_over_residues_of_the_last_layer(tiny):
    model, alphabet, path = tiny
    emb = esm2_embeddings(SEQUENCES, weights=path, batch_tokens=40, device="cpu")
    assert emb.dtype == np.float32 and emb.shape == (len(SEQUENCES), DIM)
    for row, sequence in enumerate(SEQUENCES):
        np.testing.assert_allclose(emb[row], _forward_mean(model, alphabet, sequence), rtol=1e-5, atol=1e-6)
    # BOS and EOS are not residues: a mean over every token differs
    _, _, tokens = alphabet.get_batch_converter()([("x", "MW")])
    import torch

    with torch.no_grad():
        every = model(tokens, repr_layers=[LAYERS])["representations"][LAYERS][0].double().mean(0).numpy()
    assert np.abs(every - emb[3]).max() > 1e-3


def test_batching_and_padding_leave_an_embedding_unchanged_and_runs_repeat(tiny):
    _, _, path = tiny
    alone = esm2_embeddings(["GAVLIPFW"], weights=path, batch_tokens=1)
    padded = esm2_embeddings(SEQUENCES, weights=path)  # one batch, padded to the longest
    np.testing.assert_allclose(padded[1], alone[0], rtol=1e-5, atol=1e-6)
    again = esm2_embeddings(SEQUENCES, weights=path)
    np.testing.assert_array_equal(padded, again)


def test_long_sequences_average_windows_or_are_truncated(tiny):
    model, alphabet, path = tiny
    sequence = SEQUENCES[2]  # 29 residues, 8 per pass: windows of 7, 7, 8, 7 (near-equal, in order)
    windows = esm2_embeddings([sequence], weights=path, max_residues=8)[0]
    cuts = [0, 7, 14, 22, 29]  # rounded linspace(0, 29, 5)
    sums = sum(_forward_mean(model, alphabet, sequence[a:b]) * (b - a) for a, b in zip(cuts[:-1], cuts[1:]))
    np.testing.assert_allclose(windows, sums / len(sequence), rtol=1e-5, atol=1e-6)
    truncated = esm2_embeddings([sequence], weights=path, max_residues=8, long_sequences="truncate")[0]
    np.testing.assert_allclose(truncated, _forward_mean(model, alphabet, sequence[:8]), rtol=1e-5, atol=1e-6)
    short = esm2_embeddings(["GAVLIPFW"], weights=path, max_residues=8)  # exactly max_residues: one pass
    np.testing.assert_allclose(short[0], _forward_mean(model, alphabet, "GAVLIPFW"), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="max_residues must be in"):
        esm2_embeddings([sequence], weights=path, max_residues=1023)
    with pytest.raises(ValueError, match="long_sequences must be one of"):
        esm2_embeddings([sequence], weights=path, long_sequences="split")


def test_sequences_are_checked_and_read_as_the_composition_reads_them(tiny):
    _, _, path = tiny
    np.testing.assert_array_equal(esm2_embeddings(["gavJw"], weights=path), esm2_embeddings(["GAVXW"], weights=path))
    with pytest.raises(ValueError, match=r"sequence at row 1 has character '\*' at position 3"):
        esm2_embeddings(["GAV", "MKT*"], weights=path)


def test_a_missing_weights_file_is_named_with_its_config_key(tmp_path):
    missing = tmp_path / "esm2_t12_35M_UR50D.pt"
    with pytest.raises(FileNotFoundError) as err:
        esm2_embeddings(["GAV"], weights=missing)
    message = str(err.value)
    assert str(missing) in message and "molecules.esm_weights" in message and esm_weights_url() in message
    not_esm = tmp_path / "other.pt"
    import torch

    torch.save({"state": torch.zeros(2)}, not_esm)
    with pytest.raises(ValueError, match=r"other.pt is not an ESM-2 checkpoint of fair-esm .*found \['state'\]"):
        load_esm2(not_esm)


@pytest.fixture
def offline_hub(tmp_path, monkeypatch):
    """An empty torch hub directory and a fair-esm download that fails as offline (and counts its calls)."""
    import esm
    import torch

    calls = []

    def no_network(name):
        calls.append(name)
        raise urllib.error.URLError("Temporary failure in name resolution")

    monkeypatch.setattr(torch.hub, "get_dir", lambda: str(tmp_path / "hub"))
    monkeypatch.setattr(esm.pretrained, "load_model_and_alphabet_hub", no_network)
    return tmp_path / "hub", calls


def test_without_weights_offline_the_error_says_where_it_looked_and_how_to_provide_them(offline_hub):
    hub, calls = offline_hub
    with pytest.raises(FileNotFoundError) as err:
        esm2_embeddings(["GAV"])
    message = str(err.value)
    assert calls == [DEFAULT_ESM_MODEL]
    assert str(hub / "checkpoints" / f"{DEFAULT_ESM_MODEL}.pt") in message
    assert esm_weights_url() in message and "molecules.esm_weights" in message and "URLError" in message


def test_weights_in_the_hub_cache_are_read_without_a_download(tiny, offline_hub):
    _, _, path = tiny
    hub, calls = offline_hub
    (hub / "checkpoints").mkdir(parents=True)
    (hub / "checkpoints" / f"{DEFAULT_ESM_MODEL}.pt").write_bytes(path.read_bytes())
    np.testing.assert_array_equal(esm2_embeddings(SEQUENCES), esm2_embeddings(SEQUENCES, weights=path))
    assert calls == []


def test_encode_proteins_picks_the_configured_representation(tiny, caplog):
    _, _, path = tiny
    np.testing.assert_array_equal(encode_proteins(SEQUENCES, "composition"), protein_features(SEQUENCES))
    with caplog.at_level(logging.WARNING, logger="benchdesign"):
        esm = encode_proteins(SEQUENCES, "esm2_t12", esm_weights=path)
    np.testing.assert_array_equal(esm, esm2_embeddings(SEQUENCES, weights=path))
    assert "give 16 dimensions, not the 480 of esm2_t12_35M_UR50D" in caplog.text
    with pytest.raises(ValueError, match="protein representation must be one of"):
        encode_proteins(SEQUENCES, "esm2")


def _run_feature_script(tmp_path, proteins: pd.DataFrame, options: dict) -> dict:
    """scripts/mol_features.py as its rule runs it (a snakemake object of inputs, params, log, output)."""
    pd.DataFrame({"id": ["m0", "m1"], "smiles": ["CCO", "c1ccccc1O"]}).to_csv(tmp_path / "molecules.csv", index=False)
    proteins.to_csv(tmp_path / "proteins.csv", index=False)
    out = tmp_path / "features.npz"
    snakemake = SimpleNamespace(
        input=SimpleNamespace(molecules=str(tmp_path / "molecules.csv"), proteins=str(tmp_path / "proteins.csv")),
        params=SimpleNamespace(n_bits=64, proteins=options),
        log=[str(tmp_path / "features.log")],
        output=[str(out)],
    )
    stderr, handlers = sys.stderr, logging.getLogger().handlers[:]
    try:  # the script's log set-up takes over stderr and the root logger: give them back
        runpy.run_path(str(REPO / "scripts" / "mol_features.py"), init_globals={"snakemake": snakemake})
    finally:
        sys.stderr = stderr
        logging.getLogger().handlers[:] = handlers
    with np.load(out, allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}


def test_the_feature_script_records_the_representation_it_used(tiny, tmp_path):
    _, _, path = tiny
    proteins = pd.DataFrame({"id": ["p0", "p1"], "sequence": SEQUENCES[:2]})
    esm = _run_feature_script(tmp_path, proteins, {"representation": "esm2_t12", "esm_weights": str(path)})
    assert str(esm["protein_representation"]) == "esm2_t12" and esm["molecule_bits"].shape == (2, 64)
    np.testing.assert_array_equal(esm["protein_features"], esm2_embeddings(SEQUENCES[:2], weights=path))
    composition = _run_feature_script(tmp_path, proteins, {"representation": "composition", "esm_weights": None})
    assert str(composition["protein_representation"]) == "composition"
    assert composition["protein_features"].shape == (2, 420)
    one_d = _run_feature_script(tmp_path, pd.DataFrame(columns=["id", "sequence"]), {})
    assert str(one_d["protein_representation"]) == "" and one_d["protein_features"].shape == (0, 0)
