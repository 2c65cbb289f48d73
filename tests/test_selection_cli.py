"""`benchdesign select / evaluate / agreement` and the API behind them (benchdesign.selection.api)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchdesign.cli import main
from benchdesign.selection import farthest_first_order, mean_ranks, rank_metrics, rank_scores
from benchdesign.selection.api import evaluate_benchmark, run_configuration, select_datasets, subset_agreement
from benchdesign.selection.conclusions import dataset_scores
from benchdesign.selection.guarantee import covering_radius
from benchdesign.selection.options import SELECT_STRATEGY
from benchdesign.selection.protocol import dataset_pool_trials, standardize_rows

N, M, F = 12, 4, 3


@pytest.fixture()
def bench(tmp_path):
    rng = np.random.default_rng(5)
    latent = rng.normal(size=(N, 2))
    rows = [(f"d{d:02d}", f"m{m}", f, float(latent[d] @ rng.normal(size=2) + 0.3 * m + 0.1 * rng.normal()))
            for d in range(N) for m in range(M) for f in range(F)]
    scores = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "model", "fold", "score"]).to_csv(scores, index=False)
    feats = tmp_path / "meta.csv"
    pd.DataFrame(latent + 0.05 * rng.normal(size=(N, 2)), columns=["f1", "f2"],
                 index=pd.Index([f"d{d:02d}" for d in range(N)], name="dataset")).to_csv(feats)
    return tmp_path, scores, feats


def test_select_prefix_order_report_and_radius(bench, capsys):
    tmp, _, feats = bench
    out = tmp / "chosen.txt"
    assert main(["select", "--features", str(feats), "-k", "4", "--strategy", "fafi_euclidean",
                 "--out", str(out)]) == 0
    chosen = out.read_text().split()
    X = pd.read_csv(feats, index_col=0)
    Z = standardize_rows(X.to_numpy())
    expected = farthest_first_order(Z, np.arange(N), 4, "euclidean")
    assert chosen == [X.index[i] for i in expected]
    report = json.loads((tmp / "chosen.txt.json").read_text())
    assert report["strategy"] == "fafi_euclidean" and report["standardize"] == "pool"
    assert report["covering_radius"] == pytest.approx(covering_radius(Z, expected, None, "euclidean"))
    assert report["covering_radius_by_prefix"][-1] == report["covering_radius"]
    # prefix property: k = 2 gives the first two of k = 4
    assert main(["select", "--features", str(feats), "-k", "2", "--strategy", "fafi_euclidean"]) == 0
    assert capsys.readouterr().out.split() == chosen[:2]
    # the paper code's start: the row farthest from the pool mean
    assert main(["select", "--features", str(feats), "-k", "4", "--strategy", "fafi_euclidean",
                 "--fafi-start", "farthest", "--out", str(out)]) == 0
    farthest = farthest_first_order(Z, np.arange(N), 4, "euclidean", start="farthest")
    assert out.read_text().split() == [X.index[i] for i in farthest]
    assert json.loads((tmp / "chosen.txt.json").read_text())["fafi_start"] == "farthest"


def test_select_include_exclude(bench):
    _, _, feats = bench
    X = pd.read_csv(feats, index_col=0)
    sel = select_datasets(X, 5, "fafi_cosine", include=["d03", "d07"], exclude=["d00", "d01"])
    assert sel.datasets[:2] == ["d03", "d07"] and not {"d00", "d01"} & set(sel.datasets)
    assert len(set(sel.datasets)) == 5 and len(sel.pool) == N - 2
    km = select_datasets(X, 4, "kmeans", include=["d05"], random_state=1)
    assert km.datasets[0] == "d05" and len(set(km.datasets)) == 4
    assert select_datasets(X, 4, "random", random_state=3).datasets == select_datasets(X, 4, "random", random_state=3).datasets



def test_select_default_is_greedy_mi_and_states_random_subsets_as_yardstick(tmp_path, capsys):
    """Three far-apart clusters of 10: greedy mutual information (the default) takes one dataset of each (radius:
    a cluster's spread); a random 3-subset takes one of each with probability 10**3 / C(30, 3) = 0.246, else
    covers a cluster from afar (a radius of the order of the clusters' distance)."""
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [20.0, 0.0], [0.0, 20.0]])
    X = np.vstack([c + 0.3 * rng.normal(size=(10, 2)) for c in centres])
    names = [f"d{i:02d}" for i in range(30)]
    feats = tmp_path / "clusters.csv"
    pd.DataFrame(X, index=pd.Index(names, name="dataset"), columns=["a", "b"]).to_csv(feats)
    assert main(["select", "--features", str(feats), "-k", "3", "--out", str(tmp_path / "c.txt")]) == 0
    chosen = (tmp_path / "c.txt").read_text().split()
    assert sorted(names.index(c) // 10 for c in chosen) == [0, 1, 2]
    report = json.loads((tmp_path / "c.txt.json").read_text())
    assert report["strategy"] == "mutual_information" == SELECT_STRATEGY
    randoms = report["random_subsets"]
    assert randoms["n"] == 200 and randoms["share_with_larger_covering_radius"] >= 0.9
    assert randoms["median_covering_radius"] > 10 * report["covering_radius"]
    sel = select_datasets(pd.read_csv(feats, index_col=0), 3)
    assert sel.datasets == chosen and sel.random_median_radius == randoms["median_covering_radius"]
    missing_a_cluster = np.mean(np.array(sel.random_radii) > 10 * sel.covering_radius)
    assert missing_a_cluster == pytest.approx(1 - 1000 / 4060, abs=0.1)
    err = capsys.readouterr().err
    assert "200 random subsets of 3 from the same pool" in err
    # the class it picked from: the features only (issue 38)
    assert report["class"] == "a priori" and f"mutual_information on {feats}: class a priori (dataset features only)" in err
    oracle = tmp_path / "oracle.csv"  # a table of model ranks, named as the evaluation names it: informed
    pd.DataFrame(X, index=pd.Index(names, name="dataset"), columns=["m1", "m2"]).to_csv(oracle)
    assert main(["select", "--features", str(oracle), "-k", "3", "--report", str(tmp_path / "o.json")]) == 0
    assert json.loads((tmp_path / "o.json").read_text())["class"] == "informed"
    assert "class informed (also the seen models' scores)" in capsys.readouterr().err
    # every dataset chosen: random subsets are the pool too, so none covers worse
    whole = select_datasets(pd.read_csv(feats, index_col=0), 30, "random")
    assert whole.random_median_radius == 0 and whole.share_random_worse == 0
    # the random subsets hold the included datasets
    forced = select_datasets(pd.read_csv(feats, index_col=0), 3, include=["d00", "d01", "d02"])
    assert forced.random_median_radius == pytest.approx(forced.covering_radius)

@pytest.mark.parametrize("args, message", [
    (["-k", "0"], "k=0 must lie in 1..12"),
    (["-k", "3", "--include", "zz"], r"include: unknown dataset\(s\) \['zz'\]"),
    (["-k", "1", "--include", "d01", "d02"], "2 included datasets do not fit in k=1"),
    (["-k", "2", "--include", "d01", "--exclude", "d01"], "both included and excluded"),
])
def test_select_errors_exit_2_and_write_nothing(bench, capsys, args, message):
    tmp, _, feats = bench
    out = tmp / "x.txt"
    assert main(["select", "--features", str(feats), *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchdesign select: error:") and message.replace("\\", "") in err
    assert not out.exists() and not (tmp / "x.txt.json").exists()


def test_select_bad_feature_file_exit_2(tmp_path, capsys):
    bad = tmp_path / "f.csv"
    bad.write_text("dataset,f\na,1\nb,x\n")
    assert main(["select", "--features", str(bad), "-k", "1"]) == 2
    assert "not a number: 'x'" in capsys.readouterr().err


def test_agreement_matches_rank_metrics_and_bootstraps(bench, capsys):
    tmp, scores_path, _ = bench
    subset = tmp / "subset.txt"
    subset.write_text("d01\nd04\nd09\n")
    js = tmp / "agree.json"
    assert main(["agreement", "--scores", str(scores_path), "--subset", str(subset), "--higher-is-better",
                 "--json", str(js)]) == 0
    table = pd.DataFrame(json.loads(js.read_text())).set_index("metric")
    scores = pd.read_csv(scores_path)
    ranks = rank_scores(scores, True)
    rows = [ranks.index.get_loc(d) for d in ("d01", "d04", "d09")]
    expected = rank_metrics(mean_ranks(ranks.to_numpy(), rows), mean_ranks(ranks.to_numpy()))
    for metric, value in expected.items():
        assert table.loc[metric, "value"] == pytest.approx(value)
    assert (table["lo"] <= table["hi"]).all()
    assert "spearman" in capsys.readouterr().out
    # a single fold: no interval
    one = subset_agreement(scores[scores["fold"] == 0], ["d01", "d04"], True)
    assert one["lo"].isna().all()
    assert main(["agreement", "--scores", str(scores_path), "--subset", str(tmp / "none.txt"),
                 "--higher-is-better"]) == 2


def test_scores_without_folds_are_one_fold_in_the_api_as_in_the_cli(bench, capsys):
    """A long frame ``dataset, model, score`` is what a scores file without folds reads as: one fold 0."""
    from benchdesign.selection.api import evaluate_benchmark

    tmp, scores_path, feats = bench
    scores = pd.read_csv(scores_path)
    no_fold = scores[scores["fold"] == 1].drop(columns="fold")
    one_fold = no_fold.assign(fold=0)[["dataset", "model", "fold", "score"]]
    pd.testing.assert_frame_equal(rank_scores(no_fold, True), rank_scores(one_fold, True))
    subset = ["d01", "d04", "d09"]
    agreement = subset_agreement(no_fold, subset, True)
    pd.testing.assert_frame_equal(agreement, subset_agreement(one_fold, subset, True))
    path = tmp / "no_fold.csv"
    no_fold.to_csv(path, index=False)
    (tmp / "subset.txt").write_text("\n".join(subset) + "\n")
    assert main(["agreement", "--scores", str(path), "--subset", str(tmp / "subset.txt"), "--higher-is-better",
                 "--json", str(tmp / "agree.json")]) == 0
    cli = pd.DataFrame(json.loads((tmp / "agree.json").read_text()))
    np.testing.assert_allclose(cli["value"], agreement["value"])
    features = {"meta": pd.read_csv(feats, index_col=0)}
    settings = dict(strategies=["random", "kmeans"], n_trials=3, pool_fraction=0.75, ks=[2, 3], random_state=1)
    got = evaluate_benchmark(no_fold, features, True, **settings).frames["trials"]
    pd.testing.assert_frame_equal(got, evaluate_benchmark(one_fold, features, True, **settings).frames["trials"])
    assert "fold" not in no_fold.columns  # the caller's frame is left as it was


def test_one_pass_configuration_equals_the_protocol(bench):
    _, scores_path, feats = bench
    scores = pd.read_csv(scores_path)
    ranks = rank_scores(scores, True)
    X = pd.read_csv(feats, index_col=0).loc[ranks.index].to_numpy()
    S = dataset_scores(scores).loc[ranks.index].to_numpy()
    options = {"n_init": 2, "start": "nearest", "lam": 1.0}
    for strategy in ("kmeans", "fafi_cosine", "random"):
        t, stab, cov = run_configuration(ranks.to_numpy(), X, strategy, [2, 3, 5], 6, 0.75, 4, options, S, True,
                                         stability_ks=(5,), coverage={"meta": X})
        ref = dataset_pool_trials(ranks.to_numpy(), X, strategy, [2, 3, 5], 6, 0.75, 4, options)
        pd.testing.assert_frame_equal(t, ref)
        assert len(stab) == 6 and stab["stability"].between(0, 1).all()
        assert set(cov["meta"]["k"]) == {2, 3, 5} and (cov["meta"]["radius"] > 0).all()



def test_evaluate_with_the_paper_code_settings_runs_the_protocol_with_them(bench):
    """fafi_start="farthest" and standardize="pool" reach every farthest-first trial of evaluate_benchmark."""
    from benchdesign.selection.api import evaluate_benchmark

    _, scores_path, feats = bench
    scores = pd.read_csv(scores_path)
    features = {"meta": pd.read_csv(feats, index_col=0)}
    ranks = rank_scores(scores, True)
    X = features["meta"].loc[ranks.index].to_numpy()
    settings = dict(strategies=["fafi_euclidean"], n_trials=5, pool_fraction=0.75, ks=[2, 3, 4], random_state=3, oracle=False,
                    variation="dataset_pool")
    paper = evaluate_benchmark(scores, features, True, fafi_start="farthest", standardize="pool", **settings)
    ref = dataset_pool_trials(ranks.to_numpy(), X, "fafi_euclidean", [2, 3, 4], 5, 0.75, 3,
                              {"start": "farthest"}, standardize="pool")
    got = paper.frames["trials"][["trial", "k", "metric", "value"]].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, ref[["trial", "k", "metric", "value"]].reset_index(drop=True))
    default = evaluate_benchmark(scores, features, True, **settings).frames["trials"]
    assert not np.allclose(default["value"], paper.frames["trials"]["value"])
    with pytest.raises(ValueError, match="standardize='rows' must be one of"):
        evaluate_benchmark(scores, features, True, standardize="rows", **settings)

def test_evaluate_writes_everything_or_nothing(bench, capsys):
    tmp, scores_path, feats = bench
    out = tmp / "eval"
    args = ["evaluate", "--scores", str(scores_path), "--features", str(feats), "--higher-is-better",
            "--trials", "4", "--k", "2", "6", "--strategies", "random", "fafi_cosine", "kmeans", "--out", str(out)]
    assert main(args) == 0
    names = {p.name for p in out.iterdir()}
    for stem in ("table1_auc", "table2_kstar", "table3_wilcoxon_holm", "p_eff", "conclusion_stability"):
        assert {f"{stem}.csv", f"{stem}.md"} <= names
    assert {"curves.png", "coverage_meta.pdf", "cd_full.png", "cd_random_k5.png", "recommendation.txt",
            "provenance.json", "conclusion_stability.png"} <= names
    t1 = pd.read_csv(out / "table1_auc.csv")
    assert set(t1["strategy"]) == {"random", "fafi_cosine", "kmeans"} and (t1["n_trials"] == 4).all()
    p_eff = pd.read_csv(out / "p_eff.csv")
    assert set(p_eff["representation"]) == {"meta", "oracle"}
    for table in (p_eff, pd.read_csv(out / "conclusion_stability.csv"), t1):  # the class of every row
        informed = (table["representation"] == "oracle") & (table["strategy"] != "random")  # random: a priori
        assert (table["class"] == informed.map({True: "informed", False: "a priori"})).all()
    prov = json.loads((out / "provenance.json").read_text())
    assert (prov["fafi_start"], prov["standardize"], prov["random_draws"]) == ("nearest", "all", 20)
    trials = pd.read_csv(out / "trials.csv")  # random: 20 draws per trial, the others one (draw 0)
    assert trials.groupby("strategy")["draw"].nunique().to_dict() == {"fafi_cosine": 1, "kmeans": 1, "random": 20}
    assert len(prov["scores"]["sha256"]) == 64 and prov["features"][0]["path"] == str(feats)
    assert "benchdesign evaluate:" in capsys.readouterr().err
    bad = tmp / "bad"
    assert main([*args[:-1], str(bad), "--k", "2", "99"]) == 2
    assert not bad.exists()


def test_evaluate_with_k_targets_writes_the_recommendation_and_the_cd_diagrams(bench, capsys):
    tmp, scores_path, feats = bench
    out = tmp / "eval"
    args = ["evaluate", "--scores", str(scores_path), "--features", str(feats), "--higher-is-better",
            "--trials", "4", "--k", "2", "6", "--strategies", "random", "kmeans", "--k-target", "5", "3",
            "--variation", "dataset_pool", "--out", str(out)]  # 4 models: too few to hold out (see below)
    assert main(args) == 0
    names = {p.name for p in out.iterdir()}
    assert {"cd_full.png", "cd_full.pdf", "cd_random_k5.png"} <= names  # a core feature: always drawn
    assert {"curves.png", "table1_auc.md", "recommendation.txt", "recommendation.csv", "provenance.json"} <= names
    assert "configurations x 4 trials" in capsys.readouterr().err
    text = (out / "recommendation.txt").read_text()
    assert "install" not in text
    assert "benchmark: 4 trials, pools of 9 of the 12 datasets. Each ρ is computed on all 4 models." in text
    assert "- k = 3, a priori (dataset features only): K-Means (kmeans) on the features 'meta'" in text
    assert pd.read_csv(out / "recommendation.csv")["k"].tolist() == [3, 5]
    bad = tmp / "bad"
    assert main([*args[:-1], str(bad), "--k-target", "10"]) == 2
    assert "k-target 10 exceeds the pool of 9 of the 12 datasets" in capsys.readouterr().err
    assert not bad.exists()


# ------------------------------------------------------------------ the CLI's manners (issue 21, item 9)

def test_version_and_python_m(capsys):
    import subprocess
    import sys

    from benchdesign import __version__

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"benchdesign {__version__}"
    run = subprocess.run([sys.executable, "-m", "benchdesign", "--version"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == f"benchdesign {__version__}"
    help_text = subprocess.run([sys.executable, "-m", "benchdesign", "--help"], capture_output=True, text=True).stdout
    assert "a file that exists is replaced" in " ".join(help_text.split())


def test_existing_outputs_are_replaced_and_unusable_ones_refused(bench, capsys):
    tmp, scores_path, feats = bench
    out = tmp / "chosen.txt"
    out.write_text("old\n")
    assert main(["select", "--features", str(feats), "-k", "2", "--out", str(out)]) == 0
    assert "old" not in out.read_text() and len(out.read_text().split()) == 2
    before = feats.read_text()
    assert main(["select", "--features", str(feats), "-k", "2", "--out", str(feats)]) == 2
    assert f"--out {feats} is the input --features {feats}; choose another output path" in capsys.readouterr().err
    assert feats.read_text() == before
    subset = tmp / "subset.txt"
    subset.write_text("d01\nd02\nd03\n")
    assert main(["agreement", "--scores", str(scores_path), "--subset", str(subset), "--higher-is-better",
                 "--json", str(tmp)]) == 2
    assert f"--json {tmp} is a directory; give a file path" in capsys.readouterr().err
    assert main(["evaluate", "--scores", str(scores_path), "--features", str(feats), "--higher-is-better",
                 "--out", str(out)]) == 2
    assert f"--out {out} is a file; evaluate writes a folder" in capsys.readouterr().err


def test_a_closed_pipe_ends_quietly(bench):
    import subprocess
    import sys

    tmp, scores_path, _ = bench
    subset = tmp / "subset.txt"
    subset.write_text("d01\nd02\nd03\n")
    proc = subprocess.Popen([sys.executable, "-m", "benchdesign", "agreement", "--scores", str(scores_path),
                             "--subset", str(subset), "--higher-is-better", "--bootstrap", "10"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before anything is written, as with `| head -0`
    err = proc.stderr.read().decode()
    assert proc.wait() == 1
    assert "BrokenPipeError" not in err and "Traceback" not in err and err == ""


def test_agreement_needs_the_direction_and_uses_it(tmp_path, capsys):
    errors = {"a": (0.1, 0.2, 0.3, 0.4), "b": (0.1, 0.3, 0.2, 0.4), "c": (0.4, 0.1, 0.2, 0.3), "e": (0.4, 0.1, 0.3, 0.2)}
    rows = [(d, m, err) for d, errs in errors.items() for m, err in zip(("w", "x", "y", "z"), errs)]
    scores = tmp_path / "errors.csv"
    pd.DataFrame(rows, columns=["dataset", "model", "score"]).to_csv(scores, index=False)
    subset = tmp_path / "subset.txt"
    subset.write_text("a\nb\n")
    with pytest.raises(SystemExit):
        main(["agreement", "--scores", str(scores), "--subset", str(subset)])
    assert "one of the arguments --higher-is-better --lower-is-better is required" in capsys.readouterr().err
    js = tmp_path / "a.json"
    assert main(["agreement", "--scores", str(scores), "--subset", str(subset), "--lower-is-better",
                 "--json", str(js)]) == 0
    table = pd.DataFrame(json.loads(js.read_text())).set_index("metric")
    long = pd.read_csv(scores).assign(fold=0)
    ranks = rank_scores(long, False)
    expected = rank_metrics(mean_ranks(ranks.to_numpy(), [0, 1]), mean_ranks(ranks.to_numpy()))
    for metric, value in expected.items():
        assert table.loc[metric, "value"] == pytest.approx(value)
    wrong = rank_scores(long, True).to_numpy()  # read as higher-is-better the answer differs
    assert rank_metrics(mean_ranks(wrong, [0, 1]), mean_ranks(wrong))["mrr"] != pytest.approx(expected["mrr"])


def test_duplicate_subset_entries_are_refused_by_name(bench, capsys):
    tmp, scores_path, feats = bench
    subset = tmp / "dup.txt"
    subset.write_text("d01\nd02\nd01\n")
    assert main(["agreement", "--scores", str(scores_path), "--subset", str(subset), "--higher-is-better"]) == 2
    assert (f"subset file {str(subset)!r}: dataset 'd01' is listed twice (entries 1 and 3); list each dataset once"
            in capsys.readouterr().err)
    assert main(["select", "--features", str(feats), "-k", "3", "--include", "d02", "d02"]) == 2
    assert "--include: dataset 'd02' is listed twice (entries 1 and 2)" in capsys.readouterr().err


def test_feature_rows_without_scores_are_ignored_with_a_note(bench, capsys):
    tmp, scores_path, feats = bench
    X = pd.read_csv(feats, index_col=0)
    extra = pd.concat([X, pd.DataFrame([[9.0, 9.0], [8.0, 8.0]], columns=X.columns,
                                       index=pd.Index(["zz1", "zz2"], name="dataset"))])
    wider = tmp / "wider.csv"
    extra.to_csv(wider)
    out = tmp / "eval"
    assert main(["evaluate", "--scores", str(scores_path), "--features", str(wider), "--higher-is-better",
                 "--trials", "2", "--k", "2", "4", "--strategies", "random", "fafi_cosine", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert (f"benchdesign evaluate: note: {wider}: ignoring 2 row(s) of dataset(s) not in the scores ('zz1', "
            "'zz2'); the scores define the benchmark") in err
    assert "Traceback" not in err and (out / "curves.png").exists()


def test_scores_without_the_value_column_say_what_they_found(bench, capsys):
    tmp, scores_path, _ = bench
    renamed = tmp / "accuracy.csv"
    pd.read_csv(scores_path).rename(columns={"score": "accuracy"}).to_csv(renamed, index=False)
    subset = tmp / "subset.txt"
    subset.write_text("d01\nd02\n")
    assert main(["agreement", "--scores", str(renamed), "--subset", str(subset), "--higher-is-better"]) == 2
    err = capsys.readouterr().err
    assert (f"scores file {str(renamed)!r} has a 'model' column but no 'score' column; found columns ['dataset', "
            "'model', 'fold', 'accuracy']. Expected the long layout dataset, model, [fold], score (rename the value "
            "column 'accuracy' to 'score', or name it with --score-column") in err
    assert "not a number" not in err


def test_random_state_everywhere_with_seed_and_alpha_as_deprecated_aliases():
    """The selection functions take random_state (as the splitting ones and scikit-learn) and keyword-only options;
    seed= and evaluate_benchmark's alpha= (a pool fraction, not a significance level) still work, with a
    FutureWarning, and give the same result."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(12, 3)), index=[f"d{i:02d}" for i in range(12)])
    new = select_datasets(X, 4, "random", random_state=5).datasets
    with pytest.warns(FutureWarning, match="seed= is deprecated.*random_state="):
        old = select_datasets(X, 4, "random", seed=5).datasets
    assert new == old and new != select_datasets(X, 4, "random", random_state=6).datasets
    with pytest.raises(TypeError):
        select_datasets(X, 4, "random", (), (), 5)  # options after the strategy are keyword-only
    scores = pd.DataFrame([(d, f"m{j}", rng.random()) for d in X.index for j in range(4)],
                          columns=["dataset", "model", "score"])
    settings = dict(strategies=["random"], n_trials=2, ks=[2, 3], variation="dataset_pool", oracle=False)
    base = evaluate_benchmark(scores, {"f": X}, True, pool_fraction=0.75, random_state=2, **settings)
    with pytest.warns(FutureWarning, match="alpha= is deprecated.*pool_fraction="):
        aliased = evaluate_benchmark(scores, {"f": X}, True, alpha=0.75, random_state=2, **settings)
    pd.testing.assert_frame_equal(base.frames["trials"], aliased.frames["trials"])
