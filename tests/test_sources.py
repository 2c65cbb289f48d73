"""Tests for the sources manifest and fetch (mirror / installed package / file:// URL; no network)."""
from __future__ import annotations

import hashlib
import importlib.util
import io
import re
import subprocess
import tarfile
from pathlib import Path

import pytest
import yaml

from benchdesign.data.loaders import load_tsc_bakeoff
from benchdesign.data.sources import (
    ArchiveMember,
    ChecksumError,
    PackageFile,
    SourceFile,
    fetch,
    files_of,
    git_blob_id,
    load_manifest,
    sha256_file,
)

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "data" / "sources.yaml"
SOURCES = {"tsc_bakeoff2023", "recsys_shevchenko2024", "nlp_mteb_table11", "nlp_mteb_metadata",
           "nlp_mteb_results_json", "mol_moleculenet", "mol_davis", "mol_kiba", "mol_lp_pdbbind",
           "mol_moses"}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _entry(path="x/file.csv", data=b"a,b\n1,2\n", url="https://example.invalid/file.csv", **kw) -> SourceFile:
    return SourceFile(source="test", path=path, sha256=_sha(data), url=url, **kw)


def _leftovers(directory: Path) -> list[Path]:
    return [p for p in directory.rglob("*") if p.is_file()] if directory.exists() else []


def _write_manifest(tmp_path: Path, files: list[dict]) -> Path:
    p = tmp_path / "sources.yaml"
    p.write_text(yaml.safe_dump({"version": 1, "sources": {"s": {"files": files}}}))
    return p


GOOD = {"path": "a/b.csv", "sha256": "0" * 64, "url": "https://example.org/b.csv"}


# ------------------------------------------------------------------------------------ manifest

def test_repo_manifest_loads_with_expected_sources():
    m = load_manifest(MANIFEST)
    assert {f.source for f in m.values()} == SOURCES
    assert len(files_of(m, "tsc_bakeoff2023")) == 35
    assert len(files_of(m, "nlp_mteb_results_json")) == 15
    for key in ("recsys_shevchenko2024", "nlp_mteb_table11", "nlp_mteb_metadata"):
        assert len(files_of(m, key)) == 1
    assert all(k == f.path for k, f in m.items())
    tsc = files_of(m, "tsc_bakeoff2023")
    assert all(f.package is not None and f.package.name == "tsml_eval" for f in tsc)
    assert all(f.url.startswith("https://timeseriesclassification.com/results/PublishedResults/Bakeoff2023/")
               for f in tsc)
    others = [f for f in m.values() if f.source != "tsc_bakeoff2023"]
    assert all(f.url.startswith("https://raw.githubusercontent.com/") for f in others)
    assert all(f.archive is not None for f in files_of(m, "nlp_mteb_results_json"))
    assert len(files_of(m, "mol_moleculenet")) == 12
    assert [f.path.rsplit("/", 1)[1] for f in files_of(m, "mol_davis")] == [
        "ligands_can.txt", "proteins.txt", "affinities_Kd_nM.txt"]
    [lp] = files_of(m, "mol_lp_pdbbind")  # no offline copy: checked by its git blob id
    assert (lp.sha256, lp.git_blob) == (None, "8706a40a") and "/THGLab/LP-PDBBind/0ec619e" in lp.url
    assert all(f.sha256 is not None and f.git_blob is None for f in m.values() if f is not lp)
    [moses] = files_of(m, "mol_moses")  # package data of the molsets wheel, same bytes as the url's
    assert (moses.package.name, moses.package.pip, moses.package.path) == (
        "moses", "molsets==0.3.1", "dataset/data/train.csv.gz") and moses.package.sha256 == moses.sha256


def test_files_of_unknown_source():
    with pytest.raises(ValueError, match="unknown source 'nope'"):
        files_of(load_manifest(MANIFEST), "nope")


@pytest.mark.parametrize("drop", ["path", "url"])
def test_manifest_missing_key_names_entry(tmp_path, drop):
    entry = {k: v for k, v in GOOD.items() if k != drop}
    with pytest.raises(ValueError, match=rf"source 's', file #0.*missing key\(s\) \['{drop}'\]"):
        load_manifest(_write_manifest(tmp_path, [entry]))


def test_manifest_missing_key_names_path(tmp_path):
    entry = {"path": "a/b.csv", "url": "https://example.org/b.csv"}
    with pytest.raises(ValueError, match=r"path='a/b.csv'"):
        load_manifest(_write_manifest(tmp_path, [entry]))


