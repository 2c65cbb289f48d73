"""SMILES vs protein sequences (kind="auto"), the alignment default for sequences, and the similarity record
of every report (CLI split / leakage, cross-validators, 1-D and 2-D)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.base import clone

from benchdesign.cli import build_parser, main
from benchdesign.splitting import LeakageKFold, LeakageSplit
from benchdesign.splitting.crossval import build_similarity, build_similarity_kind
from benchdesign.splitting.mmseqs import IdentitySettings
from benchdesign.splitting.options import COVERAGE_MODES, DEFAULT_SEQUENCE_SIMILARITY, SEQUENCE_SIMILARITIES
from benchdesign.splitting.similarity import (
    FingerprintSimilarity,
    KmerSimilarity,
    MatrixSimilarity,
    VectorSimilarity,
    describe_similarity,
    describe_text,
    detect_string_kind,
)

REPO = Path(__file__).resolve().parents[2]

MOLECULES = ["CCO", "CCN", "OCC(O)CO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "CCCCCCCC", "ClCCBr", "CC#N"]
PEPTIDES = [  # two families of three, 47-53 residues
    "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEK",
    "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEQ",
    "MKTAYIAKQRHISFVKSHFSRQLEDRLGLIEVQAPILSRVGDGTKDNLSGAEK",
    "GSHMLEDPVDAFQLGSTVKWYPEGNRAHLTVGCKLPQWEEDTRSNALK",
    "GSHMLEDPVEAFQLGSTVKWYPEGNRAHLTVGCKLPQWEEDTRSNALR",
    "GSHMIEDPVDAFQLGNTVKWYPEGNRAHLSVGCKLPQWEEDTRSNAIK",
]
FAST = {"clusters": 2, "epsilon": 0.5, "delta": 0.5}


@pytest.mark.parametrize("strings", [
    ["CCO"], ["C"], ["N"], ["CCCCCCCCCCCCCCCCCCCCCC"], ["OCC(O)CO"], ["CCO", "C", "N", "O", "CCN", "NCCO"],
    ["c1ccccc1"], ["[Na+].[Cl-]"], ["ClCCBr"], ["FC(F)F"], ["C/C=C/C"], ["CCO", ""], MOLECULES,
])
def test_detector_reads_smiles_even_short_upper_case_ones(strings):
    assert detect_string_kind(strings) == "smiles"


@pytest.mark.parametrize("strings", [
    PEPTIDES, PEPTIDES[:1], ["MKTAYIAKQRXQISFVKSHFSRQ"], ["ACDEFGHIKLMNPQRSTVWY", "BZUO" + "G" * 20],
    ["SPNC", "MKTAYIAKQRQISFVKSHFSRQ"],  # a peptide of SMILES letters only, beside a real sequence
    [" MKTAYIAKQ \n"],
])
def test_detector_reads_protein_sequences(strings):
    assert detect_string_kind(strings) == "sequence"


def test_detector_refuses_mixed_input_naming_an_example_of_each():
    with pytest.raises(ValueError, match=r"mix SMILES \(e.g. position 1: 'OCC\(O\)CO'\) and protein sequences "
                                         r"\(e.g. position 2: 'MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRV...'\)"):
        detect_string_kind(["CCO", "OCC(O)CO", PEPTIDES[0]])


def test_detector_on_the_fixtures(fixtures):
    assert detect_string_kind(pd.read_csv(fixtures / "mols.csv")["smiles"].dropna().tolist()) == "smiles"
    assert detect_string_kind(pd.read_csv(fixtures / "targets.tsv", sep="\t")["sequence"].tolist()) == "sequence"


def test_auto_builds_mmseqs_identity_for_sequences():
    src, kind = build_similarity_kind(PEPTIDES)
    assert kind == "sequence" and src.describe()["kind"] == "mmseqs_identity"
    block = src.block(np.arange(6), np.arange(6))
    assert block[0, 1] > 0.9 and block[0, 3] < 0.5  # same family vs the other one


def test_alignment_identity_for_sequences_and_tanimoto_for_smiles():
    src, kind = build_similarity_kind(PEPTIDES, sequence_similarity="alignment")
    assert kind == "sequence" and isinstance(src, MatrixSimilarity)
    desc = src.describe()
    assert desc["kind"] == "alignment_identity" and desc["scoring"] == "BLOSUM62"
    assert (desc["gap_open"], desc["gap_extend"], desc["prefilter"]["kmer"]) == (11, 1, 3)
    assert desc["n_aligned_pairs"] == 15  # 6 sequences, each with its top-20 neighbours: every pair
    block = src.block(np.arange(6), np.arange(6))
    assert block[0, 1] > 0.95 and block[0, 3] < 0.5  # same family vs the other one
    assert src.subset(np.array([0, 3])).describe() == desc
    kmer = build_similarity(PEPTIDES, kind="sequence", sequence_similarity="kmer", kmer=2)
    assert isinstance(kmer, KmerSimilarity) and describe_similarity(kmer) == {"kind": "kmer_cosine", "k": 2}
    fp, kind = build_similarity_kind(MOLECULES)
    assert kind == "smiles" and fp.describe() == {"kind": "fingerprint_tanimoto", "fingerprint": "ECFP (Morgan)",
                                                  "radius": 2, "n_bits": 1024}
    with pytest.raises(ValueError, match="sequence_similarity must be one of .* got 'blast'"):
        build_similarity(PEPTIDES, sequence_similarity="blast")


def test_every_source_describes_itself():
    x = np.arange(12, dtype=float).reshape(4, 3)
    assert describe_similarity(VectorSimilarity(x, "euclidean")) == {"kind": "vectors", "metric": "euclidean",
                                                                     "n_features": 3}
    m = MatrixSimilarity(1 - np.eye(3), "distance")
    assert describe_similarity(m) == {"kind": "matrix", "matrix_kind": "distance", "sparse": False}
    assert describe_similarity(FingerprintSimilarity(np.ones((2, 64), dtype=np.uint8)))["radius"] is None
    assert describe_similarity(None) is None and describe_text(None) == "none"
    assert describe_text({"kind": "kmer_cosine", "k": 3, "column": "sequence"}) == "3-mer cosine of sequence"


def test_defaults_agree_everywhere():
    assert DEFAULT_SEQUENCE_SIMILARITY == "mmseqs" and DEFAULT_SEQUENCE_SIMILARITY in SEQUENCE_SIMILARITIES
    args = build_parser().parse_args(["split", "--task", "S1", "--input", "t.tsv", "--out", "o.tsv",
                                      "--sequence-col", "sequence"])
    assert args.sequence_similarity == DEFAULT_SEQUENCE_SIMILARITY
    assert LeakageKFold().get_params()["sequence_similarity"] == DEFAULT_SEQUENCE_SIMILARITY
    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    spec = schema["properties"]["splitting"]["properties"]["sequence_similarity"]
    assert spec["default"] == DEFAULT_SEQUENCE_SIMILARITY and spec["enum"] == list(SEQUENCE_SIMILARITIES)
    example = yaml.safe_load((REPO / "config" / "splitting.yaml").read_text())
    assert example["splitting"]["sequence_similarity"] == DEFAULT_SEQUENCE_SIMILARITY
    identity = IdentitySettings()
    for key in ("coverage", "coverage_mode", "sensitivity", "max_seqs"):  # the schema repeats the library's defaults
        assert schema["properties"]["splitting"]["properties"][key]["default"] == getattr(identity, key), key
    assert schema["properties"]["splitting"]["properties"]["coverage_mode"]["enum"] == list(COVERAGE_MODES)


def test_cli_split_with_alignment_reports_it(fixtures, tmp_path, capsys):
    out, report = tmp_path / "p.tsv", tmp_path / "p.json"
    code = main([str(a) for a in ["split", "--task", "S1", "--input", fixtures / "targets.tsv", "--sequence-col",
                                  "sequence", "--splits", "0.5", "0.5", "--clusters", "2", "--epsilon", "0.5",
                                  "--sequence-similarity", "alignment", "--out", out, "--report", report]])
    err = capsys.readouterr().out  # the result's lines
    assert code == 0, err
    sim = json.loads(report.read_text())["similarity"]
    assert sim["kind"] == "alignment_identity" and sim["column"] == "sequence" and sim["gap_open"] == 11
    assert "similarity: Smith-Waterman identity (BLOSUM62, gap open 11, extend 1" in err


def test_cli_reports_both_sides_of_2d_data_and_the_leakage_similarity(fixtures, tmp_path, capsys):
    out, report = tmp_path / "i.tsv", tmp_path / "i.json"
    code = main([str(a) for a in [
        "split", "--task", "S2", "--input", fixtures / "drugs.csv", "--id-col", "drug", "--smiles-col", "smiles",
        "--interactions", fixtures / "interactions.csv",
        "--input-b", fixtures / "targets.tsv", "--id-col-b", "target", "--sequence-col-b", "sequence",
        "--sequence-similarity", "kmer", "--splits", "0.8", "0.2", "--clusters", "4", "--out", out,
        "--report", report]])
    err = capsys.readouterr().out  # the result's lines
    assert code == 0, err
    sim = json.loads(report.read_text())["similarity"]
    assert sim["a"]["kind"] == "fingerprint_tanimoto" and sim["a"]["radius"] == 2 and sim["a"]["n_bits"] == 1024
    assert sim["b"] == {"kind": "kmer_cosine", "k": 3, "column": "sequence"}
    assert "similarity: side a ECFP Tanimoto (Morgan radius 2, 1024 bits) of smiles; side b 3-mer cosine" in err
    split, rep = tmp_path / "m.tsv", tmp_path / "m.json"
    assert main([str(a) for a in ["split", "--task", "S1", "--input", fixtures / "mols.csv", "--smiles-col",
                                  "smiles", "--drop-invalid", "--splits", "0.8", "0.2", "--clusters", "4",
                                  "--out", split]]) == 0
    capsys.readouterr()
    assert main([str(a) for a in ["leakage", "--input", fixtures / "mols.csv", "--smiles-col", "smiles",
                                  "--drop-invalid", "--split", split, "--json", rep]]) == 0
    assert "similarity: ECFP Tanimoto (Morgan radius 2, 1024 bits)" in capsys.readouterr().out
    assert json.loads(rep.read_text())["similarity"]["kind"] == "fingerprint_tanimoto"


def test_split_pairs_with_smiles_and_protein_sequences_through_auto():
    ia, ib = np.divmod(np.arange(len(MOLECULES) * len(PEPTIDES)), len(PEPTIDES))
    cv = LeakageKFold(2, similarity=MOLECULES, task="S2", random_state=0, **FAST)
    folds = list(cv.split_pairs(ia, ib, similarity_b=PEPTIDES))
    assert len(folds) == 2
    for train, test in folds:
        assert test.size and np.intersect1d(train, test).size == 0
    assert cv.kind_ == {"a": "smiles", "b": "sequence"}
    sim = cv.report_["similarity"]
    assert sim["a"]["kind"] == "fingerprint_tanimoto" and sim["a"]["detected"]
    assert sim["b"]["kind"] == "mmseqs_identity" and sim["b"]["input_kind"] == "sequence"
    kmer = clone(cv).set_params(sequence_similarity="kmer")
    list(kmer.split_pairs(ia, ib, similarity_b=PEPTIDES))
    assert kmer.report_["similarity"]["b"]["kind"] == "kmer_cosine"


def test_one_d_splitter_records_the_kind_it_chose():
    cv = LeakageSplit((0.5, 0.5), similarity=PEPTIDES, random_state=0, **FAST)
    train, test = next(cv.split(np.zeros((len(PEPTIDES), 1))))
    assert train.size + test.size == len(PEPTIDES)
    assert cv.kind_ == "sequence" and cv.report_["similarity"]["kind"] == "mmseqs_identity"
    assert cv.report_["similarity"]["detected"] is True
    ident = LeakageSplit((0.5, 0.5), task="I1", random_state=0, **FAST)
    next(ident.split(np.zeros((len(PEPTIDES), 1))))
    assert ident.kind_ is None and ident.report_["similarity"] is None


def test_cross_validators_check_sequences_as_the_cli_does():
    """Digits and gaps are refused naming the positions; lower case is compared as upper case with a warning."""
    with pytest.raises(ValueError, match=r"position 0: digits '1'; position 1: gap / stop characters '-'"):
        build_similarity(["MKT1AYIAK", "MKTA-YIAK"], kind="sequence")
    with pytest.warns(UserWarning, match="1 protein sequences had lower-case letters"):
        lower = build_similarity([PEPTIDES[0].lower(), *PEPTIDES[1:]], kind="sequence", sequence_similarity="kmer")
    upper = build_similarity(PEPTIDES, kind="sequence", sequence_similarity="kmer")
    assert np.array_equal(lower.block(np.arange(6), np.arange(6)), upper.block(np.arange(6), np.arange(6)))
