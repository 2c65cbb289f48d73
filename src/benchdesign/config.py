"""Read the pipeline configuration (a plain dict, already schema-validated) into run settings."""

from __future__ import annotations

from typing import Any

from benchdesign.selection.protocol import strategy_options
from benchdesign.selection.strategies import STRATEGIES

DOMAIN_NAMES = ("tsc", "recsys", "nlp")
PROTOCOL_DEFAULTS: dict[str, Any] = {
    "n_trials": 200,
    "alpha": 0.8,
    "k_min": 2,
    "k_max": 20,
    "variations": ["dataset_pool", "model_pool"],
    "strategies": list(STRATEGIES),
    "kmeans_n_init": 3,
    "design_lambda": 1.0,
    "fafi_start": "nearest",
    "standardize": "all",
}
DOMAIN_REPRESENTATIONS = {
    "tsc": ("simple", "catch22", "tsfresh", "summary", "minirocket", "landmarking", "oracle"),
    "recsys": ("interaction", "oracle"),
    "nlp": ("description", "metadata", "oracle"),
}
# Representations computed by the feature rules into results/features/<domain>/<name>.csv.
FEATURE_REPRESENTATIONS = {
    "tsc": ("simple", "catch22", "tsfresh", "summary", "minirocket", "landmarking"),
    "nlp": ("description",),
}
SYNTHETIC_KEYS = (
    "n_datasets", "n_models", "n_folds", "d_lat", "d_rep", "sigma_ds", "sigma_fold", "sigma", "lam",
)


def enabled_domains(config: dict) -> list[str]:
    """Domains listed in ``config['domains']`` and not disabled, in the fixed order tsc, recsys, nlp."""
    domains = config.get("domains") or {}
    unknown = sorted(set(domains) - set(DOMAIN_NAMES))
    if unknown:
        raise ValueError(f"unknown domain(s) {unknown} in config; choose from {DOMAIN_NAMES}")
    return [d for d in DOMAIN_NAMES if d in domains and domains[d].get("enabled", True)]


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
    merged["ks"] = list(range(merged["k_min"], merged["k_max"] + 1))
    merged["options"] = {
        "n_init": merged["kmeans_n_init"],
        "lam": merged["design_lambda"],
        "start": merged["fafi_start"],
    }
    return merged


def trial_settings(config: dict, domain: str, strategy: str) -> dict[str, Any]:
    """What the trials of one (domain, strategy) depend on, and nothing else (so that changing, say,
    ``fafi_start`` reruns only the farthest-first trials): ks, n_trials, alpha, the strategy's own
    options and, unless the strategy ignores the representation (random), ``standardize``."""
    protocol = domain_protocol(config, domain)
    settings = {key: protocol[key] for key in ("ks", "n_trials", "alpha")}
    settings["options"] = strategy_options(strategy, protocol["options"])
    if strategy != "random":
        settings["standardize"] = protocol["standardize"]
    return settings


def domain_representations(config: dict, domain: str) -> list[str]:
    """Representations of a domain, checked against those the domain offers."""
    reps = list((config["domains"][domain] or {}).get("representations") or ["oracle"])
    unknown = sorted(set(reps) - set(DOMAIN_REPRESENTATIONS[domain]))
    if unknown:
        raise ValueError(
            f"representation(s) {unknown} are not available for domain {domain!r}; "
            f"choose from {list(DOMAIN_REPRESENTATIONS[domain])}"
        )
    return reps


def trial_combinations(config: dict) -> list[tuple[str, str, str, str]]:
    """Every (variation, domain, representation, strategy) to run; random uses representation ``none``."""
    combos = []
    for domain in enabled_domains(config):
        protocol = domain_protocol(config, domain)
        reps = domain_representations(config, domain)
        for variation in protocol["variations"]:
            for strategy in protocol["strategies"]:
                for rep in ["none"] if strategy == "random" else reps:
                    combos.append((variation, domain, rep, strategy))
    return combos


def synthetic_settings(config: dict) -> dict[str, Any]:
    """Benchmark sizes and noise levels of the synthetic ablation (section 6.4)."""
    section = config.get("synthetic") or {}
    return {key: section[key] for key in SYNTHETIC_KEYS if key in section}


def feature_representations(config: dict, domain: str) -> list[str]:
    """The domain's enabled representations that feature rules compute from raw data."""
    return [r for r in domain_representations(config, domain)
            if r in FEATURE_REPRESENTATIONS.get(domain, ())]
