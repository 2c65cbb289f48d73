"""How hard each split of a drug-target dataset is, read against the spread of its own test labels.

A raw RMSE compares splits by their test labels as much as by the models: a split whose test fold holds a few
promiscuous drugs has more spread labels, so any model's RMSE is higher there. This script reads a finished run of
the molecular experiments (``results/`` of ``snakemake ... molecules``) and prints, per split method of each 2-D
dataset (mean over repeats):

- the test fold: pairs, distinct drugs and targets, the mean and standard deviation of its labels, the share of
  labels at the dataset's floor (DAVIS: pKd 5, Kd >= 10 uM, "no binding measured");
- ``no skill``: the RMSE of predicting every test pair with the training fold's mean label
  (:func:`benchdesign.molexp.scoring.no_skill_score`, recomputed here from the split files, so runs from before
  the column existed can be read too);
- each model's RMSE and its RMSE divided by the no-skill RMSE (1.0 = the model learned nothing that carries
  over to the test fold; the lower the better), and which split is the hardest for each model on either measure.

    python benchmarks/pair_difficulty.py --results results --datasets davis kiba
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.molexp.experiment import read_folds
from benchdesign.molexp.scoring import no_skill_score


def split_rows(results: Path, dataset: str) -> pd.DataFrame:
    """One row per (split method, repeat): the test fold's make-up and its no-skill RMSE."""
    root = results / "molecules" / dataset
    samples = pd.read_csv(root / "samples.csv", dtype={"id": str, "drug_id": str, "target_id": str})
    labels = samples["label"].to_numpy(dtype=float)
    floor = labels.min()
    rows = []
    for path in sorted((root / "splits").glob("*/*.tsv")):
        folds = read_folds(path, samples["id"].tolist())
        train, test = folds == 0, folds == 1
        if not train.any() or not test.any():
            continue
        rows.append({"split_method": path.parent.name, "repeat": int(path.stem), "n_test": int(test.sum()),
                     "test_drugs": samples.loc[test, "drug_id"].nunique(),
                     "test_targets": samples.loc[test, "target_id"].nunique(),
                     "test_mean": labels[test].mean(), "test_sd": labels[test].std(ddof=1),
                     "test_at_floor": float(np.mean(labels[test] == floor)),
                     "no_skill": no_skill_score("rmse", labels[train], labels[test])})
    return pd.DataFrame(rows)


def difficulty_table(results: Path, dataset: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(make-up and RMSE per split method, RMSE / no-skill per split method and model), means over repeats."""
    splits = split_rows(results, dataset)
    perf = pd.read_csv(results / "tables" / "split_performance.csv")
    perf = perf[(perf["dataset"] == dataset) & (perf["metric"] == "rmse")]
    scored = perf.merge(splits[["split_method", "repeat", "no_skill"]], on=["split_method", "repeat"])
    scored["relative"] = scored["value"] / scored["no_skill"]
    rmse = scored.pivot_table(index="split_method", columns="model", values="value", aggfunc="mean")
    relative = scored.pivot_table(index="split_method", columns="model", values="relative", aggfunc="mean")
    makeup = splits.groupby("split_method").mean(numeric_only=True).drop(columns="repeat")
    return makeup.join(rmse.add_prefix("rmse "), how="left"), relative


def hardest(table: pd.DataFrame) -> pd.Series:
    """The split method with the highest value per column (per model)."""
    return table.idxmax(axis=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=Path("results"), help="the run's results/ folder")
    parser.add_argument("--datasets", nargs="+", default=["davis", "kiba"])
    args = parser.parse_args()
    for dataset in args.datasets:
        if not (args.results / "molecules" / dataset / "splits").is_dir():
            print(f"{dataset}: no splits under {args.results / 'molecules' / dataset}; skipped")
            continue
        makeup, relative = difficulty_table(args.results, dataset)
        rmse = makeup[[c for c in makeup.columns if c.startswith("rmse ")]]
        print(f"\n## {dataset}: the test folds and the models' RMSE (mean over repeats)\n")
        print(makeup.round(3).to_markdown())
        print(f"\n## {dataset}: RMSE / no-skill RMSE (1 = nothing learned carries over)\n")
        print(relative.round(3).to_markdown())
        print("\nhardest split by RMSE:          ", dict(hardest(rmse).rename(lambda c: c[5:])))
        print("hardest split by RMSE / no skill:", dict(hardest(relative)))


if __name__ == "__main__":
    main()
