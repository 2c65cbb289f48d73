"""File-level entry point shared by the CLI (`benchdesign split`) and the Snakemake rule.

Output TSV (one row per input row; for 2-D data one row per interaction row), columns:
- ``id``: the id column's value, or the 0-based row number when no id column is given
- ``split``: the fold name, or ``unassigned``
- ``reason``: empty for assigned rows; otherwise ``invalid_smiles`` / ``invalid_sequence`` /
  ``invalid_features`` (row excluded with --drop-invalid) or ``entities_in_different_folds``
  (2-D I2/S2: the interaction's two entities landed in different folds and it was dropped)

Outputs are written atomically (temporary file + os.replace): on any error no output file appears.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.splitting.inputs import (
    entities_from_table,
    entity_ids,
    index_interactions,
    load_matrix,
    read_table,
)
from benchdesign.splitting.leakage import sampled_leakage
from benchdesign.splitting.progress import Progress, stage
from benchdesign.splitting.tasks import EntitySet, SplitResult, SplitSpec, split_entities, split_interactions

__all__ = ["EntityInput", "SplitJob", "load_entities", "run_split", "summarize", "write_atomic", "write_split_tsv"]


@dataclass(frozen=True)
class EntityInput:
    """Where one entity table lives and which columns describe its entities."""

    path: str
    id_col: str | None = None
    smiles_col: str | None = None
    sequence_col: str | None = None
    feature_cols: tuple[str, ...] = ()
    matrix: str | None = None
    matrix_kind: str = "similarity"
    metric: str = "cosine"
    class_cols: tuple[str, ...] = ()


@dataclass(frozen=True)
class SplitJob:
    """A complete split request: task, inputs, options and output paths.

    For 1-D data only ``entities`` is needed; for 2-D data give ``interactions`` (with its two id
    columns) and ``entities_b`` for the second side (``entities`` is side a).
    """

    task: str
    entities: EntityInput
    out: str
    spec: SplitSpec = field(default_factory=SplitSpec)
    interactions: str | None = None
    inter_a_col: str = "id_a"
    inter_b_col: str = "id_b"
    inter_id_col: str | None = None
    entities_b: EntityInput | None = None
    side: str = "a"
    drop_invalid: bool = False
    radius: int = 2
    n_bits: int = 1024
    kmer: int = 3
    report: str | None = None


def load_entities(inp: EntityInput, job: SplitJob, what: str) -> tuple[pd.DataFrame, EntitySet]:
    """Read one entity table and build its :class:`EntitySet`."""
    df = read_table(inp.path, [c for c in (inp.id_col,) if c])
    matrix = load_matrix(inp.matrix) if inp.matrix else None
    ent = entities_from_table(
        df, id_col=inp.id_col, smiles_col=inp.smiles_col, sequence_col=inp.sequence_col,
        feature_cols=inp.feature_cols, matrix=matrix, matrix_kind=inp.matrix_kind, class_cols=inp.class_cols,
        drop_invalid=job.drop_invalid, metric=inp.metric, radius=job.radius, n_bits=job.n_bits, kmer=job.kmer,
        what=what,
    )
    return df, ent


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same directory and os.replace."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, p)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_split_tsv(path: str | Path, ids: Sequence[object], result: SplitResult) -> None:
    """Atomically write the ``id``/``split``/``reason`` TSV."""
    table = pd.DataFrame({"id": list(ids), "split": result.labels(), "reason": result.reason})
    write_atomic(path, table.to_csv(sep="\t", index=False, lineterminator="\n"))


def _json_default(obj: object) -> object:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj)}")


def run_split(job: SplitJob, progress: Progress | None = None) -> SplitResult:
    """Read the inputs, split, and write the TSV (and the JSON report when ``job.report`` is set).

    Stage timings (read / similarity / split / write, nested stages as ``split/leaders`` ...) go to
    ``progress`` (default: a :class:`~benchdesign.splitting.progress.Progress` printing to stderr) and
    into the report as ``stage_seconds`` (wall) and ``stage_cpu_seconds`` (CPU, with the worker processes).
    """
    prog = Progress(sys.stderr) if progress is None else progress
    start = time.perf_counter()
    with prog.activate():
        result, ids = _split_job(job)
        with stage("write"):
            write_split_tsv(job.out, ids, result)
    result.report["stage_seconds"] = prog.rounded()
    result.report["stage_cpu_seconds"] = prog.rounded(cpu=True)
    result.report["total_seconds"] = round(time.perf_counter() - start, 3)
    if job.report:
        write_atomic(job.report, json.dumps(result.report, indent=2, default=_json_default) + "\n")
    return result


SAMPLED_REPORT_MIN = 100_000  # from this many entities the report adds a sampled L(pi) with intervals
SAMPLED_REPORT_PAIRS = 1_000_000


def _sampled_report(ent: EntitySet, result: SplitResult, seed: int) -> dict:
    """Sampled scaled L(pi) (eq. 20) with 95 % intervals of the split and of a random split of the same
    fold sizes (the reference), for 1-D data too large for the exact pass."""
    folds = result.fold[np.asarray(ent.valid, dtype=bool)]
    rng = np.random.default_rng(seed)
    reference = folds.copy()
    assigned = np.flatnonzero(folds >= 0)
    reference[assigned] = folds[rng.permutation(assigned)]
    out = {"n_pairs": SAMPLED_REPORT_PAIRS, "confidence": 0.95}
    for name, f in (("split", folds), ("random", reference)):
        est = sampled_leakage(ent.similarity, f, SAMPLED_REPORT_PAIRS, seed=seed)
        out[name] = {"scaled_leakage": est.scaled, "scaled_leakage_ci": list(est.scaled_ci)}
    return out


def _split_job(job: SplitJob) -> tuple[SplitResult, Sequence[object]]:
    task = job.task.upper()
    if job.interactions is None:
        if job.entities_b is not None:
            raise ValueError("a second entity table needs an interaction table (--interactions)")
        with stage("similarity"):
            _, ent = load_entities(job.entities, job, "input")
        with stage("split"):
            result = split_entities(task, ent, job.spec)
        if ent.similarity is not None and ent.similarity.n >= SAMPLED_REPORT_MIN:
            with stage("leakage_estimate"):
                result.report["sampled_leakage"] = _sampled_report(ent, result, job.spec.seed)
        return result, ent.ids
    if job.entities_b is None:
        raise ValueError("2-D data needs an entity table for each side (--input and --input-b)")
    inter = read_table(job.interactions, [c for c in (job.inter_a_col, job.inter_b_col, job.inter_id_col) if c])
    for col in (job.inter_a_col, job.inter_b_col):
        if col not in inter.columns:
            raise ValueError(f"column {col!r} not in the interaction table; columns are {list(inter.columns)}")
    with stage("similarity"):
        _, ent_a = load_entities(job.entities, job, "input (side a)")
        _, ent_b = load_entities(job.entities_b, job, "input (side b)")
    ia, ib = index_interactions(
        inter[job.inter_a_col].tolist(), inter[job.inter_b_col].tolist(), ent_a.ids, ent_b.ids,
        job.inter_a_col, job.inter_b_col,
    )
    ids = entity_ids(inter, job.inter_id_col, "interactions")
    with stage("split"):
        result = split_interactions(task, ia, ib, ent_a, ent_b, job.spec, side=job.side)
    return result, ids


def summarize(result: SplitResult) -> str:
    """Human-readable summary lines of a split (fold sizes, unassigned rows, leakage, solver status)."""
    rep = result.report
    sizes = ", ".join(f"{k} {int(v)}" for k, v in rep.get("fold_sizes", {}).items())
    line = f"{rep['task']}: {rep['n_rows']} rows -> {sizes}; unassigned {int((result.fold < 0).sum())}"
    if "scaled_leakage" in rep:
        line += f"; scaled L(pi) {rep['scaled_leakage']:.4f}"
    if "n_dropped" in rep:
        line += f"; dropped interactions {rep['n_dropped']}"
    if "solver_status" in rep:
        line += f"; solver {rep['solver']} {rep['solver_status']}"
    lines = [line]
    if "sampled_leakage" in rep:
        smp = rep["sampled_leakage"]
        lines.append("sampled scaled L(pi) ({} pairs, 95% interval): split {:.4f} [{:.4f}, {:.4f}], random {:.4f} "
                     "[{:.4f}, {:.4f}]".format(smp["n_pairs"], smp["split"]["scaled_leakage"],
                                               *smp["split"]["scaled_leakage_ci"], smp["random"]["scaled_leakage"],
                                               *smp["random"]["scaled_leakage_ci"]))
    for side in ("side_a", "side_b"):
        if side in rep and "scaled_leakage" in rep[side]:
            lines.append(f"{side}: scaled L(pi) {rep[side]['scaled_leakage']:.4f}")
    if rep.get("solver_status") == "time_limit":
        lines.append(f"note: {rep['solver_message']}")
    return "\n".join(lines)
