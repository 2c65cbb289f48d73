"""Real MoleculeNet data from the mirror (skipped when the mirror is absent)."""

from __future__ import annotations

import numpy as np
import pytest

from benchdesign.splitting.ilp import lower_bounds
from benchdesign.splitting.inputs import entities_from_table, read_table
from benchdesign.splitting.leakage import leakage_summary, max_train_similarity
from benchdesign.splitting.tasks import SplitSpec, split_entities

pytestmark = pytest.mark.mirror


def test_esol_s1_beats_random_and_report_is_exact(mirror_csv):
    df = read_table(mirror_csv("delaney.csv"))
    ent = entities_from_table(df, smiles_col="smiles", drop_invalid=True)
    spec = SplitSpec(clusters=30, micro_clusters=300, seed=0)
    s1 = split_entities("S1", ent, spec)
    r = split_entities("R", ent, spec)
    exact_s1, exact_r = leakage_summary(ent.similarity, [s1.fold[ent.valid], r.fold[ent.valid]])
    assert exact_s1.scaled == pytest.approx(s1.report["scaled_leakage"], rel=1e-4)
    assert exact_s1.scaled < exact_r.scaled - 0.05
    sizes = np.bincount(s1.fold[s1.fold >= 0])
    assert np.all(sizes >= lower_bounds(sizes.sum(), np.array(spec.fractions), spec.epsilon))
    folds = s1.labels()[ent.valid]
    assert max_train_similarity(ent.similarity, folds, "test", "train").mean() < \
        max_train_similarity(ent.similarity, r.labels()[ent.valid], "test", "train").mean()


def test_bbbp_stratified_s1(mirror_csv):
    df = read_table(mirror_csv("bbbp.csv"))
    ent = entities_from_table(df, smiles_col="smiles", class_cols=["p_np"], drop_invalid=True)
    spec = SplitSpec(clusters=20, epsilon=0.1, delta=0.1, seed=1)
    res = split_entities("S1", ent, spec)
    for c in range(ent.classes.shape[1]):
        member = ent.classes[:, c] & (res.fold >= 0)
        per = np.bincount(res.fold[member], minlength=2)
        assert np.all(per >= lower_bounds(per.sum(), np.array(spec.fractions), spec.delta))
