"""Rank-preserving dataset selection (the method of the paper, independent of any benchmark).

What a user imports is here (``__all__``): :func:`select_datasets`, :func:`evaluate_benchmark` and
:func:`subset_agreement` (the functions behind ``benchdesign select / evaluate / agreement``), the
strategies, ranks, metrics, protocol, covering radius, conclusion checks and the tables. Layers, each
importing only the ones above it (none imports :mod:`benchdesign.domains`, which builds on this package):

* :mod:`~benchdesign.selection.strategies`  the six selection strategies (section 4);
* :mod:`~benchdesign.selection.ranking`     model ranks from scores (section 3);
* :mod:`~benchdesign.selection.metrics`     rank-agreement metrics of R_S against R_D (section 5.2);
* :mod:`~benchdesign.selection.representations`  checks of dataset features, the oracle representation;
* :mod:`~benchdesign.selection.protocol`    the two-variation evaluation protocol (section 5.1);
* :mod:`~benchdesign.selection.frames`      columns, name orders and labels of the long result frames;
* :mod:`~benchdesign.selection.statistics`  Holm's correction, the paired one-sided Wilcoxon test;
* :mod:`~benchdesign.selection.aggregation` curves, AUCs and k* (sections 6.1-6.2);
* :mod:`~benchdesign.selection.tables`      Tables 1-4 as frames (sections 6.1-6.4);
* :mod:`~benchdesign.selection.markdown`    Tables 1-4 as paper-style Markdown;
* :mod:`~benchdesign.selection.guarantee`   covering radius and its bound (Appendix A.2, A.5), p_eff;
* :mod:`~benchdesign.selection.conclusions` Wilcoxon-Holm verdicts, conclusion stability, CD diagrams;
* :mod:`~benchdesign.selection.api`         select / evaluate / agreement on a user's benchmark;
* :mod:`~benchdesign.selection.synthetic`   the synthetic oracle-vs-broken benchmark (section 6.4);
* :mod:`~benchdesign.selection.plotting`    figures (not imported here: it loads matplotlib).
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

from benchdesign.selection.representations import check_representation, oracle_representation, standardize
from benchdesign.selection.statistics import holm, paired_wilcoxon
from benchdesign.selection.aggregation import DEFAULT_THRESHOLDS, curve_auc, curves, kstar_per_config, trial_auc
from benchdesign.selection.tables import reference_auc, table1, table2, table3, table3_summary, table4
from benchdesign.selection.markdown import (
    table1_markdown,
    table2_markdown,
    table3_markdown,
    table4_markdown,
    to_markdown,
)
from benchdesign.selection.guarantee import covering_bound, covering_radii, covering_radius, diameter, fit_p_eff
from benchdesign.selection.conclusions import (
    conclusion_stability,
    dataset_scores,
    pairwise_verdicts,
    plot_critical_difference,
)
from benchdesign.selection.api import (
    Evaluation,
    Selection,
    evaluate_benchmark,
    evaluation_figures,
    recommendation,
    select_datasets,
    subset_agreement,
)

__all__ = [
    "select_datasets", "Selection", "evaluate_benchmark", "Evaluation", "evaluation_figures", "recommendation",
    "subset_agreement",
    "FAFI_STARTS", "PREFIX_ORDERS", "STRATEGIES", "STRATEGY_REGISTRY", "Strategy", "a_optimal_order", "d_optimal_order",
    "fafi_cosine_order", "fafi_euclidean_order", "farthest_first_order", "kmeans", "random_order",
    "select_a_optimal", "select_d_optimal", "select_fafi_cosine", "select_fafi_euclidean",
    "select_kmeans", "select_random",
    "mean_ranks", "rank_scores", "rerank",
    "METRIC_HIGHER_IS_BETTER", "METRICS", "kendall", "mae", "mrr", "ndcg_at_k", "ndcg_paper", "rank_metrics",
    "spearman",
    "STANDARDIZATIONS", "VARIATIONS", "dataset_pool_trials", "model_pool_trials", "score_cube",
    "selection_orders", "standardize_rows",
    "check_representation", "oracle_representation", "standardize",
    "holm", "paired_wilcoxon",
    "DEFAULT_THRESHOLDS", "curve_auc", "curves", "kstar_per_config", "trial_auc",
    "reference_auc", "table1", "table2", "table3", "table3_summary", "table4",
    "table1_markdown", "table2_markdown", "table3_markdown", "table4_markdown", "to_markdown",
    "covering_bound", "covering_radii", "covering_radius", "diameter", "fit_p_eff",
    "conclusion_stability", "dataset_scores", "pairwise_verdicts", "plot_critical_difference",
]
