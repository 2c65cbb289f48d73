"""Subsets chosen from the datasets' features against random subsets of the same size, on the example MTEB scores.

For each k, the Spearman correlation between the models' mean ranks on the k chosen datasets and on all 56
(``rank_metrics``), for `select_datasets` (k-medoids on the tasks' metadata: a priori) and for 200 random subsets
(median and 5-95 % band). Run: ``python docs/gallery/select_against_random.py [OUT_DIR]``.
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from benchdesign.examples import example_file  # noqa: E402
from benchdesign.selection import mean_ranks, rank_metrics, rank_scores, select_datasets  # noqa: E402

out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
scores = pd.read_csv(example_file("scores.csv"))
features = pd.read_csv(example_file("features.csv")).set_index("dataset")
ranks = rank_scores(scores, higher_is_better=True)
features = features.loc[ranks.index]
full = mean_ranks(ranks.to_numpy())

ks = list(range(2, 16))
rows = {name: i for i, name in enumerate(ranks.index)}
rng = np.random.default_rng(0)
ours, band = [], []
for k in ks:
    subset = np.array([rows[d] for d in select_datasets(features, k, "kmedoids", random_state=0).datasets])
    ours.append(rank_metrics(mean_ranks(ranks.to_numpy(), subset), full)["spearman"])
    draws = [rank_metrics(mean_ranks(ranks.to_numpy(), rng.choice(len(rows), k, replace=False)), full)["spearman"]
             for _ in range(200)]
    band.append(np.nanpercentile(draws, [5, 50, 95]))
band = np.array(band)

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.fill_between(ks, band[:, 0], band[:, 2], alpha=0.25, label="200 random subsets: 5-95 %")
ax.plot(ks, band[:, 1], "--", label="random subsets: median")
ax.plot(ks, ours, "o-", label="k-medoids on the tasks' metadata (a priori)")
ax.set_xlabel("datasets in the subset, k")
ax.set_ylabel("Spearman ρ with the full ranking")
ax.legend(frameon=False, loc="lower right")
fig.tight_layout()
fig.savefig(out / "select_against_random.png", dpi=120)
print("k, k-medoids rho, random median rho: " + "; ".join(f"{k} {o:.2f} {m:.2f}" for k, o, m in zip(ks, ours, band[:, 1])))
