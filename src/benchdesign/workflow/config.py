"""Read the pipeline configuration (a plain dict, already schema-validated) into run settings."""

from __future__ import annotations

import re
from typing import Any

from benchdesign.domains import BUILTIN_DOMAINS, NAME_PATTERN, Domain, get_domain
from benchdesign.selection.options import (
    FAFI_STARTS,
    HOLDOUT_FRACTION,
    RANDOM_BASELINES,
    RANDOM_DRAWS,
    RANDOM_SUBSET_DRAWS,
    STANDARDIZATIONS,
    VARIATIONS,
)
from benchdesign.selection.protocol import strategy_options
from benchdesign.selection.strategies import DEFAULT_STRATEGIES, STRATEGIES, STRATEGY_REGISTRY

PROTOCOL_DEFAULTS: dict[str, Any] = {
    "n_trials": 200,
    "alpha": 0.8,
    "k_min": 2,
    "k_max": 20,
    "variations": list(VARIATIONS),
    "holdout_fraction": HOLDOUT_FRACTION,
    "strategies": list(DEFAULT_STRATEGIES),  # the curator baselines only when listed
    "kmeans_n_init": 3,
    "design_lambda": 1.0,
    "fafi_start": FAFI_STARTS[0],
    "standardize": STANDARDIZATIONS[0],
    "random_draws": RANDOM_DRAWS,
    "random_subsets": RANDOM_SUBSET_DRAWS[0],
}
"""Protocol defaults (the config schema's ``protocol`` defaults must equal these: tests/test_config.py)."""
SYNTHETIC_KEYS = (
    "n_datasets", "n_models", "n_folds", "d_lat", "d_rep", "sigma_ds", "sigma_fold", "sigma", "lam", "noise",
)
# Config values a script may read from ``snakemake.config`` directly: where inputs come from, not what they
# are (their checksums fix the content), so changing them must not rerun anything. Every other value reaches a
# script through the rule's params, which Snakemake tracks (tests/test_bad_inputs.py walks the scripts).
UNTRACKED_CONFIG = ("mirror", "allow_download", "features.tsc.raw_wheels")


CRITICAL_PATH = 10
"""Snakemake ``priority:`` of the rules on a run's critical path (the TSC chain: its inputs, raw series and
features, then the long conclusion and coverage jobs): started first whenever they are ready, so that the many
short molecular and trial jobs fill the cores at the end instead of one long job running alone
(docs/performance.md#the-quick-run). It changes only the order of the jobs, never a result."""

TABLE_KEYS = ("kind", "scores", "higher_is_better", "features", "strata")
"""Keys of a ``kind: table`` domain entry that define the domain (the rest are run settings)."""


def domain_entry(config: dict, domain: str) -> dict[str, Any]:
    """What defines a domain in its config entry: the table keys of a ``kind: table`` domain, nothing
    for a built-in one (rule params: a change of models or protocol does not touch it)."""
    entry = (config.get("domains") or {}).get(domain) or {}
    return {key: entry[key] for key in TABLE_KEYS if key in entry}


def config_domain(config: dict, domain: str) -> Domain:
    """The :class:`~benchdesign.domains.Domain` of a config entry (built-in, or of kind ``table``)."""
    return get_domain(domain, domain_entry(config, domain))


def enabled_domains(config: dict) -> list[str]:
    """Domains listed in ``config['domains']`` and not disabled: the built-in ones in the registry's
    order (tsc, recsys, nlp), then the others (e.g. ``kind: table``) in config order."""
    domains = config.get("domains") or {}
    for name, entry in domains.items():
        if not re.fullmatch(NAME_PATTERN, name) or name == "synthetic":
            raise ValueError(f"domain name {name!r} must match {NAME_PATTERN} and not be 'synthetic'")
        if name not in BUILTIN_DOMAINS and not (entry or {}).get("kind"):
            raise ValueError(
                f"unknown domain {name!r} in config; choose from {list(BUILTIN_DOMAINS)} or give it `kind: table`"
            )
    order = [d for d in BUILTIN_DOMAINS if d in domains] + [d for d in domains if d not in BUILTIN_DOMAINS]
    return [d for d in order if (domains[d] or {}).get("enabled", True)]


def domain_protocol(config: dict, domain: str | None) -> dict[str, Any]:
    """Protocol settings of one domain: defaults < ``protocol:`` < ``domains.<domain>.protocol:``.

    ``domain=None`` gives the shared settings (used by the synthetic benchmark).  The result also
    holds ``ks`` (k_min..k_max) and the strategy ``options``.
    """
    merged = dict(PROTOCOL_DEFAULTS)
    merged.update(config.get("protocol") or {})
    if domain is not None:
        merged.update((config.get("domains") or {}).get(domain, {}).get("protocol") or {})
    if merged["k_min"] > merged["k_max"]:
        raise ValueError(
            f"k_min={merged['k_min']} is larger than k_max={merged['k_max']}"
            + (f" for domain {domain!r}" if domain else "")
        )
    unknown = [s for s in merged["strategies"] if s not in STRATEGIES]
    if unknown:
        raise ValueError(f"unknown strategy(ies) {unknown}; choose from {list(STRATEGIES)}")
    merged["ks"] = list(range(merged["k_min"], merged["k_max"] + 1))
    merged["options"] = {
        "n_init": merged["kmeans_n_init"],
        "lam": merged["design_lambda"],
        "start": merged["fafi_start"],
        "subsets": merged["random_subsets"],
    }
    return merged


