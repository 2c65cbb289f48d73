"""The molecular experiments end to end: the real Snakefile on the tiny config (<= 200 molecules per
dataset, one repeat, rf + svm), checking the contents of the tables and that every figure is drawn."""

from __future__ import annotations

import json
import re
import shutil

import pandas as pd
import pytest
import yaml
from markers import needs, needs_packages_of
from test_report import plain
from workflow_helpers import MOLECULE_CAPTIONS, MOLECULES, REPO, TINY, snakemake

pytestmark = [pytest.mark.workflow, needs_packages_of(TINY, MOLECULES)]  # datasail_s1: the peer extra
SETTINGS = yaml.safe_load(MOLECULES.read_text())["molecules"]
METRIC = {"qm8": "mae", "tox21": "roc_auc", "sr_are": "roc_auc", "davis": "rmse"}


@pytest.fixture(scope="module")
def mol_run(tmp_path_factory, mirror_dir):
    workdir = tmp_path_factory.mktemp("molecules_run")
    snakemake(workdir, "--config", f"mirror={mirror_dir}", configfiles=(TINY, MOLECULES))
    return workdir


def _methods(dataset):
    return SETTINGS["methods_2d" if dataset == "davis" else "methods_1d"]


def test_split_leakage_table(mol_run):
    table = pd.read_csv(mol_run / "results/tables/split_leakage.csv")
    assert list(table.columns) == ["dataset", "split_method", "repeat", "scaled_leakage", "drug_leakage",
                                   "target_leakage", "n_train", "n_test", "n_dropped", "status",
                                   "no_skill_score"]
    expected = {(d, m) for d in SETTINGS["datasets"] for m in _methods(d)}
    assert set(zip(table["dataset"], table["split_method"])) == expected and len(table) == len(expected)
    for dataset in SETTINGS["datasets"]:
        samples = pd.read_csv(mol_run / f"results/molecules/{dataset}/samples.csv")
        assert len(samples) <= 200
        rows = table[table["dataset"] == dataset]
        assert (rows[["n_train", "n_test", "n_dropped"]].sum(axis=1) == len(samples)).all()
    ok = table[table["status"] == "ok"]
    assert ok["scaled_leakage"].between(0, 1).all() and (ok["n_test"] > 0).all()
    one_d = ok[ok["dataset"] != "davis"]
    assert ((one_d["n_test"] / (one_d["n_train"] + one_d["n_test"])).between(0.1, 0.3)).all()
    by = table.set_index(["dataset", "split_method"])["scaled_leakage"]
    for dataset in ("qm8", "tox21", "sr_are"):
        assert by[(dataset, "s1")] < by[(dataset, "random")], dataset
    assert by[("davis", "s2")] < by[("davis", "random")]
    sides = table.set_index(["dataset", "split_method"])[["drug_leakage", "target_leakage"]]
    assert sides.drop(index="davis").isna().all().all()  # 1-D datasets: no sides
    davis = sides.loc["davis"]
    assert davis.notna().all().all() and davis.stack().between(0, 1).all()
    assert (davis.loc["s2"] < davis.loc["random"]).all()  # cold on both sides against random pairs
    assert davis.loc["s1", "drug_leakage"] < davis.loc["random", "drug_leakage"]  # S1 on the drugs
    assert (table.loc[table["split_method"] == "i2", "n_dropped"] > 0).all()  # pairs across folds dropped
    # the yardstick: predicting the training mean of DAVIS's pKd on the test fold, by hand from the split's files
    samples = pd.read_csv(mol_run / "results/molecules/davis/samples.csv", dtype={"id": str})
    folds = pd.read_csv(mol_run / "results/molecules/davis/splits/s2/0.tsv", sep="\t", dtype=str)
    labels = samples.set_index("id")["label"]
    train, test = (labels[folds.loc[folds["split"] == f, "id"]] for f in ("train", "test"))
    by_hand = ((test - train.mean()) ** 2).mean() ** 0.5
    assert table.set_index(["dataset", "split_method"]).loc[("davis", "s2"), "no_skill_score"] == pytest.approx(by_hand)
    assert (ok.loc[ok["dataset"].isin(["tox21", "sr_are"]), "no_skill_score"] == 0.5).all()


