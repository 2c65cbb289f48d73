"""Protein sequences in: FASTA files (``read_fasta``) and the checks of every sequence read (``check_sequences``).

A FASTA file (``.fasta``, ``.fa``, ``.faa``, ``.fas``, optionally ``.gz`` / ``.bz2`` / ``.xz``, or any file whose
first line starts with ``>``) is read as a table with columns ``id``, ``description`` and ``sequence``, so it
flows through the same paths as a CSV / TSV entity table ([`read_table`][benchdesign.splitting.inputs.read_table]).
Every protein sequence, from a FASTA file or a table column, is checked against the IUPAC protein alphabet
(``PROTEIN_ALPHABET``) before it is compared: digits, whitespace inside, gap / stop characters and ``>`` are
refused (or, with ``clean=True``, digits, whitespace and gap characters removed), lower case is compared as
upper case and counted.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.files import check_table_file
from benchdesign.splitting.similarity import GAP_CHARACTERS

__all__ = [
    "FASTA_SUFFIXES", "PROTEIN_ALPHABET", "CheckedSequences", "check_sequences", "is_fasta", "read_fasta",
    "sequence_note_lines",
]

FASTA_SUFFIXES = (".fasta", ".fa", ".faa", ".fas")
"""File name endings read as FASTA (also with a compression suffix, ``COMPRESSED_SUFFIXES``)."""

COMPRESSED_SUFFIXES = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
"""Compression suffixes of a FASTA file and how to open them (text mode)."""

PROTEIN_ALPHABET = frozenset("ACDEFGHIKLMNPQRSTVWY" + "BZXUOJ")
"""The IUPAC protein alphabet: the 20 standard amino acids, B (D or N), Z (E or Q), X (any), U (selenocysteine),
O (pyrrolysine) and J (I or L) -- the 26 letters A-Z; lower case is read as upper case."""

ALPHABET_TEXT = "the IUPAC protein alphabet: the 20 amino acids and B Z X U O J, i.e. the letters A-Z in any case"
"""``PROTEIN_ALPHABET`` in words, for error messages."""

FASTA_ROWS_COUNTED = "(rows count the FASTA records from 0, in file order)"
"""How the row numbers of errors about a FASTA file's records count (``read_fasta`` puts it in ``df.attrs``)."""


def _fasta_name(p: Path) -> bool:
    """Whether the file name ends in a FASTA suffix, optionally followed by a compression suffix."""
    suffixes = [s.lower() for s in p.suffixes[-2:]]
    if suffixes and suffixes[-1] in COMPRESSED_SUFFIXES | {".zip": None, ".zst": None}:
        suffixes = suffixes[:-1]
    return bool(suffixes) and suffixes[-1] in FASTA_SUFFIXES


def _open_text(p: Path):
    """``p`` opened as UTF-8 text (a BOM dropped, any line ending), decompressed by its suffix."""
    opener = COMPRESSED_SUFFIXES.get(p.suffix.lower(), open)
    return opener(p, "rt", encoding="utf-8-sig", newline=None)


def is_fasta(path: str | Path) -> bool:
    """Whether ``path`` is read as FASTA: its name ends in a FASTA suffix (``FASTA_SUFFIXES``, optionally
    compressed), or its first non-blank character is ``>``. False for a file that cannot be opened (the table
    reader then names the problem).

    Parameters
    ----------
    path : str | Path
        The file.

    Returns
    -------
    bool
        True to read it with ``read_fasta``.
    """
    p = Path(path)
    if _fasta_name(p):
        return True
    if not p.is_file() or p.suffix.lower() in (".zip", ".zst"):
        return False
    try:
        with _open_text(p) as fh:
            head = fh.read(4096)
    except (OSError, ValueError, EOFError, lzma.LZMAError, UnicodeDecodeError):
        return False
    return head.lstrip().startswith(">")


def _fasta_records(fh, where: str) -> tuple[list[str], list[str], list[list[str]], list[int]]:
    """ids, headers, sequence lines and header line numbers of the records of an open FASTA file."""
    ids: list[str] = []
    headers: list[str] = []
    parts: list[list[str]] = []
    lines: list[int] = []
    for number, raw in enumerate(fh, start=1):
        line = raw.strip()
        if line.startswith(">"):
            header = line[1:].strip()
            if not header:
                raise ValueError(f"{where}: line {number}: a header with an empty id ({raw.rstrip()!r}); the id is the "
                                 "first word after '>'")
            ids.append(header.split(maxsplit=1)[0])
            headers.append(header)
            parts.append([])
            lines.append(number)
        elif not line:
            continue
        elif not ids:
            shown = line if len(line) <= 40 else line[:40] + "..."
            raise ValueError(f"{where}: line {number}: text before the first header ({shown!r}); a FASTA file "
                             "starts with a header line '>id description'")
        else:
            parts[-1].append(line)
    return ids, headers, parts, lines


