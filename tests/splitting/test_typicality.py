"""Typicality layers of the leader groups (clustering.py) and the refinement's global reassignment (refine.py).

At 10^6 molecules an entity's share in L(pi) is decided by its mean similarity to all others (its typicality),
not by its few near neighbours; leader groups mix typical and atypical members, and single moves and swaps of
groups cannot exchange many groups at once. The planted instances below fail without either change.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from benchdesign.splitting import refine, tasks
from benchdesign.splitting.clustering import (
    MIN_LAYER_SIZE,
    cluster_entities,
    layer_count,
    leader_labels,
    typicality_layers,
)
from benchdesign.splitting.ilp import lower_bounds
from benchdesign.splitting.leakage import scaled_leakage
from benchdesign.splitting.refine import refine_assignment
from benchdesign.splitting.similarity import MatrixSimilarity
from benchdesign.splitting.tasks import EntitySet, SplitSpec, split_entities


def test_typicality_layers_by_hand():
    labels = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 2])
    typ = np.array([0.6, 0.1, 0.5, 0.2, 0.4, 0.3, 0.9, 0.7, 0.8, 0.5])
    # group 0: 6 members, 3 parts of 2 by typicality (0.1 0.2 | 0.3 0.4 | 0.5 0.6); group 1: 3 members, one part
    # (3 // 2 = 1); group 2: one member
    got = typicality_layers(labels, typ, layers=3, min_size=2)
    assert got.tolist() == [2, 0, 2, 0, 1, 1, 3, 3, 3, 4]
    assert typicality_layers(labels, typ, layers=1, min_size=2).tolist() == labels.tolist()
    # equal typicality (e.g. identical entities) is never cut: one part, the empty one skipped
    assert typicality_layers(np.zeros(4, dtype=int), np.zeros(4), layers=2, min_size=1).tolist() == [0, 0, 0, 0]
    assert typicality_layers(np.zeros(4, dtype=int), np.array([0.1, 0.2, 0.2, 0.2]), 2, 1).tolist() == [0, 0, 0, 0]
    assert typicality_layers(np.zeros(4, dtype=int), np.array([0.1, 0.1, 0.2, 0.2]), 2, 1).tolist() == [0, 0, 1, 1]
    with pytest.raises(ValueError):
        typicality_layers(labels, typ[:3], 2)


def test_identical_entities_share_a_layer():
    """Duplicated fingerprints have equal typicality; the layers never separate them (they share a fold)."""
    from benchdesign.splitting.similarity import FingerprintSimilarity

    rng = np.random.default_rng(4)
    bits = (rng.random((400, 256)) < 0.1).astype(np.uint8)
    bits = np.vstack([bits, bits[:150]])  # 150 duplicates
    src = FingerprintSimilarity(bits)
    for sketch in (None, 200):
        labels = leader_labels(src, 4, np.random.default_rng(0), sketch=sketch, layers=4)
        assert labels.max() + 1 > 4
        np.testing.assert_array_equal(labels[:150], labels[400:])


def test_layer_count_keeps_groups_large():
    assert layer_count(7_831, 1000) == 1  # Tox21: 1,000 leader groups, as before
    assert layer_count(1000 * MIN_LAYER_SIZE * 2, 1000) == 2
    assert layer_count(1_584_663, 1000) == 4
    assert layer_count(1_584_663, 1000, layers=1) == 1


def _planted(cross: float, same: float, n_types: int = 5, per_type: int = 400, seed: int = 0):
    """sim(x, y) = t_x t_y (cross + same [same chemotype]): chemotypes of mixed typicality t in [0.3, 1]."""
    rng = np.random.default_rng(seed)
    chem = np.repeat(np.arange(n_types), per_type)
    t = rng.uniform(0.3, 1.0, chem.size)
    sim = np.outer(t, t) * (cross + same * (chem[:, None] == chem[None, :]))
    np.fill_diagonal(sim, 1.0)
    return sim, chem, t


def test_leader_layers_separate_typicality_within_a_chemotype():
    sim, chem, t = _planted(0.1, 0.7)  # distinct chemotypes: every leader group is one chemotype
    src = MatrixSimilarity(sim)
    plain = leader_labels(src, 8, np.random.default_rng(0))
    layered = leader_labels(src, 8, np.random.default_rng(0), layers=4)
    counts = np.bincount(plain)
    assert layered.max() + 1 == np.clip(counts // MIN_LAYER_SIZE, 1, 4).sum() > plain.max() + 1
    # every layer lies inside one leader group, and its typicality range is narrower than its group's
    for g in np.unique(layered):
        assert np.unique(plain[layered == g]).size == 1
    def spread(labels):  # variance of t within the groups, over the entities
        means = np.bincount(labels, weights=t) / np.bincount(labels)
        return np.mean((t - means[labels]) ** 2)

    assert spread(layered) < 0.25 * spread(plain)


def test_layers_lower_the_leakage_of_a_planted_split(monkeypatch):
    """Same number of micro-clusters (20); with layers the split puts the atypical members in the test fold.

    The similarity between chemotypes is most of the mass (as at 10^6 molecules), so the leakage depends on the
    test fold's typicality more than on which chemotypes it holds."""
    sim, chem, t = _planted(0.3, 0.5)
    src = MatrixSimilarity(sim)
    ids = np.array([str(i) for i in range(sim.shape[0])], dtype=object)
    ent = EntitySet(ids, np.ones(ids.size, dtype=bool), src)
    out = {}
    for layers in (1, 4):
        clu = cluster_entities(src, 10, n_micro=20, seed=0, layers=layers)
        assert clu.micro.m <= 20
        monkeypatch.setattr(tasks, "cluster_entities", partial(cluster_entities, layers=layers))
        spec = SplitSpec(fractions=(0.8, 0.2), clusters=10, micro_clusters=20, certificate_seeds=0)
        res = split_entities("S1", ent, spec)
        out[layers] = scaled_leakage(sim, res.fold)
        test = res.fold == 1
        out[f"t{layers}"] = t[test].mean() / t[~test].mean()
    assert out[4] < 0.95 * out[1]
    assert out["t4"] < out["t1"]


