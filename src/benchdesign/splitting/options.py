"""Option vocabularies and defaults of the splitting modules, in a module without heavy imports.

The command line builds its parsers from these (``benchdesign --help`` then loads neither RDKit nor cvxpy);
the modules that use them import them from here.
"""

from __future__ import annotations

from dataclasses import dataclass

LINKAGES: tuple[str, ...] = ("average", "single", "complete")
DEFAULT_CLUSTERS = 50  # K of the ILP when the option clusters is none (the paper's), fewer for fewer entities
# K of a k-fold (3 or more equal folds) ILP when clusters is none: its LP grows with K^2 k (paper differences)
DEFAULT_KFOLD_CLUSTERS = 20
DEFAULT_MICRO = 1000  # micro-clusters (leaders) before the spectral clustering into K clusters
THRESHOLD_ACTIONS: tuple[str, ...] = ("drop", "move")
# MMseqs2 identity with coverage | Smith-Waterman identity of k-mer candidates | k-mer cosine
SEQUENCE_SIMILARITIES: tuple[str, ...] = ("mmseqs", "alignment", "kmer")
DEFAULT_SEQUENCE_SIMILARITY = "mmseqs"  # of protein sequences: CLI, EntityInput, cross-validators (schema: test)
# MMseqs2 identity (mmseqs.py): whose coverage counts (--cov-mode), the default share and the search
COVERAGE_MODES: dict[int, str] = {0: "both sequences", 1: "the target sequence", 2: "the query sequence"}
DEFAULT_COVERAGE = 0.8  # -c 0.8 --cov-mode 0: the usual "x % identity at 80 % coverage" (easy-cluster, GraphPart)
DEFAULT_COVERAGE_MODE = 0
# -s of the all-against-all prefilter beyond EXHAUSTIVE_PAIRS; the check of a split searches at VERIFY_SENSITIVITY
# (or every pair) and adds what this missed. On 10,000 SOLpro sequences -s 5.7 found 382 of the 470 pairs above 0.3
# that -s 7.5 finds 390 of, at a quarter of the CPU (35.4 against 145.3 s; benchmarks/mmseqs_exhaustive.py).
DEFAULT_SENSITIVITY = 5.7
DEFAULT_MAX_SEQS = 1000  # --max-seqs: candidates per sequence; families larger than this lose pairs (benchmarks)
# The independent check of a split when not every pair can be aligned: the prefilter at VERIFY_SENSITIVITY plus every
# pair of sequences both <= VERIFY_SHORT_LENGTH residues aligned. A random 80/20 split of 10,000 SOLpro sequences
# (16e6 pairs, low-complexity regions aligned): of the 177 pairs above 0.3 that aligning every pair finds (31.5 CPU-s),
# -s 5.7 + short <= 100 missed 3 in 9.9 CPU-s; -s 7.5 alone missed 30 in 34.4 CPU-s; -s 5.7 alone 35 in 9.4; short
# <= 150 missed none but its pairs grow with n^2 (14.2 CPU-s here) (benchmarks/results/mmseqs_short_pairs.csv).
VERIFY_SENSITIVITY = 5.7
VERIFY_SHORT_LENGTH = 100
# Up to this many (query, target) pairs every pair is aligned (--prefilter-mode 2), all-against-all up to n = 10,000:
# 10,000 SOLpro sequences took 192.8 CPU-s and 170 MB and found 470 pairs above 0.3; the -s 7.5 prefilter 145.3 CPU-s
# and 892 MB for 390 (80 of the 470 missed: short peptides among them, 18 and 20 residues at 42 % identity), -s 5.7
# 35.4 CPU-s for 382; a random 80/20 split's 16e6 test-train pairs 30.4 CPU-s (benchmarks/mmseqs_exhaustive.py).
EXHAUSTIVE_PAIRS = 100_000_000
STRING_KINDS: tuple[str, ...] = ("auto", "smiles", "sequence")  # how a column of strings is read
PAIR_SCHEMES: tuple[str, ...] = ("cold_both", "same_fold")  # how I2/S2 k-fold splits use the pairs
STRATIFICATIONS: tuple[str, ...] = ("two_sided", "paper")  # class counts bounded both ways | from below (eq. 15)
DEFAULT_STRATIFICATION = "two_sided"  # of the ILP, the refinement and the identity splits (ilp.py, refine.py)
DEFAULT_QUANTILES: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95)
DEFAULT_MAX_PAIRS = 5e9  # exact all-pairs passes up to this many entity pairs (n ~ 100,000; MUV stays exact)
SAMPLED_REPORT_PAIRS = 1_000_000  # sampled pairs per leakage estimate beyond DEFAULT_MAX_PAIRS
DEFAULT_FRACTION_TOLERANCE = 0.01  # refinement target: every fold within 1 percentage point of its fraction


@dataclass(frozen=True)
class SplitOption:
    """One option of a split: its one spelling, default, type and help.

    ``name`` is the key everywhere: the config's ``splitting:`` block, ``SplitSpec`` (a field of that
    name), ``SplitSpec.from_options``, the molecular experiments' ``ilp:`` options, the cross-validators'
    keyword arguments, and the command line's ``--name-with-dashes`` (for a boolean that defaults to
    True: ``--no-name``). ``nullable``: None is allowed ("none" on the command line).
    """

    name: str
    default: object
    type: type
    help: str
    choices: tuple[str, ...] | None = None
    nullable: bool = False

    @property
    def flag(self) -> str:
        dashed = self.name.replace("_", "-")
        return f"--no-{dashed}" if self.type is bool and self.default is True else f"--{dashed}"