def test_split_performance_table(mol_run):
    perf = pd.read_csv(mol_run / "results/tables/split_performance.csv")
    leak = pd.read_csv(mol_run / "results/tables/split_leakage.csv")
    assert list(perf.columns) == ["dataset", "split_method", "repeat", "model", "metric", "value"]
    assert len(perf) == len(leak) * len(SETTINGS["models"])
    for dataset, metric in METRIC.items():
        assert set(perf.loc[perf["dataset"] == dataset, "metric"]) == {metric}
    made = perf.merge(leak[["dataset", "split_method", "status"]], on=["dataset", "split_method"])
    ok, not_made = made[made["status"] == "ok"], made[made["status"] != "ok"]
    assert ok["value"].notna().all() and not_made["value"].isna().all()
    auc = ok[ok["metric"] == "roc_auc"]["value"]
    assert auc.between(0, 1).all()
    assert (ok[ok["metric"] != "roc_auc"]["value"] > 0).all()


def test_split_files_assign_every_sample(mol_run):
    samples = pd.read_csv(mol_run / "results/molecules/tox21/samples.csv")
    folds = pd.read_csv(mol_run / "results/molecules/tox21/splits/s1/0.tsv", sep="\t")
    assert folds["id"].tolist() == samples["id"].tolist()
    assert set(folds["split"]) == {"train", "test"}
    sr_are = pd.read_csv(mol_run / "results/molecules/sr_are/samples.csv")
    strat = pd.read_csv(mol_run / "results/molecules/sr_are/splits/random/0.tsv", sep="\t")
    positives = sr_are["SR-ARE"].to_numpy() == 1
    test = strat["split"].to_numpy() == "test"
    assert abs(positives[test].mean() - positives.mean()) < 0.1  # the stratified random split


def test_figures_and_ablation(mol_run):
    from matplotlib.image import imread

    for dataset in SETTINGS["datasets"]:
        for kind in ("molecules", "tsne"):
            for ext in ("png", "pdf"):
                assert (mol_run / f"results/figures/{kind}_{dataset}.{ext}").stat().st_size > 5000
    # pairs: a leakage panel per side beside the scores (wider), t-SNE rows of drugs and proteins (taller)
    shape = {name: imread(mol_run / f"results/figures/{name}.png").shape[:2]
             for name in ("molecules_qm8", "molecules_davis", "tsne_qm8", "tsne_davis")}
    assert shape["molecules_davis"][1] > 1.1 * shape["molecules_qm8"][1]
    assert shape["tsne_davis"][0] > 1.8 * shape["tsne_qm8"][0]
    assert "t-SNE of davis, splits random, s1, s2:" in (mol_run / "logs/molecules/davis/tsne.log").read_text()
    clusters = pd.read_csv(mol_run / "results/tables/ablation_clusters.csv")
    assert clusters["clusters"].tolist() == [5, 10] and (clusters["status"] == "ok").all()
    margins = pd.read_csv(mol_run / "results/tables/ablation_margins.csv")
    assert len(margins) == 4 and margins["scaled_leakage"].between(0, 1).all()
    size = pd.read_csv(mol_run / "results/tables/ablation_size.csv")
    assert set(zip(size["dataset"], size["method"])) == {(d, m) for d in ("esol", "freesolv")
                                                         for m in ("s1", "scaffold")}
    assert (size["n_molecules"] == 150).all() and (size["seconds"] > 0).all()
    assert (mol_run / "results/figures/fig6_ablation.png").stat().st_size > 5000


def test_rerun_gives_identical_split_and_score(mol_run, tmp_path, mirror_dir):
    """A second run of the same config writes byte-identical split and score files: no timing is in them (the
    jobs' times are in logs/benchmarks/), so sha256sum of two runs' results agree."""
    targets = ["results/molecules/qm8/splits/s1/0.json", "results/molecules/qm8/scores/s1/0/rf.json",
               "results/molecules/davis/splits/s2/0.json", "results/molecules/qm8/splits/s1/0.tsv",
               "results/molecules/davis/splits/s2/0.tsv"]
    snakemake(tmp_path, *targets, "--config", f"mirror={mirror_dir}", configfiles=(TINY, MOLECULES))
    for target in targets:
        assert (mol_run / target).read_bytes() == (tmp_path / target).read_bytes(), target
    assert (tmp_path / "logs/benchmarks/molecules/qm8/splits/s1/0.tsv").is_file()  # where the time went


