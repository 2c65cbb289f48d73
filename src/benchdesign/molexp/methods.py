"""The split methods compared in the molecular experiments, behind one call per data kind.

1-D (molecules): ``random`` (R; for a stratified dataset I1 with the label as class, i.e. the classical
stratified split), ``s1`` (this library's S1, stratified where the dataset is), ``scaffold``,
``fingerprint`` (DeepChem's max-dissimilarity split), ``lohi`` (LoHi's Hi split) and ``datasail_s1``
(the datasail package's own S1, run in a subprocess with a time limit).
2-D (drug-target pairs): ``random`` (R over pairs), ``i1_drug`` / ``i1_target`` and ``s1`` /
``s1_target`` (split one side, pairs follow it), ``i2`` and ``s2`` (both sides; pairs whose drug and
target land in different folds are dropped), and the paper's peers of Fig. 4 on one side, pairs
following (:mod:`benchdesign.molexp.pair_peers`): ``fingerprint_drug`` (DeepChem's split of the drugs),
``lohi_drug`` (LoHi's Hi split of the drugs) and ``graphpart_target`` (GraphPart on the target sequences).

Every method returns one fold per row (0 = train, 1 = test for 80/20; -1 = left out) and a report.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence

import numpy as np

from benchdesign.molexp.pair_peers import PAIR_PEERS, split_pairs_by_peer
from benchdesign.splitting import EntitySet, SimilaritySource, SplitSpec, split_entities, split_interactions
from benchdesign.splitting.options import IDENTITY_SPLIT_OPTIONS, SPLIT_OPTIONS

__all__ = ["ONE_D_METHODS", "TWO_D_METHODS", "METHOD_PACKAGES", "SEPARATE_INSTALL_METHODS", "ilp_keys_read",
           "repeat_seed", "split_molecules", "split_pairs", "ilp_spec"]

ONE_D_METHODS = ("random", "s1", "scaffold", "fingerprint", "lohi", "datasail_s1")
TWO_D_METHODS = ("random", "i1_drug", "i1_target", "s1", "s1_target", "i2", "s2", *PAIR_PEERS)
METHOD_PACKAGES: dict[str, tuple[str, ...]] = {"lohi": ("lohi_splitter", "mip", "networkx"), "datasail_s1": ("datasail",),
                                               "lohi_drug": ("lohi_splitter", "mip", "networkx"),
                                               "graphpart_target": ("graph_part",)}
"""Modules a split method imports beyond the core ones: the peer tools (LoHi's Hi split, datasail's S1,
GraphPart). The workflow refuses a config listing a method whose modules are not installed
(:func:`benchdesign.workflow.preflight.check_packages`; datasail run by another interpreter, its
``python`` option, is not checked; nor is GraphPart's aligner, a program: a missing one fails the split
with the install command, :data:`benchdesign.molexp.peers.ALIGNER_INSTALL`)."""
SEPARATE_INSTALL_METHODS = ("lohi", "lohi_drug")
"""Peer split methods whose package pip cannot install together with benchdesign (lohi-splitter 1.1 pins
rdkit-pypi, a second RDKit, and mip 1.15, which needs cffi 1.15): no extra brings them, so one ``pip install``
runs the main job without them. Missing, they are announced before the run, not refused
(:func:`benchdesign.workflow.preflight.check_packages`); their splits are recorded as ``skipped`` with the
install line and the paper comparison's rows on them say "not in this run"."""
_TWO_D_TASKS = {"random": ("R", "a"), "i1_drug": ("I1", "a"), "i1_target": ("I1", "b"), "s1": ("S1", "a"),
                "s1_target": ("S1", "b"), "i2": ("I2", "a"), "s2": ("S2", "a")}
_ILP_KEYS = tuple(o.name for o in SPLIT_OPTIONS if o.name != "seed")  # the seed comes from repeat_seed
_NOT_READ = ("butina_threshold", "pair_scheme")  # the Butina task's threshold (no experiment method); pairs' folds


def ilp_keys_read(method: str, two_d: bool) -> tuple[str, ...]:
    """The ``ilp`` options a split method reads: every one for the similarity-based tasks (S1, S2) but
    ``butina_threshold`` (the Butina task's, which no experiment method runs), those of
    ``options.IDENTITY_SPLIT_OPTIONS`` for the identity-based ones (I1, I2; 1-D ``random`` is I1 on classes),
    none for 2-D ``random`` (task R) and for the methods that are not this library's tasks (scaffold, LoHi, ...);
    ``pair_scheme`` (how equal folds of pairs are cold) for the 2-D tasks only.

    Parameters
    ----------
    method : str
        A split method of :data:`ONE_D_METHODS` or :data:`TWO_D_METHODS`.
    two_d : bool
        Whether the data are drug-target pairs.

    Returns
    -------
    tuple[str, ...]
        Option names of the ``ilp`` block.

    Examples
    --------
    >>> ilp_keys_read("scaffold", two_d=False), ilp_keys_read("i2", two_d=True)[:2]
    ((), ('epsilon', 'delta'))
    >>> "pair_scheme" in ilp_keys_read("s1", two_d=False), "pair_scheme" in ilp_keys_read("s2", two_d=True)
    (False, True)
    """
    task = _TWO_D_TASKS.get(method, (None,))[0] if two_d else {"random": "I1", "s1": "S1"}.get(method)
    pairs = ("pair_scheme",) if two_d else ()  # how equal folds of pairs are cold: 2-D only
    if task in ("S1", "S2"):
        return tuple(k for k in _ILP_KEYS if k not in _NOT_READ or k in pairs)
    if task in ("I1", "I2"):
        return (*IDENTITY_SPLIT_OPTIONS, *pairs)
    return ()


