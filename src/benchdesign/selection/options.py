"""Option vocabularies of the selection protocol, in a module without heavy imports (the command line builds its
parsers from these; the modules that use them import them from here). The first value of each is the default."""

from __future__ import annotations

FAFI_STARTS: tuple[str, ...] = ("nearest", "farthest")
"""Start rules of the farthest-first traversal (``farthest_first_order``)."""
STANDARDIZATIONS: tuple[str, ...] = ("all", "pool")
"""Where the representation is z-scored: over all datasets once, or over each trial's pool rows."""
BASELINE_STRATEGIES: tuple[str, ...] = (
    "kmedoids", "facility_location", "mutual_information", "stratified", "backward_elimination", "covariance",
)
"""Curator baselines (issue 22) of the strategy registry: ``select --strategy`` / ``evaluate --strategies`` run
them when named; runs without a strategy list leave them out (the pipeline) or run only ``SELECT_STRATEGY`` of them
(``evaluate``: ``strategies.EVALUATE_STRATEGIES``).  ``stratified`` needs
a label per dataset (option ``strata``; CLI ``--strata FILE:COLUMN``); ``backward_elimination`` (MMTEB's
task selection) and ``covariance`` (issue 45's Gaussian design) are meant for the ``oracle`` representation."""
VARIATIONS: tuple[str, ...] = ("dataset_pool", "model_pool", "model_holdout")
"""Protocol variations: the paper's two (section 5.1) and model holdout, where the selection sees only part of the
models and the others judge it (``benchdesign evaluate``'s default)."""
RANDOM_BASELINES: tuple[str, ...] = ("random", "stratified")
"""The random baselines (uniform and stratified random): they ignore the representation, so they are a priori
(``classes.selection_class``), and the protocol draws ``RANDOM_DRAWS`` subsets of them per trial."""
RANDOM_DRAWS = 20
RANDOM_SUBSET_DRAWS: tuple[str, ...] = ("prefix", "fresh")
"""How the protocol draws the random strategy's subsets for the k of a trial: the first k of one random order
(this project: nested subsets, so the curve over k is one draw's) or a fresh subset for every k (the paper's
code). Same expectation; the fresh draws average over k, so a trial's AUC varies less."""
"""Subsets a random baseline draws from every trial's pool (the protocol's ``random_draws``): its value in the
trial is their mean, and its share of pools meeting a target the mean share of draws meeting it."""
SELECT_STRATEGY = "mutual_information"
"""``benchdesign select``'s and ``select_datasets``' strategy: greedy mutual information on the RBF kernel of the
features. Chosen on the tuning seeds (``TUNING_SEEDS``) by the rule of ``benchmarks/selection_goals.py``: the
highest share of held-out rho >= 0.9 averaged over NLP, RecSys and TSC (its six a-priori feature tables) and
k = 5, 10: 0.554, facility location 0.510, k-medoids (the default before) 0.499, the paper's farthest-first (C-FAFI)
0.442; a margin of 0.055 over k-medoids, beyond its bootstrap standard error 0.023, so the default changed
(benchmarks/results/selection_goals_tuning_decision.md; docs/guides/select.md)."""
RANDOM_SUBSETS = 200
"""Random subsets of the same size (and the same forced datasets) a selection's covering radius is compared with."""
HOLDOUT_FRACTION = 0.3
"""Default share of the models the model-holdout variation sets aside to judge the selections."""
ESTIMATOR_NAMES: tuple[str, ...] = ("auto", "mean", "anchor", "ridge", "gaussian")
"""Estimators from a subset's scores to the full benchmark (``selection.estimators``): ``auto`` takes, of the
four others, the one with the least leave-one-model-out error on the seen models (the default is
``ESTIMATOR_DEFAULT``, not the first)."""
ESTIMATOR_DEFAULT = "anchor"
"""``fit_subset_estimator``'s estimator: anchor weights, chosen on the tuning seeds by the rule of
``benchmarks/selection_goals.py`` on the default strategy's subsets (share of held-out rho >= 0.9 averaged over
the three domains and k = 5, 10: anchor 0.541, gaussian 0.531, auto 0.508, ridge 0.507, mean 0.457; anchor's margin
over ``auto``, the default before, 0.033 beyond its standard error 0.018)."""
ESTIMATOR_LEVEL = 0.9
"""Default coverage level of an estimator's interval (jackknife over the seen models)."""
HELDOUT_DESIGNS: tuple[str, ...] = ("random", "family", "crossfit")
"""Held-out designs (``selection.heldout``): a random ``HOLDOUT_FRACTION`` of the models, whole model families, or
cross-fitting (every model judged once, by the selection of the fold it sat out)."""
CROSSFIT_FOLDS = 3
"""Folds of the cross-fitting design (RecSys's 9 models: 3 folds of 3, each selection seeing 6)."""
TUNING_SEEDS: tuple[int, ...] = tuple(range(10))
"""Protocol seeds on which every choice is made (``select``'s default strategy and estimator, hyper-parameters):
``benchmarks/selection_goals.py --seeds tuning``; ``TRIALS_PER_SEED`` trials each."""
REPORTING_SEEDS: tuple[int, ...] = tuple(range(100, 120))
"""Protocol seeds the reported figures come from (``benchmarks/selection_goals.py --seeds reporting``), disjoint
from ``TUNING_SEEDS``, never used to choose anything; ``TRIALS_PER_SEED`` trials each."""
CONFIRMATION_SEEDS: tuple[int, ...] = tuple(range(200, 240))
"""Fresh protocol seeds for a comparison chosen on the reporting seeds (issue 45: ``INFORMED_CONFIRMATION`` of
``benchmarks/selection_goals.py``, registered before its run; ``--seeds confirmation``), disjoint from
``TUNING_SEEDS`` and ``REPORTING_SEEDS``; ``TRIALS_PER_SEED`` trials each (200 trials)."""
POWERED_SEEDS: tuple[int, ...] = tuple(range(300, 500))
"""Fresh protocol seeds for the powered test of ``INFORMED_CONFIRMATION`` (issue 45, ``--seeds powered`` of
``benchmarks/selection_goals.py``, registered before its run), disjoint from every seed set above;
``TRIALS_PER_SEED`` trials each (1,000 trials)."""
TRIALS_PER_SEED = 5
"""Trials per protocol seed in the tuning/reporting runs (50 tuning trials, 100 reporting trials)."""
