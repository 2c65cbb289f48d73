"""Leakage functions equal naive double loops (eqs. 1, 2 and 20), tiled or sparse."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from benchdesign.splitting.leakage import (
    encode_folds,
    leakage,
    leakage_summary,
    max_train_similarity,
    scaled_leakage,
)
from benchdesign.splitting.similarity import FingerprintSimilarity, MatrixSimilarity, dense_similarity


def naive_leakage(s, folds, w):
    n = len(folds)
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            if folds[i] is not None and folds[j] is not None and folds[i] != folds[j]:
                total += s[i, j] * w[i] * w[j]
    return total


def naive_scaled(s, folds, w):
    n = len(folds)
    num = den = 0.0
    for i in range(n):
        for j in range(n):
            if folds[i] is None or folds[j] is None:
                continue
            den += s[i, j] * w[i] * w[j]
            if folds[i] != folds[j]:
                num += s[i, j] * w[i] * w[j]
    return num / den


@pytest.mark.parametrize("block", [2, 3, 64])
def test_leakage_equals_double_loop(block, rand_sim):
    rng = np.random.default_rng(block)
    n = 11
    s = rand_sim(n, rng)
    folds = [str(x) for x in rng.choice(["train", "val", "test"], n)]
    folds[4] = None  # unassigned entity, left out
    w = rng.integers(1, 4, n).astype(float)
    src = MatrixSimilarity(s)
    assert leakage(src, folds, w, block_size=block) == pytest.approx(naive_leakage(s, folds, w))
    assert scaled_leakage(src, folds, w, block_size=block) == pytest.approx(naive_scaled(s, folds, w))
    # the same through a scipy-sparse matrix
    assert leakage(sp.csr_matrix(s), folds, w) == pytest.approx(naive_leakage(s, folds, w))
    assert scaled_leakage(sp.csr_matrix(s), folds, w) == pytest.approx(naive_scaled(s, folds, w))


def test_leakage_summary_several_splits_one_pass(rand_sim):
    rng = np.random.default_rng(5)
    s = rand_sim(9, rng)
    splits = [rng.integers(0, 2, 9), rng.integers(0, 3, 9), np.zeros(9, dtype=int)]
    out = leakage_summary(s, splits, block_size=4)
    for summary, folds in zip(out, splits, strict=True):
        assert summary.leakage == pytest.approx(naive_leakage(s, list(folds), np.ones(9)))
        assert summary.n_assigned == 9
    assert out[2].leakage == 0 and out[2].scaled == 0


def test_leakage_on_fingerprints_matches_dense_loop():
    smiles = ["CCO", "CCCO", "c1ccccc1", "Oc1ccccc1", "CC(=O)O", "C1CCCCC1", "CCN(CC)CC", "CCCCO"]
    src = FingerprintSimilarity.from_smiles(smiles)
    folds = [0, 0, 1, 1, 0, 2, 2, 0]
    s = dense_similarity(src)
    assert leakage(src, folds, block_size=3) == pytest.approx(naive_leakage(s, folds, np.ones(8)), rel=1e-6)


def test_max_train_similarity_equals_loop(rand_sim):
    rng = np.random.default_rng(3)
    n = 12
    s = rand_sim(n, rng)
    folds = rng.choice(["train", "val", "test"], n).tolist()
    folds[0], folds[1], folds[2] = "train", "val", "test"
    got = max_train_similarity(s, folds, "test", ["train", "val"], block_size=2)
    test = [i for i in range(n) if folds[i] == "test"]
    train = [j for j in range(n) if folds[j] in ("train", "val")]
    expected = [max(s[i, j] for j in train) for i in test]
    np.testing.assert_allclose(got, expected)
    np.testing.assert_allclose(max_train_similarity(sp.csr_matrix(s), folds, "test", ["train", "val"]), expected)
    with pytest.raises(ValueError, match="test fold"):
        max_train_similarity(s, folds, "nope", "train")


def test_encode_folds_recognises_unassigned():
    codes, names = encode_folds(["a", "unassigned", None, "b", "a", float("nan"), "not assigned"])
    assert codes.tolist() == [0, -1, -1, 1, 0, -1, -1]
    assert names == ["a", "b"]
    codes, _ = encode_folds(np.array([1, -1, 0]))
    assert codes.tolist() == [0, -1, 1]
