"""Estimators from the subset to the full benchmark, judged on held-out models (issue 38, item 2).

Usage: python benchmarks/subset_estimators.py [--mirror ../shared/data] [--domains nlp] [--strategies random kmedoids]
       [--trials 200] [--ks 5 10] [--holdout-fraction 0.3] [--level 0.9] [--seed 0]

For each domain and strategy (on the domain's a-priori features, as benchmarks/selection_baselines.py), the
model-holdout trials of ``estimators.estimator_holdout_trials`` (pools of floor(0.8 n) datasets, 30 % of the
models held out; trials, pools and held-out models the same for every strategy and estimator): every estimator
fitted on the seen models only, each held-out model ranked among the seen models from its scores on the subset.
Prints per k: the mean absolute error of the predicted rank (slot among the seen models, mean over the held-out
models, then over the trials), the median Spearman rho of the predicted and true full-benchmark win shares of the
held-out models, the mean coverage of the interval at --level, and the Holm-adjusted one-sided paired Wilcoxon
p-value of the rank error against the paper's unweighted mean (``mean``) on the same subsets.  Two more rows:
the subset and estimator chosen together by inner cross-validation (of every strategy x estimator, the one with
the least leave-one-model-out error on the seen models, per trial), and, for reference, the protocol's own rho of
the paper's R_S (the held-out models ranked among themselves, ``model_holdout_trials``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from selection_baselines import prepare  # noqa: E402

from benchdesign.selection.estimators import ESTIMATORS, estimator_holdout_trials  # noqa: E402
from benchdesign.selection.options import ESTIMATOR_LEVEL, HOLDOUT_FRACTION, SELECT_STRATEGY  # noqa: E402
from benchdesign.selection.protocol import model_holdout_trials  # noqa: E402
from benchdesign.selection.statistics import holm, paired_wilcoxon  # noqa: E402
from benchdesign.workflow.config import domain_protocol  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
APRIORI = {"nlp": "metadata", "recsys": "interaction"}
ESTIMATOR_ROWS = (*ESTIMATORS, "auto")


def domain_frames(data: dict, rep: str, args, options: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(estimator trials of every strategy, the paper's held-out rho of every strategy) of one domain."""
    frames, paper = [], []
    options = {**options, "strata": data["strata"]}
    for strategy in args.strategies:
        X = data["reps"][rep]
        start = time.process_time()
        frames.append(estimator_holdout_trials(
            data["cube"], data["higher"], X, strategy, args.ks, args.trials, 0.8, args.seed,
            holdout_fraction=args.holdout_fraction, level=args.level, options=options,
        ).assign(strategy=strategy))
        rho = model_holdout_trials(data["cube"], data["higher"], X, strategy, args.ks, args.trials, 0.8, args.seed,
                                   holdout_fraction=args.holdout_fraction, options=options)
        paper.append(rho[rho["metric"] == "spearman"].assign(strategy=strategy))
        print(f"# {strategy}/{rep}: {time.process_time() - start:.1f} CPU-s", file=sys.stderr, flush=True)
    return pd.concat(frames, ignore_index=True), pd.concat(paper, ignore_index=True)


def inner_cv(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (trial, k): the metrics of the (strategy, estimator) with the least leave-one-model-out error."""
    wide = frame[frame["estimator"].isin(list(ESTIMATORS))].pivot_table(
        index=["trial", "k", "strategy", "estimator"], columns="metric", values="value").reset_index()
    best = wide.loc[wide.groupby(["trial", "k"])["loo_mae"].idxmin()]
    return best.assign(strategy="inner CV", estimator=best["strategy"] + "/" + best["estimator"])


def table(frame: pd.DataFrame, paper: pd.DataFrame, ks, name: str) -> list[str]:
    """Markdown rows of one domain."""
    wide = frame.pivot_table(index=["strategy", "estimator", "k", "trial"], columns="metric",
                             values="value").reset_index()
    lines = []
    pvalues = {}
    for k in ks:  # one-sided paired Wilcoxon of the rank error against the same subsets' mean, Holm over the rows
        tested, raw = [], []
        for (strategy, estimator), block in wide[wide["k"] == k].groupby(["strategy", "estimator"], sort=False):
            if estimator == "mean":
                continue
            base = wide[(wide["k"] == k) & (wide["strategy"] == strategy) & (wide["estimator"] == "mean")]
            raw.append(paired_wilcoxon(block.sort_values("trial")["rank_mae"].to_numpy(),
                                       base.sort_values("trial")["rank_mae"].to_numpy(), False))
            tested.append((strategy, estimator))
        pvalues[k] = dict(zip(tested, holm(raw))) if raw else {}
    for strategy in frame["strategy"].unique():
        for estimator in ESTIMATOR_ROWS:
            cells = []
            for k in ks:
                block = wide[(wide["k"] == k) & (wide["strategy"] == strategy) & (wide["estimator"] == estimator)]
                p = pvalues[k].get((strategy, estimator))
                cells += [f"{block['rank_mae'].mean():.2f}", f"{block['spearman'].median():.3f}",
                          f"{block['coverage'].mean():.2f}", "—" if p is None else f"{p:.2g}"]
            lines.append(f"| {name} | {strategy} | {estimator} | " + " | ".join(cells) + " |")
        cells = []
        for k in ks:
            rho = paper[(paper["strategy"] == strategy) & (paper["k"] == k)]["value"]
            cells += ["—", f"{rho.median():.3f}", "—", "—"]
        lines.append(f"| {name} | {strategy} | paper's R_S (held-out models among themselves) | " + " | ".join(cells)
                     + " |")
    chosen = inner_cv(frame)
    cells = []
    for k in ks:
        block = chosen[chosen["k"] == k]
        cells += [f"{block['rank_mae'].mean():.2f}", f"{block['spearman'].median():.3f}",
                  f"{block['coverage'].mean():.2f}", "—"]
    picks = chosen["estimator"].value_counts(normalize=True)
    lines.append(f"| {name} | inner CV: subset and estimator with the least LOO error on the seen models | "
                 + ", ".join(f"{p} {s:.0%}" for p, s in picks.head(3).items()) + " | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--config", default=str(REPO / "config/config.yaml"))
    parser.add_argument("--domains", nargs="+", default=["nlp"], choices=list(APRIORI))
    parser.add_argument("--strategies", nargs="+", default=["random", SELECT_STRATEGY])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--ks", nargs="+", type=int, default=[5, 10])
    parser.add_argument("--holdout-fraction", type=float, default=HOLDOUT_FRACTION)
    parser.add_argument("--level", type=float, default=ESTIMATOR_LEVEL)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = yaml.safe_load(Path(args.config).read_text())
    cells = " | ".join(f"rank error k={k} | median ρ k={k} | coverage k={k} | p vs mean k={k}" for k in args.ks)
    print(f"| domain | strategy | estimator | {cells} |")
    print("|---|---|---|" + "---|" * 4 * len(args.ks))
    with tempfile.TemporaryDirectory() as cache:
        for name in args.domains:
            data = prepare(name, config, args.mirror, Path(cache), None)
            frame, paper = domain_frames(data, APRIORI[name], args, domain_protocol(config, name)["options"])
            n, _, M = data["cube"].shape
            print(f"# {name}: {n} datasets x {M} models", file=sys.stderr)
            print("\n".join(table(frame, paper, args.ks, name)), flush=True)


if __name__ == "__main__":
    main()
