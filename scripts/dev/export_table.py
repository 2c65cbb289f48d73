#!/usr/bin/env python
"""Write a built-in domain as the plain CSV files of a ``kind: table`` domain (scores in the long
layout, one feature CSV per representation built from the domain's inputs), from the data mirror.

The worked example config/table_example.yaml reads the RecSys matrix written by::

    python scripts/dev/export_table.py --domain recsys --mirror ../shared/data --out resources/examples/recsys

(run in the directory where snakemake runs; files are fetched and sha256-checked as the pipeline does).
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from benchdesign.data.sources import fetch, load_manifest
from benchdesign.domains import REGISTRY, domain_source_paths, load_scores

REPO = Path(__file__).resolve().parents[2]


def export(domain_name: str, mirror: str, out: Path, allow_download: bool = False) -> list[Path]:
    """Fetch the domain's inputs, write ``scores.csv`` and ``<representation>.csv`` into ``out``."""
    domain = REGISTRY[domain_name]
    manifest = load_manifest(REPO / "data/sources.yaml")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as cache:
        files = {}
        for path in domain_source_paths(domain, manifest):
            files[path] = str(Path(cache) / path)
            fetch(manifest[path], files[path], mirror=mirror, allow_download=allow_download, log=lambda m: None)
        scores = load_scores(domain, files, None)
        scores.to_csv(out / "scores.csv", index=False)
        written.append(out / "scores.csv")
        for rep, build in domain.builders.items():
            build(files).rename_axis("dataset").to_csv(out / f"{rep}.csv")
            written.append(out / f"{rep}.csv")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", choices=[n for n, d in REGISTRY.items() if d.builders or d.sources],
                        default="recsys")
    parser.add_argument("--mirror", required=True, help="data mirror laid out as data/sources.yaml names it")
    parser.add_argument("--out", required=True, type=Path, help="output folder")
    parser.add_argument("--allow-download", action="store_true", help="fall back to the canonical URLs")
    args = parser.parse_args()
    for path in export(args.domain, args.mirror, args.out, args.allow_download):
        print(path)


if __name__ == "__main__":
    main()
