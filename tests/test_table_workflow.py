"""A `kind: table` domain through the real Snakefile (tiny CSVs; and the worked example of config/)."""
from __future__ import annotations

import importlib.util
import json

import numpy as np
import pandas as pd
import yaml
from workflow_helpers import REPO, snakemake

from benchdesign.data.sources import sha256_file
from benchdesign.selection import tables
from benchdesign.selection.protocol import dataset_pool_trials
from benchdesign.selection.ranking import rank_scores

PROTOCOL = {"n_trials": 5, "alpha": 0.8, "k_min": 2, "k_max": 5, "kmeans_n_init": 1,
            "strategies": ["random", "fafi_cosine", "kmeans"]}
OFF = {"tsc": {"enabled": False}, "recsys": {"enabled": False}, "nlp": {"enabled": False}}


def _tiny_bench(root):
    rng = np.random.default_rng(11)
    names = [f"set{d}" for d in range(8)]
    latent = rng.normal(size=(8, 2))
    wide = pd.DataFrame({f"model{m}": latent @ rng.normal(size=2) + 0.2 * m for m in range(4)}, index=names)
    wide.rename_axis("dataset").to_csv(root / "scores.csv")  # wide layout, no folds
    feats = pd.DataFrame(latent + 0.1 * rng.normal(size=(8, 2)), index=names, columns=["a", "b"])
    feats.rename_axis("dataset").to_csv(root / "meta.csv")
    return wide, feats


def _config(tmp_path, domains, protocol=PROTOCOL):
    path = tmp_path / "overlay.yaml"
    path.write_text(yaml.safe_dump({"domains": domains, "protocol": protocol, "seed": 3,
                                    "synthetic": {"enabled": False}, "molecules": {"enabled": False}}))
    return path


def test_table_domain_runs_the_whole_protocol(tmp_path):
    wide, feats = _tiny_bench(tmp_path)
    entry = {"kind": "table", "scores": "scores.csv", "higher_is_better": False, "features": {"meta": "meta.csv"}}
    overlay = _config(tmp_path, {**OFF, "mine": entry})
    snakemake(tmp_path, configfiles=(REPO / "config/config.yaml", overlay))
    t1 = pd.read_csv(tmp_path / "results/tables/table1_auc.csv")
    assert set(t1["domain"]) == {"mine"} and (t1["n_datasets"] == 8).all() and (t1["n_trials"] == 5).all()
    assert set(zip(t1["strategy"], t1["representation"])) == {
        ("random", "none"), ("fafi_cosine", "meta"), ("fafi_cosine", "oracle"), ("kmeans", "meta"), ("kmeans", "oracle")}
    # the same numbers as the library called directly (lower is better: ranks of the negated scores)
    long = wide.rename_axis("dataset").reset_index().melt(id_vars="dataset", var_name="model", value_name="score").assign(fold=0)
    ranks = rank_scores(long, higher_is_better=False)
    trials = dataset_pool_trials(ranks.to_numpy(), feats.loc[ranks.index].to_numpy(), "fafi_cosine", [2, 3, 4, 5],
                                 5, 0.8, 3, {"start": "farthest"}, standardize="pool")  # config.yaml: the paper's
    expected = tables.table1(trials.assign(domain="mine", variation="dataset_pool", strategy="fafi_cosine",
                                              representation="meta"), {"mine": 8})
    got = t1[(t1["strategy"] == "fafi_cosine") & (t1["representation"] == "meta")].reset_index(drop=True)
    pd.testing.assert_series_equal(got["auc_mean"], expected["auc_mean"], rtol=1e-9)
    for name in ("table2_kstar.md", "table3_wilcoxon_holm.md", "table1_auc_model_pool.csv"):
        assert (tmp_path / "results/tables" / name).stat().st_size > 0
    assert (tmp_path / "results/figures/curves_mine_dataset_pool.png").exists()
    prov = json.loads((tmp_path / "results/prepared/mine/provenance.json").read_text())
    assert [f["sha256"] for f in prov["files"]] == [sha256_file(tmp_path / "scores.csv"), sha256_file(tmp_path / "meta.csv")]
    assert prov["higher_is_better"] is False
    # the guarantee and the conclusions
    p_eff = pd.read_csv(tmp_path / "results/guarantee/p_eff.csv")
    assert set(p_eff["representation"]) == {"meta", "oracle"} and set(p_eff["metric"]) == {"euclidean", "cosine"}
    assert {"fafi_cosine", "random", "kmeans"} <= set(p_eff["strategy"])
    coverage = pd.read_csv(tmp_path / "results/guarantee/mine/coverage_meta.csv")
    fafi = coverage[(coverage["strategy"] == "fafi_cosine") & (coverage["metric"] == "cosine")]
    assert fafi["radius"].is_monotonic_decreasing and (fafi["bound"] > 0).all()
    stability = pd.read_csv(tmp_path / "results/conclusions/mine/stability.csv")
    assert set(stability["k"]) == {5} and stability["mean"].between(0, 1).all()
    assert len(stability) == 5  # random + 2 strategies x 2 representations
    # the class of every row: informed on the oracle, a priori otherwise (issue 38)
    for table in (stability, p_eff):
        informed = (table["representation"] == "oracle") & (table["strategy"] != "random")  # random: a priori
        assert (table["class"] == informed.map({True: "informed", False: "a priori"})).all()
    best = pd.read_csv(tmp_path / "results/tables/table3_summary.csv").query("metric == 'spearman'").iloc[0]
    expected_cd = {"full.png", "random_k5.png"}
    if best["best_strategy"] != "random":
        expected_cd.add(f"{best['best_strategy']}_{best['best_representation']}_k5.png")
    assert {p.name for p in (tmp_path / "results/figures/cd_mine").glob("*.png")} == expected_cd
    assert (tmp_path / "results/figures/coverage_mine/meta.png").exists()


