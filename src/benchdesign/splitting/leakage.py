"""Leakage of a split: L(pi) (eq. 2), scaled L(pi) (eq. 20) and the max-similarity leakage of eq. (1).

Works for any split, including splits made by other tools: ``folds`` is one label per entity
(ints or strings); negative ints, None, NaN, "" and "unassigned"/"not assigned" mark entities that
belong to no fold, which are left out. Dense sources are processed in tiles of ``block_size``^2, so
no n x n matrix is ever stored; scipy-sparse similarity matrices are processed entry by entry.

At scale (10^12 pairs for 1.6M molecules) two routes: the exact sums over the tiles of a
[`TilePlan`][], computable as independent, resumable shards ([`leakage_shard`][], combined by
[`reduce_leakage_shards`][] to the single-process value bit for bit), and the unbiased sampled
estimate with a confidence interval ([`sampled_leakage`][]), whose cost does not depend on n.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from benchdesign.files import atomic_writer
from benchdesign.splitting.progress import note
from benchdesign.splitting.similarity import DEFAULT_BLOCK, MatrixSimilarity, SimilaritySource

__all__ = [
    "LeakageSummary",
    "SampledLeakage",
    "TilePlan",
    "leakage_shard",
    "pair_similarities",
    "reduce_leakage_shards",
    "reduce_tile_sums",
    "sampled_leakage",
    "split_digest",
    "tile_sums",
    "encode_folds",
    "leakage_summary",
    "leakage",
    "scaled_leakage",
    "max_train_similarity",
    "nearest_other_fold",
]

UNASSIGNED_LABELS = frozenset({"", "unassigned", "not assigned", "nan", "none"})


@dataclass(frozen=True)
class LeakageSummary:
    """Exact leakage of one split: L(pi) (eq. 2) and scaled L(pi) (eq. 20).

    Attributes
    ----------
    leakage : float
        L(pi): the sum over unordered pairs in different folds of w_x w_y sim(x, y).
    total : float
        The eq. (20) denominator: sum of w_x w_y sim(x, y) over ordered pairs, x = y included.
    scaled : float
        2 L(pi) / total (eq. 20, as ``scaled_leakage``), in [0, 1].
    n_assigned : int
        Number of entities in a fold (the others are left out).

    Examples
    --------
    Two pairs of similar entities (0.5 within a pair, 0 between the pairs); the fourth entity is in no fold.
    No similarity crosses train and test, so the leakage is 0; the total is the three self-similarities plus
    the pair (0, 1) in both orders:

    >>> import numpy as np
    >>> from benchdesign.splitting import leakage_summary
    >>> sim = np.array([[1.0, 0.5, 0.0, 0.0], [0.5, 1.0, 0.0, 0.0],
    ...                 [0.0, 0.0, 1.0, 0.5], [0.0, 0.0, 0.5, 1.0]])
    >>> leakage_summary(sim, [["train", "train", "test", "unassigned"]])[0]
    LeakageSummary(leakage=0.0, total=4.0, scaled=0.0, n_assigned=3)
    """

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
    if isinstance(sim, MatrixSimilarity) and sim.sparse is not None:
        return sim.sparse  # its stored pairs through the sparse paths, not n^2 dense tiles
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


def _encode_all(folds_list, n: int) -> list[np.ndarray]:
    codes_list = []
    for folds in folds_list:
        codes, _ = encode_folds(folds)
        if codes.size != n:
            raise ValueError(f"a split has {codes.size} labels for {n} entities")
        codes_list.append(codes)
    return codes_list


def leakage_summary(
    sim: SimilaritySource | np.ndarray | sp.spmatrix,
    folds_list: Sequence[Sequence[object] | np.ndarray],
    weights: np.ndarray | None = None,
    block_size: int = DEFAULT_BLOCK,
) -> list[LeakageSummary]:
    """L(pi) and scaled L(pi) of several splits of the same entities in one pass over the similarities.

    Dense sources go through the tiles of [`TilePlan`][] (``tile_sums``, reduced by
    ``reduce_tile_sums``), so the value equals that of the same tiles computed as separate jobs.

    Parameters
    ----------
    sim : SimilaritySource | np.ndarray | sp.spmatrix
        (n, n) similarities in [0, 1].
    folds_list : Sequence[Sequence[object] | np.ndarray]
        Splits, each with one fold label per entity.
    weights : np.ndarray | None
        (n,) entity cardinalities kappa(x) (None: 1).
    block_size : int
        Tile size of the dense pair sums.

    Returns
    -------
    list[LeakageSummary]
        One per split, in order.

    Examples
    --------
    Two splits of two pairs of similar entities in one pass: keeping each pair in one fold leaks nothing,
    splitting both pairs leaks their two similarities of 0.5:

    >>> import numpy as np
    >>> from benchdesign.splitting import leakage_summary
    >>> sim = np.array([[1.0, 0.5, 0.0, 0.0], [0.5, 1.0, 0.0, 0.0],
    ...                 [0.0, 0.0, 1.0, 0.5], [0.0, 0.0, 0.5, 1.0]])
    >>> [(s.leakage, s.total, round(s.scaled, 3)) for s in leakage_summary(sim, [[0, 0, 1, 1], [0, 1, 0, 1]])]
    [(0.0, 6.0, 0.0), (1.0, 6.0, 0.333)]
    """
    src = _as_source(sim)
    n = src.shape[0] if sp.issparse(src) else src.n
    codes_list = _encode_all(folds_list, n)
    w = _weights(weights, n)
    if sp.issparse(src):
        return _summaries_sparse(src, codes_list, w)
    plan = TilePlan.for_splits(codes_list, block_size)
    values = tile_sums(src, codes_list, w, plan, np.arange(plan.n_tiles))
    return reduce_tile_sums(values, codes_list)


# --------------------------------------------------------------------------- exact, tile by tile


@dataclass(frozen=True)
class TilePlan:
    """The canonical tiling of the exact pair sums, shared by one-pass and sharded computations.

    Upper-triangle tiles (r <= c) of ``block_size`` over the entities assigned in at least one split
    (``active``), numbered row by row. Tile t covers active positions [r0, r1) x [c0, c1); off-diagonal tiles
    stand for both orders.

    Attributes
    ----------
    active : np.ndarray
        Indices of the entities assigned in at least one split.
    block_size : int
        Tile size.

    Examples
    --------
    Four of five entities are assigned (the fourth, code -1, is not); tiles of 2 give 2 blocks and the 3
    upper-triangle tiles (0, 0), (0, 1) and (1, 1):

    >>> import numpy as np
    >>> from benchdesign.splitting import TilePlan
    >>> plan = TilePlan.for_splits([np.array([0, 0, 1, -1, 1])], block_size=2)
    >>> plan.active.tolist(), plan.n_blocks, plan.n_tiles, plan.tile(1)
    ([0, 1, 2, 4], 2, 3, (0, 1))
    >>> plan.shard(0, 2).tolist(), plan.shard(1, 2).tolist()
    ([0, 2], [1])
    """

    active: np.ndarray
    block_size: int

    @classmethod
    def for_splits(cls, codes_list: Sequence[np.ndarray], block_size: int = DEFAULT_BLOCK) -> "TilePlan":
        if block_size < 1:
            raise ValueError(f"block_size must be >= 1, got {block_size}")
        if not codes_list:
            return cls(np.array([], dtype=np.int64), int(block_size))
        active = np.flatnonzero(np.any(np.stack([c >= 0 for c in codes_list]), axis=0))
        return cls(active, int(block_size))

    @property
    def n_blocks(self) -> int:
        return -(-self.active.size // self.block_size)

    @property
    def n_tiles(self) -> int:
        return self.n_blocks * (self.n_blocks + 1) // 2

    def tile(self, t: int) -> tuple[int, int]:
        """Block row and column (r <= c) of tile number t."""
        nb = self.n_blocks
        if not 0 <= t < self.n_tiles:
            raise ValueError(f"tile number must lie in [0, {self.n_tiles}), got {t}")
        # row r starts at tile r * nb - r * (r - 1) / 2
        r = int(np.floor(((2 * nb + 1) - np.sqrt((2 * nb + 1) ** 2 - 8 * t)) / 2))
        while r > 0 and r * nb - r * (r - 1) // 2 > t:
            r -= 1
        while (r + 1) * nb - (r + 1) * r // 2 <= t:
            r += 1
        return r, r + t - (r * nb - r * (r - 1) // 2)

    def shard(self, index: int, n_shards: int) -> np.ndarray:
        """Tile numbers of shard ``index`` of ``n_shards`` (round robin: shards of near-equal work)."""
        if n_shards < 1 or not 0 <= index < n_shards:
            raise ValueError(f"shard index must lie in [0, n_shards) with n_shards >= 1, got {index} of {n_shards}")
        return np.arange(index, self.n_tiles, n_shards)


def _split_columns(codes_list: Sequence[np.ndarray], w: np.ndarray, active: np.ndarray) -> list[np.ndarray]:
    """Per split, columns [w * onehot(fold) | w] over the active entities (0 where unassigned)."""
    weighted = []
    for c in codes_list:
        ca = c[active]
        ok = ca >= 0
        cols = np.zeros((active.size, max(int(c.max()) + 1, 1) + 1))
        cols[np.flatnonzero(ok), ca[ok]] = w[active][ok]
        cols[:, -1] = np.where(ok, w[active], 0.0)
        weighted.append(cols)
    return weighted


def tile_sums(
    src: SimilaritySource,
    codes_list: Sequence[np.ndarray],
    w: np.ndarray,
    plan: TilePlan,
    tiles: np.ndarray,
    checkpoint: str | Path | None = None,
    checkpoint_seconds: float = 60.0,
) -> np.ndarray:
    """Per tile and split, (total, same-fold) pair sums of w_x w_y sim(x, y) over ordered pairs.

    Returns float64 (len(tiles), n_splits, 2). For a tile S with A, B the split columns over its rows /
    columns, sum_f A_f^T S B_f is the same-fold mass and its last column the total. Each tile's values
    depend on that tile only (single-threaded BLAS), so shards computed anywhere reduce to the
    single-process value. With ``checkpoint`` the finished tiles are saved there (atomically, every
    ``checkpoint_seconds``) and a rerun resumes from them.
    """
    tiles = np.asarray(tiles, dtype=np.int64)
    weighted = _split_columns(codes_list, w, plan.active)
    stacked = np.hstack(weighted) if weighted else np.zeros((plan.active.size, 0))
    bounds = np.cumsum([0] + [c.shape[1] for c in weighted])
    out = np.full((tiles.size, len(weighted), 2), np.nan)
    done = np.zeros(tiles.size, dtype=bool)
    if checkpoint is not None and Path(checkpoint).is_file():
        with np.load(checkpoint) as old:
            pos = {int(t): k for k, t in enumerate(tiles)}
            for t, v in zip(old["tiles"], old["values"], strict=True):
                k = pos.get(int(t))
                if k is not None and v.shape == out.shape[1:]:
                    out[k], done[k] = v, True
        note(f"resumed {int(done.sum())} of {tiles.size} tiles from {checkpoint}")
    a, bs = plan.active, plan.block_size
    last_save = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"):
        for k in np.flatnonzero(~done):
            rb, cb = plan.tile(int(tiles[k]))
            r0, r1 = rb * bs, min((rb + 1) * bs, a.size)
            c0, c1 = cb * bs, min((cb + 1) * bs, a.size)
            tile = src.block(a[r0:r1], a[c0:c1]).astype(np.float64)
            factor = 1.0 if rb == cb else 2.0
            sums = (stacked[r0:r1] * (tile @ stacked[c0:c1])).sum(axis=0)
            for j in range(len(weighted)):
                part = sums[bounds[j]:bounds[j + 1]]
                out[k, j] = factor * part[-1], factor * part[:-1].sum()
            done[k] = True
            if checkpoint is not None and time.perf_counter() - last_save > checkpoint_seconds:
                _save_npz(checkpoint, tiles=tiles[done], values=out[done])
                last_save = time.perf_counter()
    if checkpoint is not None:
        _save_npz(checkpoint, tiles=tiles, values=out)
    return out


def _save_npz(path: str | Path, **arrays) -> None:
    """Write ``arrays`` to the .npz file ``path`` atomically (``benchdesign.files.atomic_writer``)."""
    with atomic_writer(path) as fh:
        np.savez(fh, **arrays)


def reduce_tile_sums(values: np.ndarray, codes_list: Sequence[np.ndarray]) -> list[LeakageSummary]:
    """Leakage summaries from every tile's sums (any order: ``math.fsum`` is exactly rounded)."""
    out = []
    for j, codes in enumerate(codes_list):
        total = math.fsum(values[:, j, 0].tolist())
        same = math.fsum(values[:, j, 1].tolist())
        cross = total - same
        out.append(LeakageSummary(cross / 2.0, total, cross / total if total > 0 else 0.0, int((codes >= 0).sum())))
    return out


