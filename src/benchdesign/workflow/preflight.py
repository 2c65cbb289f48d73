"""Checks the workflow runs when it builds the DAG (so a dry run fails, naming the config key or file), the
check a job runs on its cached inputs, and the console summary of a failed run.

* :func:`check_cached_files`: every file under the data cache that the run uses must still have its
  manifest checksum (stat-keyed hash cache, :func:`benchdesign.files.cached_sha256`); a changed file is
  refused with the command that refetches it. :func:`verify_cached` repeats the check inside a job.
* :func:`domain_facts` / :func:`check_protocol_against_data`: the number of datasets and the model names of
  each enabled domain (read once from the checksum-pinned inputs and cached under their checksums), checked
  against ``k_max``, ``alpha`` and ``models``.
* :func:`failed_job_logs`: the log tails of the jobs a failed Snakemake run names (for ``onerror:``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from benchdesign.data.sources import SourceFile
from benchdesign.files import cached_sha256, recorded_sha256, write_atomic

__all__ = [
    "CHECKS_DIR",
    "check_cached_files",
    "check_protocol_against_data",
    "domain_facts",
    "scores_facts",
    "failed_job_logs",
    "verify_cached",
]

CHECKS_DIR = ".checks"  # inside the data cache: hash records (sha256/) and per-domain facts (facts/)


def _refetch_hint(local: str | os.PathLike) -> str:
    return f"delete it and rerun to fetch it again (rm {local}), or restore the original file"


def _matches(entry: SourceFile, sha: str, local: str | os.PathLike) -> bool:
    if entry.sha256 is not None:
        return sha == entry.sha256
    from benchdesign.data.sources import git_blob_id

    return git_blob_id(local).startswith(entry.git_blob or "")


def check_cached_files(entries: Iterable[SourceFile], cache: str | os.PathLike) -> None:
    """Refuse any existing ``<cache>/<entry.path>`` whose bytes differ from the manifest's checksum.

    Hashes are cached by (size, mtime, inode) in ``<cache>/.checks/sha256``, so an unchanged file costs a
    ``stat``. Files not yet fetched are skipped (the fetch rule checks them).
    """
    cache = Path(cache)
    records = cache / CHECKS_DIR / "sha256"
    bad = []
    for entry in entries:
        local = cache / entry.path
        if not local.is_file():
            continue
        sha = cached_sha256(local, records)
        if not _matches(entry, sha, local):
            want = entry.sha256 or f"a git blob id starting {entry.git_blob}"
            bad.append(f"{local} (sha256 {sha}, the manifest expects {want})")
    if bad:
        raise ValueError(
            "cached input file(s) changed since they were fetched: " + "; ".join(bad)
            + ". " + _refetch_hint(" ".join(b.split(" (")[0] for b in bad))
        )


def verify_cached(paths: Sequence[str | os.PathLike], cache: str | os.PathLike) -> None:
    """Inside a job: each cached input must still hash to what was recorded when the workflow checked it.

    A file whose (size, mtime, inode) is unchanged costs a ``stat``; a changed one is hashed again and
    refused when its sha256 differs from the record.
    """
    records = Path(cache) / CHECKS_DIR / "sha256"
    for path in paths:
        before = recorded_sha256(path, records)
        now = cached_sha256(path, records)
        if before is not None and now != before:
            raise ValueError(f"cached input {path} changed since the workflow checked it (sha256 {before}, "
                             f"now {now}); {_refetch_hint(path)}")


# ------------------------------------------------------------------------------ data-dependent config

def domain_facts(domain: str, entries: Sequence[SourceFile], cache: str | os.PathLike,
                 mirror: str | os.PathLike | None,
                 load: Callable[[str, dict[str, str]], tuple[list[str], list[str]]] | None = None) -> dict | None:
    """``{"datasets": [...], "models": [...]}`` of a domain's inputs, or None when they are not at hand.

    The inputs are pinned by their checksums, so the facts are cached under those
    (``<cache>/.checks/facts``). Each file is taken from the data cache, else from the mirror when it holds
    it under the same path with the right checksum. ``load(domain, files)`` reads the facts.
    """
    cache = Path(cache)
    key = hashlib.sha256("".join(f"{e.path}={e.sha256 or e.git_blob}\n" for e in entries).encode()).hexdigest()
    record = cache / CHECKS_DIR / "facts" / f"{domain}-{key[:24]}.json"
    if record.is_file():
        return json.loads(record.read_text())
    files = {}
    for entry in entries:
        candidates = [cache / entry.path] + ([Path(mirror) / entry.path] if mirror else [])
        found = [c for c in candidates if c.is_file()
                 and _matches(entry, cached_sha256(c, cache / CHECKS_DIR / "sha256"), c)]
        if not found:
            return None
        files[entry.path] = str(found[0])
    datasets, models = (load or scores_facts)(domain, files)
    facts = {"datasets": list(datasets), "models": list(models)}
    write_atomic(record, json.dumps(facts, indent=1) + "\n")
    return facts


def scores_facts(domain: str, files: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """(dataset names, model names) of a built-in domain's score table, read from its input files."""
    from benchdesign.domains import get_domain, load_scores

    scores = load_scores(get_domain(domain), dict(files), None)
    return sorted(scores["dataset"].unique()), list(scores["model"].unique())


