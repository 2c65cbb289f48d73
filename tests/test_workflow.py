"""Run the real Snakefile on the tiny config (.test/config/config.yaml) and check what it writes."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
import yaml
from workflow_helpers import REPO, every_package_present, snakemake

STRATEGIES = {"random", "kmeans", "fafi_cosine", "fafi_euclidean", "a_optimal", "d_optimal"}
METRICS = {"mae", "spearman", "kendall", "ndcg5", "mrr", "ndcg5_paper"}

pytestmark = pytest.mark.workflow


def test_table1_holds_every_configuration_with_sane_values(tiny_run):
    t1 = pd.read_csv(tiny_run / "results/tables/table1_auc.csv")
    assert list(t1.columns) == [
        "domain", "strategy", "representation", "class", "metric", "auc_mean", "auc_sd", "n_trials", "n_datasets",
    ]
    assert set(t1.domain) == {"tsc", "recsys", "nlp"}
    assert set(t1.strategy) == STRATEGIES and set(t1.metric) == METRICS
    assert set(t1[t1.strategy == "random"].representation) == {"none"}
    assert set(t1[t1.domain == "recsys"].representation) == {"none", "interaction", "oracle"}
    assert (t1.n_trials == 6).all()
    assert dict(t1.groupby("domain").n_datasets.first()) == {"tsc": 112, "recsys": 30, "nlp": 56}
    # k = 2..5 gives AUCs over 3 unit steps: correlations in [-3, 3], NDCG/MRR in (0, 3].
    corr = t1[t1.metric.isin(["spearman", "kendall"])].auc_mean
    assert corr.between(-3, 3).all()
    assert t1[t1.metric.isin(["ndcg5", "mrr", "ndcg5_paper"])].auc_mean.between(0, 3).all()
    # With 6 TSC models, mean ranks differ by less than 5: AUC(MAE) < 15.
    assert t1[(t1.metric == "mae") & (t1.domain == "tsc")].auc_mean.between(0, 15).all()


def test_trials_match_the_table(tiny_run):
    trials = pd.read_csv(tiny_run / "results/trials/dataset_pool/nlp/metadata/kmeans.csv")
    assert sorted(trials.k.unique()) == [2, 3, 4, 5]
    assert trials.trial.nunique() == 6 and set(trials.metric) == METRICS
    mae = trials[trials.metric == "mae"].pivot(index="trial", columns="k", values="value")
    auc = ((mae.iloc[:, :-1].to_numpy() + mae.iloc[:, 1:].to_numpy()) / 2).sum(axis=1)
    t1 = pd.read_csv(tiny_run / "results/tables/table1_auc.csv")
    row = t1[(t1.domain == "nlp") & (t1.strategy == "kmeans") & (t1.representation == "metadata")
             & (t1.metric == "mae")]
    assert row.auc_mean.item() == pytest.approx(auc.mean())
    assert row.auc_sd.item() == pytest.approx(auc.std(ddof=1))


def test_other_tables_and_figures(tiny_run):
    tables = tiny_run / "results/tables"
    t2 = pd.read_csv(tables / "table2_kstar.csv")
    assert set(t2.metric) == {"mae", "spearman"} and set(t2.domain) == {"tsc", "recsys", "nlp"}
    t3 = pd.read_csv(tables / "table3_wilcoxon_holm.csv")
    assert t3.p_holm.between(0, 1).all() and (t3.p_holm >= t3.p_raw - 1e-12).all()
    t4 = pd.read_csv(tables / "table4_synthetic.csv")
    assert set(t4.regime) == {"oracle", "broken"} and set(t4.strategy) == {"random", "fafi_cosine"}
    mp = pd.read_csv(tables / "table1_auc_model_pool.csv")
    assert set(mp.strategy) == STRATEGIES
    # one single full run per model-pool configuration with a representation, at every k of the grid
    full = pd.read_csv(tables / "model_pool_full_run.csv")
    with_representation = mp[mp.representation != "none"][["domain", "representation", "strategy"]]
    assert set(map(tuple, full[["domain", "representation", "strategy"]].drop_duplicates().to_numpy())) == \
        set(map(tuple, with_representation.drop_duplicates().to_numpy()))
    assert sorted(full.k.unique()) == [2, 3, 4, 5] and set(full.metric) == METRICS
    assert "| Random" in (tables / "table1_auc.md").read_text()
    assert "| best informed (also the seen models' scores) | informed " in (tables / "table1_auc.md").read_text()
    t1 = pd.read_csv(tables / "table1_auc.csv")
    assert (t1["class"] == t1["representation"].map(lambda r: "informed" if r == "oracle" else "a priori")).all()
    verdicts = pd.read_csv(tables / "recommendation.csv")  # k = 2, 4, 5 of 2..5 per domain, all in the pool
    assert verdicts.groupby("domain", sort=False)["k"].apply(list).to_dict() == {d: [2, 4, 5] for d in
                                                                                 ("tsc", "recsys", "nlp")}
    assert (verdicts.k < verdicts.pool_size).all()
    advice = (tables / "recommendation.txt").read_text()
    assert "RecSys: 6 trials, pools of 24 of the 30 datasets. Each ρ is computed on all 9 models." in advice
    assert "upper bound" not in advice and "- k = 2, a priori (dataset features only): " in advice
    assert verdicts["n_judges"].tolist() == [6] * 3 + [9] * 3 + [31] * 3
    # the tiny run draws random RANDOM_DRAWS times per trial (no random_draws in .test/config/config.yaml)
    random = pd.read_csv(tiny_run / "results/trials/dataset_pool/nlp/none/random.csv")
    assert random["draw"].nunique() == 20 and random.groupby(["trial", "k", "metric"]).size().eq(20).all()
    holdout = (tiny_run / "results/tables/model_holdout/recommendation.txt").read_text()
    assert "TSC: 6 trials" in holdout and "Each ρ is computed on the 2 held-out models. No ρ-based verdict" in holdout
    for name in ["curves_tsc_dataset_pool", "curves_nlp_model_pool", "synthetic"]:
        for ext in ("png", "pdf"):
            assert (tiny_run / "results/figures" / f"{name}.{ext}").stat().st_size > 1000


def test_paper_comparison_gives_every_claim_a_verdict(tiny_run):
    from benchdesign.workflow.paper_comparison import STATUSES, load_claims

    claims = load_claims()
    comparison = pd.read_csv(tiny_run / "results/paper_comparison.csv", keep_default_na=False)
    assert comparison["id"].tolist() == claims["id"].tolist()
    assert set(comparison["status"]) <= set(STATUSES) and (comparison["verdict"].str.len() > 0).all()
    by = comparison.set_index("id")
    assert by.loc["P1-S6-03", "verdict"] == "equal"  # RecSys: 30 datasets
    assert by.loc["P1-T2-02", "verdict"].startswith("not comparable: k = 2..5 (the paper: 2..20)")
    assert by.loc["P2-F3-01", "verdict"] == "not in this run: molecules.enabled; molecules.datasets: qm8"
    single_run = by.loc["P1-S6-09"]  # a verdict that differs carries the detail itself
    assert single_run["status"] in ("agrees", "differs") and "single run inside the band" in \
        single_run["detail"] + single_run["verdict"]
    rows = {line.split(" | ")[0].strip("| "): line for line in
            (tiny_run / "results/paper_comparison.md").read_text().splitlines() if line.startswith("| P")}
    assert list(rows) == claims["id"].tolist()
    for cid, status, verdict in zip(comparison["id"], comparison["status"], comparison["verdict"]):
        assert f" | {verdict} | " in rows[cid], cid  # the Markdown row shows the verdict
        assert verdict.startswith(f"{status}: ") if status != "agrees" else ":" not in verdict, (cid, verdict)


def test_rerun_gives_identical_tables(tiny_run, tmp_path, mirror_dir):
    """A second run of the tiny config in a new directory writes the same tables. It runs only the jobs those
    tables need (prepared scores, representations, trials, tables; not the figures, the guarantee or the
    conclusions), on the first run's fetched inputs (copied: each was checked against its manifest hash)."""
    tables = sorted((tiny_run / "results/tables").glob("*.csv"))
    assert len(tables) >= 10
    shutil.copytree(tiny_run / "resources", tmp_path / "resources")
    snakemake(tmp_path, *(str(t.relative_to(tiny_run)) for t in tables), "--config", f"mirror={mirror_dir}")
    for table in tables:
        assert (tmp_path / "results/tables" / table.name).read_bytes() == table.read_bytes(), table.name


