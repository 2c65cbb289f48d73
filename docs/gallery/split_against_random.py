"""A leakage-reduced split against random splits of the same sizes, on the 200 example molecules.

For every test molecule, its Tanimoto similarity (ECFP4) to the most similar training molecule: the summand of the
paper's leakage (DataSAIL, eq. 1). A split by `LeakageSplit` (task S1) against 20 random 80/20 splits.
Run: ``python docs/gallery/split_against_random.py [OUT_DIR]`` (writes split_against_random.png).
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from benchdesign.examples import example_file  # noqa: E402
from benchdesign.splitting import LeakageSplit, build_similarity, max_train_similarity  # noqa: E402

out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
mols = pd.read_csv(example_file("mols.csv"))
similarity = build_similarity(mols["smiles"].tolist())            # Tanimoto of ECFP4, computed once
split = LeakageSplit([0.8, 0.2], ["train", "test"], similarity=similarity, random_state=0)
train, test = next(split.split(mols))                             # one (train, test) pair of row indices
folds = np.array(["train"] * len(mols), dtype=object)
folds[test] = "test"
ours = max_train_similarity(similarity, folds, "test", "train")

rng = np.random.default_rng(0)
n_test = len(test)
random_runs = []
for _ in range(20):                                                # random splits of the same sizes
    folds = np.array(["train"] * len(mols), dtype=object)
    folds[rng.choice(len(mols), n_test, replace=False)] = "test"
    random_runs.append(max_train_similarity(similarity, folds, "test", "train"))
random_all = np.concatenate(random_runs)

fig, ax = plt.subplots(figsize=(6, 3.5))
bins = np.linspace(0, 1, 21)
ax.hist(random_all, bins=bins, density=True, alpha=0.5, label=f"20 random 80/20 splits (mean {random_all.mean():.2f})")
ax.hist(ours, bins=bins, density=True, histtype="step", linewidth=2,
        label=f"LeakageSplit, S1 (mean {ours.mean():.2f})")
ax.set_xlabel("test molecule: Tanimoto to its nearest training molecule")
ax.set_ylabel("density")
ax.legend(frameon=False)
fig.tight_layout()
fig.savefig(out / "split_against_random.png", dpi=120)
print(f"{n_test} test molecules; nearest-train Tanimoto, mean: LeakageSplit {ours.mean():.3f}, "
      f"random {random_all.mean():.3f} (20 splits); scaled leakage L(pi) of the split {split.scaled_leakage_:.3f}")
