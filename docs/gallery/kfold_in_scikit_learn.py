"""`LeakageKFold` inside scikit-learn's `cross_validate`, against `KFold` with shuffling, on the example molecules.

The same random forest, the same 5 folds' sizes: per fold the ROC AUC on its test fold and the fold's leakage
(the mean nearest-training Tanimoto of its test molecules). Random folds leave near-duplicates on both sides and
read better than the model is on new chemistry. Run: ``python docs/gallery/kfold_in_scikit_learn.py [OUT_DIR]``.
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402
from sklearn.model_selection import KFold, cross_validate  # noqa: E402

from benchdesign.examples import example_file  # noqa: E402
from benchdesign.splitting import LeakageKFold, build_similarity, max_train_similarity, smiles_fingerprints  # noqa: E402

out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
mols = pd.read_csv(example_file("mols.csv"))
X, valid = smiles_fingerprints(mols["smiles"])
smiles, y = mols["smiles"][valid].tolist(), mols["active"][valid].to_numpy()
similarity = build_similarity(smiles)
model = RandomForestClassifier(n_estimators=200, random_state=0)
splitters = {"KFold(shuffle=True)": KFold(5, shuffle=True, random_state=0),
             "LeakageKFold": LeakageKFold(5, similarity=smiles, random_state=0)}  # SMILES: its split is reused below
results = {}
for name, cv in splitters.items():
    auc = cross_validate(model, X, y, cv=cv, scoring="roc_auc")["test_score"]
    leak = []
    for train, test in cv.split(X, y):
        folds = np.array(["other"] * len(y), dtype=object)
        folds[train], folds[test] = "train", "test"
        leak.append(max_train_similarity(similarity, folds, "test", "train").mean())
    results[name] = (auc, np.array(leak))

fig, ax = plt.subplots(figsize=(6, 4.2))
for (name, (auc, leak)), marker in zip(results.items(), "os"):
    ax.scatter(leak, auc, marker=marker, s=50, label=f"{name}: AUC {auc.mean():.2f}, leakage {leak.mean():.2f}")
ax.set_xlabel("fold leakage: mean nearest-train Tanimoto of its test molecules")
ax.set_ylabel("ROC AUC on the fold")
ax.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.18))
fig.tight_layout()
fig.savefig(out / "kfold_in_scikit_learn.png", dpi=120)
for name, (auc, leak) in results.items():
    print(f"{name}: ROC AUC per fold {np.round(auc, 3).tolist()}, leakage per fold {np.round(leak, 3).tolist()}")
