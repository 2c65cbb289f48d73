"""Files in and out, for the whole package: atomic writes, checksums, output-path checks, readable errors.

* :func:`atomic_writer` / :func:`write_atomic`: the one way this package writes a file. The bytes go to a
  temporary file next to the target, which then replaces it (:func:`os.replace`), so a crash or an error
  never leaves a half-written output. The file gets the mode a plain ``open()`` would give (``0o666`` minus
  the umask), or keeps the mode of the file it replaces; a symlink is written through to its target.
* :func:`sha256_file` / :func:`hash_stream`: the one chunked hashing helper; :func:`cached_sha256` keeps a
  stat-keyed cache of file hashes, so re-checking an unchanged file costs one ``stat``.
* :func:`check_output_paths`: refuse, before any work, an output that is an input, another output, a
  directory, a non-regular file or in a folder that cannot be written. ``-`` and ``/dev/stdout``
  (:func:`is_stdout`) mean standard output: :func:`atomic_writer` writes there directly.
* :func:`read_csv`: :func:`pandas.read_csv` whose errors name the file and what was expected;
  :func:`check_table_file` (missing, empty, gzip under another name) and :func:`refuse_duplicate_columns`,
  the checks it shares with the other table readers.
* :func:`package_data`: a data file shipped inside the package (``benchdesign/data/``), found with
  :mod:`importlib.resources`, so it works from a wheel as from a source checkout.
"""

from __future__ import annotations

import bz2
import contextlib
import csv
import gzip
import hashlib
import importlib.resources
import json
import lzma
import os
import stat
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, BinaryIO

import pandas as pd

__all__ = [
    "CHUNK",
    "atomic_writer",
    "check_output_paths",
    "check_table_file",
    "check_writable",
    "default_mode",
    "hash_stream",
    "is_stdout",
    "package_data",
    "read_csv",
    "refuse_duplicate_columns",
    "sha256_file",
    "cached_sha256",
    "record_sha256",
    "recorded_sha256",
    "write_atomic",
]

CHUNK = 1 << 20
STDOUT = ("-", "/dev/stdout")
"""Output paths that mean standard output (:func:`is_stdout`)."""


# ------------------------------------------------------------------------------------------ writing

