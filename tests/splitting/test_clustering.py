"""Group aggregates equal naive sums; clustering returns K clusters with exact cardinalities."""

from __future__ import annotations

import numpy as np
import pytest

from benchdesign.splitting.clustering import (
    cluster_entities,
    coarsen,
    component_spectral_labels,
    group_similarity,
    leader_labels,
    linkage_similarity,
    spectral_labels,
)
from benchdesign.splitting.similarity import MatrixSimilarity, VectorSimilarity


def naive_groups(s, labels, w):
    m = labels.max() + 1
    cross = np.zeros((m, m))
    within = np.zeros(m)
    mx = np.full((m, m), -np.inf)
    mn = np.full((m, m), np.inf)
    n = len(labels)
    for i in range(n):
        for j in range(n):
            a, b = labels[i], labels[j]
            if i == j:
                continue
            if a != b:
                cross[a, b] += s[i, j] * w[i] * w[j]
                mx[a, b] = max(mx[a, b], s[i, j])
                mn[a, b] = min(mn[a, b], s[i, j])
            elif i < j:
                within[a] += s[i, j] * w[i] * w[j]
    return cross, within, mx, mn


@pytest.mark.parametrize("block", [2, 5, 100])
def test_group_similarity_equals_naive(block, rand_sim):
    rng = np.random.default_rng(block)
    n = 13
    s = rand_sim(n, rng).astype(np.float32).astype(float)
    labels = rng.integers(0, 4, n)
    labels[:4] = np.arange(4)
    w = rng.integers(1, 5, n).astype(float)
    g = group_similarity(MatrixSimilarity(s), labels, w, extremes=True, block_size=block)
    cross, within, mx, mn = naive_groups(s, labels, w)
    np.testing.assert_allclose(g.cross, cross, rtol=1e-5)
    np.testing.assert_allclose(g.within, within, rtol=1e-5)
    off = ~np.eye(4, dtype=bool)
    np.testing.assert_allclose(g.max_sim[off], mx[off], rtol=1e-6)
    np.testing.assert_allclose(g.min_sim[off], mn[off], rtol=1e-6)
    np.testing.assert_allclose(g.kappa, np.bincount(labels, weights=w))
    assert g.self_sum == pytest.approx(float((w * w).sum()))
    total = sum(s[i, j] * w[i] * w[j] for i in range(n) for j in range(i + 1, n))
    assert g.total == pytest.approx(total, rel=1e-5)


def test_coarsen_equals_direct_grouping(rand_sim):
    rng = np.random.default_rng(7)
    n = 15
    s = rand_sim(n, rng)
    src = MatrixSimilarity(s)
    fine = rng.integers(0, 6, n)
    fine[:6] = np.arange(6)
    parent = np.array([0, 1, 0, 2, 1, 2])
    direct = group_similarity(src, parent[fine], extremes=True)
    merged = coarsen(group_similarity(src, fine, extremes=True), parent)
    np.testing.assert_allclose(merged.cross, direct.cross, rtol=1e-5)
    np.testing.assert_allclose(merged.within, direct.within, rtol=1e-5)
    np.testing.assert_allclose(merged.kappa, direct.kappa)
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(merged.max_sim[off], direct.max_sim[off])
    np.testing.assert_allclose(merged.min_sim[off], direct.min_sim[off])


def test_linkages(rand_sim):
    rng = np.random.default_rng(8)
    s = rand_sim(8, rng).astype(np.float32).astype(float)
    labels = np.array([0, 0, 1, 1, 1, 2, 2, 0])
    g = group_similarity(MatrixSimilarity(s), labels, extremes=True)
    avg, single, complete = (linkage_similarity(g, k) for k in ("average", "single", "complete"))
    for a in range(3):
        for b in range(3):
            if a == b:
                continue
            block = s[np.ix_(labels == a, labels == b)]
            assert avg[a, b] == pytest.approx(block.mean(), rel=1e-5)
            assert single[a, b] == pytest.approx(block.max(), rel=1e-6)
            assert complete[a, b] == pytest.approx(block.min(), rel=1e-6)
    with pytest.raises(ValueError, match="linkage"):
        linkage_similarity(g, "ward")


def test_leader_labels_join_most_similar_leader():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3))
    src = VectorSimilarity(x)
    labels = leader_labels(src, 6, np.random.default_rng(1))
    assert labels.max() + 1 <= 6
    np.testing.assert_array_equal(labels, leader_labels(src, 6, np.random.default_rng(1)))
    assert leader_labels(src, 40, rng).tolist() == list(range(40))


@pytest.mark.parametrize("metric,linkage", [("cosine", "average"), ("euclidean", "average"),
                                            ("euclidean", "single"), ("cosine", "complete")])
def test_cluster_entities_shapes(metric, linkage):
    rng = np.random.default_rng(4)
    x = np.vstack([rng.normal(c, 0.2, size=(15, 2)) for c in (-3, 0, 3)])
    src = VectorSimilarity(x, metric)
    c = cluster_entities(src, 5, linkage=linkage, n_micro=20, seed=3)
    assert c.k == 5 and sorted(set(c.labels)) == list(range(5))
    np.testing.assert_allclose(c.clusters.kappa, np.bincount(c.labels))
    assert c.similarity.shape == (5, 5) and c.similarity.min() >= 0 and c.similarity.max() <= 1
    np.testing.assert_array_equal(c.labels, c.micro_to_cluster[c.micro_labels])
    again = cluster_entities(src, 5, linkage=linkage, n_micro=20, seed=3)
    np.testing.assert_array_equal(c.labels, again.labels)


