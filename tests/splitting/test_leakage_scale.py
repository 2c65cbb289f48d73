"""Leakage at scale: tiled exact sums (shards reduce to the single-process value), the sampled estimator
(unbiased, covering intervals) and bit-packed Tanimoto (equal to RDKit)."""

from __future__ import annotations

import numpy as np
import pytest
from rdkit import DataStructs
from rdkit.Chem import rdFingerprintGenerator

from benchdesign.splitting.leakage import (
    TilePlan,
    leakage_shard,
    leakage_summary,
    reduce_leakage_shards,
    sampled_leakage,
)
from benchdesign.splitting.similarity import (
    FingerprintSimilarity,
    MatrixSimilarity,
    pack_bits,
    packed_fingerprints,
    packed_tanimoto,
    parse_smiles,
)

SMILES = ["CCO", "CCN", "c1ccccc1", "c1ccccc1O", "CC(=O)O", "CCCCCC", "C1CCCCC1", "c1ccncc1", "CC(C)O",
          "OCC(O)CO", "CC(=O)Nc1ccc(O)cc1", "CN1CCC[C@H]1c1cccnc1", "O=C(O)c1ccccc1O", "C", "[Na+].[Cl-]"]


def random_fingerprints(n: int, seed: int) -> FingerprintSimilarity:
    rng = np.random.default_rng(seed)
    centres = rng.random((5, 256)) < 0.08
    bits = centres[rng.integers(5, size=n)] ^ (rng.random((n, 256)) < 0.02)
    return FingerprintSimilarity(bits.astype(np.uint8))


def test_packed_tanimoto_equals_rdkit_bulk_tanimoto():
    mols, valid = parse_smiles(SMILES)
    assert valid.all()
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)
    rd = [gen.GetFingerprint(m) for m in mols]
    packed, ok = packed_fingerprints(SMILES, n_jobs=1)
    assert ok.all() and packed.shape == (len(SMILES), 128)
    got = packed_tanimoto(packed, packed)
    src = FingerprintSimilarity.from_packed(packed, 1024)
    for i, fp in enumerate(rd):
        expected = np.array(DataStructs.BulkTanimotoSimilarity(fp, rd))
        np.testing.assert_allclose(got[i], expected, rtol=0, atol=1e-7)
        np.testing.assert_allclose(src.one_vs_all(i), expected, atol=1e-7)
        np.testing.assert_allclose(src.pairs(np.full(len(rd), i), np.arange(len(rd))), expected, atol=1e-12)
    # the packed bits are RDKit's bits
    np.testing.assert_array_equal(np.unpackbits(packed, axis=1, count=1024), np.array([list(f) for f in rd]))


def test_parallel_fingerprints_equal_serial_and_mark_invalid():
    smiles = SMILES * 3 + ["not a smiles", "", None]
    serial, v1 = packed_fingerprints(smiles, n_jobs=1, chunk=7)
    parallel, v2 = packed_fingerprints(smiles, n_jobs=2, chunk=7)
    np.testing.assert_array_equal(serial, parallel)
    np.testing.assert_array_equal(v1, v2)
    assert v1.sum() == len(SMILES) * 3 and not v1[-3:].any()
    np.testing.assert_array_equal(pack_bits(np.unpackbits(serial, axis=1, count=1024)), serial)


