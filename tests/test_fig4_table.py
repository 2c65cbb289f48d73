"""benchmarks/fig4_table.py: the models x splits table of the 2-D experiment, on hand-made result tables."""

import importlib.util
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "fig4_table.py"


def _module():
    spec = importlib.util.spec_from_file_location("fig4_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_means_over_repeats_in_the_order_asked(tmp_path, capsys):
    module = _module()
    leak = pd.DataFrame([("davis", m, r, 0.3, d, t, 80, 20, n, 1.0, "ok")
                         for m, d, t, n in (("random", 0.32, 0.31, 0), ("s2", 0.2, 0.1, 40)) for r in (0, 1)]
                        + [("davis", "s2", 2, None, None, None, 0, 0, 100, 1.0, "failed: no split"),
                           ("qm8", "random", 0, 0.3, None, None, 80, 20, 0, 1.0, "ok")],
                        columns=["dataset", "split_method", "repeat", "scaled_leakage", "drug_leakage",
                                 "target_leakage", "n_train", "n_test", "n_dropped", "seconds", "status"])
    perf = pd.DataFrame([("davis", m, r, "rf", "rmse", v + r) for m, v in (("random", 0.5), ("s2", 1.0))
                         for r in (0, 1)], columns=["dataset", "split_method", "repeat", "model", "metric", "value"])
    table = module.models_by_splits(leak, perf, "davis", ["s2", "random"])
    assert table.index.tolist() == ["s2", "random"]
    assert table.loc["s2", "drug_leakage"] == 0.2 and table.loc["s2", "n_dropped"] == 40  # the failed split left out
    assert table.loc["random", "rf"] == 1.0 and table.loc["s2", "rf"] == 1.5
    (tmp_path / "results/tables").mkdir(parents=True)
    leak.to_csv(tmp_path / "results/tables/split_leakage.csv", index=False)
    perf.to_csv(tmp_path / "results/tables/split_performance.csv", index=False)
    module.main(["--dir", str(tmp_path), "--datasets", "davis"])
    out = capsys.readouterr().out
    assert "| split | L(π) drugs | L(π) targets | L(π) pairs | pairs dropped | rf RMSE |" in out
    assert "| random | 0.320 | 0.310 | 0.300 | 0 | 1.000 |" in out and "| s2 | 0.200 | 0.100 | 0.300 | 40 | 1.500 |" in out
