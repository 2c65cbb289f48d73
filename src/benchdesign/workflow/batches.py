"""Batches of datasets: one TSC raw-data or feature job per batch of datasets instead of one per dataset.

A job that computes the cheap features of one dataset spends most of its CPU starting Python and importing
libraries; a job per batch pays that once. The batches are fixed runs of ``size`` consecutive names of the
configured dataset list (``features.tsc.datasets``), so which datasets are *available* (the ``tsc_available``
checkpoint) only selects the members a job computes: a dataset becoming available reruns its batch alone.
A batch is named by its first and last dataset (``ACSF1-Car``), a batch of one by its dataset, so size 1 gives
the layout of one job per dataset (``resources/tsc_raw/GunPoint/GunPoint_TRAIN.tsv``).

Nothing here reads Snakemake objects: the rule files pass lists and names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["BATCH_REGEX", "available_batches", "batch_members", "dataset_batches"]

BATCH_REGEX = r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?"
"""Wildcard constraint of a batch name: a dataset name, or first-last."""

_DATASET_NAME = re.compile(r"[A-Za-z0-9]+\Z")


def dataset_batches(datasets: Sequence[str], size: int) -> dict[str, list[str]]:
    """{batch name: datasets}: consecutive runs of ``size`` datasets, in the given order.

    >>> dataset_batches(["A", "B", "C"], 2)
    {'A-B': ['A', 'B'], 'C': ['C']}
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"datasets per job must be an integer >= 1, got {size!r}")
    names = [str(name) for name in datasets]
    bad = [name for name in names if not _DATASET_NAME.match(name)]
    if bad:
        raise ValueError(f"dataset names must be letters and digits only (they name files and jobs): {bad}")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"datasets listed twice: {twice}")
    runs = [names[start:start + size] for start in range(0, len(names), size)]
    return {run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}": run for run in runs}


def batch_members(batches: Mapping[str, Sequence[str]], batch: str, available: Iterable[str]) -> list[str]:
    """The available datasets of one batch, in batch order."""
    if batch not in batches:
        raise ValueError(f"no batch {batch!r} for this dataset list and batch size; batches: {list(batches)}")
    found = set(available)
    return [name for name in batches[batch] if name in found]


def available_batches(batches: Mapping[str, Sequence[str]], available: Iterable[str]) -> list[str]:
    """Names of the batches holding at least one available dataset, in batch order."""
    found = set(available)
    return [name for name, members in batches.items() if found.intersection(members)]