def _count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, singular or plural."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def _listed(items: list[str], limit: int = 10) -> str:
    """The first ``limit`` items joined, then "and N more"."""
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def read_fasta(path: str | Path, what: str = "FASTA file") -> pd.DataFrame:
    """Read a FASTA file of protein sequences into a table of ``id``, ``description`` and ``sequence``.

    The id is the first whitespace-delimited word after ``>``, the description the whole header (without
    ``>``), the sequence its lines joined (whitespace at each line's ends dropped; whitespace inside a line is
    kept, and refused when the sequences are checked). Blank lines are skipped; any line ending (LF, CRLF, CR)
    is read. ``.gz``, ``.bz2`` and ``.xz`` files are decompressed. A small parser of its own, not Biopython's:
    FASTA needs a dozen lines, Biopython would be a large dependency for them, and its parser accepts silently
    what is refused here (text before the first header, a record without a sequence, duplicate ids).

    Every error names the file and the line or record: no record, text before the first header, a header
    without an id, duplicate ids (with their header lines), a record without a sequence. The sequences
    themselves are checked where they are compared (``check_sequences``, through
    [`entities_from_table`][benchdesign.splitting.inputs.entities_from_table]).

    Parameters
    ----------
    path : str | Path
        The FASTA file.
    what : str
        What the file is, for error messages.

    Returns
    -------
    pd.DataFrame
        One row per record, in file order: ``id``, ``description``, ``sequence`` (strings). ``df.attrs`` holds
        ``format`` ``'fasta'``, the ``path`` and ``header_lines`` (the line of each record's header, from 1).

    Raises
    ------
    ValueError
        For a file that is missing, empty, not UTF-8, or not a FASTA file of at least one record as above.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from benchdesign.splitting import read_fasta
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "small.fasta"
    >>> _ = path.write_text(">P1 kinase A\\nMKTAYIAK\\nQRQISF\\n>P2\\nGAVLIKEW\\n")
    >>> read_fasta(path)
       id  description        sequence
    0  P1  P1 kinase A  MKTAYIAKQRQISF
    1  P2           P2        GAVLIKEW
    """
    p = check_table_file(path, what)
    where = f"{what} {p}" + ("" if "fasta" in what.lower() else " (FASTA)")
    if p.suffix.lower() in (".zip", ".zst"):
        raise ValueError(f"{where}: a FASTA file compressed as {p.suffix} is not read; decompress it, or compress it "
                         "with gzip (.gz), bzip2 (.bz2) or xz (.xz)")
    try:
        with _open_text(p) as fh:
            ids, headers, parts, lines = _fasta_records(fh, where)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not UTF-8 text (byte {exc.start}: {exc.reason}); re-encode it as UTF-8") from None
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise ValueError(f"{where}: cannot decompress or read it ({exc})") from None
    if not ids:
        raise ValueError(f"{where}: no records (no header line starting with '>')")
    seen: dict[str, list[int]] = {}
    for i, line in zip(ids, lines, strict=True):
        seen.setdefault(i, []).append(line)
    dup = [f"{i!r} (lines {', '.join(map(str, at))})" for i, at in seen.items() if len(at) > 1]
    if dup:
        raise ValueError(f"{where}: {_count(len(dup), 'id names', 'ids name')} several records: {_listed(dup)}; every "
                         "id (the first word of a header) must be unique")
    sequences = ["".join(chunk) for chunk in parts]
    empty = [f"{i!r} (line {line})" for i, line, s in zip(ids, lines, sequences, strict=True) if not s]
    if empty:
        raise ValueError(f"{where}: {_count(len(empty), 'record has', 'records have')} no sequence: {_listed(empty)}; "
                         "give their sequences or remove them")
    df = pd.DataFrame({"id": ids, "description": headers, "sequence": sequences}, dtype=object)
    df.attrs.update({"format": "fasta", "path": str(p), "header_lines": lines, "rows_counted": FASTA_ROWS_COUNTED})
    return df


