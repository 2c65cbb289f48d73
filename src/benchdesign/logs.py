"""Logging set-up shared by the workflow scripts and the command line."""

from __future__ import annotations

import logging
import sys
from pathlib import Path


def start_log(path: str | Path | None = None, name: str = "benchdesign") -> logging.Logger:
    """Log INFO and above (with timestamps) to ``path`` and stderr; warnings go there too."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(path, mode="w"))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    logging.captureWarnings(True)
    return logging.getLogger(name)