@pytest.mark.parametrize("bad, pattern", [
    ({**GOOD, "sha256": "abc"}, "sha256 must be 64"),
    ({k: v for k, v in GOOD.items() if k != "sha256"}, "give exactly one of sha256 and git_blob"),
    ({**GOOD, "git_blob": "8706a40a"}, "give exactly one of sha256 and git_blob"),
    ({"path": "a/b.csv", "git_blob": "87A6", "url": "https://example.org/b.csv"}, "git_blob must be 7 to 40"),
    ({**GOOD, "path": "/abs/b.csv"}, "path must be relative"),
    ({**GOOD, "path": "a/../b.csv"}, "path must be relative"),
    ({**GOOD, "url": "not a url"}, "url must be an absolute URL"),
    ({**GOOD, "colour": "red"}, r"unknown key\(s\) \['colour'\]"),
    ({**GOOD, "package": {"name": "p", "path": "x"}}, r"package: missing key\(s\) \['sha256'\]"),
    ({**GOOD, "archive": {"path": "t.tar"}}, r"archive: missing key\(s\) \['member'\]"),
])
def test_manifest_malformed_entries(tmp_path, bad, pattern):
    with pytest.raises(ValueError, match=pattern):
        load_manifest(_write_manifest(tmp_path, [bad]))


def test_manifest_duplicate_path(tmp_path):
    with pytest.raises(ValueError, match="already listed"):
        load_manifest(_write_manifest(tmp_path, [GOOD, dict(GOOD)]))


def test_manifest_without_sources(tmp_path):
    p = tmp_path / "m.yaml"
    p.write_text("version: 1\n")
    with pytest.raises(ValueError, match="'sources'"):
        load_manifest(p)


def test_manifest_source_without_files(tmp_path):
    p = tmp_path / "m.yaml"
    p.write_text(yaml.safe_dump({"sources": {"s": {"note": "x"}}}))
    with pytest.raises(ValueError, match=r"source 's'.*missing key\(s\) \['files'\]"):
        load_manifest(p)


# ---------------------------------------------------------------------------------------- fetch

def test_fetch_from_mirror(tmp_path):
    data = b"a,b\n1,2\n"
    mirror = tmp_path / "mirror"
    (mirror / "x").mkdir(parents=True)
    (mirror / "x" / "file.csv").write_bytes(data)
    dest = tmp_path / "cache" / "x" / "file.csv"
    logs = []
    assert fetch(_entry(data=data), dest, mirror=mirror, allow_download=False, log=logs.append) == "mirror"
    assert dest.read_bytes() == data
    assert _leftovers(dest.parent) == [dest]
    assert logs and "mirror" in logs[0]


def test_fetch_mirror_takes_precedence_over_url(tmp_path):
    data = b"mirror bytes"
    mirror = tmp_path / "mirror"
    (mirror / "x").mkdir(parents=True)
    (mirror / "x" / "file.csv").write_bytes(data)
    other = tmp_path / "other.csv"
    other.write_bytes(b"url bytes")
    entry = _entry(data=data, url=other.as_uri())
    assert fetch(entry, tmp_path / "out.csv", mirror=mirror) == "mirror"


def test_fetch_checksum_mismatch_leaves_nothing(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "x").mkdir(parents=True)
    (mirror / "x" / "file.csv").write_bytes(b"tampered")
    entry = _entry(data=b"original")
    dest = tmp_path / "cache" / "x" / "file.csv"
    with pytest.raises(ChecksumError) as exc:
        fetch(entry, dest, mirror=mirror, allow_download=False)
    msg = str(exc.value)
    assert "x/file.csv" in msg and "source test" in msg and "mirror" in msg
    assert entry.sha256 in msg and _sha(b"tampered") in msg
    assert not dest.exists()
    assert _leftovers(dest.parent) == []


def test_fetch_checksum_mismatch_keeps_previous_dest(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "x").mkdir(parents=True)
    (mirror / "x" / "file.csv").write_bytes(b"tampered")
    dest = tmp_path / "out.csv"
    dest.write_bytes(b"old")
    with pytest.raises(ChecksumError):
        fetch(_entry(data=b"original"), dest, mirror=mirror, allow_download=False)
    assert dest.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mirror", "out.csv"]


