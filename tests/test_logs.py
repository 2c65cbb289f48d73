"""Workflow scripts log to their rule's log file; an uncaught error's message also reaches the console."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_an_error_is_shown_on_the_console_and_its_traceback_logged(tmp_path):
    log = tmp_path / "logs" / "rule.log"
    script = textwrap.dedent(f"""
        from benchdesign.workflow.logs import start_log
        start_log({str(log)!r}).info("started")
        raise ValueError("mirror file mol/tox21.csv: sha256 abc... expected def...; delete it and rerun")
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode != 0
    assert "error: ValueError: mirror file mol/tox21.csv: sha256 abc... expected def..." in result.stderr
    assert str(log) in result.stderr and "Traceback" not in result.stderr
    text = log.read_text()
    assert "started" in text and "Traceback" in text and "mol/tox21.csv" in text
