"""Model inputs for the molecular experiments (GitHub issue 5, DataSAIL paper "Training of supervised
machine learning models").

- :func:`molecule_fingerprints` -- ECFP4 (Morgan radius 2) bit vectors, 1024 bits as in the paper.
- :func:`protein_features` -- amino-acid (20) + dipeptide (400) composition, the offline default in place
  of the paper's ESM-2 embeddings (those: :mod:`benchdesign.molexp.protein_embeddings`).
- :func:`pair_features` -- drug and protein features concatenated per drug-target interaction row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from benchdesign.splitting.similarity import smiles_fingerprints

__all__ = [
    "AMINO_ACIDS",
    "PROTEIN_KINDS",
    "checked_sequence",
    "molecule_fingerprints",
    "protein_features",
    "pair_features",
]

AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"
PROTEIN_KINDS: tuple[str, ...] = ("composition", "aac", "dipeptide")

# Non-standard one-letter codes and how they count (weights over AMINO_ACIDS).
_SPECIAL: dict[str, dict[str, float]] = {
    "B": {"D": 0.5, "N": 0.5},  # Asx: aspartate or asparagine
    "Z": {"E": 0.5, "Q": 0.5},  # Glx: glutamate or glutamine
    "J": {"I": 0.5, "L": 0.5},  # Xle: isoleucine or leucine
    "U": {"C": 1.0},  # selenocysteine, counted as its analogue cysteine
    "O": {"K": 1.0},  # pyrrolysine, counted as its analogue lysine
    "X": {},  # unknown residue: contributes nothing
}


def _residue_table() -> tuple[np.ndarray, np.ndarray]:
    """Weights (128, 20) over AMINO_ACIDS per ASCII code, and which codes are allowed (128,)."""
    table = np.zeros((128, len(AMINO_ACIDS)), dtype=np.float64)
    allowed = np.zeros(128, dtype=bool)
    for j, aa in enumerate(AMINO_ACIDS):
        table[ord(aa), j] = 1.0
        allowed[ord(aa)] = True
    for code, weights in _SPECIAL.items():
        allowed[ord(code)] = True
        for aa, w in weights.items():
            table[ord(code), AMINO_ACIDS.index(aa)] = w
    return table, allowed


_TABLE, _ALLOWED = _residue_table()


def molecule_fingerprints(smiles: Sequence[object], radius: int = 2, n_bits: int = 1024) -> np.ndarray:
    """ECFP bits of SMILES strings, uint8 (n, n_bits); radius 2 and 1024 bits = the paper's ECFP4.

    Uses RDKit's Morgan generator via :func:`benchdesign.splitting.similarity.smiles_fingerprints`.
    Raises ValueError naming the first SMILES RDKit cannot parse (or with no atoms); drop such rows
    before calling (e.g. with :func:`benchdesign.splitting.similarity.parse_smiles`).
    """
    bits, valid = smiles_fingerprints(smiles, radius=radius, n_bits=n_bits)
    if not valid.all():
        bad = np.flatnonzero(~valid)
        first = int(bad[0])
        raise ValueError(
            f"invalid SMILES at row {first}: {smiles[first]!r} ({bad.size} invalid rows in total)"
        )
    return bits


def _residue_weights(sequence: object, row: int) -> np.ndarray:
    """Per-residue weights (L, 20) of one sequence; see :func:`protein_features` for the rules."""
    if not isinstance(sequence, str) or not sequence:
        raise ValueError(f"sequence at row {row} must be a non-empty string, got {sequence!r}")
    upper = sequence.upper()
    if not upper.isascii():
        raise ValueError(f"sequence at row {row} has a non-ASCII character: {sequence[:50]!r}")
    codes = np.frombuffer(upper.encode("ascii"), dtype=np.uint8)
    bad = ~_ALLOWED[codes]
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"sequence at row {row} has character {sequence[pos]!r} at position {pos}; "
            f"allowed: {AMINO_ACIDS} and {''.join(_SPECIAL)} (any case)"
        )
    weights = _TABLE[codes]
    if not weights.any():
        raise ValueError(f"sequence at row {row} has no standard residue: {sequence[:50]!r}")
    return weights


def checked_sequence(sequence: object, row: int) -> str:
    """``sequence`` upper-cased, after the checks of :func:`protein_features` (ValueError naming ``row``).

    Examples
    --------
    >>> checked_sequence("acdX", 0)
    'ACDX'
    """
    _residue_weights(sequence, row)
    return str(sequence).upper()


def protein_features(
    sequences: Sequence[object], kind: Literal["composition", "aac", "dipeptide"] = "composition"
) -> np.ndarray:
    """Composition features of protein sequences, float32 (n, 420) for ``kind="composition"``.

    - ``"aac"`` (20 columns): amino-acid composition, the frequency of each residue in
      ``AMINO_ACIDS`` order ("ACDEFGHIKLMNPQRSTVWY"); sums to 1.
    - ``"dipeptide"`` (400 columns): frequency of each ordered pair of adjacent residues, column
      ``20 * i + j`` for the pair (``AMINO_ACIDS[i]``, ``AMINO_ACIDS[j]``); sums to 1, or is all zero
      when the sequence has no countable pair (e.g. length 1).
    - ``"composition"``: ``"aac"`` followed by ``"dipeptide"``.

    Letters are upper-cased first (lower case marks masked regions in FASTA, same residues).
    Non-standard codes: B, Z, J (ambiguous) count half for each of D/N, E/Q, I/L; U (selenocysteine)
    counts as C and O (pyrrolysine) as K; X (unknown) counts nothing, nor do pairs containing it.
    Frequencies are divided by the counted weight, so unknown residues do not dilute them. Any other
    character (gap, stop "*", digit, ...), an empty or non-string entry, or a sequence of only X
    raises ValueError naming the row.
    """
    if kind not in PROTEIN_KINDS:
        raise ValueError(f"kind must be one of {PROTEIN_KINDS}, got {kind!r}")
    n_aa = len(AMINO_ACIDS)
    width = {"composition": n_aa + n_aa * n_aa, "aac": n_aa, "dipeptide": n_aa * n_aa}[kind]
    out = np.zeros((len(sequences), width), dtype=np.float32)
    for row, sequence in enumerate(sequences):
        w = _residue_weights(sequence, row)
        parts = []
        if kind in ("composition", "aac"):
            counts = w.sum(axis=0)
            parts.append(counts / counts.sum())
        if kind in ("composition", "dipeptide"):
            pairs = (w[:-1].T @ w[1:]).reshape(-1)
            total = pairs.sum()
            parts.append(pairs / total if total > 0 else pairs)
        out[row] = np.concatenate(parts)
    return out


def _check_index(index: Sequence[int] | np.ndarray, n: int, name: str) -> np.ndarray:
    idx = np.asarray(index)
    if idx.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {idx.shape}")
    if idx.size and not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(f"{name} must hold integers, got dtype {idx.dtype}")
    idx = idx.astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = int(np.flatnonzero((idx < 0) | (idx >= n))[0])
        raise ValueError(f"{name}[{bad}] = {idx[bad]} is outside [0, {n})")
    return idx


def pair_features(
    drug_features: np.ndarray,
    protein_features: np.ndarray,
    drug_index: Sequence[int] | np.ndarray,
    target_index: Sequence[int] | np.ndarray,
) -> np.ndarray:
    """Row ``k`` = ``drug_features[drug_index[k]]`` followed by ``protein_features[target_index[k]]``.

    Returns float32 (n_pairs, n_drug_cols + n_protein_cols), one row per interaction (e.g. ECFP4
    bits of the drug then the composition of the target).
    """
    drugs = np.asarray(drug_features)
    proteins = np.asarray(protein_features)
    for name, arr in (("drug_features", drugs), ("protein_features", proteins)):
        if arr.ndim != 2:
            raise ValueError(f"{name} must be 2-D (n, p), got shape {arr.shape}")
    d = _check_index(drug_index, drugs.shape[0], "drug_index")
    t = _check_index(target_index, proteins.shape[0], "target_index")
    if d.shape != t.shape:
        raise ValueError(f"drug_index has {d.size} rows but target_index has {t.size}")
    return np.hstack([drugs[d].astype(np.float32), proteins[t].astype(np.float32)])