def test_fetch_from_mirror_archive(tmp_path):
    data = b'{"test": {"ndcg_at_10": 0.5}}'
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    with tarfile.open(mirror / "bundle.tar.gz", "w:gz") as tar:
        info = tarfile.TarInfo("results/m/T.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    entry = _entry(path="nlp/results/m/T.json", data=data,
                   archive=ArchiveMember(path="bundle.tar.gz", member="results/m/T.json"))
    dest = tmp_path / "cache" / "T.json"
    assert fetch(entry, dest, mirror=mirror, allow_download=False) == "mirror"
    assert dest.read_bytes() == data
    missing = _entry(path="nlp/results/m/U.json", data=data,
                     archive=ArchiveMember(path="bundle.tar.gz", member="results/m/U.json"))
    with pytest.raises(FileNotFoundError, match="has no member results/m/U.json"):
        fetch(missing, tmp_path / "U.json", mirror=mirror, allow_download=False)


def _pandas_file() -> tuple[str, Path]:
    spec = importlib.util.find_spec("pandas")
    root = Path(list(spec.submodule_search_locations)[0])
    rel = "io/formats/templates/html.tpl"
    if not (root / rel).is_file():
        pytest.skip(f"pandas has no {rel}")
    return rel, root / rel


def test_fetch_from_installed_package(tmp_path):
    rel, src = _pandas_file()
    pkg = PackageFile(name="pandas", path=rel, sha256=sha256_file(src), pip="pandas")
    entry = SourceFile(source="test", path="p/html.tpl", sha256="1" * 64,  # url bytes differ
                       url="https://example.invalid/html.tpl", package=pkg)
    dest = tmp_path / "p" / "html.tpl"
    # an empty mirror is looked at first, then the package
    assert fetch(entry, dest, mirror=tmp_path / "empty", allow_download=False) == "package"
    assert dest.read_bytes() == src.read_bytes()


def test_fetch_package_checksum_mismatch(tmp_path):
    rel, _ = _pandas_file()
    entry = SourceFile(source="test", path="p/html.tpl", sha256="1" * 64, url="https://example.invalid/x",
                       package=PackageFile(name="pandas", path=rel, sha256="2" * 64))
    dest = tmp_path / "html.tpl"
    with pytest.raises(ChecksumError, match=r"package pandas.*expected sha256 2{64}"):
        fetch(entry, dest, allow_download=False)
    assert _leftovers(tmp_path) == []


def test_fetch_from_file_url(tmp_path):
    data = b"downloaded\n"
    remote = tmp_path / "remote" / "file.csv"
    remote.parent.mkdir()
    remote.write_bytes(data)
    entry = _entry(data=data, url=remote.as_uri(),
                   package=PackageFile(name="benchdesign_no_such_pkg", path="f.csv", sha256="3" * 64))
    dest = tmp_path / "cache" / "file.csv"
    assert fetch(entry, dest, mirror=None) == "url"
    assert dest.read_bytes() == data


def test_fetch_url_checksum_mismatch(tmp_path):
    remote = tmp_path / "remote.csv"
    remote.write_bytes(b"changed upstream")
    dest = tmp_path / "cache" / "file.csv"
    with pytest.raises(ChecksumError, match="url"):
        fetch(_entry(data=b"original", url=remote.as_uri()), dest)
    assert _leftovers(dest.parent) == []


def test_git_blob_id_equals_git_hash_object(tmp_path):
    path = tmp_path / "f.csv"
    path.write_bytes(b"id,smiles\n1abc,CCO\n" * 1000)
    git = subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True, check=True)
    assert git_blob_id(path) == git.stdout.strip()
    path.write_bytes(b"")
    assert git_blob_id(path) == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git's empty blob


def test_fetch_checks_the_git_blob_id_where_no_sha256_is_known(tmp_path):
    data = b"pdb,smiles,seq,value\n1abc,CCO,MKV,6.5\n"
    mirror = tmp_path / "mirror"
    (mirror / "x").mkdir(parents=True)
    (mirror / "x" / "file.csv").write_bytes(data)
    blob = git_blob_id(mirror / "x" / "file.csv")
    entry = SourceFile(source="test", path="x/file.csv", sha256=None, url="https://example.invalid/f.csv",
                       git_blob=blob[:8])
    dest = tmp_path / "cache" / "x" / "file.csv"
    assert fetch(entry, dest, mirror=mirror, allow_download=False) == "mirror"
    assert dest.read_bytes() == data
    dest.unlink()
    (mirror / "x" / "file.csv").write_bytes(data + b"2xyz,CCN,MK,5.0\n")
    with pytest.raises(ChecksumError, match=f"expected a git blob id starting {blob[:8]}"):
        fetch(entry, dest, mirror=mirror, allow_download=False)
    assert _leftovers(dest.parent) == []


