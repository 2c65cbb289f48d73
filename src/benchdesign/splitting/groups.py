"""Groups that must share a fold, for the chemists' usual baselines (``split --task scaffold | butina``).

- [`murcko_scaffolds`][] -- Bemis-Murcko scaffold of every molecule (the groups of a scaffold split).
- [`butina_clusters`][] -- Butina's sphere exclusion (J. Chem. Inf. Comput. Sci. 1999) on any
  similarity source: the entity with the most neighbours of similarity >= threshold opens a cluster
  with its unassigned neighbours, and so on, as RDKit's ``Butina.ClusterData``; neighbour lists come
  from tiled passes, never an n x n matrix.

``split_groups`` turns either into folds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchdesign.splitting.similarity import DEFAULT_BLOCK, SimilaritySource, parse_smiles

__all__ = ["murcko_scaffolds", "butina_clusters"]


def murcko_scaffolds(smiles: Sequence[str]) -> list[str]:
    """Bemis-Murcko scaffold SMILES per molecule (RDKit, ``includeChirality=False``; '' if acyclic).

    Molecules are parsed one at a time (a list of 100k RDKit molecules would take gigabytes).

    Parameters
    ----------
    smiles : Sequence[str]
        The molecules.

    Returns
    -------
    list[str]
        Scaffold SMILES per molecule ('' if acyclic).

    Examples
    --------
    >>> from benchdesign.splitting import murcko_scaffolds
    >>> murcko_scaffolds(["c1ccccc1CCO", "c1ccccc1CN", "CCO", "OC(=O)C1CCNCC1"])
    ['c1ccccc1', 'c1ccccc1', '', 'C1CCNCC1']
    """
    from rdkit.Chem.Scaffolds.MurckoScaffold import MurckoScaffoldSmiles

    scaffolds: list[str] = []
    valid = np.ones(len(smiles), dtype=bool)
    for i, s in enumerate(smiles):
        mols, ok = parse_smiles([s])
        valid[i] = ok[0]
        scaffolds.append(MurckoScaffoldSmiles(mol=mols[0], includeChirality=False) if ok[0] else "")
    if not valid.all():
        bad = np.flatnonzero(~valid)
        shown = ", ".join(f"row {i}: {smiles[i]!r}" for i in bad[:10])
        raise ValueError(f"{bad.size} SMILES that RDKit cannot parse ({shown}); drop them before splitting")
    return scaffolds


def _neighbours(source: SimilaritySource, threshold: float, block: int) -> list[np.ndarray]:
    """For every entity, the other entities of similarity >= threshold (ascending index)."""
    n = source.n
    out: list[np.ndarray] = []
    cols = np.arange(n)
    for start in range(0, n, block):
        rows = np.arange(start, min(start + block, n))
        hit = source.block(rows, cols) >= threshold
        hit[np.arange(rows.size), rows] = False
        out.extend(np.flatnonzero(h) for h in hit)
    return out


def butina_clusters(source: SimilaritySource, threshold: float = 0.65, block: int = DEFAULT_BLOCK) -> np.ndarray:
    """Cluster label (n,) of Butina's algorithm at similarity ``threshold`` (RDKit: distance cut-off 1 - t).

    Entities are visited by number of neighbours, most first (ties: the larger index first, as RDKit);
    an unassigned entity opens a cluster holding it and its unassigned neighbours. Labels follow the
    order the clusters were opened.

    Parameters
    ----------
    source : SimilaritySource
        Similarity over the n entities.
    threshold : float
        Similarity at which two entities are neighbours.
    block : int
        Tile edge of the pass over the similarities.

    Returns
    -------
    np.ndarray
        (n,) cluster labels.

    Examples
    --------
    Two pairs of similar entities. At 0.65 every entity has one neighbour: entity 3, the last, opens cluster 0
    with entity 2, then entity 1 cluster 1 with entity 0. At 0.85 only entities 0 and 1 are neighbours:

    >>> import numpy as np
    >>> from benchdesign.splitting import MatrixSimilarity, butina_clusters
    >>> sim = MatrixSimilarity(np.array([[1.0, 0.9, 0.1, 0.0], [0.9, 1.0, 0.2, 0.1],
    ...                                  [0.1, 0.2, 1.0, 0.8], [0.0, 0.1, 0.8, 1.0]]))
    >>> butina_clusters(sim, 0.65).tolist(), butina_clusters(sim, 0.85).tolist()
    ([1, 1, 0, 0], [0, 0, 2, 1])
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"the Butina threshold must lie in (0, 1], got {threshold}")
    nbrs = _neighbours(source, threshold, block)
    counts = np.array([a.size for a in nbrs])
    order = np.lexsort((-np.arange(counts.size), -counts))  # most neighbours first, ties: larger index first
    label = np.full(counts.size, -1, dtype=np.int64)
    opened = 0
    for i in order:
        if label[i] >= 0:
            continue
        members = nbrs[i][label[nbrs[i]] < 0]
        label[i] = label[members] = opened
        opened += 1
    return label
