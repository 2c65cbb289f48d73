"""benchmarks/job_concurrency.py: jobs running at once in a Snakemake run, on a hand-written log."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "job_concurrency.py"

# Rule a (jobid 1, 0-10 s) overlaps checkpoint c (2, 2-5 s) and rule b (3, 4-6 s): three at once from 4 to 5 s;
# then rule b (4) alone from 10 to 20 s. Laid out as Snakemake 9 writes its log.
LOG = """\
[Wed Dec  2 16:00:00 2026]
localrule a:
    output: x
    jobid: 1
[Wed Dec  2 16:00:02 2026]
localcheckpoint c:
    jobid: 2
[Wed Dec  2 16:00:04 2026]
rule b:
    wildcards: n=1
    jobid: 3
[Wed Dec  2 16:00:05 2026]
Finished jobid: 2 (Rule: c)
[Wed Dec  2 16:00:06 2026]
Finished jobid: 3 (Rule: b)
[Wed Dec  2 16:00:10 2026]
Finished jobid: 1 (Rule: a)
[Wed Dec  2 16:00:10 2026]
rule b:
    jobid: 4
[Wed Dec  2 16:00:20 2026]
Finished jobid: 4 (Rule: b)
"""


def _module():
    spec = importlib.util.spec_from_file_location("job_concurrency", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_jobs_at_once_from_a_log(tmp_path, capsys):
    module = _module()
    jobs = module.job_intervals(LOG.splitlines())
    assert {k: v[0] for k, v in jobs.items()} == {1: "a", 2: "c", 3: "b", 4: "b"}
    most, mean = module.concurrency(jobs)
    assert most == 3
    assert mean == (10 + 3 + 2 + 10) / 20  # job-seconds over the 20 s the run spans
    assert module.concurrency(jobs, "b") == (1, 12 / 16)  # b from 4 to 20 s: 2 + 10 job-seconds
    (tmp_path / "run.log").write_text(LOG)
    module.main([str(tmp_path / "run.log")])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "4 jobs; at most 3 running at once, 1.25 on average"
    assert "  b: 2 jobs, at most 1 at once" in out