@dataclass(frozen=True)
class CheckedSequences:
    """Protein sequences checked by ``check_sequences``.

    Attributes
    ----------
    sequences : list[str]
        Each sequence stripped and upper-cased (and cleaned with ``clean``); ``''`` when invalid.
    valid : np.ndarray
        (n,) bool: the sequence can be compared.
    problems : list[str]
        Why each invalid sequence is refused (``''`` for valid ones), e.g. ``"digits '1' '2'"``.
    n_lower_case : int
        Sequences with lower-case letters (compared as upper case).
    n_cleaned : int
        Sequences changed by ``clean`` (digits, whitespace or gap characters removed).
    gapped : bool
        Some sequence holds gap / stop characters (not removed).
    """

    sequences: list[str]
    valid: np.ndarray
    problems: list[str]
    n_lower_case: int = 0
    n_cleaned: int = 0
    gapped: bool = False

    def notes(self, clean: bool) -> dict:
        """The record of what reading changed, for reports: counts of sequences, lower-case and cleaned ones."""
        return {"n_sequences": len(self.sequences), "n_lower_case": self.n_lower_case, "n_cleaned": self.n_cleaned,
                "clean_sequences": bool(clean)}


def _chars(chars: set[str]) -> str:
    return " ".join(repr(c) for c in sorted(chars))


def _problem(seq: str) -> tuple[str, bool]:
    """Why a stripped, upper-cased sequence cannot be compared ('' when it can), and whether it has gaps."""
    digits = {c for c in seq if c.isdigit()}
    space = {c for c in seq if c.isspace()}
    gaps = {c for c in seq if c in GAP_CHARACTERS}
    header = {c for c in seq if c == ">"}
    other = set(seq) - PROTEIN_ALPHABET - digits - space - gaps - header
    out = []
    if digits:
        out.append(f"digits {_chars(digits)}")
    if space:
        out.append("whitespace inside")
    if gaps:
        out.append(f"gap / stop characters {_chars(gaps)}")
    if header:
        out.append("'>' (a FASTA header pasted into the sequence?)")
    if other:
        out.append(f"characters outside the IUPAC protein alphabet {_chars(other)}")
    return " and ".join(out), bool(gaps)


def check_sequences(values: Sequence[object], clean: bool = False) -> CheckedSequences:
    """Check protein sequences against the IUPAC protein alphabet (``PROTEIN_ALPHABET``), before comparing them.

    Whitespace at the ends is dropped; lower case is compared as upper case (counted in ``n_lower_case``, never
    silently). Refused (``valid`` False, with the reason in ``problems``): a missing or empty sequence, digits,
    whitespace inside, gap / stop characters (``- . *``), ``>``, and any other character outside the alphabet.
    ``clean`` removes digits, whitespace and gap / stop characters instead (counted in ``n_cleaned``); a
    sequence left empty, or with ``>`` or another character outside the alphabet, is still refused.

    Parameters
    ----------
    values : Sequence[object]
        The sequences (e.g. a table column; missing values are refused).
    clean : bool
        Remove digits, whitespace and gap / stop characters instead of refusing them.

    Returns
    -------
    CheckedSequences
        The sequences as compared, which are valid and why not, and the counts of changed ones.
    """
    out, valid, problems = [], np.ones(len(values), dtype=bool), []
    n_lower = n_cleaned = 0
    gapped = False
    for i, value in enumerate(values):
        seq = value.strip() if isinstance(value, str) else ""
        if clean and seq:
            kept = "".join(c for c in seq if not (c.isdigit() or c.isspace() or c in GAP_CHARACTERS))
            n_cleaned += kept != seq
            seq = kept
        if not seq:
            out.append("")
            valid[i] = False
            problems.append("empty or missing")
            continue
        upper = seq.upper()
        problem, gaps = _problem(upper)
        gapped |= gaps
        if problem:
            out.append("")
            valid[i] = False
            problems.append(problem)
            continue
        n_lower += upper != seq
        out.append(upper)
        problems.append("")
    return CheckedSequences(out, valid, problems, n_lower, n_cleaned, gapped)


def sequence_note_lines(notes: dict | None, where: str = "") -> list[str]:
    """Console lines of a ``CheckedSequences.notes`` record: lower-case and cleaned sequences (none when neither).

    Parameters
    ----------
    notes : dict | None
        The record (``n_lower_case``, ``n_cleaned``), or None.
    where : str
        Prefix naming the side, e.g. ``'side b: '``.

    Returns
    -------
    list[str]
        Zero, one or two ``note:`` lines.
    """
    if not notes:
        return []
    lines = []
    if notes.get("n_cleaned"):
        n = notes["n_cleaned"]
        lines.append(f"note: {where}--clean-sequences changed {n} sequence{'s' if n != 1 else ''} (removed digits, "
                     "whitespace or gap / stop characters)")
    if notes.get("n_lower_case"):
        n = notes["n_lower_case"]
        lines.append(f"note: {where}{n} sequence{'s were' if n != 1 else ' was'} lower case; compared as upper case")
    return lines