def split_digest(codes_list: Sequence[np.ndarray], w: np.ndarray, block_size: int) -> str:
    """sha256 of the splits, weights and tile size: partial results of different inputs never mix."""
    h = hashlib.sha256(f"block={block_size};n={w.size};k={len(codes_list)}".encode())
    for c in codes_list:
        h.update(np.ascontiguousarray(c, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(w, dtype=np.float64).tobytes())
    return h.hexdigest()


def leakage_shard(
    sim: SimilaritySource,
    folds_list: Sequence[Sequence[object] | np.ndarray],
    index: int,
    n_shards: int,
    out: str | Path,
    weights: np.ndarray | None = None,
    block_size: int = DEFAULT_BLOCK,
    checkpoint_seconds: float = 60.0,
) -> int:
    """Compute shard ``index`` of ``n_shards`` of the exact tiles and write it to ``out`` (.npz).

    Resumable: an interrupted run leaves ``out + '.part.npz'``, from which a rerun continues. Combine the
    shards with [`reduce_leakage_shards`][].

    Parameters
    ----------
    sim : SimilaritySource
        (n, n) similarities in [0, 1].
    folds_list : Sequence[Sequence[object] | np.ndarray]
        Splits, each with one fold label per entity.
    index : int
        Number of this shard, 0 to ``n_shards`` - 1.
    n_shards : int
        Number of shards the tiles are dealt into.
    out : str | Path
        The shard file to write.
    weights : np.ndarray | None
        (n,) entity cardinalities kappa(x) (None: 1).
    block_size : int
        Tile size; every shard of one computation must use the same.
    checkpoint_seconds : float
        Seconds between checkpoints of the partial file.

    Returns
    -------
    int
        Number of tiles of the shard.

    Examples
    --------
    Two splits of four entities, their 3 tiles of 2 x 2 dealt into two shard files (as two jobs would):

    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from benchdesign.splitting import MatrixSimilarity, leakage_shard
    >>> sim = MatrixSimilarity(np.array([[1.0, 0.5, 0.0, 0.0], [0.5, 1.0, 0.0, 0.0],
    ...                                  [0.0, 0.0, 1.0, 0.5], [0.0, 0.0, 0.5, 1.0]]))
    >>> folds, out = [[0, 0, 1, 1], [0, 1, 0, 1]], Path(tempfile.mkdtemp())
    >>> [leakage_shard(sim, folds, i, 2, out / f"shard{i}.npz", block_size=2) for i in range(2)]
    [2, 1]
    >>> sorted(p.name for p in out.iterdir())
    ['shard0.npz', 'shard1.npz']
    """
    codes_list = _encode_all(folds_list, sim.n)
    w = _weights(weights, sim.n)
    plan = TilePlan.for_splits(codes_list, block_size)
    tiles = plan.shard(index, n_shards)
    part = Path(f"{out}.part.npz")
    values = tile_sums(sim, codes_list, w, plan, tiles, checkpoint=part, checkpoint_seconds=checkpoint_seconds)
    _save_npz(out, tiles=tiles, values=values, n_tiles=np.int64(plan.n_tiles), index=np.int64(index),
              n_shards=np.int64(n_shards), digest=np.str_(split_digest(codes_list, w, block_size)),
              n_assigned=np.array([int((c >= 0).sum()) for c in codes_list], dtype=np.int64))
    part.unlink(missing_ok=True)
    return int(tiles.size)


SHARD_KEYS = ("tiles", "values", "n_tiles", "digest", "n_assigned")  # what reduce_leakage_shards needs


def _read_shard(path: str | Path) -> dict:
    """The arrays of one shard file, ValueError naming the file when it is missing or not a shard."""
    if not Path(path).is_file():
        raise ValueError(f"shard file {path}: not found")
    what = f"shard file {path}: cannot read it as a shard .npz of `leakage --shard`"
    try:
        loaded = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{what} ({exc})") from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        raise ValueError(f"{what} (a single array, not an .npz archive)")
    with loaded as z:
        lacking = [key for key in SHARD_KEYS if key not in z.files]
        if lacking:
            raise ValueError(f"{what} (no {', '.join(lacking)})")
        return {key: z[key].copy() for key in z.files}


def _check_shard_set(shards: list[tuple[str, dict]]) -> None:
    """Every shard index 0 .. n_shards - 1 given once (ValueError naming the missing and repeated ones)."""
    first = shards[0][1]
    if "index" not in first or "n_shards" not in first:
        return  # older files without their index: the tile coverage check still applies
    count = int(first["n_shards"])
    given: dict[int, list[str]] = {}
    for path, z in shards:
        given.setdefault(int(z["index"]), []).append(path)
    missing = [i for i in range(count) if i not in given]
    twice = {i: paths for i, paths in given.items() if len(paths) > 1}
    if missing:
        raise ValueError(f"the shard files do not cover each tile once: shard(s) {', '.join(map(str, missing))} "
                         f"of {count} missing (compute them with "
                         f"`leakage --shard INDEX {count} --shard-out FILE`); given: "
                         + ", ".join(f"{i} ({given[i][0]})" for i in sorted(given)))
    if twice:
        i, paths = next(iter(twice.items()))
        raise ValueError(f"shard {i} of {count} is given {len(paths)} times: {', '.join(paths)}")


def reduce_leakage_shards(paths: Sequence[str | Path]) -> list[LeakageSummary]:
    """Leakage summaries from the shard files of [`leakage_shard`][].

    Parameters
    ----------
    paths : Sequence[str | Path]
        Every shard file of one computation.

    Returns
    -------
    list[LeakageSummary]
        One per split, equal to [`leakage_summary`][] of the same splits.

    Raises
    ------
    ValueError
        Naming the file, if a shard belongs to another computation or is incomplete, or naming the missing
        shard indices, if the files do not cover every tile exactly once.

    Examples
    --------
    The shards of two jobs combine to the one-pass value; a missing shard is refused:

    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from benchdesign.splitting import MatrixSimilarity, leakage_shard, leakage_summary, reduce_leakage_shards
    >>> sim = MatrixSimilarity(np.array([[1.0, 0.5, 0.0, 0.0], [0.5, 1.0, 0.0, 0.0],
    ...                                  [0.0, 0.0, 1.0, 0.5], [0.0, 0.0, 0.5, 1.0]]))
    >>> folds, out = [[0, 0, 1, 1], [0, 1, 0, 1]], Path(tempfile.mkdtemp())
    >>> paths = [out / f"shard{i}.npz" for i in range(2)]
    >>> for i, path in enumerate(paths):
    ...     _ = leakage_shard(sim, folds, i, 2, path, block_size=2)
    >>> summaries = reduce_leakage_shards(paths)
    >>> [s.leakage for s in summaries], summaries == leakage_summary(sim, folds, block_size=2)
    ([0.0, 1.0], True)
    >>> try:
    ...     reduce_leakage_shards(paths[:1])
    ... except ValueError as err:
    ...     print(err)
    the shard files do not cover each tile once: shard(s) 1 of 2 missing ... given: 0 (.../shard0.npz)
    """
    if not paths:
        raise ValueError("no shard files given")
    shards = [(str(p), _read_shard(p)) for p in paths]
    first = shards[0][1]
    digest, n_tiles, n_assigned = str(first["digest"]), int(first["n_tiles"]), first["n_assigned"]
    for p, z in shards:
        if str(z["digest"]) != digest or int(z["n_tiles"]) != n_tiles:
            raise ValueError(f"shard file {p} belongs to a different split, weighting or tiling than {paths[0]}")
        if np.isnan(z["values"]).any():
            raise ValueError(f"shard file {p} is incomplete")
    _check_shard_set(shards)
    all_tiles = np.concatenate([z["tiles"] for _, z in shards])
    counts = np.bincount(all_tiles, minlength=n_tiles)
    if (counts != 1).any():
        missing, twice = np.flatnonzero(counts == 0), np.flatnonzero(counts > 1)
        raise ValueError(f"the shard files do not cover each of the {n_tiles} tiles once: "
                         f"{missing.size} missing (e.g. {missing[:5].tolist()}), {twice.size} repeated")
    fake_codes = [np.zeros(int(k), dtype=np.int64) for k in n_assigned]  # only their counts are used
    return reduce_tile_sums(np.concatenate([z["values"] for _, z in shards]), fake_codes)


# --------------------------------------------------------------------------- sampled

SAMPLE_DESIGNS = ("fold_pairs", "iid")
PILOT_FRACTION = 0.1  # share of the pairs of the fold-pair design that only sets the allocation
MIN_STRATUM_PAIRS = 2  # pairs per stratum in the pilot and in the main sample (a variance needs two)


@dataclass(frozen=True)
class SampledLeakage:
    """Sampled estimate of L(pi) (eq. 2) and scaled L(pi) (eq. 20) with normal confidence intervals.

    Attributes
    ----------
    leakage : float
        Unbiased estimate of L(pi).
    leakage_ci : tuple[float, float]
        Its (low, high) interval at ``confidence``.
    leakage_se : float
        Its standard error.
    total : float
        Unbiased estimate of the eq. (20) denominator.
    total_ci : tuple[float, float]
        Its interval.
    scaled : float
        scaled L(pi), the ratio 2 leakage / total (bias O(1/n_pairs)).
    scaled_ci : tuple[float, float]
        Its interval (delta method).
    scaled_se : float
        Its standard error.
    n_pairs : int
        Pairs drawn.
    n_assigned : int
        Entities in a fold.
    confidence : float
        Level of the intervals.
    seed : int
        Seed of the draws.
    design : str
        ``'fold_pairs'`` (stratified, see [`sampled_leakage`][]) or ``'iid'``.
    n_strata : int
        Strata sampled.
    n_pilot : int
        Pairs of ``n_pairs`` that only set the allocation.

    Examples
    --------
    100 entities with random feature vectors (cosine similarity), split at random; 1,000 sampled pairs
    estimate scaled L(pi), and the interval holds the exact value:

    >>> import numpy as np
    >>> from benchdesign.splitting import VectorSimilarity, sampled_leakage, scaled_leakage
    >>> rng = np.random.default_rng(0)
    >>> sim, folds = VectorSimilarity(rng.random((100, 4))), rng.integers(0, 2, 100)
    >>> est = sampled_leakage(sim, folds, n_pairs=1000, seed=0)
    >>> est.design, est.n_pairs, est.n_pilot, est.n_strata, est.n_assigned
    ('fold_pairs', 1000, 100, 3, 100)
    >>> low, high = est.scaled_ci
    >>> round(low, 3), round(est.scaled, 3), round(high, 3), round(scaled_leakage(sim, folds), 3)
    (0.491, 0.494, 0.496, 0.495)
    """

    leakage: float
    leakage_ci: tuple[float, float]
    leakage_se: float
    total: float
    total_ci: tuple[float, float]
    scaled: float
    scaled_ci: tuple[float, float]
    scaled_se: float
    n_pairs: int
    n_assigned: int
    confidence: float
    seed: int
    design: str = "fold_pairs"
    n_strata: int = 1
    n_pilot: int = 0


def pair_similarities(sim: SimilaritySource | sp.csr_matrix, i: np.ndarray, j: np.ndarray,
                      chunk: int = 256) -> np.ndarray:
    """sim(i[t], j[t]) for paired indices, float64: the source's ``pairs`` when it has one (popcounts
    for fingerprints), entries of a matrix, else the diagonals of small blocks."""
    if sp.issparse(sim):
        return np.asarray(sim[i, j], dtype=np.float64).reshape(-1)
    if hasattr(sim, "pairs"):
        return np.asarray(sim.pairs(i, j), dtype=np.float64)
    if isinstance(sim, MatrixSimilarity) and sim.dense is not None:
        return sim.dense[i, j].astype(np.float64)
    out = np.empty(i.size)
    for t0 in range(0, i.size, chunk):
        out[t0:t0 + chunk] = np.diag(sim.block(i[t0:t0 + chunk], j[t0:t0 + chunk]))
    return out


def _normal_quantile(confidence: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(0.5 + confidence / 2.0))


@dataclass(frozen=True)
class _FoldPairStrata:
    """One stratum per unordered fold pair {f, g}, f <= g, that has pairs of distinct entities.

    mass : sum of w_x w_y over its ordered pairs (x in f, y in g, x != y): W_f W_g for f < g,
    W_f^2 - sum_{x in f} w_x^2 for f = g; factor : 2 for f < g (the pairs (y, x) of the eq. (20)
    sums are not in the stratum), 1 for f = g. So sum(factor * mass) + sum_x w_x^2 = W^2: every
    ordered pair of assigned entities is counted once, the diagonal apart.
    """

    first: np.ndarray
    second: np.ndarray
    mass: np.ndarray
    factor: np.ndarray

    @property
    def cross(self) -> np.ndarray:
        return self.first != self.second


def _fold_pair_strata(codes: np.ndarray, w: np.ndarray) -> _FoldPairStrata:
    """The strata of the fold pairs of the assigned entities' fold ``codes`` (>= 0) and weights ``w``."""
    k = int(codes.max()) + 1
    wf = np.bincount(codes, weights=w, minlength=k)
    qf = np.bincount(codes, weights=w * w, minlength=k)
    f, g = np.triu_indices(k)
    mass = np.where(f == g, wf[f] ** 2 - qf[f], wf[f] * wf[g])
    keep = mass > 0
    return _FoldPairStrata(f[keep], g[keep], mass[keep], np.where(f == g, 1.0, 2.0)[keep])


def _allocate(total: int, scores: np.ndarray, floor: int) -> np.ndarray:
    """``total`` draws over the strata in proportion to ``scores``, at least ``floor`` each (largest
    remainders, deterministic)."""
    extra = total - floor * scores.size
    share = extra * scores / scores.sum()
    counts = np.floor(share).astype(np.int64)
    order = np.argsort(counts - share, kind="stable")
    counts[order[:extra - int(counts.sum())]] += 1
    return counts + floor


class _StratumSampler:
    """Draws pairs of one stratum: x from fold f and y from fold g with probability ∝ w (x != y)."""

    def __init__(self, active: np.ndarray, codes: np.ndarray, w: np.ndarray, rng: np.random.Generator):
        self.rng = rng
        self.uniform = bool(np.all(w == w[0]))
        self.members = [active[codes == f] for f in range(int(codes.max()) + 1)]
        self.cdf = [] if self.uniform else [np.cumsum(w[codes == f]) for f in range(len(self.members))]

    def _fold(self, f: int, size: int) -> np.ndarray:
        m = self.members[f]
        if self.uniform:
            return m[self.rng.integers(m.size, size=size)]
        cdf = self.cdf[f]
        pos = np.searchsorted(cdf, self.rng.random(size) * cdf[-1], side="right")
        return m[np.minimum(pos, m.size - 1)]

    def pairs(self, f: int, g: int, size: int) -> tuple[np.ndarray, np.ndarray]:
        i, j = self._fold(f, size), self._fold(g, size)
        same = np.flatnonzero(i == j)
        while same.size:  # only for f = g: pairs (x, x) are redrawn, the diagonal is added exactly
            j[same] = self._fold(g, same.size)
            same = same[i[same] == j[same]]
        return i, j


def _stratum_moments(src, sampler: _StratumSampler, strata: _FoldPairStrata, counts: np.ndarray):
    """Per stratum the mean and the variance (ddof 1) of sim over ``counts`` drawn pairs."""
    drawn = [sampler.pairs(int(f), int(g), int(c)) for f, g, c in zip(strata.first, strata.second, counts)]
    y = pair_similarities(src, np.concatenate([d[0] for d in drawn]), np.concatenate([d[1] for d in drawn]))
    label = np.repeat(np.arange(counts.size), counts)
    mean = np.bincount(label, weights=y, minlength=counts.size) / counts
    var = np.bincount(label, weights=(y - mean[label]) ** 2, minlength=counts.size) / (counts - 1)
    return mean, var


def _fold_pair_estimate(src, active, codes, w, diag, n_pairs, rng):
    """L(pi), total and scaled L(pi) with their variances from the fold-pair stratified design."""
    ca, wa = codes[active], w[active]
    strata = _fold_pair_strata(ca, wa)
    k = strata.mass.size
    if k == 0:
        raise ValueError("sampled leakage needs two distinct assigned entities with positive weights, got none")
    floor = MIN_STRATUM_PAIRS * k
    if n_pairs < 2 * floor:
        raise ValueError(f"the number of sampled pairs must be >= {2 * floor} ({MIN_STRATUM_PAIRS} per stratum in the "
                         f"pilot and in the main sample, {k} strata of fold pairs), got {n_pairs}")
    sampler = _StratumSampler(active, ca, wa, rng)
    fm = strata.factor * strata.mass
    cross = strata.cross.astype(np.float64)
    n_pilot = min(max(floor, round(PILOT_FRACTION * n_pairs)), n_pairs - floor)
    mean, var = _stratum_moments(src, sampler, strata, _allocate(n_pilot, fm, MIN_STRATUM_PAIRS))
    ratio = _combine_strata(strata, diag, mean, var)[4]
    # half Neyman allocation for the scaled leakage (n_s ∝ |d ratio / d mean_s| * sd_s, the pilot's), half
    # proportional (n_s ∝ factor * mass): a pilot's poor variance estimate cannot starve a stratum
    neyman = fm * np.abs(cross - ratio) * np.sqrt(var)
    scores = fm / fm.sum() + (neyman / neyman.sum() if neyman.sum() > 0 else fm / fm.sum())
    counts = _allocate(n_pairs - n_pilot, scores, MIN_STRATUM_PAIRS)
    mean, var = _stratum_moments(src, sampler, strata, counts)  # the pilot is left out: unbiased given the counts
    return (*_combine_strata(strata, diag, mean, var / counts), k, n_pilot)


def _combine_strata(strata: _FoldPairStrata, diag: float, mean: np.ndarray, var_mean: np.ndarray):
    """L(pi), total, scaled L(pi) and their variances from the strata's mean similarities ``mean`` and the
    variances of those means: L = sum over cross-fold strata of mass * mean, total = diag + sum of
    factor * mass * mean, scaled = 2 L / total (delta method: d scaled / d mean_s = factor_s mass_s
    (cross_s - scaled) / total)."""
    fm = strata.factor * strata.mass
    cross = strata.cross.astype(np.float64)
    total = diag + float(fm @ mean)
    leak = float(strata.mass @ (cross * mean))
    ratio = 2.0 * leak / total if total > 0 else 0.0
    grad = fm * (cross - ratio) / total if total > 0 else np.zeros(mean.size)
    return (leak, float((strata.mass ** 2 * cross) @ var_mean), total, float(fm ** 2 @ var_mean), ratio,
            float(grad ** 2 @ var_mean))


def _iid_estimate(src, active, codes, w, diag, n_pairs, rng):
    """The same from ``n_pairs`` independent pairs of distinct entities drawn with probability ∝ w_x w_y."""
    wa = w[active]
    big_c = float(wa.sum()) ** 2 - float((wa * wa).sum())
    p = None if np.all(wa == wa[0]) else wa / wa.sum()

    def draw(size: int) -> np.ndarray:
        return rng.choice(active.size, size=size, p=p) if p is not None else rng.integers(active.size, size=size)

    i, j = draw(n_pairs), draw(n_pairs)
    same = np.flatnonzero(i == j)
    while same.size:  # redraw pairs (x, x): the diagonal is added exactly
        j[same] = draw(same.size)
        same = same[i[same] == j[same]]
    i, j = active[i], active[j]
    y = pair_similarities(src, i, j)
    x = np.where(codes[i] != codes[j], y, 0.0)
    mx, my = float(x.mean()), float(y.mean())
    leak, total = big_c * mx / 2.0, diag + big_c * my
    ratio = 2.0 * leak / total if total > 0 else 0.0
    # delta method for ratio = c mx / (diag + c my): gradient (a, b) in (mx, my)
    a, b = (big_c / total, -big_c * big_c * mx / total ** 2) if total > 0 else (0.0, 0.0)
    return (leak, (big_c / 2.0) ** 2 * float(x.var(ddof=1)) / n_pairs, total,
            big_c ** 2 * float(y.var(ddof=1)) / n_pairs, ratio, float(np.var(a * x + b * y, ddof=1)) / n_pairs, 1, 0)


def sampled_leakage(
    sim: SimilaritySource | np.ndarray | sp.spmatrix,
    folds: Sequence[object] | np.ndarray,
    n_pairs: int,
    weights: np.ndarray | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    design: str = "fold_pairs",
) -> SampledLeakage:
    """Estimate L(pi) and scaled L(pi) from ``n_pairs`` random pairs of distinct assigned entities.

    Both designs draw pairs (x, y), x != y, with probability ∝ w_x w_y and add the diagonal
    sum_x w_x^2 sim(x, x) of the eq. (20) denominator exactly (O(n)); their cost is O(n_pairs + n).

    ``"fold_pairs"`` (default) stratifies by the unordered pair of folds {fold(x), fold(y)}: the
    stratum masses (sums of w_x w_y, e.g. W_train W_test) are known exactly, so the only uncertainty
    left is the spread of sim within a stratum, not whether a pair crosses folds (3x to 10x less
    variance than iid pairs for 80/20 splits of QM8 and MUV). A pilot of ``PILOT_FRACTION`` of the
    pairs (proportional allocation) sets the allocation of the rest (half Neyman for scaled L(pi),
    half proportional); the
    estimates use the rest only, so given its allocation each stratum sum mass * mean(sim) is
    unbiased, hence L^ (sum over cross-fold strata) and total^. Needs n_pairs >= 4 per stratum.
    ``"iid"``: independent pairs over all assigned entities, E[sim 1{fold(x) != fold(y)}] = 2 L / C
    with C = W^2 - sum_x w_x^2.

    scaled^ = 2 L^ / total^ is a ratio of unbiased estimates (bias O(1/n_pairs)); all intervals are
    normal, scaled^'s by the delta method.

    Parameters
    ----------
    sim : SimilaritySource | np.ndarray | sp.spmatrix
        (n, n) similarities in [0, 1].
    folds : Sequence[object] | np.ndarray
        One fold label per entity.
    n_pairs : int
        Pairs drawn, at least 2.
    weights : np.ndarray | None
        (n,) entity cardinalities kappa(x) (None: 1).
    seed : int
        Seed of the draws.
    confidence : float
        Level of the intervals, in (0, 1).
    design : str
        ``'fold_pairs'`` or ``'iid'``.

    Returns
    -------
    SampledLeakage
        The estimates with their intervals and standard errors.

    Examples
    --------
    Every pair of distinct entities has similarity 0.5, so L(pi) of a 5/5 split is 0.5 x 5 x 5 = 12.5. The
    fold-pair design knows the number of cross-fold pairs exactly and so finds it exactly; independent pairs
    estimate it with an interval:

    >>> import numpy as np
    >>> from benchdesign.splitting import sampled_leakage
    >>> sim = np.full((10, 10), 0.5)
    >>> np.fill_diagonal(sim, 1.0)
    >>> folds = ["train"] * 5 + ["test"] * 5
    >>> est = sampled_leakage(sim, folds, n_pairs=100, seed=0)
    >>> est.leakage, est.leakage_ci, round(est.scaled, 3)
    (12.5, (12.5, 12.5), 0.455)
    >>> iid = sampled_leakage(sim, folds, n_pairs=100, seed=0, design="iid")
    >>> round(iid.leakage, 2), tuple(round(v, 2) for v in iid.leakage_ci)
    (13.5, (11.33, 15.67))
    """
    if n_pairs < 2:
        raise ValueError(f"the number of sampled pairs must be >= 2, got {n_pairs}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    if design not in SAMPLE_DESIGNS:
        raise ValueError(f"design must be one of {SAMPLE_DESIGNS}, got {design!r}")
    src = _as_source(sim)
    n = src.shape[0] if sp.issparse(src) else src.n
    codes = _encode_all([folds], n)[0]
    w = _weights(weights, n)
    active = np.flatnonzero(codes >= 0)
    if active.size < 2:
        raise ValueError(f"sampled leakage needs at least two entities assigned to folds, got {active.size}")
    wa = w[active]
    self_sim = (src.diagonal() if sp.issparse(src) else src.self_similarity())[active]
    diag = float((wa * wa * self_sim).sum())
    rng = np.random.default_rng(seed)
    estimate = _fold_pair_estimate if design == "fold_pairs" else _iid_estimate
    leak, leak_var, total, total_var, ratio, ratio_var, n_strata, n_pilot = estimate(
        src, active, codes, w, diag, int(n_pairs), rng)
    z = _normal_quantile(confidence)
    leak_se, total_se, ratio_se = math.sqrt(leak_var), math.sqrt(total_var), math.sqrt(ratio_var)
    return SampledLeakage(
        leakage=leak, leakage_ci=(leak - z * leak_se, leak + z * leak_se), leakage_se=leak_se,
        total=total, total_ci=(total - z * total_se, total + z * total_se),
        scaled=ratio, scaled_ci=(ratio - z * ratio_se, ratio + z * ratio_se), scaled_se=ratio_se,
        n_pairs=int(n_pairs), n_assigned=int(active.size), confidence=float(confidence), seed=int(seed),
        design=design, n_strata=n_strata, n_pilot=n_pilot,
    )


def leakage(sim, folds, weights: np.ndarray | None = None, block_size: int = DEFAULT_BLOCK) -> float:
    """L(pi) of eq. (2): the similarity between the folds of a split.

    The sum over unordered pairs {x, x'} in different folds of sim(x, x') kappa(x) kappa(x'). Works for any
    split, also one made by another tool.

    Parameters
    ----------
    sim : SimilaritySource, numpy.ndarray or scipy.sparse matrix
        (n, n) similarities in [0, 1].
    folds : sequence
        One fold label per entity; negative ints, None, NaN, "" and "unassigned" mark entities in no fold.
    weights : np.ndarray | None
        (n,) entity cardinalities kappa(x) (None: 1).
    block_size : int
        Tile size of the dense pair sums.

    Returns
    -------
    float
        L(pi).

    See Also
    --------
    scaled_leakage : L(pi) scaled to [0, 1] (eq. 20).

    Examples
    --------
    Two pairs of similar entities: kept together, little similarity crosses the folds; split up, much does:

    >>> import numpy as np
    >>> from benchdesign.splitting.leakage import leakage, scaled_leakage
    >>> sim = np.array([[1.0, 0.9, 0.1, 0.0], [0.9, 1.0, 0.2, 0.1],
    ...                 [0.1, 0.2, 1.0, 0.8], [0.0, 0.1, 0.8, 1.0]])
    >>> round(leakage(sim, [0, 0, 1, 1]), 3), round(leakage(sim, [0, 1, 0, 1]), 3)
    (0.4, 1.9)
    >>> round(scaled_leakage(sim, ["train", "train", "test", "test"]), 3)
    0.098
    """
    return leakage_summary(sim, [folds], weights, block_size)[0].leakage


def scaled_leakage(sim, folds, weights: np.ndarray | None = None, block_size: int = DEFAULT_BLOCK) -> float:
    """Scaled L(pi) of eq. (20), in [0, 1].

    Both sums of eq. (20) run over ordered pairs (x, x') in D x D, the denominator including x = x':
    scaled = 2 L(pi) / sum_{x, x'} kappa(x) kappa(x') sim(x, x'). This is the convention of the
    authors' implementation (``datasail.eval.eval_split``), under which a random split into
    fractions s_i scores about 1 - sum_i s_i^2 (0.32 for 80/20).

    Parameters
    ----------
    sim : SimilaritySource, numpy.ndarray or scipy.sparse matrix
        (n, n) similarities in [0, 1].
    folds : sequence
        One fold label per entity; negative ints, None, NaN, "" and "unassigned" mark entities in no fold.
    weights : np.ndarray | None
        (n,) entity cardinalities kappa(x) (None: 1).
    block_size : int
        Tile size of the dense pair sums.

    Returns
    -------
    float
        Scaled L(pi).

    Examples
    --------
    Two pairs of identical entities: a split that keeps each pair in one fold scores 0, one that splits both
    pairs scores 0.5 (4 of the 8 ordered pairs of similarity 1 cross the folds); an unassigned entity is left
    out:

    >>> import numpy as np
    >>> from benchdesign.splitting import scaled_leakage
    >>> sim = np.array([[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0],
    ...                 [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]])
    >>> scaled_leakage(sim, ["train", "train", "test", "test"]), scaled_leakage(sim, ["train", "test", "train", "test"])
    (0.0, 0.5)
    >>> round(scaled_leakage(sim, ["train", "test", "train", "unassigned"]), 3)
    0.4
    """
    return leakage_summary(sim, [folds], weights, block_size)[0].scaled


def max_train_similarity(
    sim: SimilaritySource | np.ndarray | sp.spmatrix,
    folds: Sequence[object] | np.ndarray,
    test: object,
    train: object | Sequence[object],
    block_size: int = DEFAULT_BLOCK,
) -> np.ndarray:
    """Per test entity x, the max over training entities x' of sim(x, x'): the summand of eq. (1).

    Parameters
    ----------
    sim : SimilaritySource | np.ndarray | sp.spmatrix
        (n, n) similarities in [0, 1].
    folds : Sequence[object] | np.ndarray
        One fold label per entity.
    test : object
        The label of the test fold.
    train : object | Sequence[object]
        The label of the training fold, or several (e.g. ``["train", "val"]``).
    block_size : int
        Tile size of the dense computation.

    Returns
    -------
    np.ndarray
        (n_test,) maximum similarities, in the order of ``folds``; their mean is the leakage of eq. (1). A
        source with a ``max_to(rows, cols)`` method (MMseqs2 identity) answers by its own search over every
        training entity.

    Examples
    --------
    Test entity 2 is most similar to training entity 0 (0.9), test entity 3 to training entity 1 (0.4):

    >>> import numpy as np
    >>> from benchdesign.splitting import max_train_similarity
    >>> sim = np.array([[1.0, 0.2, 0.9, 0.1], [0.2, 1.0, 0.3, 0.4],
    ...                 [0.9, 0.3, 1.0, 0.2], [0.1, 0.4, 0.2, 1.0]])
    >>> nearest = max_train_similarity(sim, ["train", "train", "test", "test"], test="test", train="train")
    >>> nearest.round(2).tolist(), round(float(nearest.mean()), 2)
    ([0.9, 0.4], 0.65)
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
    search = getattr(sim, "max_to", None)
    if callable(search):  # a source that searches every pair itself (mmseqs.MmseqsSimilarity), not its matrix
        return search(rows, cols)
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


def nearest_other_fold(
    sim: SimilaritySource | np.ndarray | sp.spmatrix,
    codes_list: Sequence[np.ndarray],
    rows: np.ndarray | None = None,
    block_size: int = DEFAULT_BLOCK,
) -> np.ndarray:
    """Per entity and split, its maximum similarity to the entities of the other folds (eq. 1's summand).

    Several splits of the same entities share one pass over the similarities: each tile is computed once
    and reduced once per split. Without ``rows`` every assigned entity is reported and only the upper
    triangle of tiles is computed (each tile serves its rows and its columns), so the cost is that of
    n^2 / 2 similarities whatever the number of splits.

    Parameters
    ----------
    sim : SimilaritySource | np.ndarray | sp.spmatrix
        (n, n) similarities in [0, 1].
    codes_list : Sequence[np.ndarray]
        Splits as integer fold codes (n,), -1 = in no fold (``encode_folds``).
    rows : np.ndarray | None
        The entities to report (e.g. a seeded sample); None = every entity assigned in some split.
    block_size : int
        Tile size.

    Returns
    -------
    np.ndarray
        (n_splits, n_rows) maxima, float64; NaN where the entity is in no fold of that split or no other
        fold has an entity. Rows in the order of ``rows`` (default: ascending entity index).

    Examples
    --------
    >>> import numpy as np
    >>> sim = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.3], [0.1, 0.3, 1.0]])
    >>> nearest_other_fold(sim, [np.array([0, 0, 1]), np.array([0, 1, 1])]).round(2)
    array([[0.1, 0.3, 0.3],
           [0.9, 0.9, 0.1]])
    """
    src = _as_source(sim)
    n = src.shape[0] if sp.issparse(src) else src.n
    codes = np.stack([np.asarray(c, dtype=np.int64).reshape(-1) for c in codes_list])
    if codes.shape[1] != n:
        raise ValueError(f"a split has {codes.shape[1]} fold codes for {n} entities")
    cols = np.flatnonzero((codes >= 0).any(axis=0))
    row_idx = cols if rows is None else np.asarray(rows, dtype=np.int64).reshape(-1)
    if sp.issparse(src):
        best = _nearest_other_fold_sparse(src, codes, row_idx)
    else:
        best = _nearest_other_fold_tiles(src, codes, row_idx, cols, rows is None, block_size)
    for s, c in enumerate(codes):  # no entity in another fold (or in no fold itself): no neighbour
        assigned = np.bincount(c[c >= 0], minlength=1)
        own = np.where(c[row_idx] >= 0, assigned[np.maximum(c[row_idx], 0)], assigned.sum())
        best[s, own == assigned.sum()] = np.nan
    return best


def _nearest_other_fold_sparse(m: sp.csr_matrix, codes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    sub = m[rows].tocoo()
    best = np.zeros((codes.shape[0], rows.size))  # an entry not stored is a similarity of 0
    for s, c in enumerate(codes):
        a, b = c[rows[sub.row]], c[sub.col]
        keep = (b >= 0) & (a != b)
        np.maximum.at(best[s], sub.row[keep], sub.data[keep])
    return best


def _nearest_other_fold_tiles(src: SimilaritySource, codes: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                              symmetric: bool, block_size: int) -> np.ndarray:
    """Tile loop of ``nearest_other_fold``: rows x cols, or (``symmetric``, rows = cols) the upper triangle.

    Same-fold and unassigned entries are zeroed by a product with the mask (similarities are >= 0, so a
    zero never raises a maximum; 4x faster than ``np.max(where=...)``); ``nearest_other_fold`` then sets
    NaN for entities with no entity in another fold.
    """
    best = np.full((codes.shape[0], rows.size), -np.inf)
    starts_r, starts_c = range(0, rows.size, block_size), range(0, cols.size, block_size)
    tiles = [(r0, c0) for r0 in starts_r for c0 in starts_c if not symmetric or c0 >= r0]
    step = max(1, len(tiles) // 10)
    with threadpool_limits(limits=1, user_api="blas"):
        for t, (r0, c0) in enumerate(tiles):
            ri, ci = rows[r0:r0 + block_size], cols[c0:c0 + block_size]
            tile = src.block(ri, ci)
            for s, c in enumerate(codes):
                a, b = c[ri], c[ci]
                other = a[:, None] != b[None, :]
                if (b < 0).any() or (a < 0).any():
                    other &= (b >= 0)[None, :] & (a >= 0)[:, None]
                kept = np.multiply(tile, other)
                rb = best[s, r0:r0 + ri.size]
                np.maximum(rb, kept.max(axis=1), out=rb)
                if symmetric and c0 != r0:
                    cb = best[s, c0:c0 + ci.size]
                    np.maximum(cb, kept.max(axis=0), out=cb)
            if (t + 1) % step == 0 and len(tiles) >= 20:
                note(f"nearest neighbours: {t + 1} of {len(tiles)} tiles")
    return best
