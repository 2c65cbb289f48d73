"""Config resolution: defaults, per-domain overrides, trial combinations."""

import pytest
import yaml
from workflow_helpers import REPO

from benchdesign.selection.options import FAFI_STARTS, RANDOM_SUBSET_DRAWS, STANDARDIZATIONS
from benchdesign.workflow.config import PROTOCOL_DEFAULTS, domain_protocol, enabled_domains, trial_combinations

CONFIG = {
    "protocol": {"n_trials": 10},
    "domains": {
        "tsc": {"representations": ["oracle"], "protocol": {"alpha": 0.5}},
        "recsys": {"enabled": False, "representations": ["oracle"]},
        "nlp": {"representations": ["metadata", "oracle"], "protocol": {"strategies": ["random", "kmeans"]}},
    },
}


def test_domain_overrides_win_over_shared_settings_and_defaults():
    tsc = domain_protocol(CONFIG, "tsc")
    assert (tsc["n_trials"], tsc["alpha"], tsc["k_max"]) == (10, 0.5, 20)
    assert tsc["ks"] == list(range(2, 21))
    assert domain_protocol(CONFIG, "nlp")["alpha"] == 0.8


def test_enabled_domains_and_combinations():
    assert enabled_domains(CONFIG) == ["tsc", "nlp"]
    combos = trial_combinations(CONFIG)
    assert ("dataset_pool", "nlp", "none", "random") in combos
    assert ("model_pool", "nlp", "metadata", "kmeans") in combos
    assert not any(c[1] == "nlp" and c[3] == "d_optimal" for c in combos)
    assert ("model_holdout", "nlp", "oracle", "kmeans") in combos
    assert len([c for c in combos if c[1] == "tsc"]) == 3 * 6  # three variations


def test_bad_values_are_named():
    with pytest.raises(ValueError, match="unknown domain"):
        enabled_domains({"domains": {"vision": {}}})
    with pytest.raises(ValueError, match="k_min=5 is larger than k_max=3"):
        domain_protocol({"protocol": {"k_min": 5, "k_max": 3}}, None)
    bad = {"domains": {"tsc": {"representations": ["interaction"]}}}
    with pytest.raises(ValueError, match="not available for domain 'tsc'"):
        trial_combinations(bad)


def test_protocol_defaults_are_the_schemas():
    """The protocol defaults of the config schema and of the Python side (config.py, the option vocabularies)
    agree, so a value left out of the config means the same in both."""
    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    properties = schema["properties"]["protocol"]["properties"]
    in_schema = {key: spec["default"] for key, spec in properties.items() if "default" in spec}
    assert in_schema == {key: value for key, value in PROTOCOL_DEFAULTS.items() if key in in_schema}
    assert set(PROTOCOL_DEFAULTS) - set(in_schema) == {"strategies"}  # absent = every registered strategy
    assert (in_schema["fafi_start"], in_schema["standardize"]) == (FAFI_STARTS[0], STANDARDIZATIONS[0])
    assert properties["fafi_start"]["enum"] == list(FAFI_STARTS)
    assert properties["standardize"]["enum"] == list(STANDARDIZATIONS)
    assert properties["random_subsets"]["enum"] == list(RANDOM_SUBSET_DRAWS) and in_schema["random_subsets"] == "prefix"
