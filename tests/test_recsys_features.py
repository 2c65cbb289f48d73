"""RecSys interaction-matrix features against values computed by hand on small tables."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchdesign.domains.recsys.features import FEATURE_NAMES, gini_coefficient, interaction_features


@pytest.fixture
def small():
    """Users a, b, c; items x, y, z; a rated all three, b rated x and y, c rated x."""
    return pd.DataFrame({"user": ["a", "a", "a", "b", "b", "c"],
                         "item": ["x", "y", "z", "x", "y", "x"],
                         "rating": [5, 4, 3, 2, 1, 5]})


def test_hand_computed_values(small):
    f = interaction_features(small)
    assert list(f.index) == list(FEATURE_NAMES)
    # sizes: U = I = 3, R = 6
    assert (f["Nu"], f["Ni"], f["Nr"], f["SpaceSize"]) == (3, 3, 6, 9)
    assert f["Shape"] == 1 and f["Density"] == pytest.approx(6 / 9)
    assert f["Rpu"] == 2 and f["Rpi"] == 2
    # counts 1, 2, 3 (ascending): 1 - 2 (3*1 + 2*2 + 1*3) / (4 * 6) = 1 - 20/24
    assert f["Ginii"] == pytest.approx(1 / 6) and f["Giniu"] == pytest.approx(1 / 6)
    # item popularity x 3/3, y 2/3, z 1/3; user bias a (1 + 2/3 + 1/3)/3 = 2/3, b 5/6, c 1
    assert f["APB"] == pytest.approx(5 / 6)
    assert f["StPB"] == pytest.approx(1 / 6)  # deviations -1/6, 0, 1/6, ddof 1
    assert f["SkPB"] == pytest.approx(0.0, abs=1e-12)
    assert f["KuPB"] == pytest.approx(-1.5)  # m4 / m2^2 - 3 = 1.5 - 3
    # head/tail: cumulative shares x 3/6, y 5/6 > 0.8 -> long tail = {y, z}
    # user long-tail shares a 2/3, b 1/2, c 0
    shares = np.array([2 / 3, 1 / 2, 0.0])
    d = shares - shares.mean()
    m2, m3, m4 = (d ** 2).mean(), (d ** 3).mean(), (d ** 4).mean()
    assert f["LTavg"] == pytest.approx(7 / 18)
    assert f["LTstd"] == pytest.approx(np.sqrt(39) / 18)
    assert f["LTsk"] == pytest.approx(m3 / m2 ** 1.5)
    assert f["LTsk"] == pytest.approx((-70 / 5832) / (26 / 324) ** 1.5)  # -0.52800
    assert f["LTku"] == pytest.approx(m4 / m2 ** 2 - 3)
    assert f["LTku"] == pytest.approx(-1.5)


def test_invariant_to_row_order_ids_and_ratings(small):
    f = interaction_features(small)
    shuffled = small.sample(frac=1.0, random_state=0).reset_index(drop=True)
    renamed = shuffled.assign(user=shuffled["user"].map({"a": 10, "b": 20, "c": 30}),
                              item=shuffled["item"].map({"x": "i1", "y": "i2", "z": "i3"}),
                              rating=1.0)
    pd.testing.assert_series_equal(interaction_features(renamed), f)
    pd.testing.assert_series_equal(interaction_features(small.drop(columns="rating")), f)


def test_duplicate_rows_count_as_interactions():
    t = pd.DataFrame({"user": ["a", "a", "b"], "item": ["x", "x", "y"]})
    f = interaction_features(t)
    assert f["Nr"] == 3 and f["Nu"] == 2 and f["Ni"] == 2 and f["Rpu"] == 1.5
    # item popularity counts distinct users: x 1/2, y 1/2; user a's rows (x, x) -> 1/2
    assert f["APB"] == pytest.approx(0.5) and f["StPB"] == 0.0
    assert np.isnan(f["SkPB"]) and np.isnan(f["KuPB"])  # constant popularity bias
    # counts x 2, y 1; shares 2/3 then 1 > 0.8 -> long tail = {y}; a 0, b 1 (distinct items)
    assert f["LTavg"] == pytest.approx(0.5)
    assert f["LTstd"] == pytest.approx(np.sqrt(0.5))


def test_ties_at_the_head_tail_boundary_break_by_item_id():
    # counts: p 2, q 2, r 1 (R = 5): shares 0.4, 0.8 (not > 0.8), 1.0 -> long tail = {r} whatever the order
    t = pd.DataFrame({"user": [1, 2, 1, 2, 3], "item": ["q", "q", "p", "p", "r"]})
    f = interaction_features(t)
    assert f["LTavg"] == pytest.approx(1 / 3)  # users 1, 2: 0; user 3: 1
    # counts: m 1, n 1 (R = 2): shares 0.5, 1.0 -> head = {m} (smaller id first), tail = {n}
    t = pd.DataFrame({"user": ["u", "v"], "item": ["n", "m"]})
    f = interaction_features(t)
    assert f["LTavg"] == pytest.approx(0.5)
    assert interaction_features(t.iloc[::-1])["LTavg"] == pytest.approx(0.5)


def test_gini_coefficient():
    assert gini_coefficient([5, 5, 5, 5]) == pytest.approx(0.0)
    assert gini_coefficient([3, 1, 2]) == pytest.approx(1 / 6)
    # one of n entries holds everything: 1 - 2 n / (n + 1) / n ... = (n - 1) / (n + 1)
    assert gini_coefficient([0, 0, 0, 7]) == pytest.approx(3 / 5)
    with pytest.raises(ValueError):
        gini_coefficient([])
    with pytest.raises(ValueError):
        gini_coefficient([0, 0])


def test_validation(small):
    with pytest.raises(ValueError, match="missing column"):
        interaction_features(small.rename(columns={"item": "movie"}))
    with pytest.raises(ValueError, match="empty"):
        interaction_features(small.iloc[:0])
    with pytest.raises(ValueError, match="missing user or item"):
        interaction_features(small.assign(user=[None, "a", "a", "b", "b", "c"]))
    with pytest.raises(TypeError):
        interaction_features(small.to_numpy())
    f = interaction_features(small.rename(columns={"user": "uid", "item": "iid"}), user="uid", item="iid")
    assert f["Nr"] == 6


@pytest.mark.mirror
def test_feature_names_match_the_published_table(mirror_dir):
    table = pd.read_csv(mirror_dir / "recsys" / "recsys_features_30x18.csv", index_col=0)
    assert list(table.columns) == list(FEATURE_NAMES)
    # the published sizes obey the definitions
    np.testing.assert_allclose(table["SpaceSize"], table["Nu"] * table["Ni"], rtol=1e-12)
    np.testing.assert_allclose(table["Density"], table["Nr"] / table["SpaceSize"], rtol=1e-9)
    np.testing.assert_allclose(table["Rpu"], table["Nr"] / table["Nu"], rtol=1e-9)
    assert ((table["Ginii"] > 0) & (table["Ginii"] < 1)).all()
