"""Logging set-up shared by the workflow scripts and the command line."""

from __future__ import annotations

import logging
import sys
from pathlib import Path


def start_log(path: str | Path | None = None, name: str = "benchdesign") -> logging.Logger:
    """Log INFO and above with timestamps; with ``path``, stderr (tracebacks included) goes there too."""
    stream = sys.stderr
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        stream = open(path, "w", buffering=1)  # noqa: SIM115 - lives as long as the process
        sys.stderr = stream
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=[logging.StreamHandler(stream)],
        force=True,
    )
    logging.captureWarnings(True)
    return logging.getLogger(name)
