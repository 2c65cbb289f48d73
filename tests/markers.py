"""Skip markers for tests that need an optional extra."""

from __future__ import annotations

import importlib.util

import pytest


def has(module: str) -> bool:
    """True when ``module`` can be imported."""
    return importlib.util.find_spec(module) is not None


def needs(module: str, extra: str, *also: str) -> pytest.MarkDecorator:
    """Skip unless ``module`` (and the modules ``also``) are installed, naming the extra that provides them."""
    modules = (module, *also)
    missing = [m for m in modules if not has(m)]
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} (extra '{extra}') not installed")


needs_aeon = needs("aeon", "tsc")
needs_catch22 = needs("pycatch22", "tsc-features")
needs_tsfresh = needs("tsfresh", "tsc-features")
needs_datasail = needs("datasail", "peer")
# LoHi also needs `pip install --no-deps lohi-splitter==1.1` (see pyproject.toml, extra lohi)
needs_lohi = needs("lohi_splitter", "lohi", "mip")
