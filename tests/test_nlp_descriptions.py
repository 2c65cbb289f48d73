"""MTEB task descriptions: the committed YAML, the template, and both encoders."""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from benchdesign.domains.nlp.descriptions import (
    FIELDS,
    description_texts,
    encode_descriptions,
    load_descriptions,
    render_description,
    tfidf_svd_embeddings,
    transformer_embeddings,
)

REPO = Path(__file__).resolve().parents[1]
YAML_PATH = REPO / "src" / "benchdesign" / "data" / "nlp_task_descriptions.yaml"
FAMILY_OF_TYPE = {
    "Classification": "classification",
    "Clustering": "clustering",
    "PairClassification": "pair classification",
    "Reranking": "reranking",
    "Retrieval": "retrieval",
    "STS": "semantic textual similarity",
    "Summarization": "summarization evaluation",
}


def test_committed_descriptions_are_complete():
    d = load_descriptions(YAML_PATH)
    assert len(d) == 56
    assert all(set(fields) == set(FIELDS) for fields in d.values())
    families = pd.Series({t: f["task_family"] for t, f in d.items()}).value_counts()
    assert families.to_dict() == {"retrieval": 15, "classification": 12, "clustering": 11,
                                  "semantic textual similarity": 10, "reranking": 4,
                                  "pair classification": 3, "summarization evaluation": 1}
    texts = description_texts(YAML_PATH)
    assert texts.str.len().max() < 1000  # well inside 256 word pieces
    assert texts.is_unique


@pytest.mark.mirror
def test_descriptions_align_with_mteb_tables(mirror_dir):
    table = pd.read_csv(mirror_dir / "nlp" / "mteb_table11_en_56tasks_x_31models.csv")
    meta = pd.read_csv(mirror_dir / "nlp" / "mteb_table2_task_metadata_aligned_56.csv")
    d = load_descriptions(YAML_PATH)
    assert list(d) == table.iloc[:, 0].tolist()
    for row in meta.itertuples():
        assert d[row.name]["task_family"] == FAMILY_OF_TYPE[row.type], row.name
        if row.n_langs > 1:
            assert "subset" in d[row.name]["language_setup"] or "track" in d[row.name]["language_setup"]
        else:
            assert d[row.name]["language_setup"] == "English only", row.name


def test_template_is_fixed_and_ordered():
    fields = {f: f"value of {f}." for f in FIELDS}
    text = render_description(fields)
    assert text.startswith("Task family: value of task_family. Input format: value of input_format.")
    assert text.endswith("Special properties: value of special_properties.")
    labels = re.findall(r"([A-Z][a-z/ ]+):", text)
    assert labels == ["Task family", "Input format", "Objective", "Text granularity", "Language setup",
                      "Domain", "Label/relevance structure", "Special properties"]


def test_load_descriptions_validates(tmp_path):
    good = {f: "x" for f in FIELDS}
    cases = [({"tasks": {"T": {k: v for k, v in good.items() if k != "domain"}}}, "missing field"),
             ({"tasks": {"T": {**good, "colour": "red"}}}, "unknown field"),
             ({"tasks": {"T": {**good, "domain": "  "}}}, "empty"),
             ({"tasks": {}}, "non-empty")]
    for doc, message in cases:
        path = tmp_path / "d.yaml"
        path.write_text(yaml.safe_dump(doc))
        with pytest.raises(ValueError, match=message):
            load_descriptions(path)
    with pytest.raises(ValueError, match="no description"):
        description_texts(YAML_PATH, tasks=["NotATask"])


def test_tfidf_svd_embeddings_are_seeded_and_normalised():
    texts = description_texts(YAML_PATH)
    E = tfidf_svd_embeddings(texts, n_components=16, seed=3)
    assert E.shape == (56, 16) and list(E.index) == list(texts.index)
    np.testing.assert_allclose(np.linalg.norm(E.to_numpy(), axis=1), 1.0)
    pd.testing.assert_frame_equal(E, tfidf_svd_embeddings(texts, n_components=16, seed=3))
    # sibling tasks are nearest neighbours
    S = E.to_numpy() @ E.to_numpy().T
    np.fill_diagonal(S, -np.inf)
    nearest = dict(zip(E.index, E.index[S.argmax(axis=1)]))
    assert nearest["MassiveIntentClassification"] == "MassiveScenarioClassification"
    assert nearest["BiorxivClusteringS2S"] in {"BiorxivClusteringP2P", "MedrxivClusteringS2S"}
    small = tfidf_svd_embeddings(texts.iloc[:4], n_components=32)
    assert small.shape == (4, 3)  # capped at n_texts - 1
    with pytest.raises(ValueError, match="at least 2"):
        tfidf_svd_embeddings(texts.iloc[:1])


