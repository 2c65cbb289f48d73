import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr
from sklearn.metrics import ndcg_score

from benchdesign.selection.metrics import (
    METRIC_HIGHER_IS_BETTER,
    METRICS,
    kendall,
    mae,
    mrr,
    ndcg_at_k,
    ndcg_paper,
    rank_metrics,
    spearman,
)


def _relevance(r_d: np.ndarray, k: int) -> np.ndarray:
    """Independent relevance construction: loop over the stable reference order."""
    rel = np.zeros(len(r_d))
    for j, model in enumerate(sorted(range(len(r_d)), key=lambda i: (r_d[i], i)), start=1):
        rel[model] = max(0, k + 1 - j)
    return rel


def _random_pair(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    m = int(rng.integers(2, 41))
    kind = rng.integers(3)
    if kind == 0:  # mean ranks of a few datasets: coarse grid, many ties
        r_s = rng.integers(2, 2 * m + 1, m) / (2.0 * rng.integers(1, 4))
    elif kind == 1:
        r_s = rng.random(m)
    else:
        r_s = rng.integers(0, 3, m).astype(float)
    r_d = rng.integers(1, m + 1, m) / 2.0 if rng.random() < 0.5 else rng.random(m) * m
    return r_s, r_d


def test_keys_and_directions():
    assert METRICS == ("mae", "spearman", "kendall", "ndcg5", "mrr", "ndcg5_paper")
    assert set(METRIC_HIGHER_IS_BETTER) == set(METRICS)
    assert METRIC_HIGHER_IS_BETTER["mae"] is False
    assert all(METRIC_HIGHER_IS_BETTER[m] for m in METRICS if m != "mae")


def test_identical_and_reversed_rankings():
    r = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    same = rank_metrics(r, r)
    assert same == pytest.approx({"mae": 0.0, "spearman": 1.0, "kendall": 1.0, "ndcg5": 1.0,
                                  "mrr": 1.0, "ndcg5_paper": 1.0}, abs=1e-12)
    rev = rank_metrics(r[::-1].copy(), r)
    assert rev["spearman"] == pytest.approx(-1.0)
    assert rev["kendall"] == pytest.approx(-1.0)
    assert rev["mrr"] == pytest.approx(1 / 6)
    assert rev["mae"] == pytest.approx((5 + 3 + 1 + 1 + 3 + 5) / 6)


def test_ndcg_paper_against_sklearn_and_by_hand():
    rng = np.random.default_rng(11)
    for trial in range(300):
        m = int(rng.integers(2, 12))
        r_s = rng.integers(1, 4, m).astype(float) if trial % 2 else rng.random(m) * m  # ties too
        r_d = rng.integers(1, 4, m).astype(float) if trial % 3 == 0 else rng.random(m) * m
        expected = ndcg_score([r_d], [r_s], k=min(5, m))
        assert ndcg_paper(r_s, r_d) == pytest.approx(expected, abs=1e-12)
        assert rank_metrics(r_s, r_d)["ndcg5_paper"] == pytest.approx(expected, abs=1e-12)
    # By hand: relevance = reference mean ranks, order descending in r_s (worst model first).
    # r_d = [1, 2, 3]; r_s swaps the two best: order by r_s descending = models 2, 0, 1.
    # DCG = 3/log2(2) + 1/log2(3) + 2/log2(4); ideal = 3 + 2/log2(3) + 1/log2(4).
    dcg = 3 + 1 / np.log2(3) + 2 / 2
    ideal = 3 + 2 / np.log2(3) + 1 / 2
    assert ndcg_paper([2.0, 1.0, 3.0], [1.0, 2.0, 3.0]) == pytest.approx(dcg / ideal)
    # The paper's version rewards getting the worst model right, not the best one:
    r_d = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    best_wrong = np.array([3.0, 2.0, 1.0, 4.0, 5.0, 6.0, 7.0])
    assert ndcg_paper(best_wrong, r_d) > ndcg_at_k(best_wrong, r_d)
    with pytest.raises(ValueError, match="k=0"):
        ndcg_paper(r_s, r_d, k=0)


def test_hand_checked_mrr_with_ties():
    # winner = model 0 (ties in r_d -> lowest index); tied with model 2 in r_s, model 1 ahead
    r_d = np.array([1.0, 2.0, 1.0, 4.0])
    r_s = np.array([2.0, 1.0, 2.0, 3.0])
    assert mrr(r_s, r_d) == pytest.approx(1 / (1 + 1 + 0.5))
    assert mrr(np.array([1.0, 1.0, 1.0]), np.array([3.0, 1.0, 2.0])) == pytest.approx(1 / 2)
    assert mrr(np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])) == pytest.approx(1 / 3)


