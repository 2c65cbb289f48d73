"""The package check the workflow runs before any job (benchdesign.workflow.preflight.check_packages): a config
asking for a representation, model, peer split method or solver whose package is not installed is refused with
one message naming every such config value, the package and its pip line; nothing runs, a dry run included."""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import re

import pytest
import yaml
from workflow_helpers import TINY, package_shim, snakemake

from benchdesign.molexp.splitters import LOHI_INSTALL
from benchdesign.workflow.preflight import check_packages, install_hint, missing_packages, package_needs

# Every kind of value the check reads: TSC representations, the NLP encoder, a model, peer methods, solvers.
CONFIG = {
    "domains": {"tsc": {"representations": ["catch22_paper", "summary", "minirocket", "oracle"]},
                "nlp": {"representations": ["description", "oracle"]}},
    "features": {"nlp": {"encoder": "bert-base-uncased"}},
    "molecules": {"enabled": True, "models": ["rf", "xgb", "dmpnn", "deepdta"],
                  "methods_1d": ["random", "s1", "lohi", "datasail_s1"],
                  "ilp": {"solver": "SCIP"}, "ablation": {"solvers": ["HIGHS", "GUROBI"], "size_methods": ["s1"]}},
}
ABSENT = {"pycatch22", "sktime", "transformers", "xgboost", "chemprop", "lohi_splitter", "mip", "datasail", "pyscipopt",
          "gurobipy"}


def fake_find_spec(absent):
    """find_spec of an environment where every module but ``absent`` is installed."""
    return lambda name, *args: None if name in absent else importlib.machinery.ModuleSpec(name, None)


def test_every_missing_package_is_named_in_one_message():
    with pytest.raises(ValueError) as err:
        check_packages(CONFIG, find_spec=fake_find_spec(ABSENT))
    rows = [
        ("domains.tsc.representations: catch22_paper", "pycatch22", install_hint("pycatch22")),
        ("domains.tsc.representations: minirocket", "sktime", install_hint("sktime")),
        ("features.nlp.encoder: bert-base-uncased", "transformers", install_hint("transformers")),
        ("molecules.models: xgb", "xgboost", install_hint("xgboost")),
        ("molecules.models: dmpnn", "chemprop", install_hint("chemprop")),
        ("molecules.methods_1d: datasail_s1", "datasail", install_hint("datasail")),
        ("molecules.ilp.solver: SCIP", "pyscipopt", install_hint("pyscipopt")),
        ("molecules.ablation.solvers: GUROBI", "gurobipy", install_hint("gurobipy")),
        ("molecules.method_options.datasail_s1.solver: SCIP", "pyscipopt", install_hint("pyscipopt")),
    ]
    assert str(err.value) == (
        "the config asks for packages that are not installed, so nothing was run:\n"
        + "".join(f"  - {what} needs {modules} ({hint})\n" for what, modules, hint in rows)
        + "Install them, or remove these values from the config.")
    assert "mip" in LOHI_INSTALL and "networkx" in LOHI_INSTALL


def test_lohi_missing_is_announced_not_refused():
    """LoHi cannot be installed by one pip command with benchdesign: a run without it goes on, and says so."""
    for absent in ({"lohi_splitter"}, {"lohi_splitter", "mip"}):
        notices = check_packages(CONFIG, find_spec=fake_find_spec(absent))
        modules = ", ".join(sorted(absent, key=["lohi_splitter", "mip"].index))
        assert [n.split(" (")[0] for n in notices] == [
            f"molecules.methods_1d: lohi needs {modules}",
            f"molecules.methods_2d: lohi_drug needs {modules}"]  # the default methods_2d (davis)
        assert all(LOHI_INSTALL in n and "recorded as skipped" in n for n in notices)
    assert check_packages(CONFIG, find_spec=fake_find_spec(set())) == []
    # refused values are still refused, with LoHi left out of the message
    with pytest.raises(ValueError, match="xgb needs xgboost") as err:
        check_packages(CONFIG, find_spec=fake_find_spec({"lohi_splitter", "xgboost"}))
    assert "lohi" not in str(err.value)


def test_installed_packages_and_values_needing_none_pass():
    check_packages(CONFIG, find_spec=fake_find_spec(set()))
    assert missing_packages(CONFIG, find_spec=fake_find_spec({"numba"})) == [
        (next(n for n in package_needs(CONFIG) if n.value == "minirocket"), ("numba",))]
    # a lookup that fails (e.g. a broken parent package) counts as missing
    def broken(name, *args):
        raise ImportError(name)
    assert {n.value for n, _ in missing_packages(CONFIG, find_spec=broken)} >= {"catch22_paper", "xgb", "dmpnn", "deepdta",
                                                                                 "lohi"}
    assert [n.modules for n in package_needs(CONFIG) if n.value == "deepdta"] == [("torch",)]  # DeepDTA: torch only
    one_d = {**CONFIG, "molecules": {**CONFIG["molecules"], "datasets": ["tox21"]}}  # deepdta is fitted on pairs only
    assert "deepdta" not in {n.value for n in package_needs(one_d)} and "xgb" in {n.value for n in package_needs(one_d)}