SPLIT_OPTIONS: tuple[SplitOption, ...] = (
    SplitOption("clusters", None, int, f"number of clusters K given to the ILP, at most the number of entities n "
                                       f"(none = min({DEFAULT_CLUSTERS}, n); for 3 or more equal folds "
                                       f"min({DEFAULT_KFOLD_CLUSTERS}, n))", nullable=True),
    SplitOption("micro_clusters", DEFAULT_MICRO, int, "leader pre-clustering size: the units the refinement moves"),
    SplitOption("epsilon", 0.1, float, "relative tolerance of the fold sizes: fold i holds >= (1 - epsilon) s_i n "
                                       "(eq. 3/14; k-fold also <= (1 + epsilon) s_i n)"),
    SplitOption("delta", 0.1, float, "relative tolerance of the class counts of every fold: fold i holds >= "
                                     "(1 - delta) s_i n_c members of class c (eq. 4/15) and, with stratification "
                                     "two_sided, <= (1 + delta) s_i n_c"),
    SplitOption("stratification", DEFAULT_STRATIFICATION, str, "two_sided = every fold's class counts within delta "
                                                               "both ways (or the whole numbers next to s_i n_c); "
                                                               "paper = eq. (15)'s lower bound only",
                choices=STRATIFICATIONS),
    SplitOption("linkage", "average", str, "similarity between clusters", choices=LINKAGES),
    SplitOption("solver", "HIGHS", str, "cvxpy MILP solver"),
    SplitOption("time_limit", 600.0, float, "ILP time limit in seconds, a safety net behind node_limit: a split it "
                                            "stops depends on the machine and its load (the output says so); the "
                                            "best assignment found is then refined"),
    SplitOption("node_limit", 100, int, "branch-and-bound node cap: the ILP stops by optimality (mip_gap) or after "
                                         "this many nodes, the same on every machine and under any load (none = no "
                                         "cap: the time limit alone)", nullable=True),
    SplitOption("mip_gap", 0.01, float, "relative optimality gap at which the ILP stops (0 = prove optimality; "
                                        "none = the solver's default)", nullable=True),
    SplitOption("seed", 0, int, "seed of every random draw (same seed -> same split when the ILP ends by "
                                "optimality or the node limit)"),
    SplitOption("refine", True, bool, "refine the ILP's assignment by moving/swapping micro-clusters"),
    SplitOption("fraction_tolerance", DEFAULT_FRACTION_TOLERANCE, float,
                "the refinement brings every fold within this share of n of its requested size where the "
                "clusters allow (none = anywhere within epsilon, the paper's choice)", nullable=True),
    SplitOption("balance_folds", True, bool, "with 3 or more folds, also lower the leakiest fold's leakage "
                                             "against the other folds (off = the paper's total only)"),
    SplitOption("max_similarity", None, float, "hard threshold t: afterwards no sample has a neighbour above t in "
                                               "another fold", nullable=True),
    SplitOption("threshold_action", "drop", str, "for max_similarity: drop the fewest samples or move whole "
                                                 "components", choices=THRESHOLD_ACTIONS),
    SplitOption("butina_threshold", 0.65, float, "task butina: the similarity at which two entities are neighbours "
                                                 "(ECFP Tanimoto 0.65 = RDKit's distance cut-off 0.35)"),
    SplitOption("certificate_seeds", 3, int, "random splits of the same sizes scored as the baseline (0 = none)"),
    SplitOption("pair_scheme", "cold_both", str, "2-D k-fold (I2/S2): cold_both = fold f tests on the pairs with "
                                                 "both entities in f and trains on those with neither; same_fold = "
                                                 "DataSAIL's, pairs across folds dropped", choices=PAIR_SCHEMES),
)
SPLIT_DEFAULTS: dict[str, object] = {o.name: o.default for o in SPLIT_OPTIONS}
# The options the identity-based tasks (I1, I2: random subject to the size and class bounds) read, the threshold
# step included; S1/S2 read every option. Workflow params carry only these, so that a change of another reruns no
# such split (tested: tests/splitting/test_tasks.py).
IDENTITY_SPLIT_OPTIONS: tuple[str, ...] = ("epsilon", "delta", "stratification", "solver", "time_limit",
                                           "max_similarity", "threshold_action")


@dataclass(frozen=True)
class Task:
    """A splitting task of the DataSAIL paper (Fig. 1) in plain words.

    sides : how many sides of a pair go cold (0: random rows, 1: one entity type, 2: both);
    by_similarity : clusters of similar entities are kept together (S), or only identical ones (I)
    """

    name: str
    words: str
    sides: int
    by_similarity: bool

    @property
    def is_random(self) -> bool:
        return self.sides == 0

    @property
    def two_sided(self) -> bool:
        return self.sides == 2


TASK_TABLE: dict[str, Task] = {t.name: t for t in (
    Task("R", "random: rows split at random", 0, False),
    Task("I1", "identity: no entity in two folds (cold on one side of 2-D data)", 1, False),
    Task("I2", "identity on both sides of a pair: cold drug and cold target", 2, False),
    Task("S1", "similarity: similar entities kept in one fold (clustered, cold on one side of 2-D data)", 1, True),
    Task("S2", "similarity on both sides of a pair: cold drug and cold target, clustered", 2, True),
)}
TASKS: tuple[str, ...] = tuple(TASK_TABLE)  # DataSAIL's splitting tasks (random, identity, similarity)
GROUP_TASKS: dict[str, str] = {  # the chemists' usual baselines: whole groups into folds (split_groups), 1-D only
    "scaffold": "Bemis-Murcko scaffold split: the molecules of one scaffold share a fold (needs SMILES)",
    "butina": "Butina clusters (similarity >= butina_threshold to the cluster's centre) share a fold",
}
