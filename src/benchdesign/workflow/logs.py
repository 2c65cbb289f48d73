"""Logging set-up shared by the workflow scripts and the command line."""

from __future__ import annotations

import logging
import sys
import traceback
from pathlib import Path


def start_log(path: str | Path | None = None, name: str = "benchdesign") -> logging.Logger:
    """Log INFO and above with timestamps; with ``path``, stderr (tracebacks included) goes there too, and an
    uncaught error's last line (e.g. a checksum mismatch naming the file) is also printed on the console, with the
    log's path, so that it is not only in the log."""
    stream = sys.stderr
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        stream = open(path, "w", buffering=1)  # noqa: SIM115 - lives as long as the process
        sys.stderr = stream
        sys.excepthook = _console_too(Path(path))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=[logging.StreamHandler(stream)],
        force=True,
    )
    logging.captureWarnings(True)
    return logging.getLogger(name)


def _console_too(log_path: Path):
    """An excepthook: the traceback to the log (``sys.stderr``), the error's message to the console."""
    console = sys.__stderr__

    def hook(exc_type, exc, tb):
        traceback.print_exception(exc_type, exc, tb)
        sys.stderr.flush()
        if console is not None:
            console.write(f"error: {exc_type.__name__}: {exc}\n  (traceback in {log_path})\n")
            console.flush()

    return hook