def test_fetch_missing_everywhere_names_every_place(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    url = (tmp_path / "nowhere.csv").as_uri()
    entry = _entry(url=url, package=PackageFile(name="benchdesign_no_such_pkg", path="f.csv",
                                               sha256="3" * 64, pip="benchdesign-no-such-pkg==1.0"))
    dest = tmp_path / "cache" / "x" / "file.csv"
    with pytest.raises(FileNotFoundError) as exc:
        fetch(entry, dest, mirror=mirror)
    msg = str(exc.value)
    assert "x/file.csv" in msg
    assert str(mirror / "x" / "file.csv") in msg
    assert "benchdesign_no_such_pkg" in msg and "not installed" in msg
    assert url in msg and "error" in msg
    assert "--config mirror=DIR" in msg and "pip install --no-deps benchdesign-no-such-pkg==1.0" in msg
    assert "internet" in msg
    assert not dest.exists()


def test_fetch_download_not_allowed(tmp_path):
    remote = tmp_path / "remote.csv"
    remote.write_bytes(b"a,b\n1,2\n")
    with pytest.raises(FileNotFoundError, match="download not allowed") as exc:
        fetch(_entry(url=remote.as_uri()), tmp_path / "out.csv", mirror=None, allow_download=False)
    assert "mirror: none given" in str(exc.value)
    assert not (tmp_path / "out.csv").exists()


def test_fetch_real_tsc_entry_from_tsml_eval(tmp_path):
    if importlib.util.find_spec("tsml_eval") is None:
        pytest.skip("tsml_eval is not installed (pip install --no-deps tsml-eval==0.6.0)")
    m = load_manifest(MANIFEST)
    entry = m["tsc/bakeoff2023/Hydra-MR_TESTFOLDS.csv"]
    dest = tmp_path / entry.path
    assert fetch(entry, dest, mirror=None, allow_download=False) == "package"
    assert sha256_file(dest) == entry.package.sha256
    assert dest.read_text().startswith("Resamples:")
    scores = load_tsc_bakeoff([dest])
    assert set(scores["model"]) == {"Hydra-MR"}
    assert scores.shape == (112 * 30, 4)


# ------------------------------------------------------------------------------ mirror (real data)

@pytest.mark.mirror
def test_every_manifest_file_fetches_from_mirror(mirror_dir, tmp_path):
    m = load_manifest(MANIFEST)
    for rel, entry in m.items():
        dest = tmp_path / rel
        if entry.git_blob is not None:  # LP-PDBBind: no offline copy, so the error says where to get it
            with pytest.raises(FileNotFoundError, match=re.escape(entry.url)):
                fetch(entry, dest, mirror=mirror_dir, allow_download=False)
            continue
        if entry.package is not None and entry.package.name == "moses" and not (mirror_dir / rel).is_file():
            # package data outside the mirror: from the installed wheel, or an error naming the pip command
            if importlib.util.find_spec("moses") is not None:
                assert fetch(entry, dest, mirror=mirror_dir, allow_download=False) == "package"
                assert sha256_file(dest) == entry.sha256
            else:
                with pytest.raises(FileNotFoundError, match=re.escape("pip install --no-deps molsets==0.3.1")):
                    fetch(entry, dest, mirror=mirror_dir, allow_download=False)
            continue
        assert fetch(entry, dest, mirror=mirror_dir, allow_download=False) == "mirror", rel
        assert sha256_file(dest) == entry.sha256
    assert not list(tmp_path.rglob("*.part"))


@pytest.mark.mirror
def test_manifest_hashes_match_sources_notes(mirror_dir):
    """The sha256 listed in the mirror's SOURCES.md files agree with the manifest."""
    m = load_manifest(MANIFEST)
    listed = {}
    for notes in mirror_dir.glob("*/SOURCES.md"):
        for line in notes.read_text().splitlines():
            parts = line.split()
            if len(parts) == 2 and len(parts[0]) == 64:
                listed[f"{notes.parent.name}/{parts[1]}"] = parts[0]
    common = [p for p in m if p in listed]
    assert len(common) == 3
    for p in common:
        assert m[p].sha256 == listed[p], p
