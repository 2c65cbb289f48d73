"""Leakage-reduced data splitting after DataSAIL (Joeres et al., Nat. Commun. 2025).

Pipeline: similarity (``similarity``) -> clustering into K clusters (``clustering``) ->
ILP of eqs. (12)-(18) over the clusters (``ilp``) -> folds (``tasks``); leakage measures of
eqs. (1), (2) and (20) in ``leakage`` (exact tile by tile, shardable; or sampled with an interval;
of any split file: ``leakage_report``); file-level entry point in ``pipeline``, whose stage timings
come from ``progress``. Around it: the split's certificate (``certificate``), the hard
similarity threshold (``threshold``), MMseqs2 identity with coverage of protein sequences (``mmseqs``),
Smith-Waterman identity (``alignment``), FASTA files
and the checks of protein sequences (``sequences``) and scikit-learn cross-validators (``crossval``).
"""

from __future__ import annotations

from benchdesign.lazy import lazy_exports

# Public names by submodule, imported on first use (PEP 562), so that importing one submodule (e.g. for
# the command line's defaults) does not load scikit-learn, cvxpy and RDKit.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "alignment": ("alignment_identity", "alignment_similarity", "all_vs_all_identity", "covered_identities"),
    "certificate": ("split_certificate",),
    "clustering": ("Clustering", "GroupSimilarity", "cluster_entities"),
    "crossval": ("LeakageKFold", "LeakageSplit", "build_similarity", "nested_cross_validate"),
    "leakage_report": ("compare_split_files", "evaluate_split", "evaluate_split_files"),
    "ilp": ("ClusterInstance", "IlpResult", "InfeasibleSplitError", "NoAssignmentFoundError", "feasibility_obstacles",
            "solve_split_ilp"),
    "inputs": ("entities_from_table", "index_interactions", "pair_indices", "read_table"),
    "leakage": (
        "LeakageSummary", "SampledLeakage", "TilePlan", "leakage", "leakage_shard", "leakage_summary",
        "max_train_similarity", "nearest_other_fold", "reduce_leakage_shards", "sampled_leakage", "scaled_leakage",
    ),
    "pipeline": ("EntityInput", "SplitJob", "run_split", "without_timings"),
    "progress": ("Progress",),
    "sequences": ("read_fasta",),
    "similarity": (
        "FingerprintSimilarity", "KmerSimilarity", "MatrixSimilarity", "SimilaritySource", "VectorSimilarity",
        "describe_similarity", "detect_string_kind", "morgan_fingerprints", "packed_fingerprints", "packed_tanimoto",
        "smiles_fingerprints",
    ),
    "tasks": (
        "TASKS", "EntitySet", "SplitResult", "SplitSpec", "kfold_spec", "split_entities", "split_groups",
        "split_interactions",
    ),
    "groups": ("butina_clusters", "murcko_scaffolds"),
    "threshold": ("ThresholdRepair", "enforce_max_similarity", "verified_max_similarity"),
    "mmseqs": (
        "IdentitySettings", "MissingAlignerError", "MmseqsSimilarity", "cross_search", "mmseqs_binary",
        "mmseqs_similarity", "nearest_identity", "search_settings", "check_settings",
    ),
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
