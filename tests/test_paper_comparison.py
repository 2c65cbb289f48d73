"""The claims table of the two papers and the verdicts of benchdesign.workflow.paper_comparison, on hand-made
result tables (the workflow's own run: tests/test_workflow.py)."""

from __future__ import annotations

import csv
import math
import re

import numpy as np
import pandas as pd
import pytest

from benchdesign.files import package_data
from benchdesign.workflow.paper_comparison import (
    CLAIM_COLUMNS,
    COMPARISON_COLUMNS,
    READERS,
    STATUSES,
    claim_files,
    compare_claims,
    comparison_markdown,
    load_claims,
    parse_args,
)

T = "results/tables"


def one(claims: pd.DataFrame, cid: str) -> pd.DataFrame:
    return claims[claims["id"] == cid]


def write(tmp_path, name: str, frame: pd.DataFrame) -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)
    return str(path)


# ------------------------------------------------------------------------------------------ the claims table

def test_claims_cover_both_papers_with_places_and_tolerances(claims):
    assert len(claims) >= 30 and claims["id"].is_unique
    assert set(claims["paper"]) == {"dataset selection", "DataSAIL"}
    assert (claims["place"].str.len() > 0).all() and (claims["quantity"].str.len() > 0).all()
    assert (claims["claim"].str.len() > 0).all()
    computed = claims[claims["reason"] == ""]
    assert (computed["tolerance"].str.len() > 0).all() and (computed["enabled_by"].str.len() > 0).all()
    assert len(computed) > len(claims) - len(computed)  # most claims are computed


def test_every_claim_has_a_reader_that_reads_its_source_or_a_reason(claims):
    for row in claims.to_dict("records"):
        if row["reason"]:
            assert not row["reader"] and not row["args"], row["id"]
            assert claim_files(row) == []
            continue
        files = claim_files(row)
        assert files and all(f.startswith("results/") for f in files), row["id"]
        # the source column names the file the reader reads first
        assert files[0] in row["source"], (row["id"], files[0], row["source"])


def test_every_reader_is_used_by_a_claim(claims):
    assert set(READERS) == set(claims.loc[claims["reason"] == "", "reader"])


def test_the_issues_claims_are_in_the_table(claims):
    values = dict(zip(claims["id"], claims["paper_value"]))
    # Table 2, Table 3 and Table 4 figures quoted in the text
    assert [values[f"P1-T2-0{i}"] for i in range(1, 9)] == ["5", "18", "17", "5", "15", "5.5", "11", "12"]
    assert (values["P1-T3-01"], values["P1-T3-02"], values["P1-T3-06"], values["P1-T3-08"], values["P1-T3-12"]) == \
        ("5.38", "0.57", "5.71", "0.50", "0.85")
    assert (values["P1-T4-01"], values["P1-T4-02"]) == ("36.94", "39.40")
    readers = dict(zip(claims["id"], claims["reader"]))
    assert readers["P2-F3-01"] == readers["P2-F3-02"] == "lowest_leakage"  # S1 lowest L(π) on QM8 and Tox21
    assert readers["P2-F3-07"] == "leakage_performance_link"
    assert readers["P2-F5-01"] == "lower_leakage"  # SR-ARE
    assert {readers["P2-F6-01"], readers["P2-F6-02"]} == {"clusters_flat_beyond", "clusters_good_at"}
    assert {readers["P2-F6-05"], readers["P2-F6-06"]} == {"margins_eps_matters", "margins_delta_flat"}