def test_report_holds_the_molecule_tables_figures_and_captions(mol_run, mirror_dir, tmp_path):
    snakemake(mol_run, "--config", f"mirror={mirror_dir}", "--report", str(tmp_path / "report.html"),
              configfiles=(TINY, MOLECULES))
    page = plain((tmp_path / "report.html").read_text())
    for caption in MOLECULE_CAPTIONS:
        assert plain((REPO / "workflow/report" / caption).read_text()) in page, caption
    for name in ("split_leakage.csv", "molecules_tox21.png", "tsne_davis.png", "fig6_ablation.png"):
        assert name in page, name


def test_protein_similarity_change_reruns_the_pair_splits_only(mol_run, tmp_path, mirror_dir):
    """molecules.protein_similarity (default mmseqs) is in the params of the 2-D split jobs only: a change reruns
    DAVIS's splits and what reads them, and no 1-D dataset's split, nor any dataset or feature job."""
    from test_reruns import dry_run_jobs

    switch = tmp_path / "kmer.yaml"
    switch.write_text("molecules:\n  protein_similarity: kmer\n")
    result = snakemake(mol_run, "--dry-run", "--config", f"mirror={mirror_dir}", configfiles=(TINY, MOLECULES, switch))
    jobs = dry_run_jobs(result.stdout + result.stderr)
    splits = [(wc, reason) for rule, wc, reason in jobs if rule == "mol_split"]
    assert sorted(wc["method"] for wc, _ in splits) == sorted(_methods("davis")), jobs
    assert {wc["dataset"] for wc, _ in splits} == {"davis"} and all("params" in r.lower() for _, r in splits), splits
    assert all(wc.get("dataset") == "davis" for rule, wc, _ in jobs if rule.startswith("mol_model")), jobs
    assert not {rule for rule, _, _ in jobs} & {"mol_dataset", "mol_features", "mol_ablation_point"}, jobs
    for method in _methods("davis"):  # the finished run's records name the default
        record = json.loads((mol_run / f"results/molecules/davis/splits/{method}/0.json").read_text())
        assert record["protein_similarity"] == "mmseqs", method


def test_cluster_count_change_reruns_the_clustering_splits_only(mol_run, tmp_path, mirror_dir):
    """molecules.ilp.clusters is read by the similarity-based splits only (S1, S2): a change reruns those and
    what reads them; no random, identity (i2), scaffold, fingerprint or peer split reruns (issue 45)."""
    from test_reruns import dry_run_jobs

    change = tmp_path / "clusters.yaml"
    change.write_text(f"molecules:\n  ilp: {{clusters: {SETTINGS['ilp']['clusters'] + 1}, "
                      f"time_limit: {SETTINGS['ilp']['time_limit']}}}\n")
    result = snakemake(mol_run, "--dry-run", "--config", f"mirror={mirror_dir}", configfiles=(TINY, MOLECULES, change))
    jobs = dry_run_jobs(result.stdout + result.stderr)
    splits = sorted((wc["dataset"], wc["method"]) for rule, wc, _ in jobs if rule == "mol_split")
    expected = sorted((d, m) for d in SETTINGS["datasets"] for m in _methods(d) if m in ("s1", "s2"))
    assert splits == expected, jobs
    assert not {rule for rule, _, _ in jobs} & {"mol_dataset", "mol_features"}, jobs


def _ilp(**change):
    return {"ilp": {**SETTINGS["ilp"], **change}}


