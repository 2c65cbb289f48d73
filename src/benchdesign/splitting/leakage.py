"""Leakage of a split: L(pi) (eq. 2), scaled L(pi) (eq. 20) and the max-similarity leakage of eq. (1).

Works for any split, including splits made by other tools: ``folds`` is one label per entity
(ints or strings); negative ints, None, NaN, "" and "unassigned"/"not assigned" mark entities that
belong to no fold, which are left out. Dense sources are processed in tiles of ``block_size``^2, so
no n x n matrix is ever stored; scipy-sparse similarity matrices are processed entry by entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from benchdesign.splitting.similarity import DEFAULT_BLOCK, MatrixSimilarity, SimilaritySource

__all__ = [
    "LeakageSummary",
    "encode_folds",
    "leakage_summary",
    "leakage",
    "scaled_leakage",
    "max_train_similarity",
]

UNASSIGNED_LABELS = frozenset({"", "unassigned", "not assigned", "nan", "none"})


@dataclass(frozen=True)
class LeakageSummary:
    """leakage = L(pi) (eq. 2); total = sum of w_x w_y sim(x, y) over ordered pairs incl. x = y;
    scaled = 2 L(pi) / total (eq. 20, see :func:`scaled_leakage`); n_assigned entities counted."""

    leakage: float
    total: float
    scaled: float
    n_assigned: int


def encode_folds(folds: Sequence[object] | np.ndarray) -> tuple[np.ndarray, list[object]]:
    """Fold labels -> integer codes (n,) with -1 for unassigned entities, plus the fold names."""
    arr = np.asarray(folds, dtype=object).reshape(-1)
    codes = np.full(arr.size, -1, dtype=np.int64)
    names: list[object] = []
    lookup: dict[object, int] = {}
    for i, v in enumerate(arr):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            continue
        if isinstance(v, (int, np.integer)) and v < 0:
            continue
        if isinstance(v, str) and v.strip().lower() in UNASSIGNED_LABELS:
            continue
        key = v.item() if isinstance(v, np.generic) else v
        if key not in lookup:
            lookup[key] = len(names)
            names.append(key)
        codes[i] = lookup[key]
    return codes, names


def _as_source(sim: SimilaritySource | np.ndarray | sp.spmatrix) -> SimilaritySource | sp.csr_matrix:
    if sp.issparse(sim):
        m = sp.csr_matrix(sim, dtype=np.float64)
        if m.shape[0] != m.shape[1]:
            raise ValueError(f"similarity matrix must be square, got shape {m.shape}")
        return m
    if isinstance(sim, np.ndarray):
        return MatrixSimilarity(sim, "similarity")
    return sim


def _weights(weights, n: int) -> np.ndarray:
    if weights is None:
        return np.ones(n)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.size != n:
        raise ValueError(f"weights has {w.size} entries for {n} entities")
    return w


def _summaries_sparse(m: sp.csr_matrix, codes_list: list[np.ndarray], w: np.ndarray) -> list[LeakageSummary]:
    coo = m.tocoo()
    vals = coo.data * w[coo.row] * w[coo.col]
    out = []
    for codes in codes_list:
        keep = (codes[coo.row] >= 0) & (codes[coo.col] >= 0)
        total = float(vals[keep].sum())
        cross = float(vals[keep & (codes[coo.row] != codes[coo.col])].sum())
        out.append(LeakageSummary(cross / 2.0, total, cross / total if total > 0 else 0.0, int((codes >= 0).sum())))
    return out


def leakage_summary(
    sim: SimilaritySource | np.ndarray | sp.spmatrix,
    folds_list: Sequence[Sequence[object] | np.ndarray],
    weights: np.ndarray | None = None,
    block_size: int = DEFAULT_BLOCK,
) -> list[LeakageSummary]:
    """L(pi) and scaled L(pi) of several splits of the same entities in one pass over the similarities.

    Parameters
    ----------
    sim : similarity source, dense (n, n) ndarray or scipy-sparse (n, n) similarity matrix in [0, 1]
    folds_list : splits, each with one fold label per entity
    weights : (n,) entity cardinalities kappa(x), default 1
    """
    src = _as_source(sim)
    n = src.shape[0] if sp.issparse(src) else src.n
    codes_list = []
    for folds in folds_list:
        codes, _ = encode_folds(folds)
        if codes.size != n:
            raise ValueError(f"a split has {codes.size} labels for {n} entities")
        codes_list.append(codes)
    w = _weights(weights, n)
    if sp.issparse(src):
        return _summaries_sparse(src, codes_list, w)
    # tile over the union of assigned entities; per split, unassigned entities get zero weight
    active = np.flatnonzero(np.any(np.stack([c >= 0 for c in codes_list]), axis=0)) if codes_list else np.array([], int)
    totals = np.zeros(len(codes_list))
    same = np.zeros(len(codes_list))
    # per split, columns [w * onehot(fold) | w] (0 for unassigned): for a tile S, with A, B these
    # columns over its rows / columns, sum_f A_f^T S B_f is the same-fold mass and its last column the total
    weighted = []
    for c in codes_list:
        ca = c[active]
        ok = ca >= 0
        cols = np.zeros((active.size, max(int(c.max()) + 1, 1) + 1))
        cols[np.flatnonzero(ok), ca[ok]] = w[active][ok]
        cols[:, -1] = np.where(ok, w[active], 0.0)
        weighted.append(cols)
    stacked = np.hstack(weighted) if weighted else np.zeros((active.size, 0))
    m = active.size
    for r0 in range(0, m, block_size):
        r1 = min(r0 + block_size, m)
        for c0 in range(r0, m, block_size):
            c1 = min(c0 + block_size, m)
            tile = src.block(active[r0:r1], active[c0:c1]).astype(np.float64)
            factor = 1.0 if c0 == r0 else 2.0  # off-diagonal tiles stand for both orders
            products = stacked[r0:r1] * (tile @ stacked[c0:c1])  # one GEMM for every split
            start = 0
            for j, cols in enumerate(weighted):
                sums = products[:, start:start + cols.shape[1]].sum(axis=0)
                start += cols.shape[1]
                totals[j] += factor * sums[-1]
                same[j] += factor * sums[:-1].sum()
    out = []
    for j, codes in enumerate(codes_list):
        cross = totals[j] - same[j]
        out.append(LeakageSummary(cross / 2.0, totals[j], cross / totals[j] if totals[j] > 0 else 0.0,
                                  int((codes >= 0).sum())))
    return out


def leakage(sim, folds, weights: np.ndarray | None = None, block_size: int = DEFAULT_BLOCK) -> float:
    """L(pi) of eq. (2): sum over unordered pairs {x, x'} in different folds of sim(x, x') kappa(x) kappa(x')."""
    return leakage_summary(sim, [folds], weights, block_size)[0].leakage


def scaled_leakage(sim, folds, weights: np.ndarray | None = None, block_size: int = DEFAULT_BLOCK) -> float:
    """Scaled L(pi) of eq. (20), in [0, 1].

    Both sums of eq. (20) run over ordered pairs (x, x') in D x D, the denominator including x = x':
    scaled = 2 L(pi) / sum_{x, x'} kappa(x) kappa(x') sim(x, x'). This is the convention of the
    authors' implementation (``datasail.eval.eval_split``), under which a random split into
    fractions s_i scores about 1 - sum_i s_i^2 (0.32 for 80/20).
    """
    return leakage_summary(sim, [folds], weights, block_size)[0].scaled


def max_train_similarity(
    sim: SimilaritySource | np.ndarray | sp.spmatrix,
    folds: Sequence[object] | np.ndarray,
    test: object,
    train: object | Sequence[object],
    block_size: int = DEFAULT_BLOCK,
) -> np.ndarray:
    """Per test entity x, max over training entities x' of sim(x, x') -- the summand of eq. (1).

    ``test`` is the test fold label, ``train`` one label or several (e.g. ["train", "val"]). The mean
    of the returned array (n_test,) is the leakage of eq. (1); entities follow the order of ``folds``.
    """
    arr = np.asarray(folds, dtype=object).reshape(-1)
    train_labels = [train] if isinstance(train, (str, int, np.integer)) else list(train)
    is_test = np.array([v == test for v in arr], dtype=bool)
    is_train = np.array([v in train_labels for v in arr], dtype=bool)
    if not is_test.any():
        raise ValueError(f"no entity is in the test fold {test!r}")
    if not is_train.any():
        raise ValueError(f"no entity is in the training fold(s) {train_labels!r}")
    rows, cols = np.flatnonzero(is_test), np.flatnonzero(is_train)
    src = _as_source(sim)
    if sp.issparse(src):
        sub = src[rows][:, cols].tocsr()
        best = np.zeros(rows.size)
        nz = sub.getnnz(axis=1) > 0
        best[nz] = sub.max(axis=1).toarray().ravel()[nz]
        return best
    best = np.full(rows.size, -np.inf)
    for r0 in range(0, rows.size, block_size):
        r1 = min(r0 + block_size, rows.size)
        for c0 in range(0, cols.size, block_size):
            c1 = min(c0 + block_size, cols.size)
            tile = src.block(rows[r0:r1], cols[c0:c1])
            best[r0:r1] = np.maximum(best[r0:r1], tile.max(axis=1))
    return best
