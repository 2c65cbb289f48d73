"""Held-out designs (selection.heldout): cross-fitting judges every model once and never by a selection that saw
it; family hold-out keeps families whole; the random design is the model-holdout variation's."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import rankdata, spearmanr

from benchdesign.domains.nlp.families import mteb_model_families
from benchdesign.selection.heldout import (
    crossfit_folds,
    family_split,
    heldout_fits,
    heldout_selections,
    heldout_splits,
    heldout_trials,
)
from benchdesign.selection.protocol import model_holdout_trials

RNG = np.random.default_rng(5)
CUBE = np.linspace(0, 1, 9)[None, None, :] + 0.6 * RNG.normal(size=(14, 2, 9))  # 14 datasets, 2 folds, 9 models
X = RNG.normal(size=(14, 3))
FAMILIES = ["a", "a", "a", "b", "b", "c", "d", "d", "e"]
INFORMED = [
    ("kmeans", None, False),
    ("backward_elimination", None, False),
    ("kmedoids", X, True),
    ("mutual_information", X, True),
]


def _selections(cube, strategy, rep, seen, **design):
    return [
        (
            t,
            pool.tolist(),
            [(judged.tolist(), [{k: v.tolist() for k, v in d.items()} for d in by_draw]) for judged, by_draw in splits],
        )
        for t, pool, splits in heldout_selections(cube, True, rep, strategy, [2, 4], 4, 0.8, 7, with_seen_ranks=seen, **design)
    ]


def test_crossfit_folds_partition_the_models():
    folds = crossfit_folds(9, 3, np.random.default_rng(0))
    assert sorted(np.concatenate(folds).tolist()) == list(range(9))
    assert [len(f) for f in folds] == [3, 3, 3]
    with pytest.raises(ValueError, match="n_folds=10"):
        crossfit_folds(9, 10, np.random.default_rng(0))


def test_crossfit_folds_keep_families_whole():
    for seed in range(20):
        folds = crossfit_folds(9, 3, np.random.default_rng(seed), FAMILIES)
        assert sorted(np.concatenate(folds).tolist()) == list(range(9))
        owner = {m: i for i, fold in enumerate(folds) for m in fold}
        for family in set(FAMILIES):
            members = [m for m, f in enumerate(FAMILIES) if f == family]
            assert len({owner[m] for m in members}) == 1, (seed, family)
        # largest family first to the emptiest fold: a (3), b and d (2 each) open the three folds
        assert sorted(len(f) for f in folds) in ([3, 3, 3], [2, 3, 4])


def test_family_split_holds_out_whole_families_and_enough_models():
    for seed in range(20):
        held = family_split(FAMILIES, 3, np.random.default_rng(seed))
        assert len(held) >= 3
        families = {FAMILIES[m] for m in held}
        assert sorted(held.tolist()) == [m for m, f in enumerate(FAMILIES) if f in families]
    with pytest.raises(ValueError, match="no model seen"):
        family_split(["a", "a", "b"], 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="families"):
        heldout_splits(9, "family", np.random.default_rng(0))


def test_family_design_judges_no_sibling_of_a_seen_model():
    for _, _, splits in heldout_selections(CUBE, True, X, "kmedoids", [2], 6, 0.8, 1, design="family", families=FAMILIES):
        ((judged, _),) = splits
        seen = np.setdiff1d(np.arange(9), judged)
        assert len(judged) >= 2
        assert not {FAMILIES[m] for m in judged} & {FAMILIES[m] for m in seen}


@pytest.mark.parametrize("strategy,rep,seen", INFORMED)
def test_crossfit_judges_every_model_once_by_a_selection_that_never_saw_it(strategy, rep, seen):
    """Poisoning: change the scores of one fold's models; that fold's selection and fits stay the same."""
    plain = _selections(CUBE, strategy, rep, seen, design="crossfit", n_folds=3)
    fits = list(
        heldout_fits(
            CUBE,
            True,
            rep,
            strategy,
            [2, 4],
            4,
            0.8,
            7,
            ("ridge", "anchor", "gaussian"),
            design="crossfit",
            n_folds=3,
            with_seen_ranks=seen,
        )
    )
    changed_elsewhere = 0
    for t, _, splits in plain:
        assert sorted(m for judged, _ in splits for m in judged) == list(range(9))  # each model judged once
        for f, (judged, chosen) in enumerate(splits):
            poisoned = CUBE.copy()
            poisoned[:, :, judged] = RNG.normal(scale=100.0, size=poisoned[:, :, judged].shape)
            again = _selections(poisoned, strategy, rep, seen, design="crossfit", n_folds=3)[t][2]
            assert again[f] == (judged, chosen)
            changed_elsewhere += sum(again[g][1] != splits[g][1] for g in range(3) if g != f)
            refits = [
                row
                for row in heldout_fits(
                    poisoned,
                    True,
                    rep,
                    strategy,
                    [2, 4],
                    4,
                    0.8,
                    7,
                    ("ridge", "anchor", "gaussian"),
                    design="crossfit",
                    n_folds=3,
                    with_seen_ranks=seen,
                )
                if row[0] == t and row[1] == f
            ]
            before = [row for row in fits if row[0] == t and row[1] == f]
            for old, new in zip(before, refits, strict=True):
                for name in ("ridge", "anchor", "gaussian"):
                    np.testing.assert_allclose(new[6][name].weights, old[6][name].weights)
                    np.testing.assert_allclose(new[6][name].intercept, old[6][name].intercept)
    assert changed_elsewhere > 0  # the check can fail: the other folds' selections saw the poisoned models


def test_crossfit_rank_rho_pools_the_folds():
    """Independent computation with scipy: each model's mean rank (among all 9) over its own fold's subset."""
    frame = heldout_trials(CUBE, True, X, "kmedoids", [2, 4], 4, 0.8, 7, readings=["rank"], design="crossfit", n_folds=3)
    ranks = np.mean([[rankdata(-CUBE[d, f]) for f in range(2)] for d in range(14)], axis=1)  # (14, 9)
    for t, _, splits in heldout_selections(CUBE, True, X, "kmedoids", [2, 4], 4, 0.8, 7, design="crossfit", n_folds=3):
        for k in (2, 4):
            r_s = np.empty(9)
            for judged, by_draw in splits:
                r_s[judged] = ranks[by_draw[0][k]].mean(axis=0)[judged]
            expected = spearmanr(r_s, ranks.mean(axis=0)).statistic
            got = frame[(frame["trial"] == t) & (frame["k"] == k)]
            assert got["n_judged"].item() == 9
            assert got["rho"].item() == pytest.approx(expected)


def test_random_design_is_the_model_holdout_variation():
    for strategy, rep in [("kmedoids", X), ("random", X), ("kmeans", None)]:
        ours = heldout_trials(CUBE, True, rep, strategy, [2, 4], 5, 0.8, 3, readings=["rank"], random_draws=3)
        theirs = model_holdout_trials(CUBE, True, rep, strategy, [2, 4], 5, 0.8, 3, random_draws=3)
        theirs = theirs[theirs["metric"] == "spearman"]
        keys = [c for c in ("trial", "draw", "k") if c in theirs]
        np.testing.assert_allclose(
            ours.sort_values(["trial", "draw", "k"])["rho"].to_numpy(), theirs.sort_values(keys)["value"].to_numpy()
        )


def test_estimator_readings_only_on_the_first_draws():
    frame = heldout_trials(
        CUBE,
        True,
        X,
        "random",
        [2],
        2,
        0.8,
        0,
        readings=["rank", "mean"],
        random_draws=4,
        estimator_draws=1,
        design="crossfit",
        n_folds=3,
    )
    counts = frame.groupby("reading").size().to_dict()
    assert counts == {"rank": 2 * 4, "mean": 2 * 1}


def test_mteb_families_from_names():
    names = ["Glove", "SGPT-125M-nli", "SGPT-5.8B-msmarco", "GTR-XL", "Ada Similarity", "MiniLM-L12-multilingual", "MiniLM-L6"]
    assert mteb_model_families(names) == ["Glove", "SGPT", "SGPT", "GTR", "Ada Similarity", "MiniLM", "MiniLM"]
    with pytest.raises(ValueError, match="non-empty"):
        mteb_model_families([""])


MTEB_MODELS = [
    "Glove", "Komninos", "BERT", "SimCSE-BERT-unsup", "SimCSE-BERT-sup", "coCondenser-msmarco", "Contriever", "SPECTER",
    "LaBSE", "LASER2", "MiniLM-L6", "MiniLM-L12", "MiniLM-L12-multilingual", "MPNet", "MPNet-multilingual",
    "Ada Similarity", "SGPT-125M-nli", "SGPT-5.8B-nli", "SGPT-125M-msmarco", "SGPT-1.3B-msmarco", "SGPT-2.7B-msmarco",
    "SGPT-5.8B-msmarco", "SGPT-BLOOM-7.1B-msmarco", "GTR-Base", "GTR-Large", "GTR-XL", "GTR-XXL", "ST5-Base",
    "ST5-Large", "ST5-XL", "ST5-XXL",
]  # MTEB Table 11's 31 models, in the mirror's order


def test_mteb_coarse_families_by_hand():
    from collections import Counter

    fine = Counter(mteb_model_families(MTEB_MODELS))
    coarse = Counter(mteb_model_families(MTEB_MODELS, coarse=True))
    assert len(fine) == 15
    # counted by hand: 4 GTR + 4 ST5; 3 MiniLM + 2 MPNet; BERT, 2 SimCSE-BERT, coCondenser, Contriever, SPECTER,
    # LaBSE; the rest unchanged
    assert coarse == {"T5": 8, "MiniLM/MPNet": 5, "BERT": 7, "SGPT": 7, "Glove": 1, "Komninos": 1, "LASER2": 1,
                      "Ada Similarity": 1}
    assert mteb_model_families(["GTR-XL", "ST5-Base", "MPNet-multilingual", "Contriever", "LASER2"], coarse=True) == [
        "T5", "T5", "MiniLM/MPNet", "BERT", "LASER2"]
    # every coarse family is a union of fine ones
    pairs = set(zip(mteb_model_families(MTEB_MODELS), mteb_model_families(MTEB_MODELS, coarse=True)))
    assert len({f for f, _ in pairs}) == len(pairs)


def test_coarse_family_split_holds_out_whole_coarse_families():
    labels = mteb_model_families(MTEB_MODELS, coarse=True)
    for seed in range(20):
        held = family_split(labels, 9, np.random.default_rng(seed))
        held_families = {labels[i] for i in held}
        seen_families = {labels[i] for i in range(len(labels)) if i not in set(held.tolist())}
        assert held.size >= 9 and not held_families & seen_families
