"""Rank-preserving dataset selection (the method of the paper, independent of any benchmark).

Layers, each importing only the ones above it:

* :mod:`~benchdesign.selection.strategies`  the six selection strategies (section 4);
* :mod:`~benchdesign.selection.ranking`     model ranks from scores (section 3);
* :mod:`~benchdesign.selection.metrics`     rank-agreement metrics of R_S against R_D (section 5.2);
* :mod:`~benchdesign.selection.representations`  checks and generic builders of dataset features;
* :mod:`~benchdesign.selection.protocol`    the two-variation evaluation protocol (section 5.1);
* :mod:`~benchdesign.selection.aggregate`   curves, AUCs, k*, Wilcoxon-Holm and Tables 1-4 (section 6);
* :mod:`~benchdesign.selection.guarantee`   covering radius and its bound (Appendix A.2, A.5), p_eff;
* :mod:`~benchdesign.selection.conclusions` Wilcoxon-Holm verdicts, conclusion stability, CD diagrams;
* :mod:`~benchdesign.selection.api`         select / evaluate / agreement on a user's benchmark;
* :mod:`~benchdesign.selection.synthetic`   the synthetic oracle-vs-broken benchmark (section 6.4);
* :mod:`~benchdesign.selection.plotting`    figures (imported on demand: it loads matplotlib).
"""

from benchdesign.selection.strategies import (
    FAFI_STARTS,
    PREFIX_ORDERS,
    STRATEGIES,
    STRATEGY_REGISTRY,
    Strategy,
    a_optimal_order,
    d_optimal_order,
    fafi_cosine_order,
    fafi_euclidean_order,
    farthest_first_order,
    kmeans,
    random_order,
    select_a_optimal,
    select_d_optimal,
    select_fafi_cosine,
    select_fafi_euclidean,
    select_kmeans,
    select_random,
)
from benchdesign.selection.ranking import mean_ranks, rank_scores, rerank
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
from benchdesign.selection.protocol import (
    STANDARDIZATIONS,
    VARIATIONS,
    dataset_pool_trials,
    model_pool_trials,
    score_cube,
    selection_orders,
    standardize_rows,
)

__all__ = [
    "FAFI_STARTS", "PREFIX_ORDERS", "STRATEGIES", "STRATEGY_REGISTRY", "Strategy", "a_optimal_order", "d_optimal_order",
    "fafi_cosine_order", "fafi_euclidean_order", "farthest_first_order", "kmeans", "random_order",
    "select_a_optimal", "select_d_optimal", "select_fafi_cosine", "select_fafi_euclidean",
    "select_kmeans", "select_random",
    "mean_ranks", "rank_scores", "rerank",
    "METRIC_HIGHER_IS_BETTER", "METRICS", "kendall", "mae", "mrr", "ndcg_at_k", "ndcg_paper", "rank_metrics",
    "spearman",
    "STANDARDIZATIONS", "VARIATIONS", "dataset_pool_trials", "model_pool_trials", "score_cube",
    "selection_orders", "standardize_rows",
]
