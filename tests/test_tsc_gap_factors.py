"""benchmarks/tsc_gap_factors.py: the tie conventions, the authors' trial draws and the AUC summary, on hand-made
score tables (no mirror, no series)."""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "tsc_gap_factors.py"
ARGSORTS = ("argsort", "argsort_native", "argsort_stable")


@pytest.fixture(scope="module")
def gap():
    spec = importlib.util.spec_from_file_location("tsc_gap_factors", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ties_average_against_argsort(gap):
    scores = np.array([[0.9, 0.5, 0.9, 0.7],   # a tie for the best place
                       [0.6, 0.6, 0.6, 0.6],   # all four tied
                       [0.1, 0.4, 0.3, 0.2]])  # no tie
    average = gap.fold_ranks(scores, "average")
    assert average.tolist() == [[1.5, 4.0, 1.5, 3.0], [2.5] * 4, [4.0, 1.0, 2.0, 3.0]]
    for ranking in ARGSORTS:
        ranks = gap.fold_ranks(scores, ranking)
        assert all(sorted(row) == [1, 2, 3, 4] for row in ranks.tolist()), ranking  # ties get distinct ranks
        assert ranks[2].tolist() == average[2].tolist(), ranking  # without ties every convention agrees
        assert ranks[0, 1] == 4 and ranks[0, 3] == 3 and {ranks[0, 0], ranks[0, 2]} == {1.0, 2.0}
    # the authors rank ascending accuracy, 1..M in argsort order: with a stable sort the later of two tied models
    # gets the higher ascending rank, so here (1 = best) the better one
    assert gap.fold_ranks(scores, "argsort_stable")[:2].tolist() == [[2.0, 4.0, 1.0, 3.0], [4.0, 3.0, 2.0, 1.0]]
    # numpy's generic introsort finishes runs of <= 16 by insertion sort, which is stable: on 4 models it agrees
    assert gap.fold_ranks(scores, "argsort").tolist() == gap.fold_ranks(scores, "argsort_stable").tolist()
    with pytest.raises(ValueError, match="unknown ranking"):
        gap.fold_ranks(scores, "dense")


def test_a_tie_broken_one_way_moves_the_subset_that_holds_it(gap):
    # models a, b on three datasets of one fold: tied on d0, a better on d1, b better on d2
    cube = np.array([[[0.8, 0.8]], [[0.9, 0.7]], [[0.7, 0.9]]])
    assert gap.tied_share(cube) == pytest.approx(1 / 3)
    subsets = [(0, {1: np.array([0]), 2: np.array([1, 2])})]
    average = gap.score_selections(subsets, gap.dataset_ranks(cube, "average"))
    stable = gap.score_selections(subsets, gap.dataset_ranks(cube, "argsort_stable"))
    # average: R_D = (1.5, 1.5), and both subsets have it: MAE 0 at k = 1 and 2
    assert average["mae"].item() == pytest.approx(0.0)
    # argsort: d0 counts as a win for b, R_D = (5/3, 4/3); {d0} gives (2, 1), MAE 1/3; {d1, d2} (1.5, 1.5), MAE 1/6;
    # AUC over k = 1, 2: (1/3 + 1/6) / 2
    assert stable["mae"].item() == pytest.approx(0.25)


def test_authors_draws_are_the_global_generator_stream(gap):
    state = np.random.get_state()
    try:
        np.random.seed(42)  # testing_pipeline, then rand_ind_method without random_state
        pools = [np.sort(np.random.choice(np.arange(20, dtype="int16"), 16, replace=False)) for _ in range(3)]
        expected = {(k, i): pools[i][np.sort(np.random.choice(np.arange(16), k, replace=False))]
                    for k in (2, 3) for i in range(3)}
    finally:
        np.random.set_state(state)
    got_pools, rs = gap.authors_pools(20, 3, 0.8)
    assert [p.tolist() for p in got_pools] == [p.tolist() for p in pools]
    subsets = gap.authors_random_subsets(got_pools, [2, 3], rs)
    assert all(subsets[i][k].tolist() == rows.tolist() for (k, i), rows in expected.items())


def test_summary_gain_and_its_paired_error(gap):
    per_trial = {"random": pd.DataFrame({"trial": [0, 1, 2], "mae": [3.0, 4.0, 5.0], "spearman": 0.5}),
                 "a": pd.DataFrame({"trial": [0, 1, 2], "mae": [2.0, 2.0, 2.0], "spearman": 0.8}),
                 "b": pd.DataFrame({"trial": [0, 1, 2], "mae": [3.5, 4.5, 4.0], "spearman": 0.6})}
    out = gap.summarise(per_trial, {"ranking": "average"}).set_index("strategy")
    assert out.loc["a", "gain_mae"] == pytest.approx(2.0)
    assert out.loc["a", "gain_mae_se"] == pytest.approx(1 / np.sqrt(3))  # differences 1, 2, 3: sd 1
    assert out.loc["b", "gain_mae"] == pytest.approx(0.0)
    assert (out["best"] == 2.0).all() and (out["random_auc_mae"] == 4.0).all()


def test_datasets_command_on_a_tiny_mirror(gap, tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    folder = tmp_path / "tsc" / "bakeoff2023"
    folder.mkdir(parents=True)
    names = [f"D{i:02d}" for i in range(12)]
    for model in ("A", "B", "C", "D"):
        cells = np.round(rng.uniform(0.5, 1.0, (12, 2)), 1)  # coarse: many ties
        lines = ["folds:,0,1"] + [f"{n},{a},{b}" for n, (a, b) in zip(names, cells)]
        (folder / f"{model}_TESTFOLDS.csv").write_text("\n".join(lines) + "\n")
    config = tmp_path / "config.yaml"
    config.write_text("seed: 1\nprotocol: {n_trials: 4, alpha: 0.75, k_min: 2, k_max: 4, kmeans_n_init: 1}\n")
    monkeypatch.setattr(gap, "offline_datasets", lambda: set(names[:10]))
    out = tmp_path / "datasets.csv"
    assert gap.main(["datasets", "--mirror", str(tmp_path), "--config", str(config), "--strategies", "random",
                     "fafi_euclidean", "--out", str(out)]) == 0
    table = pd.read_csv(out)
    assert sorted(table["n_datasets"].unique()) == [10, 12]
    assert len(table) == 2 * len(gap.RANKINGS) * len(gap.PROTOCOLS) * 2  # sets x rankings x protocols x strategies
    assert (table["n_trials"] == 4).all() and table["tied_cells"].between(0, 1).all()
    rnd = table[table["strategy"] == "random"]
    assert (rnd["gain_mae"] == 0).all() and (rnd["auc_mae"] == rnd["random_auc_mae"]).all()
    # random's subsets do not depend on the ranking; on average ranks its AUC differs from an argsort one
    one = rnd[(rnd["n_datasets"] == 12) & (rnd["protocol"] == "project")].set_index("ranking")["auc_mae"]
    assert one["average"] != one["argsort_stable"]


def test_minirocket_without_aeon_says_how_to_run_it(gap, capsys):
    if importlib.util.find_spec("aeon") is not None:
        pytest.skip("aeon is installed here: the comparison itself runs (minutes)")
    assert gap.main(["minirocket"]) == 3
    assert "separate venv" in capsys.readouterr().err
