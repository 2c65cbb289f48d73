"""Molecule, protein and pair features against RDKit and hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import AllChem, rdFingerprintGenerator

from benchdesign.molexp.features import AMINO_ACIDS, molecule_fingerprints, pair_features, protein_features

SMILES = ["CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "C1CCNCC1", "O=C(O)c1ccccc1OC(C)=O"]


def _col(a: str, b: str | None = None) -> int:
    """Column of residue a (AAC block) or of the dipeptide a-b in the 420-column composition."""
    i = AMINO_ACIDS.index(a)
    return i if b is None else 20 + 20 * i + AMINO_ACIDS.index(b)


@pytest.mark.parametrize("radius,n_bits", [(2, 1024), (3, 2048)])
def test_fingerprints_equal_rdkit_generator_and_legacy_bitvect(radius, n_bits):
    bits = molecule_fingerprints(SMILES, radius=radius, n_bits=n_bits)
    assert bits.dtype == np.uint8 and bits.shape == (len(SMILES), n_bits)
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits)
    RDLogger.DisableLog("rdApp.*")  # the legacy call logs a deprecation warning
    try:
        for row, s in zip(bits, SMILES):
            mol = Chem.MolFromSmiles(s)
            np.testing.assert_array_equal(row, gen.GetFingerprintAsNumPy(mol))
            legacy = AllChem.GetMorganFingerprintAsBitVect(mol, radius, nBits=n_bits)
            expected = np.zeros(n_bits, dtype=np.uint8)
            DataStructs.ConvertToNumpyArray(legacy, expected)
            np.testing.assert_array_equal(row, expected)
    finally:
        RDLogger.EnableLog("rdApp.*")


def test_fingerprints_name_first_invalid_row():
    with pytest.raises(ValueError, match=r"row 1: 'C1CC' \(2 invalid"):
        molecule_fingerprints(["CCO", "C1CC", "c1ccccc1", "not a smiles"])


def test_composition_of_acda_by_hand():
    f = protein_features(["ACDA"])
    assert f.dtype == np.float32 and f.shape == (1, 420)
    expected = np.zeros(420, dtype=np.float32)
    expected[[_col("A"), _col("C"), _col("D")]] = [0.5, 0.25, 0.25]
    expected[[_col("A", "C"), _col("C", "D"), _col("D", "A")]] = 1 / 3
    np.testing.assert_allclose(f[0], expected, rtol=1e-6)


def test_kinds_are_the_blocks_of_composition():
    seqs = ["MKTAYIAKQR", "GGSW"]
    full = protein_features(seqs)
    np.testing.assert_array_equal(protein_features(seqs, kind="aac"), full[:, :20])
    np.testing.assert_array_equal(protein_features(seqs, kind="dipeptide"), full[:, 20:])
    np.testing.assert_allclose(full[:, :20].sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(full[:, 20:].sum(axis=1), 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match="kind must be one of .* got 'esm'"):
        protein_features(seqs, kind="esm")


def test_lowercase_and_unknown_x():
    np.testing.assert_array_equal(protein_features(["acdA"]), protein_features(["ACDA"]))
    f = protein_features(["ACXDA"])[0]
    # X is not counted: AAC as for ACDA; pairs C-X and X-D are dropped, leaving A-C and D-A.
    np.testing.assert_allclose(f[:20], protein_features(["ACDA"])[0, :20], rtol=1e-6)
    expected_pairs = np.zeros(420, dtype=np.float32)
    expected_pairs[[_col("A", "C"), _col("D", "A")]] = 0.5
    np.testing.assert_allclose(f[20:], expected_pairs[20:], rtol=1e-6)


def test_ambiguous_and_rare_residues():
    f = protein_features(["AB"])[0]
    assert f[_col("A")] == pytest.approx(0.5)
    assert f[_col("D")] == pytest.approx(0.25) and f[_col("N")] == pytest.approx(0.25)
    assert f[_col("A", "D")] == pytest.approx(0.5) and f[_col("A", "N")] == pytest.approx(0.5)
    z = protein_features(["Z"])[0]
    assert z[_col("E")] == pytest.approx(0.5) and z[_col("Q")] == pytest.approx(0.5)
    np.testing.assert_array_equal(protein_features(["MUO"]), protein_features(["MCK"]))


def test_single_residue_has_zero_dipeptides():
    f = protein_features(["W"])[0]
    assert f[_col("W")] == 1.0 and f.sum() == pytest.approx(1.0) and not f[20:].any()


@pytest.mark.parametrize(
    "bad,message",
    [
        ("AC-D", r"row 1 has character '-' at position 2"),
        ("ACD*", r"row 1 has character '\*' at position 3"),
        ("", r"row 1 must be a non-empty string"),
        (None, r"row 1 must be a non-empty string"),
        ("XXX", r"row 1 has no standard residue"),
    ],
)
def test_bad_sequences_name_the_row(bad, message):
    with pytest.raises(ValueError, match=message):
        protein_features(["ACD", bad])


def test_pair_features_concatenate_per_row():
    drugs = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint8)
    prots = np.array([[0.25, 0.75, 0.0], [1.0, 0.0, 0.5]], dtype=np.float32)
    out = pair_features(drugs, prots, [2, 0, 2], [1, 1, 0])
    expected = np.array(
        [[1, 1, 1.0, 0.0, 0.5], [1, 0, 1.0, 0.0, 0.5], [1, 1, 0.25, 0.75, 0.0]], dtype=np.float32
    )
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, expected)
    assert pair_features(drugs, prots, [], []).shape == (0, 5)


def test_pair_features_validate_indices():
    drugs = np.zeros((3, 2))
    prots = np.zeros((2, 4))
    with pytest.raises(ValueError, match=r"target_index\[1\] = 2 is outside \[0, 2\)"):
        pair_features(drugs, prots, [0, 1], [0, 2])
    with pytest.raises(ValueError, match=r"drug_index\[0\] = -1"):
        pair_features(drugs, prots, [-1], [0])
    with pytest.raises(ValueError, match="drug_index has 2 rows but target_index has 1"):
        pair_features(drugs, prots, [0, 1], [0])
    with pytest.raises(ValueError, match="drug_index must hold integers"):
        pair_features(drugs, prots, [0.5], [0])
    with pytest.raises(ValueError, match="protein_features must be 2-D"):
        pair_features(drugs, np.zeros(4), [0], [0])
