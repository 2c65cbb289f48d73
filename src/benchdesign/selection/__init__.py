"""Rank-preserving dataset selection (the method of the paper, independent of any benchmark).

What a user imports is here (``__all__``): [`select_datasets`][], [`evaluate_benchmark`][] and
[`subset_agreement`][] (the functions behind ``benchdesign select / evaluate / agreement``), the
strategies, ranks, metrics, protocol, covering radius, conclusion checks and the tables. Layers, each
importing only the ones above it (none imports ``benchdesign.domains``, which builds on this package):

* ``options``     the protocol's option values (no heavy imports);
* ``classes``     the two classes of methods, a priori (dataset features only) and informed (also the seen
                  models' scores; the oracle is one): ``selection_class``;
* ``strategies``  the six selection strategies (section 4);
* ``ranking``     model ranks from scores (section 3);
* ``metrics``     rank-agreement metrics of R_S against R_D (section 5.2);
* ``representations``  checks of dataset features, the oracle representation;
* ``protocol``    the evaluation protocol (section 5.1, plus model holdout);
* ``frames``      columns, name orders and labels of the long result frames;
* ``statistics``  Holm's correction, the paired one-sided Wilcoxon and exact McNemar tests (and its
                  sign-flip generalisation to a random baseline's share of draws);
* ``aggregation`` curves, AUCs and k* (sections 6.1-6.2);
* ``tables``      Tables 1-4 as frames (sections 6.1-6.4);
* ``markdown``    Tables 1-4 as paper-style Markdown;
* ``verdicts``    which strategy for k: share of pools meeting the target vs random;
* ``guarantee``   covering radius and its bound (Appendix A.2, A.5), p_eff, coverage curves;
* ``conclusions`` Wilcoxon-Holm verdicts, conclusion stability, CD diagrams;
* ``estimators``  from a subset's scores to the full benchmark: a new model's predicted rank, with an interval;
* ``heldout``     held-out designs: random, whole model families, cross-fitting (every model judged once);
* ``api``         select / evaluate / agreement on a user's benchmark;
* ``synthetic``   the synthetic oracle-vs-broken benchmark (section 6.4);
* ``plotting``    figures (not exported here: it loads matplotlib).

The names are imported from their submodule on first use, so the command line's parsers load neither
pandas nor scipy.
"""

from __future__ import annotations

from benchdesign.lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    "api": ("select_datasets", "select_from_scores", "Selection", "evaluate_benchmark", "Evaluation", "evaluation_figures",
            "recommendation", "subset_agreement"),
    "options": ("FAFI_STARTS", "HOLDOUT_FRACTION", "RANDOM_BASELINES", "RANDOM_DRAWS", "RANDOM_SUBSET_DRAWS",
                "STANDARDIZATIONS", "VARIATIONS"),
    "classes": ("A_PRIORI", "INFORMED", "CLASS_LABELS", "class_label", "selection_class"),
    "strategies": (
        "EVALUATE_STRATEGIES", "PREFIX_ORDERS", "STRATEGIES", "STRATEGY_REGISTRY", "Strategy", "a_optimal_order",
        "d_optimal_order", "fafi_cosine_order", "fafi_euclidean_order", "farthest_first_order", "kmeans", "random_order",
        "select_a_optimal", "select_d_optimal", "select_fafi_cosine", "select_fafi_euclidean", "select_kmeans",
        "select_random",
    ),
    "ranking": ("mean_ranks", "rank_scores", "rerank", "with_fold"),
    "metrics": ("METRIC_HIGHER_IS_BETTER", "METRICS", "kendall", "mae", "mrr", "ndcg_at_k", "ndcg_paper",
                "rank_metrics", "spearman"),
    "protocol": ("dataset_pool_trials", "model_holdout_trials", "model_pool_trials", "n_draws",
                 "score_cube", "selection_orders", "single_full_run", "standardize_rows"),
    "representations": ("check_representation", "oracle_representation"),
    "statistics": ("holm", "mcnemar_exact", "paired_share_test", "paired_wilcoxon", "signed_rank_pvalues"),
    "aggregation": ("DEFAULT_THRESHOLDS", "curve_auc", "curves", "kstar_per_config", "meets_target", "pool_shares",
                    "trial_auc"),
    "verdicts": ("default_k_targets", "strategy_verdicts", "verdict_text"),
    "tables": ("reference_auc", "table1", "table2", "table3", "table3_summary", "table4"),
    "markdown": ("table1_markdown", "table2_markdown", "table3_markdown", "table4_markdown", "to_markdown"),
    "guarantee": ("covering_bound", "covering_radii", "covering_radius", "diameter", "fit_p_eff"),
    "estimators": ("ESTIMATORS", "RIDGE_ALPHAS", "LinearEstimate", "SubsetEstimator", "estimator_holdout_fits",
                   "estimator_holdout_trials", "fit_anchor", "fit_gaussian", "fit_mean", "fit_ridge",
                   "fit_subset_estimator", "loo_residuals", "predict_full_rank", "shares_against", "slots",
                   "win_shares"),
    "conclusions": ("conclusion_stability", "dataset_scores", "pairwise_verdicts", "plot_critical_difference",
                    "wilcoxon_holm_matrix"),
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
