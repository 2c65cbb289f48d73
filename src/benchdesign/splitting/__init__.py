"""Leakage-reduced data splitting after DataSAIL (Joeres et al., Nat. Commun. 2025).

Pipeline: similarity (:mod:`.similarity`) -> clustering into K clusters (:mod:`.clustering`) ->
ILP of eqs. (12)-(18) over the clusters (:mod:`.ilp`) -> folds (:mod:`.tasks`); leakage measures of
eqs. (1), (2) and (20) in :mod:`.leakage` (exact tile by tile, shardable; or sampled with an interval;
of any split file: :mod:`.evaluate`); file-level entry point in :mod:`.pipeline`, whose stage timings
come from :mod:`.progress`. Around it: the split's certificate (:mod:`.certificate`), the hard
similarity threshold (:mod:`.threshold`), alignment identity of protein sequences (:mod:`.alignment`)
and scikit-learn cross-validators (:mod:`.crossval`).
"""

from benchdesign.splitting.alignment import alignment_identity, alignment_similarity, all_vs_all_identity
from benchdesign.splitting.certificate import split_certificate
from benchdesign.splitting.clustering import Clustering, GroupSimilarity, cluster_entities
from benchdesign.splitting.crossval import LeakageKFold, LeakageSplit, nested_cross_validate
from benchdesign.splitting.evaluate import compare_split_files, evaluate_split, evaluate_split_files
from benchdesign.splitting.ilp import ClusterInstance, IlpResult, InfeasibleSplitError, solve_split_ilp
from benchdesign.splitting.inputs import entities_from_table, index_interactions, read_table
from benchdesign.splitting.leakage import (
    LeakageSummary,
    SampledLeakage,
    TilePlan,
    leakage,
    leakage_shard,
    leakage_summary,
    max_train_similarity,
    reduce_leakage_shards,
    sampled_leakage,
    scaled_leakage,
)
from benchdesign.splitting.pipeline import EntityInput, SplitJob, run_split
from benchdesign.splitting.progress import Progress
from benchdesign.splitting.similarity import (
    FingerprintSimilarity,
    KmerSimilarity,
    MatrixSimilarity,
    SimilaritySource,
    VectorSimilarity,
    morgan_fingerprints,
    packed_fingerprints,
    packed_tanimoto,
    smiles_fingerprints,
)
from benchdesign.splitting.tasks import (
    TASKS,
    EntitySet,
    SplitResult,
    SplitSpec,
    kfold_spec,
    split_entities,
    split_interactions,
)
from benchdesign.splitting.threshold import ThresholdRepair, enforce_max_similarity

__all__ = [
    "TASKS",
    "Clustering",
    "ClusterInstance",
    "EntityInput",
    "EntitySet",
    "FingerprintSimilarity",
    "GroupSimilarity",
    "IlpResult",
    "InfeasibleSplitError",
    "KmerSimilarity",
    "LeakageKFold",
    "LeakageSplit",
    "LeakageSummary",
    "MatrixSimilarity",
    "Progress",
    "SampledLeakage",
    "SimilaritySource",
    "SplitJob",
    "SplitResult",
    "SplitSpec",
    "ThresholdRepair",
    "TilePlan",
    "VectorSimilarity",
    "alignment_identity",
    "alignment_similarity",
    "all_vs_all_identity",
    "cluster_entities",
    "compare_split_files",
    "enforce_max_similarity",
    "entities_from_table",
    "evaluate_split",
    "evaluate_split_files",
    "index_interactions",
    "kfold_spec",
    "leakage",
    "leakage_shard",
    "leakage_summary",
    "max_train_similarity",
    "morgan_fingerprints",
    "nested_cross_validate",
    "packed_fingerprints",
    "packed_tanimoto",
    "read_table",
    "reduce_leakage_shards",
    "run_split",
    "sampled_leakage",
    "scaled_leakage",
    "smiles_fingerprints",
    "solve_split_ilp",
    "split_certificate",
    "split_entities",
    "split_interactions",
]