def test_hand_checked_ndcg():
    r_d = np.array([1.0, 2.0, 3.0])
    r_s = np.array([2.0, 1.0, 3.0])  # predicted order: model 1 (rel 1), model 0 (rel 2)
    expected = (1 / 1 + 2 / np.log2(3)) / (2 / 1 + 1 / np.log2(3))
    assert ndcg_at_k(r_s, r_d, k=2) == pytest.approx(expected)
    # a tie between the top two in r_s: both get the mean gain 1.5 over positions 1 and 2
    tie = (1.5 / 1 + 1.5 / np.log2(3)) / (2 / 1 + 1 / np.log2(3))
    assert ndcg_at_k(np.array([1.0, 1.0, 3.0]), r_d, k=2) == pytest.approx(tie)
    # top-5 relevances 5..1, a model outside the reference top-5 contributes nothing
    r_d7 = np.arange(7.0)
    assert ndcg_at_k(np.array([0, 1, 2, 3, 4, 6, 5.0]), r_d7) == 1.0


def test_hand_checked_spearman_kendall_mae():
    r_s = np.array([1.0, 2.0, 2.0, 4.0])
    r_d = np.array([1.0, 3.0, 2.0, 4.0])
    # pairs: (0,1)+ (0,2)+ (0,3)+ (1,2) tied in r_s, (1,3)+ (2,3)+ -> C=5, D=0, T_s=1, T_d=0
    assert kendall(r_s, r_d) == pytest.approx(5 / np.sqrt(5 * 6))
    # ranks (1, 2.5, 2.5, 4) vs (1, 3, 2, 4): centred (-1.5, 0, 0, 1.5) vs (-1.5, .5, -.5, 1.5)
    assert spearman(r_s, r_d) == pytest.approx(4.5 / np.sqrt(4.5 * 5.0))
    assert mae(r_s, r_d) == pytest.approx(0.25)


@pytest.mark.parametrize("seed", range(4))
def test_correlations_match_scipy_with_ties(seed):
    rng = np.random.default_rng(seed)
    for _ in range(250):
        r_s, r_d = _random_pair(rng)
        if np.ptp(r_s) == 0 or np.ptp(r_d) == 0:
            continue
        assert spearman(r_s, r_d) == pytest.approx(spearmanr(r_s, r_d).statistic, abs=1e-12)
        assert kendall(r_s, r_d) == pytest.approx(kendalltau(r_s, r_d).statistic, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_ndcg_matches_sklearn_with_ties(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(250):
        r_s, r_d = _random_pair(rng)
        k = int(rng.integers(1, 8))
        expected = ndcg_score([_relevance(r_d, k)], [-r_s], k=k)
        assert ndcg_at_k(r_s, r_d, k=k) == pytest.approx(expected, abs=1e-12)
        if k == 5:
            assert rank_metrics(r_s, r_d)["ndcg5"] == pytest.approx(expected, abs=1e-12)


def test_mrr_matches_explicit_average_position():
    rng = np.random.default_rng(7)
    for _ in range(300):
        r_s, r_d = _random_pair(rng)
        w = min(range(len(r_d)), key=lambda i: (r_d[i], i))
        better = sum(v < r_s[w] for v in r_s)
        tied = sum(v == r_s[w] for v in r_s) - 1
        assert mrr(r_s, r_d) == pytest.approx(1 / (1 + better + tied / 2))
        assert 0 < mrr(r_s, r_d) <= 1


def test_rank_metrics_equals_individual_functions():
    rng = np.random.default_rng(3)
    for _ in range(100):
        r_s, r_d = _random_pair(rng)
        got = rank_metrics(r_s, r_d)
        assert list(got) == list(METRICS)
        assert got["mae"] == mae(r_s, r_d)
        assert got["spearman"] == spearman(r_s, r_d)
        assert got["kendall"] == kendall(r_s, r_d)
        assert got["ndcg5"] == ndcg_at_k(r_s, r_d, 5)
        assert got["mrr"] == mrr(r_s, r_d)
        assert all(isinstance(v, float) for v in got.values())


def test_constant_vector_convention_is_zero():
    flat = np.full(5, 3.0)
    r = np.arange(5.0)
    assert spearman(flat, r) == 0.0 and kendall(flat, r) == 0.0
    assert spearman(r, flat) == 0.0 and kendall(r, flat) == 0.0
    out = rank_metrics(flat, r)
    assert np.isfinite(list(out.values())).all()
    assert out["mrr"] == pytest.approx(1 / 3)  # winner tied with all five: position 1 + 4/2


def test_correlations_invariant_to_monotone_transform():
    rng = np.random.default_rng(5)
    r_s, r_d = rng.random(20), rng.random(20)
    assert spearman(np.exp(3 * r_s), r_d) == pytest.approx(spearman(r_s, r_d))
    assert kendall(2 * r_s + 7, r_d) == pytest.approx(kendall(r_s, r_d))
    assert spearman(r_s, r_d) == pytest.approx(spearman(r_d, r_s))
    assert kendall(r_s, r_d) == pytest.approx(kendall(r_d, r_s))


def test_validation():
    with pytest.raises(ValueError, match="r_d has shape"):
        mae([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="r_s must be a 1-D vector of at least 2"):
        spearman([1.0], [1.0])
    with pytest.raises(ValueError, match="r_s has a non-finite"):
        kendall([1.0, np.nan], [1.0, 2.0])
    with pytest.raises(ValueError, match="r_d has a non-finite"):
        rank_metrics([1.0, 2.0], [np.inf, 2.0])
    with pytest.raises(ValueError, match="k=0"):
        ndcg_at_k([1.0, 2.0], [1.0, 2.0], k=0)