def test_nothing_to_do_after_a_complete_run(tiny_run, mirror_dir):
    result = snakemake(tiny_run, "--config", f"mirror={mirror_dir}", "--dry-run")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_missing_input_says_where_it_looked(tmp_path):
    result = snakemake(tmp_path, "results/prepared/recsys/scores.csv", "--config",
                       f"mirror={tmp_path / 'no-mirror'}", "allow_download=False", check=False)
    assert result.returncode != 0
    logs = "".join(p.read_text() for p in (tmp_path / "logs").rglob("*.log"))
    assert "Datafeatures_and_metrics.csv" in logs and "no-mirror" in logs and "mirror=" in logs


def _job_counts(dry_run_output: str) -> dict[str, int]:
    """Rule -> number of jobs from the 'Job stats' table of a snakemake dry run."""
    table = dry_run_output.split("Job stats:")[1].split("total")[0]
    rows = (line.split() for line in table.splitlines()[3:])
    return {row[0]: int(row[1]) for row in rows if len(row) == 2}


@pytest.mark.parametrize("overlay, targets, expected", [
    # 3 repeats x (3 1-D sets x 6 methods + DAVIS and KIBA x 10 methods), one job fitting the 4 models of each
    # split; 61 Fig. 6 points
    ("molecules_only.yaml", [], {"mol_split": 114, "mol_model": 114, "mol_ablation_point": 61, "mol_figure": 5}),
    # Fig. 4 alone: 3 repeats x DAVIS and KIBA x 10 methods, no Fig. 6 point
    ("experiments/fig4_2d.yaml", [], {"mol_split": 60, "mol_model": 60, "mol_tsne": 2, "mol_ablation_point": None}),
    # 5 repeats x (3 1-D sets x 6 methods + DAVIS and KIBA x 10 methods); deepdta on the pairs only: the 1-D sets'
    # model jobs are rule mol_model_1d; 6 TSC representations
    ("paper.yaml", [], {"mol_split": 190, "mol_model": 100, "mol_model_1d": 90, "mol_ablation_point": 88,
                        "tsc_gather_features": 6}),
    # 2 repeats x 38 splits; 2 cluster counts x 2 solvers + 2 x 2 margins + 2 datasets x 5 methods Fig. 6 points;
    # the trial jobs of the default run, each with fewer trials
    ("quick.yaml", [], {"mol_split": 76, "mol_model": 76, "mol_ablation_point": 18, "trials": 189}),
    ("splitting.yaml", ["results/splitting/example.tsv"], {"split_dataset": 1}),
    # exact leakage of a MOSES split (the split file stood in for here): fingerprints once, 200 tiles, a reduce
    ("leakage_tiles.yaml", ["results/leakage/moses_s1.exact.json"], {"leakage_fingerprints": 1, "leakage_tile": 200,
                                                                      "leakage_reduce": 1}),
])
def test_every_named_config_builds_its_jobs(tmp_path, mirror_dir, overlay, targets, expected):
    """Each overlay in config/ passes the schema on top of config/config.yaml and plans the jobs it names (with
    every optional package reported installed: planning needs none of them)."""
    (tmp_path / "tests").symlink_to(REPO / "tests")  # splitting.yaml's input is relative to the repository
    if overlay == "leakage_tiles.yaml":
        (tmp_path / "results" / "splitting").mkdir(parents=True)
        (tmp_path / "results" / "splitting" / "moses_s1.tsv").write_text("id\tsplit\n")
    result = snakemake(tmp_path, *targets, "--dry-run", "--config", f"mirror={mirror_dir}",
                       configfiles=(REPO / "config/config.yaml", REPO / "config" / overlay),
                       env=every_package_present(tmp_path / "shim"))
    counts = _job_counts(result.stdout)
    assert {rule: counts.get(rule) for rule in expected} == expected
    if overlay in ("molecules_only.yaml", "experiments/fig4_2d.yaml"):
        assert all(rule.startswith("mol_") or rule in ("fetch", "all", "paper_comparison") for rule in counts), counts