_SIMILARITY_SPLITS = {("qm8", "s1"), ("tox21", "s1"), ("sr_are", "s1"), ("davis", "s1"), ("davis", "s2")}
_ALL_DATASETS = set(SETTINGS["datasets"])
# One change per key of the molecules block (issue 45) -> the jobs whose params change: rule -> the (wildcard,
# values) they are restricted to ({} : every job of the rule). Read off the rules' params and
# molexp.settings.split_options / ablation_points: a key reruns the jobs that read it and no other.
KEY_READERS = {
    "max_molecules": ({"max_molecules": {**SETTINGS["max_molecules"], "qm8": 149}},
                      {"mol_dataset": {"dataset": {"qm8"}}}),
    "fingerprint_bits": ({"fingerprint_bits": 2048}, {"mol_features": {"dataset": _ALL_DATASETS}}),
    "model_options": ({"model_options": {"rf": {"n_estimators": 21}}}, {"mol_model": {}}),
    "tsne_points": ({"tsne_points": 90}, {"mol_tsne": {"dataset": _ALL_DATASETS}}),
    "method_options": ({"method_options": {"datasail_s1": {"clusters": 9, "timeout": 300}}},
                       {"mol_split": {"method": {"datasail_s1"}}}),
    "ablation.max_molecules": ({"ablation": {**SETTINGS["ablation"], "max_molecules": 140}},
                               {"mol_ablation_point": {}}),
    # no experiment method runs the Butina task: nothing reads it
    "ilp.butina_threshold": (_ilp(butina_threshold=0.5), {}),
    # how equal folds of pairs are cold: the 2-D splits of this library's tasks but random (task R)
    "ilp.pair_scheme": (_ilp(pair_scheme="same_fold"), {"mol_split": {"dataset": {"davis"}, "method": {"s1", "i2", "s2"}}}),
    # the linkage of the clustering: the similarity splits, and the ablation's K and size sweeps of S1 (the margins
    # sweep's too); not the identity splits (random = I1 in 1-D, i2)
    "ilp.linkage": (_ilp(linkage="single"), {"mol_split": {"dataset_method": _SIMILARITY_SPLITS},
                                             "mol_ablation_point": {"point_method": {"s1"}}}),
}


@pytest.mark.parametrize("key", list(KEY_READERS))
def test_each_molecules_key_reruns_the_jobs_that_read_it(key, mol_run, tmp_path, mirror_dir):
    from test_reruns import dry_run_jobs

    change, readers = KEY_READERS[key]
    overlay = tmp_path / "change.yaml"
    overlay.write_text(yaml.safe_dump({"molecules": change}))
    result = snakemake(mol_run, "--dry-run", "--config", f"mirror={mirror_dir}", configfiles=(TINY, MOLECULES, overlay))
    out = result.stdout + result.stderr
    changed = [(rule, wc) for rule, wc, reason in dry_run_jobs(out) if "params have changed" in reason.lower()]
    assert {rule for rule, _ in changed} == set(readers), (key, changed, out[-3000:])
    for rule, wc in changed:
        for name, allowed in readers[rule].items():
            if name == "dataset_method":
                value = (wc["dataset"], wc["method"])
            elif name == "point_method":
                from benchdesign.molexp.settings import ablation_points, mol_settings

                settings = mol_settings({"molecules": {**SETTINGS, **change}})
                value = ablation_points(settings)[wc["sweep"]][wc["point"]]["method"]
            else:
                value = wc[name]
            assert value in allowed, (key, rule, wc)
    for rule, wanted in readers.items():  # every job that reads it reruns
        if "dataset" in wanted and "method" not in wanted:
            assert {wc["dataset"] for r, wc in changed if r == rule} == wanted["dataset"], (key, rule, changed)
        if "dataset_method" in wanted:
            assert {(wc["dataset"], wc["method"]) for r, wc in changed if r == rule} == wanted["dataset_method"]


