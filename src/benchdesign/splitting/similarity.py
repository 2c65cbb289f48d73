"""Pairwise similarities in [0, 1], computed block by block (step a of Fig. 2 in the DataSAIL paper).

Every source exposes ``block(rows, cols)``, a dense float32 array of similarities between two index
sets, so that no caller ever needs the full n x n matrix. Distances are turned into similarities as
the paper does for clusters, ``sim := 1 - dist`` after scaling the distances to [0, 1].

Sources:
- [`FingerprintSimilarity`][] -- ECFP4 (Morgan radius 2) bit vectors, Tanimoto similarity.
- [`KmerSimilarity`][] -- protein (or any) sequences, cosine similarity of k-mer count profiles.
- [`VectorSimilarity`][] -- feature vectors, cosine similarity or Euclidean distance.
- [`MatrixSimilarity`][] -- a precomputed similarity or distance matrix, dense or scipy-sparse (also the
  carrier of the Smith-Waterman identity of ``benchdesign.splitting.alignment.alignment_similarity``).

Each source's ``describe()`` ([`describe_similarity`][]) says what it is and with which parameters, for
the reports; [`detect_string_kind`][] tells SMILES from protein sequences.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Literal, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp
from rdkit import Chem, RDLogger
from rdkit.Chem import rdFingerprintGenerator

__all__ = [
    "SimilaritySource",
    "FingerprintSimilarity",
    "KmerSimilarity",
    "VectorSimilarity",
    "MatrixSimilarity",
    "check_matrix",
    "parse_smiles",
    "available_cores",
    "morgan_fingerprints",
    "pack_bits",
    "packed_fingerprints",
    "packed_pair_tanimoto",
    "packed_tanimoto",
    "smiles_fingerprints",
    "tanimoto_block",
    "dense_similarity",
    "detect_string_kind",
    "describe_similarity",
    "describe_text",
]

DEFAULT_BLOCK = 2048  # tile edge of n x n passes: 16 MB float32 tiles; 2.5x less CPU than 4096 (cache)


@runtime_checkable
class SimilaritySource(Protocol):
    """Anything that yields similarity blocks in [0, 1] over ``n`` entities.

    Examples
    --------
    A runtime-checkable protocol: every source of this module is one, a bare array is not.

    >>> import numpy as np
    >>> from benchdesign.splitting import MatrixSimilarity, SimilaritySource
    >>> isinstance(MatrixSimilarity(np.eye(2)), SimilaritySource), isinstance(np.eye(2), SimilaritySource)
    (True, False)
    """

    n: int
    is_distance: bool

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Similarities between entities ``rows`` and ``cols``, float32 of shape (len(rows), len(cols))."""
        ...

    def one_vs_all(self, i: int) -> np.ndarray:
        """Similarities of entity ``i`` to all n entities, float32 of shape (n,)."""
        ...

    def self_similarity(self) -> np.ndarray:
        """sim(x, x) for every entity, float64 of shape (n,)."""
        ...

    def subset(self, index: np.ndarray) -> "SimilaritySource":
        """The same similarity restricted to the entities ``index`` (in that order)."""
        ...


def _as_index(index: np.ndarray | Sequence[int], n: int, name: str) -> np.ndarray:
    idx = np.asarray(index, dtype=np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"{name} indices must lie in [0, {n}); got min={idx.min()}, max={idx.max()}")
    return idx


# --------------------------------------------------------------------------- molecules


def _mol_or_none(s: object) -> Chem.Mol | None:
    mol = Chem.MolFromSmiles(s) if isinstance(s, str) and s.strip() else None
    return None if mol is None or mol.GetNumAtoms() == 0 else mol


def parse_smiles(smiles: Sequence[object]) -> tuple[list[Chem.Mol | None], np.ndarray]:
    """Parse SMILES strings with RDKit.

    Parameters
    ----------
    smiles : sequence of str (NaN / None / empty count as invalid)

    Returns
    -------
    mols : list of ``rdkit.Chem.Mol`` or None for invalid entries
    valid : bool array (n,), False where RDKit cannot parse the string or the molecule has no atoms
    """
    RDLogger.DisableLog("rdApp.*")
    try:
        mols = [_mol_or_none(s) for s in smiles]
    finally:
        RDLogger.EnableLog("rdApp.*")
    valid = np.array([m is not None for m in mols], dtype=bool)
    return mols, valid


def _check_fp_args(radius: int, n_bits: int) -> None:
    if radius < 0:
        raise ValueError(f"radius must be >= 0, got {radius}")
    if n_bits < 8:
        raise ValueError(f"n_bits must be >= 8, got {n_bits}")


def _packed_width(n_bits: int) -> int:
    """Bytes per packed fingerprint: n_bits rounded up to whole 64-bit words."""
    return 8 * ((n_bits + 63) // 64)


def pack_bits(bits: np.ndarray) -> np.ndarray:
    """0/1 matrix (n, n_bits) -> packed uint8 (n, 8 * ceil(n_bits / 64)), big-endian bit order, zero padded."""
    bits = np.asarray(bits, dtype=np.uint8)
    pad = _packed_width(bits.shape[1]) * 8 - bits.shape[1]
    return np.packbits(np.pad(bits, ((0, 0), (0, pad))), axis=1)


def morgan_fingerprints(mols: Sequence[Chem.Mol], radius: int = 2, n_bits: int = 1024) -> np.ndarray:
    """ECFP (Morgan) bits of RDKit molecules, uint8 (n, n_bits); radius 2 = ECFP4 (paper: 1024 bits).

    Parameters
    ----------
    mols : Sequence[Chem.Mol]
        RDKit molecules.
    radius : int
        Morgan radius (2 = ECFP4).
    n_bits : int
        Fingerprint length (the paper: 1024).

    Returns
    -------
    np.ndarray
        uint8 (n, n_bits) bits.

    Examples
    --------
    >>> from rdkit import Chem
    >>> from benchdesign.splitting import morgan_fingerprints
    >>> bits = morgan_fingerprints([Chem.MolFromSmiles("CCO"), Chem.MolFromSmiles("c1ccccc1")])
    >>> bits.shape, bits.sum(axis=1).tolist()
    ((2, 1024), [6, 3])
    """
    _check_fp_args(radius, n_bits)
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits)
    bits = np.zeros((len(mols), n_bits), dtype=np.uint8)
    for i, mol in enumerate(mols):
        if mol is None:
            raise ValueError(f"molecule {i} is None; parse and filter SMILES first")
        bits[i] = gen.GetFingerprintAsNumPy(mol)
    return bits


