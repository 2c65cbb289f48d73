"""Skip markers for tests that need an optional extra."""

from __future__ import annotations

import importlib.util

import pytest


def has(module: str) -> bool:
    """True when ``module`` can be imported."""
    return importlib.util.find_spec(module) is not None


def needs(module: str, extra: str) -> pytest.MarkDecorator:
    """Skip unless ``module`` is installed, naming the extra that provides it."""
    return pytest.mark.skipif(not has(module), reason=f"{module} (extra '{extra}') is not installed")


needs_aeon = needs("aeon", "tsc")
needs_catch22 = needs("pycatch22", "tsc-features")
needs_tsfresh = needs("tsfresh", "tsc-features")
