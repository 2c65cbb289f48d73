#!/usr/bin/env python
"""Draw the pictures of the documentation site into docs/img/ from tiny inputs, with the library's own code.

* ``selection_curves.png``: ``evaluate_benchmark`` on a small synthetic benchmark (section 6.4's generator:
  30 datasets, 8 models; an informative and a weak representation), drawn by ``plot_curves``;
* ``cd_diagram.png``: the critical-difference diagram of that benchmark's models (``plot_critical_difference``);
* ``split_example.png``: 200 points in 8 groups split 80/20 at random and by ``LeakageSplit`` (task S1), with
  the scaled leakage L(pi) of each split;
* ``rulegraph.png``: the rule graph of the pipeline's main job (``snakemake --rulegraph`` with
  ``config/config.yaml``, drawn by Graphviz ``dot``); left as it is when ``dot`` or Snakemake is missing.

Deterministic (fixed seeds); runs in well under a minute on one core::

    python scripts/dev/make_doc_figures.py            # from the repository root
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
SEED = 0


def synthetic_benchmark() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Long scores (lower is better) and two feature tables of a small synthetic benchmark."""
    from benchdesign.selection.synthetic import SyntheticSettings, make_benchmark

    settings = SyntheticSettings(n_datasets=30, n_models=8, n_folds=3, d_rep=8)
    bench = make_benchmark(settings, np.random.default_rng(SEED))
    n, n_folds, n_models = bench.scores.shape
    datasets = [f"dataset_{i:02d}" for i in range(n)]
    models = [f"model_{j}" for j in range(n_models)]
    scores = pd.DataFrame([(datasets[i], models[j], f, float(bench.scores[i, f, j]))
                           for i in range(n) for f in range(n_folds) for j in range(n_models)],
                          columns=["dataset", "model", "fold", "score"])
    features = {name: pd.DataFrame(bench.representations[regime], index=datasets)
                for name, regime in (("informative", "oracle"), ("weak", "broken"))}
    return scores, features


def selection_figures(out: Path) -> list[Path]:
    from benchdesign.selection import dataset_scores, evaluate_benchmark, plot_critical_difference
    from benchdesign.selection.plotting import plot_curves, write_figure

    scores, features = synthetic_benchmark()
    result = evaluate_benchmark(scores, features, higher_is_better=False,
                                strategies=["random", "kmeans", "fafi_euclidean"], n_trials=20,
                                ks=range(2, 13), random_state=SEED, variation="dataset_pool", name="synthetic")
    curves = out / "selection_curves.png"
    write_figure(plot_curves(result.frames["curves"], "synthetic", metrics=("mae", "spearman", "kendall"),
                             domain_label="a synthetic benchmark (30 datasets, 8 models)"), curves, dpi=110)
    cd = out / "cd_diagram.png"
    write_figure(plot_critical_difference(dataset_scores(scores), False,
                                          "synthetic benchmark: all 30 datasets"), cd, dpi=110)
    return [curves, cd]


def split_figure(out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from benchdesign.selection.plotting import write_figure
    from benchdesign.splitting import LeakageSplit, VectorSimilarity
    from benchdesign.splitting.leakage import scaled_leakage

    rng = np.random.default_rng(SEED)
    centres = rng.uniform(-6, 6, size=(8, 2))
    X = np.concatenate([c + rng.normal(0, 0.6, size=(25, 2)) for c in centres])
    similarity = VectorSimilarity(X, metric="euclidean")
    random_folds = np.zeros(len(X), dtype=int)
    random_folds[rng.choice(len(X), size=len(X) // 5, replace=False)] = 1
    splitter = LeakageSplit((0.8, 0.2), similarity=similarity, clusters=8, random_state=SEED)
    next(splitter.split(X))
    fig = Figure(figsize=(9, 4.2), layout="constrained")
    for ax, folds, title in zip(fig.subplots(1, 2), (random_folds, splitter.folds_),
                                ("random split", "LeakageSplit (task S1)")):
        for fold, colour, label in ((0, "#1f77b4", "train"), (1, "#d62728", "test")):
            ax.scatter(*X[folds == fold].T, s=14, color=colour, label=label)
        ax.set_title(f"{title}: scaled L(\u03c0) = {scaled_leakage(similarity, folds):.2f}")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.legend(loc="lower right", fontsize=8)
    fig.suptitle("200 points in 8 groups, split 80/20: the similarity between train and test")
    path = out / "split_example.png"
    write_figure(fig, path, dpi=110)
    return path


def rule_graph(out: Path) -> Path | None:
    dot, snakemake = shutil.which("dot"), shutil.which("snakemake")
    if dot is None or snakemake is None:
        print(f"rule graph skipped: {'Graphviz dot' if dot is None else 'snakemake'} not found", file=sys.stderr)
        return None
    graph = subprocess.run([snakemake, "--rulegraph"], cwd=REPO, capture_output=True, text=True,
                           check=True).stdout
    graph = graph[graph.index("digraph"):]  # Snakemake may print notes before the graph
    path = out / "rulegraph.png"
    subprocess.run([dot, "-Tpng", "-Gdpi=80", "-o", str(path)], input=graph, text=True, check=True)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img", help="folder of the PNGs")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    written = [*selection_figures(args.out), split_figure(args.out), rule_graph(args.out)]
    for path in written:
        if path is not None:
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