def _blocked_swaps_instance():
    """One group of 25 typical entities (t = 1) is the test fold; 25 single atypical entities (t = 0.2) and three
    more groups of 25 typical ones are in train (n = 125, test target 25).

    Moving the big group out or a single in leaves the size band or costs leakage, and swapping the big group
    with a single leaves the band: moves and swaps are stuck, but 24 singles together can take its place.
    """
    kappa = np.r_[25.0, np.ones(25), np.full(3, 25.0)]
    t = np.r_[1.0, np.full(25, 0.2), np.full(3, 1.0)]
    w = np.outer(t * kappa, t * kappa) * 0.1
    np.fill_diagonal(w, 0.0)
    folds = np.r_[1, np.zeros(25, dtype=int), np.zeros(3, dtype=int)]
    return w, kappa, folds


def _leak(w, folds):
    return float(np.triu(w * (folds[:, None] != folds[None, :]), 1).sum())


def test_reassignment_escapes_where_moves_and_swaps_are_stuck(monkeypatch):
    w, kappa, folds = _blocked_swaps_instance()
    s = np.array([0.8, 0.2])
    start = _leak(w, folds)
    monkeypatch.setattr(refine, "REASSIGN_ROUNDS", 0)
    stuck = refine_assignment(w, kappa, folds, s, 0.1, 0.1, fraction_tolerance=0.01)
    monkeypatch.undo()
    got = refine_assignment(w, kappa, folds, s, 0.1, 0.1, fraction_tolerance=0.01)
    assert _leak(w, stuck) == pytest.approx(start)
    assert _leak(w, got) < 0.5 * start
    test = set(np.flatnonzero(got == 1).tolist())
    assert test <= set(range(1, 26)) and len(test) >= 24  # the atypical singles form the test fold
    n = kappa.sum()
    sizes = np.bincount(got, weights=kappa, minlength=2)
    assert np.all(sizes >= lower_bounds(n, s, 0.1))


def test_reassignment_keeps_class_bounds():
    """With class counts the reassigned folds keep every class bound (eq. 15, two-sided)."""
    rng = np.random.default_rng(3)
    m = 60
    kappa = rng.integers(1, 5, m).astype(float)
    t = rng.uniform(0.2, 1.0, m)
    w = np.outer(t * kappa, t * kappa) * 0.1
    np.fill_diagonal(w, 0.0)
    classes = np.stack([kappa * (rng.random(m) < 0.3), kappa], axis=1)
    s = np.array([0.8, 0.2])
    folds = np.zeros(m, dtype=int)
    order = rng.permutation(m)
    folds[order[np.cumsum(kappa[order]) <= 0.2 * kappa.sum()]] = 1
    from benchdesign.splitting.ilp import class_bounds
    lo, hi = class_bounds(classes.sum(axis=0), s, 0.1)
    got = refine_assignment(w, kappa, folds, s, 0.1, 0.1, classes=classes)
    onehot = np.eye(2)[got]
    counts = classes.T @ onehot
    start_ok = np.all((classes.T @ np.eye(2)[folds] >= lo) & (classes.T @ np.eye(2)[folds] <= hi))
    if start_ok:
        assert np.all(counts >= lo) and np.all(counts <= hi)
    assert _leak(w, got) <= _leak(w, folds) + 1e-9


@pytest.mark.parametrize("sketch", [None, 60])
def test_typicality_is_the_mean_similarity_to_the_leaders(sketch):
    """Both leader paths (seeding on all entities, and on a sketch then assigning all) cut the layers by each
    entity's mean similarity to the leaders, checked by brute force over the matrix."""
    from benchdesign.splitting import clustering

    rng = np.random.default_rng(4)
    x = rng.random((120, 3))
    sim = np.exp(-3 * ((x[:, None] - x[None]) ** 2).sum(-1))
    source = MatrixSimilarity(sim)
    seen = {}

    def record(labels, typicality, layers, min_size=MIN_LAYER_SIZE):
        seen["typicality"] = typicality
        return typicality_layers(labels, typicality, layers, min_size)

    leaders_seen = {}
    original = clustering._seed_leaders

    def seed(src, n_leaders, r):
        out = original(src, n_leaders, r)
        leaders_seen["leaders"] = out[0]
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(clustering, "typicality_layers", record)
        mp.setattr(clustering, "_seed_leaders", seed)
        leader_labels(source, 20, np.random.default_rng(0), sketch=sketch, layers=2)
    leaders = np.asarray(leaders_seen["leaders"])
    if sketch is not None:  # the sketch's leaders are positions in the sample drawn first by the same generator
        sample = np.sort(np.random.default_rng(0).choice(120, size=sketch, replace=False))
        leaders = sample[leaders]
    np.testing.assert_allclose(seen["typicality"], sim[:, leaders].mean(axis=1), rtol=1e-5)