def test_table_domain_errors_name_the_file_and_write_no_tables(tmp_path):
    _tiny_bench(tmp_path)
    (tmp_path / "meta.csv").write_text("dataset,a\nset0,1\nset1,x\n")
    entry = {"kind": "table", "scores": "scores.csv", "higher_is_better": True, "features": {"meta": "meta.csv"}}
    result = snakemake(tmp_path, configfiles=(REPO / "config/config.yaml", _config(tmp_path, {**OFF, "mine": entry})),
                       check=False)
    assert result.returncode != 0
    logs = "".join(p.read_text() for p in (tmp_path / "logs").rglob("*.log"))
    assert "meta.csv', line 3 (dataset 'set1'), column 'a': not a number: 'x'" in logs
    assert not (tmp_path / "results/tables").exists()


def test_worked_example_equals_the_builtin_recsys_domain(tmp_path, mirror_dir):
    """config/table_example.yaml on the exported RecSys CSVs gives the built-in recsys domain's tables."""
    spec = importlib.util.spec_from_file_location("export_table", REPO / "scripts/dev/export_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.export("recsys", str(mirror_dir), tmp_path / "resources/examples/recsys")
    small = {**PROTOCOL, "variations": ["dataset_pool"]}
    example = yaml.safe_load((REPO / "config/table_example.yaml").read_text())
    overlay = _config(tmp_path, example["domains"] | {"recsys": {"representations": ["interaction", "oracle"]}}, small)
    # only the table compared (not the figures, the guarantee or the conclusions of the two domains)
    snakemake(tmp_path, "results/tables/table1_auc.csv", "--config", f"mirror={mirror_dir}",
              configfiles=(REPO / "config/config.yaml", overlay))
    t1 = pd.read_csv(tmp_path / "results/tables/table1_auc.csv")
    builtin = t1[t1["domain"] == "recsys"].drop(columns="domain").reset_index(drop=True)
    table = t1[t1["domain"] == "recsys_csv"].drop(columns="domain").reset_index(drop=True)
    assert len(builtin) == 5 * 6
    pd.testing.assert_frame_equal(builtin, table)
