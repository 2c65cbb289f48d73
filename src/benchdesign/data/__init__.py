"""Data layer: the manifest of external inputs, fetching them, and loading them into scores/features.

The names are imported from their submodule on first use, so a job that only fetches a file
(:mod:`~benchdesign.data.sources`) loads neither pandas nor scipy.
"""

from __future__ import annotations

from benchdesign.lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    "loaders": ("SCORES_HIGHER_IS_BETTER", "load_mteb_metadata", "load_mteb_table11", "load_recsys", "load_tsc_bakeoff"),
    "sources": ("ChecksumError", "PackageFile", "SourceFile", "fetch", "files_of", "load_manifest", "sha256_file"),
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