def test_the_default_run_is_the_papers_run_at_laptop_scale(tmp_path, mirror_dir):
    """config.yaml alone plans the paper's six TSC representations (catch22, tsfresh and MiniRocket among them), the
    NLP descriptions, and trials with the paper's protocol (farthest-first start, per-pool z-score)."""
    result = snakemake(tmp_path, "--dry-run", "--config", f"mirror={mirror_dir}", configfiles=(REPO / "config/config.yaml",),
                       env=every_package_present(tmp_path / "shim"))
    counts = _job_counts(result.stdout)
    assert counts["tsc_gather_features"] == 6 and counts["nlp_description_features"] == 1
    for rep in ("catch22_paper", "tsfresh_paper", "minirocket"):
        assert f"results/features/tsc/{rep}.csv" in result.stdout
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    assert (config["protocol"]["fafi_start"], config["protocol"]["standardize"]) == ("farthest", "pool")


def _result_files(workdir, mirror_dir, *overlays) -> set[str]:
    """Tables and figures (results/ outside the per-job folders) that ``all`` of config.yaml + overlays writes."""
    summary = snakemake(workdir, "--summary", "--config", f"mirror={mirror_dir}",
                        configfiles=(REPO / "config/config.yaml", *(REPO / "config" / o for o in overlays)),
                        env=every_package_present(workdir.parent / f"{workdir.name}_shim")).stdout
    shown = ("results/tables/", "results/figures/", "results/guarantee/", "results/conclusions/", "results/paper_comparison.")
    return {line.split("\t")[0] for line in summary.splitlines() if line.startswith(shown)}


def test_the_quick_run_writes_every_table_and_figure_of_the_default_run(tmp_path, mirror_dir):
    default = _result_files(tmp_path / "default", mirror_dir)
    assert len(default) > 100 and "results/tables/table1_auc.csv" in default
    assert {"results/paper_comparison.csv", "results/paper_comparison.md"} <= default
    assert _result_files(tmp_path / "quick", mirror_dir, "quick.yaml") == default


def test_the_named_config_tests_cover_every_overlay():
    # table_example.yaml: test_table_workflow
    tested = {"molecules_only.yaml", "paper.yaml", "quick.yaml", "splitting.yaml", "table_example.yaml",
              "leakage_tiles.yaml"}
    assert {p.name for p in (REPO / "config").glob("*.yaml")} - {"config.yaml"} == tested