@needs("chemprop", "chemprop", "torch")
def test_dmpnn_switch_runs_chemprop_jobs(mol_run, tmp_path, mirror_dir):
    """Listing dmpnn under models adds one chemprop job per split, scored like the other models (on a copy of
    the finished run: only the chemprop jobs run)."""
    work = tmp_path / "run"
    shutil.copytree(mol_run, work, symlinks=True, ignore=shutil.ignore_patterns("locks", "incomplete"))
    switch = tmp_path / "dmpnn.yaml"
    switch.write_text(yaml.safe_dump({"molecules": {"models": ["dmpnn"], "model_options": {"dmpnn": {"epochs": 5}}}}))
    targets = [f"results/molecules/{d}/scores/{m}/0/dmpnn.json" for d in ("sr_are", "davis") for m in ("random", "s1")]
    result = snakemake(work, *targets, "--config", f"mirror={mirror_dir}", configfiles=(TINY, MOLECULES, switch))
    counts = _job_counts(result.stdout + result.stderr)
    assert counts.get("mol_model") == 4 and "mol_split" not in counts, counts  # the copy's splits were reused
    for target in targets:
        record = json.loads((work / target).read_text())
        assert record["model"] == "dmpnn" and record["status"] == "ok", target
        assert record["metric"] == METRIC[target.split("/")[2]]
        assert 0 < record["value"] < (1 if record["metric"] == "roc_auc" else 10), target
        assert record["n_train"] > 3 * record["n_test"] > 0


@needs("torch", "chemprop")
def test_deepdta_switch_fits_deepdta_on_the_pairs_only(mol_run, tmp_path, mirror_dir):
    """Listing deepdta adds it to the model jobs of the 2-D dataset (DAVIS) and to none of the 1-D datasets
    (rule mol_model_1d fits their models, whose scores are not refitted); a small network for 2 epochs, on a copy
    of the finished run."""
    work = tmp_path / "run"
    shutil.copytree(mol_run, work, symlinks=True, ignore=shutil.ignore_patterns("locks", "incomplete"))
    switch = tmp_path / "deepdta.yaml"
    small = {"epochs": 2, "batch_size": 64, "embedding_dim": 16, "filters": 8, "hidden": [32],
             "max_sequence_length": 1000}
    switch.write_text(yaml.safe_dump({"molecules": {"models": [*SETTINGS["models"], "deepdta"],
                                                    "model_options": {"deepdta": small}}}))
    targets = [f"results/molecules/davis/scores/{m}/0/deepdta.json" for m in _methods("davis")]
    result = snakemake(work, *targets, "results/tables/split_performance.csv", "--config", f"mirror={mirror_dir}",
                       configfiles=(TINY, MOLECULES, switch))
    counts = _job_counts(result.stdout + result.stderr)
    # DAVIS's split jobs rerun with deepdta; the 1-D datasets' scores stand (now rule mol_model_1d's outputs)
    assert counts == {"mol_model": len(_methods("davis")), "mol_tables": 1}, counts
    for method in _methods("davis"):
        record = json.loads((work / f"results/molecules/davis/scores/{method}/0/deepdta.json").read_text())
        assert record["model"] == "deepdta" and record["status"] == "ok" and 0 < record["value"] < 10, record
    assert {p.parts[-5] for p in (work / "results/molecules").glob("*/scores/*/0/deepdta.json")} == {"davis"}
    perf = pd.read_csv(work / "results/tables/split_performance.csv")
    assert set(perf.loc[perf["model"] == "deepdta", "dataset"]) == {"davis"}
    assert len(perf) == len(pd.read_csv(mol_run / "results/tables/split_performance.csv")) + len(_methods("davis"))


def _job_counts(output: str) -> dict[str, int]:
    """Rule -> number of jobs from the 'Job stats' table snakemake prints (the total left out)."""
    table = output.split("Job stats:")[1].split("total")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)}


def _lp_pdbbind_like(mirror_dir, n_pairs: int) -> pd.DataFrame:
    """An LP_PDBBind.csv-shaped table (PDB id, smiles, seq, value, ...) built from DAVIS pairs of the mirror,
    plus one row without a label and one with an invalid SMILES."""
    from benchdesign.molexp.datasets import dataset_info, load_pairs, subsample_rows

    info = dataset_info("davis")
    davis = load_pairs(info, *(mirror_dir / f for f in info.files))
    pairs = davis.pairs.iloc[subsample_rows(len(davis.pairs), n_pairs, seed=1)]
    smiles = davis.drugs.set_index("id")["smiles"]
    sequence = davis.targets.set_index("id")["sequence"]
    table = pd.DataFrame({"smiles": smiles[pairs["drug_id"]].to_numpy(),
                          "seq": sequence[pairs["target_id"]].to_numpy(),
                          "value": pairs["label"].to_numpy(), "kd/ki": "Kd", "new_split": "train"},
                         index=[f"{i:04d}" for i in range(n_pairs)])
    extra = pd.DataFrame({"smiles": ["CCO", "not_a_smiles"], "seq": ["MKV", "MKV"], "value": [None, 6.0],
                          "kd/ki": "Ki", "new_split": "test"}, index=["9nol", "9bad"])
    return pd.concat([table, extra])


