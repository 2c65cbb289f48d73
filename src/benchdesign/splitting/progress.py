"""Stage timings and progress lines of a split.

Library functions mark their stages with ``stage`` (a context manager or decorator) and report
intermediate progress with ``note``; both are no-ops unless a [`Progress`][] is active
(``Progress.activate``), so the layered modules need no extra parameters. The file-level entry
point (``pipeline``) activates one and stores ``Progress.seconds`` (stage -> wall seconds, nested
stages named ``outer/inner``) in the JSON report. The lines go to the ``benchdesign.progress`` logger
at INFO (``benchdesign.logs``: silent in a Python session unless logging is configured; on stderr
for ``benchdesign split``, which ``--quiet`` turns off).
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from benchdesign.logs import logger

__all__ = ["Progress", "stage", "note", "active"]

F = TypeVar("F", bound=Callable)
_ACTIVE: ContextVar["Progress | None"] = ContextVar("benchdesign_progress", default=None)


class Progress:
    """Collects wall-clock and CPU seconds per stage and logs one line per event (INFO).

    Parameters
    ----------
    log : logging.Logger | None
        Where the lines go (None: the ``benchdesign.progress`` logger; ``benchdesign.logs``).
    prefix : str
        Prefix of every line.

    Attributes
    ----------
    seconds : dict
        Stage name -> total wall seconds (a stage entered twice adds up), in first-entry order.
    cpu_seconds : dict
        The same for CPU seconds (user + system) of this process and its finished children (e.g. the
        fingerprint workers): independent of how busy a shared machine is.

    Examples
    --------
    Nested stages are named ``outer/inner``; a stage entered twice adds up:

    >>> from benchdesign.splitting import Progress
    >>> progress = Progress()
    >>> with progress.stage("load"):
    ...     with progress.stage("parse"):
    ...         pass
    >>> with progress.stage("load"):
    ...     pass
    >>> list(progress.seconds), list(progress.rounded(cpu=True))
    (['load/parse', 'load'], ['load/parse', 'load'])
    >>> all(seconds >= 0 for seconds in progress.seconds.values())
    True
    """

    def __init__(self, log: logging.Logger | None = None, prefix: str = "benchdesign"):
        self.log = logger("progress") if log is None else log
        self.prefix = prefix
        self.seconds: dict[str, float] = {}
        self.cpu_seconds: dict[str, float] = {}
        self._stack: list[str] = []
        self._start = time.perf_counter()

    def _say(self, text: str) -> None:
        if self.log.isEnabledFor(logging.INFO):
            self.log.info(f"[{self.prefix} {time.perf_counter() - self._start:8.1f}s] {text}")

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the enclosed block as stage ``name`` (nested inside the current stage, if any)."""
        full = "/".join([*self._stack, name])
        self._stack.append(name)
        self._say(f"{full} ...")
        t0, c0 = time.perf_counter(), _cpu()
        try:
            yield
        finally:
            dt, dc = time.perf_counter() - t0, _cpu() - c0
            self._stack.pop()
            self.seconds[full] = self.seconds.get(full, 0.0) + dt
            self.cpu_seconds[full] = self.cpu_seconds.get(full, 0.0) + dc
            self._say(f"{full} done in {dt:.1f} s (CPU {dc:.1f} s)")

    def note(self, text: str) -> None:
        """One progress line inside the current stage."""
        self._say(f"{'/'.join(self._stack) or '-'}: {text}")

    @contextmanager
    def activate(self) -> Iterator["Progress"]:
        """Make this the progress that ``stage`` and ``note`` report to, inside the block."""
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)

    def rounded(self, digits: int = 3, cpu: bool = False) -> dict[str, float]:
        """``seconds`` (or ``cpu_seconds``) rounded, for reports."""
        return {k: round(v, digits) for k, v in (self.cpu_seconds if cpu else self.seconds).items()}


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def active() -> Progress | None:
    """The active [`Progress`][], or None."""
    return _ACTIVE.get()


class _Stage:
    """What ``stage`` returns: usable as ``with stage(name):`` and as ``@stage(name)``."""

    def __init__(self, name: str):
        self.name = name
        self._cm = None

    def __enter__(self) -> None:
        prog = _ACTIVE.get()
        if prog is not None:
            self._cm = prog.stage(self.name)
            self._cm.__enter__()

    def __exit__(self, *exc) -> None:
        if self._cm is not None:
            cm, self._cm = self._cm, None
            cm.__exit__(*exc)

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with _Stage(self.name):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


def stage(name: str) -> _Stage:
    """Mark a stage of the active [`Progress`][] (no-op without one); context manager or decorator."""
    return _Stage(name)


def note(text: str) -> None:
    """A progress line for the active [`Progress`][] (no-op without one)."""
    prog = _ACTIVE.get()
    if prog is not None:
        prog.note(text)