# ------------------------------------------------------------------------ transformer path

HAS_TORCH = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers"))


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A randomly initialised 2-layer BERT with a word-level vocabulary, saved as a local model."""
    if not HAS_TORCH:
        pytest.skip("torch and transformers are not installed (optional extra 'nlp-encoder')")
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    path = tmp_path_factory.mktemp("tiny_bert")
    words = sorted({w for t in description_texts(YAML_PATH) for w in re.findall(r"[a-z]+", t.lower())})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", ":", "/", "(", ")"] + words
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=True)
    tokenizer.save_pretrained(path)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=24, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=48, max_position_embeddings=300)
    BertModel(config).eval().save_pretrained(path)
    return path


def test_transformer_embeddings_mean_pool_non_padding_tokens(tiny_bert):
    import torch
    from transformers import AutoModel, AutoTokenizer

    texts = description_texts(YAML_PATH).iloc[:5]
    short = pd.Series(["retrieval of passages", "clustering titles"], index=["A", "B"])
    E = transformer_embeddings(pd.concat([texts, short]), model=str(tiny_bert), max_length=256,
                               batch_size=7)
    assert E.shape == (7, 24)
    np.testing.assert_allclose(np.linalg.norm(E.to_numpy(), axis=1), 1.0, rtol=1e-6)
    # batching (hence padding) does not change the result
    one_by_one = transformer_embeddings(pd.concat([texts, short]), model=str(tiny_bert), batch_size=1)
    np.testing.assert_allclose(E.to_numpy(), one_by_one.to_numpy(), atol=1e-5)
    # the pooled vector is the plain mean of the final-layer token states (no padding)
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert)
    model = AutoModel.from_pretrained(tiny_bert).eval()
    with torch.no_grad():
        enc = tokenizer(["clustering titles"], return_tensors="pt")
        manual = model(**enc).last_hidden_state[0].mean(dim=0).numpy()
    manual /= np.linalg.norm(manual)
    np.testing.assert_allclose(E.loc["B"].to_numpy(), manual, atol=1e-5)


def test_transformer_truncates_at_max_length(tiny_bert):
    long = pd.Series([" ".join(["retrieval"] * 400), " ".join(["retrieval"] * 500)], index=["a", "b"])
    E = transformer_embeddings(long, model=str(tiny_bert), max_length=32)
    np.testing.assert_allclose(E.loc["a"], E.loc["b"], atol=1e-6)  # identical first 32 tokens
    via = encode_descriptions(long, str(tiny_bert), max_length=32)
    pd.testing.assert_frame_equal(E, via)


# ---------------------------------------------------------------------------- workflow rule

@pytest.mark.workflow
def test_nlp_description_rule(tmp_path):
    (tmp_path / "Snakefile").write_text(
        'configfile: "config.yaml"\n'
        f'include: "{REPO / "workflow" / "rules" / "nlp_features.smk"}"\n'
        "rule all:\n    input: 'results/features/nlp/description.csv'\n")
    (tmp_path / "config.yaml").write_text("seed: 4\nfeatures:\n  nlp:\n    svd_components: 8\n")
    command = [sys.executable, "-m", "snakemake", "--cores", "1", "--directory", str(tmp_path),
               "--snakefile", str(tmp_path / "Snakefile")]
    run = subprocess.run(command + ["--quiet"], capture_output=True, text=True, env=dict(os.environ),
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    again = subprocess.run(command + ["--dry-run"], capture_output=True, text=True, timeout=300)
    assert "Nothing to be done" in again.stdout + again.stderr
    E = pd.read_csv(tmp_path / "results" / "features" / "nlp" / "description.csv", index_col=0)
    assert E.shape == (56, 8) and E.index.name == "dataset"
    expected = tfidf_svd_embeddings(description_texts(YAML_PATH), n_components=8, seed=4)
    np.testing.assert_allclose(E.to_numpy(), expected.to_numpy(), atol=1e-9)