def test_lp_pdbbind_stand_in_in_the_cache_is_refused(tmp_path, mirror_dir):
    """LP-PDBBind has no offline copy: a file put into the data cache must still match the manifest's git blob
    id. A stand-in with other bytes stops the run when the DAG is built (a dry run too), naming the file and
    how to refetch it (the loader itself: tests/molexp/test_experiment_parts.py)."""
    cached = tmp_path / "resources/data/mol/lp_pdbbind/LP_PDBBind.csv"
    cached.parent.mkdir(parents=True)
    _lp_pdbbind_like(mirror_dir, 150).to_csv(cached)
    before = cached.read_bytes()
    config = tmp_path / "lp.yaml"
    config.write_text(yaml.safe_dump({"molecules": {"datasets": ["lp_pdbbind"], "methods_2d": ["random", "s2"],
                                                    "models": ["rf"]}}))
    targets = [f"results/molecules/lp_pdbbind/scores/{m}/0/rf.json" for m in ("random", "s2")]
    result = snakemake(tmp_path, "--dry-run", *targets, "--config", f"mirror={mirror_dir}", "allow_download=False",
                       configfiles=(TINY, MOLECULES, config), check=False)
    out = result.stdout + result.stderr
    assert result.returncode != 0, out[-3000:]
    assert "changed since they were fetched" in out and "mol/lp_pdbbind/LP_PDBBind.csv" in out, out[-3000:]
    assert "expects a git blob id starting 8706a40a" in out and "rm " in out, out[-3000:]
    assert cached.read_bytes() == before and not (tmp_path / "results").exists()


def test_benchmark_summary_groups_the_runs_jobs(mol_run):
    """benchmarks/molecules.py sums the run's per-job measurements: one row for the model jobs, one per split
    method and sweep."""
    import subprocess
    import sys

    out = mol_run.parent / "molecule_jobs.csv"
    subprocess.run([sys.executable, str(REPO / "benchmarks/molecules.py"), "--from-jobs", str(mol_run),
                    "--out", str(out)], check=True, capture_output=True)
    summary = pd.read_csv(out).set_index(["kind", "name"])
    leak = pd.read_csv(mol_run / "results/tables/split_leakage.csv")
    n_splits = leak.groupby("split_method").size()
    assert summary.loc[("model", "models"), "jobs"] == len(leak)  # one job per split fits every model (per_split)
    for method, n in n_splits.items():
        assert summary.loc[("split", method), "jobs"] == n
    assert summary.loc[("ablation", "size"), "jobs"] == 4  # 2 datasets x 2 methods
    assert (summary["wall_s"] > 0).all() and (summary["cpu_s"] >= 0).all()


def test_pair_difficulty_reads_the_run(mol_run):
    """benchmarks/pair_difficulty.py recomputes the no-skill RMSE from the split files: it must equal the column."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("pair_difficulty", REPO / "benchmarks" / "pair_difficulty.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    makeup, relative = module.difficulty_table(mol_run / "results", "davis")
    leak = pd.read_csv(mol_run / "results/tables/split_leakage.csv").query("dataset == 'davis'")
    perf = pd.read_csv(mol_run / "results/tables/split_performance.csv").query("dataset == 'davis'")
    no_skill = leak.set_index("split_method")["no_skill_score"]  # one repeat in the tiny config
    assert makeup["no_skill"].to_dict() == pytest.approx(no_skill.to_dict())
    by_hand = perf.set_index(["split_method", "model"])["value"] / no_skill.reindex(
        perf["split_method"]).to_numpy()
    assert relative.stack().to_dict() == pytest.approx(by_hand.to_dict())
