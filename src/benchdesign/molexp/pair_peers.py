"""The DataSAIL paper's 2-D peers (Fig. 4): a 1-D tool splits the entities of one side, the pairs follow.

The paper splits LP-PDBBind's drug-target pairs with DeepChem's fingerprint split and LoHi on the drugs and
with GraphPart on the protein sequences (its experiment code: DeepChem and LoHi on the ligand SMILES,
GraphPart on the target sequences; one side each). Here each tool runs on the *distinct* entities of its
side that have a pair, and every pair takes the fold of its entity on that side; a pair whose entity the
tool leaves out (LoHi's cut, GraphPart's removal) gets -1. A drug (target) therefore never has pairs in
both folds.

Fold sizes in pairs. As this library's I1/S1 on one side, the entities are weighted by their numbers of
pairs where the tool allows it:

- ``fingerprint_drug``: :func:`~benchdesign.molexp.splitters.fingerprint_split` with ``weights`` = pairs
  per drug (the groups grow by pair count toward ``fractions`` of the pairs);
- ``lohi_drug``: :func:`~benchdesign.molexp.splitters.lohi_split` with the same weights (LoHi's MIP keeps
  the most pairs subject to minimum pair shares per fold);
- ``graphpart_target``: :func:`~benchdesign.molexp.peers.graphpart_split` balances counts of sequences
  only (GraphPart has no weights), so its fractions are of targets and the pair shares are what they
  come out; the report states them (``pair_shares``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["PAIR_PEERS", "side_entities", "split_pairs_by_peer"]

PAIR_PEERS: dict[str, tuple[str, str, bool]] = {
    "fingerprint_drug": ("a", "fingerprint", True),
    "lohi_drug": ("a", "lohi", True),
    "graphpart_target": ("b", "graphpart", False),
}
"""method -> (side: ``a`` drugs / ``b`` targets, the 1-D tool, whether it weights entities by pairs)."""

_FOLD_NAMES = ("train", "test")


def side_entities(index: np.ndarray, n_entities: int) -> tuple[np.ndarray, np.ndarray]:
    """The entities of one side that have a pair, and their numbers of pairs.

    Parameters
    ----------
    index : (m,) entity row of every pair on this side.
    n_entities : rows of the side's entity table.

    Returns
    -------
    active : np.ndarray
        Sorted entity rows with at least one pair.
    pairs : np.ndarray
        Number of pairs of each of them.

    Examples
    --------
    >>> side_entities(np.array([2, 0, 2, 2]), 4)
    (array([0, 2]), array([1, 3]))
    """
    index = np.asarray(index, dtype=np.int64)
    if index.size and (index.min() < 0 or index.max() >= n_entities):
        raise ValueError(f"entity indices must lie in [0, {n_entities}), got {index.min()}..{index.max()}")
    counts = np.bincount(index, minlength=n_entities)
    active = np.flatnonzero(counts)
    return active, counts[active]


def _entity_folds(
    tool: str,
    items: list[str],
    pairs: np.ndarray,
    weighted: bool,
    fractions: Sequence[float],
    seed: int,
    options: Mapping[str, object],
) -> np.ndarray:
    """Fold of each active entity from the 1-D tool (SMILES for the drug tools, sequences for GraphPart)."""
    weights = {"weights": pairs.astype(float)} if weighted else {}
    if tool == "fingerprint":
        from benchdesign.molexp.splitters import fingerprint_split

        return fingerprint_split(items, fractions, seed, **weights, **options)
    if tool == "lohi":
        from benchdesign.molexp.splitters import lohi_split

        return lohi_split(items, fractions, seed, **weights, **options)
    from benchdesign.molexp.peers import graphpart_split

    return graphpart_split(items, fractions, seed, **options)


def split_pairs_by_peer(
    method: str,
    drug_index: np.ndarray,
    target_index: np.ndarray,
    drug_smiles: Sequence[str],
    target_sequences: Sequence[str],
    fractions: Sequence[float],
    seed: int,
    options: Mapping[str, object] | None = None,
) -> tuple[np.ndarray, dict]:
    """Folds of drug-target pairs from a 1-D peer tool run on one side's entities (:data:`PAIR_PEERS`).

    Parameters
    ----------
    method : ``fingerprint_drug``, ``lohi_drug`` or ``graphpart_target``.
    drug_index, target_index : (m,) row of every pair's drug in ``drug_smiles`` / target in ``target_sequences``.
    drug_smiles : SMILES of the drug table.
    target_sequences : amino-acid sequences of the target table.
    fractions : fold fractions (0 = train), of the pairs where the tool weights (module docstring).
    seed : the tool's seed (its processing order).
    options : keyword options of the tool (``molecules.method_options.<method>``).

    Returns
    -------
    folds : np.ndarray
        (m,) int64 fold per pair: 0 train, 1 test, -1 left out (its entity left out by the tool).
    report : dict
        ``tool``, ``side`` (drug / target), ``weighted_by_pairs``, ``n_entities``, ``entity_folds`` (entities
        per fold and ``left_out``) and ``pair_shares`` (share of the pairs per fold and ``left_out``).

    Examples
    --------
    >>> smiles = ["CCO", "c1ccccc1", "CCN", "c1ccncc1", "CCCl"]
    >>> folds, report = split_pairs_by_peer("fingerprint_drug", np.array([0, 0, 1, 2, 3, 4]),
    ...                                     np.zeros(6, int), smiles, ["MKV"], (0.5, 0.5), 0)
    >>> bool(folds[0] == folds[1]), report["side"]
    (True, 'drug')
    """
    if method not in PAIR_PEERS:
        raise ValueError(f"unknown 2-D peer method {method!r}; use one of {', '.join(PAIR_PEERS)}")
    side, tool, weighted = PAIR_PEERS[method]
    index = np.asarray(drug_index if side == "a" else target_index, dtype=np.int64)
    table = list(drug_smiles if side == "a" else target_sequences)
    active, pairs = side_entities(index, len(table))
    if active.size < 2:
        raise ValueError(f"{method}: {active.size} {'drug' if side == 'a' else 'target'}(s) with a pair, too few to split")
    entity_folds = np.asarray(
        _entity_folds(tool, [table[i] for i in active], pairs, weighted, fractions, seed, dict(options or {})), dtype=np.int64
    )
    fold_of = np.full(len(table), -1, dtype=np.int64)
    fold_of[active] = entity_folds
    folds = fold_of[index]
    names = [*(_FOLD_NAMES if len(fractions) == 2 else [f"fold{j}" for j in range(len(fractions))]), "left_out"]
    codes = [*range(len(fractions)), -1]
    report = {
        "tool": tool,
        "side": "drug" if side == "a" else "target",
        "weighted_by_pairs": weighted,
        "n_entities": int(active.size),
        "entity_folds": {nm: int((entity_folds == c).sum()) for nm, c in zip(names, codes, strict=True)},
        "pair_shares": {nm: float((folds == c).mean()) if folds.size else 0.0 for nm, c in zip(names, codes, strict=True)},
    }
    return folds, report
