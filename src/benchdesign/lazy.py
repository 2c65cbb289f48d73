"""Public names of a package imported from its submodules on first use (PEP 562).

A package's ``__init__`` lists its names by submodule and calls :func:`lazy_exports`; importing one submodule
(e.g. for the command line's option lists) then loads none of the others' dependencies.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence


def lazy_exports(package: str, exports: Mapping[str, Sequence[str]]) -> tuple[list[str], Callable, Callable]:
    """``(__all__, __getattr__, __dir__)`` for ``package`` whose names ``exports`` lists by submodule."""
    module_of = {name: module for module, names in exports.items() for name in names}
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str):
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(module_of))

    return list(module_of), __getattr__, __dir__