def test_cluster_entities_rejects_k_above_n():
    src = VectorSimilarity(np.eye(4))
    with pytest.raises(ValueError, match="K=5"):
        cluster_entities(src, 5)


def test_identical_entities_share_a_micro_cluster_and_so_a_fold():
    from benchdesign.splitting.clustering import identical_groups
    from benchdesign.splitting.similarity import KmerSimilarity
    from benchdesign.splitting.tasks import EntitySet, SplitSpec, kfold_spec, split_entities

    rng = np.random.default_rng(0)
    alphabet = np.array(list("ACDEFGHIKLMNPQRSTVWY"))
    seqs = ["".join(rng.choice(alphabet, 900)) for _ in range(30)]
    seqs += [seqs[3], seqs[3], seqs[17]]  # identical copies: float32 cosines of their profiles are ~1 - 2e-5
    mutant = seqs[5][:400] + ("A" if seqs[5][400] != "A" else "C") + seqs[5][401:]
    seqs.append(mutant)  # one residue changed: a different entity
    src = KmerSimilarity.from_sequences(seqs)
    groups = identical_groups(src)
    assert groups[30] == groups[31] == groups[3] and groups[32] == groups[17]
    assert groups[33] != groups[5] and np.unique(groups).size == 31
    ent = EntitySet(np.array([str(i) for i in range(len(seqs))], dtype=object), np.ones(len(seqs), bool), src)
    folds = split_entities("S1", ent, kfold_spec(3, SplitSpec(clusters=6, epsilon=0.5, certificate_seeds=0))).fold
    assert folds[30] == folds[31] == folds[3] and folds[32] == folds[17]


def test_group_similarity_of_a_sparse_matrix_equals_the_tile_pass():
    """A sparse MatrixSimilarity takes L^T S L instead of tiles: the same aggregates as a dense source."""
    import scipy.sparse as sp

    from benchdesign.splitting.clustering import group_similarity
    from benchdesign.splitting.similarity import MatrixSimilarity

    rng = np.random.default_rng(0)
    a = sp.random(300, 300, density=0.05, random_state=1)
    a = ((a + a.T) / 2).tolil()
    a.setdiag(1.0)
    a = a.tocsr()
    labels, w = rng.integers(0, 20, 300), rng.random(300) + 0.5
    sparse = group_similarity(MatrixSimilarity(a), labels, w)
    dense = group_similarity(MatrixSimilarity(a.toarray()), labels, w)
    assert np.allclose(sparse.cross, dense.cross, atol=1e-5) and np.allclose(sparse.within, dense.within, atol=1e-5)
    assert np.allclose(sparse.kappa, dense.kappa)


def test_component_spectral_labels_on_a_connected_graph_are_the_papers():
    rng = np.random.default_rng(0)
    x = rng.random((30, 4))
    aff = np.exp(-((x[:, None] - x[None]) ** 2).sum(-1))
    np.testing.assert_array_equal(component_spectral_labels(aff, np.ones(30), 5, seed=2),
                                  spectral_labels(aff, 5, seed=2))


def test_component_spectral_labels_never_lump_unrelated_groups():
    """Two similar blocks of 6 groups and 40 isolated groups (a sparse protein identity graph): no cluster mixes a
    block with anything else, and the isolated groups are spread evenly over the remaining clusters; a cluster
    of several components has no similarity inside. scikit-learn's spectral clustering alone puts most of them
    in one cluster."""
    m = 52
    aff = np.eye(m)
    aff[:6, :6] = aff[6:12, 6:12] = 0.8
    np.fill_diagonal(aff, 1.0)
    kappa = np.ones(m)
    labels = component_spectral_labels(aff, kappa, 10, seed=0)
    assert set(np.unique(labels)) == set(range(10))
    for block in (np.arange(6), np.arange(6, 12)):
        inside = set(labels[block])
        assert not inside & set(np.delete(labels, block))  # the block's clusters hold nothing else
    rest = np.bincount(labels[12:])
    rest = rest[rest > 0]
    assert rest.max() - rest.min() <= 1 and rest.sum() == 40
    # brute force: the total similarity between groups of a cluster equals that within the two blocks
    same = labels[:, None] == labels[None, :]
    off = ~np.eye(m, dtype=bool)
    assert aff[same & off].sum() <= aff[:12, :12][off[:12, :12]].sum()
    assert np.bincount(spectral_labels(aff, 10, seed=0)).max() > 20  # what this replaces


@pytest.mark.parametrize("m, k", [(8, 3), (8, 8), (20, 4)])
def test_component_spectral_labels_count_and_cover(m, k):
    """Fewer components than clusters: every component gets at least one cluster; K labels, all used."""
    aff = np.kron(np.eye(m // 4), np.full((4, 4), 0.5))
    np.fill_diagonal(aff, 1.0)
    labels = component_spectral_labels(aff, np.arange(1, m + 1, dtype=float), k, seed=1)
    assert labels.shape == (m,) and labels.min() == 0 and labels.max() == min(k, m) - 1
    comp = np.arange(m) // 4
    for c in np.unique(labels):  # a cluster lies in one component, or all of its components are whole
        comps = np.unique(comp[labels == c])
        assert comps.size == 1 or all(set(labels[comp == d]) == {c} for d in comps)