def _key(config: dict, domain: str, name: str) -> str:
    """Dotted config key where a protocol value of a domain is set."""
    if name in (((config.get("domains") or {}).get(domain) or {}).get("protocol") or {}):
        return f"domains.{domain}.protocol.{name}"
    return f"protocol.{name}"


def check_protocol_against_data(config: dict, domain: str, protocol: Mapping, facts: Mapping) -> None:
    """Refuse protocol settings the domain's data cannot satisfy, naming the config key.

    ``domains.<d>.models`` must name models of the data (at least 2); per variation, the pool
    ``floor(alpha * n)`` must hold at least 2 items and ``k_max`` must fit (dataset pool: ``k_max <=
    floor(alpha * n_datasets)``; model pool: ``k_max <= n_datasets``).
    """
    available = list(facts["models"])
    chosen = ((config.get("domains") or {}).get(domain) or {}).get("models")
    if chosen is not None:
        unknown = [m for m in chosen if m not in set(available)]
        if unknown:
            raise ValueError(f"config key domains.{domain}.models: unknown model(s) {unknown}; "
                             f"the {domain} data have {available}")
    n_models = len(chosen) if chosen is not None else len(available)
    if n_models < 2:
        raise ValueError(f"config key domains.{domain}.models: {n_models} model(s); at least 2 are needed")
    n = len(facts["datasets"])
    alpha, k_max = protocol["alpha"], protocol["k_max"]
    for variation in protocol["variations"]:
        if variation == "model_holdout":
            fraction = protocol["holdout_fraction"]
            held = max(2, int(np.floor(fraction * n_models)))
            if held > n_models - 1:
                raise ValueError(f"config key {_key(config, domain, 'holdout_fraction')}={fraction}: the "
                                 f"model_holdout variation of {domain} holds out max(2, floor({fraction} x "
                                 f"{n_models} models)) = {held} and sees none; use fewer or drop model_holdout")
        pooled = variation in ("dataset_pool", "model_holdout")  # the pool is of datasets
        pool_of, total = ("datasets", n) if pooled else ("models", n_models)
        size = int(np.floor(alpha * total))
        if size < 2:
            raise ValueError(f"config key {_key(config, domain, 'alpha')}={alpha}: the {variation} variation "
                             f"of {domain} draws floor({alpha} x {total} {pool_of}) = {size}; at least 2 needed")
        limit = size if pooled else n
        if k_max > limit:
            what = f"a pool of floor({alpha} x {n}) = {size} datasets" if pooled else \
                f"{n} datasets"
            raise ValueError(f"config key {_key(config, domain, 'k_max')}={k_max}: the {variation} variation "
                             f"of {domain} selects from {what}; k_max must be <= {limit}")


# --------------------------------------------------------------------------------------- failed run

_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Exit)\w*: ")  # e.g. "ValueError: ..."
_LOG_LINE = re.compile(r"^\s*log: (.+?)(?: \(check log file\(s\) for error details\))?\s*$")


def failed_job_logs(snakemake_log: str | os.PathLike | Sequence[str | os.PathLike], workdir: str | os.PathLike = ".",
                    lines: int = 15) -> str:
    """The first error line and the last ``lines`` lines of the log of every job that a failed Snakemake
    run's own log file(s) (``snakemake_log``: the ``log`` of ``onerror:``) report as failed ("Error in rule
    ..."), as console text."""
    paths = [snakemake_log] if isinstance(snakemake_log, (str, os.PathLike)) else list(snakemake_log)
    text = "\n".join(Path(p).read_text(errors="replace") for p in paths if Path(p).is_file())
    out = []
    for block in re.split(r"(?m)^(?=Error in rule )", text)[1:]:
        rule = block.split(":", 1)[0].removeprefix("Error in rule ").strip()
        logs = [m.group(1) for ln in block.splitlines()[:25] if (m := _LOG_LINE.match(ln))]
        for log in ", ".join(logs).split(", ") if logs else []:
            path = Path(workdir) / log.strip()
            if not path.is_file():
                continue
            body = path.read_text(errors="replace").splitlines()
            first = next((ln for ln in body if _EXCEPTION.match(ln)), None) or next(
                (ln for ln in body if re.search(r"\berror\b", ln, re.I)), None)
            tail = "\n".join("    " + ln for ln in body[-lines:])
            out.append(f"rule {rule} failed; its log {log.strip()}"
                       + (f"\n  first error: {first.strip()}" if first else "") + f"\n  last lines:\n{tail}")
    return "\n".join(out)