def test_only_what_the_run_uses_is_checked():
    quiet = {
        "domains": {"tsc": {"representations": ["simple", "landmarking_paper", "oracle"]},
                    "nlp": {"enabled": False, "representations": ["description", "oracle"]}},
        "features": {"nlp": {"encoder": "bert-base-uncased"}},  # nlp is off: its encoder is not used
        "molecules": {"enabled": False, "models": ["dmpnn"]},
    }
    assert package_needs(quiet) == []
    tfidf = {"domains": {"nlp": {"representations": ["description", "oracle"]}}}
    assert package_needs(tfidf) == []  # the default encoder, TF-IDF, is scikit-learn
    # datasail run by another interpreter: neither it nor its solver is looked up here; no ablation: no sweeps
    other = {"molecules": {"enabled": True, "models": ["rf"], "methods_1d": ["random", "datasail_s1"],
                           "methods_2d": ["random", "s2"],
                           "method_options": {"datasail_s1": {"python": "/opt/datasail/bin/python"}},
                           "ablation": {"enabled": False}}}
    assert [(n.key, n.value) for n in package_needs(other)] == [("molecules.ilp.solver", "HIGHS")]
    # 2-D datasets only: the 1-D methods are not run
    pairs = {"molecules": {"enabled": True, "datasets": ["davis"], "methods_1d": ["lohi"], "ablation": {"enabled": False}}}
    assert "lohi" not in {n.value for n in package_needs(pairs)}
    # the peers of the pairs need their packages: LoHi's for lohi_drug, graph_part for graphpart_target
    assert {(n.value, n.modules) for n in package_needs(pairs) if n.key == "molecules.methods_2d"} == {
        ("lohi_drug", ("lohi_splitter", "mip", "networkx")), ("graphpart_target", ("graph_part",))}


def test_unknown_solver_is_named():
    with pytest.raises(ValueError, match=re.escape("config key splitting.solver: unknown solver 'FOO'; choose from")):
        package_needs({"splitting": {"name": "x", "input": "t.csv", "solver": "FOO"}})
    assert [(n.key, n.value) for n in package_needs({"splitting": {"name": "x", "input": "t.csv", "solver": "scip"}})] \
        == [("splitting.solver", "scip")]


def test_install_hint_is_benchdesigns_own_requirement(monkeypatch):
    requires = ["numpy>=1.26", "sktime<1.3,>=1.1", 'torch==2.13.0; extra == "nlp-encoder"',
                'chemprop<2.3,>=2.2; extra == "chemprop"', 'PySCIPOpt>=5; extra == "solvers"']
    monkeypatch.setattr(importlib.metadata, "requires", lambda name: requires if name == "benchdesign" else None)
    assert install_hint("sktime") == "pip install 'sktime<1.3,>=1.1'"
    assert install_hint("torch") == "pip install torch==2.13.0"
    assert install_hint("pyscipopt") == "pip install 'PySCIPOpt>=5'"  # distribution names compare canonically
    assert install_hint("gurobipy") == "pip install gurobipy"  # not a requirement of benchdesign: its name
    assert install_hint("lohi_splitter") == LOHI_INSTALL  # --no-deps: a line of its own

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)
    monkeypatch.setattr(importlib.metadata, "requires", not_installed)
    assert install_hint("sktime") == "pip install sktime"


def test_every_solver_of_the_table_has_its_options(monkeypatch):
    """SOLVER_PACKAGES names the solvers solver_options knows, so a checked solver is one a job can run."""
    from benchdesign.splitting import ilp

    monkeypatch.setattr(ilp, "available_milp_solvers", lambda: list(ilp.SOLVER_PACKAGES))
    for name in ilp.SOLVER_PACKAGES:
        assert ilp.solver_options(name, 10.0), name