def repeat_seed(seed: int, dataset: str, method: str, repeat: int) -> int:
    """Seed of one (dataset, method, repeat): repeats reshuffle, and every method gets its own stream."""
    words = [seed, zlib.crc32(dataset.encode()), zlib.crc32(method.encode()), repeat]
    return int(np.random.SeedSequence(words).generate_state(1)[0])


def ilp_spec(options: Mapping[str, object], fractions: Sequence[float], seed: int) -> SplitSpec:
    """SplitSpec of this library's R/I/S tasks from the experiment's ``ilp`` options."""
    unknown = set(options) - set(_ILP_KEYS)
    if unknown:
        raise ValueError(f"unknown ilp option(s) {sorted(unknown)}; allowed: {', '.join(_ILP_KEYS)}")
    names = ("train", "test") if len(fractions) == 2 else tuple(f"fold{i}" for i in range(len(fractions)))
    return SplitSpec.from_options({**options, "fractions": fractions, "names": names, "seed": seed})


def split_molecules(
    method: str,
    smiles: Sequence[str],
    similarity: SimilaritySource,
    classes: np.ndarray | None,
    fractions: Sequence[float],
    seed: int,
    options: Mapping[str, Mapping[str, object]] | None = None,
) -> tuple[np.ndarray, dict]:
    """Folds of one 1-D split of valid molecules.

    classes : (n, C) bool class membership for stratification (eq. 4), or None
    options : per-method option blocks, e.g. {"ilp": {"clusters": 50, ...}, "lohi": {...}}
    """
    options = options or {}
    opts = dict(options.get(method, {}))
    if method in ("random", "s1"):
        task = ("I1" if classes is not None else "R") if method == "random" else "S1"
        names = tuple(f"class{j}" for j in range(classes.shape[1])) if classes is not None else ()
        entities = EntitySet(ids=np.arange(len(smiles)).astype(str), valid=np.ones(len(smiles), bool),
                             similarity=similarity, classes=classes, class_names=names)
        result = split_entities(task, entities, ilp_spec(options.get("ilp", {}), fractions, seed))
        return result.fold, {"task": task, **_short_report(result.report)}
    if method == "scaffold":
        from benchdesign.molexp.splitters import scaffold_split
        return scaffold_split(smiles, fractions, seed, **opts), {}
    if method == "fingerprint":
        from benchdesign.molexp.splitters import fingerprint_split
        return fingerprint_split(smiles, fractions, seed, **opts), {}
    if method == "lohi":
        from benchdesign.molexp.splitters import lohi_split
        return lohi_split(smiles, fractions, seed, **opts), {}
    if method == "datasail_s1":
        from benchdesign.molexp.peers import datasail_s1_split
        return datasail_s1_split(smiles, fractions, seed, **opts), {}
    raise ValueError(f"unknown 1-D split method {method!r}; use one of {', '.join(ONE_D_METHODS)}")


def split_pairs(
    method: str,
    drug_index: np.ndarray,
    target_index: np.ndarray,
    drug_similarity: SimilaritySource,
    target_similarity: SimilaritySource,
    fractions: Sequence[float],
    seed: int,
    options: Mapping[str, Mapping[str, object]] | None = None,
    drug_smiles: Sequence[str] | None = None,
    target_sequences: Sequence[str] | None = None,
) -> tuple[np.ndarray, dict]:
    """Folds of one 2-D split of drug-target pairs (indices into the drug / target tables).

    The peers of :data:`~benchdesign.molexp.pair_peers.PAIR_PEERS` read the drugs' SMILES and the targets'
    sequences (``drug_smiles``, ``target_sequences``) and their options block ``options[method]``.
    """
    if method in PAIR_PEERS:
        if drug_smiles is None or target_sequences is None:
            raise ValueError(f"2-D method {method!r} needs drug_smiles and target_sequences")
        return split_pairs_by_peer(method, drug_index, target_index, drug_smiles, target_sequences, fractions,
                                   seed, (options or {}).get(method, {}))
    if method not in _TWO_D_TASKS:
        raise ValueError(f"unknown 2-D split method {method!r}; use one of {', '.join(TWO_D_METHODS)}")
    task, side = _TWO_D_TASKS[method]
    drugs = EntitySet(ids=np.arange(drug_similarity.n).astype(str), valid=np.ones(drug_similarity.n, bool),
                      similarity=drug_similarity)
    targets = EntitySet(ids=np.arange(target_similarity.n).astype(str), valid=np.ones(target_similarity.n, bool),
                        similarity=target_similarity)
    spec = ilp_spec((options or {}).get("ilp", {}), fractions, seed)
    result = split_interactions(task, drug_index, target_index, drugs, targets, spec, side=side)
    return result.fold, {"task": task, "side": side, **_short_report(result.report)}


def _short_report(report: Mapping[str, object]) -> dict:
    """The scalar entries of a library split report (status, clusters, sizes), for the split's JSON."""
    return {k: v for k, v in report.items() if isinstance(v, (str, int, float, bool)) or v is None}
