"""The Examples sections of the public API run: every public name of ``benchdesign.splitting``,
``benchdesign.selection``, ``benchdesign.domains`` and ``benchdesign.data`` whose docstring holds ``>>>`` lines is
run as a doctest (in a scratch directory, with its module's globals, as ``pytest --doctest-modules``), and every
public function and class has one.
"""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

PACKAGES = ("splitting", "selection", "domains", "data")
ENTRY_POINTS = (
    "splitting.LeakageKFold", "splitting.LeakageSplit", "splitting.split_entities", "splitting.leakage",
    "selection.select_datasets", "selection.evaluate_benchmark", "selection.subset_agreement",
    "domains.register_domain", "domains.load_scores", "domains.table_domain",
)


def public_objects() -> dict[str, object]:
    """``"splitting.LeakageKFold"`` -> the object, taken from its defining submodule (``leakage`` is also the
    name of a submodule of ``benchdesign.splitting``)."""
    found = {}
    for name in PACKAGES:
        package = importlib.import_module(f"benchdesign.{name}")
        exports = getattr(package, "_EXPORTS", None)
        for public in package.__all__:
            module = package
            if exports is not None:
                where = next(m for m, names in exports.items() if public in names)
                module = importlib.import_module(f"benchdesign.{name}.{where}")
            found[f"{name}.{public}"] = getattr(module, public)
    return found


def with_examples() -> list[str]:
    return [label for label, obj in public_objects().items() if ">>>" in (getattr(obj, "__doc__", None) or "")
            and (callable(obj))]


def test_entry_points_have_examples():
    missing = sorted(set(ENTRY_POINTS) - set(with_examples()))
    assert not missing, f"entry points without an Examples section: {missing}"


def test_every_public_function_and_class_has_examples():
    objects = public_objects()
    missing = sorted(label for label, obj in objects.items()
                     if (inspect.isfunction(obj) or inspect.isclass(obj)) and ">>>" not in (obj.__doc__ or ""))
    assert len(objects) > 150 and not missing, f"public objects without an Examples section: {missing}"


@pytest.mark.parametrize("name", with_examples())
def test_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    obj = public_objects()[name]
    defining = importlib.import_module(obj.__module__)  # its globals, as pytest --doctest-modules
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder(recurse=False).find(obj, name, module=defining):
        runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} doctest failure(s), see the captured output"
