"""Option vocabularies and defaults of the splitting modules, in a module without heavy imports.

The command line builds its parsers from these (``benchdesign --help`` then loads neither RDKit nor cvxpy);
the modules that use them import them from here.
"""

from __future__ import annotations

TASKS: tuple[str, ...] = ("R", "I1", "I2", "S1", "S2")  # DataSAIL's splitting tasks (random, identity, similarity)
LINKAGES: tuple[str, ...] = ("average", "single", "complete")
DEFAULT_MICRO = 1000  # micro-clusters (leaders) before the spectral clustering into K clusters
THRESHOLD_ACTIONS: tuple[str, ...] = ("drop", "move")
DEFAULT_QUANTILES: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95)
DEFAULT_MAX_PAIRS = 5e9  # exact all-pairs passes up to this many entity pairs (n ~ 100,000; MUV stays exact)
SAMPLED_REPORT_PAIRS = 1_000_000  # sampled pairs per leakage estimate beyond DEFAULT_MAX_PAIRS
