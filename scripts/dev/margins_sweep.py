#!/usr/bin/env python
"""The Fig. 6c margins sweep (epsilon x delta, S1 on ``molecules.ablation.margins_dataset``) in one process,
through the calls of rule mol_ablation_point (scripts/mol_ablation_point.py) without Snakemake, then the
scaled L(pi) over epsilon x delta and how much each margin moves it (docs/paper-differences.md, "Fig. 6c: ε and δ")::

    python scripts/dev/margins_sweep.py --mirror ../shared/data --out margins.csv
    python scripts/dev/margins_sweep.py --mirror ../shared/data --out margins_paper.csv --set fraction_tolerance=null

``--set KEY=VALUE`` (YAML values) overrides one option of the config's ``molecules.ilp``; ``--epsilons`` and
``--deltas`` replace the sweep's grid. Runs one split per grid point (repeat 0, the pipeline's seed).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
import yaml

from benchdesign.molexp.datasets import dataset_info, load_molecules, subsample_rows
from benchdesign.molexp.experiment import experiment_from_molecules, run_molecule_split
from benchdesign.molexp.features import molecule_fingerprints
from benchdesign.molexp.settings import ablation_points, mol_settings

REPO = Path(__file__).resolve().parents[2]


def sweep(config: dict, mirror: Path) -> pd.DataFrame:
    """One row per margins point: epsilon, delta, scaled L(pi), the test fold's share and the split's report."""
    settings = mol_settings(config)
    points = ablation_points(settings)["margins"]
    first = next(iter(points.values()))
    info = dataset_info(first["dataset"])
    table, _ = load_molecules(info, mirror / info.files[0])
    table = table.iloc[subsample_rows(len(table), first["max_molecules"], config["seed"])].reset_index(drop=True)
    data = experiment_from_molecules(info, table, molecule_fingerprints(table["smiles"].tolist()))
    print(f"{info.name}: {len(table)} molecules, ilp {first['options']['ilp']}", flush=True)
    rows = []
    for name, point in points.items():
        folds, record = run_molecule_split(data, point["method"], 0, settings["fractions"], config["seed"],
                                           point["options"])
        rows.append({"point": name, "epsilon": point["epsilon"], "delta": point["delta"],
                     "scaled_leakage": record["scaled_leakage"], "test_share": record["n_test"] / len(folds),
                     "seconds": record["seconds"], "status": record["status"], **record["report"]})
        print(json.dumps({k: rows[-1][k] for k in ("point", "scaled_leakage", "test_share", "status")}), flush=True)
    return pd.DataFrame(rows)


def effects(table: pd.DataFrame) -> str:
    """Scaled L(pi) and test share over epsilon x delta; the range of L(pi) across epsilon at each delta and
    across delta at each epsilon, over the whole grid and over the cells with epsilon <= delta (the only ones the
    paper's plotting code, DataSAIL's experiments/ablation/visualize_de.py, fills)."""
    grid = table.pivot(index="epsilon", columns="delta", values="scaled_leakage")
    share = table.pivot(index="epsilon", columns="delta", values="test_share")
    lines = [f"scaled L(pi), rows epsilon, columns delta\n{grid.round(4).to_string()}",
             f"test fold share\n{share.round(4).to_string()}"]
    upper = grid.index.values[:, None] <= grid.columns.values[None, :]
    for label, cells in (("all cells", grid), ("epsilon <= delta", grid.where(upper))):
        across_eps = (cells.max(axis=0) - cells.min(axis=0))[cells.count(axis=0) > 1]
        across_delta = (cells.max(axis=1) - cells.min(axis=1))[cells.count(axis=1) > 1]
        lines.append(f"{label}: range across epsilon at fixed delta mean {across_eps.mean():.4f} "
                     f"max {across_eps.max():.4f}; across delta at fixed epsilon mean {across_delta.mean():.4f} "
                     f"max {across_delta.max():.4f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=REPO / "config" / "config.yaml")
    parser.add_argument("--mirror", type=Path, required=True, help="data mirror (data/sources.yaml layout)")
    parser.add_argument("--out", type=Path, required=True, help="CSV of the points")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a molecules.ilp option")
    parser.add_argument("--epsilons", type=float, nargs="+")
    parser.add_argument("--deltas", type=float, nargs="+")
    args = parser.parse_args(argv)
    config = yaml.safe_load(args.config.read_text())
    molecules = config.setdefault("molecules", {})
    molecules["ilp"] = {**(molecules.get("ilp") or {}),
                        **{k: yaml.safe_load(v) for k, v in (item.split("=", 1) for item in args.set)}}
    ablation = molecules.setdefault("ablation", {})
    for key in ("epsilons", "deltas"):
        if getattr(args, key):
            ablation[key] = getattr(args, key)
    table = sweep(config, args.mirror)
    table.to_csv(args.out, index=False)
    print(effects(table))


if __name__ == "__main__":
    main()
