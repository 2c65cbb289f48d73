"""Small file helpers for the workflow scripts (no Snakemake objects here)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.data.sources import ArchiveMember, PackageFile, SourceFile
from benchdesign.domains import Domain
from benchdesign.files import read_csv, write_atomic
from benchdesign.selection.representations import check_same_datasets
from benchdesign.workflow.preflight import verify_cached


def read_representation(path: str | None, datasets: Sequence[str]) -> np.ndarray:
    """Representation rows in the order of ``datasets``; a zero column when ``path`` is None."""
    if path is None:
        return np.zeros((len(datasets), 1))
    frame = read_csv(path, "representation", sep=",", index_col=0)
    check_same_datasets(frame.index, pd.Index(datasets), f"representation {path} vs ranks")
    return frame.loc[list(datasets)].to_numpy(dtype=float)


def write_bytes(data: bytes, path: str | Path) -> None:
    """Write ``data`` atomically (:func:`benchdesign.files.write_atomic`: umask mode, or the old file's)."""
    write_atomic(path, data)


def write_text(text: str, path: str | Path) -> None:
    """Write ``text`` (UTF-8) atomically."""
    write_atomic(path, text)


TIMING_SUFFIX = "seconds"
"""Keys ending in this (``seconds``, ``solver_seconds``, ``clustering_seconds``, ...) are timings: they stay out of
result files, so that two runs of one config write identical results (the jobs' times are in Snakemake's
``benchmark:`` files under ``logs/benchmarks/`` and in the logs)."""


def without_timings(record):
    """``record`` (nested dicts and lists) without its timing entries (keys ending in ``seconds``).

    Parameters
    ----------
    record : dict, list or scalar
        A result record.

    Returns
    -------
    dict, list or scalar
        A copy without the keys that end in ``seconds``, at any depth.

    Examples
    --------
    >>> without_timings({"status": "ok", "seconds": 1.2, "report": {"solver_seconds": 0.4, "nodes": 3}})
    {'status': 'ok', 'report': {'nodes': 3}}
    """
    if isinstance(record, dict):
        return {k: without_timings(v) for k, v in record.items()
                if not (isinstance(k, str) and k.endswith(TIMING_SUFFIX))}
    if isinstance(record, list):
        return [without_timings(v) for v in record]
    return record


def write_csv(frame: pd.DataFrame, path: str | Path, index: bool = False, sep: str = ",") -> None:
    """Write a CSV (or, with sep="\\t", a TSV) atomically with full float precision (identical bytes on
    identical input)."""
    write_text(frame.to_csv(index=index, sep=sep, float_format="%.10g", lineterminator="\n"), path)


def read_trials(paths: Sequence[str]) -> pd.DataFrame:
    """Concatenate trial (or per-seed AUC) CSV files."""
    if len(paths) == 0:
        raise ValueError("no trial files to read")
    return pd.concat([read_csv(path, "trial file", sep=",") for path in paths], ignore_index=True)


def source_file_to_dict(entry: SourceFile) -> dict:
    """A manifest entry as plain data for a rule's params; ``git_blob`` only where it is set, so entries
    with a sha256 keep the params they had before that field existed (no rerun of their fetch jobs)."""
    fields = dataclasses.asdict(entry)
    if fields["git_blob"] is None:
        del fields["git_blob"]
    return fields


def source_file_from_dict(entry: dict) -> SourceFile:
    """Rebuild a manifest entry from ``dataclasses.asdict`` output (how rules pass it to scripts)."""
    fields = dict(entry)
    if fields.get("package"):
        fields["package"] = PackageFile(**fields["package"])
    if fields.get("archive"):
        fields["archive"] = ArchiveMember(**fields["archive"])
    return SourceFile(**fields)


def cached_inputs(paths: Sequence[str], cache: str = "resources/data") -> dict[str, str]:
    """Map manifest paths to their local copies ``<cache>/<manifest path>``, each checked to be unchanged
    since the workflow verified it (:func:`benchdesign.workflow.preflight.verify_cached`)."""
    prefix = cache.rstrip("/") + "/"
    out = {}
    for path in paths:
        if not str(path).startswith(prefix):
            raise ValueError(f"input {path!r} is not under the data cache {cache!r}")
        out[str(path)[len(prefix):]] = str(path)
    verify_cached(list(out.values()), cache)
    return out


def domain_inputs(domain: Domain, paths: Sequence[str], cache: str = "resources/data") -> dict[str, str]:
    """Input path -> local file of a domain: manifest paths -> cached copies, or the user's own files
    (kind ``table``) as they are."""
    if domain.sources:
        return cached_inputs(paths, cache)
    return {str(path): str(path) for path in paths}
