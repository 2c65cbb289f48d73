"""Progress messages through the standard ``logging`` module, under the logger ``benchdesign``.

The library only logs (progress at INFO, e.g. the stage lines of a split); it installs no handler
beyond the ``NullHandler`` the logging guide asks libraries for, so a Python user sees nothing unless
they configure logging (``logging.basicConfig(level=logging.INFO)``) and can silence it with
``logging.getLogger("benchdesign").setLevel(logging.WARNING)``. The command line and the workflow's
scripts call [`console_logging`][] to print progress on stderr; ``--quiet`` keeps warnings only.
Result tables go to stdout, progress and warnings to stderr.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

__all__ = ["LOGGER_NAME", "console_logging", "logger"]

LOGGER_NAME = "benchdesign"
logging.getLogger(LOGGER_NAME).addHandler(logging.NullHandler())


def logger(name: str = "") -> logging.Logger:
    """The ``benchdesign`` logger, or its child ``benchdesign.<name>``."""
    return logging.getLogger(f"{LOGGER_NAME}.{name}" if name else LOGGER_NAME)


def console_logging(quiet: bool = False, stream: TextIO | None = None) -> logging.Handler:
    """Print the ``benchdesign`` logger's messages on ``stream`` (default: the current stderr), bare.

    Replaces the handler an earlier call installed, so calling it twice prints each message once.

    Parameters
    ----------
    quiet : bool
        Warnings and errors only (no progress).
    stream : TextIO | None
        Where to print (None: ``sys.stderr`` at the time of the call).

    Returns
    -------
    logging.Handler
        The installed handler.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> _ = console_logging(stream=out)
    >>> logger("demo").info("step 1 of 2")
    >>> out.getvalue()
    'step 1 of 2\\n'
    >>> _ = console_logging(quiet=True, stream=out)
    >>> logger("demo").info("step 2 of 2")
    >>> out.getvalue()
    'step 1 of 2\\n'
    """
    root = logging.getLogger(LOGGER_NAME)
    for old in [h for h in root.handlers if getattr(h, "_benchdesign_console", False)]:
        root.removeHandler(old)
    handler = logging.StreamHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler._benchdesign_console = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(logging.WARNING if quiet else logging.INFO)
    root.propagate = False  # printed here once, not again by a handler of the root logger
    return handler