def test_the_claims_file_is_plain_csv_with_the_documented_columns():
    with open(package_data("paper_claims.csv"), newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert tuple(header) == CLAIM_COLUMNS


def test_parse_args():
    assert parse_args("domain=tsc; metric=mae") == {"domain": "tsc", "metric": "mae"}
    assert parse_args("") == {} and parse_args(None) == {}
    with pytest.raises(ValueError, match="not key=value"):
        parse_args("domain")
    with pytest.raises(ValueError, match="given twice"):
        parse_args("a=1; a=2")


def _claims_file(tmp_path, rows: list[dict]) -> str:
    frame = pd.DataFrame([{c: "" for c in CLAIM_COLUMNS} | r for r in rows], columns=list(CLAIM_COLUMNS))
    return write(tmp_path, "claims.csv", frame)


@pytest.mark.parametrize("row, message", [
    ({"id": "X1", "reader": "no_such_reader", "tolerance": "direction", "enabled_by": "k"}, "unknown reader"),
    ({"id": "X1", "reader": "kstar", "reason": "why", "tolerance": "direction", "enabled_by": "k"},
     "exactly one of reader"),
    ({"id": "X1", "reader": "kstar", "args": "domain=tsc; colour=red", "tolerance": "direction", "enabled_by": "k"},
     "do not fit reader 'kstar'"),
    ({"id": "X1", "reader": "n_datasets", "args": "domain=tsc", "tolerance": "within 1", "enabled_by": "k"},
     "needs a numeric paper_value"),
    ({"id": "X1", "reader": "n_datasets", "args": "domain=tsc", "tolerance": "equal", "paper_value": "3"},
     "enabled_by is empty"),
])
def test_a_bad_claim_is_named(tmp_path, row, message):
    with pytest.raises(ValueError, match=rf"claims\.csv: claim X1: .*{message}"):
        load_claims(_claims_file(tmp_path, [row]))


# ------------------------------------------------------------------------------------------ verdicts

def selection_run(tmp_path, gain: float, k_max: int = 20, n_models: int = 35, sd: float = 5.0) -> dict[str, str]:
    """Table 3 summary, Table 1, curves and ranks of one domain (tsc) with the given best MAE gain; ``sd``: both
    configurations' AUC sd over 200 trials (5.0: the gain's SE is 0.5, so that 2 SE = 1.0)."""
    files = {}
    summary = pd.DataFrame([{
        "domain": "tsc", "metric": "mae", "best_strategy": "kmeans", "best_representation": "simple",
        "best_auc": 30 - gain, "random_auc": 30.0, "gain_vs_random": gain, "p_holm_vs_random": 1e-6,
        "closest_strategy": "–", "closest_representation": "–", "closest_auc": float("nan"),
        "closest_p_holm": float("nan"), "informed_strategy": "fafi_cosine", "informed_representation": "oracle",
        "informed_auc": 20.0,
    }])
    files[f"{T}/table3_summary.csv"] = write(tmp_path, "t3s.csv", summary)
    table1 = pd.DataFrame([("tsc", "random", "none", "mae", 30.0, sd, 200, 112),
                           ("tsc", "kmeans", "simple", "mae", 30 - gain, sd, 200, 112)],
                          columns=["domain", "strategy", "representation", "metric", "auc_mean", "auc_sd", "n_trials",
                                   "n_datasets"])
    files[f"{T}/table1_auc.csv"] = write(tmp_path, "t1.csv", table1)
    curves = pd.DataFrame([("tsc", "dataset_pool", "random", "none", "mae", k, 1.0, 0.5, 1.5, 200)
                           for k in range(2, k_max + 1)],
                          columns=["domain", "variation", "strategy", "representation", "metric", "k", "mean", "lo",
                                   "hi", "n_trials"])
    files[f"{T}/curves_dataset_pool.csv"] = write(tmp_path, "curves.csv", curves)
    ranks = pd.DataFrame({"dataset": ["a", "b"], **{f"m{i}": [i, i] for i in range(n_models)}})
    files["results/prepared/tsc/dataset_ranks.csv"] = write(tmp_path, "ranks.csv", ranks)
    return files


@pytest.mark.parametrize("gain, k_max, n_models, status, verdict", [
    (5.0, 20, 35, "agrees", "within 2 SE = 1"),
    (6.38, 20, 35, "agrees", "within 2 SE = 1"),  # the edge of the tolerance counts
    (3.0, 20, 35, "differs", "differs: 3 against the paper's 5.38, outside 2 SE = 1"),
    (5.0, 5, 35, "not comparable", "not comparable: k = 2..5 (the paper: 2..20)"),
    (5.0, 20, 6, "not comparable", "not comparable: 6 tsc models (the paper: 35)"),
])
def test_a_value_within_outside_or_not_comparable(tmp_path, claims, gain, k_max, n_models, status, verdict):
    out = compare_claims(one(claims, "P1-T3-01"), selection_run(tmp_path, gain, k_max, n_models)).iloc[0]
    assert (out["status"], out["verdict"]) == (status, verdict)
    assert out["run_value"] == pytest.approx(gain) and out["difference"] == pytest.approx(gain - 5.38)
    assert out["paper_value"] == 5.38
    if status != "agrees":  # the known difference is shown where the values part
        assert "known difference: 105 of the 112 datasets" in out["detail"]


def test_the_tolerance_is_two_standard_errors_of_the_run(tmp_path, claims):
    """The width of `within 2 SE` comes from the run's own spread: the same gain agrees with a noisy run and
    differs from a precise one; a reader without a standard error is refused."""
    out = compare_claims(one(claims, "P1-T3-01"), selection_run(tmp_path, 5.0, sd=1.0)).iloc[0]
    se = math.hypot(1.0 / math.sqrt(200), 1.0 / math.sqrt(200))
    assert (out["status"], out["tolerance"]) == ("differs", f"within 2 SE = {2 * se:.3g}")
    assert f"SE {se:.3g}" in out["detail"]
    out = compare_claims(one(claims, "P1-T3-01"), selection_run(tmp_path, 5.0, sd=10.0)).iloc[0]
    assert (out["status"], out["tolerance"]) == ("agrees", "within 2 SE = 2")
    frame = pd.DataFrame([("broken", "fafi_cosine", "mae", 37.0, 1.0)],  # an old table: no n_seeds
                         columns=["regime", "strategy", "metric", "auc_mean", "auc_sd"])
    with pytest.raises(ValueError, match="P1-T4-01: tolerance 'within 2 SE' needs a standard error"):
        compare_claims(one(claims, "P1-T4-01"), {f"{T}/table4_synthetic.csv": write(tmp_path, "t4.csv", frame)})
    frame["n_seeds"] = 4
    out = compare_claims(one(claims, "P1-T4-01"), {f"{T}/table4_synthetic.csv": write(tmp_path, "t4.csv", frame)})
    assert out.iloc[0]["tolerance"] == "within 2 SE = 1"  # sd 1 over 4 seeds: SE 0.5


def test_a_claim_in_words_holds_or_differs(tmp_path, claims):
    def table4(oracle_cfafi: float) -> dict[str, str]:
        rows = [("oracle", "random", "mae", 30.0, 1.0), ("oracle", "fafi_cosine", "mae", oracle_cfafi, 1.0)]
        frame = pd.DataFrame(rows, columns=["regime", "strategy", "metric", "auc_mean", "auc_sd"])
        return {f"{T}/table4_synthetic.csv": write(tmp_path, f"t4_{oracle_cfafi}.csv", frame)}

    held = compare_claims(one(claims, "P1-T4-04"), table4(20.0)).iloc[0]
    assert (held["status"], held["verdict"]) == ("agrees", "direction holds")
    failed = compare_claims(one(claims, "P1-T4-04"), table4(35.0)).iloc[0]
    assert failed["status"] == "differs"
    assert failed["verdict"] == "differs: oracle: fafi_cosine 35, Random 30"


def test_same_best_method_on_the_splits(tmp_path, claims):
    leak = pd.DataFrame([("qm8", m, 0, v, 80, 20, 0, 1.0, "ok") for m, v in
                         [("random", 0.32), ("s1", 0.18), ("scaffold", 0.30), ("lohi", 0.2)]],
                        columns=["dataset", "split_method", "repeat", "scaled_leakage", "n_train", "n_test", "n_dropped",
                                 "seconds", "status"])
    files = {f"{T}/split_leakage.csv": write(tmp_path, "leak.csv", leak)}
    out = compare_claims(claims[claims["id"].isin(["P2-F3-01", "P2-F3-03", "P2-F3-02"])], files)
    by = out.set_index("id")
    assert (by.loc["P2-F3-01", "status"], by.loc["P2-F3-01", "verdict"]) == ("agrees", "same best method")
    assert by.loc["P2-F3-01", "run_value"] == "s1"
    assert by.loc["P2-F3-03", "verdict"] == "direction holds"  # LoHi between S1 and random
    assert by.loc["P2-F3-02", "status"] == "not in this run"  # no Tox21 rows
    assert by.loc["P2-F3-02", "detail"] == f"{T}/split_leakage.csv has no rows of tox21"


def test_a_skipped_split_method_is_not_in_this_run(tmp_path, claims):
    leak = pd.DataFrame([("qm8", "random", 0, 0.3, "ok"), ("qm8", "s1", 0, 0.2, "ok"),
                         ("qm8", "lohi", 0, float("nan"), "skipped: lohi_splitter is not installed")],
                        columns=["dataset", "split_method", "repeat", "scaled_leakage", "status"])
    for column in ("n_train", "n_test", "n_dropped"):
        leak[column] = 0
    out = compare_claims(one(claims, "P2-F3-03"), {f"{T}/split_leakage.csv": write(tmp_path, "leak.csv", leak)}).iloc[0]
    assert out["status"] == "not in this run"
    assert out["verdict"] == "not in this run: molecules.methods_1d: lohi (needs the `lohi` extra)"
    assert "lohi_splitter is not installed" in out["detail"]


def test_missing_outputs_give_not_in_this_run_and_reasons_not_computed(claims):
    out = compare_claims(claims, {})
    assert list(out.columns) == list(COMPARISON_COLUMNS) and out["id"].tolist() == claims["id"].tolist()
    reasoned = claims["reason"] != ""
    assert (out.loc[reasoned, "status"] == "not computed").all()
    assert (out.loc[~reasoned, "status"] == "not in this run").all()
    for row, claim in zip(out[~reasoned].to_dict("records"), claims[~reasoned].to_dict("records")):
        assert row["verdict"] == f"not in this run: {claim['enabled_by']}"
        assert re.search(r"was not written$", row["detail"]), row


def test_a_malformed_result_table_is_an_error_naming_it(tmp_path, claims):
    bad = write(tmp_path, "t4.csv", pd.DataFrame({"regime": ["oracle"], "strategy": ["random"]}))
    with pytest.raises(ValueError, match=r"table4_synthetic\.csv \(.*t4\.csv\) lacks columns"):
        compare_claims(one(claims, "P1-T4-04"), {f"{T}/table4_synthetic.csv": bad})


def test_the_markdown_has_one_row_per_claim_and_the_counts(claims):
    out = compare_claims(claims, {})
    text = comparison_markdown(out)
    rows = [line for line in text.splitlines() if line.startswith("| P")]
    assert len(rows) == len(claims)
    assert all(re.search(r"\| (not in this run|not computed): ", line) for line in rows)
    counts = out["status"].value_counts()
    assert f"{counts['not in this run']} not in this run" in text and f"(of {len(claims)})" in text
    assert set(out["status"]) <= set(STATUSES)
    assert comparison_markdown(compare_claims(claims, {})) == text  # deterministic


def test_fig6c_is_judged_on_the_cells_the_paper_draws(tmp_path, claims):
    """DataSAIL's Fig. 6c leaves the cells with epsilon > delta blank; there delta bounds the fold sizes. A grid whose
    only delta effect lies in those cells must read as 'epsilon matters, delta does not'."""
    values = [0.02, 0.1, 0.2]
    rows = []
    for e in values:
        for d in values:
            leak = 0.30 - 0.5 * e if e <= d else 0.30 - 0.5 * d  # e > d: the class constraint (delta) decides
            rows.append((e, d, leak, 1.0, "ok"))
    frame = pd.DataFrame(rows, columns=["epsilon", "delta", "scaled_leakage", "seconds", "status"])
    files = {f"{T}/ablation_margins.csv": write(tmp_path, "margins.csv", frame)}
    by = compare_claims(claims[claims["id"].isin(["P2-F6-05", "P2-F6-06"])], files).set_index("id")
    assert by.loc["P2-F6-05", "status"] == "agrees"  # over eps at delta 0.1 and 0.2: 0.04 and 0.09
    assert by.loc["P2-F6-06", "status"] == "agrees"  # over delta at eps 0.02 and 0.1: 0
    assert by.loc["P2-F6-05", "run_value"] == pytest.approx(0.065)


def _pair_run(tmp_path, deepdta_scores: int) -> dict[str, str]:
    """DAVIS split_leakage.csv with two made splits (and a skipped one) and split_performance.csv with rf on
    both and deepdta on the first ``deepdta_scores``."""
    made = [("davis", m, 0, 0.3, 80, 20, 0, "ok") for m in ("random", "s2")]
    leak = pd.DataFrame(made + [("davis", "i2", 0, float("nan"), 0, 0, 100, "failed: no split")],
                        columns=["dataset", "split_method", "repeat", "scaled_leakage", "n_train", "n_test",
                                 "n_dropped", "status"])
    perf = [("davis", m, 0, "rf", "rmse", 0.7) for m in ("random", "s2")]
    perf += [("davis", m, 0, "deepdta", "rmse", 0.8) for m in ("random", "s2")[:deepdta_scores]]
    perf = pd.DataFrame(perf, columns=["dataset", "split_method", "repeat", "model", "metric", "value"])
    return {f"{T}/split_leakage.csv": write(tmp_path, "leak.csv", leak),
            f"{T}/split_performance.csv": write(tmp_path, "perf.csv", perf)}


def test_deepdta_claim_reads_whether_every_made_split_was_scored(tmp_path, claims):
    """P2-F4-07 (DeepDTA trained on the 2-D splits): DAVIS stands in for LP-PDBBind; a split that was not made
    does not count; a made split without a deepdta score makes it differ; no deepdta at all: not in this run."""
    claim = one(claims, "P2-F4-07")
    out = compare_claims(claim, _pair_run(tmp_path, 2)).iloc[0]
    assert out["status"] == "agrees" and out["run_value"] == "2 of 2", out.to_dict()
    assert "deepdta scored on 2 of 2 splits of davis; on davis, standing in for the paper's lp_pdbbind" in out["detail"]
    out = compare_claims(claim, _pair_run(tmp_path, 1)).iloc[0]
    assert out["status"] == "differs" and out["run_value"] == "1 of 2"
    out = compare_claims(claim, _pair_run(tmp_path, 0)).iloc[0]
    assert out["status"] == "not in this run" and out["verdict"] == "not in this run: molecules.models: deepdta " \
        "(config/paper.yaml)"


def test_the_markdown_states_the_molecular_models_settings_against_the_papers(claims):
    out = compare_claims(one(claims, "P2-V-03"), {})
    settings = {"models": ["rf", "svm", "xgb", "mlp", "deepdta"], "task_types": ["classification", "regression"],
                "model_options": {"rf": {"n_estimators": 100, "regression": {"max_features": "sqrt"}},
                                  "mlp": {"max_iter": 20}, "deepdta": {"epochs": 5}}}
    text = comparison_markdown(out, settings)
    section = text.split("## Molecular models of this run\n")[1]
    assert [line for line in section.splitlines() if line.startswith("- ")] == [
        "- rf: 100 trees (the paper: 500); regression: max_features sqrt (the paper: 1.0)",
        "- svm: the paper's settings",
        "- xgb: the paper's settings",
        "- mlp: at most 20 epochs (the paper: 200)",
        "- deepdta: 5 epochs (the paper: 50)",
    ]
    assert "Molecular models" not in comparison_markdown(out, {"models": []})
    esm = [line for line in comparison_markdown(out, {**settings, "protein_representation": "esm2_t12"}).splitlines()
           if "protein features" in line]
    assert esm == ["- protein features of the drug-target pair models: esm2_t12 (ESM-2 t12 (esm2_t12_35M_UR50D), mean "
                   "over residues of the last layer, 480 columns; the paper's)"]
    composition = comparison_markdown(out, {**settings, "protein_representation": "composition"})
    assert "- protein features of the drug-target pair models: composition (amino-acid + dipeptide composition, 420 " \
           "columns; the paper: esm2_t12, ESM-2 t12 embeddings)" in composition
    assert "protein features" not in text  # a run without pairs: no line
    assert comparison_markdown(out) == comparison_markdown(out, {"max_molecules": {}})  # no models: no section


def _two_d_run(tmp_path, kiba_worst: str = "s2") -> dict[str, str]:
    """split_leakage.csv of DAVIS and KIBA (each side's scaled L(π); S2 the lowest on both sides of DAVIS, KIBA's
    target side lowest on s1_target) and split_performance.csv (rf, svm; S2 the worst RMSE on DAVIS, on KIBA
    ``kiba_worst``)."""
    sides = {"random": (0.40, 0.45), "s1": (0.10, 0.40), "s1_target": (0.35, 0.12), "s2": (0.08, 0.10)}
    kiba = {**sides, "s1_target": (0.35, 0.05), "s2": (0.09, 0.07)}  # the target side: s1_target below s2
    rows = []
    for dataset, table in (("davis", sides), ("kiba", kiba)):
        for method, (drug, target) in table.items():
            for repeat in range(2):
                rows.append((dataset, method, repeat, (drug + target) / 2, drug, target, 80, 20, 5, 1.0, "ok"))
    leak = pd.DataFrame(rows, columns=["dataset", "split_method", "repeat", "scaled_leakage", "drug_leakage",
                                       "target_leakage", "n_train", "n_test", "n_dropped", "seconds", "status"])
    perf = []
    for dataset, worst in (("davis", "s2"), ("kiba", kiba_worst)):
        for method in sides:
            for model in ("rf", "svm"):
                perf.append((dataset, method, 0, model, "rmse", 1.5 if method == worst else 0.8))
    perf = pd.DataFrame(perf, columns=["dataset", "split_method", "repeat", "model", "metric", "value"])
    return {f"{T}/split_leakage.csv": write(tmp_path, "leak.csv", leak),
            f"{T}/split_performance.csv": write(tmp_path, "perf.csv", perf)}


def test_fig4_lowest_leakage_per_side_on_each_2d_dataset(tmp_path, claims):
    """P2-F4-09/10: S2 the lowest scaled L(π) of each side, judged on every 2-D dataset of the run (DAVIS and KIBA
    standing in for LP-PDBBind); P2-F4-01 on the pairs' scaled L(π) the same way."""
    files = _two_d_run(tmp_path)
    by = compare_claims(claims[claims["id"].isin(["P2-F4-01", "P2-F4-09", "P2-F4-10"])], files).set_index("id")
    drug, target = by.loc["P2-F4-09"], by.loc["P2-F4-10"]
    assert (drug["status"], drug["run_value"]) == ("agrees", "davis s2, kiba s2")
    assert drug["detail"].startswith("davis: s2 0.080, s1 0.100, s1_target 0.350, random 0.400; kiba: s2 0.090")
    assert "on davis and kiba, standing in for the paper's lp_pdbbind" in drug["detail"]
    assert (target["status"], target["run_value"]) == ("differs", "davis s2, kiba s1_target")
    assert "kiba: s1_target 0.050, s2 0.070" in target["verdict"]
    assert by.loc["P2-F4-01", "run_value"] == "davis s2, kiba s2"  # pairs: (0.08 + 0.10) / 2, (0.09 + 0.07) / 2
    one_d = pd.read_csv(files[f"{T}/split_leakage.csv"])
    one_d[["drug_leakage", "target_leakage"]] = float("nan")  # no side columns filled: nothing to judge
    files[f"{T}/split_leakage.csv"] = write(tmp_path, "leak_1d.csv", one_d)
    out = compare_claims(one(claims, "P2-F4-09"), files).iloc[0]
    assert out["status"] == "not in this run"
    assert out["detail"] == "davis: no split of s2 with a drug_leakage was made"


def test_fig4_worst_split_is_judged_on_every_2d_dataset(tmp_path, claims):
    """P2-F4-04 (S2 the worst RMSE for every model) counts every (dataset, model) of DAVIS and KIBA: S2 worst on
    both agrees; S1 worst on KIBA makes it differ with 2 of 4."""
    claim = one(claims, "P2-F4-04")
    out = compare_claims(claim, _two_d_run(tmp_path)).iloc[0]
    assert (out["status"], out["run_value"]) == ("agrees", "4 of 4")
    assert out["detail"].startswith("worst split: davis: rf s2, svm s2; kiba: rf s2, svm s2")
    out = compare_claims(claim, _two_d_run(tmp_path, kiba_worst="s1")).iloc[0]
    assert (out["status"], out["run_value"]) == ("differs", "2 of 4")
    assert "kiba: rf s1, svm s1" in out["verdict"]


def test_fig4_worst_split_read_against_the_no_skill_yardstick(tmp_path, claims):
    """P2-F4-11: each RMSE divided by its split's no-skill RMSE. By hand: s1's RMSE 1.5 over a no-skill RMSE of
    2.0 is 0.75, s2's 0.8 over 0.7 is 1.14, the others 0.8 over 1.0: S2 is the worst by the ratio although S1 has
    the worst raw RMSE (P2-F4-04 then differs)."""
    files = _two_d_run(tmp_path, kiba_worst="s1")
    leak = pd.read_csv(files[f"{T}/split_leakage.csv"])
    perf = pd.read_csv(files[f"{T}/split_performance.csv"])
    perf.loc[(perf["dataset"] == "davis") & (perf["split_method"] == "s2"), "value"] = 0.8
    perf.loc[(perf["dataset"] == "davis") & (perf["split_method"] == "s1"), "value"] = 1.5
    no_skill = {"s1": 2.0, "s2": 0.7}
    leak["no_skill_score"] = leak["split_method"].map(no_skill).fillna(1.0)
    files = {f"{T}/split_leakage.csv": write(tmp_path, "leak_ns.csv", leak),
             f"{T}/split_performance.csv": write(tmp_path, "perf_ns.csv", perf)}
    by = compare_claims(claims[claims["id"].isin(["P2-F4-04", "P2-F4-11"])], files).set_index("id")
    assert by.loc["P2-F4-04", "run_value"] == "0 of 4"
    ratio = by.loc["P2-F4-11"]
    assert (ratio["status"], ratio["run_value"]) == ("agrees", "4 of 4")
    assert ratio["detail"].startswith("worst split by rmse / no-skill rmse: davis: rf s2 (1.14 of no skill; s2 1.14)")
    leak = leak.drop(columns="no_skill_score")  # a run from before the column: not judged, not a traceback
    files[f"{T}/split_leakage.csv"] = write(tmp_path, "leak_old.csv", leak)
    assert compare_claims(one(claims, "P2-F4-11"), files).iloc[0]["status"] == "not in this run"


def test_fig4_peers_leak_more_on_their_side(tmp_path, claims):
    """P2-F4-08/12: DataSAIL's S1 of a side against the peer that splits that side, on the side's scaled L(π)."""
    files = _two_d_run(tmp_path)
    leak = pd.read_csv(files[f"{T}/split_leakage.csv"])
    peers = [(d, m, r, 0.3, drug, target, 80, 20, 5, 1.0, "ok") for d in ("davis", "kiba") for r in range(2)
             for m, drug, target in (("graphpart_target", 0.40, 0.20), ("fingerprint_drug", 0.09, 0.40))]
    leak = pd.concat([leak, pd.DataFrame(peers, columns=leak.columns)])
    files[f"{T}/split_leakage.csv"] = write(tmp_path, "leak_peers.csv", leak)
    by = compare_claims(claims[claims["id"].isin(["P2-F4-08", "P2-F4-12", "P2-F4-13"])], files).set_index("id")
    # targets: s1_target 0.12 (KIBA 0.05) < graphpart 0.20 on both; drugs: s1 0.10 > fingerprint 0.09 on both
    assert (by.loc["P2-F4-08", "status"], by.loc["P2-F4-08", "run_value"]) == ("agrees", "2 of 2")
    assert by.loc["P2-F4-08", "detail"].startswith("target side: davis: s1_target 0.120, graphpart_target 0.200")
    assert (by.loc["P2-F4-12", "status"], by.loc["P2-F4-12", "run_value"]) == ("differs", "0 of 2")
    assert by.loc["P2-F4-13", "status"] == "not in this run"  # no lohi_drug split


def kstar_run(tmp_path, per_config: list[float], n_models: int = 35) -> dict[str, str]:
    """Table 2 (RecSys, MAE, conservative) and its per-configuration k* (NaN: the target not reached)."""
    reached = [k for k in per_config if not math.isnan(k)]
    best, median, worst = (min(reached), float(np.median(reached)), max(reached)) if reached else ("", "", "")
    table2 = pd.DataFrame([("recsys", "mae", 1.5, "conservative", best, median, worst, len(reached),
                            len(per_config), "x", "a priori")],
                          columns=["domain", "metric", "threshold", "criterion", "best", "median", "worst",
                                   "n_reached", "n_configs", "best_configs", "best_classes"])
    rows = pd.DataFrame([("recsys", "mae", f"s{i}", "interaction", "a priori", 1.5, k, k)
                         for i, k in enumerate(per_config)],
                        columns=["domain", "metric", "strategy", "representation", "class", "threshold",
                                 "kstar_mean", "kstar_conservative"])
    curves = pd.DataFrame([("recsys", "dataset_pool", "random", "none", "mae", k, 1.0, 0.5, 1.5, 200)
                           for k in range(2, 21)],
                          columns=["domain", "variation", "strategy", "representation", "metric", "k", "mean", "lo",
                                   "hi", "n_trials"])
    ranks = pd.DataFrame({"dataset": ["a", "b"], **{f"m{i}": [i, i] for i in range(9)}})
    return {f"{T}/table2_kstar.csv": write(tmp_path, "t2.csv", table2),
            f"{T}/table2_kstar_per_config.csv": write(tmp_path, "t2c.csv", rows),
            f"{T}/curves_dataset_pool.csv": write(tmp_path, "curves.csv", curves),
            "results/prepared/recsys/dataset_ranks.csv": write(tmp_path, "ranks.csv", ranks)}


def test_table2_tolerance_from_a_bootstrap_over_configurations(tmp_path, claims):
    """P1-T2-01 (the paper: 5): configurations all at 6 give no spread, so the half-step floor (0.5) decides
    and 6 differs; configurations spread from 2 to 12 give a bootstrap SE near the median's and 6 agrees."""
    out = compare_claims(one(claims, "P1-T2-01"), kstar_run(tmp_path, [6.0] * 9)).iloc[0]
    assert (out["status"], out["tolerance"]) == ("differs", "within 2 SE = 0.5")
    spread = [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 9.0, 12.0, float("nan")]
    out = compare_claims(one(claims, "P1-T2-01"), kstar_run(tmp_path, spread)).iloc[0]
    rng = np.random.default_rng(1)  # an independent bootstrap (another seed, a plain loop) agrees within 15 %
    values = np.array(spread[:-1])
    medians = [np.median(rng.choice(values, len(values))) for _ in range(4000)]
    width = float(out["tolerance"].split("= ")[1])
    assert out["status"] == "agrees" and width == pytest.approx(2 * np.std(medians, ddof=1), rel=0.15)


def test_table2_with_no_configuration_reaching_the_target_differs(tmp_path, claims):
    """No configuration reaches the target (a dash in Table 2): nothing to take a spread of, and the claim
    differs instead of stopping the comparison."""
    out = compare_claims(one(claims, "P1-T2-01"), kstar_run(tmp_path, [float("nan")] * 4)).iloc[0]
    assert out["status"] == "differs" and out["run_value"] == "\u2013"  # Table 2's dash
    assert out["verdict"] == "differs: this run has \u2013, the paper 5"


def nlp_run(tmp_path, best_representation: str) -> dict[str, str]:
    """Table 3 summary and Table 1 of NLP (31 models, 2..20) whose best MAE configuration uses
    ``best_representation``; Random's and its AUC sd 5 over 200 trials (2 SE = 1)."""
    summary = pd.DataFrame([{
        "domain": "nlp", "metric": "mae", "best_strategy": "kmeans", "best_representation": best_representation,
        "best_auc": 25.0, "random_auc": 30.0, "gain_vs_random": 5.0, "p_holm_vs_random": 1e-6,
        "closest_strategy": "–", "closest_representation": "–", "closest_auc": float("nan"),
        "closest_p_holm": float("nan"), "informed_strategy": "fafi_cosine", "informed_representation": "oracle",
        "informed_auc": 20.0}])
    table1 = pd.DataFrame([("nlp", "random", "none", "mae", 30.0, 5.0, 200, 56),
                           ("nlp", "kmeans", best_representation, "mae", 25.0, 5.0, 200, 56),
                           ("nlp", "kmeans", "description", "mae", 27.0, 5.0, 200, 56)],
                          columns=["domain", "strategy", "representation", "metric", "auc_mean", "auc_sd", "n_trials",
                                   "n_datasets"])
    curves = pd.DataFrame([("nlp", "dataset_pool", "random", "none", "mae", k, 1.0, 0.5, 1.5, 200)
                           for k in range(2, 21)],
                          columns=["domain", "variation", "strategy", "representation", "metric", "k", "mean", "lo",
                                   "hi", "n_trials"])
    ranks = pd.DataFrame({"dataset": ["a", "b"], **{f"m{i}": [i, i] for i in range(31)}})
    return {f"{T}/table3_summary.csv": write(tmp_path, "t3s.csv", summary),
            f"{T}/table1_auc.csv": write(tmp_path, "t1.csv", table1),
            f"{T}/curves_dataset_pool.csv": write(tmp_path, "curves.csv", curves),
            "results/prepared/nlp/dataset_ranks.csv": write(tmp_path, "ranks.csv", ranks)}


def test_nlp_rows_judged_directly_when_the_best_is_on_metadata(tmp_path, claims):
    """The NLP encoder only touches descriptions: a best configuration on metadata is judged against the paper's
    value (issue 45); one on descriptions embedded with another encoder stays not comparable."""
    settings = {"nlp_encoder": "tfidf"}
    rows = claims[claims["id"].isin(["P1-T3-05", "P1-T3-06"])]
    direct = compare_claims(rows, nlp_run(tmp_path, "metadata"), settings)
    assert direct["status"].tolist() == ["agrees", "agrees"], direct[["id", "verdict"]]
    marked = compare_claims(rows, nlp_run(tmp_path, "description"), settings)
    assert marked["status"].tolist() == ["not comparable"] * 2
    assert "descriptions embedded with tfidf" in marked["verdict"].iloc[1]


def test_a_peer_skipped_by_the_size_cap_is_not_a_failure(tmp_path, claims):
    """P2-F6-09 (DataSAIL finished on every dataset): a dataset this run's own cap kept DataSAIL from is listed
    as not run here; a failure on another dataset still differs (issue 45)."""
    def size_table(statuses):
        frame = pd.DataFrame([(d, "datasail_s1", 10.0, s) for d, s in statuses],
                             columns=["dataset", "method", "seconds", "status"])
        return {f"{T}/ablation_size.csv": write(tmp_path, "size.csv", frame)}

    capped = "skipped: 21786 molecules > max_peer_molecules 10000"
    out = compare_claims(one(claims, "P2-F6-09"), size_table([("tox21", "ok"), ("qm8", capped)])).iloc[0]
    assert out["status"] == "agrees" and out["run_value"] == "1 of 1" and "not run here" in out["detail"]
    out = compare_claims(one(claims, "P2-F6-09"), size_table([("tox21", "failed: timeout"), ("qm8", capped)])).iloc[0]
    assert out["status"] == "differs" and out["run_value"] == "0 of 1"
