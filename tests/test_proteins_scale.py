"""benchmarks/proteins_scale.py on a tiny evolved set: its table, and the project's split leaks no more than random."""

import argparse
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchdesign.data.protein_families import AMINO_ACIDS

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "proteins_scale.py"


def _module():
    spec = importlib.util.spec_from_file_location("proteins_scale", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tiny_families(module, n_seeds=6, members=10, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    seeds = ["".join(rng.choice(list(AMINO_ACIDS), int(rng.integers(90, 160)))) for _ in range(n_seeds)]
    return module.evolved_table(seeds, n_seeds, members, seed)


def test_group_split_keeps_groups_whole_and_near_the_fractions():
    module = _module()
    labels = np.repeat(np.arange(30), np.arange(1, 31))  # 465 members in groups of 1..30
    folds = module.group_split(labels, (0.8, 0.2), seed=3)
    for g in np.unique(labels):
        assert np.unique(folds[labels == g]).size == 1
    assert abs(np.mean(folds == 1) - 0.2) < 0.02
    assert np.array_equal(folds, module.group_split(labels, (0.8, 0.2), seed=3))


def test_leakage_stats_counts_training_neighbours_only():
    module = _module()
    hits = pd.DataFrame({"query": [0, 0, 1, 2], "target": [3, 4, 5, 3], "identity": [0.9, 0.4, 0.35, 0.6]})
    folds = np.array([1, 1, 1, 0, 1, 0])  # 3 and 5 train; 4 test
    out = module.leakage_stats(hits, np.array([0, 1, 4]), folds, "x")
    assert out["x_max"] == pytest.approx(0.9) and out["x_median"] == pytest.approx(0.35)
    assert out["x_gt03"] == pytest.approx(2 / 3) and out["x_gt05"] == pytest.approx(1 / 3)
    assert out["x_pairs_gt03"] == 2  # (0, 3) and (1, 5); (0, 4) is test-test, query 2 is not sampled


def test_tiny_evolved_set_table_and_leakage_against_random(tmp_path, capsys):
    module = _module()
    table = _tiny_families(module)
    assert len(table) == 60
    args = argparse.Namespace(seed=0, timeout=300.0, graphpart_timeout=300.0, graphpart_cpu_limit=60.0,
                              fast_args=[], samples=30, sw_max=100, no_leakage=False, json=tmp_path / "rows.json")
    rows = module.evaluate_dataset("evolved_tiny", table, ["project", "easycluster", "random"], tmp_path, args)
    by = {r["method"]: r for r in rows}
    assert {m: by[m]["status"] for m in by} == {"project": "ok", "easycluster": "ok", "random": "ok"}
    assert by["project"]["cpu_s"] > 0 and by["project"]["peak_mb"] > 0 and "similarity" in by["project"]["stages"]
    module.update_rows(args.json, rows)
    out = module.write_outputs(module.load_rows(args.json), tmp_path / "t.csv", tmp_path / "t.png")
    assert list(out.columns) == module.COLUMNS
    assert list(pd.read_csv(tmp_path / "t.csv").columns) == module.COLUMNS
    assert (tmp_path / "t.png").stat().st_size > 0
    assert "| route | exponent, SOLpro sizes (finished runs) |" in capsys.readouterr().out
    rnd, ours = by["random"], by["project"]
    assert rnd["mm_pairs_gt03"] > 0 and rnd["sw_pairs_gt03"] > 0  # the families leak under a random split
    for key in ("mm_gt03", "mm_pairs_gt03", "sw_gt03", "sw_pairs_gt03", "sw_max"):
        assert ours[key] <= rnd[key], key
    assert ours["mm_pairs_gt03"] < rnd["mm_pairs_gt03"]


def test_goal_check_per_route_against_each_yardstick():
    module = _module()
    rows = [("project", "ok", 741.0, 1120.0, 0.04), ("project_s1_nosummary", "ok", 200.0, 1000.0, 0.10),
            ("project_fast", "failed (exit 2)", 90.0, 900.0, np.nan),
            ("easycluster", "ok", 150.0, 980.0, 0.40), ("search_cc", "ok", 550.0, 1120.0, 0.173)]
    table = pd.DataFrame([{"dataset": "evolved_100k", "method": m, "status": st, "cpu_s": c, "peak_mb": mb,
                           "mm_gt03": leak} for m, st, c, mb, leak in rows])
    default = module.goal_check(table, "easycluster", "project")
    assert not default["met"] and default["cpu_ratio"] == pytest.approx(741 / 150)
    lean = module.goal_check(table, "easycluster", "project_s1_nosummary")
    assert lean["met"] and lean["cpu_ratio"] == pytest.approx(200 / 150)
    assert module.goal_check(table, "search_cc", "project_s1_nosummary")["met"]  # 0.36x at 0.10 against 0.173
    assert module.goal_check(table, "search_cc", "project")["met"]  # 1.35x at 0.04 against 0.173
    failed = module.goal_check(table, "easycluster", "project_fast")
    assert failed["met"] is False and failed["status"] == "failed (exit 2)"
    assert module.goal_check(table, "easycluster", "project_s1") is None  # not measured
    leakier = table.assign(mm_gt03=np.where(table["method"] == "project_s1_nosummary", 0.41, table["mm_gt03"]))
    assert not module.goal_check(leakier, "easycluster", "project_s1_nosummary")["met"]  # more leakage than 0.40


def test_trace_leaks_scores_each_leak_four_ways():
    spec = importlib.util.spec_from_file_location("trace_leaks", SCRIPT.with_name("trace_leaks.py"))
    trace_leaks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trace_leaks)
    table = _tiny_families(_module())
    sequences = table["sequence"].tolist()
    sequences.append(sequences[0])  # an exact copy of sequence 0, in the test fold
    folds = np.zeros(len(sequences), dtype=np.int64)
    folds[1::2] = 1  # every family on both sides
    folds[-1] = 1
    out = trace_leaks.trace(sequences, folds, samples=len(sequences), seed=0, threshold=0.3)
    assert len(out) > 0 and (out["evaluator"] > 0.3).all()
    assert (folds[out["test"]] == 1).all() and (folds[out["train"]] == 0).all()
    copy = out[(out["test"] == len(sequences) - 1) & (out["train"] == 0)].iloc[0]
    assert copy[["evaluator", "evaluator_swapped", "check", "smith_waterman"]].tolist() == [1.0, 1.0, 1.0, 1.0]
    # the family members are true homologs: Smith-Waterman finds a covering alignment for most of them
    assert (out["smith_waterman"] > 0.3).mean() > 0.5
