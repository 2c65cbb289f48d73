"""Tests for the aggregation of trial results: benchdesign.selection.frames, aggregation, statistics, tables and
markdown (curves, AUCs, k*, Tables 1-4)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy.stats import wilcoxon
from statsmodels.stats.multitest import multipletests

from benchdesign.domains import BUILTIN_DOMAINS, DOMAIN_LABELS
from benchdesign.selection import aggregation, frames, markdown, statistics, tables
from benchdesign.selection.classes import selection_class

KS = list(range(2, 21))
CONFIGS = [("random", "none", 0.0), ("kmeans", "oracle", 0.6), ("kmeans", "metadata", 0.2),
           ("fafi_cosine", "oracle", 0.5)]


def make_trials(rng: np.random.Generator, n_trials: int = 12, domains=("tsc", "recsys"),
                variations=("dataset_pool",), configs=CONFIGS, ks=KS) -> pd.DataFrame:
    """Synthetic trials: curves improve with k, faster for larger ``effect``."""
    rows = []
    for domain in domains:
        for variation in variations:
            for strategy, rep, effect in configs:
                for trial in range(n_trials):
                    for k in ks:
                        base = 1 - np.exp(-k * (0.1 + 0.2 * effect))
                        e = rng.normal(0, 0.05)
                        for metric, value in (("mae", 3 * (1 - base) + abs(e)), ("spearman", base + e),
                                              ("kendall", 0.8 * base + e), ("ndcg5", base + e / 2),
                                              ("mrr", base + e / 3)):
                            rows.append((domain, variation, strategy, rep, trial, k, metric, value))
    return pd.DataFrame(rows, columns=frames.TRIAL_COLUMNS)


def tiny_trials(values_by_trial: dict[int, list[float]], ks: list[int], metric: str = "mae",
                strategy: str = "random", representation: str = "none") -> pd.DataFrame:
    rows = [("tsc", "dataset_pool", strategy, representation, t, k, metric, v)
            for t, vals in values_by_trial.items() for k, v in zip(ks, vals)]
    return pd.DataFrame(rows, columns=frames.TRIAL_COLUMNS)


@pytest.fixture(scope="module")
def trials() -> pd.DataFrame:
    return make_trials(np.random.default_rng(7))


# ---------------------------------------------------------------------------- curves and AUC


def test_trapezoid_auc_three_points_unit_and_uneven_spacing():
    auc = aggregation.trial_auc(tiny_trials({0: [1.0, 3.0, 2.0]}, [2, 3, 4]))
    assert auc["auc"].tolist() == pytest.approx([(1 + 3) / 2 + (3 + 2) / 2])  # 4.5
    auc = aggregation.trial_auc(tiny_trials({0: [1.0, 3.0, 2.0]}, [2, 4, 5]))
    assert auc["auc"].tolist() == pytest.approx([2 * (1 + 3) / 2 + (3 + 2) / 2])  # 6.5
    assert list(auc.columns) == frames.AUC_COLUMNS


def test_trial_auc_unordered_rows_and_one_row_per_trial(trials):
    shuffled = trials.sample(frac=1.0, random_state=1)
    a, b = aggregation.trial_auc(trials), aggregation.trial_auc(shuffled)
    pd.testing.assert_frame_equal(a, b)
    n_cfg = trials.groupby([*frames.CONFIG, "metric"]).ngroups
    assert len(a) == n_cfg * trials["trial"].nunique()


def test_trial_auc_rejects_ragged_k_grid():
    bad = tiny_trials({0: [1.0, 2.0, 3.0], 1: [1.0, 2.0]}, [2, 3, 4])
    with pytest.raises(ValueError, match=r"strategy=random.*trial 1"):
        aggregation.trial_auc(bad)


def test_trial_auc_rejects_single_k():
    with pytest.raises(ValueError, match="need >= 2"):
        aggregation.trial_auc(tiny_trials({0: [1.0]}, [2]))


def test_curves_mean_and_percentile_band_by_hand():
    df = tiny_trials({t: [float(t + 1), 10.0] for t in range(5)}, [2, 3])
    c = aggregation.curves(df)
    assert list(c.columns) == frames.CURVE_COLUMNS
    first = c[c["k"] == 2].iloc[0]
    # values 1..5: linear-interpolated 2.5th / 97.5th percentiles are 1 + 0.1 and 5 - 0.1
    assert first["mean"] == pytest.approx(3.0)
    assert first["lo"] == pytest.approx(1.1)
    assert first["hi"] == pytest.approx(4.9)
    assert first["n_trials"] == 5
    second = c[c["k"] == 3].iloc[0]
    assert (second["mean"], second["lo"], second["hi"]) == pytest.approx((10.0, 10.0, 10.0))


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.assign(value=np.where(d.index == 0, np.nan, d["value"])), "non-finite value"),
        (lambda d: pd.concat([d, d.iloc[[0]]]), "duplicate trial row"),
        (lambda d: d.assign(metric="rmse"), "unknown metric"),
        (lambda d: d.drop(columns="trial"), "missing columns"),
    ],
)
def test_trials_validation(mutate, message):
    df = tiny_trials({0: [1.0, 2.0], 1: [2.0, 3.0]}, [2, 3])
    with pytest.raises(ValueError, match=message):
        aggregation.curves(mutate(df))


# ---------------------------------------------------------------------------- Table 1


def test_table1_columns_rows_order_and_linearity(trials):
    t1 = tables.table1(trials, {"tsc": 112, "recsys": 30}, domain_order=("nlp", "tsc"))
    assert list(t1.columns) == frames.TABLE1_COLUMNS
    assert len(t1) == 2 * len(CONFIGS) * 5  # every (strategy, representation) pair per metric
    assert t1["domain"].unique().tolist() == ["tsc", "recsys"]  # domain_order first, then alphabetical
    alphabetical = tables.table1(trials, {"tsc": 112, "recsys": 30})
    assert alphabetical["domain"].unique().tolist() == ["recsys", "tsc"]
    first = t1[(t1["domain"] == "tsc")]
    assert first["metric"].unique().tolist() == ["mae", "spearman", "kendall", "ndcg5", "mrr"]
    assert first[first["metric"] == "mae"][["strategy", "representation"]].values.tolist() == [
        ["random", "none"], ["kmeans", "metadata"], ["kmeans", "oracle"], ["fafi_cosine", "oracle"]]
    assert set(t1.loc[t1["domain"] == "recsys", "n_datasets"]) == {30}
    assert (t1["n_trials"] == 12).all()
    # mean of trial AUCs == AUC of the mean curve
    mean_auc = aggregation.curve_auc(aggregation.curves(trials))
    merged = t1.merge(mean_auc, on=["domain", "strategy", "representation", "metric"])
    np.testing.assert_allclose(merged["auc_mean"], merged["auc"], rtol=1e-12)
    # sd is the sample sd over trial AUCs
    auc = aggregation.trial_auc(trials)
    sel = auc[(auc["domain"] == "tsc") & (auc["strategy"] == "kmeans")
              & (auc["representation"] == "oracle") & (auc["metric"] == "mae")]["auc"]
    row = t1[(t1["domain"] == "tsc") & (t1["strategy"] == "kmeans")
             & (t1["representation"] == "oracle") & (t1["metric"] == "mae")].iloc[0]
    assert row["auc_sd"] == pytest.approx(np.std(sel.to_numpy(), ddof=1))


def test_table1_variation_choice_and_n_datasets():
    df = make_trials(np.random.default_rng(3), n_trials=4, domains=("tsc",),
                     variations=("dataset_pool", "model_pool"))
    t1 = tables.table1(df, {"tsc": 112}, variation="dataset_pool")
    assert (t1["n_trials"] == 4).all() and len(t1) == len(CONFIGS) * 5
    only_model = tables.table1(df[df["variation"] == "model_pool"], {"tsc": 112})  # single variation
    assert len(only_model) == len(t1)
    with pytest.raises(ValueError, match="model_pool"):
        tables.table1(df, {"tsc": 112})  # two variations and none chosen
    with pytest.raises(ValueError, match="'tsc'"):
        tables.table1(df, {"nlp": 57}, variation="dataset_pool")
    with pytest.raises(ValueError, match="n_datasets"):
        tables.table1(df, {"tsc": 0}, variation="dataset_pool")
    with pytest.raises(ValueError, match="variation 'nope'"):
        tables.table1(df, {"tsc": 112}, variation="nope")


def test_table1_markdown_best_representation_and_bold():
    rows = []
    for metric, vals in {"mae": {"random": 30.0, "kmeans_oracle": 20.0, "kmeans_metadata": 25.0},
                         "spearman": {"random": 14.0, "kmeans_oracle": 13.0, "kmeans_metadata": 15.5}}.items():
        for key, mean in vals.items():
            strategy, rep = (key, "none") if key == "random" else key.split("_")
            rows.append(("nlp", strategy, rep, selection_class(strategy, rep), metric, mean, 0.5, 200, 57))
    t1 = pd.DataFrame(rows, columns=frames.TABLE1_COLUMNS)
    md = markdown.table1_markdown(t1, DOMAIN_LABELS)
    assert "### NLP (57 datasets, 200 trials)" in md
    assert "| Strategy" in md and "AUC(MAE) ↓" in md and "AUC(ρ) ↑" in md
    # The oracle (built from the benchmark's scores) is on its own row, never the bold "best" of a column.
    assert "**25.00 ± 0.50** (metadata)" in md  # best a-priori value for MAE, bold
    assert "**15.500 ± 0.500** (metadata)" in md  # best K-Means representation for rho, bold
    assert re.search(r"\| Random +\| a priori +\| 30\.00 ± 0\.50 ", md)  # no "(none)" suffix, not bold
    assert "14.000 ± 0.500" in md
    oracle_row = next(line for line in md.splitlines()
                      if line.startswith("| best informed (also the seen models' scores) | informed "))
    assert "20.00 ± 0.50 (K-Means (oracle))" in oracle_row and "13.000 ± 0.500 (K-Means (oracle))" in oracle_row
    assert "**" not in oracle_row
    assert "| Strategy" in md and "| Class " in md


# ---------------------------------------------------------------------------- Table 2


def hand_curves() -> pd.DataFrame:
    rows = []
    spec = {
        ("kmeans", "oracle"): {"mae": ([2.0, 1.6, 1.5, 1.2], [2.5, 2.0, 1.7, 1.4]),
                               "spearman": ([0.8, 0.9, 0.95, 0.97], [0.7, 0.85, 0.91, 0.95])},
        ("random", "none"): {"mae": ([2.5, 2.2, 1.9, 1.4], [3.0, 2.8, 2.5, 2.0]),
                             "spearman": ([0.5, 0.6, 0.7, 0.8], [0.3, 0.4, 0.5, 0.6])},
        ("fafi_cosine", "oracle"): {"mae": ([1.4, 1.3, 1.2, 1.1], [1.6, 1.5, 1.4, 1.3]),
                                    "spearman": ([0.85, 0.92, 0.93, 0.99], [0.8, 0.88, 0.9, 0.97])},
    }
    for (strategy, rep), metrics in spec.items():
        for metric, (mean, worst) in metrics.items():
            for k, m, w in zip([2, 3, 4, 5], mean, worst):
                lo, hi = (m - 0.1, w) if metric == "mae" else (w, m + 0.1)
                rows.append(("recsys", "dataset_pool", strategy, rep, metric, k, m, lo, hi, 50))
    return pd.DataFrame(rows, columns=frames.CURVE_COLUMNS)


def test_kstar_per_config_by_hand():
    ks = aggregation.kstar_per_config(hand_curves())
    assert list(ks.columns) == frames.KSTAR_COLUMNS
    got = {(r.metric, r.strategy): (r.kstar_mean, r.kstar_conservative) for r in ks.itertuples()}
    assert got[("mae", "kmeans")] == (4.0, 5.0)
    assert got[("mae", "fafi_cosine")] == (2.0, 3.0)
    assert got[("mae", "random")][0] == 5.0 and np.isnan(got[("mae", "random")][1])
    assert got[("spearman", "kmeans")] == (3.0, 4.0)
    assert got[("spearman", "fafi_cosine")] == (3.0, 4.0)
    assert np.isnan(got[("spearman", "random")]).all()


def test_table2_summary_and_markdown():
    t2 = tables.table2(hand_curves())
    assert list(t2.columns) == frames.TABLE2_COLUMNS
    # C-FAFI on the oracle has the best MAE k* (2, mean): an informed configuration
    assert t2["best_classes"].tolist()[:2] == ["informed", "informed"]
    assert t2[["metric", "criterion"]].values.tolist() == [
        ["mae", "mean"], ["mae", "conservative"], ["spearman", "mean"], ["spearman", "conservative"]]
    mae_mean = t2.iloc[0]
    assert (mae_mean.best, mae_mean["median"], mae_mean.worst) == (2.0, 4.0, 5.0)
    assert (mae_mean.n_reached, mae_mean.n_configs) == (3, 3)
    assert mae_mean.best_configs == "C-FAFI (oracle)"
    mae_cons = t2.iloc[1]
    assert (mae_cons.best, mae_cons["median"], mae_cons.worst, mae_cons.n_reached) == (3.0, 4.0, 5.0, 2)
    rho_cons = t2.iloc[3]
    assert (rho_cons.best, rho_cons["median"], rho_cons.n_reached) == (4.0, 4.0, 2)
    assert rho_cons.best_configs == "K-Means (oracle); C-FAFI (oracle)"

    strict = tables.table2(hand_curves(), thresholds={"spearman": 0.999})
    assert strict["n_reached"].tolist() == [0, 0] and strict["best"].isna().all()
    md = markdown.table2_markdown(pd.concat([t2, strict]), DOMAIN_LABELS)
    assert "| RecSys   | MAE ≤ 1.5 | 2 / 4 / 5" in md
    assert "ρ ≥ 0.9" in md and "ρ ≥ 0.999" in md
    assert "| –  " in md.split("0.999")[1]
    assert "2/3" in md


def test_table2_median_can_be_half_and_bad_thresholds():
    c = hand_curves()
    t2 = tables.table2(c[c["strategy"] != "random"])
    assert t2.iloc[0]["median"] == 3.0  # k* = 2 and 4
    assert markdown.table2_markdown(t2).count("2 / 3 / 4") == 1
    with pytest.raises(ValueError, match="rmse"):
        tables.table2(c, thresholds={"rmse": 1.0})
    with pytest.raises(ValueError, match="kendall"):
        tables.table2(c, thresholds={"kendall": 0.8})


# ---------------------------------------------------------------------------- Table 3


def test_holm_hand_example_and_statsmodels():
    np.testing.assert_allclose(statistics.holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    rng = np.random.default_rng(0)
    for m in (1, 2, 5, 17):
        p = rng.uniform(0, 0.2, size=m)
        p[rng.integers(0, m)] = p[0]  # include ties
        np.testing.assert_allclose(statistics.holm(p), multipletests(p, method="holm")[1])
    with pytest.raises(ValueError, match="1.5"):
        statistics.holm([0.1, 1.5])


def test_paired_wilcoxon_matches_scipy_and_handles_zeros():
    rng = np.random.default_rng(1)
    a = rng.normal(0, 1, 30)
    b = a + rng.normal(0.3, 1, 30)
    assert statistics.paired_wilcoxon(a, b, higher_is_better=False) == wilcoxon(a, b, alternative="less").pvalue
    assert statistics.paired_wilcoxon(b, a, higher_is_better=True) == wilcoxon(b, a, alternative="greater").pvalue
    assert statistics.paired_wilcoxon(a, a.copy(), higher_is_better=True) == 1.0
    with pytest.raises(ValueError, match="equal"):
        statistics.paired_wilcoxon(a, b[:-1], higher_is_better=True)


def auc_frame(rng: np.random.Generator, means: dict[tuple[str, str], float], metric: str,
              n: int = 25, domain: str = "tsc") -> pd.DataFrame:
    common = rng.normal(0, 1, n)  # shared trial effect -> paired design
    rows = []
    for (strategy, rep), mu in means.items():
        vals = mu + common + rng.normal(0, 0.3, n)
        rows += [(domain, "dataset_pool", strategy, rep, metric, t, v) for t, v in enumerate(vals)]
    return pd.DataFrame(rows, columns=frames.AUC_COLUMNS)


def test_table3_against_direct_scipy_and_statsmodels():
    rng = np.random.default_rng(5)
    means = {("random", "none"): 20.0, ("kmeans", "metadata"): 15.0, ("fafi_cosine", "metadata"): 15.2,
             ("d_optimal", "metadata"): 18.0}
    df = pd.concat([auc_frame(rng, means, "mae"),
                    auc_frame(rng, {k: 40 - v for k, v in means.items()}, "spearman")])
    t3 = tables.table3(df)
    assert list(t3.columns) == frames.TABLE3_COLUMNS
    assert len(t3) == 2 * 3
    block = t3[t3["metric"] == "mae"]
    mae = df[df["metric"] == "mae"]
    winner = mae.groupby("strategy")["auc"].mean().idxmin()
    assert set(block["best_strategy"]) == {winner} and winner in {"kmeans", "fafi_cosine"}
    best = mae[mae["strategy"] == winner].sort_values("trial")["auc"].to_numpy()
    p_raw = []
    for strategy in block["other_strategy"]:
        other = mae[mae["strategy"] == strategy].sort_values("trial")["auc"].to_numpy()
        p_raw.append(wilcoxon(best, other, alternative="less").pvalue)
    np.testing.assert_allclose(block["p_raw"], p_raw)
    np.testing.assert_allclose(block["p_holm"], multipletests(p_raw, method="holm")[1])
    assert (block["significant"] == (block["p_holm"] < 0.05)).all()
    assert block["best_auc"].iloc[0] == pytest.approx(best.mean())
    rho = t3[t3["metric"] == "spearman"]
    winner = df[df["metric"] == "spearman"].groupby("strategy")["auc"].mean().idxmax()
    assert set(rho["best_strategy"]) == {winner} != {"random"}  # higher is better for spearman
    assert rho.loc[rho["other_strategy"] == "random", "significant"].all()


def test_table3_identical_vectors_do_not_crash_and_trial_matching():
    rng = np.random.default_rng(2)
    df = auc_frame(rng, {("random", "none"): 10.0, ("kmeans", "metadata"): 9.0}, "mae", n=10)
    twin = df[df["strategy"] == "kmeans"].assign(strategy="fafi_cosine")
    df = pd.concat([df, twin])
    t3 = tables.table3(df, metrics=("mae",))
    row = t3[t3["other_strategy"] == "fafi_cosine"].iloc[0]
    assert row["best_strategy"] == "kmeans"  # tie broken by the fixed strategy order
    assert row["p_raw"] == 1.0 and row["p_holm"] == 1.0 and not row["significant"]
    with pytest.raises(ValueError, match="lacks trial ids"):
        tables.table3(df[~((df["strategy"] == "random") & (df["trial"] == 3))], metrics=("mae",))
    with pytest.raises(ValueError, match="spearman"):
        tables.table3(df, metrics=("spearman",))


def test_table3_summary_gain_closest_and_random_best():
    t3 = pd.DataFrame(
        [
            ("tsc", "mae", "a priori", "kmeans", "catch22", "random", "none", 10.0, 15.0, 0.001, 0.003, True),
            ("tsc", "mae", "a priori", "kmeans", "catch22", "fafi_cosine", "catch22", 10.0, 10.5, 0.2, 0.4, False),
            ("tsc", "mae", "a priori", "kmeans", "catch22", "d_optimal", "catch22", 10.0, 10.2, 0.3, 0.4, False),
            ("recsys", "spearman", "a priori", "random", "none", "kmeans", "interaction", 12.0, 11.0, 0.01, 0.02,
             True),
            ("tsc", "spearman", "a priori", "kmeans", "catch22", "random", "none", 15.0, 11.0, 0.001, 0.001, True),
        ],
        columns=frames.TABLE3_COLUMNS,
    )
    s = tables.table3_summary(t3, domain_order=BUILTIN_DOMAINS)
    assert list(s.columns) == frames.TABLE3_SUMMARY_COLUMNS
    assert s[["domain", "metric"]].values.tolist() == [["tsc", "mae"], ["tsc", "spearman"],
                                                       ["recsys", "spearman"]]
    mae = s.iloc[0]
    assert mae["gain_vs_random"] == pytest.approx(5.0) and mae["p_holm_vs_random"] == 0.003
    assert (mae["closest_strategy"], mae["closest_representation"]) == ("d_optimal", "catch22")
    rho = s.iloc[1]
    assert rho["gain_vs_random"] == pytest.approx(4.0) and rho["closest_strategy"] == "–"
    rec = s.iloc[2]
    assert rec["gain_vs_random"] == 0.0 and np.isnan(rec["p_holm_vs_random"])
    assert rec["random_auc"] == 12.0 and rec["closest_strategy"] == "–"

    md = markdown.table3_markdown(s, DOMAIN_LABELS)
    assert "| TSC      | MAE ↓    | a priori | K-Means (catch22) | 10.00" in md
    assert "D-optimal (catch22) (p = 0.400)" in md
    assert "| RecSys   | ρ ↑      | a priori | Random " in md and "0.000" in md


def test_table3_oracle_is_a_reference_not_a_contender():
    rng = np.random.default_rng(7)
    means = {("random", "none"): 20.0, ("kmeans", "oracle"): 10.0, ("fafi_cosine", "oracle"): 11.0,
             ("kmeans", "metadata"): 16.0, ("fafi_cosine", "metadata"): 18.0}
    df = auc_frame(rng, means, "mae")
    t3 = tables.table3(df, metrics=("mae",))
    assert set(t3["best_representation"]) == {"metadata"} and set(t3["best_strategy"]) == {"kmeans"}
    assert "oracle" not in set(t3["other_representation"])  # not in the Holm family either
    assert set(t3["class"]) == {"a priori"}
    reference = tables.reference_auc(df, metrics=("mae",))
    assert reference[["informed_strategy", "informed_representation"]].values.tolist() == [["kmeans", "oracle"]]
    oracle_mean = df[(df.strategy == "kmeans") & (df.representation == "oracle")]["auc"].mean()
    assert reference["informed_auc"].iloc[0] == pytest.approx(oracle_mean)
    summary = tables.table3_summary(t3, reference)
    row = summary.iloc[0]
    assert row["best_strategy"] == "kmeans" and row["informed_auc"] == pytest.approx(oracle_mean)
    assert row["class"] == "a priori"
    md = markdown.table3_markdown(summary)
    assert "K-Means (metadata)" in md and "| best informed (also the seen models' scores) " in md.splitlines()[0]
    assert f"{oracle_mean:.2f} (K-Means (oracle))" in md
    # only random beside the oracle: no contest, no rows, no crash
    only_random = df[df["representation"].isin(["none", "oracle"])]
    assert tables.table3(only_random, metrics=("mae",)).empty
    # within the informed class the oracle's strategies contend (random, a priori, is not one of them)
    informed = tables.table3(df, metrics=("mae",), within="informed")
    assert informed[["class", "best_strategy", "other_strategy"]].values.tolist() == [
        ["informed", "kmeans", "fafi_cosine"]]
    with pytest.raises(ValueError, match="within='oracle' must be one of"):
        tables.table3(df, metrics=("mae",), within="oracle")


def test_features_with_the_seen_models_ranks_are_informed_in_the_tables():
    """Issue 38: a feature table with the seen models' ranks appended needs their scores: informed, beside the
    oracle, never an a-priori contender."""
    rng = np.random.default_rng(8)
    means = {("random", "none"): 20.0, ("kmeans", "oracle"): 14.0, ("mutual_information", "metadata+seen"): 9.0,
             ("kmeans", "metadata"): 16.0, ("fafi_cosine", "metadata"): 18.0}
    df = auc_frame(rng, means, "mae")
    t3 = tables.table3(df, metrics=("mae",))
    assert "metadata+seen" not in set(t3["best_representation"]) | set(t3["other_representation"])
    reference = tables.reference_auc(df, metrics=("mae",))
    assert reference[["informed_strategy", "informed_representation"]].values.tolist() == [
        ["mutual_information", "metadata+seen"]]
    row = tables.table3_summary(t3, reference).iloc[0]
    assert (row["best_strategy"], row["best_representation"]) == ("kmeans", "metadata")
    assert "Greedy MI (metadata+seen)" in markdown.table3_markdown(tables.table3_summary(t3, reference))


# ---------------------------------------------------------------------------- Table 4


def test_table4_by_hand_and_markdown():
    rows = [(reg, s, seed, m, v)
            for reg, s, m, vals in [("broken", "random", "mae", [39.0, 40.0, 41.0]),
                                    ("broken", "fafi_cosine", "mae", [36.0, 37.0, 38.0]),
                                    ("oracle", "random", "mae", [39.0, 39.0, 39.0]),
                                    ("oracle", "fafi_cosine", "mae", [20.0, 22.0, 24.0]),
                                    ("oracle", "fafi_cosine", "spearman", [15.0, 15.0, 15.0]),
                                    ("oracle", "random", "spearman", [10.0, 11.0, 12.0])]
            for seed, v in enumerate(vals)]
    t4 = tables.table4(pd.DataFrame(rows, columns=frames.SYNTHETIC_AUC_COLUMNS))
    assert list(t4.columns) == frames.TABLE4_COLUMNS
    assert t4[["regime", "strategy", "metric"]].values.tolist()[:3] == [
        ["oracle", "random", "mae"], ["oracle", "random", "spearman"], ["oracle", "fafi_cosine", "mae"]]
    row = t4[(t4["regime"] == "oracle") & (t4["strategy"] == "fafi_cosine") & (t4["metric"] == "mae")].iloc[0]
    assert (row["auc_mean"], row["auc_sd"], row["n_seeds"]) == pytest.approx((22.0, 2.0, 3))
    md = markdown.table4_markdown(t4)
    assert "**22.00 ± 2.00**" in md and "**37.00 ± 1.00**" in md and "40.00 ± 1.00" in md
    assert "| Broken   | Random     | 40.00 ± 1.00     | –" in md
    with pytest.raises(ValueError, match="duplicate"):
        tables.table4(pd.DataFrame(rows + rows[:1], columns=frames.SYNTHETIC_AUC_COLUMNS))


def test_to_markdown_pipe():
    md = markdown.to_markdown(pd.DataFrame({"a": [1.5], "b": ["x"]}))
    assert md.splitlines()[0].startswith("|") and "1.5" in md and "| x" in md


def test_selection_class_is_decided_by_the_representation_and_random_is_a_priori():
    from benchdesign.selection.classes import class_label

    cases = {("kmeans", "metadata"): "a priori", ("kmeans", "oracle"): "informed",
             ("backward_elimination", "oracle"): "informed", ("mutual_information", "metadata+seen"): "informed",
             ("random", "none"): "a priori", ("random", "oracle"): "a priori", ("stratified", "none"): "a priori",
             ("my_strategy", "my_features"): "a priori"}
    assert {case: selection_class(*case) for case in cases} == cases
    assert class_label("informed") == "informed (also the seen models' scores)"
    with pytest.raises(ValueError, match="unknown selection class 'oracle'"):
        class_label("oracle")