def test_parallel_fingerprints_never_rerun_an_unguarded_main_script(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "unguarded.py"  # like a Snakemake script: top-level code, no __main__ guard
    script.write_text("from benchdesign.splitting.similarity import packed_fingerprints\n"
                      f"p, v = packed_fingerprints({SMILES!r} * 2, n_jobs=2, chunk=5)\n"
                      "print('ran', p.shape[0], int(v.sum()))\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split("\n").count(f"ran {2 * len(SMILES)} {2 * len(SMILES)}") == 1, proc.stdout


def test_tile_numbering_covers_the_upper_triangle_once():
    for n, bs in ((1, 4), (9, 4), (12, 4), (50, 7)):
        plan = TilePlan(np.arange(n), bs)
        got = [plan.tile(t) for t in range(plan.n_tiles)]
        nb = -(-n // bs)
        assert got == [(r, c) for r in range(nb) for c in range(r, nb)]
        shards = np.concatenate([plan.shard(s, 3) for s in range(3)])
        assert sorted(shards.tolist()) == list(range(plan.n_tiles))


def test_shards_reduce_to_the_single_process_value_exactly_and_resume(tmp_path):
    src = random_fingerprints(203, 0)
    rng = np.random.default_rng(1)
    folds = rng.choice(["train", "val", "test", "unassigned"], size=src.n, p=[0.6, 0.15, 0.15, 0.1])
    w = rng.integers(1, 4, size=src.n).astype(float)
    single = leakage_summary(src, [folds], weights=w, block_size=16)[0]
    brute = src.block(np.arange(src.n), np.arange(src.n)).astype(np.float64)
    ok = folds != "unassigned"
    ww = np.outer(w * ok, w * ok) * brute
    total = ww.sum()
    cross = ww[folds[:, None] != folds[None, :]].sum()
    assert single.total == pytest.approx(total, rel=1e-12)
    assert single.leakage == pytest.approx(cross / 2, rel=1e-12)
    paths = []
    for s in range(4):
        paths.append(tmp_path / f"shard{s}.npz")
        leakage_shard(src, [folds], s, 4, paths[-1], weights=w, block_size=16)
    reduced = reduce_leakage_shards(paths[::-1])[0]
    assert reduced == single  # bit for bit
    # resume: a stale checkpoint with some finished tiles is picked up, the result is unchanged
    plan = TilePlan.for_splits([np.where(ok, 0, -1)], 16)
    out = tmp_path / "again.npz"
    with np.load(paths[1]) as z:
        np.savez(f"{out}.part.npz", tiles=z["tiles"][:3], values=z["values"][:3])
    leakage_shard(src, [folds], 1, 4, out, weights=w, block_size=16)
    with np.load(out) as a, np.load(paths[1]) as b:
        np.testing.assert_array_equal(a["values"], b["values"])
    assert not (tmp_path / "again.npz.part.npz").exists() and plan.n_tiles > 4
    with pytest.raises(ValueError, match="cover each"):
        reduce_leakage_shards(paths[:3])
    other = tmp_path / "other.npz"
    leakage_shard(src, [np.roll(folds, 1)], 3, 4, other, weights=w, block_size=16)
    with pytest.raises(ValueError, match="different split"):
        reduce_leakage_shards([*paths[:3], other])


@pytest.mark.parametrize("weighted, design", [(False, "fold_pairs"), (True, "fold_pairs"), (True, "iid")])
def test_sampled_leakage_is_unbiased_and_its_intervals_cover(weighted, design):
    src = random_fingerprints(80, 2)
    rng = np.random.default_rng(3)
    folds = rng.choice([0, 1, 2], size=src.n, p=[0.7, 0.2, 0.1])
    w = rng.integers(1, 5, size=src.n).astype(float) if weighted else None
    exact = leakage_summary(src, [folds], weights=w)[0]
    est = [sampled_leakage(src, folds, 500, weights=w, seed=s, design=design) for s in range(200)]
    leaks = np.array([e.leakage for e in est])
    totals = np.array([e.total for e in est])
    # unbiased: the mean over seeds lies within 4 standard errors of the exact value
    assert abs(leaks.mean() - exact.leakage) < 4 * leaks.std() / np.sqrt(leaks.size)
    assert abs(totals.mean() - exact.total) < 4 * totals.std() / np.sqrt(totals.size)
    cover = np.mean([e.scaled_ci[0] <= exact.scaled <= e.scaled_ci[1] for e in est])
    cover_l = np.mean([e.leakage_ci[0] <= exact.leakage <= e.leakage_ci[1] for e in est])
    assert cover >= 0.9 and cover_l >= 0.9
    assert est[0].design == design and est[0].n_strata == (6 if design == "fold_pairs" else 1)


def brute_pair_sums(src, codes, w):
    """sum of w_x w_y sim(x, y) over ordered pairs x != y of assigned entities, per (fold(x), fold(y))."""
    s = src.block(np.arange(src.n), np.arange(src.n)).astype(np.float64) * np.outer(w, w)
    np.fill_diagonal(s, 0.0)
    k = codes.max() + 1
    return np.array([[s[np.ix_(codes == f, codes == g)].sum() for g in range(k)] for f in range(k)])


def test_fold_pair_strata_count_every_pair_once_and_combine_to_the_exact_leakage():
    from benchdesign.splitting.leakage import _combine_strata, _fold_pair_strata

    src = random_fingerprints(40, 8)
    rng = np.random.default_rng(9)
    codes = np.r_[rng.integers(3, size=src.n - 1), 3]  # fold 3 has one entity: no pairs inside it
    w = rng.integers(1, 4, size=src.n).astype(float)
    strata = _fold_pair_strata(codes, w)
    pairs = [(f, g) for f, g in zip(strata.first, strata.second)]
    assert pairs == [(f, g) for f in range(4) for g in range(f, 4) if (f, g) != (3, 3)]
    ones = np.ones((src.n, src.n)) - np.eye(src.n)
    for f, g, m, c in zip(strata.first, strata.second, strata.mass, strata.factor):  # masses by brute force
        assert m == pytest.approx((np.outer(w, w) * ones)[np.ix_(codes == f, codes == g)].sum(), rel=1e-12)
        assert c == (1.0 if f == g else 2.0)
    assert (strata.factor * strata.mass).sum() + (w * w).sum() == pytest.approx(w.sum() ** 2, rel=1e-12)
    # with the exact stratum means the combination is the exact leakage, with zero variance
    sums = brute_pair_sums(src, codes, w)
    mean = np.array([sums[f, g] for f, g in pairs]) / strata.mass
    diag = float((w * w * src.self_similarity()).sum())
    leak, leak_var, total, total_var, ratio, ratio_var = _combine_strata(strata, diag, mean, np.zeros(mean.size))
    exact = leakage_summary(src, [codes], weights=w)[0]
    assert (leak, total, ratio) == pytest.approx((exact.leakage, exact.total, exact.scaled), rel=1e-9)
    assert leak_var == total_var == ratio_var == 0.0


def test_sampled_leakage_is_deterministic_and_stratifying_narrows_the_interval():
    src = random_fingerprints(300, 10)
    folds = np.where(np.random.default_rng(11).permutation(src.n) < 240, "train", "test")
    a, b = (sampled_leakage(src, folds, 4000, seed=5) for _ in range(2))
    assert a == b and a != sampled_leakage(src, folds, 4000, seed=6)
    assert a.n_pilot == 400 and a.n_pairs == 4000 and a.n_strata == 3
    iid = [sampled_leakage(src, folds, 4000, seed=s, design="iid").scaled_se for s in range(5)]
    strat = [sampled_leakage(src, folds, 4000, seed=s).scaled_se for s in range(5)]
    assert np.mean(strat) < 0.9 * np.mean(iid)  # 0.83 here; ~0.3 on MUV and QM8


def test_sampled_leakage_of_a_matrix_and_bad_arguments():
    rng = np.random.default_rng(4)
    a = rng.random((30, 30))
    s = (a + a.T) / 2
    np.fill_diagonal(s, 1.0)
    folds = np.repeat([0, 1], 15)
    exact = leakage_summary(s, [folds])[0]
    est = sampled_leakage(MatrixSimilarity(s), folds, 200_000, seed=1)
    assert est.scaled_ci[0] <= exact.scaled <= est.scaled_ci[1]
    assert est.scaled == pytest.approx(exact.scaled, abs=0.01)
    with pytest.raises(ValueError, match="pairs"):
        sampled_leakage(s, folds, 1)
    with pytest.raises(ValueError, match="confidence"):
        sampled_leakage(s, folds, 10, confidence=1.0)
    with pytest.raises(ValueError, match="at least two"):
        sampled_leakage(s, np.r_[0, np.full(29, -1)], 10)
    with pytest.raises(ValueError, match=r">= 12 .*3 strata"):
        sampled_leakage(s, folds, 11)
    assert sampled_leakage(s, folds, 11, design="iid").n_strata == 1
    with pytest.raises(ValueError, match="positive weights"):
        sampled_leakage(s, folds, 100, weights=np.r_[1.0, np.zeros(29)])
    with pytest.raises(ValueError, match="design"):
        sampled_leakage(s, folds, 100, design="cluster")


def test_sampled_group_sums_are_unbiased_and_exact_with_a_full_sample():
    from benchdesign.splitting.clustering import group_similarity, sampled_group_similarity, stratified_sample

    src = random_fingerprints(150, 5)
    labels = np.random.default_rng(6).integers(6, size=src.n)
    exact = group_similarity(src, labels)
    full = sampled_group_similarity(src, labels, src.n, np.random.default_rng(0))
    np.testing.assert_allclose(full.cross, exact.cross, rtol=1e-9)
    np.testing.assert_allclose(full.within, exact.within, rtol=1e-9)
    assert full.sampled and full.self_sum == exact.self_sum
    idx = stratified_sample(labels, 48, np.random.default_rng(1))
    assert idx.size <= 48 and np.all(np.bincount(labels[idx], minlength=6) >= 2)
    runs = [sampled_group_similarity(src, labels, 48, np.random.default_rng(s)) for s in range(200)]
    cross = np.array([r.cross[0, 1] for r in runs])
    within = np.array([r.within[2] for r in runs])
    assert abs(cross.mean() - exact.cross[0, 1]) < 4 * cross.std() / np.sqrt(cross.size)
    assert abs(within.mean() - exact.within[2]) < 4 * within.std() / np.sqrt(within.size)
    np.testing.assert_allclose(runs[0].kappa, exact.kappa)


def test_sketched_leaders_assign_every_entity_to_its_most_similar_leader():
    from benchdesign.splitting.clustering import assign_to_leaders, leader_labels

    src = random_fingerprints(400, 7)
    a = leader_labels(src, 20, np.random.default_rng(3), sketch=100)
    np.testing.assert_array_equal(a, leader_labels(src, 20, np.random.default_rng(3), sketch=100))
    assert np.unique(a).size == a.max() + 1 <= 20
    leaders = np.random.default_rng(0).choice(src.n, 15, replace=False)
    sims = src.block(np.arange(src.n), leaders)
    got = assign_to_leaders(src, leaders, chunk=64)
    expected = np.argmax(sims, axis=1)
    expected[leaders] = np.arange(leaders.size)
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(ValueError, match="sketch"):
        leader_labels(src, 20, np.random.default_rng(0), sketch=10)


@pytest.mark.mirror
def test_sampled_intervals_cover_the_exact_leakage_of_qm8(mirror_csv):
    import pandas as pd

    smiles = pd.read_csv(mirror_csv("qm8.csv.gz"))["smiles"].tolist()[:4000]
    packed, _ = packed_fingerprints(smiles, n_jobs=1)
    src = FingerprintSimilarity.from_packed(packed, 1024)
    rng = np.random.default_rng(0)
    folds = np.where(rng.permutation(src.n) < 0.8 * src.n, "train", "test")
    exact = leakage_summary(src, [folds])[0]
    est = [sampled_leakage(src, folds, 20_000, seed=s) for s in range(200)]  # 0.955; iid pairs: 0.915
    assert np.mean([e.scaled_ci[0] <= exact.scaled <= e.scaled_ci[1] for e in est]) >= 0.93
    assert np.mean([e.leakage_ci[0] <= exact.leakage <= e.leakage_ci[1] for e in est]) >= 0.93
