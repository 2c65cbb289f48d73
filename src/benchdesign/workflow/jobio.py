"""Light helpers of the job scripts (scripts/*.py): writing outputs, reading the untracked config values,
rebuilding a manifest entry, without importing the domain registry.

:mod:`benchdesign.workflow.io` and :mod:`benchdesign.workflow.config` import :mod:`benchdesign.domains`, i.e.
every domain with pandas and scipy.stats (some 1.5 CPU-s at each job's start); a script that only writes a
CSV, or fetches a file, imports these from here instead. Same definitions, same bytes: ``write_csv`` here is
the one of :mod:`benchdesign.workflow.io`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdesign.files import write_atomic

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from benchdesign.data.sources import SourceFile

# Config values a script may read from ``snakemake.config`` directly: where inputs come from, not what they
# are (their checksums fix the content), so changing them must not rerun anything. Every other value reaches a
# script through the rule's params, which Snakemake tracks (tests/test_bad_inputs.py walks the scripts).
UNTRACKED_CONFIG = ("mirror", "allow_download", "features.tsc.raw_wheels")


def untracked(config: dict, key: str) -> Any:
    """A value of :data:`UNTRACKED_CONFIG` (dotted key) from the raw config; None when unset."""
    if key not in UNTRACKED_CONFIG:
        raise KeyError(f"{key!r} would change results without rerunning jobs; pass it as a rule param "
                       f"(only {UNTRACKED_CONFIG} may be read from snakemake.config)")
    value: Any = config
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def write_bytes(data: bytes, path: str | Path) -> None:
    """Write ``data`` atomically (:func:`benchdesign.files.write_atomic`: umask mode, or the old file's)."""
    write_atomic(path, data)


def write_text(text: str, path: str | Path) -> None:
    """Write ``text`` (UTF-8) atomically."""
    write_atomic(path, text)


def write_csv(frame: pd.DataFrame, path: str | Path, index: bool = False, sep: str = ",") -> None:
    """Write a CSV (or, with sep="\\t", a TSV) atomically with full float precision (identical bytes on
    identical input)."""
    write_text(frame.to_csv(index=index, sep=sep, float_format="%.10g", lineterminator="\n"), path)


def source_file_from_dict(entry: dict) -> SourceFile:
    """Rebuild a manifest entry from ``dataclasses.asdict`` output (how rules pass it to scripts)."""
    from benchdesign.data.sources import ArchiveMember, PackageFile, SourceFile

    fields = dict(entry)
    if fields.get("package"):
        fields["package"] = PackageFile(**fields["package"])
    if fields.get("archive"):
        fields["archive"] = ArchiveMember(**fields["archive"])
    return SourceFile(**fields)


def cached_inputs(paths, cache: str = "resources/data") -> dict[str, str]:
    """Map manifest paths to their local copies ``<cache>/<manifest path>``, each checked to be unchanged
    since the workflow verified it (:func:`benchdesign.workflow.preflight.verify_cached`)."""
    from benchdesign.workflow.preflight import verify_cached

    prefix = cache.rstrip("/") + "/"
    out = {}
    for path in paths:
        if not str(path).startswith(prefix):
            raise ValueError(f"input {path!r} is not under the data cache {cache!r}")
        out[str(path)[len(prefix):]] = str(path)
    verify_cached(list(out.values()), cache)
    return out
