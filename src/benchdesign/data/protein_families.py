"""Protein families at known identities, evolved from seed sequences: planted homologs for tests and benchmarks.

A family is a seed sequence and members made from it by substitutions (residues drawn from the background
frequencies of the seeds) at a chosen share of positions, plus a few short insertions and deletions. A member
made at substitution share p keeps about ``1 - p`` identity to its seed (a substituted residue can redraw the
same letter: about 6 % of them do) and about ``(1 - p)^2`` plus a little to a sibling. These are not real
proteins: they are homologs *planted* at identities the tests and the scaling benchmarks know beforehand
(``benchmarks/proteins_scale.py`` says so wherever it uses them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["AMINO_ACIDS", "mutate", "evolve_families"]

AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"


def _background(seeds: Sequence[str]) -> np.ndarray:
    counts = np.array([sum(s.count(a) for s in seeds) for a in AMINO_ACIDS], dtype=float) + 1.0
    return counts / counts.sum()


def mutate(seq: str, substitution: float, rng: np.random.Generator, indel_rate: float = 0.01,
           background: np.ndarray | None = None) -> str:
    """A copy of ``seq`` with a share ``substitution`` of its positions redrawn and a few short indels.

    Parameters
    ----------
    seq : str
        The parent sequence.
    substitution : float
        Share of positions whose residue is redrawn from ``background``, in [0, 1].
    rng : np.random.Generator
        The source of every random draw.
    indel_rate : float
        Per position, the chance of a 1-3 residue insertion or deletion there.
    background : np.ndarray | None
        Frequencies of the 20 amino acids (``AMINO_ACIDS`` order); None = uniform.

    Returns
    -------
    str
        The mutated sequence.

    Examples
    --------
    >>> import numpy as np
    >>> from benchdesign.data.protein_families import mutate
    >>> len(mutate("MKTAYIAKQRQISFVKSHFSRQ", 0.3, np.random.default_rng(0), indel_rate=0.0))
    22
    """
    if not 0.0 <= substitution <= 1.0:
        raise ValueError(f"substitution must lie in [0, 1], got {substitution}")
    p = np.full(20, 0.05) if background is None else np.asarray(background, dtype=float)
    letters = np.array(list(seq))
    hit = rng.random(letters.size) < substitution
    letters[hit] = rng.choice(np.array(list(AMINO_ACIDS)), size=int(hit.sum()), p=p)
    out = []
    for pos, a in enumerate(letters):
        if rng.random() < indel_rate and 0 < pos < letters.size - 1:
            if rng.random() < 0.5:
                continue  # deletion of this residue
            out.append("".join(rng.choice(np.array(list(AMINO_ACIDS)), size=int(rng.integers(1, 4)), p=p)))
        out.append(a)
    return "".join(out)


def evolve_families(seeds: Sequence[str], members: int, substitution: float | Sequence[float],
                    random_state: int = 0, indel_rate: float = 0.01) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Families of ``members`` sequences each, one per seed, every member mutated from its seed.

    Parameters
    ----------
    seeds : Sequence[str]
        One seed sequence per family (e.g. real, mutually unrelated proteins).
    members : int
        Sequences per family (the seed itself is not one of them).
    substitution : float | Sequence[float]
        Substitution share of each member against its seed; a sequence of values is cycled through the members.
    random_state : int
        Seed of every random draw.
    indel_rate : float
        Per-position chance of a short insertion or deletion.

    Returns
    -------
    sequences : list[str]
        ``len(seeds) * members`` sequences, family by family.
    family : np.ndarray
        (n,) the family (seed index) of each sequence.
    substitution : np.ndarray
        (n,) the substitution share each sequence was made with.

    Examples
    --------
    >>> from benchdesign.data.protein_families import evolve_families
    >>> seqs, family, _ = evolve_families(["MKTAYIAKQRQISFVKSHFSRQLEERLGLIEV", "WDPLHRCVQGENTSYAAIKLMFW"], 3, 0.2)
    >>> len(seqs), family.tolist()
    (6, [0, 0, 0, 1, 1, 1])
    """
    if members < 1:
        raise ValueError(f"members must be >= 1, got {members}")
    shares = np.atleast_1d(np.asarray(substitution, dtype=float))
    rng = np.random.default_rng(random_state)
    background = _background(seeds)
    seqs, fam, sub = [], [], []
    for f, seed in enumerate(seeds):
        for m in range(members):
            share = float(shares[m % shares.size])
            seqs.append(mutate(seed, share, rng, indel_rate, background))
            fam.append(f)
            sub.append(share)
    return seqs, np.array(fam, dtype=np.int64), np.array(sub)
