"""One home per split option: options.SPLIT_OPTIONS against the schema, the CLI, SplitSpec and the cross-validators."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import pytest
import yaml

from benchdesign.cli import build_parser
from benchdesign.molexp.methods import ilp_spec
from benchdesign.splitting.crossval import NOT_CV_OPTIONS, LeakageKFold, LeakageSplit
from benchdesign.splitting.options import SPLIT_OPTIONS, TASK_TABLE, TASKS
from benchdesign.splitting.tasks import SplitSpec

REPO = Path(__file__).resolve().parents[2]
SCHEMA = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())


def _splitting_schema() -> dict:
    return SCHEMA["properties"]["splitting"]["properties"]


def _molexp_ilp_schema() -> dict:
    found = []

    def walk(node):
        if isinstance(node, dict):
            if "ilp" in node.get("properties", {}):
                found.append(node["properties"]["ilp"]["properties"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(SCHEMA)
    assert len(found) == 1, "expected one ilp options block in the schema"
    return found[0]


def test_schema_defaults_are_the_option_defaults():
    props = _splitting_schema()
    for o in SPLIT_OPTIONS:
        assert o.name in props, f"split option {o.name!r} missing from the schema's splitting block"
        assert props[o.name]["default"] == o.default, o.name
        if o.choices:
            assert tuple(props[o.name]["enum"]) == o.choices, o.name


def test_molecular_experiments_take_every_split_option_but_the_seed():
    assert set(_molexp_ilp_schema()) == {o.name for o in SPLIT_OPTIONS} - {"seed"}


def test_cli_defaults_and_flags_come_from_the_table():
    args = build_parser().parse_args(["split", "--task", "S1", "--input", "x.csv", "--out", "y.tsv"])
    for o in SPLIT_OPTIONS:
        assert getattr(args, o.name) == o.default, o.name
    flipped = build_parser().parse_args(["split", "--task", "S1", "--input", "x.csv", "--out", "y.tsv",
                                         "--no-refine", "--no-balance-folds", "--fraction-tolerance", "none",
                                         "--node-limit", "7", "--clusters", "9"])
    assert (flipped.refine, flipped.balance_folds, flipped.fraction_tolerance) == (False, False, None)
    assert (flipped.node_limit, flipped.clusters) == (7, 9)


def test_split_spec_fields_and_defaults_are_the_options():
    fields = {f.name: f.default for f in dataclasses.fields(SplitSpec)}
    for o in SPLIT_OPTIONS:
        assert fields[o.name] == o.default, o.name


def test_cross_validators_take_every_option_but_the_seed_and_butinas_with_its_default():
    for cls in (LeakageKFold, LeakageSplit):
        params = inspect.signature(cls.__init__).parameters
        for o in SPLIT_OPTIONS:
            if o.name in NOT_CV_OPTIONS:
                continue
            assert params[o.name].default == o.default, (cls.__name__, o.name)
    cv = LeakageKFold(4, clusters=7, fraction_tolerance=None, random_state=3)
    spec = cv._spec()
    assert (spec.clusters, spec.fraction_tolerance, spec.seed, len(spec.names)) == (7, None, 3, 4)


def test_from_options_layout_types_and_errors():
    spec = SplitSpec.from_options({"folds": 3, "clusters": "12", "epsilon": 0})
    assert spec.names == ("fold0", "fold1", "fold2") and spec.balanced and spec.clusters == 12
    assert isinstance(spec.epsilon, float)
    named = SplitSpec.from_options({"fractions": [0.7, 0.3]})
    assert named.names == ("split0", "split1") and not named.balanced
    assert SplitSpec.from_options({}) == SplitSpec()
    with pytest.raises(ValueError, match=r"unknown split option\(s\) \['n_clusters'\]; known: clusters"):
        SplitSpec.from_options({"n_clusters": 5})
    with pytest.raises(ValueError, match="split option 'micro_clusters' needs a value"):
        SplitSpec.from_options({"micro_clusters": None})
    assert SplitSpec.from_options({"clusters": None}).clusters is None  # K = min(50, n) when the data is read
    with pytest.raises(ValueError, match="split option 'refine' must be true or false, got 'yes'"):
        SplitSpec.from_options({"refine": "yes"})
    with pytest.raises(ValueError, match="split option 'epsilon' must be float, got 'small'"):
        SplitSpec.from_options({"epsilon": "small"})


def test_molexp_spec_keeps_an_explicit_none():
    spec = ilp_spec({"fraction_tolerance": None, "clusters": 10}, (0.8, 0.2), seed=4)
    assert (spec.fraction_tolerance, spec.clusters, spec.seed, spec.names) == (None, 10, 4, ("train", "test"))
    with pytest.raises(ValueError, match=r"unknown ilp option\(s\) \['seed'\]"):
        ilp_spec({"seed": 1}, (0.8, 0.2), seed=4)


def test_task_table_describes_every_task():
    assert TASKS == ("R", "I1", "I2", "S1", "S2")
    assert [t.sides for t in TASK_TABLE.values()] == [0, 1, 2, 1, 2]
    assert [t.by_similarity for t in TASK_TABLE.values()] == [False, False, False, True, True]
    text = " ".join(build_parser()._subparsers._group_actions[0].choices["split"].format_help().split())
    assert "R = random" in text and "S2 = similarity on both sides of a pair" in text
