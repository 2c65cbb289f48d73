"""Data layer: the manifest of external inputs, fetching them, and loading them into scores/features."""
from benchdesign.data.loaders import (
    SCORES_HIGHER_IS_BETTER,
    load_mteb_metadata,
    load_mteb_table11,
    load_recsys,
    load_tsc_bakeoff,
)
from benchdesign.data.sources import (
    ChecksumError,
    PackageFile,
    SourceFile,
    fetch,
    files_of,
    load_manifest,
    sha256_file,
)

__all__ = [
    "SCORES_HIGHER_IS_BETTER",
    "ChecksumError",
    "PackageFile",
    "SourceFile",
    "fetch",
    "files_of",
    "load_manifest",
    "load_mteb_metadata",
    "load_mteb_table11",
    "load_recsys",
    "load_tsc_bakeoff",
    "sha256_file",
]
