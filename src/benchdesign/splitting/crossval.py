"""Leakage-reduced splits as scikit-learn cross-validators ([`LeakageKFold`][], [`LeakageSplit`][]).

Both are ``sklearn.model_selection.BaseCrossValidator``s: pass them as ``cv=`` to ``cross_val_score``,
``cross_validate`` or ``GridSearchCV`` (with a ``Pipeline`` or any estimator). Each ``split`` call
runs the pipeline of this package (similarity -> clusters -> one ILP over all folds -> refinement,
[`split_entities`][]) and yields (train, test) index arrays. After a
split the splitter holds ``clusters_`` (cluster id per sample, usable as ``groups`` of sklearn's
``GroupKFold``), ``folds_``, ``fold_leakage_`` (scaled L(pi), eq. 20, of every train/test pair) and
``report_`` (solver status, certificate). A second ``split`` of the same ``X`` and ``y`` with the same parameters
reuses the first one's result instead of solving again (``cross_val_score``, then ``GridSearchCV`` with one
splitter): the splits are the same either way.

The similarity comes from the ``similarity`` argument (a similarity source, a precomputed n x n
matrix, or one SMILES / protein sequence per sample) or, when it is None, from ``X`` itself (SMILES
or sequences in a 1-D ``X``, feature vectors in a 2-D ``X``, an n x n matrix with
``kind="precomputed"``). Strings are told apart by their alphabet (``kind="auto"``); protein sequences are
compared by MMseqs2 identity with coverage (``sequence_similarity="mmseqs"``, default), Smith-Waterman
identity (``"alignment"``) or k-mer cosine (``"kmer"``).
``kind_`` and ``report_["similarity"]`` say what was used. For 2-D data (pairs of entities) use
``LeakageKFold.split_pairs``.

Nested CV: [`nested_cross_validate`][] runs a leakage-reduced inner split on each outer training
fold (the inner splitter's similarity is restricted to that fold) and a grid search inside it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import warnings
from collections.abc import Iterator, Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import BaseCrossValidator, GridSearchCV
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import _num_samples

from benchdesign.splitting.ilp import InfeasibleSplitError
from benchdesign.splitting.inputs import MAX_CLASS_LEVELS
from benchdesign.splitting.mmseqs import protein_similarity
from benchdesign.splitting.options import (
    DEFAULT_SEQUENCE_SIMILARITY,
    SEQUENCE_SIMILARITIES,
    SPLIT_DEFAULTS,
    SPLIT_OPTIONS,
    TASK_TABLE,
)
from benchdesign.splitting.sequences import check_sequences
from benchdesign.splitting.similarity import (
    FingerprintSimilarity,
    MatrixSimilarity,
    SimilaritySource,
    VectorSimilarity,
    check_matrix,
    describe_similarity,
    detect_string_kind,
)
from benchdesign.splitting.tasks import (
    EntitySet,
    SplitResult,
    SplitSpec,
    kfold_spec,
    split_entities,
    split_interactions,
)

__all__ = ["KINDS", "LeakageKFold", "LeakageSplit", "build_similarity", "build_similarity_kind",
           "nested_cross_validate"]

KINDS: tuple[str, ...] = ("auto", "smiles", "sequence", "vectors", "precomputed")
_ONE_D_TASKS = tuple(t for t, kind in TASK_TABLE.items() if not kind.two_sided)


def _seed(random_state) -> int:
    """An int seed from ``random_state``: None -> 0 (deterministic), int -> itself, RandomState -> a draw."""
    if random_state is None:
        return 0
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}")
        return int(random_state)
    return int(check_random_state(random_state).randint(2**31 - 1))


def _digest(h, value) -> bool:
    """Feed ``value`` (a parameter, ``X`` or ``y``) into the hash ``h`` by its content; False for a kind whose
    content cannot be read here (then the split is not reused)."""
    if value is None or isinstance(value, (bool, int, float, str, np.integer, np.floating)):
        h.update(repr((type(value).__name__, value)).encode())
        return True
    if sp.issparse(value):
        m = value.tocsr()
        h.update(repr(("sparse", m.shape, str(m.dtype))).encode())
        for part in (m.data, m.indices, m.indptr):
            h.update(np.ascontiguousarray(part).tobytes())
        return True
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return False
    h.update(repr(("array", arr.shape, str(arr.dtype))).encode())
    if arr.dtype.kind in "biufcUS":
        h.update(np.ascontiguousarray(arr).tobytes())
        return True
    if arr.dtype.kind == "O" and all(v is None or isinstance(v, (str, bool, int, float)) for v in arr.flat):
        h.update("\x00".join(repr(v) for v in arr.flat).encode())
        return True
    return False


def _strings(values) -> list[str] | None:
    arr = np.asarray(values, dtype=object).reshape(-1) if not isinstance(values, str) else None
    if arr is None or arr.size == 0 or not all(isinstance(v, str) for v in arr):
        return None
    return arr.tolist()


def build_similarity(data, kind: str = "auto", metric: str = "cosine", kmer: int = 3,
                     sequence_similarity: str = DEFAULT_SEQUENCE_SIMILARITY) -> SimilaritySource:
    """A similarity source from ``data``: a source, an n x n matrix, SMILES, sequences or feature vectors.

    ``kind="auto"`` reads a list of strings as SMILES or protein sequences by [`detect_string_kind`][]. A square
    2-D array of numbers is read as an n x n similarity matrix, checked as the command line's ``--matrix`` (a
    distance matrix is refused); pass ``kind="vectors"`` for n feature vectors of length n.

    Parameters
    ----------
    data : SimilaritySource, array-like or sequence of str
        The data to compare.
    kind : str
        ``'auto'``, ``'smiles'``, ``'sequence'``, ``'vectors'`` or ``'precomputed'``.
    metric : str
        Similarity of feature vectors: ``'cosine'`` or ``'euclidean'``.
    kmer : int
        k of the sequence k-mers.
    sequence_similarity : str
        Similarity of sequences: ``'mmseqs'`` (MMseqs2 identity with coverage,
        [`mmseqs_similarity`][benchdesign.splitting.mmseqs.mmseqs_similarity]), ``'alignment'`` (Smith-Waterman
        identity of the k-mer prefilter's candidate pairs) or ``'kmer'`` (k-mer cosine).

    Returns
    -------
    SimilaritySource
        The similarity over the n entities of ``data``.

    Examples
    --------
    A square array of numbers is a similarity matrix; three feature vectors of length 2 are compared by cosine
    similarity mapped to [0, 1], (1 + cos) / 2; SMILES by the Tanimoto similarity of their Morgan fingerprints:

    >>> import numpy as np
    >>> from benchdesign.splitting import build_similarity
    >>> build_similarity(np.array([[1.0, 0.3], [0.3, 1.0]])).describe()
    {'kind': 'matrix', 'matrix_kind': 'similarity', 'sparse': False}
    >>> vectors = build_similarity(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    >>> type(vectors).__name__, vectors.block([0, 1, 2], [0, 1, 2]).astype(float).round(3).tolist()
    ('VectorSimilarity', [[1.0, 0.5, 0.854], [0.5, 1.0, 0.854], [0.854, 0.854, 1.0]])
    >>> molecules = build_similarity(["CCO", "CCN", "c1ccccc1"])
    >>> type(molecules).__name__, molecules.block([0, 1, 2], [0, 1, 2]).astype(float).round(3).tolist()
    ('FingerprintSimilarity', [[1.0, 0.333, 0.0], [0.333, 1.0, 0.0], [0.0, 0.0, 1.0]])
    """
    return build_similarity_kind(data, kind, metric, kmer, sequence_similarity)[0]


LIBRARY_DISTANCE_HINT = ("this looks like a distance matrix: the cross-validators take similarities in [0, 1], "
                         "e.g. 1 - D / D.max() (or kind='vectors' if the rows are feature vectors)")


def _matrix_similarity(x: np.ndarray, auto: bool) -> MatrixSimilarity:
    """An n x n similarity matrix, checked with the library's advice for a distance matrix (and, when it was
    read as a matrix because it is square, ``auto``, how to have it read as feature vectors)."""
    try:
        check_matrix(x, "similarity", distance_hint=LIBRARY_DISTANCE_HINT)
    except ValueError as err:
        if not auto:
            raise
        raise ValueError(f"{err} (a square array of numbers is read as an n x n similarity matrix under "
                         "kind='auto'; pass kind='vectors' for n feature vectors)") from None
    return MatrixSimilarity(x)


def build_similarity_kind(data, kind: str = "auto", metric: str = "cosine", kmer: int = 3,
                          sequence_similarity: str = DEFAULT_SEQUENCE_SIMILARITY,
                          square_is_matrix: bool = True) -> tuple[SimilaritySource, str]:
    """[`build_similarity`][] and the kind ``data`` was read as: 'source' (given ready), 'smiles',
    'sequence', 'vectors' or 'precomputed'. ``square_is_matrix=False`` reads a square array of numbers as
    feature vectors under ``kind="auto"`` (for ``X``, whose matrix reading needs ``kind="precomputed"``)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if sequence_similarity not in SEQUENCE_SIMILARITIES:
        raise ValueError(f"sequence_similarity must be one of {SEQUENCE_SIMILARITIES}, got {sequence_similarity!r}")
    if isinstance(data, SimilaritySource) and not isinstance(data, np.ndarray):
        return data, "source"
    if sp.issparse(data):
        return MatrixSimilarity(data), "precomputed"
    if hasattr(data, "to_numpy"):  # pandas DataFrame / Series
        data = data.to_numpy()
    strings = _strings(data) if np.asarray(data, dtype=object).ndim <= 2 else None
    if strings is not None and np.asarray(data, dtype=object).squeeze().ndim <= 1:
        if kind in ("vectors", "precomputed"):
            raise ValueError(f"kind={kind!r} needs numbers, got strings")
        read = detect_string_kind(strings) if kind == "auto" else kind
        return _string_similarity(strings, read, kmer, sequence_similarity), read
    if kind in ("smiles", "sequence"):
        raise ValueError(f"kind={kind!r} needs one string per sample")
    x = np.asarray(data, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    square = x.ndim == 2 and x.shape[0] == x.shape[1] > 1
    if kind == "precomputed" or (kind == "auto" and square_is_matrix and square):
        return _matrix_similarity(x, auto=kind == "auto"), "precomputed"
    return VectorSimilarity(x, metric=metric), "vectors"


def _string_similarity(strings: list[str], kind: str, kmer: int, sequence_similarity: str) -> SimilaritySource:
    """ECFP4 Tanimoto of SMILES, or the ``sequence_similarity`` of sequences."""
    if kind == "smiles":
        return FingerprintSimilarity.from_smiles(strings)
    checked = check_sequences(strings)
    if not checked.valid.all():
        bad = np.flatnonzero(~checked.valid)
        shown = "; ".join(f"position {i}: {checked.problems[i]}" for i in bad[:10])
        raise ValueError(f"{bad.size} protein sequences cannot be compared: {shown}"
                         f"{f' and {bad.size - 10} more' if bad.size > 10 else ''} (give the unaligned one-letter "
                         "sequences; benchdesign.splitting.sequences.check_sequences(..., clean=True) removes digits, "
                         "whitespace and gaps)")
    if checked.n_lower_case:
        warnings.warn(f"{checked.n_lower_case} protein sequences had lower-case letters; compared as upper case",
                      UserWarning, stacklevel=4)
    return protein_similarity(checked.sequences, sequence_similarity, kmer)


NOT_CV_OPTIONS = ("seed", "butina_threshold")  # the seed comes from random_state; no Butina task here
_SPEC_PARAMS = tuple(o.name for o in SPLIT_OPTIONS if o.name not in NOT_CV_OPTIONS)
_COMMON_PARAMS = ("similarity", "kind", "metric", "kmer", "sequence_similarity", "task", "stratify", "random_state",
                  *_SPEC_PARAMS)
_D = SPLIT_DEFAULTS


def _same(value, default) -> bool:
    try:
        return bool(value == default) if not isinstance(value, np.ndarray) else False
    except (TypeError, ValueError):
        return False


def _short(value) -> str:
    """A parameter value for ``repr``: itself when short, else its kind and size."""
    if isinstance(value, np.ndarray):
        return f"<array {value.shape}>"
    if hasattr(value, "shape") and hasattr(value, "dtype"):  # sparse matrices, data frames
        return f"<{type(value).__name__} {tuple(value.shape)}>"
    text = repr(value)
    if len(text) <= 40:
        return text
    if isinstance(value, (list, tuple)) or hasattr(value, "__len__"):
        kinds = {type(v).__name__ for v in list(value)[:5]}
        return f"<{len(value)} {'strings' if kinds == {'str'} else 'items'}>"
    return f"<{type(value).__name__}>"


class _LeakageSplitter(BaseCrossValidator, BaseEstimator):
    """Shared parameters and fitting of [`LeakageKFold`][] and [`LeakageSplit`][]."""

    def _set_common(self, params: dict) -> None:
        """Store the shared constructor arguments unchanged (scikit-learn's get_params / clone contract)."""
        for name in _COMMON_PARAMS:
            setattr(self, name, params[name])

    def _spec(self) -> SplitSpec:
        raise NotImplementedError

    def __repr__(self) -> str:
        """The class with the parameters that differ from their defaults, long data summarised (``similarity=<200
        strings>``), as scikit-learn prints estimators but without the whole SMILES list."""
        defaults = {k: v.default for k, v in inspect.signature(type(self).__init__).parameters.items()
                    if k != "self"}
        params = self.get_params(deep=False)
        shown = [f"{name}={_short(params[name])}" for name, default in defaults.items()
                 if name in params and (name in ("n_splits", "fractions") or not _same(params[name], default))]
        return f"{type(self).__name__}({', '.join(shown)})"

    def _common_spec(self) -> SplitSpec:
        return SplitSpec.from_options({**{name: getattr(self, name) for name in _SPEC_PARAMS},
                                       "seed": _seed(self.random_state)})

    def _source(self, X) -> SimilaritySource:
        if self.similarity is None:
            return self._side_source(X, None, square_is_matrix=False)
        return self._side_source(self.similarity, None)

    def _side_source(self, data, side: str | None, square_is_matrix: bool = True) -> SimilaritySource | None:
        """The similarity of ``data`` (None: none) with this splitter's parameters; notes the kind it was read
        as and its description for ``kind_`` / ``report_["similarity"]`` (side None: 1-D; 'a' starts a 2-D split).
        A square ``similarity`` of numbers is an n x n matrix; a square ``X`` (``square_is_matrix=False``) is
        feature vectors unless ``kind="precomputed"``."""
        if side in (None, "a"):
            self._built = {}
        if data is None:
            self._built[side] = None
            return None
        source, read = build_similarity_kind(data, self.kind, self.metric, self.kmer, self.sequence_similarity,
                                             square_is_matrix)
        self._built[side] = {"input_kind": read, "detected": self.kind == "auto" and read in ("smiles", "sequence"),
                             **describe_similarity(source)}
        return source

    def _stratified(self, y) -> bool:
        """Whether to stratify on ``y``: ``stratify`` True / False, or None = when ``y`` holds class labels
        (scikit-learn's ``type_of_target`` 'binary' or 'multiclass', at most MAX_CLASS_LEVELS of them)."""
        if self.stratify is not None and not isinstance(self.stratify, (bool, np.bool_)):
            raise ValueError(f"stratify must be None, True or False, got {self.stratify!r}")
        if self.stratify is False:
            return False
        if y is None:
            if self.stratify:
                raise ValueError("stratify=True needs y in split(X, y)")
            return False
        kind = type_of_target(y)
        categorical = kind in ("binary", "multiclass") and np.unique(np.asarray(y)).size <= MAX_CLASS_LEVELS
        if self.stratify and not categorical:
            raise ValueError(f"stratify=True needs class labels in y, got a {kind} target with "
                             f"{np.unique(np.asarray(y)).size:,} distinct values; bin it first or pass stratify=False")
        return categorical

    def _classes(self, y, n: int) -> tuple[np.ndarray | None, tuple[str, ...]]:
        if not self._stratified(y):
            return None, ()
        labels = np.asarray(y).reshape(-1)
        if labels.size != n:
            raise ValueError(f"y has {labels.size} entries for {n} samples")
        levels, codes = np.unique(labels.astype(str), return_inverse=True)
        return np.eye(levels.size, dtype=bool)[codes], tuple(f"y={v}" for v in levels)

    def _fit_key(self, X, y) -> str | None:
        """A digest of what a fit reads (the parameters, ``X``, ``y``), or None when a part cannot be read by
        content (an object of another kind, or a ``RandomState``, from which every fit draws anew)."""
        params = self.get_params(deep=False)
        if not (params.get("random_state") is None or isinstance(params["random_state"], (int, np.integer))):
            return None
        h = hashlib.sha256(type(self).__name__.encode())
        for name, value in [*sorted(params.items()), ("X", X), ("y", y)]:
            h.update(name.encode())
            if not _digest(h, value):
                return None
        return h.hexdigest()

    def _fit(self, X, y=None) -> SplitResult:
        """The split of ``X`` (and ``y``): solved, or the last one's when nothing it reads has changed."""
        key = self._fit_key(X, y)
        last = self.__dict__.get("_last_fit")
        if key is not None and last is not None and last[0] == key:
            self.__dict__.update(last[2])  # the fitted attributes, e.g. after a split_pairs in between
            return last[1]
        result = self._solve(X, y)
        fitted = {name: value for name, value in self.__dict__.items() if name.endswith("_") and not name.startswith("_")}
        self._last_fit = (key, result, fitted)
        return result

    def _solve(self, X, y=None) -> SplitResult:
        task = str(self.task).upper()
        if task not in TASK_TABLE or TASK_TABLE[task].two_sided:
            raise ValueError(
                f"task must be one of {_ONE_D_TASKS} for split(); use split_pairs for 2-D tasks, got {task!r}"
            )
        n = _num_samples(X)
        needed = TASK_TABLE[task].by_similarity or self.max_similarity is not None
        source = self._source(X) if needed else self._side_source(None, None)  # None, noted as "no similarity"
        if source is not None and source.n != n:
            raise ValueError(f"the similarity covers {source.n} samples but X has {n}")
        classes, names = self._classes(y, n)
        ent = EntitySet(np.array([str(i) for i in range(n)], dtype=object), np.ones(n, dtype=bool), source,
                        classes, names)
        try:
            result = split_entities(task, ent, self._spec())
        except InfeasibleSplitError as err:
            if classes is None or self.stratify is not None or not err.by_classes:
                raise
            raise InfeasibleSplitError(f"{err} (y holds class labels, so the folds are stratified on it by "
                                       "default; stratify=False turns that off)", by_classes=True) from None
        result.report["stratified"] = classes is not None
        self._store(result)
        return result

    def _store(self, result: SplitResult) -> None:
        self.folds_ = result.fold
        self.pair_folds_ = result.pair_folds
        self.report_ = result.report
        self.clusters_ = result.clusters
        cert = result.report.get("certificate", {})
        self.fold_names_ = tuple(result.names)
        per_fold = cert.get("fold_scaled_leakage")
        self.fold_leakage_ = None if per_fold is None else np.array([per_fold[n] for n in self.fold_names_])
        self.scaled_leakage_ = cert.get("scaled_leakage")
        self._store_similarity(result)

    def _store_similarity(self, result: SplitResult) -> None:
        """``kind_`` and ``report_["similarity"]`` from the similarities built for this split (2-D: per side)."""
        built = self.__dict__.pop("_built", {})
        if None in built:
            entry = built[None]
            self.kind_ = None if entry is None else entry["input_kind"]
            result.report["similarity"] = entry
        else:
            self.kind_ = {side: None if e is None else e["input_kind"] for side, e in built.items()}
            result.report["similarity"] = built

    def _pairs(self, result: SplitResult) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        raise NotImplementedError

    def split(self, X, y=None, groups=None):
        """Yield (train, test) index arrays of the samples of ``X``.

        Parameters
        ----------
        X : array-like
            The samples: feature vectors, or (with ``similarity=None``) SMILES / sequences / an n x n matrix.
        y : array-like or None
            Labels, needed with ``stratify=True``.
        groups : None
            Not used: the clusters of the similarity keep similar samples together (``clusters_``). Given
            groups raise a ``UserWarning``, as scikit-learn's ``KFold`` does.

        Yields
        ------
        train : numpy.ndarray
            Indices of the training samples.
        test : numpy.ndarray
            Indices of the test samples.
        """
        if groups is not None:
            warnings.warn(f"The groups parameter is ignored by {type(self).__name__}: its clusters of the "
                          "similarity keep similar samples together (clusters_), not the given groups", UserWarning,
                          stacklevel=2)
        result = self._fit(X, y)
        yield from self._pairs(result)

    def split_pairs(self, pairs_a, pairs_b, similarity_b=None, side: str = "a"):
        """Yield (train, test) indices of 2-D data: one row per pair (entity a, entity b).

        ``self.task`` may be R, I1, I2, S1 or S2. I2 / S2 in [`LeakageKFold`][] (``pair_scheme='cold_both'``):
        fold f tests on the pairs with both entities in f and trains on the pairs with neither in f;
        the others sit that fold out. With ``pair_scheme='same_fold'`` (and in [`LeakageSplit`][])
        a pair whose entities are in different folds is dropped. ``pair_folds_`` holds each pair's
        entity folds, ``report_["fold_usage"]`` the train / test / unused counts per fold, and
        ``report_["side_a"]["fold_weights"]`` (and ``side_b``) every entity fold's entities and share of the pairs.

        Parameters
        ----------
        pairs_a : array-like
            (m,) integer index of each pair's entity a into side a (``self.similarity``).
        pairs_b : array-like
            (m,) integer index of each pair's entity b into side b (``similarity_b``).
        similarity_b : array-like, SimilaritySource or None
            Similarity of side b (needed by S2): SMILES, sequences, a matrix or a source.
        side : str
            Side split by S1 / I1 (``'a'`` or ``'b'``), cold on that side: fold f tests on the pairs whose entity
            is in f and trains on the rest; S2 / I2 split both sides.

        Yields
        ------
        train : numpy.ndarray
            Indices of the training pairs.
        test : numpy.ndarray
            Indices of the test pairs.
        """
        ia = np.asarray(pairs_a, dtype=np.int64).reshape(-1)
        ib = np.asarray(pairs_b, dtype=np.int64).reshape(-1)
        sides = []
        for name, data, idx in (("a", self.similarity, ia), ("b", similarity_b, ib)):
            n = int(idx.max()) + 1 if idx.size else 0
            src = self._side_source(data, name)
            if src is not None:
                n = src.n
            sides.append(EntitySet(np.array([str(i) for i in range(n)], dtype=object), np.ones(n, dtype=bool), src))
        result = split_interactions(str(self.task).upper(), ia, ib, sides[0], sides[1], self._spec(), side=side)
        self._store(result)
        yield from self._pairs(result)


class LeakageKFold(_LeakageSplitter):
    """K-fold cross-validation with similarity-reduced leakage: k equal folds from one ILP.

    Every sample is in exactly one test fold (unless ``max_similarity`` drops it); each fold is the
    test set once, the other k - 1 folds its training set. There are always k folds when there are at least k
    distinct samples (per cold side of 2-D data): clusters too large for a fold are split before the ILP, and
    ``report_["fold_fit"]`` (2-D: ``report_["side_a"]["fold_fit"]``) says which and why. A scikit-learn cross-validator: it can be
    passed as ``cv=`` to ``cross_val_score`` or ``GridSearchCV``. The split options (``clusters`` to
    ``pair_scheme``) have their defaults in one place, ``benchdesign.splitting.options.SPLIT_OPTIONS``,
    shared with the command line and the pipeline.

    Parameters
    ----------
    n_splits : int
        Number of folds k, at least 2.
    similarity : array-like, SimilaritySource or None
        What the similarity is computed from: None uses ``X``; else a similarity source, an (n, n) similarity
        matrix (a distance matrix is refused), or n SMILES strings or protein sequences.
    kind : str
        How ``similarity`` (or ``X``) is read: ``'auto'``, ``'smiles'``, ``'sequence'``, ``'vectors'`` or
        ``'precomputed'``. ``'auto'`` reads strings as SMILES or protein sequences by their alphabet
        ([`detect_string_kind`][]), a square ``similarity`` of numbers as a matrix, a 2-D ``X`` as feature vectors.
    metric : str
        Similarity of feature vectors: ``'cosine'`` or ``'euclidean'``.
    kmer : int
        k of the sequence k-mers (the k-mer similarity, and the prefilter of the alignment identity).
    sequence_similarity : str
        Similarity of protein sequences: ``'mmseqs'`` (MMseqs2 identity with coverage, the default),
        ``'alignment'`` (Smith-Waterman identity of the k-mer prefilter's candidate pairs) or ``'kmer'`` (k-mer
        cosine).
    task : str
        ``'S1'`` (similarity-based: clusters, then the ILP), ``'I1'`` (identity-based: random subject to the
        size and class constraints, eqs. 14-15) or ``'R'`` (random); ``split_pairs`` also takes ``'I2'`` and
        ``'S2'``.
    stratify : bool | None
        Keep the class shares of ``y`` in every fold (eq. 15, within ``delta``, both ways under
        ``stratification='two_sided'``). None: when ``y`` holds class labels (binary or multiclass, not a
        continuous target); True: always (an error without class labels); False: never.
        ``report_["stratified"]`` says which.
    random_state : int or None
        Seed of every random draw; None means 0, so that every call gives the same folds.
    clusters : int | None
        Number of clusters K given to the ILP, at most the number of samples (None: min(50, n), and min(20, n) for
        3 or more folds, where the k-fold ILP grows with K^2 k).
    micro_clusters : int
        Leader pre-clustering size: the units the refinement moves.
    epsilon : float
        Relative tolerance of the fold sizes: fold i holds at least (1 - epsilon) s_i n samples (eqs. 3, 14).
    delta : float
        Relative tolerance of the class shares of every fold (eqs. 4, 15).
    stratification : str
        ``'two_sided'``: every fold's class counts within delta of their share both ways; ``'paper'``: eq. (15)'s
        lower bound only.
    linkage : str
        Similarity between clusters: ``'average'``, ``'single'`` or ``'complete'``.
    solver : str
        cvxpy MILP solver of the ILP.
    time_limit : float
        ILP time limit in seconds, a safety net behind ``node_limit`` (a split it stops depends on the machine and
        its load; the report and summary say so); the best assignment found is then refined.
    node_limit : int | None
        Branch-and-bound node cap: the ILP stops by optimality (``mip_gap``) or after this many nodes, the same on
        every machine and under any load (None: no cap, the time limit alone).
    mip_gap : float | None
        Relative optimality gap at which the ILP stops (0: prove optimality; None: the solver's default).
    refine : bool
        Refine the ILP's assignment by moving and swapping micro-clusters.
    fraction_tolerance : float | None
        The refinement brings every fold within this share of n of its requested size where the clusters
        allow (None: anywhere within ``epsilon``, the paper's choice).
    balance_folds : bool
        With 3 or more folds, also lower the leakiest fold's leakage against the other folds.
    max_similarity : float | None
        Hard threshold t: afterwards no sample has a neighbour above t in another fold (None: no threshold).
    threshold_action : str
        For ``max_similarity``: ``'drop'`` the fewest samples or ``'move'`` whole components.
    certificate_seeds : int
        Random splits of the same sizes scored as the certificate's baseline (0: none).
    pair_scheme : str
        2-D k-fold (I2 / S2 in ``split_pairs``): ``'cold_both'`` (fold f tests on the pairs with both
        entities in f and trains on those with neither) or ``'same_fold'`` (DataSAIL's: pairs across folds
        are dropped).

    Attributes
    ----------
    folds_ : numpy.ndarray
        Fold index per sample after ``split`` (-1: dropped by ``max_similarity``; ``cold_both`` pairs: the
        fold of both entities, else -1).
    pair_folds_ : dict or None
        After ``split_pairs``: side -> each pair's entity fold.
    clusters_ : numpy.ndarray or None
        Cluster id per sample (task S1).
    fold_leakage_ : numpy.ndarray or None
        Scaled L(pi) of each fold against the others, indexed by fold (None without a similarity).
    fold_names_ : tuple[str, ...]
        The name of each fold, in the order of ``fold_leakage_`` and ``folds_``.
    scaled_leakage_ : float
        Scaled L(pi) of all folds (eq. 20).
    report_ : dict
        The full report: solver status, the certificate with its random-split baseline and ILP bound, and
        ``similarity`` (how the data was read; per side for 2-D data).
    kind_ : str, dict or None
        The kind the similarity was read as (``'smiles'``, ``'sequence'``, ``'vectors'``, ``'precomputed'``,
        ``'source'``; None: no similarity needed); after ``split_pairs`` a dict per side ``'a'`` / ``'b'``.

    See Also
    --------
    LeakageSplit : one split into named fractions.

    Examples
    --------
    Eight samples in two groups of similar feature vectors; the two folds keep each group together:

    >>> import numpy as np
    >>> from benchdesign.splitting import LeakageKFold
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.8, 0.2], [0.1, 0.9],
    ...               [0.0, 1.0], [0.2, 0.8], [0.7, 0.7], [0.6, 0.8]])
    >>> cv = LeakageKFold(n_splits=2, clusters=4)
    >>> for train, test in cv.split(X):
    ...     print(train, test)
    [0 1 2 6] [3 4 5 7]
    [3 4 5 7] [0 1 2 6]
    >>> cv.folds_
    array([1, 1, 1, 0, 0, 0, 1, 0])
    """

    def __init__(self, n_splits: int = 5, *, similarity=None, kind: str = "auto", metric: str = "cosine",
                 kmer: int = 3, sequence_similarity: str = DEFAULT_SEQUENCE_SIMILARITY, task: str = "S1",
                 stratify: bool | None = None, random_state=None, clusters: int | None = _D["clusters"],
                 micro_clusters: int = _D["micro_clusters"], epsilon: float = _D["epsilon"],
                 delta: float = _D["delta"], stratification: str = _D["stratification"],
                 linkage: str = _D["linkage"], solver: str = _D["solver"],
                 time_limit: float = _D["time_limit"], node_limit: int | None = _D["node_limit"],
                 mip_gap: float | None = _D["mip_gap"], refine: bool = _D["refine"],
                 fraction_tolerance: float | None = _D["fraction_tolerance"],
                 balance_folds: bool = _D["balance_folds"], max_similarity: float | None = _D["max_similarity"],
                 threshold_action: str = _D["threshold_action"], certificate_seeds: int = _D["certificate_seeds"],
                 pair_scheme: str = _D["pair_scheme"]):
        self.n_splits = n_splits
        self._set_common(locals())

    def _spec(self) -> SplitSpec:
        return kfold_spec(self.n_splits, self._common_spec())

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        """The number of folds k."""
        if isinstance(self.n_splits, bool) or not isinstance(self.n_splits, (int, np.integer)) or self.n_splits < 2:
            raise ValueError(f"n_splits must be an integer >= 2, got {self.n_splits!r}")
        return int(self.n_splits)

    def _pairs(self, result):
        for i in range(len(result.names)):
            yield result.train_test(i)


class LeakageSplit(_LeakageSplitter):
    """One leakage-reduced split into named fractions, as a cross-validator with one iteration.

    ``split`` yields one (train, test) pair: test = the fold named ``test`` (default: the last name),
    train = every other fold (e.g. train + validation; ``folds_`` tells them apart). The split options
    (``clusters`` to ``pair_scheme``) are those of [`LeakageKFold`][], with the defaults of
    ``benchdesign.splitting.options.SPLIT_OPTIONS``.

    Parameters
    ----------
    fractions : Sequence[float]
        Requested share of the samples of each fold.
    names : Sequence[str]
        Name of each fold, one per fraction.
    test : str | None
        Name of the test fold (None: the last name).
    similarity : array-like, SimilaritySource or None
        What the similarity is computed from: None uses ``X``; else a similarity source, an (n, n) similarity
        matrix (a distance matrix is refused), or n SMILES strings or protein sequences.
    kind : str
        How ``similarity`` (or ``X``) is read: ``'auto'``, ``'smiles'``, ``'sequence'``, ``'vectors'`` or
        ``'precomputed'``. ``'auto'`` reads strings as SMILES or protein sequences by their alphabet
        ([`detect_string_kind`][]), a square ``similarity`` of numbers as a matrix, a 2-D ``X`` as feature vectors.
    metric : str
        Similarity of feature vectors: ``'cosine'`` or ``'euclidean'``.
    kmer : int
        k of the sequence k-mers (the k-mer similarity, and the prefilter of the alignment identity).
    sequence_similarity : str
        Similarity of protein sequences: ``'mmseqs'`` (MMseqs2 identity with coverage, the default),
        ``'alignment'`` (Smith-Waterman identity of the k-mer prefilter's candidate pairs) or ``'kmer'`` (k-mer
        cosine).
    task : str
        ``'S1'`` (similarity-based: clusters, then the ILP), ``'I1'`` (identity-based: random subject to the
        size and class constraints, eqs. 14-15) or ``'R'`` (random); ``split_pairs`` also takes ``'I2'`` and
        ``'S2'``.
    stratify : bool | None
        Keep the class shares of ``y`` in every fold (eq. 15, within ``delta``, both ways under
        ``stratification='two_sided'``). None: when ``y`` holds class labels (binary or multiclass, not a
        continuous target); True: always (an error without class labels); False: never.
        ``report_["stratified"]`` says which.
    random_state : int or None
        Seed of every random draw; None means 0, so that every call gives the same folds.
    clusters : int | None
        Number of clusters K given to the ILP, at most the number of samples (None: min(50, n)).
    micro_clusters : int
        Leader pre-clustering size: the units the refinement moves.
    epsilon : float
        Relative tolerance of the fold sizes: fold i holds at least (1 - epsilon) s_i n samples (eqs. 3, 14).
    delta : float
        Relative tolerance of the class shares of every fold (eqs. 4, 15).
    stratification : str
        ``'two_sided'``: every fold's class counts within delta of their share both ways; ``'paper'``: eq. (15)'s
        lower bound only.
    linkage : str
        Similarity between clusters: ``'average'``, ``'single'`` or ``'complete'``.
    solver : str
        cvxpy MILP solver of the ILP.
    time_limit : float
        ILP time limit in seconds, a safety net behind ``node_limit`` (a split it stops depends on the machine and
        its load; the report and summary say so); the best assignment found is then refined.
    node_limit : int | None
        Branch-and-bound node cap: the ILP stops by optimality (``mip_gap``) or after this many nodes, the same on
        every machine and under any load (None: no cap, the time limit alone).
    mip_gap : float | None
        Relative optimality gap at which the ILP stops (0: prove optimality; None: the solver's default).
    refine : bool
        Refine the ILP's assignment by moving and swapping micro-clusters.
    fraction_tolerance : float | None
        The refinement brings every fold within this share of n of its requested size where the clusters
        allow (None: anywhere within ``epsilon``, the paper's choice).
    balance_folds : bool
        With 3 or more folds, also lower the leakiest fold's leakage against the other folds.
    max_similarity : float | None
        Hard threshold t: afterwards no sample has a neighbour above t in another fold (None: no threshold).
    threshold_action : str
        For ``max_similarity``: ``'drop'`` the fewest samples or ``'move'`` whole components.
    certificate_seeds : int
        Random splits of the same sizes scored as the certificate's baseline (0: none).
    pair_scheme : str
        2-D k-fold (I2 / S2 in ``split_pairs``): ``'cold_both'`` (fold f tests on the pairs with both
        entities in f and trains on those with neither) or ``'same_fold'`` (DataSAIL's: pairs across folds
        are dropped).

    Attributes
    ----------
    folds_ : numpy.ndarray
        Fold index per sample after ``split`` (-1: dropped by ``max_similarity``; ``cold_both`` pairs: the
        fold of both entities, else -1).
    pair_folds_ : dict or None
        After ``split_pairs``: side -> each pair's entity fold.
    clusters_ : numpy.ndarray or None
        Cluster id per sample (task S1).
    fold_leakage_ : numpy.ndarray or None
        Scaled L(pi) of each fold against the others, indexed by fold (None without a similarity).
    fold_names_ : tuple[str, ...]
        The name of each fold, in the order of ``fold_leakage_`` and ``folds_``.
    scaled_leakage_ : float
        Scaled L(pi) of all folds (eq. 20).
    report_ : dict
        The full report: solver status, the certificate with its random-split baseline and ILP bound, and
        ``similarity`` (how the data was read; per side for 2-D data).
    kind_ : str, dict or None
        The kind the similarity was read as (``'smiles'``, ``'sequence'``, ``'vectors'``, ``'precomputed'``,
        ``'source'``; None: no similarity needed); after ``split_pairs`` a dict per side ``'a'`` / ``'b'``.

    See Also
    --------
    LeakageKFold : k-fold cross-validation.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.splitting import LeakageSplit
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.8, 0.2], [0.1, 0.9],
    ...               [0.0, 1.0], [0.2, 0.8], [0.7, 0.7], [0.6, 0.8]])
    >>> splitter = LeakageSplit((0.75, 0.25), clusters=4)
    >>> train, test = next(splitter.split(X))
    >>> train, test
    (array([2, 3, 4, 5, 6, 7]), array([0, 1]))
    >>> splitter.get_n_splits()
    1
    """

    def __init__(self, fractions: Sequence[float] = (0.8, 0.2), names: Sequence[str] = ("train", "test"), *,
                 test: str | None = None, similarity=None, kind: str = "auto", metric: str = "cosine",
                 kmer: int = 3, sequence_similarity: str = DEFAULT_SEQUENCE_SIMILARITY, task: str = "S1",
                 stratify: bool | None = None, random_state=None, clusters: int | None = _D["clusters"],
                 micro_clusters: int = _D["micro_clusters"], epsilon: float = _D["epsilon"],
                 delta: float = _D["delta"], stratification: str = _D["stratification"],
                 linkage: str = _D["linkage"], solver: str = _D["solver"],
                 time_limit: float = _D["time_limit"], node_limit: int | None = _D["node_limit"],
                 mip_gap: float | None = _D["mip_gap"], refine: bool = _D["refine"],
                 fraction_tolerance: float | None = _D["fraction_tolerance"],
                 balance_folds: bool = _D["balance_folds"], max_similarity: float | None = _D["max_similarity"],
                 threshold_action: str = _D["threshold_action"], certificate_seeds: int = _D["certificate_seeds"],
                 pair_scheme: str = _D["pair_scheme"]):
        self.fractions = fractions
        self.names = names
        self.test = test
        self._set_common(locals())

    def _spec(self) -> SplitSpec:
        return dataclasses.replace(self._common_spec(), fractions=tuple(float(f) for f in self.fractions),
                                   names=tuple(str(n) for n in self.names))

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        """Always 1."""
        return 1

    def _pairs(self, result):
        names = list(result.names)
        test = names[-1] if self.test is None else str(self.test)
        if test not in names:
            raise ValueError(f"test fold {test!r} is not among the names {names}")
        yield result.train_test(names.index(test))


def _restricted(cv, index: np.ndarray):
    """A clone of ``cv`` whose similarity covers only the samples ``index`` (None: derived from X anyway)."""
    inner = clone(cv)
    if getattr(cv, "similarity", None) is not None:
        source = build_similarity(cv.similarity, cv.kind, cv.metric, cv.kmer, cv.sequence_similarity)
        inner.set_params(similarity=source.subset(np.asarray(index)))
    return inner


def nested_cross_validate(estimator, param_grid: dict | list, X, y, outer_cv: _LeakageSplitter,
                          inner_cv: _LeakageSplitter, scoring=None) -> dict:
    """Nested CV with leakage-reduced splits at both levels.

    For each outer (train, test) pair of ``outer_cv``, ``inner_cv`` (restricted to the outer training
    samples, so it splits only those) drives a ``GridSearchCV(estimator, param_grid)`` on the training
    fold; the refitted best model is scored on the outer test fold.

    Parameters
    ----------
    estimator : estimator
        A scikit-learn estimator.
    param_grid : dict | list
        The grid of ``GridSearchCV``.
    X : array-like
        (n, p) features.
    y : array-like
        (n,) targets.
    outer_cv : _LeakageSplitter
        The outer splitter ([`LeakageKFold`][] or [`LeakageSplit`][]), used as given (as ``cross_validate`` uses
        its ``cv``): it holds the outer split's attributes afterwards, and a split of the same data it made
        before is reused.
    inner_cv : _LeakageSplitter
        The inner splitter; its ``similarity``, if any, is restricted to the outer training samples.
    scoring : str, callable or None
        Scoring of ``GridSearchCV`` and of the outer test folds (None: the estimator's ``score``).

    Returns
    -------
    dict
        ``test_score`` (one per outer fold), ``best_params``, ``outer_fold_leakage`` (array: scaled L(pi) per
        outer fold) and ``inner_fold_leakage`` (per outer fold, an array of the inner folds' values).

    Examples
    --------
    Two outer folds of eight samples; on each outer training fold (four samples) a grid search over two
    ridge penalties with two inner folds. Each outer test fold holds samples unlike the training ones, so the
    scores (R^2) are low:

    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> from benchdesign.splitting import LeakageKFold, nested_cross_validate
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.8, 0.2], [0.1, 0.9],
    ...               [0.0, 1.0], [0.2, 0.8], [0.7, 0.7], [0.6, 0.8]])
    >>> y = X[:, 0] - X[:, 1]
    >>> result = nested_cross_validate(Ridge(), {"alpha": [0.1, 10.0]}, X, y, LeakageKFold(2, clusters=4),
    ...                                LeakageKFold(2, clusters=2))
    >>> result["best_params"]
    [{'alpha': 0.1}, {'alpha': 0.1}]
    >>> result["test_score"].round(2).tolist(), result["outer_fold_leakage"].round(3).tolist()
    ([-1.36, -1.52], [0.432, 0.432])
    >>> [inner.round(3).tolist() for inner in result["inner_fold_leakage"]]
    [[0.487, 0.487], [0.491, 0.491]]
    """
    X_arr = X.to_numpy() if hasattr(X, "to_numpy") else np.asarray(X)
    y_arr = np.asarray(y)
    scores, params, inner_leak = [], [], []
    outer = outer_cv
    for train, test in outer.split(X_arr, y_arr):
        inner = _restricted(inner_cv, train)
        search = GridSearchCV(clone(estimator), param_grid, cv=inner, scoring=scoring)
        search.fit(X_arr[train], y_arr[train])
        scores.append(search.score(X_arr[test], y_arr[test]))
        params.append(search.best_params_)
        inner_leak.append(inner.fold_leakage_)
    return {
        "test_score": np.asarray(scores),
        "best_params": params,
        "outer_fold_leakage": outer.fold_leakage_,
        "inner_fold_leakage": inner_leak,
    }
