"""Tests for the dataset representations."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchdesign.data.loaders import load_mteb_metadata, load_recsys
from benchdesign.domains.nlp.metadata import nlp_metadata_representation
from benchdesign.domains.recsys.features import RECSYS_SIZE_COLUMNS, recsys_interaction_representation
from benchdesign.selection.protocol import standardize_rows
from benchdesign.selection.representations import check_representation, check_same_datasets, oracle_representation

FIX = Path(__file__).resolve().parent / "fixtures"


def _frame(seed=0, n=6, p=4):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(n, p)) * [1, 10, 100, 0.1] + [0, 5, -3, 2],
                        index=[f"d{i}" for i in range(n)], columns=list("abcd"))


def _protocol_z(X: pd.DataFrame) -> pd.DataFrame:
    """What the protocol does to a representation: :func:`check_representation` (checks, constant columns
    dropped), then ``standardize_rows`` over all datasets, as a frame with the kept columns."""
    R = check_representation(X)
    return pd.DataFrame(standardize_rows(R.to_numpy(dtype=float)), index=R.index, columns=R.columns)


# ------------------------------------------------- check_representation + protocol.standardize_rows

def test_standardize_matches_textbook_formula():
    X = _frame()
    Z = _protocol_z(X)
    expected = (X - X.mean()) / X.std(ddof=0)
    pd.testing.assert_frame_equal(Z, expected)
    np.testing.assert_allclose(Z.mean().to_numpy(), 0, atol=1e-12)
    np.testing.assert_allclose(Z.std(ddof=0).to_numpy(), 1, atol=1e-12)


def test_standardize_invariances():
    X = _frame()
    Z = _protocol_z(X)
    # positive affine rescaling of a column does not change the result
    X2 = X.assign(b=X["b"] * 7.5 + 3)
    pd.testing.assert_frame_equal(_protocol_z(X2), Z)
    # permuting rows permutes the output rows
    perm = X.index[[3, 0, 5, 1, 4, 2]]
    pd.testing.assert_frame_equal(_protocol_z(X.loc[perm]), Z.loc[perm])


def test_standardize_drops_constant_columns():
    X = _frame().assign(c=0.1, flag=True)
    Z = _protocol_z(X)
    assert list(Z.columns) == ["a", "b", "d"]


def test_standardize_nan_names_columns():
    X = _frame()
    X.loc["d2", "b"] = np.nan
    X.loc["d4", "d"] = np.nan
    with pytest.raises(ValueError, match=r"column\(s\) with NaN: \['b', 'd'\]"):
        _protocol_z(X)


def test_standardize_rejects_all_constant_and_non_numeric():
    with pytest.raises(ValueError, match="every column is constant"):
        _protocol_z(pd.DataFrame({"a": [1.0, 1.0], "b": [2, 2]}, index=["x", "y"]))
    with pytest.raises(ValueError, match=r"non-numeric column\(s\) \['s'\]"):
        _protocol_z(pd.DataFrame({"a": [1.0, 2.0], "s": ["u", "v"]}, index=["x", "y"]))


def test_standardize_duplicate_index():
    X = _frame()
    X.index = ["d0", "d0", "d2", "d3", "d4", "d5"]
    with pytest.raises(ValueError, match="duplicate dataset name"):
        _protocol_z(X)


# --------------------------------------------------------------------------------------- oracle

def test_oracle_is_the_rank_matrix():
    ranks = pd.DataFrame([[1, 2, 3], [2, 1, 3], [1.5, 1.5, 3]], index=["x", "y", "z"],
                         columns=["m1", "m2", "m3"])
    R = oracle_representation(ranks)
    pd.testing.assert_frame_equal(R, ranks.astype(float))
    assert R is not ranks
    assert "a posteriori" in oracle_representation.__doc__.replace("-", " ")
    ranks.loc["x", "m1"] = np.nan
    with pytest.raises(ValueError, match=r"NaN: \['m1'\]"):
        oracle_representation(ranks)


# --------------------------------------------------------------------------------------- recsys

def test_recsys_interaction_default_keeps_features():
    _, f = load_recsys(FIX / "recsys" / "datafeatures_tiny.csv")
    R = recsys_interaction_representation(f)
    pd.testing.assert_frame_equal(R, f.astype(float))


def test_recsys_interaction_log_sizes():
    _, f = load_recsys(FIX / "recsys" / "datafeatures_tiny.csv")
    R = recsys_interaction_representation(f, log_sizes=True)
    assert list(R.columns) == ["log10_Nu", "log10_Ni", "Density"]
    assert R.loc["ds_b", "log10_Nu"] == pytest.approx(3.0)
    assert R.loc["ds_a", "Density"] == pytest.approx(0.1)
    bad = f.copy()
    bad.loc["ds_a", "Nu"] = 0
    with pytest.raises(ValueError, match=r"'Nu' must be > 0.*\['ds_a'\]"):
        recsys_interaction_representation(bad, log_sizes=True)


# ------------------------------------------------------------------------------------------ nlp

def test_nlp_metadata_representation_on_fixture():
    md = load_mteb_metadata(FIX / "mteb" / "README_tiny.md")
    R = nlp_metadata_representation(md)
    assert list(R.index) == list(md.index)
    assert R.dtypes.eq(np.float64).all()
    assert ((R >= 0) & (R <= 1)).all().all()
    # one-hot of type and category
    assert {"type=Classification", "type=Retrieval", "type=STS", "category=s2s", "category=s2p",
            "category=p2p"} <= set(R.columns)
    assert R.loc["ArguAna", "type=Retrieval"] == 1.0 and R.loc["ArguAna", "type=STS"] == 0.0
    # n_langs is 1 everywhere once BUCC is dropped: constant -> dropped
    assert "n_langs" not in R.columns
    # min-max of log1p(test samples): the largest test set (MSMARCO) maps to 1, the smallest to 0
    t = np.log1p(md["test_samples"].astype(float))
    expected = (t - t.min()) / (t.max() - t.min())
    np.testing.assert_allclose(R["log1p_test_samples"].to_numpy(), expected.to_numpy())
    assert R.loc["MSMARCO", "log1p_test_samples"] == 1.0
    np.testing.assert_allclose(R.loc["STS12", "avg_chars_train"], 1.0)


def test_nlp_metadata_representation_errors():
    md = load_mteb_metadata(FIX / "mteb" / "README_tiny.md")
    with pytest.raises(ValueError, match=r"missing column\(s\) \['category'\]"):
        nlp_metadata_representation(md.drop(columns="category"))
    bad = md.copy()
    bad.loc["STS12", "avg_chars_dev"] = np.nan
    with pytest.raises(ValueError, match=r"NaN: \['avg_chars_dev'\]"):
        nlp_metadata_representation(bad)


@pytest.mark.mirror
def test_nlp_metadata_representation_on_mirror(mirror_dir):
    md = load_mteb_metadata(mirror_dir / "nlp" / "orig__mteb_1.0.0_README.md")
    R = nlp_metadata_representation(md)
    assert R.shape[0] == 56 and not R.isna().any().any()
    assert "n_langs" in R.columns  # MassiveIntent etc. have 51 languages
    Z = _protocol_z(R)
    assert Z.shape[0] == 56


@pytest.mark.mirror
def test_recsys_representation_on_mirror(mirror_dir):
    _, f = load_recsys(mirror_dir / "recsys" / "orig__results_datasets_statistics_Datafeatures_and_metrics.csv")
    assert set(RECSYS_SIZE_COLUMNS) <= set(f.columns)
    Z = _protocol_z(recsys_interaction_representation(f))
    assert Z.shape == (30, 18)


# ---------------------------------------------------------------------------- check_same_datasets

def test_check_same_datasets():
    check_same_datasets(pd.Index(["a", "b"]), ["b", "a"], "ok")  # order does not matter
    with pytest.raises(ValueError, match=r"^ranks vs features: .*only in the first \(1\): \['c'\]; "
                                         r"only in the second \(2\): \['d', 'e'\]"):
        check_same_datasets(pd.Index(["a", "b", "c"]), pd.Index(["a", "b", "d", "e"]), "ranks vs features")
