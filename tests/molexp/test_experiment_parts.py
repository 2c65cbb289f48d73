"""Datasets, leakage of pair splits, split methods and config expansion of the molecular experiments."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchdesign.molexp.datasets import dataset_info, load_molecules, load_pairs, subsample_rows
from benchdesign.molexp.experiment import entity_fold_labels, fold_labels, read_folds
from benchdesign.molexp.methods import repeat_seed, split_molecules, split_pairs
from benchdesign.molexp.scoring import molecule_leakage, no_skill_score, pair_leakage, pair_side_leakage, summary_table
from benchdesign.molexp.settings import ablation_points, dataset_methods, mol_settings, split_options
from benchdesign.splitting import FingerprintSimilarity, KmerSimilarity, MatrixSimilarity, scaled_leakage

SMILES = ["CCO", "CCCO", "CCCCO", "c1ccccc1", "c1ccccc1O", "c1ccccc1N", "CC(=O)O", "CC(=O)OC", "CCN", "CCCN",
          "C1CCCCC1", "C1CCCCC1O"]


def test_load_molecules_drops_invalid_and_unlabelled(tmp_path):
    path = tmp_path / "tox21.csv"
    pd.DataFrame({"smiles": ["CCO", "not_a_smiles", "c1ccccc1", "CCN"],
                  **{t: [0, 1, np.nan, 1] for t in dataset_info("tox21").targets}}).to_csv(path, index=False)
    table, dropped = load_molecules(dataset_info("sr_are"), path)
    assert table["id"].tolist() == ["M000000", "M000003"]  # ids keep the source row
    assert dropped.set_index("id")["reason"].to_dict() == {"M000001": "invalid_smiles", "M000002": "no_label"}
    full, _ = load_molecules(dataset_info("tox21"), path)
    assert full["id"].tolist() == ["M000000", "M000002", "M000003"]


def test_load_molecules_names_missing_label_column(tmp_path):
    path = tmp_path / "qm8.csv"
    pd.DataFrame({"smiles": ["CCO"], "E1-CC2": [0.1]}).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"qm8.csv: label column\(s\) \['E2-CC2'"):
        load_molecules(dataset_info("qm8"), path)


def test_load_pairs_davis_labels_are_pkd(tmp_path):
    (tmp_path / "lig.txt").write_text(json.dumps({"d1": "CCO", "d2": "c1ccccc1"}))
    (tmp_path / "prot.txt").write_text(json.dumps({"t1": "MKV", "t2": "AAAA", "t3": "GG"}))
    np.savetxt(tmp_path / "m.txt", [[10000, 1, 10], [100, 1000, 10000]])
    tables = load_pairs(dataset_info("davis"), tmp_path / "lig.txt", tmp_path / "prot.txt", tmp_path / "m.txt")
    assert len(tables.pairs) == 6
    row = tables.pairs.set_index(["drug_id", "target_id"]).loc[("d1", "t2")]
    assert row["label"] == pytest.approx(9.0)  # Kd 1 nM -> pKd 9
    np.savetxt(tmp_path / "bad.txt", [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="does not match 2 ligands x 3 proteins"):
        load_pairs(dataset_info("davis"), tmp_path / "lig.txt", tmp_path / "prot.txt", tmp_path / "bad.txt")


def test_subsample_rows_is_seeded_and_sorted():
    a = subsample_rows(100, 10, seed=3)
    assert np.array_equal(a, subsample_rows(100, 10, seed=3)) and np.all(np.diff(a) > 0) and a.size == 10
    assert not np.array_equal(a, subsample_rows(100, 10, seed=4))
    assert subsample_rows(5, None, 0).tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="max_rows"):
        subsample_rows(5, 0, 0)


def _brute_pair_leakage(sd, st, di, ti, folds):
    keep = np.flatnonzero(folds >= 0)
    sim = (sd[np.ix_(di[keep], di[keep])] + st[np.ix_(ti[keep], ti[keep])]) / 2
    cross = folds[keep][:, None] != folds[keep][None, :]
    return sim[cross].sum() / sim.sum()


def test_pair_leakage_equals_brute_force_over_pairs():
    rng = np.random.default_rng(0)
    sd, st = rng.random((5, 5)), rng.random((4, 4))
    sd, st = (sd + sd.T) / 2, (st + st.T) / 2
    np.fill_diagonal(sd, 1)
    np.fill_diagonal(st, 1)
    di, ti = rng.integers(0, 5, 30), rng.integers(0, 4, 30)
    folds = rng.integers(-1, 2, 30)
    got = pair_leakage(MatrixSimilarity(sd), MatrixSimilarity(st), di, ti, folds)
    assert got == pytest.approx(_brute_pair_leakage(sd, st, di, ti, folds))


def test_pair_side_leakage_by_hand():
    """Drugs d0, d1 (similarity 0.5), targets t0, t1 (0.2); pairs (d0,t0) train, (d0,t1) test, (d1,t0) train,
    (d1,t1) dropped. Drug side: copies d0|train, d0|test, d1|train (one pair each); the eq. (20) denominator
    3 + 2 (1 + 0.5 + 0.5) = 7, across folds d0|train-d0|test 1 and d1|train-d0|test 0.5: 2 * 1.5 / 7.
    Target side: t0|train with 2 pairs, t1|test with 1: denominator 4 + 1 + 2 * 2 * 0.2 = 5.8, across folds
    2 * 0.2: 2 * 0.4 / 5.8. Both halves: 2 (1.5 + 0.4) / (7 + 5.8)."""
    sd, st = np.array([[1.0, 0.5], [0.5, 1.0]]), np.array([[1.0, 0.2], [0.2, 1.0]])
    drugs, targets = MatrixSimilarity(sd), MatrixSimilarity(st)
    di, ti, folds = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([0, 1, 0, -1])
    leak = pair_side_leakage(drugs, targets, di, ti, folds)
    assert leak.drug == pytest.approx(3 / 7)
    assert leak.target == pytest.approx(0.8 / 5.8)
    assert leak.pairs == pytest.approx(3.8 / 12.8) == pair_leakage(drugs, targets, di, ti, folds)
    assert leak.pairs == pytest.approx(_brute_pair_leakage(sd, st, di, ti, folds))
    cold = pair_side_leakage(drugs, targets, di, ti, np.array([0, -1, -1, 1]))  # (d0,t0) | (d1,t1): S2-like
    assert cold.drug == pytest.approx(2 * 0.5 / 3) and cold.target == pytest.approx(2 * 0.2 / 2.4)
    assert pair_side_leakage(drugs, targets, di, ti, np.full(4, -1)) == (0.0, 0.0, 0.0)


def test_molecule_leakage_is_eq20_on_assigned():
    sim = FingerprintSimilarity.from_smiles(SMILES)
    folds = np.array([0, 0, 0, 1, 1, 1, 0, 0, -1, 0, 1, 1])
    keep = folds >= 0
    assert molecule_leakage(sim, folds) == pytest.approx(scaled_leakage(sim.subset(np.flatnonzero(keep)),
                                                                        folds[keep]))


def test_s1_leaks_less_than_random_on_molecules():
    sim = FingerprintSimilarity.from_smiles(SMILES)
    options = {"ilp": {"clusters": 4, "time_limit": 10}}
    s1, report = split_molecules("s1", SMILES, sim, None, (0.75, 0.25), 1, options)
    rnd, _ = split_molecules("random", SMILES, sim, None, (0.75, 0.25), 1, options)
    assert report["task"] == "S1" and set(s1) == {0, 1} and (s1 == 1).sum() == 3
    assert molecule_leakage(sim, s1) < molecule_leakage(sim, rnd)
    with pytest.raises(ValueError, match="unknown 1-D split method 'nope'"):
        split_molecules("nope", SMILES, sim, None, (0.8, 0.2), 0, {})


def test_stratified_random_split_keeps_class_fractions():
    sim = FingerprintSimilarity.from_smiles(SMILES * 2)
    y = np.array([1, 0, 0, 0] * 6, dtype=bool)
    classes = np.stack([~y, y], axis=1)
    folds, report = split_molecules("random", SMILES * 2, sim, classes, (0.5, 0.5), 0, {"ilp": {"delta": 0.0}})
    assert report["task"] == "I1"
    assert (y & (folds == 1)).sum() == 3 and (~y & (folds == 1)).sum() == 9


def test_split_pairs_i2_drops_cross_fold_pairs():
    drugs = FingerprintSimilarity.from_smiles(SMILES[:6])
    targets = KmerSimilarity.from_sequences(["MKVLA", "MKVLG", "GGGGA", "GGGGC"])
    di, ti = np.repeat(np.arange(6), 4), np.tile(np.arange(4), 6)
    folds, report = split_pairs("i2", di, ti, drugs, targets, (0.5, 0.5), 0, {"ilp": {"epsilon": 0.5}})
    assert report["task"] == "I2"
    for f in (0, 1):  # every kept pair has drug and target in the same fold
        kept = folds == f
        assert not (set(di[kept]) & set(di[folds == 1 - f])) and not (set(ti[kept]) & set(ti[folds == 1 - f]))
    assert (folds == -1).sum() == report["n_dropped"] > 0
    rnd, _ = split_pairs("random", di, ti, drugs, targets, (0.5, 0.5), 0, {})
    assert (rnd >= 0).all()


def test_repeat_seed_differs_per_repeat_method_dataset():
    seeds = {repeat_seed(1, d, m, r) for d in ("a", "b") for m in ("s1", "random") for r in (0, 1)}
    assert len(seeds) == 8 and repeat_seed(1, "a", "s1", 0) == repeat_seed(1, "a", "s1", 0)


def test_fold_label_round_trip_and_entity_labels(tmp_path):
    folds = np.array([0, 1, -1, 0])
    path = tmp_path / "s.tsv"
    pd.DataFrame({"id": list("abcd"), "split": fold_labels(folds)}).to_csv(path, sep="\t", index=False)
    assert read_folds(path, list("dcba")).tolist() == [0, -1, 1, 0]
    with pytest.raises(ValueError, match="no split for sample 'e'"):
        read_folds(path, ["a", "e"])
    labels = entity_fold_labels(np.array([0, 0, 1, 2]), np.array([0, 1, 1, -1]), 4)
    assert labels.tolist() == ["both", "test", "unassigned", "unassigned"]


def test_settings_and_job_expansion():
    settings = mol_settings({"molecules": {"datasets": ["tox21", "davis"], "ilp": {"clusters": 20},
                                           "max_peer_molecules": {"datasail_s1": 5000},
                                           "ablation": {"clusters": [5, 10], "solvers": ["HIGHS"]}}})
    assert dataset_methods(settings, "davis") == ["random", "i1_drug", "i1_target", "s1", "s1_target", "i2", "s2",
                                                  "fingerprint_drug", "lohi_drug", "graphpart_target"]
    assert "scaffold" in dataset_methods(settings, "tox21")
    # each split job's params hold the ilp options its method reads: a peer tool none, S1 all, I2 the bounds
    assert split_options(settings, "tox21", "datasail_s1") == {"datasail_s1": {}, "max_molecules": 5000}
    assert split_options(settings, "tox21", "s1") == {"ilp": {"clusters": 20}}
    assert split_options(settings, "davis", "i2")["ilp"] == {}
    assert split_options(settings, "davis", "random") == {"protein_similarity": "mmseqs"}
    points = ablation_points(settings)
    assert sorted(points["clusters"]) == ["K10_HIGHS", "K5_HIGHS"]
    # the sweeps time the solver: their own time limit, no node limit (molecules.ilp's stays with the experiment)
    assert points["clusters"]["K5_HIGHS"]["options"]["ilp"] == {"clusters": 5, "solver": "HIGHS", "time_limit": 60,
                                                                "node_limit": None}
    node_capped = mol_settings({"molecules": {"ilp": {"node_limit": 1000, "time_limit": 600},
                                              "ablation": {"time_limit": 30}}})
    for sweep in ablation_points(node_capped).values():
        for point in sweep.values():
            if point["method"] != "s1":  # scaffold, LoHi, datasail: no ilp option read, so none in the params
                assert "ilp" not in point["options"]
                continue
            assert point["options"]["ilp"]["time_limit"] == 30 and point["options"]["ilp"]["node_limit"] is None
    assert "eps0p1_delta0p05" in points["margins"]
    with pytest.raises(ValueError, match="unknown molecular dataset 'zinc'"):
        mol_settings({"molecules": {"datasets": ["zinc"]}})


def test_summary_table_means_over_repeats():
    leakage = pd.DataFrame({"dataset": ["d"] * 2, "split_method": ["s1"] * 2, "repeat": [0, 1],
                            "scaled_leakage": [0.1, 0.3]})
    perf = pd.DataFrame({"dataset": ["d"] * 2, "split_method": ["s1"] * 2, "repeat": [0, 1], "model": ["rf"] * 2,
                         "metric": ["mae"] * 2, "value": [1.0, 2.0]})
    row = summary_table(leakage, perf).iloc[0]
    assert row["scaled_leakage"] == "0.200 ± 0.141" and row["rf (mae)"] == "1.500 ± 0.707"
    assert "drug_leakage" not in summary_table(leakage, perf).columns  # 1-D: no sides
    pairs = leakage.assign(drug_leakage=[0.2, 0.4], target_leakage=[0.1, 0.1], n_dropped=[10, 20])
    row = summary_table(pairs, perf).iloc[0]
    assert (row["drug_leakage"], row["target_leakage"], row["n_dropped"]) == ("0.300 ± 0.141", "0.100 ± 0.000",
                                                                              "15.000 ± 7.071")


def test_no_skill_score_predicts_the_training_mean():
    # RMSE by hand: training mean 2; test errors -2 and 2 -> 2.0; MAE 2.0
    assert no_skill_score("rmse", np.array([1.0, 3.0]), np.array([0.0, 4.0])) == pytest.approx(2.0)
    # two targets, NaN = missing: target 0 mean 1 (errors 1, 3: RMSE sqrt(5)), target 1 mean 4 (error 2: RMSE 2)
    train = np.array([[1.0, np.nan], [np.nan, 4.0]])
    test = np.array([[2.0, 6.0], [4.0, np.nan]])
    assert no_skill_score("rmse", train, test) == pytest.approx((np.sqrt(5.0) + 2.0) / 2)
    assert no_skill_score("mae", train, test) == pytest.approx((2.0 + 2.0) / 2)
    # a constant score ranks nothing: ROC AUC 0.5 whatever the training prior
    assert no_skill_score("roc_auc", np.array([0.0, 1.0, 1.0]), np.array([0.0, 1.0, 0.0, 1.0])) == 0.5
    with pytest.raises(ValueError, match="Y_train has 2 targets but Y_test has 1"):
        no_skill_score("rmse", train, np.array([1.0]))


def test_summary_table_shows_the_no_skill_yardstick():
    leakage = pd.DataFrame({"dataset": ["d"] * 2, "split_method": ["s1"] * 2, "repeat": [0, 1],
                            "scaled_leakage": [0.1, 0.3], "no_skill_score": [1.0, 3.0]})
    perf = pd.DataFrame({"dataset": ["d"] * 2, "split_method": ["s1"] * 2, "repeat": [0, 1], "model": ["rf"] * 2,
                         "metric": ["rmse"] * 2, "value": [1.0, 2.0]})
    assert summary_table(leakage, perf).iloc[0]["no skill (rmse)"] == "2.000 ± 1.414"


def test_model_overrides_per_task_type():
    from benchdesign.molexp.experiment import model_overrides

    options = {"n_estimators": 100, "regression": {"max_features": "sqrt"}, "classification": {"n_estimators": 50}}
    assert model_overrides(options, "regression") == {"n_estimators": 100, "max_features": "sqrt"}
    assert model_overrides(options, "classification") == {"n_estimators": 50}
    assert model_overrides({}, "regression") == {}


def _tiny_experiment():
    from benchdesign.molexp.experiment import experiment_from_molecules
    from benchdesign.molexp.features import molecule_fingerprints

    table = pd.DataFrame({"id": [f"M{i}" for i in range(len(SMILES))], "smiles": SMILES,
                          "SR-ARE": [0, 1] * 6})
    return experiment_from_molecules(dataset_info("sr_are"), table, molecule_fingerprints(SMILES))


def test_run_molecule_split_records_a_failing_competitor(monkeypatch):
    import benchdesign.molexp.splitters as splitters
    from benchdesign.molexp.experiment import run_molecule_split

    def no_split(*args, **kwargs):
        raise ValueError("No solution is found")

    monkeypatch.setattr(splitters, "lohi_split", no_split)
    data = _tiny_experiment()
    folds, record = run_molecule_split(data, "lohi", 0, (0.75, 0.25), 1, {"lohi": {}})
    assert record["status"] == "failed: ValueError: No solution is found" and (folds == -1).all()
    assert np.isnan(record["scaled_leakage"]) and record["n_dropped"] == len(SMILES)
    _, skipped = run_molecule_split(data, "lohi", 0, (0.75, 0.25), 1, {"lohi": {}, "max_molecules": 5})
    assert skipped["status"].startswith("skipped: 12 molecules > max_peer_molecules 5")
    monkeypatch.setattr(splitters, "scaffold_split", no_split)  # this project's own methods are not excused
    with pytest.raises(ValueError, match="No solution"):
        run_molecule_split(data, "scaffold", 0, (0.75, 0.25), 1, {"scaffold": {}})
    folds, record = run_molecule_split(data, "s1", 0, (0.75, 0.25), 1, {"ilp": {"clusters": 6, "delta": 0.5}})
    assert record["status"] == "ok" and record["n_test"] > 0 and 0 < record["scaled_leakage"] < 1
    assert record["no_skill_score"] == 0.5  # ROC AUC of a constant prediction


def test_ilp_options_reach_the_split_spec(monkeypatch):
    """molecules.ilp (e.g. the paper's fraction_tolerance: null, refine: false) -> split_options and the Fig. 6
    margins points -> run_molecule_split -> the SplitSpec the splitter receives; left out = SPLIT_OPTIONS'."""
    from benchdesign.molexp import methods
    from benchdesign.molexp.experiment import run_molecule_split
    from benchdesign.splitting.options import SPLIT_DEFAULTS

    seen = []
    real = methods.split_entities
    monkeypatch.setattr(methods, "split_entities", lambda task, ents, spec: seen.append(spec) or real(task, ents, spec))
    settings = mol_settings({"molecules": {
        "ilp": {"clusters": 4, "epsilon": 0.5, "delta": 0.5, "time_limit": 10, "fraction_tolerance": None,
                "refine": False, "mip_gap": 0.0},
        "ablation": {"epsilons": [0.2], "deltas": [0.3]}}})
    point = ablation_points(settings)["margins"]["eps0p2_delta0p3"]
    data = _tiny_experiment()
    _, margins_record = run_molecule_split(data, "s1", 0, (0.75, 0.25), 1, point["options"])
    run_molecule_split(data, "s1", 0, (0.75, 0.25), 1, split_options(settings, "sr_are", "s1"))
    margins, main = seen
    assert (margins.fraction_tolerance, margins.refine, margins.mip_gap) == (None, False, 0.0)
    assert (margins.epsilon, margins.delta, margins.clusters) == (0.2, 0.3, 4)
    assert margins_record["report"]["refined"] is False
    assert (main.fraction_tolerance, main.refine, main.epsilon, main.linkage) == (None, False, 0.5,
                                                                                SPLIT_DEFAULTS["linkage"])
    default = methods.ilp_spec(split_options(mol_settings({}), "sr_are", "s1")["ilp"], (0.8, 0.2), 0)
    assert (default.fraction_tolerance, default.refine) == (SPLIT_DEFAULTS["fraction_tolerance"],
                                                            SPLIT_DEFAULTS["refine"])


def test_schema_takes_the_papers_ilp_choices():
    """The config schema accepts molecules.ilp's split options (null = the paper's fraction tolerance) and refuses
    the command line's spelling `none`, which YAML reads as a string."""
    from pathlib import Path

    import yaml
    from snakemake.utils import validate

    schema = str(Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml")
    config = yaml.safe_load("molecules: {ilp: {epsilon: 0.2, fraction_tolerance: null, refine: false, "
                            "mip_gap: 0.0, time_limit: 60}}")
    validate(config, schema)
    assert config["molecules"]["ilp"] == {"epsilon": 0.2, "fraction_tolerance": None, "refine": False,
                                          "mip_gap": 0.0, "time_limit": 60}  # no default is filled in
    with pytest.raises(Exception, match="'none' is not of type"):
        validate(yaml.safe_load("molecules: {ilp: {fraction_tolerance: none}}"), schema)


def test_every_registered_dataset_reads_from_the_mirror(mirror_dir, tmp_path):
    """Each 1-D source file has the SMILES and label columns the registry names (e.g. BACE's 'mol');
    checked on the first 50 rows of every file."""
    from benchdesign.molexp.datasets import DATASETS

    for info in DATASETS.values():
        if info.kind == "1d":
            head = tmp_path / f"{info.name}.csv"
            pd.read_csv(mirror_dir / info.files[0], nrows=50).to_csv(head, index=False)
            table, dropped = load_molecules(info, head)
            assert len(table) + len(dropped) == 50 and len(table) > 0, info.name


@pytest.mark.parametrize("name, n_drugs, n_targets, n_pairs, label_range", [
    ("davis", 68, 442, 30_056, (5.0, 10.8)),     # pKd; DAVIS' unmeasured Kd is 10,000 nM = pKd 5
    ("kiba", 2_111, 229, 118_254, (0.0, 17.3)),  # KIBA scores, nan = unmeasured
])
def test_pair_datasets_from_the_mirror_have_the_papers_sizes(mirror_dir, name, n_drugs, n_targets, n_pairs,
                                                             label_range):
    """DeepDTA's DAVIS and KIBA files give the sizes the DataSAIL paper reports, with no drug dropped."""
    info = dataset_info(name)
    tables = load_pairs(info, *(mirror_dir / f for f in info.files))
    assert (len(tables.drugs), len(tables.targets), len(tables.pairs)) == (n_drugs, n_targets, n_pairs)
    assert tables.dropped.empty and tables.pairs["id"].is_unique
    assert label_range[0] <= tables.pairs["label"].min() < tables.pairs["label"].max() <= label_range[1]


def test_load_lp_pdbbind_numbers_drugs_and_targets_and_drops_incomplete_rows(tmp_path):
    path = tmp_path / "LP_PDBBind.csv"
    pd.DataFrame({"smiles": ["CCO", "c1ccccc1", "CCO", None, "CCN", "xx"],
                  "seq": ["MKV", "MKV", "GGA", "MKV", None, "GG"], "value": [6.0, 7.5, 5.0, 4.0, 3.0, 2.0]},
                 index=["1abc", "1e66", "3abc", "4abc", "5abc", "6abc"]).to_csv(path)
    tables = load_pairs(dataset_info("lp_pdbbind"), path)
    assert tables.pairs.to_dict("list") == {"id": ["1abc", "1e66", "3abc"], "drug_id": ["D00000", "D00001", "D00000"],
                                            "target_id": ["T00000", "T00000", "T00001"], "label": [6.0, 7.5, 5.0]}
    assert tables.drugs.to_dict("list") == {"id": ["D00000", "D00001"], "smiles": ["CCO", "c1ccccc1"]}
    assert tables.targets.to_dict("list") == {"id": ["T00000", "T00001"], "sequence": ["MKV", "GGA"]}
    assert tables.dropped.set_index("id")["reason"].to_dict() == {
        "4abc": "no_smiles", "5abc": "no_sequence", "6abc": "invalid_smiles"}
    pd.DataFrame({"smiles": ["CCO", "CCN"], "seq": ["MKV", "MK"], "value": [6.0, 5.0]},
                 index=["1e66", "2e10"]).to_csv(path)  # PDB ids that read as numbers
    assert load_pairs(dataset_info("lp_pdbbind"), path).pairs["id"].tolist() == ["1e66", "2e10"]


def test_load_lp_pdbbind_names_bad_files(tmp_path):
    path = tmp_path / "LP_PDBBind.csv"
    pd.DataFrame({"smiles": ["CCO"], "sequence": ["MKV"], "value": [6.0]}, index=["1abc"]).to_csv(path)
    with pytest.raises(ValueError, match=r"LP_PDBBind.csv: column\(s\) \['seq'\] of LP-PDBBind not found"):
        load_pairs(dataset_info("lp_pdbbind"), path)
    pd.DataFrame({"smiles": ["CCO", "CCN"], "seq": ["MKV", "MK"], "value": [6.0, 5.0]},
                 index=["1abc", "1abc"]).to_csv(path)
    with pytest.raises(ValueError, match=r"PDB id\(s\) \['1abc'\] listed more than once"):
        load_pairs(dataset_info("lp_pdbbind"), path)


def _pair_files(tmp_path, representation: str | None):
    """A 2-D dataset of 8 DAVIS-like pairs (4 drugs x 2 targets) as the dataset and feature rules write it; the
    features file records ``representation`` (None: a file written before the key existed)."""
    samples = pd.DataFrame({"id": [f"P{i}" for i in range(8)], "drug_id": [f"D{i % 4}" for i in range(8)],
                            "target_id": [f"T{i // 4}" for i in range(8)], "label": np.linspace(5.0, 8.5, 8)})
    molecules = pd.DataFrame({"id": [f"D{i}" for i in range(4)], "smiles": SMILES[:4]})
    proteins = pd.DataFrame({"id": ["T0", "T1"], "sequence": ["MKTAYIAK", "GAVLIPFW"]})
    paths = {n: tmp_path / f"{n}.csv" for n in ("samples", "molecules", "proteins")}
    for name, table in (("samples", samples), ("molecules", molecules), ("proteins", proteins)):
        table.to_csv(paths[name], index=False)
    arrays = {"molecule_bits": np.eye(4, 16, dtype=np.uint8), "protein_features": np.eye(2, 6, dtype=np.float32)}
    if representation is not None:
        arrays["protein_representation"] = np.array(representation)
    np.savez_compressed(tmp_path / "features.npz", **arrays)
    return [paths["samples"], paths["molecules"], paths["proteins"], tmp_path / "features.npz"]


@pytest.mark.parametrize("recorded,expected", [("esm2_t12", "esm2_t12"), ("composition", "composition"),
                                               (None, "composition")])
def test_model_records_say_which_protein_features_the_pair_models_read(tmp_path, recorded, expected):
    from benchdesign.molexp.experiment import load_experiment, run_model

    data = load_experiment("davis", *_pair_files(tmp_path, recorded))
    assert data.protein_representation == expected
    assert data.features().shape == (8, 16 + 6)
    folds = np.array([0, 0, 0, 1, 0, 0, 0, 1])
    record = run_model(data, folds, "rf", seed=0, options={"n_estimators": 5})
    assert record["status"] == "ok" and record["protein_representation"] == expected


def test_the_summary_names_each_pair_datasets_protein_features():
    from benchdesign.molexp.scoring import protein_representations, summary_markdown

    scores = [{"dataset": "davis", "model": "rf", "protein_representation": "esm2_t12"},
              {"dataset": "davis", "model": "deepdta", "protein_representation": "sequence"},
              {"dataset": "kiba", "model": "rf", "protein_representation": "composition"},
              {"dataset": "kiba", "model": "svm", "protein_representation": "esm2_t12"},
              {"dataset": "tox21", "model": "rf"}]
    reps = protein_representations(scores)
    assert reps == {"davis": "esm2_t12", "kiba": "composition+esm2_t12"}
    leakage = pd.DataFrame({"dataset": ["davis", "tox21"], "split_method": ["s2", "s1"], "repeat": [0, 0],
                            "scaled_leakage": [0.2, 0.1]})
    perf = pd.DataFrame({"dataset": ["davis", "tox21"], "split_method": ["s2", "s1"], "repeat": [0, 0],
                         "model": ["rf", "rf"], "metric": ["rmse", "roc_auc"], "value": [1.0, 0.7]})
    text = summary_markdown(leakage, perf, reps)
    assert "## davis\n\nProtein features of the fingerprint models: esm2_t12.\n\n|" in text
    assert "## tox21\n\n|" in text
    assert summary_markdown(leakage, perf) == text.replace("Protein features of the fingerprint models: esm2_t12.\n\n", "")


def test_protein_representation_reaches_only_the_pair_datasets_jobs():
    from benchdesign.molexp.settings import protein_options, run_protein_representation

    default = mol_settings({"molecules": {"enabled": True}})
    assert (default["protein_representation"], default["esm_weights"]) == ("composition", None)
    assert protein_options(default, "davis") == {"representation": "composition", "esm_weights": None}
    esm = mol_settings({"molecules": {"enabled": True, "protein_representation": "esm2_t12", "esm_weights": "w.pt"}})
    assert protein_options(esm, "kiba") == {"representation": "esm2_t12", "esm_weights": "w.pt"}
    assert protein_options(esm, "qm8") == {}  # no proteins: the choice does not touch a 1-D dataset's jobs
    assert run_protein_representation(esm) == "esm2_t12"
    assert run_protein_representation({**esm, "datasets": ["qm8", "tox21"]}) is None
    assert run_protein_representation({**esm, "enabled": False}) is None
