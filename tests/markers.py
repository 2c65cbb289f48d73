"""Skip markers for tests that need an optional extra."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml


def has(module: str) -> bool:
    """True when ``module`` can be imported."""
    return importlib.util.find_spec(module) is not None


def needs(module: str, extra: str, *also: str) -> pytest.MarkDecorator:
    """Skip unless ``module`` (and the modules ``also``) are installed, naming the extra that provides them."""
    modules = (module, *also)
    missing = [m for m in modules if not has(m)]
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} (extra '{extra}') not installed")


needs_datasail = needs("datasail", "peer")
# LoHi also needs `pip install --no-deps lohi-splitter==1.1` (see pyproject.toml, extra lohi)
needs_lohi = needs("lohi_splitter", "lohi", "mip")


def needs_packages_of(*configfiles: Path) -> pytest.MarkDecorator:
    """Skip unless every package the config files (merged in order, as Snakemake does) ask for is installed:
    else the workflow refuses to run them (``benchdesign.workflow.preflight.check_packages``)."""
    from snakemake.utils import update_config

    from benchdesign.workflow.preflight import missing_packages

    config: dict = {}
    for path in configfiles:
        update_config(config, yaml.safe_load(Path(path).read_text()) or {})
    missing = sorted({m for _, absent in missing_packages(config) for m in absent})
    return pytest.mark.skipif(bool(missing), reason=f"the config asks for {', '.join(missing)}: not installed")
