"""Tests for the loaders: tiny hand-made fixtures (every bad-input error) and the real mirror files."""
from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchdesign.data.loaders import (
    SCORES_HIGHER_IS_BETTER,
    load_mteb_metadata,
    load_mteb_table11,
    load_recsys,
    load_tsc_bakeoff,
)
from benchdesign.selection.representations import check_same_datasets

FIX = Path(__file__).resolve().parent / "fixtures"
TSC = FIX / "tsc"
GOOD_TSC = [TSC / "Alpha_TESTFOLDS.csv", TSC / "Beta_TESTFOLDS.csv", TSC / "Gamma_TESTFOLDS.csv"]
RECSYS = FIX / "recsys" / "datafeatures_tiny.csv"
TEX = FIX / "mteb" / "all_en_tiny.txt"
ADA_DIR = FIX / "mteb" / "ada"
README = FIX / "mteb" / "README_tiny.md"


def _check_scores_contract(s: pd.DataFrame) -> None:
    assert list(s.columns) == ["dataset", "model", "fold", "score"]
    assert s["fold"].dtype == np.int64 and s["score"].dtype == np.float64
    assert not s["score"].isna().any()
    assert not s.duplicated(["dataset", "model", "fold"]).any()
    assert s.attrs["higher_is_better"] is True


# ------------------------------------------------------------------------------------------ TSC

def test_tsc_basic_and_intersection():
    s = load_tsc_bakeoff(GOOD_TSC)
    _check_scores_contract(s)
    # Extra is only in Beta: dropped; order of the first file
    assert list(dict.fromkeys(s["dataset"])) == ["Coffee", "GunPoint", "Wine"]
    assert list(dict.fromkeys(s["model"])) == ["Alpha", "Beta", "Gamma"]
    assert s.shape == (3 * 3 * 3, 4)
    # the Resamples: header is read the same way as folds:
    row = s[(s.dataset == "GunPoint") & (s.model == "Beta") & (s.fold == 2)]
    assert row["score"].item() == pytest.approx(0.9)
    row = s[(s.dataset == "Wine") & (s.model == "Alpha") & (s.fold == 1)]
    assert row["score"].item() == pytest.approx(0.6)


def test_tsc_dict_input_and_model_subset():
    files = {"a": GOOD_TSC[0], "b": GOOD_TSC[1]}
    s = load_tsc_bakeoff(files, models=["b"])
    assert set(s["model"]) == {"b"}
    # the common datasets are computed over all files, not only the selected ones
    assert set(s["dataset"]) == {"Coffee", "GunPoint", "Wine"}


def test_tsc_invariant_to_file_order():
    a = load_tsc_bakeoff(GOOD_TSC)
    b = load_tsc_bakeoff(GOOD_TSC[::-1])
    key = ["dataset", "model", "fold"]
    pd.testing.assert_frame_equal(a.sort_values(key).reset_index(drop=True),
                                  b.sort_values(key).reset_index(drop=True))


def test_tsc_nan_cell_names_file_dataset_model():
    with pytest.raises(ValueError) as exc:
        load_tsc_bakeoff([GOOD_TSC[0], TSC / "bad" / "Nan_TESTFOLDS.csv"])
    msg = str(exc.value)
    assert "Nan_TESTFOLDS.csv" in msg and "'GunPoint'" in msg and "'Nan'" in msg and "fold 1" in msg


def test_tsc_non_numeric_cell(tmp_path):
    p = tmp_path / "X_TESTFOLDS.csv"
    p.write_text(GOOD_TSC[0].read_text().replace("0.75", "abc"))
    with pytest.raises(ValueError, match=r"X_TESTFOLDS.csv: dataset 'GunPoint', model 'X', fold 1: not a number: 'abc'"):
        load_tsc_bakeoff([p])


def test_tsc_duplicate_dataset():
    with pytest.raises(ValueError, match=r"Dup_TESTFOLDS.csv: duplicate dataset name\(s\) \['Wine'\]"):
        load_tsc_bakeoff([TSC / "bad" / "Dup_TESTFOLDS.csv"])


def test_tsc_unknown_model():
    with pytest.raises(ValueError, match=r"unknown model\(s\) \['Delta'\]"):
        load_tsc_bakeoff(GOOD_TSC, models=["Alpha", "Delta"])


