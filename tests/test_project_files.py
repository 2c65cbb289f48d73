"""The files a user, a packager and the Snakemake workflow catalogue look for: the licence pyproject.toml names,
a citation of the project and of the two papers it implements, a changelog entry for the current version."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def test_the_licence_file_holds_the_licence_pyproject_names():
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License\n") and "Permission is hereby granted, free of charge" in text


def test_the_citation_file_cites_the_project_and_both_papers():
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert str(cff["version"]) == PROJECT["version"] and cff["license"] == PROJECT["license"]
    titles = {ref["title"] for ref in cff["references"]}
    assert titles == {"Benchmarking on Tasks That Matter: Dataset Selection for Preserving Model Rankings",
                      "Data splitting to avoid information leakage with DataSAIL"}
    papers = {p.name: p.read_text().splitlines()[0] for p in (REPO.parent / "shared" / "papers").glob("*.txt")}
    assert not papers or set(papers.values()) == titles, papers  # the titles as the papers' texts give them
    datasail = next(r for r in cff["references"] if "DataSAIL" in r["title"])
    assert datasail["doi"] == "10.1038/s41467-025-58606-8"


def test_the_changelog_has_an_entry_for_the_current_version():
    text = (REPO / "CHANGELOG.md").read_text()
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, re.M)
    assert released and released[0][0] == PROJECT["version"], released
    assert text.index("## [Unreleased]") < text.index(f"## [{PROJECT['version']}]")
