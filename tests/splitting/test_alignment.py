"""Alignment identity (parasail) against a hand-checked pair and a naive Smith-Waterman (Gotoh) DP."""

from __future__ import annotations

import numpy as np
import parasail
import pytest

from benchdesign.splitting.alignment import (
    GAP_EXTEND,
    GAP_OPEN,
    alignment_identity,
    alignment_similarity,
    all_vs_all_identity,
    candidate_pairs,
    identities,
)
from benchdesign.splitting.similarity import KmerSimilarity, dense_similarity

AMINO = "ACDEFGHIKLMNPQRSTVWY"


def blosum62(a: str, b: str) -> int:
    m = parasail.blosum62  # only the substitution table; the DP below is independent of parasail
    return int(np.asarray(m.matrix)[m.mapper[ord(a)], m.mapper[ord(b)]])


def naive_sw(a: str, b: str, gap_open: int = GAP_OPEN, gap_extend: int = GAP_EXTEND) -> tuple[int, int]:
    """Gotoh local alignment: best score and the identical residues of one optimal alignment.

    A gap of length L costs gap_open + (L - 1) * gap_extend (parasail's convention).
    """
    n, m = len(a), len(b)
    neg = -10**9
    h = np.zeros((n + 1, m + 1), dtype=np.int64)
    e = np.full((n + 1, m + 1), neg, dtype=np.int64)  # gap in a (move along b)
    f = np.full((n + 1, m + 1), neg, dtype=np.int64)  # gap in b (move along a)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            e[i, j] = max(h[i, j - 1] - gap_open, e[i, j - 1] - gap_extend)
            f[i, j] = max(h[i - 1, j] - gap_open, f[i - 1, j] - gap_extend)
            h[i, j] = max(0, h[i - 1, j - 1] + blosum62(a[i - 1], b[j - 1]), e[i, j], f[i, j])
    i, j = np.unravel_index(np.argmax(h), h.shape)
    best = int(h[i, j])
    matches, state = 0, "h"
    while i > 0 and j > 0:  # trace back one optimal path
        if state == "h":
            if h[i, j] == 0:
                break
            if h[i, j] == h[i - 1, j - 1] + blosum62(a[i - 1], b[j - 1]):
                matches += a[i - 1] == b[j - 1]
                i, j = i - 1, j - 1
            elif h[i, j] == e[i, j]:
                state = "e"
            else:
                state = "f"
        elif state == "e":
            state = "h" if e[i, j] == h[i, j - 1] - gap_open else "e"
            j -= 1
        else:
            state = "h" if f[i, j] == h[i - 1, j] - gap_open else "f"
            i -= 1
    return best, matches


def test_hand_checked_pair():
    # ACDEF G HIKL vs ACDEF W HIKL: 30 + (-2) + 21 = 49 beats either flank alone -> 9 identical of 10
    assert alignment_identity("ACDEFGHIKL", "ACDEFWHIKL") == pytest.approx(0.9)
    assert alignment_identity("acdefghikl", "ACDEFGHIKL") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="sequence 1 is empty"):
        alignment_identity("ACD", " ")


@pytest.mark.parametrize("seed", range(5))
def test_scores_and_identity_match_naive_dp(seed):
    rng = np.random.default_rng(seed)
    a = "".join(rng.choice(list(AMINO), 40))
    b = list(a)
    for pos in rng.choice(40, 6, replace=False):  # substitutions plus one deletion: a clear optimum
        b[pos] = rng.choice(list(AMINO))
    del b[20:22]
    b = "".join(b)
    score, matches = naive_sw(a, b)
    assert parasail.sw_stats_striped_16(a, b, GAP_OPEN, GAP_EXTEND, parasail.blosum62).score == score
    assert alignment_identity(a, b) == pytest.approx(matches / min(len(a), len(b)))
    rnd = "".join(rng.choice(list(AMINO), 30))  # unrelated pair: the score still equals the DP's
    assert parasail.sw_striped_16(a, rnd, GAP_OPEN, GAP_EXTEND, parasail.blosum62).score == naive_sw(a, rnd)[0]


def test_batched_identities_equal_pairwise():
    seqs = ["MKVLAAGICW", "MKVLGAGICW", "PPPPKVLAAG", "WWWWWW"]
    rows, cols = np.array([2, 0, 0, 1]), np.array([3, 1, 2, 3])
    got = identities(seqs, rows, cols)
    want = [alignment_identity(seqs[r], seqs[c]) for r, c in zip(rows, cols, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    full = all_vs_all_identity(seqs)
    assert full.shape == (4, 4) and np.allclose(np.diag(full), 1.0) and np.allclose(full, full.T)


def test_prefilter_keeps_all_pairs_above_min_kmer_and_neighbours():
    rng = np.random.default_rng(1)
    seqs = ["".join(rng.choice(list(AMINO), 30)) for _ in range(12)]
    seqs[5] = seqs[4][:25] + "AAAAA"
    kmer = KmerSimilarity.from_sequences(seqs)
    dense = dense_similarity(kmer)
    i, j = candidate_pairs(kmer, min_kmer=0.2, top=2, block_size=5)
    got = set(zip(i.tolist(), j.tolist(), strict=True))
    above = {(a, b) for a in range(12) for b in range(a + 1, 12) if dense[a, b] > 0.2}
    assert above <= got and all(a < b for a, b in got)
    for a in range(12):  # every sequence has at least its 2 nearest neighbours
        assert sum(1 for p in got if a in p) >= 2
    sim = alignment_similarity(seqs, min_kmer=0.2, top=2)
    m = sim.sparse.toarray()
    assert m[4, 5] == pytest.approx(alignment_identity(seqs[4], seqs[5]))
    assert np.count_nonzero(np.triu(m, 1)) <= len(got)