def test_tsc_bad_header_and_name(tmp_path):
    p = tmp_path / "X_TESTFOLDS.csv"
    p.write_text(GOOD_TSC[0].read_text().replace("folds:", "dataset"))
    with pytest.raises(ValueError, match="first header cell is 'dataset'"):
        load_tsc_bakeoff([p])
    q = tmp_path / "results.csv"
    shutil.copy(GOOD_TSC[0], q)
    with pytest.raises(ValueError, match="<classifier>_TESTFOLDS.csv"):
        load_tsc_bakeoff([q])


def test_tsc_fold_mismatch(tmp_path):
    p = tmp_path / "X_TESTFOLDS.csv"
    p.write_text("folds:,0,1\nCoffee,0.1,0.2\nGunPoint,0.1,0.2\nWine,0.1,0.2\n")
    with pytest.raises(ValueError, match="folds"):
        load_tsc_bakeoff([GOOD_TSC[0], p])


def test_tsc_no_common_dataset(tmp_path):
    p = tmp_path / "X_TESTFOLDS.csv"
    p.write_text("folds:,0,1,2\nOther,0.1,0.2,0.3\n")
    with pytest.raises(ValueError, match="no dataset is present in every file"):
        load_tsc_bakeoff([GOOD_TSC[0], p])


# --------------------------------------------------------------------------------------- RecSys

def test_recsys_basic():
    s, f = load_recsys(RECSYS)
    _check_scores_contract(s)
    assert s.shape == (6, 4) and set(s["fold"]) == {0}
    assert list(f.index) == ["ds_a", "ds_b", "ds_c"] and f.index.name == "dataset"
    assert list(f.columns) == ["Nu", "Ni", "Density"]
    assert f.loc["ds_b", "Nu"] == 1000.0
    assert s.set_index(["dataset", "model"]).loc[("ds_b", "ALS"), "score"] == pytest.approx(0.12)
    s2, _ = load_recsys(RECSYS, models=["ALS"])
    assert set(s2["model"]) == {"ALS"} and len(s2) == 3


def _edit(tmp_path: Path, src: Path, old: str, new: str) -> Path:
    text = src.read_text()
    assert old in text
    p = tmp_path / src.name
    p.write_text(text.replace(old, new, 1))
    return p


def test_recsys_nan_value(tmp_path):
    p = _edit(tmp_path, RECSYS, "ds_b,1000,80,0.05,ALS,0.12", "ds_b,1000,80,0.05,ALS,")
    with pytest.raises(ValueError, match=r"datafeatures_tiny.csv: missing/NaN score.*dataset 'ds_b', model 'ALS'"):
        load_recsys(p)


def test_recsys_duplicate_row(tmp_path):
    p = _edit(tmp_path, RECSYS, "ds_c,10,5,0.5,ALS,0.40", "ds_c,10,5,0.5,EASE,0.40")
    with pytest.raises(ValueError, match=r"duplicate \(dataset, model\).*\('ds_c', 'EASE'\)"):
        load_recsys(p)