@pytest.mark.workflow
def test_dry_run_is_refused_before_any_job(tmp_path):
    """The tiny config asking for catch22_paper, dmpnn and lohi, their packages made absent: snakemake (a dry run
    and a real run) stops when it reads the config, with the one message (LoHi, announced instead, not in it) and no
    traceback, and runs nothing."""
    overlay = tmp_path / "needs.yaml"
    overlay.write_text(yaml.safe_dump({
        "domains": {"tsc": {"representations": ["catch22_paper", "oracle"]}},
        "molecules": {"enabled": True, "datasets": ["sr_are"], "models": ["rf", "dmpnn"],
                      "methods_1d": ["random", "lohi"], "ablation": {"enabled": False}},
    }))
    env = package_shim(tmp_path / "shim", absent={"pycatch22", "chemprop", "lohi_splitter", "mip"})
    work = tmp_path / "run"
    expected = ("the config asks for packages that are not installed, so nothing was run:\n"
                f"  - domains.tsc.representations: catch22_paper needs pycatch22 ({install_hint('pycatch22')})\n"
                f"  - molecules.models: dmpnn needs chemprop ({install_hint('chemprop')})\n"
                "Install them, or remove these values from the config.")
    for args in (("--dry-run",), ("results/prepared/recsys/scores.csv",)):
        result = snakemake(work, *args, configfiles=(TINY, overlay), env=env, check=False)
        out = result.stdout + result.stderr
        assert result.returncode != 0, out[-3000:]
        assert expected in out and "lohi" not in out, out[-3000:]
        assert "Traceback" not in out and len(out.splitlines()) < 15, out  # the message, not a stack
        assert "Job stats" not in out and "This was a dry-run" not in out, out
        assert not (work / "results").exists() and not (work / "resources").exists() and not (work / "logs").exists()


@pytest.mark.workflow
def test_a_run_without_lohi_goes_on_and_says_so(tmp_path):
    """LoHi absent, everything else present: the dry run plans the LoHi split jobs and prints the notice once."""
    overlay = tmp_path / "lohi.yaml"
    overlay.write_text(yaml.safe_dump({"molecules": {"enabled": True, "datasets": ["sr_are"], "models": ["rf"],
                                                     "methods_1d": ["random", "lohi"], "ablation": {"enabled": False}}}))
    env = package_shim(tmp_path / "shim", absent={"lohi_splitter"})
    result = snakemake(tmp_path / "run", "--dry-run", configfiles=(TINY, overlay), env=env, check=False)
    out = result.stdout + result.stderr
    assert result.returncode == 0 and "This was a dry-run" in out, out[-3000:]
    notice = (f"benchdesign: molecules.methods_1d: lohi needs lohi_splitter ({LOHI_INSTALL}): not installed, so its "
              "splits are recorded as skipped")
    assert out.count(notice) == 1, out[-3000:]


def test_esm_protein_features_need_fair_esm_when_the_run_has_pairs(monkeypatch):
    esm = {"molecules": {"enabled": True, "datasets": ["tox21", "davis"], "models": ["rf"], "methods_1d": ["s1"],
                         "protein_representation": "esm2_t12", "ablation": {"enabled": False}}}
    with pytest.raises(ValueError) as err:
        check_packages(esm, find_spec=fake_find_spec({"esm"}))
    assert f"  - molecules.protein_representation: esm2_t12 needs esm ({install_hint('esm')})\n" in str(err.value)
    check_packages(esm, find_spec=fake_find_spec(set()))
    one_d = {"molecules": {**esm["molecules"], "datasets": ["tox21"]}}  # no proteins: no ESM-2
    assert "molecules.protein_representation" not in {n.key for n in package_needs(one_d)}
    composition = {"molecules": {**esm["molecules"], "protein_representation": "composition"}}
    assert "molecules.protein_representation" not in {n.key for n in package_needs(composition)}
    # the hint installs fair-esm (PyPI's "esm" is another package), with benchdesign's pin when it has one
    monkeypatch.setattr(importlib.metadata, "requires",
                        lambda name: ['fair-esm==2.0.0; extra == "esm"'] if name == "benchdesign" else None)
    assert install_hint("esm") == "pip install fair-esm==2.0.0"


def test_a_missing_local_esm_weights_file_is_refused_with_its_key(tmp_path, monkeypatch):
    from benchdesign.workflow.preflight import check_esm_weights

    monkeypatch.chdir(tmp_path)
    config = {"molecules": {"enabled": True, "datasets": ["davis"], "protein_representation": "esm2_t12",
                            "esm_weights": "weights/esm2_t12_35M_UR50D.pt"}}
    with pytest.raises(ValueError, match=re.escape("config key molecules.esm_weights: weights/esm2_t12_35M_UR50D.pt "
                                                   f"(resolved: {tmp_path}/weights/esm2_t12_35M_UR50D.pt) is not a file")):
        check_esm_weights(config)
    (tmp_path / "weights").mkdir()
    (tmp_path / "weights" / "esm2_t12_35M_UR50D.pt").write_bytes(b"x")
    check_esm_weights(config)
    # not used, not checked: composition, a run without pairs, molecules off
    for change in ({"protein_representation": "composition"}, {"datasets": ["tox21"]}, {"enabled": False}):
        check_esm_weights({"molecules": {**config["molecules"], **change, "esm_weights": "absent.pt"}})
