"""Similarity sources agree with RDKit / textbook definitions and stay in [0, 1]."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator

from benchdesign.splitting.similarity import (
    FingerprintSimilarity,
    KmerSimilarity,
    MatrixSimilarity,
    VectorSimilarity,
    dense_similarity,
    parse_smiles,
)

SMILES = ["CCO", "CCCO", "c1ccccc1", "Oc1ccccc1", "CC(=O)O", "C1CCCCC1", "CCN(CC)CC"]


def test_tanimoto_blocks_equal_rdkit_bulk():
    src = FingerprintSimilarity.from_smiles(SMILES)
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)
    fps = [gen.GetFingerprint(Chem.MolFromSmiles(s)) for s in SMILES]
    full = dense_similarity(src)
    for i, fp in enumerate(fps):
        expected = np.array(DataStructs.BulkTanimotoSimilarity(fp, fps))
        np.testing.assert_allclose(full[i], expected, atol=1e-6)
        np.testing.assert_allclose(src.one_vs_all(i), expected, atol=1e-6)
    np.testing.assert_allclose(src.block(np.array([3, 0]), np.array([5])), full[[3, 0]][:, [5]], atol=1e-7)
    np.testing.assert_array_equal(src.self_similarity(), np.ones(len(SMILES)))


def test_parse_smiles_flags_invalid_and_empty():
    mols, valid = parse_smiles(["CCO", "C1CC", None, "", float("nan"), "c1ccccc1"])
    assert valid.tolist() == [True, False, False, False, False, True]
    assert mols[1] is None and mols[0] is not None
    with pytest.raises(ValueError, match="1: 'C1CC'"):
        FingerprintSimilarity.from_smiles(["CCO", "C1CC"])


def test_subset_keeps_similarities():
    src = FingerprintSimilarity.from_smiles(SMILES)
    idx = np.array([4, 1, 6])
    np.testing.assert_allclose(dense_similarity(src.subset(idx)), dense_similarity(src)[np.ix_(idx, idx)])


def test_kmer_similarity_is_cosine_of_counts():
    seqs = ["MKTAYIAK", "MKTAYIAR", "GGGGGG", "mktayiak", "AC"]
    src = KmerSimilarity.from_sequences(seqs, k=3)
    vocab = sorted({s.upper()[i:i + 3] for s in seqs for i in range(max(len(s) - 2, 1))} | {"AC"})
    counts = np.zeros((len(seqs), len(vocab)))
    for r, s in enumerate(seqs):
        kms = [s.upper()[i:i + 3] for i in range(len(s) - 2)] or [s.upper()]
        for km in kms:
            counts[r, vocab.index(km)] += 1
    unit = counts / np.linalg.norm(counts, axis=1, keepdims=True)
    np.testing.assert_allclose(dense_similarity(src), unit @ unit.T, atol=1e-6)
    assert dense_similarity(src)[0, 3] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="empty or missing"):
        KmerSimilarity.from_sequences(["MKT", ""])


def test_vector_similarities_scaled_to_unit_interval():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(9, 4))
    cos = dense_similarity(VectorSimilarity(x, "cosine"))
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    np.testing.assert_allclose(cos, (1 + unit @ unit.T) / 2, atol=1e-6)
    eu = VectorSimilarity(x, "euclidean", block_size=4)
    d = np.linalg.norm(x[:, None] - x[None], axis=2)
    np.testing.assert_allclose(dense_similarity(eu), 1 - d / d.max(), atol=1e-6)
    assert eu.is_distance and not VectorSimilarity(x).is_distance
    # subsetting keeps the global distance scale
    np.testing.assert_allclose(dense_similarity(eu.subset(np.array([0, 2]))), (1 - d / d.max())[np.ix_([0, 2], [0, 2])],
                               atol=1e-6)
    with pytest.raises(ValueError, match="NaN"):
        VectorSimilarity(np.array([[1.0, np.nan]]))


def test_matrix_similarity_dense_sparse_and_distance():
    rng = np.random.default_rng(2)
    a = rng.random((6, 6))
    s = (a + a.T) / 2
    np.fill_diagonal(s, 1)
    np.testing.assert_allclose(dense_similarity(MatrixSimilarity(s)), s, atol=1e-6)
    np.testing.assert_allclose(dense_similarity(MatrixSimilarity(sp.csr_matrix(s))), s, atol=1e-6)
    d = 4 * (1 - s)
    np.testing.assert_allclose(dense_similarity(MatrixSimilarity(d, "distance")), 1 - d / d.max(), atol=1e-6)
    sparse_d = sp.csr_matrix(np.where(d > 2, 0, d))
    sim = dense_similarity(MatrixSimilarity(sparse_d, "distance"))
    assert np.all(np.diag(sim) == 1)
    with pytest.raises(ValueError, match="symmetric"):
        MatrixSimilarity(a)
    with pytest.raises(ValueError, match="square"):
        MatrixSimilarity(np.ones((2, 3)))
    with pytest.raises(ValueError, match=">= 0"):
        MatrixSimilarity(-d, "distance")