def test_recsys_missing_cell(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("\n".join(RECSYS.read_text().splitlines()[:-1]) + "\n")
    with pytest.raises(ValueError, match=r"missing \(dataset, model\).*\('ds_c', 'ALS'\)"):
        load_recsys(p)


def test_recsys_inconsistent_feature(tmp_path):
    p = _edit(tmp_path, RECSYS, "ds_a,100,50,0.1,ALS", "ds_a,101,50,0.1,ALS")
    with pytest.raises(ValueError, match=r"feature 'Nu' differs between the rows of dataset\(s\) \['ds_a'\]"):
        load_recsys(p)


def test_recsys_nan_feature(tmp_path):
    p = _edit(tmp_path, RECSYS, "ds_c,10,5,0.5,EASE", "ds_c,10,,0.5,EASE")
    with pytest.raises(ValueError, match=r"missing/NaN feature 'Ni' for dataset\(s\) \['ds_c'\]"):
        load_recsys(p)


def test_recsys_unknown_model_and_missing_column(tmp_path):
    with pytest.raises(ValueError, match=r"unknown model\(s\) \['SLIM'\]"):
        load_recsys(RECSYS, models=["SLIM"])
    p = _edit(tmp_path, RECSYS, "Method,Value", "Method,Score")
    with pytest.raises(ValueError, match=r"missing column\(s\) \['Value'\]"):
        load_recsys(p)


# ----------------------------------------------------------------------------------------- MTEB

def test_mteb_table11_with_ada_fill_from_directory():
    s = load_mteb_table11(TEX, ada_fill=ADA_DIR)
    _check_scores_contract(s)
    assert s.shape == (5 * 3, 4)
    t = s.pivot(index="dataset", columns="model", values="score")
    assert "Average" not in t.index
    assert t.loc["ArguAna", "Ada Similarity"] == pytest.approx(39.647)
    assert t.loc["MSMARCO", "Ada Similarity"] == pytest.approx(10.532)  # dev split
    assert t.loc["CQADupstackRetrieval", "Ada Similarity"] == pytest.approx(10.1715)
    assert t.loc["STS12", "Ada Similarity"] == pytest.approx(72.3)  # given cells are not touched
    assert t.loc["Banking77Classification", "BERT"] == pytest.approx(63.41)


def test_mteb_table11_with_ada_fill_from_tarball(tmp_path):
    tar_path = tmp_path / "results.tar.gz"
    with tarfile.open(tar_path, "w:gz") as tar:
        tar.add(ADA_DIR / "results", arcname="results")
    a = load_mteb_table11(TEX, ada_fill=tar_path)
    b = load_mteb_table11(TEX, ada_fill=ADA_DIR)
    pd.testing.assert_frame_equal(a, b)


def test_mteb_table11_empty_cell_not_filled_names_task_and_model():
    with pytest.raises(ValueError) as exc:
        load_mteb_table11(TEX)
    msg = str(exc.value)
    for task in ("ArguAna", "CQADupstackRetrieval", "MSMARCO"):
        assert f"(task '{task}', model 'Ada Similarity')" in msg
    assert "ada_fill" in msg


def test_mteb_table11_without_ada_model_needs_no_fill():
    s = load_mteb_table11(TEX, models=["Glove", "BERT"])
    assert set(s["model"]) == {"Glove", "BERT"} and len(s) == 10


def test_mteb_table11_missing_results_json(tmp_path):
    d = tmp_path / "ada"
    shutil.copytree(ADA_DIR, d)
    (d / "results/text-similarity-ada-001/no_revision_available/MSMARCO.json").unlink()
    with pytest.raises(ValueError, match="task 'MSMARCO', model 'Ada Similarity'"):
        load_mteb_table11(TEX, ada_fill=d)


def test_mteb_table11_other_empty_cell(tmp_path):
    p = _edit(tmp_path, TEX, "STS12 & en & 54.64", "STS12 & en & ")
    with pytest.raises(ValueError, match=r"\(task 'STS12', model 'Glove'\)"):
        load_mteb_table11(p, ada_fill=ADA_DIR)


def test_mteb_table11_duplicate_task_unknown_model_bad_row(tmp_path):
    text = TEX.read_text().splitlines()
    p = tmp_path / "dup.txt"
    p.write_text("\n".join(text[:2] + text[1:2] + text[2:]) + "\n")
    with pytest.raises(ValueError, match=r"duplicate task name\(s\) \['Banking77Classification'\]"):
        load_mteb_table11(p, models=["Glove"])
    with pytest.raises(ValueError, match=r"unknown model\(s\) \['GPT'\]"):
        load_mteb_table11(TEX, models=["GPT"])
    q = _edit(tmp_path, TEX, "STS12 & en & 54.64 &", "STS12 & en & 54.64 & 1 &")
    with pytest.raises(ValueError, match=r"all_en_tiny.txt:6: 6 cells, the header has 5"):
        load_mteb_table11(q)
    r = _edit(tmp_path, TEX, "67.69", "6x.69")
    with pytest.raises(ValueError, match=r"task 'Banking77Classification', model 'Glove': not a number: '6x.69'"):
        load_mteb_table11(r, ada_fill=ADA_DIR)


def test_mteb_metadata_alignment():
    md = load_mteb_metadata(README)
    assert list(md.index) == ["Banking77Classification", "ArguAna", "CQADupstackRetrieval", "MSMARCO", "STS12"]
    assert md.index.name == "dataset"
    cqa = md.loc["CQADupstackRetrieval"]
    assert cqa["test_samples"] == 400
    assert cqa["avg_chars_test"] == pytest.approx((100 * 500.0 + 300 * 1000.0) / 400)
    assert cqa["avg_chars_train"] == 0.0 and cqa["type"] == "Retrieval" and cqa["category"] == "s2p"
    assert md.loc["ArguAna", "hub"] == "BeIR/arguana"
    assert md.loc["MSMARCO", "dev_samples"] == 8848803
    assert md["n_langs"].dtype == np.int64 and md["avg_chars_dev"].dtype == np.float64
    # names agree with the Table 11 fixture
    check_same_datasets(md.index, load_mteb_table11(TEX, ada_fill=ADA_DIR)["dataset"].unique(), "nlp")


def test_mteb_metadata_names_differ_from_scores(tmp_path):
    p = _edit(tmp_path, README, "[STS12]", "[STS13]")
    md = load_mteb_metadata(p)
    scores = load_mteb_table11(TEX, ada_fill=ADA_DIR)
    with pytest.raises(ValueError, match=r"only in the first \(1\): \['STS13'\]; only in the second \(1\): \['STS12'\]"):
        check_same_datasets(md.index, scores["dataset"].unique(), "nlp metadata vs scores")


def test_mteb_metadata_bad_inputs(tmp_path):
    p = _edit(tmp_path, README, "| 10003 |", "| x |")
    with pytest.raises(ValueError, match=r"task 'Banking77Classification', column 'train_samples': not a number"):
        load_mteb_metadata(p)
    q = _edit(tmp_path, README, "[STS12]", "[ArguAna]")
    with pytest.raises(ValueError, match=r"duplicate task name\(s\) \['ArguAna'\]"):
        load_mteb_metadata(q)
    r = _edit(tmp_path, README, "## Available tasks", "## Tasks")
    with pytest.raises(ValueError, match="no '## Available tasks' section"):
        load_mteb_metadata(r)
    s = _edit(tmp_path, README, "| 4468 |", "| |")
    with pytest.raises(ValueError, match=r"task 'STS12', column 'train_samples': empty cell"):
        load_mteb_metadata(s)


def test_higher_is_better_table():
    assert SCORES_HIGHER_IS_BETTER == {"tsc": True, "recsys": True, "nlp": True}


# ------------------------------------------------------------------------------ mirror (real data)

@pytest.mark.mirror
def test_mirror_tsc_shape(mirror_dir):
    files = sorted((mirror_dir / "tsc" / "bakeoff2023").glob("*_TESTFOLDS.csv"))
    assert len(files) == 35
    s = load_tsc_bakeoff(files)
    _check_scores_contract(s)
    assert (s["dataset"].nunique(), s["model"].nunique(), s["fold"].nunique()) == (112, 35, 30)
    assert len(s) == 112 * 35 * 30
    ucr112 = (mirror_dir / "tsc" / "ucr112_datasets.txt").read_text().split()
    assert set(s["dataset"]) == set(ucr112)
    assert s["score"].between(0, 1).all()


@pytest.mark.mirror
def test_mirror_tsc_package_copy_agrees_except_reruns(mirror_dir, tmp_path):
    """The tsml-eval 0.6.0 copy: same 112 datasets; only EE, HC2, STC (re-run) and CNN (1 cell) differ."""
    pytest.importorskip("tsml_eval")
    from benchdesign.data.sources import fetch, files_of, load_manifest

    manifest = load_manifest(Path(__file__).resolve().parents[1] / "data" / "sources.yaml")
    paths = []
    for entry in files_of(manifest, "tsc_bakeoff2023"):
        dest = tmp_path / entry.path
        assert fetch(entry, dest, mirror=None, allow_download=False) == "package"
        paths.append(dest)
    pkg = load_tsc_bakeoff(paths).set_index(["dataset", "model", "fold"])["score"]
    mir = load_tsc_bakeoff(sorted((mirror_dir / "tsc" / "bakeoff2023").glob("*_TESTFOLDS.csv")))
    mir = mir.set_index(["dataset", "model", "fold"])["score"]
    assert pkg.index.sort_values().equals(mir.index.sort_values())
    diff = (pkg - mir.loc[pkg.index]).abs() > 1e-12
    n_diff = diff.groupby(level="model").sum()
    assert set(n_diff[n_diff > 0].index) == {"EE", "HC2", "STC", "CNN"}
    assert n_diff["CNN"] == 1


@pytest.mark.mirror
def test_mirror_recsys_matches_derived_tables(mirror_dir):
    d = mirror_dir / "recsys"
    s, f = load_recsys(d / "orig__results_datasets_statistics_Datafeatures_and_metrics.csv")
    _check_scores_contract(s)
    assert len(s) == 270 and f.shape == (30, 18)
    wide = pd.read_csv(d / "recsys_ndcg10_30x9.csv", index_col=0)
    got = s.pivot(index="dataset", columns="model", values="score")
    assert set(got.index) == set(wide.index) and set(got.columns) == set(wide.columns)
    np.testing.assert_allclose(got.loc[wide.index, wide.columns].to_numpy(), wide.to_numpy(), rtol=1e-9)
    feats = pd.read_csv(d / "recsys_features_30x18.csv", index_col=0)
    assert list(f.columns) == list(feats.columns) and set(f.index) == set(feats.index)
    np.testing.assert_allclose(f.loc[feats.index].to_numpy(), feats.to_numpy(), rtol=1e-9)


@pytest.mark.mirror
def test_mirror_mteb_table11_matches_derived_tables(mirror_dir):
    d = mirror_dir / "nlp"
    tex = d / "orig__mtebpaper_plotstables_all_en.txt"
    tarball = d / "mteb_results_json_31paper_models_commit46c0fcae.tar.gz"
    s = load_mteb_table11(tex, ada_fill=tarball)
    _check_scores_contract(s)
    assert (s["dataset"].nunique(), s["model"].nunique(), len(s)) == (56, 31, 56 * 31)
    got = s.pivot(index="dataset", columns="model", values="score")
    filled = pd.read_csv(d / "mteb_table11_en_56x31_ada_retrieval_filled_from_results_repo.csv",
                         index_col=0).drop(columns="Language")
    assert set(got.index) == set(filled.index) and set(got.columns) == set(filled.columns)
    np.testing.assert_allclose(got.loc[filled.index, filled.columns].to_numpy(), filled.to_numpy(),
                               rtol=0, atol=0.005 + 1e-9)
    # without Ada every cell is the published one
    raw = pd.read_csv(d / "mteb_table11_en_56tasks_x_31models.csv", index_col=0).drop(columns="Language")
    assert raw.isna().sum().sum() == 15 and raw["Ada Similarity"].isna().sum() == 15
    others = [m for m in raw.columns if m != "Ada Similarity"]
    s2 = load_mteb_table11(tex, models=others).pivot(index="dataset", columns="model", values="score")
    np.testing.assert_allclose(s2.loc[raw.index, others].to_numpy(), raw[others].to_numpy(), atol=0.005)
    # the per-model means reproduce the table's Average row (which leaves Ada empty)
    avg_line = next(line for line in tex.read_text().splitlines() if line.startswith("Average"))
    avg = [c.strip() for c in avg_line.rstrip("\\ ").split("&")[2:]]
    header = [c.strip() for c in tex.read_text().splitlines()[0].rstrip("\\ ").split("&")[2:]]
    for m, v in zip(header, avg):
        if v:
            assert s2[m].mean() == pytest.approx(float(v), abs=0.011), m
    # without ada_fill the 15 empty Ada cells are an error
    with pytest.raises(ValueError, match="Ada Similarity"):
        load_mteb_table11(tex)


@pytest.mark.mirror
def test_mirror_mteb_ada_fill_from_fetched_files(mirror_dir, tmp_path):
    from benchdesign.data.sources import fetch, files_of, load_manifest

    manifest = load_manifest(Path(__file__).resolve().parents[1] / "data" / "sources.yaml")
    for entry in files_of(manifest, "nlp_mteb_results_json"):
        fetch(entry, tmp_path / entry.path, mirror=mirror_dir, allow_download=False)
    d = mirror_dir / "nlp"
    tex = d / "orig__mtebpaper_plotstables_all_en.txt"
    a = load_mteb_table11(tex, ada_fill=tmp_path / "nlp" / "mteb_results_json")
    b = load_mteb_table11(tex, ada_fill=d / "mteb_results_json_31paper_models_commit46c0fcae.tar.gz")
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.mirror
def test_mirror_mteb_metadata_matches_aligned_table(mirror_dir):
    d = mirror_dir / "nlp"
    md = load_mteb_metadata(d / "orig__mteb_1.0.0_README.md")
    assert md.shape == (56, 11)
    ref = pd.read_csv(d / "mteb_table2_task_metadata_aligned_56.csv", index_col=0)
    assert list(md.index) == list(ref.index)
    assert list(md.columns) == list(ref.columns)
    for c in ("type", "category", "hub"):
        assert md[c].tolist() == ref[c].tolist(), c
    for c in ("n_langs", "train_samples", "dev_samples", "test_samples"):
        np.testing.assert_array_equal(md[c].to_numpy(), ref[c].to_numpy(), err_msg=c)
    for c in ("avg_chars_train", "avg_chars_dev", "avg_chars_test"):
        np.testing.assert_allclose(md[c].to_numpy(), ref[c].to_numpy(), atol=1e-9, err_msg=c)
    scores = load_mteb_table11(d / "orig__mtebpaper_plotstables_all_en.txt",
                               ada_fill=d / "mteb_results_json_31paper_models_commit46c0fcae.tar.gz")
    check_same_datasets(md.index, scores["dataset"].unique(), "MTEB metadata vs Table 11")