def _fingerprint_chunk(task: tuple[list, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Packed fingerprints and validity of one chunk of SMILES (runs in worker processes)."""
    smiles, radius, n_bits = task
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits)
    width = _packed_width(n_bits)
    out = np.zeros((len(smiles), width), dtype=np.uint8)
    valid = np.zeros(len(smiles), dtype=bool)
    RDLogger.DisableLog("rdApp.*")
    try:
        for i, s in enumerate(smiles):
            mol = _mol_or_none(s)
            if mol is not None:
                out[i, : (n_bits + 7) // 8] = np.packbits(gen.GetFingerprintAsNumPy(mol))
                valid[i] = True
    finally:
        RDLogger.EnableLog("rdApp.*")
    return out[valid], valid


PARALLEL_MIN = 20_000  # below this many SMILES, worker processes cost more than they save
FP_CHUNK = 20_000  # SMILES per worker task


def available_cores() -> int:
    """CPU cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def packed_fingerprints(
    smiles: Sequence[object], radius: int = 2, n_bits: int = 1024, n_jobs: int | None = None,
    chunk: int = FP_CHUNK, on_chunk: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Parse and fingerprint SMILES in parallel batches with RDKit's Morgan generator, bit-packed.

    Parameters
    ----------
    smiles : Sequence[object]
        SMILES strings (NaN, None and empty strings count as invalid).
    radius : int
        Morgan radius (2 = ECFP4).
    n_bits : int
        Fingerprint length (the paper: 1024).
    n_jobs : int | None
        Worker processes; None: all available cores for >= ``PARALLEL_MIN`` SMILES, else 1 (1 where the fork
        start method is missing, e.g. Windows).
    chunk : int
        SMILES per batch.
    on_chunk : Callable[[int, int], None] | None
        Called with (done, total) after each batch (progress).

    Returns
    -------
    packed : np.ndarray
        uint8 (n_valid, 8 * ceil(n_bits / 64)), the bits of each valid SMILES packed big-endian
        (``np.unpackbits(packed, axis=1, count=n_bits)`` restores them); 128 bytes per ECFP4-1024.
    valid : np.ndarray
        bool (n,), as in ``parse_smiles``.

    Examples
    --------
    An invalid SMILES gets no row; 1024 bits pack into 128 bytes:

    >>> from benchdesign.splitting import packed_fingerprints
    >>> packed, valid = packed_fingerprints(["CCO", "not a smiles", "c1ccccc1"])
    >>> packed.shape, packed.dtype.name, valid.tolist()
    ((2, 128), 'uint8', [True, False, True])
    """
    _check_fp_args(radius, n_bits)
    if chunk < 1:
        raise ValueError(f"chunk must be >= 1, got {chunk}")
    n = len(smiles)
    jobs = (available_cores() if n >= PARALLEL_MIN else 1) if n_jobs is None else int(n_jobs)
    if jobs < 1:
        raise ValueError(f"n_jobs must be >= 1, got {n_jobs}")
    tasks = ((list(smiles[i:i + chunk]), radius, n_bits) for i in range(0, n, chunk))
    parts: list[tuple[np.ndarray, np.ndarray]] = []

    def collect(results) -> None:
        for part in results:
            parts.append(part)
            if on_chunk is not None:
                on_chunk(min(len(parts) * chunk, n), n)

    if jobs == 1 or n <= chunk or "fork" not in mp.get_all_start_methods():
        collect(map(_fingerprint_chunk, tasks))
    else:
        # fork (Linux's default): spawn / forkserver workers re-import the caller's __main__, which
        # reruns an unguarded script such as a Snakemake script; the workers only parse and pack bits
        with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("fork")) as pool:
            collect(pool.map(_fingerprint_chunk, tasks))
    if not parts:
        return np.zeros((0, _packed_width(n_bits)), dtype=np.uint8), np.zeros(0, dtype=bool)
    return np.concatenate([p for p, _ in parts]), np.concatenate([v for _, v in parts])


def smiles_fingerprints(
    smiles: Sequence[object], radius: int = 2, n_bits: int = 1024, n_jobs: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Parse and fingerprint SMILES (in parallel batches, see [`packed_fingerprints`][]), never holding
    all molecules in memory.

    Returns the uint8 bits (n_valid, n_bits) of the valid SMILES (RDKit Morgan generator) and the
    validity mask (n,) as in ``parse_smiles``.

    Parameters
    ----------
    smiles : Sequence[object]
        SMILES strings.
    radius : int
        Morgan radius (2 = ECFP4).
    n_bits : int
        Fingerprint length (the paper: 1024).
    n_jobs : int | None
        Worker processes; None: all available cores for >= ``PARALLEL_MIN`` SMILES, else 1 (1 where the fork
        start method is missing, e.g. Windows).

    Returns
    -------
    bits : np.ndarray
        uint8 (n_valid, n_bits) bits of the valid SMILES (RDKit Morgan generator).
    valid : np.ndarray
        bool (n,) validity mask, as in ``parse_smiles``.

    Examples
    --------
    >>> from benchdesign.splitting import smiles_fingerprints
    >>> bits, valid = smiles_fingerprints(["CCO", "not a smiles", "c1ccccc1"], n_bits=64)
    >>> bits.shape, bits.sum(axis=1).tolist(), valid.tolist()
    ((2, 64), [6, 3], [True, False, True])
    """
    packed, valid = packed_fingerprints(smiles, radius=radius, n_bits=n_bits, n_jobs=n_jobs)
    return np.unpackbits(packed, axis=1, count=n_bits), valid


def _tanimoto_from_intersections(inter: np.ndarray, count_a: np.ndarray, count_b: np.ndarray) -> np.ndarray:
    """|a & b| / (|a| + |b| - |a & b|) in place on the float32 intersection counts ``inter``.

    Empty vectors get a count of 1e-30 so that the union is never zero: two empty vectors score
    0 / 2e-30 = 0 (as in RDKit), one empty vector against a non-empty one scores 0 as well.
    """
    ca = np.where(count_a > 0, count_a, 1e-30).astype(np.float32)
    cb = np.where(count_b > 0, count_b, 1e-30).astype(np.float32)
    union = np.add.outer(ca, cb)
    union -= inter
    np.divide(inter, union, out=union)
    return union


def tanimoto_block(a: np.ndarray, b: np.ndarray, count_a: np.ndarray, count_b: np.ndarray) -> np.ndarray:
    """Tanimoto similarity |a & b| / (|a| + |b| - |a & b|) between two 0/1 bit matrices.

    Intersections come from one float32 matrix product (exact for < 2**24 bits). Two empty bit
    vectors have similarity 0, as in RDKit.
    """
    inter = a.astype(np.float32) @ b.astype(np.float32).T
    return _tanimoto_from_intersections(inter, count_a, count_b)


def _as_words(packed: np.ndarray) -> np.ndarray:
    """Packed uint8 rows (width a multiple of 8) viewed as uint64 words."""
    return np.ascontiguousarray(packed).view(np.uint64)


def _popcount_rows(words: np.ndarray) -> np.ndarray:
    return np.bitwise_count(words).sum(axis=-1, dtype=np.int32)


def packed_tanimoto(a: np.ndarray, b: np.ndarray, chunk: int = 256) -> np.ndarray:
    """Tanimoto similarity between packed fingerprints by popcounts: |a & b| / (|a| + |b| - |a & b|).

    ``a`` (n_a, W) and ``b`` (n_b, W) are packed uint8 rows of [`packed_fingerprints`][] / ``pack_bits``
    (or their uint64 view). Returns float32 (n_a, n_b); two empty fingerprints score 0, as in RDKit.
    Intersections are exact integers, so values equal RDKit's ``BulkTanimotoSimilarity`` to float32.

    Parameters
    ----------
    a : np.ndarray
        (n_a, W) packed uint8 rows of [`packed_fingerprints`][] / ``pack_bits`` (or their uint64 view).
    b : np.ndarray
        (n_b, W) packed rows.
    chunk : int
        Rows of ``a`` per block.

    Returns
    -------
    np.ndarray
        float32 (n_a, n_b); two empty fingerprints score 0, as in RDKit.

    Examples
    --------
    Ethanol against ethanol, ethylamine and benzene:

    >>> from benchdesign.splitting import packed_fingerprints, packed_tanimoto
    >>> packed, _ = packed_fingerprints(["CCO", "CCN", "c1ccccc1"])
    >>> packed_tanimoto(packed[:1], packed).astype(float).round(3).tolist()
    [[1.0, 0.333, 0.0]]
    """
    wa = a if a.dtype == np.uint64 else _as_words(a)
    wb = b if b.dtype == np.uint64 else _as_words(b)
    ca, cb = _popcount_rows(wa), _popcount_rows(wb)
    out = np.empty((wa.shape[0], wb.shape[0]), dtype=np.float32)
    for r0 in range(0, wa.shape[0], chunk):
        inter = _popcount_rows(wa[r0:r0 + chunk, None, :] & wb[None, :, :])
        union = ca[r0:r0 + chunk, None] + cb[None, :] - inter
        out[r0:r0 + chunk] = inter / np.maximum(union, 1)
    return out


def packed_pair_tanimoto(words: np.ndarray, i: np.ndarray, j: np.ndarray, counts: np.ndarray | None = None,
                         chunk: int = 1 << 18) -> np.ndarray:
    """Tanimoto similarity of the pairs (i[t], j[t]) of packed fingerprints ``words`` (uint64 view), float64."""
    c = _popcount_rows(words) if counts is None else np.asarray(counts)
    out = np.empty(i.size, dtype=np.float64)
    for t0 in range(0, i.size, chunk):
        a, b = i[t0:t0 + chunk], j[t0:t0 + chunk]
        inter = _popcount_rows(words[a] & words[b])
        union = c[a] + c[b] - inter
        out[t0:t0 + chunk] = inter / np.maximum(union, 1)
    return out


SPARSE_DENSITY = 0.15  # below this fraction of set bits, intersections use a sparse x dense product
CSR_CHUNK = 1 << 16  # rows unpacked at a time when building the sparse copy


def _csr_from_packed(packed: np.ndarray, n_bits: int) -> sp.csr_matrix:
    """Sparse float32 0/1 matrix (n, n_bits) of packed fingerprints, built chunk by chunk (int32 indices)."""
    n = packed.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    cols = []
    for r0 in range(0, n, CSR_CHUNK):
        dense = np.unpackbits(packed[r0:r0 + CSR_CHUNK], axis=1, count=n_bits)
        rows, c = np.nonzero(dense)
        cols.append(c.astype(np.int32))
        indptr[r0 + 1:r0 + 1 + dense.shape[0]] = np.bincount(rows, minlength=dense.shape[0])
    np.cumsum(indptr, out=indptr)
    indices = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int32)
    if indptr[-1] < np.iinfo(np.int32).max:
        indptr = indptr.astype(np.int32)
    data = np.ones(indices.size, dtype=np.float32)
    return sp.csr_matrix((data, indices, indptr), shape=(n, n_bits))


class FingerprintSimilarity:
    """Tanimoto similarity of ECFP bit vectors (paper Table 2: ECFP + Tanimoto for small molecules).

    Fingerprints are stored bit-packed (``packed``, 128 bytes per ECFP4-1024; the 0/1 matrix ``bits``
    is unpacked on demand). Values equal RDKit's ``BulkTanimotoSimilarity`` (tested). Block
    intersections are one float32 product: for sparse fingerprints (ECFP4 sets ~3-5 % of 1024 bits;
    density < ``SPARSE_DENSITY``) a CSR x dense product, which does ~1/density times fewer
    multiply-adds than the dense GEMM (about 4x less CPU time on Tox21), else the dense GEMM. Single
    rows (leader seeding) use a sparse mat-vec (popcounts of the packed bits for dense fingerprints);
    sampled pairs (``pairs``) use popcounts. ``radius``: the Morgan radius the bits were made with
    (None: unknown, e.g. bits from elsewhere), recorded by ``describe`` only.

    Parameters
    ----------
    bits : np.ndarray
        (n, n_bits) 0/1 fingerprint bits.
    radius : int | None
        The Morgan radius the bits were made with (None: unknown), recorded by ``describe`` only.

    Examples
    --------
    Ethanol written twice, and benzene:

    >>> from benchdesign.splitting import FingerprintSimilarity
    >>> sim = FingerprintSimilarity.from_smiles(["CCO", "OCC", "c1ccccc1"])
    >>> sim.block([0, 1, 2], [0, 1, 2]).tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    >>> sim.describe()["radius"], sim.describe()["n_bits"]
    (2, 1024)
    """

    is_distance = False

    def __init__(self, bits: np.ndarray, radius: int | None = None):
        bits = np.asarray(bits, dtype=np.uint8)
        if bits.ndim != 2:
            raise ValueError(f"bits must be 2-D (n, n_bits), got shape {bits.shape}")
        self._init_packed(pack_bits(bits), int(bits.shape[1]), radius)

    @classmethod
    def from_packed(cls, packed: np.ndarray, n_bits: int, radius: int | None = None) -> "FingerprintSimilarity":
        """From packed uint8 rows (n, 8 * ceil(n_bits / 64)) as returned by [`packed_fingerprints`][]."""
        packed = np.asarray(packed, dtype=np.uint8)
        if packed.ndim != 2 or packed.shape[1] != _packed_width(n_bits):
            raise ValueError(
                f"packed must have shape (n, {_packed_width(n_bits)}) for n_bits={n_bits}, got {packed.shape}"
            )
        out = cls.__new__(cls)
        out._init_packed(packed, int(n_bits), radius)
        return out

    def _init_packed(self, packed: np.ndarray, n_bits: int, radius: int | None = None) -> None:
        self.radius = None if radius is None else int(radius)
        self.n_bits = n_bits
        self.packed8 = np.ascontiguousarray(packed)
        self.packed = _as_words(self.packed8)
        self.counts = _popcount_rows(self.packed).astype(np.float32)
        self.n = int(packed.shape[0])
        density = float(self.counts.sum()) / max(self.n * n_bits, 1)
        self.csr = _csr_from_packed(self.packed8, n_bits) if density < SPARSE_DENSITY else None

    @property
    def bits(self) -> np.ndarray:
        """The unpacked 0/1 matrix (n, n_bits), uint8 (n_bits bytes per entity: for small n only)."""
        return self._bits(slice(None))

    def _bits(self, idx) -> np.ndarray:
        return np.unpackbits(self.packed8[idx], axis=1, count=self.n_bits)

    @classmethod
    def from_smiles(cls, smiles: Sequence[str], radius: int = 2, n_bits: int = 1024) -> "FingerprintSimilarity":
        """Build from SMILES; raises ValueError listing the positions that RDKit cannot parse."""
        packed, valid = packed_fingerprints(smiles, radius=radius, n_bits=n_bits)
        if not valid.all():
            bad = np.flatnonzero(~valid)
            shown = ", ".join(f"{i}: {smiles[i]!r}" for i in bad[:10])
            raise ValueError(f"{bad.size} invalid SMILES (position: value): {shown}")
        return cls.from_packed(packed, n_bits, radius)

    def identity_keys(self) -> list[bytes]:
        """One key per entity; equal keys = identical fingerprints (clustering.identical_groups)."""
        return [row.tobytes() for row in self.packed8]

    def describe(self) -> dict:
        """What this similarity is, for reports ([`describe_similarity`][])."""
        return {"kind": "fingerprint_tanimoto", "fingerprint": "ECFP (Morgan)", "radius": self.radius,
                "n_bits": int(self.n_bits)}

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        r = _as_index(rows, self.n, "row")
        c = _as_index(cols, self.n, "column")
        if self.csr is None:
            return tanimoto_block(self._bits(r), self._bits(c), self.counts[r], self.counts[c])
        dense_t = np.ascontiguousarray(self._bits(c).T, dtype=np.float32)
        inter = np.asarray(self.csr[r] @ dense_t, dtype=np.float32)
        return _tanimoto_from_intersections(inter, self.counts[r], self.counts[c])

    def one_vs_all(self, i: int) -> np.ndarray:
        if self.csr is not None:  # sparse mat-vec: about twice as fast as popcounts for ECFP4
            inter = self.csr @ self._bits([int(i)])[0].astype(np.float32)
        else:
            inter = _popcount_rows(self.packed & self.packed[int(i)])
        union = self.counts + self.counts[int(i)] - inter
        return (inter / np.maximum(union, 1)).astype(np.float32)

    def pairs(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """sim(i[t], j[t]) for paired index arrays, float64 (popcounts; for sampled estimates)."""
        a = _as_index(i, self.n, "pair")
        b = _as_index(j, self.n, "pair")
        return packed_pair_tanimoto(self.packed, a, b, self.counts.astype(np.int32))

    def self_similarity(self) -> np.ndarray:
        return (self.counts > 0).astype(np.float64)

    def subset(self, index: np.ndarray) -> "FingerprintSimilarity":
        return FingerprintSimilarity.from_packed(self.packed8[_as_index(index, self.n, "subset")], self.n_bits,
                                                 self.radius)


# --------------------------------------------------------------------------- sequences


GAP_CHARACTERS = "-.*"
"""Gap and stop symbols of aligned or translated sequences; a residue alphabet has none of them."""


def gap_characters(seq: object) -> str:
    """The gap / stop characters (``GAP_CHARACTERS``) in ``seq``, in that order ('' when none)."""
    return "".join(c for c in GAP_CHARACTERS if isinstance(seq, str) and c in seq)


def clean_sequence(j: int, seq: object) -> str:
    """``seq`` stripped and upper-cased; ValueError naming position ``j`` when it is empty or missing, or holds
    gap / stop characters (they would be compared as residues: give the unaligned sequences)."""
    if not isinstance(seq, str) or not seq.strip():
        raise ValueError(f"sequence {j} is empty or missing: {seq!r}")
    gaps = gap_characters(seq)
    if gaps:
        raise ValueError(f"sequence {j} holds the gap or stop character(s) {' '.join(map(repr, gaps))}: "
                         f"{_shown(seq)}; give the unaligned sequences (remove {' '.join(map(repr, gaps))})")
    return seq.strip().upper()


def kmer_profiles(sequences: Sequence[str], k: int = 3) -> sp.csr_matrix:
    """Sparse k-mer count matrix (n, #distinct k-mers), rows L2-normalised.

    Sequences are upper-cased; a sequence shorter than k contributes itself as its only "k-mer". An empty
    sequence or one with gap / stop characters is refused (``clean_sequence``).
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    vocab: dict[str, int] = {}
    indptr = [0]
    indices: list[int] = []
    data: list[float] = []
    for j, seq in enumerate(sequences):
        s = clean_sequence(j, seq)
        kmers = [s[t : t + k] for t in range(len(s) - k + 1)] or [s]
        counts: dict[int, int] = {}
        for km in kmers:
            col = vocab.setdefault(km, len(vocab))
            counts[col] = counts.get(col, 0) + 1
        cols = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
        vals = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
        order = np.argsort(cols)
        indices.extend(cols[order].tolist())
        data.extend((vals[order] / np.linalg.norm(vals)).tolist())
        indptr.append(len(indices))
    return sp.csr_matrix(
        (np.asarray(data, dtype=np.float32), np.asarray(indices), np.asarray(indptr)),
        shape=(len(indptr) - 1, max(len(vocab), 1)),
    )


class KmerSimilarity:
    """Cosine similarity of k-mer count profiles: alignment-free, CPU-only sequence similarity.

    Counts are non-negative, so the cosine already lies in [0, 1]; identical sequences score 1.
    ``k``: the k-mer length of the profiles (None: unknown), recorded by ``describe`` only.

    Parameters
    ----------
    profiles : sp.csr_matrix
        (n, n_kmers) k-mer counts per sequence.
    k : int | None
        The k-mer length of the profiles (None: unknown), recorded by ``describe`` only.

    Examples
    --------
    The 2-mers of MKTAY and MKTAW: MK, KT, TA shared, AY and AW not, so the cosine is 3/4:

    >>> from benchdesign.splitting import KmerSimilarity
    >>> sim = KmerSimilarity.from_sequences(["MKTAY", "MKTAW"], k=2)
    >>> sim.block([0, 1], [0, 1]).round(3).tolist()
    [[1.0, 0.75], [0.75, 1.0]]
    >>> sim.describe()
    {'kind': 'kmer_cosine', 'k': 2}
    """

    is_distance = False

    def __init__(self, profiles: sp.csr_matrix, k: int | None = None):
        self.profiles = sp.csr_matrix(profiles, dtype=np.float32)
        self.n = int(self.profiles.shape[0])
        self.k = None if k is None else int(k)

    @classmethod
    def from_sequences(cls, sequences: Sequence[str], k: int = 3) -> "KmerSimilarity":
        return cls(kmer_profiles(sequences, k=k), k)

    def identity_keys(self) -> list[bytes]:
        """One key per entity; equal keys = identical k-mer profiles (clustering.identical_groups)."""
        p = self.profiles
        return [p.indices[p.indptr[i]:p.indptr[i + 1]].tobytes() + b"|" + p.data[p.indptr[i]:p.indptr[i + 1]].tobytes()
                for i in range(self.n)]

    def describe(self) -> dict:
        """What this similarity is, for reports ([`describe_similarity`][])."""
        return {"kind": "kmer_cosine", "k": self.k}

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        r = _as_index(rows, self.n, "row")
        c = _as_index(cols, self.n, "column")
        out = (self.profiles[r] @ self.profiles[c].T).toarray().astype(np.float32)
        return np.clip(out, 0.0, 1.0)

    def one_vs_all(self, i: int) -> np.ndarray:
        return self.block(np.array([i]), np.arange(self.n))[0]

    def self_similarity(self) -> np.ndarray:
        return np.ones(self.n)

    def subset(self, index: np.ndarray) -> "KmerSimilarity":
        return KmerSimilarity(self.profiles[_as_index(index, self.n, "subset")], self.k)


# --------------------------------------------------------------------------- vectors


class VectorSimilarity:
    """Feature vectors compared by cosine similarity or Euclidean distance.

    ``metric="cosine"``: sim = (1 + cos) / 2, the affine map of [-1, 1] onto [0, 1] (zero vectors have
    cos = 0). ``metric="euclidean"``: a distance; sim = 1 - d / d_max with d_max the largest pairwise
    distance (computed block-wise once), so the clustering step uses agglomerative clustering.

    Parameters
    ----------
    features : np.ndarray
        (n, p) feature vectors.
    metric : Literal['cosine', 'euclidean']
        ``'cosine'`` or ``'euclidean'``.
    block_size : int
        Block edge of the computation of d_max.

    Examples
    --------
    Cosine: orthogonal vectors score 0.5, opposite ones 0. Euclidean: the points (0, 0), (3, 4), (6, 8) are 5, 5
    and 10 apart, so d_max = 10:

    >>> import numpy as np
    >>> from benchdesign.splitting import VectorSimilarity
    >>> VectorSimilarity(np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])).block([0], [0, 1, 2]).tolist()
    [[1.0, 0.5, 0.0]]
    >>> sim = VectorSimilarity(np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]), "euclidean")
    >>> sim.d_max, sim.block([0], [0, 1, 2]).tolist()
    (10.0, [[1.0, 0.5, 0.0]])
    """

    def __init__(self, features: np.ndarray, metric: Literal["cosine", "euclidean"] = "cosine",
                 block_size: int = DEFAULT_BLOCK, _d_max: float | None = None):
        x = np.asarray(features, dtype=np.float64)
        if x.ndim != 2:
            raise ValueError(f"features must be 2-D (n, p), got shape {x.shape}")
        if not np.isfinite(x).all():
            bad = np.flatnonzero(~np.isfinite(x).all(axis=1))
            raise ValueError(f"features contain NaN/inf in rows {bad[:10].tolist()}")
        if metric not in ("cosine", "euclidean"):
            raise ValueError(f"metric must be 'cosine' or 'euclidean', got {metric!r}")
        self.metric = metric
        self.is_distance = metric == "euclidean"
        self.n = int(x.shape[0])
        self.block_size = block_size
        if metric == "cosine":
            norms = np.linalg.norm(x, axis=1, keepdims=True)
            self.x = np.divide(x, norms, out=np.zeros_like(x), where=norms > 0).astype(np.float32)
            self.d_max = 0.0
        else:
            self.x = x
            self.sq = np.einsum("ij,ij->i", x, x)
            self.d_max = float(_d_max) if _d_max is not None else self._max_distance()

    def _distances(self, r: np.ndarray, c: np.ndarray) -> np.ndarray:
        d2 = self.sq[r][:, None] + self.sq[c][None, :] - 2.0 * (self.x[r] @ self.x[c].T)
        return np.sqrt(np.maximum(d2, 0.0))

    def _max_distance(self) -> float:
        best = 0.0
        for r0 in range(0, self.n, self.block_size):
            r = np.arange(r0, min(r0 + self.block_size, self.n))
            for c0 in range(r0, self.n, self.block_size):
                c = np.arange(c0, min(c0 + self.block_size, self.n))
                best = max(best, float(self._distances(r, c).max()))
        return best

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        r = _as_index(rows, self.n, "row")
        c = _as_index(cols, self.n, "column")
        if self.metric == "cosine":
            return np.clip((1.0 + self.x[r] @ self.x[c].T) / 2.0, 0.0, 1.0).astype(np.float32)
        if self.d_max == 0.0:
            return np.ones((r.size, c.size), dtype=np.float32)
        return np.clip(1.0 - self._distances(r, c) / self.d_max, 0.0, 1.0).astype(np.float32)

    def one_vs_all(self, i: int) -> np.ndarray:
        return self.block(np.array([i]), np.arange(self.n))[0]

    def identity_keys(self) -> list[bytes]:
        """One key per entity; equal keys = identical feature vectors (clustering.identical_groups)."""
        return [row.tobytes() for row in np.ascontiguousarray(self.x)]

    def describe(self) -> dict:
        """What this similarity is, for reports ([`describe_similarity`][])."""
        return {"kind": "vectors", "metric": self.metric, "n_features": int(self.x.shape[1])}

    def self_similarity(self) -> np.ndarray:
        if self.metric == "cosine":
            return np.where(np.linalg.norm(self.x, axis=1) > 0, 1.0, 0.5)
        return np.ones(self.n)

    def subset(self, index: np.ndarray) -> "VectorSimilarity":
        idx = _as_index(index, self.n, "subset")
        if self.metric == "cosine":
            return VectorSimilarity(self.x[idx], "cosine", self.block_size)
        # keep the scale of the full data so that similarities do not change under subsetting
        return VectorSimilarity(self.x[idx], "euclidean", self.block_size, _d_max=self.d_max)


# --------------------------------------------------------------------------- precomputed


def _first(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, bad: np.ndarray) -> str:
    """'(i, j) = v' of the first flagged entry in row-major order, and how many there are."""
    idx = np.flatnonzero(bad)
    k = idx[np.lexsort((cols[idx], rows[idx]))[0]]
    more = f" ({idx.size} such entries)" if idx.size > 1 else ""
    return f"({int(rows[k])}, {int(cols[k])}) = {float(values[k]):.6g}{more}"


DISTANCE_HINT = "this looks like a distance matrix: pass --matrix-kind distance (matrix_kind: distance)"
"""What ``check_matrix`` advises for a similarity matrix whose rows peak off the diagonal."""


def check_matrix(matrix: np.ndarray | sp.spmatrix, kind: Literal["similarity", "distance"],
                 distance_hint: str = DISTANCE_HINT) -> None:
    """Validate a precomputed similarity / distance matrix the same way, dense or sparse.

    Checks, each error naming the first offending (row, column) position (0-based) and value: square
    shape; finite values; symmetry (tolerance 1e-6); similarities in [0, 1], distances >= 0; each row's
    diagonal entry is its maximum (similarity) or minimum (distance) -- a similarity whose diagonal is
    below some entry of its row looks like a distance, and the reverse. Only stored entries of a sparse
    matrix are checked (a sparse similarity must store its diagonal). ``distance_hint``: the advice given
    when a similarity matrix looks like a distance matrix (default: the command line's and the config's).
    """
    if kind not in ("similarity", "distance"):
        raise ValueError(f"kind must be 'similarity' or 'distance', got {kind!r}")
    shape = matrix.shape
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"a {kind} matrix must be square, got shape {shape}")
    n = int(shape[0])
    if sp.issparse(matrix):
        coo = sp.coo_matrix(matrix, dtype=np.float64)
        coo.sum_duplicates()
        rows, cols, vals = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data
    else:
        dense = np.asarray(matrix, dtype=np.float64)
        rows, cols = np.indices((n, n)).reshape(2, -1)
        vals = dense.ravel()
    where = f"the {kind} matrix"
    bad = ~np.isfinite(vals)
    if bad.any():
        raise ValueError(f"{where} has a non-finite entry at {_first(rows, cols, vals, bad)}")
    if sp.issparse(matrix):
        diff = sp.coo_matrix(abs(coo.tocsr() - coo.tocsr().T))
        asym = diff.data > 1e-6
        if asym.any():
            i, j = diff.row[asym], diff.col[asym]
            k = np.lexsort((j, i))[0]
            r, c = int(i[k]), int(j[k])
            csr = coo.tocsr()
            raise ValueError(f"{where} is not symmetric: ({r}, {c}) = {float(csr[r, c]):.6g} but ({c}, {r}) = "
                             f"{float(csr[c, r]):.6g}")
    else:
        asym = np.abs(dense - dense.T).ravel() > 1e-6
        if asym.any():
            k = np.flatnonzero(asym)[0]
            r, c = int(rows[k]), int(cols[k])
            raise ValueError(f"{where} is not symmetric: ({r}, {c}) = {dense[r, c]:.6g} but ({c}, {r}) = "
                             f"{dense[c, r]:.6g}")
    out_of_range = (vals < 0) | (vals > 1) if kind == "similarity" else vals < 0
    if out_of_range.any():
        allowed = "lie in [0, 1]" if kind == "similarity" else "be >= 0"
        raise ValueError(f"{kind} values must {allowed}; {where} has {_first(rows, cols, vals, out_of_range)}")
    diag = np.zeros(n)
    on_diag = rows == cols
    diag[rows[on_diag]] = vals[on_diag]
    if kind == "similarity":
        worse = vals > diag[rows] + 1e-9
        hint = f"each row's largest similarity must be its diagonal (self-similarity); {distance_hint}"
    else:
        worse = vals < diag[rows] - 1e-9
        hint = ("each row's smallest distance must be its diagonal (distance to itself); this looks like a "
                "similarity matrix: pass --matrix-kind similarity")
    if worse.any():
        k = np.flatnonzero(worse)[np.lexsort((cols[worse], rows[worse]))[0]]
        r = int(rows[k])
        raise ValueError(f"{where}: row {r} has ({r}, {int(cols[k])}) = {vals[k]:.6g} but diagonal ({r}, {r}) = "
                         f"{diag[r]:.6g}; {hint}")


class MatrixSimilarity:
    """A precomputed similarity or distance matrix, dense ndarray or scipy.sparse, checked by
    ``check_matrix`` (the same rules dense or sparse; nothing is rescaled silently).

    Similarities are used as given. Distances are scaled by their maximum, then ``sim = 1 - dist``. In a
    sparse *similarity* matrix missing entries mean similarity 0; in a sparse *distance* matrix missing
    entries mean the maximal distance (similarity 0).

    ``description``: what the matrix holds, returned by ``describe`` (default: a precomputed matrix);
    kept by ``subset``.

    Parameters
    ----------
    matrix : np.ndarray | sp.spmatrix
        The (n, n) matrix.
    kind : Literal['similarity', 'distance']
        Whether it holds similarities or distances.
    description : dict | None
        What the matrix holds, returned by ``describe`` (None: a precomputed matrix).

    Examples
    --------
    Distances 1, 2 and 4, scaled by the largest (4), become similarities 0.75, 0.5 and 0:

    >>> import numpy as np
    >>> from benchdesign.splitting import MatrixSimilarity
    >>> sim = MatrixSimilarity(np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 2.0], [4.0, 2.0, 0.0]]), "distance")
    >>> sim.block([0, 1, 2], [0, 1, 2]).tolist()
    [[1.0, 0.75, 0.0], [0.75, 1.0, 0.5], [0.0, 0.5, 1.0]]
    >>> sim.describe()
    {'kind': 'matrix', 'matrix_kind': 'distance', 'sparse': False}
    """

    def __init__(self, matrix: np.ndarray | sp.spmatrix, kind: Literal["similarity", "distance"] = "similarity",
                 description: dict | None = None):
        check_matrix(matrix, kind)
        self.description = None if description is None else dict(description)
        self.is_distance = kind == "distance"
        self.n = int(matrix.shape[0])
        if sp.issparse(matrix):
            m = sp.csr_matrix(matrix, dtype=np.float64)
            if self.is_distance:
                d_max = m.data.max() if m.data.size else 0.0
                m.data = 1.0 - (m.data / d_max if d_max > 0 else m.data)
                m = m.tolil()
                m.setdiag(1.0)  # d(x, x) = 0 even when the diagonal is not stored
                m = m.tocsr()
            m.eliminate_zeros()
            self.sparse: sp.csr_matrix | None = m
            self.dense: np.ndarray | None = None
        else:
            d = np.asarray(matrix, dtype=np.float64)
            if self.is_distance:
                d_max = d.max()
                d = 1.0 - (d / d_max if d_max > 0 else d)
            self.dense = np.clip(d, 0.0, 1.0).astype(np.float32)
            self.sparse = None

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        r = _as_index(rows, self.n, "row")
        c = _as_index(cols, self.n, "column")
        if self.dense is not None:
            return self.dense[np.ix_(r, c)]
        return self.sparse[r][:, c].toarray().astype(np.float32)

    def one_vs_all(self, i: int) -> np.ndarray:
        return self.block(np.array([i]), np.arange(self.n))[0]

    def describe(self) -> dict:
        """What this similarity is, for reports ([`describe_similarity`][])."""
        if self.description is not None:
            return dict(self.description)
        return {"kind": "matrix", "matrix_kind": "distance" if self.is_distance else "similarity",
                "sparse": self.sparse is not None}

    def self_similarity(self) -> np.ndarray:
        if self.dense is not None:
            return np.diag(self.dense).astype(np.float64)
        return self.sparse.diagonal().astype(np.float64)

    def subset(self, index: np.ndarray) -> "MatrixSimilarity":
        idx = _as_index(index, self.n, "subset")
        out = MatrixSimilarity.__new__(MatrixSimilarity)
        out.description = self.description
        out.is_distance = self.is_distance
        out.n = int(idx.size)
        out.dense = None if self.dense is None else self.dense[np.ix_(idx, idx)]
        out.sparse = None if self.sparse is None else self.sparse[idx][:, idx].tocsr()
        return out


def dense_similarity(source: SimilaritySource) -> np.ndarray:
    """The full n x n similarity matrix (float64); only for small n (tests, tiny instances)."""
    idx = np.arange(source.n)
    return source.block(idx, idx).astype(np.float64)


# --------------------------------------------------------------------------- kinds and descriptions

SEQUENCE_ALPHABET = frozenset("ACDEFGHIKLMNPQRSTVWY" + "XBZUO")  # 20 amino acids + ambiguity / rare codes
SMILES_BARE_ATOMS = frozenset("BCNOPSFI")  # upper-case atoms SMILES may write outside brackets
PROTEIN_ONLY_LETTERS = SEQUENCE_ALPHABET - SMILES_BARE_ATOMS  # A D E G H K L M Q R T V W Y X Z U


def _shown(s: str, width: int = 40) -> str:
    return repr(s if len(s) <= width else s[:width] + "...")


def detect_string_kind(strings: Sequence[str]) -> Literal["smiles", "sequence"]:
    r"""Whether ``strings`` are SMILES or protein sequences, by their alphabet.

    Rule: protein sequences if every string is upper-case amino-acid code (the 20 letters plus X, B, Z, U, O)
    AND some string holds a letter that SMILES cannot write outside brackets (A, D, E, G, H, K, L, M, Q, R,
    T, V, W, Y, X, Z, U); otherwise SMILES. A string with any other character (digits, ``= # ( ) [ ] @ + -
    / \ .``, lower-case aromatic atoms, Cl, Br) can only be SMILES; a string of the letters B C N O P S F I
    alone ("CCO", "C", "NNO", a long carbon chain) is read as SMILES too, whatever its length -- a real
    protein of 20 residues avoids the other 14 amino acids with probability ~1e-12. Lower-case sequences
    count as SMILES: upper-case them or pass kind="sequence". Empty strings are skipped (the builder
    reports them).

    Raises ValueError when some strings can only be SMILES and others only protein sequences.

    Parameters
    ----------
    strings : Sequence[str]
        The strings.

    Returns
    -------
    Literal['smiles', 'sequence']
        The kind.

    Raises
    ------
    ValueError
        When some strings can only be SMILES and others only protein sequences.

    Examples
    --------
    >>> from benchdesign.splitting import detect_string_kind
    >>> detect_string_kind(["CCO", "c1ccccc1O"])
    'smiles'
    >>> detect_string_kind(["MKTAYIAKQRQISFVKSHFSRQ", "GAVLIKEWYH"])
    'sequence'
    """
    smiles_at = protein_at = None
    for i, s in enumerate(strings):
        chars = set(s.strip()) if isinstance(s, str) else set()
        if not chars:
            continue
        if not chars <= SEQUENCE_ALPHABET:
            smiles_at = i if smiles_at is None else smiles_at
        elif chars & PROTEIN_ONLY_LETTERS:
            protein_at = i if protein_at is None else protein_at
        if smiles_at is not None and protein_at is not None:
            raise ValueError(
                f"the strings mix SMILES (e.g. position {smiles_at}: {_shown(strings[smiles_at])}) and protein "
                f"sequences (e.g. position {protein_at}: {_shown(strings[protein_at])}); pass kind='smiles' or "
                "kind='sequence'"
            )
    return "sequence" if protein_at is not None else "smiles"


def describe_similarity(source: SimilaritySource | None) -> dict | None:
    """``source.describe()`` -- kind ('fingerprint_tanimoto', 'alignment_identity', 'kmer_cosine', 'vectors',
    'matrix') and parameters -- or ``{"kind": "custom", "class": ...}`` for a source without it; None for None.

    Parameters
    ----------
    source : SimilaritySource | None
        A similarity source.

    Returns
    -------
    dict | None
        The description; None for None.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.splitting import VectorSimilarity, describe_similarity
    >>> describe_similarity(VectorSimilarity(np.eye(3), "euclidean"))
    {'kind': 'vectors', 'metric': 'euclidean', 'n_features': 3}
    >>> describe_similarity(object()), describe_similarity(None)
    ({'kind': 'custom', 'class': 'object'}, None)
    """
    if source is None:
        return None
    describe = getattr(source, "describe", None)
    return dict(describe()) if callable(describe) else {"kind": "custom", "class": type(source).__name__}


def _alignment_text(d: dict) -> str:
    pre = d.get("prefilter", {})
    return (f"Smith-Waterman identity ({d.get('scoring', '?')}, gap open {d.get('gap_open')}, extend "
            f"{d.get('gap_extend')}; {d.get('identity', '')}; k-mer prefilter k={pre.get('kmer')}, cosine > "
            f"{pre.get('min_kmer')} plus {pre.get('top')} nearest, {d.get('n_aligned_pairs')} pairs aligned)")


def describe_text(d: dict | None) -> str:
    """One-line text of a [`describe_similarity`][] dict."""
    if d is None:
        return "none"
    kind = d.get("kind")
    if kind == "fingerprint_tanimoto":
        radius = "?" if d.get("radius") is None else d["radius"]
        text = f"ECFP Tanimoto (Morgan radius {radius}, {d.get('n_bits')} bits)"
    elif kind == "alignment_identity":
        text = _alignment_text(d)
    elif kind == "mmseqs_identity":
        text = f"MMseqs2 identity ({d.get('identity')}; {d.get('search')}; {d.get('n_pairs', '?')} pairs found)"
    elif kind == "kmer_cosine":
        text = f"{'?' if d.get('k') is None else d['k']}-mer cosine"
    elif kind == "vectors":
        text = f"feature vectors, {d.get('metric')} ({d.get('n_features')} features)"
    elif kind == "matrix":
        text = f"precomputed {d.get('matrix_kind')} matrix ({'sparse' if d.get('sparse') else 'dense'})"
    else:
        text = str(d.get("class", kind))
    where = d.get("column") or d.get("path")
    where = ", ".join(map(str, where)) if isinstance(where, (list, tuple)) else where
    return text + (f" of {where}" if where else "")
