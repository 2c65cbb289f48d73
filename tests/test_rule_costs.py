"""benchmarks/rule_costs.py --from-log: wall seconds per rule from a Snakemake log, on a hand-written log."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "rule_costs.py"

# Two jobs overlapping (rule a: 10 s; checkpoint c: 3 s), then two jobs of rule a (5 s and 61 s), and a job
# that never finishes (not counted). Laid out as Snakemake 9 writes its log.
LOG = """\
Building DAG of jobs...
Job stats:
job      count
a            3
[Wed Dec  2 16:49:21 2026]
localrule a:
    output: x
    jobid: 7
    reason: Missing output files: x
[Wed Dec  2 16:49:22 2026]
localcheckpoint c:
    output: y
    jobid: 8
[Wed Dec  2 16:49:25 2026]
Finished jobid: 8 (Rule: c)
1 of 4 steps (25%) done
[Wed Dec  2 16:49:31 2026]
Finished jobid: 7 (Rule: a)
[Wed Dec  2 16:59:58 2026]
rule a:
    jobid: 9
[Wed Dec  2 17:00:03 2026]
Finished jobid: 9 (Rule: a)
[Wed Dec  2 17:00:03 2026]
rule a:
    jobid: 10
[Wed Dec  2 17:00:03 2026]
rule b:
    jobid: 11
[Wed Dec  2 17:01:04 2026]
Finished jobid: 10 (Rule: a)
"""


@pytest.fixture(scope="module")
def rule_costs():
    spec = importlib.util.spec_from_file_location("rule_costs", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_read_log_sums_each_rules_job_walls(rule_costs, tmp_path):
    log = tmp_path / "run.log"
    log.write_text(LOG)
    rows, span = rule_costs.read_log(log)
    assert rows == {"a": {"jobs": 3, "wall_s": 10 + 5 + 61}, "c": {"jobs": 1, "wall_s": 3}}
    assert span == 11 * 60 + 43  # 16:49:21 to 17:01:04
    table = rule_costs.log_table(rows, span)
    assert table.splitlines()[2] == "| a | 3 | 76 | 25.3 |"
    assert "| **all jobs** | 4 | 79 | 19.8 |" in table


def test_read_log_names_the_line_of_a_job_without_timestamp(rule_costs, tmp_path):
    log = tmp_path / "bad.log"
    log.write_text("rule a:\n    jobid: 1\n")
    with pytest.raises(ValueError, match=r"bad\.log, line 2"):
        rule_costs.read_log(log)
