"""Input tables as users have them: other column names, datasets as columns, every problem of a file in one
error, selection from the scores alone, and `agreement` saying why an interval is absent (issue 46)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from benchdesign.cli import main
from benchdesign.domains import read_feature_table, read_scores_table
from benchdesign.selection.api import select_datasets, select_from_scores, subset_agreement

DATASETS = [f"d{i}" for i in range(8)]
MODELS = ["knn", "forest", "svm"]


@pytest.fixture()
def wide():
    rng = np.random.default_rng(3)
    return pd.DataFrame(rng.random((len(DATASETS), len(MODELS))), index=pd.Index(DATASETS, name="dataset"),
                        columns=MODELS)


def test_renamed_columns_read_as_the_default_names(tmp_path, wide):
    plain, renamed = tmp_path / "plain.csv", tmp_path / "renamed.csv"
    long = wide.reset_index().melt(id_vars="dataset", var_name="model", value_name="score")
    long.to_csv(plain, index=False)
    long.rename(columns={"dataset": "Task", "model": "Method", "score": "accuracy"}).to_csv(renamed, index=False)
    expected = read_scores_table(plain, True)
    got = read_scores_table(renamed, True, dataset_column="Task", model_column="Method", score_column="accuracy")
    pd.testing.assert_frame_equal(got, expected)
    features = tmp_path / "features.csv"
    wide.rename_axis("name").to_csv(features)
    wide.to_csv(plain)
    pd.testing.assert_frame_equal(read_feature_table(features, dataset_column="name"), read_feature_table(plain))


def test_transposed_files_equal_their_plain_reading(tmp_path, wide):
    plain, leaderboard = tmp_path / "plain.csv", tmp_path / "leaderboard.csv"
    wide.to_csv(plain)
    wide.T.rename_axis("model").to_csv(leaderboard)  # one row per model, one column per dataset
    pd.testing.assert_frame_equal(read_scores_table(leaderboard, True, transpose=True)
                                  .sort_values(["dataset", "model"]).reset_index(drop=True),
                                  read_scores_table(plain, True).sort_values(["dataset", "model"])
                                  .reset_index(drop=True))
    features = read_feature_table(leaderboard, transpose=True)
    assert list(features.index) == DATASETS and list(features.columns) == MODELS
    np.testing.assert_array_equal(features.to_numpy(), read_feature_table(plain).to_numpy())


def test_every_problem_of_a_file_in_one_error(tmp_path, wide):
    frame = wide.reset_index().astype(object)
    frame.loc[1, "knn"] = "n/a"
    frame.loc[4, "svm"] = "abc"
    frame.loc[6, "forest"] = ""
    frame.loc[7, "dataset"] = "d0"  # a duplicate dataset row
    path = tmp_path / "features.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError) as err:
        read_feature_table(path)
    message = str(err.value)
    assert message.startswith(f"feature file {str(path)!r} has 4 problems:")
    for part in ("duplicate dataset row(s) ['d0']", "line 3 (dataset 'd1'), column 'knn': missing (NaN): 'n/a'",
                 "line 6 (dataset 'd4'), column 'svm': not a number: 'abc'",
                 "line 8 (dataset 'd6'), column 'forest': missing (NaN): ''"):
        assert part in message


def test_scores_problems_together_and_single_problem_unchanged(tmp_path, wide):
    long = wide.reset_index().melt(id_vars="dataset", var_name="model", value_name="score")
    long = long[~((long["dataset"] == "d2") & (long["model"] == "svm"))]  # d2 lacks svm
    long = pd.concat([long, long.iloc[[0]]])  # a duplicate row
    path = tmp_path / "scores.csv"
    long.to_csv(path, index=False)
    with pytest.raises(ValueError) as err:
        read_scores_table(path, True)
    message = str(err.value)
    assert "has 2 problems" in message and "2 duplicate (dataset, model) rows, e.g. dataset 'd0', model 'knn'" \
        in message and "dataset 'd2' has no score for model(s) ['svm']" in message
    long.iloc[:-1].to_csv(path, index=False)  # only the missing score left: one sentence, as before
    with pytest.raises(ValueError, match=r"^scores file '.*': dataset 'd2' has no score for model\(s\) \['svm'\]$"):
        read_scores_table(path, True)


def test_transposed_problems_name_the_row_and_column_of_the_file(tmp_path, wide):
    frame = wide.T.rename_axis("feature").astype(object)
    frame.loc["forest", "d3"] = "x"
    path = tmp_path / "features.csv"
    frame.to_csv(path)
    with pytest.raises(ValueError, match=r"line 3 \(row 'forest'\), column 'd3': not a number: 'x'"):
        read_feature_table(path, transpose=True)
    frame = wide.T.rename_axis("feature")
    frame.index = ["a", "b", "a"]
    frame.to_csv(path)
    with pytest.raises(ValueError, match=r"row name 'a' appears on lines \[2, 4\]"):
        read_feature_table(path, transpose=True)


def test_missing_columns_are_named_with_what_to_do(tmp_path, wide):
    path = tmp_path / "features.csv"
    wide.rename_axis("Name").to_csv(path)
    with pytest.raises(ValueError, match="no 'dataset' column.*--dataset-column NAME.*--transpose"):
        read_feature_table(path)
    with pytest.raises(ValueError, match=r"has no column 'name' \(given as the dataset column\)"):
        read_feature_table(path, dataset_column="name")
    wide.rename_axis("Name").assign(dataset=1.0).to_csv(path)
    with pytest.raises(ValueError, match="has a column 'dataset' besides 'Name'"):
        read_feature_table(path, dataset_column="Name")


def test_select_from_the_scores_alone_is_informed_and_uses_the_model_ranks(tmp_path, wide, capsys):
    path, out = tmp_path / "leaderboard.csv", tmp_path / "chosen.txt"
    wide.T.rename_axis("model").to_csv(path)
    assert main(["select", "--scores", str(path), "--transpose-scores", "--higher-is-better", "-k", "3",
                 "--strategy", "kmeans", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    report = json.loads((tmp_path / "chosen.txt.json").read_text())
    assert report["class"] == "informed" and report["representation"] == "oracle" and "class informed" in err
    ranks = pd.DataFrame(rankdata(-wide.to_numpy(), axis=1), index=wide.index, columns=wide.columns)  # 1 = best
    expected = select_datasets(ranks, 3, "kmeans").datasets
    assert out.read_text().split() == list(expected)
    scores = read_scores_table(path, True, transpose=True)
    assert select_from_scores(scores, 3, True, "kmeans").datasets == list(expected)


def test_select_needs_features_or_scores(tmp_path, capsys):
    assert main(["select", "-k", "2"]) == 2
    assert "give --features FILE" in capsys.readouterr().err


def test_agreement_says_why_an_interval_is_absent(tmp_path, wide, capsys):
    scores, subset = tmp_path / "scores.csv", tmp_path / "subset.txt"
    wide.to_csv(scores)
    subset.write_text("d0\nd1\nd2\n")
    assert main(["agreement", "--scores", str(scores), "--subset", str(subset), "--higher-is-better"]) == 0
    assert "no interval (lo, hi empty): the scores have one fold" in capsys.readouterr().err
    rng = np.random.default_rng(0)
    folds = pd.concat([(wide + 0.1 * rng.random(wide.shape)).assign(fold=f) for f in range(3)]).reset_index()
    long = folds.melt(id_vars=["dataset", "fold"], var_name="model", value_name="score")
    table = subset_agreement(long, ["d0", "d1"], True, n_boot=0)
    assert table.attrs["interval"].startswith("no interval") and "n_boot=0" in table.attrs["interval"]
    assert table["lo"].isna().all()
    table = subset_agreement(long, ["d0", "d1"], True, n_boot=50)
    assert table.attrs["interval"] == "lo, hi: a 95% percentile bootstrap interval over the 3 folds (50 resamples)"
    assert table["lo"].notna().any()
