"""Tests for the domain registry and the `table` domain kind (benchdesign.domains)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchdesign.data.sources import sha256_file
from benchdesign.domains import (
    BUILTIN_DOMAINS,
    REGISTRY,
    Domain,
    file_provenance,
    get_domain,
    load_representation,
    load_scores,
    read_feature_table,
    read_scores_table,
    register_domain,
)
from benchdesign.selection.protocol import dataset_pool_trials
from benchdesign.selection.ranking import rank_scores
from benchdesign.selection.tables import table1
from benchdesign.workflow.config import config_domain, domain_representations, enabled_domains, trial_combinations


def _write(path, text):
    path.write_text(text)
    return path


LONG = "dataset,model,fold,score\n" + "".join(
    f"d{d},m{m},{f},{(d * 7 + m * 3 + f) % 11 / 10}\n" for d in range(4) for m in range(3) for f in range(2)
)


def test_builtin_registry_order_and_directions():
    assert BUILTIN_DOMAINS == ("tsc", "recsys", "nlp")
    assert all(REGISTRY[d].higher_is_better for d in BUILTIN_DOMAINS)
    assert REGISTRY["recsys"].representations == ("interaction", "oracle")
    assert REGISTRY["tsc"].partial_coverage and not REGISTRY["nlp"].partial_coverage


def test_long_and_wide_layouts_agree(tmp_path):
    long = read_scores_table(_write(tmp_path / "long.csv", LONG), True)
    wide_text = "dataset,fold,m0,m1,m2\n" + "".join(
        f"d{d},{f}," + ",".join(str((d * 7 + m * 3 + f) % 11 / 10) for m in range(3)) + "\n"
        for d in range(4) for f in range(2)
    )
    wide = read_scores_table(_write(tmp_path / "wide.csv", wide_text), True)
    key = ["dataset", "model", "fold"]
    pd.testing.assert_frame_equal(long.sort_values(key).reset_index(drop=True),
                                  wide.sort_values(key).reset_index(drop=True))
    assert long.attrs["higher_is_better"] is True
    nofold = read_scores_table(_write(tmp_path / "nf.csv", "dataset,a,b\nx,1,2\ny,3,1\n"), False)
    assert set(nofold["fold"]) == {0} and len(nofold) == 4


@pytest.mark.parametrize("text, message", [
    ("dataset,model,score\nx,a,1\nx,b,\ny,a,1\ny,b,2\n", r"line 3 \(dataset 'x'\), column 'score': missing"),
    ("dataset,a,b\nx,1,nan\ny,1,2\n", r"line 2 .*column 'b': missing"),
    ("dataset,a,b\nx,1,abc\ny,1,2\n", r"column 'b': not a number: 'abc'"),
    ("dataset,model,score\nx,a,1\nx,a,2\nx,b,1\ny,a,1\ny,b,1\n",
     r"duplicate \(dataset, model\) rows, e.g. dataset 'x', model 'a'"),
    ("dataset,model,fold,score\nx,a,0,1\nx,a,0,2\nx,b,0,1\ny,a,0,1\ny,b,0,1\n", r"duplicate \(dataset, model, fold\)"),
    ("dataset,a\nx,1\ny,2\n", r"1 model\(s\) \['a'\]; need at least 2"),
    ("dataset,a,b\nx,1,2\n", r"1 dataset\(s\); need at least 2"),
    ("dataset,model,score\nx,a,1\nx,b,2\ny,a,1\n", r"dataset 'y' has no score for model\(s\) \['b'\]"),
    ("name,a,b\nx,1,2\n", r"has no 'dataset' column"),
])
def test_scores_table_errors(tmp_path, text, message):
    path = _write(tmp_path / "scores.csv", text)
    with pytest.raises(ValueError, match=message) as err:
        read_scores_table(path, True)
    assert "scores.csv" in str(err.value)


def test_feature_table_errors(tmp_path):
    with pytest.raises(ValueError, match=r"feat.csv', line 3 \(dataset 'y'\), column 'f2': not a number: 'big'"):
        read_feature_table(_write(tmp_path / "feat.csv", "dataset,f1,f2\nx,1,2\ny,3,big\n"))
    with pytest.raises(ValueError, match=r"duplicate dataset row\(s\) \['x'\]"):
        read_feature_table(_write(tmp_path / "dup.csv", "dataset,f1\nx,1\nx,2\n"))
    with pytest.raises(ValueError, match="does not exist"):
        read_feature_table(tmp_path / "absent.csv")


def _table_entry(tmp_path):
    scores = _write(tmp_path / "scores.csv", LONG)
    feats = _write(tmp_path / "meta.csv", "dataset,a,b\nd0,1,0\nd1,0,1\nd2,1,1\nd3,2,5\n")
    return {"kind": "table", "scores": str(scores), "higher_is_better": True, "features": {"meta": str(feats)}}


def test_table_domain_loads_and_reports_missing_datasets(tmp_path):
    entry = _table_entry(tmp_path)
    domain = get_domain("mybench", entry)
    assert domain.representations == ("meta", "oracle") and domain.inputs == (entry["scores"], entry["features"]["meta"])
    files = {p: p for p in domain.inputs}
    ranks = rank_scores(load_scores(domain, files, None), domain.higher_is_better)
    X = load_representation(domain, "meta", files, ranks)
    assert list(X.index) == list(ranks.index) and list(X.columns) == ["a", "b"]
    _write(tmp_path / "meta.csv", "dataset,a,b\nd0,1,0\nd1,0,1\n")
    with pytest.raises(ValueError, match=r"mybench/meta: no features for dataset\(s\) \['d2', 'd3'\]"):
        load_representation(domain, "meta", files, ranks)
    prov = file_provenance(list(domain.inputs))
    assert prov[0]["sha256"] == sha256_file(entry["scores"]) and prov[0]["bytes"] == len(LONG)


def test_config_with_table_domain(tmp_path):
    config = {"domains": {"recsys": {"enabled": False}, "mybench": _table_entry(tmp_path), "tsc": {}}}
    assert enabled_domains(config) == ["tsc", "mybench"]
    assert domain_representations(config, "mybench") == ["meta", "oracle"]
    combos = trial_combinations({**config, "protocol": {"strategies": ["random", "fafi_cosine"]}})
    assert ("dataset_pool", "mybench", "meta", "fafi_cosine") in combos
    assert ("dataset_pool", "mybench", "none", "random") in combos
    assert config_domain(config, "mybench").higher_is_better is True
    with pytest.raises(ValueError, match="unknown domain 'vision'"):
        enabled_domains({"domains": {"vision": {}}})
    with pytest.raises(ValueError, match="must match"):
        enabled_domains({"domains": {"my-bench": {"kind": "table"}}})
    with pytest.raises(ValueError, match="unknown kind 'sql'"):
        get_domain("x", {"kind": "sql"})
    with pytest.raises(ValueError, match=r"unknown strategy\(ies\) \['greedy'\]"):
        trial_combinations({**config, "protocol": {"strategies": ["greedy"]}})


def test_registered_test_domain_runs_end_to_end():
    """A domain registered here alone goes through loading, ranking, representation, trials, Table 1."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame([(f"t{d}", f"m{m}", 0, m + 0.1 * d) for d in range(8) for m in range(4)],
                         columns=["dataset", "model", "fold", "score"])
    feats = pd.DataFrame(rng.normal(size=(8, 3)), index=[f"t{d}" for d in range(8)])
    domain = register_domain(Domain(
        name="testdomain_e2e", label="Test", higher_is_better=False,
        load_scores=lambda files, models: frame, builders={"feats": lambda files: feats},
    ))
    try:
        assert get_domain("testdomain_e2e") is domain
        ranks = rank_scores(load_scores(domain, {}, None), domain.higher_is_better)
        assert (ranks.to_numpy() == [1.0, 2.0, 3.0, 4.0]).all()  # lower is better: m0 best everywhere
        X = load_representation(domain, "feats", {}, ranks).to_numpy()
        trials = dataset_pool_trials(ranks.to_numpy(), X, "fafi_cosine", [2, 3], 5, 0.75, 1)
        trials = trials.assign(domain="testdomain_e2e", variation="dataset_pool", strategy="fafi_cosine",
                               representation="feats")
        t1 = table1(trials, {"testdomain_e2e": 8})
        assert set(t1["domain"]) == {"testdomain_e2e"} and (t1["n_trials"] == 5).all()
        with pytest.raises(ValueError, match="already registered"):
            register_domain(Domain(name="testdomain_e2e", label="x", higher_is_better=True,
                                   load_scores=lambda f, m: frame))
    finally:
        REGISTRY.pop("testdomain_e2e")
