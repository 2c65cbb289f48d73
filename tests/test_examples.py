"""The example files the package ships (``benchdesign.examples``): reachable from the package, copied by
``python -m benchdesign.examples``, small, documented with their sources and licences, and exactly the slices
``scripts/dev/make_examples.py`` cuts from the data mirror."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pandas as pd
import pytest
from workflow_helpers import REPO

from benchdesign.examples import EXAMPLES, FOLDER, copy_examples, example_file


def test_every_example_file_is_small_and_has_its_source_and_licence():
    notes = (FOLDER / "README.md").read_text()
    licences = (FOLDER / "LICENSES.txt").read_text()
    for name in EXAMPLES:
        size = example_file(name).stat().st_size
        assert 1_000 < size <= 120_000, f"{name}: {size} bytes"
        assert f"`{name}`" in notes and name in licences, name
    for licence in ("MIT License", "CC BY 4.0", "Apache License"):
        assert licence in licences, licence
    with pytest.raises(ValueError, match="no example file 'x.csv'"):
        example_file("x.csv")


def test_layouts_the_quick_starts_rely_on():
    mols = pd.read_csv(example_file("mols.csv"))
    assert list(mols.columns) == ["id", "smiles", "active"] and len(mols) > 50 and mols["id"].is_unique
    assert set(mols["active"]) == {0, 1}
    pairs = pd.read_csv(example_file("pairs.csv"))
    assert list(pairs.columns) == ["smiles", "sequence", "label"]
    scores = pd.read_csv(example_file("scores.csv"))
    assert list(scores.columns) == ["dataset", "model", "score"]  # no folds: the layout of issue 36
    features = pd.read_csv(example_file("features.csv"), index_col="dataset")
    assert set(features.index) == set(scores["dataset"])


def test_python_m_copies_them_or_prints_their_folder(tmp_path):
    result = subprocess.run([sys.executable, "-m", "benchdesign.examples", "ex"], cwd=tmp_path, capture_output=True,
                            text=True, check=True)
    assert result.stdout.split() == [f"ex/{name}" for name in (*EXAMPLES, "README.md", "LICENSES.txt")]
    for name in EXAMPLES:
        assert (tmp_path / "ex" / name).read_bytes() == example_file(name).read_bytes()
    shown = subprocess.run([sys.executable, "-m", "benchdesign.examples"], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == str(FOLDER)
    (tmp_path / "file").write_text("")
    refused = subprocess.run([sys.executable, "-m", "benchdesign.examples", "file"], cwd=tmp_path,
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "is a file" in refused.stderr
    assert [p.name for p in copy_examples(tmp_path / "again")][:4] == list(EXAMPLES)


@pytest.mark.mirror
def test_they_are_the_slices_of_the_mirror(tmp_path, mirror_dir):
    spec = importlib.util.spec_from_file_location("make_examples", REPO / "scripts" / "dev" / "make_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for path in module.write(mirror_dir, tmp_path):
        assert path.read_bytes() == example_file(path.name).read_bytes(), f"{path.name} differs from the mirror's slice"