def trial_settings(config: dict, domain: str, strategy: str, variation: str = "dataset_pool") -> dict[str, Any]:
    """What the trials of one (variation, domain, strategy) depend on, and nothing else (so that changing, say,
    ``fafi_start`` reruns only the farthest-first trials): ks, n_trials, alpha, ``holdout_fraction`` (model-holdout
    variation only), the strategy's own options, ``random_draws`` for a random baseline and, unless the strategy
    ignores the representation (random), ``standardize``."""
    protocol = domain_protocol(config, domain)
    settings = {key: protocol[key] for key in ("ks", "n_trials", "alpha")}
    if strategy == "stratified":
        settings["strata_column"] = domain_strata(config, domain)["column"]
    if variation == "model_holdout":
        settings["holdout_fraction"] = protocol["holdout_fraction"]
    settings["options"] = strategy_options(strategy, protocol["options"])
    if strategy in RANDOM_BASELINES:
        settings["random_draws"] = protocol["random_draws"]
    if STRATEGY_REGISTRY[strategy].uses_representation:
        settings["standardize"] = protocol["standardize"]
    return settings


def coverage_settings(config: dict, domain: str) -> dict[str, Any]:
    """What the covering radii of a domain's dataset-pool selections depend on: ks, n_trials, alpha, the strategy
    options and ``standardize`` (not the variations, the strategy list or ``holdout_fraction``)."""
    protocol = domain_protocol(config, domain)
    return {key: protocol[key] for key in ("ks", "n_trials", "alpha", "options", "standardize")}


def domain_strata(config: dict, domain: str) -> dict[str, str]:
    """``{file, column}`` of a domain's strata (``domains.<d>.strata``); ValueError naming the key when the
    ``stratified`` strategy runs on a domain without them."""
    strata = ((config.get("domains") or {}).get(domain) or {}).get("strata")
    if not strata:
        raise ValueError(f"strategy 'stratified' needs config key domains.{domain}.strata: {{file, column}} (a label "
                         f"per dataset, e.g. a task type); the built-in domains have none (NLP's task types: "
                         f"benchmarks/selection_baselines.py)")
    return dict(strata)


def domain_representations(config: dict, domain: str) -> list[str]:
    """Representations of a domain (default: ``oracle``, and every feature table of a ``table``
    domain), checked against those the domain offers."""
    offered = config_domain(config, domain).representations
    entry = (config["domains"][domain] or {})
    default = list(offered) if entry.get("kind") else ["oracle"]
    reps = list(entry.get("representations") or default)
    unknown = sorted(set(reps) - set(offered))
    if unknown:
        raise ValueError(
            f"representation(s) {unknown} are not available for domain {domain!r}; "
            f"choose from {list(offered)}"
        )
    return reps


def trial_combinations(config: dict) -> list[tuple[str, str, str, str]]:
    """Every (variation, domain, representation, strategy) to run; a strategy that ignores the
    representation (random) runs once, with representation ``none``."""
    combos = []
    for domain in enabled_domains(config):
        protocol = domain_protocol(config, domain)
        reps = domain_representations(config, domain)
        if "stratified" in protocol["strategies"]:
            domain_strata(config, domain)
        for variation in protocol["variations"]:
            for strategy in protocol["strategies"]:
                uses = STRATEGY_REGISTRY[strategy].uses_representation
                for rep in reps if uses else ["none"]:
                    combos.append((variation, domain, rep, strategy))
    return combos


def synthetic_settings(config: dict) -> dict[str, Any]:
    """Benchmark sizes and noise levels of the synthetic ablation (section 6.4)."""
    section = config.get("synthetic") or {}
    return {key: section[key] for key in SYNTHETIC_KEYS if key in section}


def synthetic_protocol(config: dict) -> dict[str, Any]:
    """What a synthetic job uses of the config besides its benchmark settings: seeds, trials per seed and
    the shared protocol's k grid, alpha, strategy options and random draws (not ``n_trials``, which it does not
    use)."""
    protocol = domain_protocol(config, None)
    section = config.get("synthetic") or {}
    return {"n_seeds": section["n_seeds"], "trials_per_seed": section["trials_per_seed"],
            "ks": protocol["ks"], "alpha": protocol["alpha"], "options": protocol["options"],
            "random_draws": protocol["random_draws"]}


def untracked(config: dict, key: str) -> Any:
    """A value of :data:`UNTRACKED_CONFIG` (dotted key) from the raw config; None when unset."""
    if key not in UNTRACKED_CONFIG:
        raise KeyError(f"{key!r} would change results without rerunning jobs; pass it as a rule param "
                       f"(only {UNTRACKED_CONFIG} may be read from snakemake.config)")
    value: Any = config
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def synthetic_strategies(config: dict) -> list[str]:
    """Strategies of the synthetic ablation (default: the paper's, :data:`DEFAULT_STRATEGIES`)."""
    strategies = list((config.get("synthetic") or {}).get("strategies") or DEFAULT_STRATEGIES)
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise ValueError(f"synthetic: unknown strategy(ies) {unknown}; choose from {list(STRATEGIES)}")
    return strategies


def feature_representations(config: dict, domain: str) -> list[str]:
    """The domain's enabled representations that feature rules compute from raw data."""
    computed = config_domain(config, domain).computed
    return [r for r in domain_representations(config, domain) if r in computed]
