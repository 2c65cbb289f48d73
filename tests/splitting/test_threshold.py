"""Hard max-similarity threshold (threshold.py) against brute force on tiny random similarity matrices."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from benchdesign.splitting.similarity import MatrixSimilarity
from benchdesign.splitting.tasks import EntitySet, SplitSpec, split_entities
from benchdesign.splitting.threshold import REASON_DROPPED, enforce_max_similarity, pairs_above


def _violations(sim: np.ndarray, folds: np.ndarray, t: float) -> int:
    """Brute force: assigned pairs in different folds with similarity above t."""
    n = folds.size
    return sum(1 for i in range(n) for j in range(i + 1, n)
               if folds[i] >= 0 and folds[j] >= 0 and folds[i] != folds[j] and sim[i, j] > t)


def _min_drops(sim: np.ndarray, folds: np.ndarray, t: float) -> int:
    """Brute force: the fewest samples whose removal leaves no violation."""
    n = folds.size
    for size in range(n + 1):
        for drop in itertools.combinations(range(n), size):
            f = folds.copy()
            f[list(drop)] = -1
            if _violations(sim, f, t) == 0:
                return size
    raise AssertionError("unreachable")


def test_pairs_above_matches_dense_scan(rand_sim):
    sim = rand_sim(23, np.random.default_rng(0))
    i, j, v = pairs_above(MatrixSimilarity(sim), 0.7, block_size=5)  # several tiles, diagonal tiles included
    expected = {(a, b) for a in range(23) for b in range(a + 1, 23) if sim[a, b] > 0.7}
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == expected
    np.testing.assert_allclose(v, sim[i, j], rtol=1e-6)


@pytest.mark.parametrize("seed", range(6))
def test_drop_is_a_minimum_cover_for_two_folds(rand_sim, seed):
    rng = np.random.default_rng(seed)
    sim = rand_sim(10, rng)
    folds = rng.integers(0, 2, 10)
    rep = enforce_max_similarity(MatrixSimilarity(sim), folds, 0.8, "drop")
    assert _violations(sim, rep.folds, 0.8) == 0
    assert rep.n_dropped == _min_drops(sim, folds, 0.8)
    assert rep.n_violations == _violations(sim, folds, 0.8)
    kept = rep.folds >= 0
    np.testing.assert_array_equal(rep.folds[kept], folds[kept])  # survivors keep their folds
    for e in rep.events:  # every report names a real offending neighbour in another fold
        assert sim[e["index"], e["neighbour"]] > 0.8 and folds[e["neighbour"]] != e["from_fold"]


@pytest.mark.parametrize("seed", range(4))
def test_drop_with_three_folds_and_move(rand_sim, seed):
    rng = np.random.default_rng(10 + seed)
    sim = rand_sim(12, rng)
    folds = rng.integers(0, 3, 12)
    folds[0] = -1  # already unassigned: ignored, never moved
    drop = enforce_max_similarity(MatrixSimilarity(sim), folds, 0.85, "drop")
    assert _violations(sim, drop.folds, 0.85) == 0
    assert drop.n_dropped >= _min_drops(sim, folds, 0.85)
    move = enforce_max_similarity(MatrixSimilarity(sim), folds, 0.85, "move")
    assert move.n_dropped == 0 and _violations(sim, move.folds, 0.85) == 0
    assert move.folds[0] == -1 and (move.folds[1:] >= 0).all()
    assert move.n_moved == int((move.folds != folds).sum())


def test_threshold_validation(rand_sim):
    src = MatrixSimilarity(rand_sim(4, np.random.default_rng(0)))
    with pytest.raises(ValueError, match="max_similarity must lie in"):
        enforce_max_similarity(src, np.zeros(4, int), 1.5)
    with pytest.raises(ValueError, match="threshold action"):
        enforce_max_similarity(src, np.zeros(4, int), 0.5, "shuffle")


def test_split_entities_reports_each_dropped_sample(rand_sim):
    rng = np.random.default_rng(3)
    sim = rand_sim(30, rng) * 0.6
    for a, b in ((0, 1), (2, 3), (4, 5), (6, 7)):  # pairs above t = 0.9 that the random split may cut
        sim[a, b] = sim[b, a] = 0.95
    np.fill_diagonal(sim, 1.0)
    ids = np.array([f"e{i}" for i in range(30)], dtype=object)
    ent = EntitySet(ids, np.ones(30, bool), MatrixSimilarity(sim))
    spec = SplitSpec(clusters=30, max_similarity=0.9, epsilon=0.3, refine=False, certificate_seeds=2, seed=1)
    res = split_entities("R", ent, spec)
    part = res.report["max_similarity"]
    assert part["n_dropped"] == int((res.fold < 0).sum()) == len(part["samples"]) == 1  # seed 1 cuts e4-e5
    assert _violations(sim, res.fold, 0.9) == 0
    for s in part["samples"]:
        row = int(s["id"][1:])
        assert res.reason[row] == REASON_DROPPED and "> 0.9" in s["reason"]


def test_threshold_is_refused_for_interactions(rand_sim):
    from benchdesign.splitting.tasks import split_interactions

    sim = MatrixSimilarity(rand_sim(2, np.random.default_rng(0)))
    ent = EntitySet(np.array(["a", "b"], dtype=object), np.ones(2, bool), sim)
    with pytest.raises(ValueError, match="1-D splits only"):
        split_interactions("R", np.array([0, 1]), np.array([0, 1]), ent, ent, SplitSpec(max_similarity=0.5))
