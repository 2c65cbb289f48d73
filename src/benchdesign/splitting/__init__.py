"""Leakage-reduced data splitting after DataSAIL (Joeres et al., Nat. Commun. 2025).

Pipeline: similarity (:mod:`.similarity`) -> clustering into K clusters (:mod:`.clustering`) ->
ILP of eqs. (12)-(18) over the clusters (:mod:`.ilp`) -> folds (:mod:`.tasks`); leakage measures of
eqs. (1), (2) and (20) in :mod:`.leakage` (exact tile by tile, shardable; or sampled with an interval;
of any split file: :mod:`.evaluate`); file-level entry point in :mod:`.pipeline`, whose stage timings
come from :mod:`.progress`.
"""

from benchdesign.splitting.clustering import Clustering, GroupSimilarity, cluster_entities
from benchdesign.splitting.evaluate import evaluate_split, evaluate_split_files
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
    split_entities,
    split_interactions,
)

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
    "LeakageSummary",
    "MatrixSimilarity",
    "Progress",
    "SampledLeakage",
    "SimilaritySource",
    "SplitJob",
    "SplitResult",
    "SplitSpec",
    "TilePlan",
    "VectorSimilarity",
    "cluster_entities",
    "entities_from_table",
    "evaluate_split",
    "evaluate_split_files",
    "index_interactions",
    "leakage",
    "leakage_shard",
    "leakage_summary",
    "max_train_similarity",
    "morgan_fingerprints",
    "packed_fingerprints",
    "packed_tanimoto",
    "read_table",
    "reduce_leakage_shards",
    "run_split",
    "sampled_leakage",
    "scaled_leakage",
    "smiles_fingerprints",
    "solve_split_ilp",
    "split_entities",
    "split_interactions",
]