def _umask() -> int:
    """The process umask, read without changing it where Linux allows (``/proc/self/status``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    old = os.umask(0o022)  # elsewhere: set and restore
    os.umask(old)
    return old


def default_mode() -> int:
    """Mode of a file a plain ``open(path, "w")`` would create: ``0o666 & ~umask``."""
    return 0o666 & ~_umask()


def _write_target(path: Path) -> Path:
    """Where writing ``path`` lands: a symlink's (final) target, else ``path`` itself."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, text: bool = False) -> Iterator[IO]:
    """Open a temporary file next to ``path``; on success it replaces ``path`` atomically.

    On any exception the temporary file is removed and ``path`` is untouched. The result has the mode a
    plain ``open()`` would give (umask), or the mode of the regular file it replaces. A symlink at
    ``path`` is kept and its target replaced. ``text=True`` yields a UTF-8 text handle (``newline=""``), else a binary
    handle that can also be read back (``w+b``). ``-`` or ``/dev/stdout`` (:func:`is_stdout`): the bytes go
    to standard output as they are written.
    """
    if is_stdout(path):
        yield from _stdout_writer(text)
        return
    target = _write_target(Path(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode) if target.is_file() else default_mode()
    except FileNotFoundError:
        mode = default_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        os.fchmod(fd, mode)
        handle = os.fdopen(fd, "w", encoding="utf-8", newline="") if text else os.fdopen(fd, "w+b")
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def is_stdout(path: str | os.PathLike | None) -> bool:
    """Whether an output path means standard output: ``-`` or ``/dev/stdout``."""
    return path is not None and os.fspath(path) in STDOUT


def _stdout_writer(text: bool) -> Iterator[IO]:
    """Standard output as :func:`atomic_writer` yields it (text or binary), flushed afterwards, never closed."""
    sys.stdout.flush()
    handle = sys.stdout if text else sys.stdout.buffer
    yield handle
    handle.flush()


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write ``data`` (str: UTF-8) to ``path`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path) as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)


# ---------------------------------------------------------------------------------------- checksums

def hash_stream(stream: BinaryIO, h=None, sink: Callable[[bytes], object] | None = None) -> str:
    """Hex digest (default sha256) of a binary stream read in chunks; each chunk also goes to ``sink``."""
    h = hashlib.sha256() if h is None else h
    for chunk in iter(lambda: stream.read(CHUNK), b""):
        h.update(chunk)
        if sink is not None:
            sink(chunk)
    return h.hexdigest()


def sha256_file(path: str | os.PathLike, h=None) -> str:
    """Hex digest (default sha256) of a file's bytes, read in chunks.

    Examples
    --------
    The sha256 of ``abc`` (the FIPS 180-2 test vector), and another ``hashlib`` algorithm through ``h``:

    >>> import hashlib
    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.files import sha256_file
    >>> path = Path(tempfile.mkdtemp()) / "abc.txt"
    >>> _ = path.write_bytes(b"abc")
    >>> sha256_file(path)
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
    >>> sha256_file(path, hashlib.md5()) == hashlib.md5(b"abc").hexdigest()
    True
    """
    with open(path, "rb") as fh:
        return hash_stream(fh, h)


def _stat_key(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev]


def _record_path(path: Path, cache_dir: str | os.PathLike) -> Path:
    digest = hashlib.sha256(os.fsencode(os.path.abspath(path))).hexdigest()[:32]
    return Path(cache_dir) / f"{digest}.json"


def recorded_sha256(path: str | os.PathLike, cache_dir: str | os.PathLike) -> str | None:
    """The sha256 last recorded for ``path`` in ``cache_dir`` (whether or not the file changed since)."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        return str(json.loads(_record_path(Path(path), cache_dir).read_text())["sha256"])
    return None


def record_sha256(path: str | os.PathLike, value: str, cache_dir: str | os.PathLike) -> None:
    """Record ``value`` as the sha256 of ``path`` at its current (size, mtime, inode, device)."""
    p = Path(path)
    with contextlib.suppress(OSError):
        write_atomic(_record_path(p, cache_dir),
                     json.dumps({"path": str(p), "stat": _stat_key(p.stat()), "sha256": value}))


def cached_sha256(path: str | os.PathLike, cache_dir: str | os.PathLike) -> str:
    """sha256 of ``path``, cached in ``cache_dir`` under the file's (size, mtime, inode, device).

    An unchanged file costs one ``stat``; a changed one (any of the four differs) is hashed again. The
    cache is one small JSON file per path, written atomically, so parallel jobs do not collide.
    """
    p = Path(path)
    st = p.stat()
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        entry = json.loads(_record_path(p, cache_dir).read_text())
        if entry["stat"] == _stat_key(st):
            return str(entry["sha256"])
    value = sha256_file(p)
    if _stat_key(p.stat()) == _stat_key(st):  # not changed while hashing
        record_sha256(p, value, cache_dir)
    return value


# ------------------------------------------------------------------------------------- output paths

def check_output_paths(outputs: Mapping[str, str | os.PathLike | None],
                       inputs: Mapping[str, str | os.PathLike | None] = {}) -> None:
    """Refuse unusable output paths before any work is done.

    ``outputs`` and ``inputs`` map an option name (e.g. ``"--out"``) to a path or None (not given).
    Raises ValueError naming the option and path when an output is an input or another output (the same
    file, also through a symlink), an existing directory, an existing non-regular file (FIFO, device,
    socket), or in a folder that cannot be created or written (:func:`check_writable`). A symlink to a
    regular file (or to a path not yet created) is fine: it is written through. Standard output
    (``-`` or ``/dev/stdout``, :func:`is_stdout`) may take one output.
    """
    def ident(path: str | os.PathLike) -> str:
        return os.path.realpath(path)

    seen: dict[str, str] = {}
    for option, path in inputs.items():
        if path is not None:
            seen.setdefault(ident(path), f"the input {option} {path}")
    for option, path in outputs.items():
        if path is None:
            continue
        where = "<stdout>" if is_stdout(path) else ident(path)
        if where in seen:
            raise ValueError(f"{option} {path} is {seen[where]}; choose another output path")
        seen[where] = f"also given as the output {option}"
        if where == "<stdout>":
            continue
        if os.path.isdir(where):
            raise ValueError(f"{option} {path} is a directory; give a file path")
        if os.path.lexists(where):
            mode = os.stat(where).st_mode
            if not stat.S_ISREG(mode):
                raise ValueError(f"{option} {path} exists and is not a regular file (e.g. a FIFO or device); "
                                 "refusing to replace it")
        check_writable(option, Path(where).parent, f"{option} {path}")


def check_writable(option: str, folder: str | os.PathLike, what: str | None = None) -> None:
    """Refuse (ValueError naming ``what``, default the option and folder) a folder that cannot be created or
    written: its nearest existing ancestor must be a writable directory."""
    what = what or f"{option} {folder}"
    existing = Path(os.path.abspath(folder))
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{what}: {existing} is a file, not a folder; choose another output path")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"{what}: the folder {existing} is not writable (permission denied); choose another "
                         "output path")


# ------------------------------------------------------------------------------------------ reading

_COMPRESSED = (".gz", ".bz2", ".xz", ".zip", ".zst")
_DELIMITERS = ",\t;|"


def default_sep(path: str | os.PathLike) -> str:
    """Tab for ``.tsv`` / ``.tab`` / ``.txt`` (also compressed), else comma."""
    suffixes = [s.lower() for s in Path(path).suffixes if s.lower() not in _COMPRESSED]
    return "\t" if suffixes and suffixes[-1] in (".tsv", ".tab", ".txt") else ","


def _first_line(path: Path) -> str:
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(path.suffix.lower(), open)
    with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as fh:
        return fh.readline()


def sniff_sep(path: str | os.PathLike) -> str:
    """The delimiter of a table: the suffix's default (:func:`default_sep`) unless the header line lacks
    it and holds exactly one other of ``, TAB ; |`` (then that one, via :class:`csv.Sniffer`)."""
    p = Path(path)
    sep = default_sep(p)
    with contextlib.suppress(OSError, EOFError, gzip.BadGzipFile, zlib.error, lzma.LZMAError, ImportError):
        header = _first_line(p)
        others = [d for d in _DELIMITERS if d != sep and d in header]
        if sep not in header and len(others) == 1:
            with contextlib.suppress(csv.Error):
                return csv.Sniffer().sniff(header, delimiters=others[0]).delimiter
    return sep


def read_csv(path: str | os.PathLike, what: str = "input table", sep: str | None = None, **kwargs) -> pd.DataFrame:
    """:func:`pandas.read_csv` whose errors name the file and what was expected.

    ``sep=None`` sniffs the delimiter (:func:`sniff_sep`). Raises ValueError for a missing, empty,
    non-UTF-8, corrupt-compressed or malformed file, and for a table without rows.
    """
    p = check_table_file(path, what)
    sep = sniff_sep(p) if sep is None else sep
    try:
        frame = pd.read_csv(p, sep=sep, **kwargs)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} {p}: not UTF-8 text (byte {exc.start}: {exc.reason}); "
                         "re-encode it as UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None
    except (gzip.BadGzipFile, zlib.error, lzma.LZMAError, EOFError, OSError) as exc:
        raise ValueError(f"{what} {p}: cannot decompress or read it ({exc}); a file named .gz, .bz2, .xz, .zip "
                         "or .zst must be compressed that way") from None
    except ImportError as exc:  # pandas reads .zst through the optional zstandard package
        unpack = next((cmd for suffix, _, cmd in COMPRESSION_MAGIC.values() if p.name.endswith(suffix)), None)
        raise ValueError(f"{what} {p}: reading this compressed file needs a package that is not installed ({exc}); "
                         "install it (for .zst: pip install zstandard)"
                         + (f", or unpack the file first: {unpack} {p} > {p.with_suffix('')}" if unpack else "")
                         ) from None
    except pd.errors.EmptyDataError:
        raise ValueError(f"{what} {p}: no columns to parse (empty after decompression?); "
                         "expected a header row and data rows") from None
    except pd.errors.ParserError as exc:
        raise ValueError(f"{what} {p}: malformed table ({exc}); separator {sep!r}") from None
    if frame.empty:
        raise ValueError(f"{what} {p}: the table has a header but no rows")
    if "header" not in kwargs and "skiprows" not in kwargs:
        refuse_duplicate_columns(p, what, sep)
    return frame


GZIP_MAGIC = b"\x1f\x8b"
COMPRESSION_MAGIC = {GZIP_MAGIC: (".gz", "gzip", "gunzip -c"), b"BZh": (".bz2", "bzip2", "bunzip2 -c"),
                     b"\xfd7zXZ\x00": (".xz", "xz", "unxz -c"), b"PK\x03\x04": (".zip", "zip", "unzip -p"),
                     b"\x28\xb5\x2f\xfd": (".zst", "zstd", "zstd -dc")}
"""The first bytes of the compressed formats pandas reads, with the suffix it reads them by, the format's name
and the command that unpacks one to standard output."""


def _compression(head: bytes) -> tuple[str, str, str] | None:
    """(suffix, format, unpack command) of a file starting with ``head``; None for an uncompressed one."""
    return next((how for magic, how in COMPRESSION_MAGIC.items() if head.startswith(magic)), None)


def check_table_file(path: str | os.PathLike, what: str = "input table") -> Path:
    """The checks of a table file before it is read: it exists, is a regular file, is not empty, and is not
    compressed (gzip, bzip2, xz, zip, zstd) under a name without that format's suffix (it would be read as
    garbled text). Returns the path; raises ValueError naming ``what`` and the file."""
    p = Path(path)
    if not p.exists():
        raise ValueError(f"{what} {p}: file not found")
    if not p.is_file():
        raise ValueError(f"{what} {p}: not a regular file")
    if p.stat().st_size == 0:
        raise ValueError(f"{what} {p}: the file is empty; expected a header row and data rows")
    with open(p, "rb") as fh:
        compressed = _compression(fh.read(6))
    if compressed and p.suffix.lower() != compressed[0]:
        suffix, name, unpack = compressed
        raise ValueError(f"{what} {p}: the file is {name}-compressed but its name does not end in {suffix}; rename "
                         f"it to {p.name}{suffix} (it is then read as it is) or decompress it "
                         f"({unpack} {p.name} > plain.csv)")
    return p


def refuse_duplicate_columns(path: str | os.PathLike, what: str = "input table", sep: str | None = None) -> None:
    """ValueError naming the file and a column name its header holds twice (pandas would silently rename the
    second one ``name.1`` and every reader would use the first). Columns are counted from 1; names are
    compared stripped; unnamed columns are ignored. ``sep=None``: sniffed by pandas' python engine."""
    how = {"sep": sep} if sep is not None else {"sep": None, "engine": "python"}
    header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False, **how).iloc[0]
    names = [str(name).strip() for name in header]
    positions: dict[str, list[int]] = {}
    for i, name in enumerate(names, start=1):  # one pass: a 10,000-column header was quadratic before
        positions.setdefault(name, []).append(i)
    for name, where in positions.items():
        if name and len(where) > 1:
            raise ValueError(f"{what} {path}: {len(where)} columns are named {name!r} (columns "
                             f"{', '.join(map(str, where))}, counted from 1); rename or drop all but one")


# ------------------------------------------------------------------------------------- package data

def package_data(name: str) -> Path:
    """Path of ``benchdesign/data/<name>``, a file shipped inside the installed package."""
    resource = importlib.resources.files("benchdesign.data").joinpath(name)
    if not resource.is_file():
        raise FileNotFoundError(f"package data file {name!r} is missing from the installed benchdesign "
                                f"({resource}); reinstall the package")
    return Path(str(resource))
