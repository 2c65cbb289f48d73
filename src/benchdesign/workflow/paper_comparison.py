"""This run against the two papers: every number and claim the papers state in their text that the pipeline's
outputs bear on, with this run's value and a verdict.

The claims are package data (``benchdesign/data/paper_claims.csv``, :data:`CLAIM_COLUMNS`): each row names the
place in its paper, the paper's value (or none, for a claim in words), a tolerance, and either a *reader* of
this module with its arguments (``key=value; key=value``, lists joined by ``+``) or the *reason* the project
cannot compute it. A reader takes the run's result tables (:class:`ResultFiles`: canonical path, e.g.
``results/tables/table2_kstar.csv``, to the file) and returns a :class:`Measurement`; :func:`compare_claims`
turns it into a verdict (:data:`STATUSES`):

* ``agrees``: within the tolerance (``within 2 SE``: two standard errors of the run's value; ``within 0.02``),
  ``equal``, ``direction holds``, ``same best method``
  or ``holds (<tolerance>)``;
* ``differs: <why>``;
* ``not comparable: <why>``: the run's settings differ from the paper's where the value depends on them (the
  subset sizes k, the number of models, the Table 2 targets, the synthetic benchmark, the NLP encoder); the
  run's value is still shown;
* ``not in this run: <config key>``: an output the claim needs is absent (a domain, representation, dataset
  or model not configured, a split method whose package is missing); the claim's ``enabled_by`` says what
  enables it;
* ``not computed: <reason>``: the project cannot compute it.

No Snakemake objects here: ``scripts/paper_comparison.py`` passes the rule's inputs and settings.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from benchdesign.files import package_data
from benchdesign.selection.classes import A_PRIORI
from benchdesign.selection.frames import DASH, class_column, config_label
from benchdesign.selection.metrics import METRIC_HIGHER_IS_BETTER
from benchdesign.selection.synthetic import SyntheticSettings

__all__ = [
    "CLAIM_COLUMNS",
    "COMPARISON_COLUMNS",
    "READERS",
    "STATUSES",
    "Measurement",
    "NotInRun",
    "ResultFiles",
    "claim_files",
    "compare_claims",
    "comparison_markdown",
    "judge",
    "load_claims",
    "parse_args",
]

CLAIM_COLUMNS = ("id", "paper", "place", "quantity", "paper_value", "claim", "tolerance", "reader", "args", "source",
                 "enabled_by", "reason", "note")
COMPARISON_COLUMNS = ("id", "paper", "place", "quantity", "claim", "paper_value", "run_value", "difference", "tolerance",
                      "status", "verdict", "detail")
STATUSES = ("agrees", "differs", "not comparable", "not in this run", "not computed")

# The papers' protocol, where a value depends on it (dataset selection, sections 5.1, 6 and 6.2).
PAPER_K = (2, 20)
PAPER_TRIALS = 200
PAPER_MODELS = {"tsc": 35, "recsys": 9, "nlp": 31}
PAPER_THRESHOLDS = {"mae": 1.5, "spearman": 0.9}
PAPER_NLP_ENCODER = "bert-base-uncased"
PAPER_LOHI_LIMIT_S = 12 * 3600  # DataSAIL paper, Fig. 6d: LoHi had 12 h per dataset
TABLES = "results/tables"


class NotInRun(Exception):
    """An output a claim needs is not in this run (a file not written, or no row for the claim in it)."""


@dataclass(frozen=True)
class Measurement:
    """What a reader found in the run.

    Attributes
    ----------
    value : float or str
        This run's value (a number, or a label such as the best method).
    holds : bool or None
        For a claim in words (tolerance ``direction``, ``same best method``, ...): whether it holds in the run;
        None for a numeric comparison.
    detail : str
        The numbers behind the value (how it was read).
    incomparable : str
        Why the value cannot be compared with the paper's ("" when it can).
    se : float or None
        The standard error of ``value`` from the run's own spread (trials, seeds or configurations), for a
        tolerance ``within K SE``; None when the reader has none.
    resolution : float
        The smallest step the value moves by (0.5 for a median of whole numbers): ``within K SE`` is never
        narrower.
    """

    value: float | str
    holds: bool | None = None
    detail: str = ""
    incomparable: str = ""
    se: float | None = None
    resolution: float = 0.0


class ResultFiles:
    """The run's result files by canonical path (``results/tables/table1_auc.csv``, ...), read once each.

    Parameters
    ----------
    paths : mapping of str to path
        Canonical path to the file to read (the same path in a Snakemake working directory); a canonical path
        that is absent, or whose file does not exist, is an output this run did not write.
    """

    def __init__(self, paths: Mapping[str, str | Path]):
        self._paths = {str(k): Path(v) for k, v in paths.items()}
        self._cache: dict[str, pd.DataFrame] = {}

    def has(self, name: str) -> bool:
        """Whether the run wrote ``name``."""
        return name in self._paths and self._paths[name].is_file()

    def path(self, name: str) -> Path:
        """The file of ``name`` (for a file that is not a CSV table: fingerprints, a split's folds).

        Raises
        ------
        NotInRun
            If the run did not write it.
        """
        if not self.has(name):
            raise NotInRun(f"{name} was not written")
        return self._paths[name]

    def table(self, name: str, columns: Sequence[str] = ()) -> pd.DataFrame:
        """The CSV file ``name`` (a header-only file gives an empty frame).

        Raises
        ------
        NotInRun
            If the run did not write it.
        ValueError
            If it cannot be parsed or lacks one of ``columns`` (naming the file).
        """
        if name not in self._cache:
            if not self.has(name):
                raise NotInRun(f"{name} was not written")
            path = self._paths[name]
            try:
                self._cache[name] = pd.read_csv(path)
            except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as exc:
                raise ValueError(f"{name} ({path}): cannot read it as CSV ({exc})") from None
        frame = self._cache[name]
        missing = [c for c in columns if c not in frame.columns]
        if missing:  # checked on every call: a reader may ask for columns an earlier one did not
            raise ValueError(f"{name} ({self._paths[name]}) lacks columns {missing}; has {list(frame.columns)}")
        return frame

    def rows(self, name: str, columns: Sequence[str] = (), **where: object) -> pd.DataFrame:
        """Rows of ``name`` matching every ``column=value`` of ``where``; NotInRun when there is none."""
        frame = self.table(name, tuple(columns) + tuple(where))
        mask = np.ones(len(frame), dtype=bool)
        for column, value in where.items():
            mask &= (frame[column].astype(str) == str(value)).to_numpy()
        if not mask.any():
            said = ", ".join(f"{c}={v}" for c, v in where.items())
            raise NotInRun(f"{name} has no row {said}")
        return frame[mask]


Reader = Callable[..., Measurement]


@dataclass(frozen=True)
class _Registered:
    func: Reader
    files: tuple[str, ...]  # canonical paths, with {domain} / {dataset} / {representation} from the arguments


READERS: dict[str, _Registered] = {}
"""Readers by name: the ``reader`` column of the claims table."""


def _reader(*files: str) -> Callable[[Reader], Reader]:
    def register(func: Reader) -> Reader:
        READERS[func.__name__] = _Registered(func, files)
        return func
    return register


# ------------------------------------------------------------------------------------------ claims table

def parse_args(text: object) -> dict[str, str]:
    """``"domain=tsc; metric=mae"`` as a dict (empty text: no arguments).

    Raises
    ------
    ValueError
        For a part without ``=`` or a repeated key.
    """
    out: dict[str, str] = {}
    if not isinstance(text, str) or not text.strip():
        return out
    for part in text.split(";"):
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key:
            raise ValueError(f"argument {part.strip()!r} is not key=value")
        if key in out:
            raise ValueError(f"argument {key!r} given twice")
        out[key] = value
    return out


def _check_claim(row: Mapping[str, Any]) -> None:
    """ValueError naming the claim if its reader/reason, arguments or tolerance do not fit."""
    cid = row["id"]
    reason, name = str(row["reason"]).strip(), str(row["reader"]).strip()
    if bool(reason) == bool(name):
        raise ValueError(f"claim {cid}: give exactly one of reader ({name!r}) and reason ({reason!r})")
    if reason:
        return
    if name not in READERS:
        raise ValueError(f"claim {cid}: unknown reader {name!r}; known: {', '.join(sorted(READERS))}")
    try:
        inspect.signature(READERS[name].func).bind(None, {}, **parse_args(row["args"]))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"claim {cid}: arguments {row['args']!r} do not fit reader {name!r} ({exc})") from None
    if not str(row["enabled_by"]).strip():
        raise ValueError(f"claim {cid}: enabled_by is empty (which config key produces its outputs?)")
    tolerance = str(row["tolerance"]).strip()
    numeric = _tolerance_width(tolerance) is not None or tolerance == "equal" or _se_multiple(tolerance) is not None
    if numeric and not _is_number(row["paper_value"]):
        raise ValueError(f"claim {cid}: tolerance {tolerance!r} needs a numeric paper_value, got {row['paper_value']!r}")
    if not tolerance:
        raise ValueError(f"claim {cid}: tolerance is empty")


def load_claims(path: str | Path | None = None) -> pd.DataFrame:
    """The claims table (default: the package's ``paper_claims.csv``), checked row by row.

    Raises
    ------
    ValueError
        Naming the file and the claim: missing columns, a duplicate id, an unknown reader, arguments that
        do not fit it, a claim with both or neither of reader and reason.
    """
    path = Path(path) if path is not None else package_data("paper_claims.csv")
    claims = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in CLAIM_COLUMNS if c not in claims.columns]
    if missing:
        raise ValueError(f"claims table {path} lacks columns {missing}")
    duplicated = claims["id"][claims["id"].duplicated()].tolist()
    if duplicated:
        raise ValueError(f"claims table {path}: duplicate id(s) {duplicated}")
    for row in claims.to_dict("records"):
        try:
            _check_claim(row)
        except ValueError as exc:
            raise ValueError(f"claims table {path}: {exc}") from None
    return claims[list(CLAIM_COLUMNS)]


def claim_files(row: Mapping[str, Any]) -> list[str]:
    """Canonical paths of the result files a claim's reader reads (none for a claim with a reason)."""
    if str(row["reason"]).strip():
        return []
    args = _Placeholders(parse_args(row["args"]))
    return [f.format_map(args) for f in READERS[str(row["reader"]).strip()].files]


class _Placeholders(dict):
    """Arguments for a file template; a placeholder without an argument stays as it is."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


# ------------------------------------------------------------------------------------------ verdicts

def _is_number(value: object) -> bool:
    try:
        return math.isfinite(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _tolerance_width(tolerance: str) -> float | None:
    """The X of ``within X [unit]`` (a fixed width), else None."""
    if _se_multiple(tolerance) is not None:
        return None
    match = re.fullmatch(r"within\s+([0-9.]+)(\s+.*)?", tolerance.strip())
    return float(match.group(1)) if match else None


SE_RULE = re.compile(r"within\s+([0-9.]+)\s+SE")
"""A tolerance set by the run's own uncertainty: ``within K SE``, K standard errors of the run's value."""


def _se_multiple(tolerance: str) -> float | None:
    """The K of ``within K SE``, else None."""
    match = SE_RULE.fullmatch(tolerance.strip())
    return float(match.group(1)) if match else None


def _fmt(value: object) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if _is_number(value):
        number = float(value)  # type: ignore[arg-type]
        return str(int(number)) if number == int(number) and abs(number) < 1e9 else f"{number:.4g}"
    return str(value)


def _success(tolerance: str) -> str:
    if tolerance == "direction":
        return "direction holds"
    if tolerance == "same best method":
        return "same best method"
    return f"holds ({tolerance})"


def judge(row: Mapping[str, Any], files: ResultFiles, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One claim against the run: a row of :data:`COMPARISON_COLUMNS`.

    Parameters
    ----------
    row : mapping
        A row of the claims table (:func:`load_claims`).
    files : ResultFiles
        The run's result files.
    settings : mapping, optional
        Run settings the result tables do not record (see :func:`compare_claims`).
    """
    settings = settings or {}
    tolerance = str(row["tolerance"]).strip()
    paper_value = float(row["paper_value"]) if _is_number(row["paper_value"]) else str(row["paper_value"])
    out = {key: row[key] for key in ("id", "paper", "place", "quantity", "claim")}
    out.update(paper_value=paper_value, run_value="", difference=np.nan, tolerance=tolerance, detail="")
    reason = str(row["reason"]).strip()
    if reason:
        return out | {"status": "not computed", "verdict": f"not computed: {reason}"}
    registered = READERS[str(row["reader"]).strip()]
    try:
        measured = registered.func(files, settings, **parse_args(row["args"]))
    except NotInRun as exc:
        return out | {"status": "not in this run", "verdict": f"not in this run: {row['enabled_by']}", "detail": str(exc)}
    note = str(row.get("note", "")).strip()
    out.update(run_value=measured.value, detail=measured.detail)
    width = _tolerance_width(tolerance)
    multiple = _se_multiple(tolerance)
    if multiple is not None and not _is_number(measured.value):
        width = 0.0  # no value (a dash): no spread to take, it differs below
    elif multiple is not None:
        if measured.se is None or not math.isfinite(measured.se):
            raise ValueError(f"claim {row['id']}: tolerance {tolerance!r} needs a standard error; reader "
                             f"{row['reader']!r} gave none")
        width = max(multiple * measured.se, measured.resolution)
        tolerance = f"{tolerance} = {width:.3g}"
        out["tolerance"] = tolerance
    if width is not None or tolerance == "equal":
        if not _is_number(measured.value):
            ok, why = False, f"this run has {_fmt(measured.value)}, the paper {_fmt(paper_value)}"
        else:
            out["difference"] = float(measured.value) - float(paper_value)
            ok = abs(out["difference"]) <= (width or 0.0) + 1e-9
            outside = f"outside {tolerance.removeprefix('within').strip()}" if width is not None else "not equal"
            why = f"{_fmt(measured.value)} against the paper's {_fmt(paper_value)}, {outside}"
        success = tolerance
    else:
        if measured.holds is None:
            raise ValueError(f"claim {row['id']}: reader {row['reader']!r} gave no verdict for tolerance {tolerance!r}")
        ok, why, success = bool(measured.holds), measured.detail, _success(tolerance)
        if not ok and not measured.incomparable:
            out["detail"] = ""  # the verdict gives it
    if ok and not measured.incomparable:
        return out | {"status": "agrees", "verdict": success}
    if note:
        out["detail"] = f"{out['detail']}; known difference: {note}" if out["detail"] else f"known difference: {note}"
    if measured.incomparable:
        return out | {"status": "not comparable", "verdict": f"not comparable: {measured.incomparable}"}
    return out | {"status": "differs", "verdict": f"differs: {why}"}


def compare_claims(claims: pd.DataFrame, files: ResultFiles | Mapping[str, str | Path],
                   settings: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Every claim against the run, in the claims table's order (:data:`COMPARISON_COLUMNS`).

    Parameters
    ----------
    claims : DataFrame
        The claims table (:func:`load_claims`).
    files : ResultFiles or mapping
        The run's result files (canonical path to file).
    settings : mapping, optional
        What the tables do not record: ``synthetic`` (the synthetic benchmark's settings, as
        :func:`benchdesign.workflow.config.synthetic_settings` gives them), ``synthetic_ks`` (its subset sizes),
        ``nlp_encoder`` (``features.nlp.encoder``) and ``lohi_time_limit`` (seconds). A claim whose
        comparability depends on a missing one says so in its detail.
    """
    if not isinstance(files, ResultFiles):
        files = ResultFiles(files)
    rows = [judge(row, files, settings) for row in claims.to_dict("records")]
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def _md_cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value == "":
        return ""
    return _fmt(value).replace("|", "\\|").replace("\n", " ")


def comparison_markdown(comparison: pd.DataFrame, settings: Mapping[str, Any] | None = None) -> str:
    """The comparison as Markdown: how to read it, the count per status, one row per claim and, for a run with
    molecular models, their settings against the paper's.

    Parameters
    ----------
    comparison : DataFrame
        :func:`compare_claims`' result.
    settings : mapping, optional
        The run's settings (:func:`compare_claims`); ``models``, ``model_options`` (``molecules.models`` and
        ``molecules.model_options``) and ``task_types`` (of the molecular datasets) add the section "Molecular
        models of this run" (:func:`benchdesign.molexp.settings.model_settings_lines`); ``protein_representation``
        (``molecules.protein_representation`` of a run with 2-D data) a line on the pair models' protein features.

    Returns
    -------
    str
    """
    counts = comparison["status"].value_counts()
    lines = [
        "# This run against the papers",
        "",
        "Every number and claim of the two papers' text that this pipeline's outputs bear on "
        "(claims table: `benchdesign/data/paper_claims.csv`), with this run's value. Verdicts: *agrees* (within "
        "the stated tolerance, or the claim in words holds), *differs* (and why), *not comparable* (this run's "
        "settings differ from the paper's where the value depends on them; the value is shown), *not in this "
        "run* (the config key that enables it), *not computed* (why the project cannot).",
        "",
        "Tolerances were fixed before the values were read: `equal` for counts and settings; `within 2 SE` for a "
        "number with sampling noise, two standard errors of this run's value from its own spread (a Table 3 gain: "
        "the best configuration's and Random's AUC sd over trials, / sqrt(trials), combined; a Table 4 value: sd "
        "over seeds / sqrt(seeds); a Table 2 median k*: a bootstrap over the configurations, seed 0), its width "
        "shown as `= W`; the paper publishes no spread for these numbers, so the rule counts this run's noise "
        "only. `within X` with a fixed X is a rounding allowance (a fraction of whole datasets or molecules).",
        "",
        "Claims: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES) + f" (of {len(comparison)}).",
        "",
        "| id | place | claim | paper | this run | difference | verdict | detail |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in comparison.to_dict("records"):
        cells = [row["id"], row["place"], row["claim"], row["paper_value"], row["run_value"], row["difference"],
                 row["verdict"], row["detail"]]
        lines.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
    models = list((settings or {}).get("models") or [])
    if models:
        from benchdesign.molexp.settings import model_settings_lines  # RDKit: imported only when needed

        task_types = (settings or {}).get("task_types") or ("regression", "classification")
        lines += ["", "## Molecular models of this run", "",
                  "Their settings where this run's config (`molecules.model_options`) sets them, against the "
                  "paper's; a score of a model run with fewer trees or epochs than the paper's is not the paper's "
                  "model's score.", ""]
        lines += [f"- {line}" for line in model_settings_lines(models, (settings or {}).get("model_options") or {},
                                                                task_types)]
        if (settings or {}).get("protein_representation"):
            from benchdesign.molexp.settings import protein_representation_line

            lines.append(f"- {protein_representation_line(settings['protein_representation'])}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------ helpers

def _names(value: str) -> list[str]:
    return [v.strip() for v in value.split("+") if v.strip()]


def _present(files: ResultFiles, name: str, domains: str) -> list[str]:
    """The ``+``-joined ``domains`` with rows in ``name``; NotInRun when none has."""
    present = set(files.table(name, ("domain",))["domain"])
    out = [d for d in _names(domains) if d in present]
    if not out:
        raise NotInRun(f"{name} has no rows of {', '.join(_names(domains))}")
    return out


def _label(strategy: str, representation: str) -> str:
    return config_label(strategy, representation)


def _better(metric: str, a: float, b: float) -> bool:
    """Whether ``a`` is strictly better than ``b`` for ``metric`` (a rank-agreement metric)."""
    return a > b if METRIC_HIGHER_IS_BETTER[metric] else a < b


def _k_range(files: ResultFiles, domain: str) -> tuple[int, int]:
    curves = files.rows(f"{TABLES}/curves_dataset_pool.csv", ("k",), domain=domain)
    return int(curves["k"].min()), int(curves["k"].max())


def _n_models(files: ResultFiles, domain: str) -> int:
    name = f"results/prepared/{domain}/dataset_ranks.csv"
    return len(files.table(name, ("dataset",)).columns) - 1


def _protocol_differences(files: ResultFiles, domain: str) -> list[str]:
    """How this run's dataset-selection protocol for ``domain`` differs from the paper's where AUC values and
    k* depend on it: the subset sizes and the number of models."""
    out = []
    k_min, k_max = _k_range(files, domain)
    if (k_min, k_max) != PAPER_K:
        out.append(f"k = {k_min}..{k_max} (the paper: {PAPER_K[0]}..{PAPER_K[1]})")
    n_models = _n_models(files, domain)
    if domain in PAPER_MODELS and n_models != PAPER_MODELS[domain]:
        out.append(f"{n_models} {domain} models (the paper: {PAPER_MODELS[domain]})")
    return out


def _run_note(files: ResultFiles, domain: str) -> str:
    """``"; this run: k = 2..5, 6 trials"`` where the run's protocol differs from the paper's, else ""."""
    notes = _protocol_differences(files, domain)
    trials = int(files.rows(f"{TABLES}/table1_auc.csv", ("n_trials",), domain=domain)["n_trials"].min())
    if trials != PAPER_TRIALS:
        notes.append(f"{trials} trials (the paper: {PAPER_TRIALS})")
    return f"; this run: {', '.join(notes)}" if notes else ""


def _a_priori(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[class_column(frame) == A_PRIORI]


def _encoder_note(settings: Mapping[str, Any], representations: Sequence[str]) -> str:
    """Why NLP description results are not the paper's (another encoder), or ""."""
    if "description" not in representations:
        return ""
    encoder = settings.get("nlp_encoder")
    if encoder is None:
        return "the NLP encoder of this run is not known (settings: nlp_encoder)"
    if encoder != PAPER_NLP_ENCODER:
        return f"descriptions embedded with {encoder} (the paper: {PAPER_NLP_ENCODER}; features.nlp.encoder)"
    return ""


# ------------------------------------------------------------------------------------------ readers: selection

@_reader(f"{TABLES}/table1_auc.csv")
def n_datasets(files: ResultFiles, settings: Mapping[str, Any], domain: str) -> Measurement:
    """Number of datasets of ``domain`` (Table 1's n_datasets)."""
    rows = files.rows(f"{TABLES}/table1_auc.csv", ("n_datasets",), domain=domain)
    return Measurement(int(rows["n_datasets"].iloc[0]), detail=f"{domain}: n_datasets of table1_auc.csv")


@_reader("results/prepared/{domain}/dataset_ranks.csv")
def n_models(files: ResultFiles, settings: Mapping[str, Any], domain: str) -> Measurement:
    """Number of models of ``domain`` (columns of its dataset ranks)."""
    return Measurement(_n_models(files, domain), detail=f"{domain}: model columns of dataset_ranks.csv")


@_reader(f"{TABLES}/table1_auc.csv")
def n_trials(files: ResultFiles, settings: Mapping[str, Any], domains: str) -> Measurement:
    """Number of dataset-pool trials T (Table 1's n_trials; the smallest over ``domains``)."""
    counts = {d: int(files.rows(f"{TABLES}/table1_auc.csv", ("n_trials",), domain=d)["n_trials"].min())
              for d in _present(files, f"{TABLES}/table1_auc.csv", domains)}
    return Measurement(min(counts.values()), detail=", ".join(f"{d} {n}" for d, n in counts.items()))


@_reader(f"{TABLES}/recommendation.csv")
def pool_fraction(files: ResultFiles, settings: Mapping[str, Any], domains: str) -> Measurement:
    """The pool fraction alpha as the runs drew it: pool size / number of datasets (smallest over ``domains``)."""
    shares = {}
    for d in _present(files, f"{TABLES}/recommendation.csv", domains):
        row = files.rows(f"{TABLES}/recommendation.csv", ("pool_size", "n_datasets"), domain=d).iloc[0]
        shares[d] = (int(row["pool_size"]), int(row["n_datasets"]))
    value = min(p / n for p, n in shares.values())
    return Measurement(value, detail=", ".join(f"{d} {p} of {n}" for d, (p, n) in shares.items()))


@_reader("results/prepared/{domain}/representation_{representation}.csv")
def representation_width(files: ResultFiles, settings: Mapping[str, Any], domain: str,
                         representation: str) -> Measurement:
    """Number of features of one representation of ``domain``."""
    frame = files.table(f"results/prepared/{domain}/representation_{representation}.csv")
    note = _encoder_note(settings, [representation]) if domain == "nlp" else ""
    return Measurement(len(frame.columns) - 1, detail=f"{domain} {representation}: feature columns", incomparable=note)


_T2 = f"{TABLES}/table2_kstar.csv"
_T2_COLUMNS = ("threshold", "best", "median", "worst", "n_reached")


def _kstar_row(files: ResultFiles, domain: str, metric: str, criterion: str) -> pd.Series:
    return files.rows(_T2, _T2_COLUMNS, domain=domain, metric=metric, criterion=criterion).iloc[0]


def _table2_differences(files: ResultFiles, domains: Sequence[str], metrics: Sequence[str]) -> str:
    notes = []
    for domain in domains:
        notes += _protocol_differences(files, domain)
        for metric in metrics:
            threshold = float(files.rows(_T2, _T2_COLUMNS, domain=domain, metric=metric)["threshold"].iloc[0])
            if not math.isclose(threshold, PAPER_THRESHOLDS[metric]):
                notes.append(f"{metric} target {threshold:g} (the paper: {PAPER_THRESHOLDS[metric]:g})")
    return "; ".join(dict.fromkeys(notes))


def _kstar_or_beyond(row: pd.Series, stat: str, k_max: int) -> float:
    """k* statistic, or k_max + 1 when no configuration reaches the target (a dash in Table 2)."""
    return float(row[stat]) if int(row["n_reached"]) > 0 else float(k_max + 1)


@_reader(_T2, f"{TABLES}/table2_kstar_per_config.csv", f"{TABLES}/curves_dataset_pool.csv",
         "results/prepared/{domain}/dataset_ranks.csv")
def kstar(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str, criterion: str,
          stat: str = "median") -> Measurement:
    """Table 2's k* (``stat``: best, median or worst over the configurations that reach the target), with the
    bootstrap standard error of the median over configurations (``KSTAR_BOOTSTRAP`` resamples, seed 0)."""
    row = _kstar_row(files, domain, metric, criterion)
    value: float | str = float(row[stat]) if int(row["n_reached"]) > 0 else DASH
    detail = f"{int(row['n_reached'])} of {int(row['n_configs'])} configurations reach the target"
    se = _kstar_median_se(files, domain, metric, criterion) if stat == "median" else None
    if se is not None:
        detail += f"; SE {se:.3g} (bootstrap over configurations)"
    return Measurement(value, detail=detail, incomparable=_table2_differences(files, [domain], [metric]), se=se,
                       resolution=0.5)  # a median of whole subset sizes moves in half steps


KSTAR_BOOTSTRAP = 2000
"""Resamples of the configurations behind the standard error of Table 2's median k*."""


def _kstar_median_se(files: ResultFiles, domain: str, metric: str, criterion: str) -> float | None:
    """Bootstrap standard error of the median k* over the configurations that reach the target (resampling
    Table 2's configurations, of both classes as there, with replacement); None without the per-configuration
    table or a k*."""
    name = f"{TABLES}/table2_kstar_per_config.csv"
    column = f"kstar_{criterion}"
    if not files.has(name):
        return None
    threshold = float(_kstar_row(files, domain, metric, criterion)["threshold"])
    rows = files.rows(name, (column, "threshold"), domain=domain, metric=metric)
    rows = rows[np.isclose(pd.to_numeric(rows["threshold"], errors="coerce"), threshold)]  # Table 2's target
    values = pd.to_numeric(rows[column], errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(values).any():
        return None
    rng = np.random.default_rng(0)
    draws = values[rng.integers(0, len(values), (KSTAR_BOOTSTRAP, len(values)))]
    medians = np.array([np.median(d[np.isfinite(d)]) if np.isfinite(d).any() else np.nan for d in draws])
    return float(np.nanstd(medians, ddof=1))


@_reader(_T2, f"{TABLES}/curves_dataset_pool.csv", "results/prepared/{domain}/dataset_ranks.csv")
def kstar_reached(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str,
                  criterion: str) -> Measurement:
    """How many configurations of Table 2 reach the target."""
    row = _kstar_row(files, domain, metric, criterion)
    detail = f"{int(row['n_reached'])} of {int(row['n_configs'])} configurations reach the target"
    return Measurement(int(row["n_reached"]), detail=detail, incomparable=_table2_differences(files, [domain], [metric]))


@_reader(_T2, f"{TABLES}/curves_dataset_pool.csv")
def kstar_order(files: ResultFiles, settings: Mapping[str, Any], metric: str, criterion: str, smaller: str,
                larger: str, stat: str = "median") -> Measurement:
    """Whether ``smaller``'s k* is below each of ``larger``'s (no configuration reaching: beyond k_max)."""
    domains = [smaller, *_names(larger)]
    values = {d: _kstar_or_beyond(_kstar_row(files, d, metric, criterion), stat, _k_range(files, d)[1])
              for d in domains}
    holds = all(values[smaller] < values[d] for d in _names(larger))
    detail = ", ".join(f"{d} {_fmt(v)}" for d, v in values.items()) + f" ({criterion} {stat} k*, {metric})"
    return Measurement(_fmt(values[smaller]), holds=holds, detail=detail,
                       incomparable=_table2_differences(files, domains, [metric]))


@_reader(_T2, f"{TABLES}/curves_dataset_pool.csv")
def kstar_conservative_stricter(files: ResultFiles, settings: Mapping[str, Any], domains: str,
                                stat: str = "median") -> Measurement:
    """Whether the conservative k* is at least the mean-curve k* in every (domain, metric) block."""
    checked, failures = 0, []
    names = _names(domains)
    for domain in names:
        k_max = _k_range(files, domain)[1]
        for metric in PAPER_THRESHOLDS:
            mean = _kstar_or_beyond(_kstar_row(files, domain, metric, "mean"), stat, k_max)
            conservative = _kstar_or_beyond(_kstar_row(files, domain, metric, "conservative"), stat, k_max)
            checked += 1
            if conservative < mean:
                failures.append(f"{domain} {metric}: conservative {_fmt(conservative)} < mean {_fmt(mean)}")
    detail = "; ".join(failures) or f"conservative ≥ mean in all {checked} blocks"
    return Measurement(f"{checked - len(failures)} of {checked}", holds=not failures, detail=detail,
                       incomparable=_table2_differences(files, names, list(PAPER_THRESHOLDS)))


@_reader(_T2, f"{TABLES}/curves_dataset_pool.csv")
def kstar_metric_order(files: ResultFiles, settings: Mapping[str, Any], domains: str, smaller: str,
                       larger: str) -> Measurement:
    """Whether, in every domain, k* of ``smaller`` (metric:criterion) is below k* of ``larger``."""
    names, parts, ok = _names(domains), [], 0
    (m1, c1), (m2, c2) = smaller.split(":"), larger.split(":")
    for domain in names:
        k_max = _k_range(files, domain)[1]
        a = _kstar_or_beyond(_kstar_row(files, domain, m1, c1), "median", k_max)
        b = _kstar_or_beyond(_kstar_row(files, domain, m2, c2), "median", k_max)
        ok += a < b
        parts.append(f"{domain} {_fmt(a)} vs {_fmt(b)}")
    detail = f"median k* {m1} ({c1}) vs {m2} ({c2}), beyond k_max = none reaches: " + ", ".join(parts)
    return Measurement(f"{ok} of {len(names)}", holds=ok == len(names), detail=detail,
                       incomparable=_table2_differences(files, names, [m1, m2]))


_T3S = f"{TABLES}/table3_summary.csv"
_T3S_COLUMNS = ("best_strategy", "best_representation", "best_auc", "random_auc", "gain_vs_random",
                "p_holm_vs_random", "closest_strategy", "closest_representation", "informed_strategy",
                "informed_representation", "informed_auc")
_T3 = f"{TABLES}/table3_wilcoxon_holm.csv"
_T3_COLUMNS = ("best_strategy", "best_representation", "other_strategy", "other_representation", "best_auc",
               "other_auc", "p_holm", "significant")


def _summary_row(files: ResultFiles, domain: str, metric: str) -> pd.Series:
    return files.rows(_T3S, _T3S_COLUMNS, domain=domain, metric=metric).iloc[0]


def _best_text(row: pd.Series) -> str:
    p = row["p_holm_vs_random"]
    p_text = f", Holm p {float(p):.2g}" if _is_number(p) else ""
    return (f"{_label(row['best_strategy'], row['best_representation'])} {float(row['best_auc']):.4g} "
            f"against Random {float(row['random_auc']):.4g}{p_text}")


def _nlp_note(files: ResultFiles, settings: Mapping[str, Any], domain: str, representation: str,
              used: str | None = None) -> str:
    """For a claim the paper makes with NLP descriptions: why this run's value is not that (or ""). A value
    this run reached on another representation (``used``, e.g. metadata, which no encoder touches) is judged
    directly."""
    if domain != "nlp" or not representation or (used is not None and used != representation):
        return ""
    reps = set(files.rows(f"{TABLES}/table1_auc.csv", ("representation",), domain=domain)["representation"])
    if representation not in reps:
        return (f"the paper's value comes with NLP {representation} embeddings, not in this run "
                f"(domains.nlp.representations: {representation})")
    return _encoder_note(settings, [representation])


@_reader(_T3S, f"{TABLES}/table1_auc.csv", f"{TABLES}/curves_dataset_pool.csv",
         "results/prepared/{domain}/dataset_ranks.csv")
def table3_gain(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str,
                representation: str = "") -> Measurement:
    """Table 3's gain of the best a-priori configuration over Random (AUC units)."""
    row = _summary_row(files, domain, metric)
    n = int(files.rows(f"{TABLES}/table1_auc.csv", ("n_datasets",), domain=domain)["n_datasets"].iloc[0])
    notes = _protocol_differences(files, domain) + [_nlp_note(files, settings, domain, representation,
                                                              row["best_representation"])]
    se = math.hypot(_auc_se(files, domain, metric, row["best_strategy"], row["best_representation"]),
                    _auc_se(files, domain, metric, "random", "none"))
    return Measurement(float(row["gain_vs_random"]), detail=f"{_best_text(row)}; {n} datasets; SE {se:.3g}",
                       incomparable="; ".join(n for n in notes if n), se=se)


def _auc_se(files: ResultFiles, domain: str, metric: str, strategy: str, representation: str) -> float:
    """Standard error of one configuration's mean AUC over its trials (Table 1: sd / sqrt(trials))."""
    row = files.rows(f"{TABLES}/table1_auc.csv", ("auc_sd", "n_trials"), domain=domain, metric=metric,
                     strategy=strategy, representation=representation).iloc[0]
    return float(row["auc_sd"]) / math.sqrt(float(row["n_trials"]))


@_reader(_T3S, f"{TABLES}/table1_auc.csv")
def table3_best(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str, strategy: str,
                representation: str = "") -> Measurement:
    """Whether Table 3's best configuration uses ``strategy``."""
    row = _summary_row(files, domain, metric)
    best = _label(row["best_strategy"], row["best_representation"])
    return Measurement(best, holds=row["best_strategy"] == strategy, detail=_best_text(row) + _run_note(files, domain),
                       incomparable=_nlp_note(files, settings, domain, representation, row["best_representation"]))


@_reader(_T3S)
def table3_significant(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str,
                       alpha: str) -> Measurement:
    """Whether the best configuration beats Random with Holm p < ``alpha``."""
    row = _summary_row(files, domain, metric)
    p = float(row["p_holm_vs_random"]) if _is_number(row["p_holm_vs_random"]) else math.nan
    holds = row["best_strategy"] != "random" and p < float(alpha)
    return Measurement(p if not math.isnan(p) else "Random best", holds=holds,
                       detail=_best_text(row) + _run_note(files, domain))


@_reader(_T3S)
def table3_no_winner(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str,
                     alpha: str) -> Measurement:
    """Whether no configuration beats Random significantly (Holm p >= ``alpha``, or Random best)."""
    row = _summary_row(files, domain, metric)
    p = float(row["p_holm_vs_random"]) if _is_number(row["p_holm_vs_random"]) else math.nan
    holds = row["best_strategy"] == "random" or not p < float(alpha)
    return Measurement(p if not math.isnan(p) else "Random best", holds=holds,
                       detail=_best_text(row) + _run_note(files, domain))


@_reader(_T3)
def table3_indistinguishable(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str,
                             strategy: str) -> Measurement:
    """Whether ``strategy`` (any representation) is the best or not significantly worse than it."""
    block = files.rows(_T3, _T3_COLUMNS, domain=domain, metric=metric)
    best = block.iloc[0]
    if best["best_strategy"] == strategy:
        return Measurement(f"{_label(best['best_strategy'], best['best_representation'])} is best", holds=True,
                           detail="the best configuration itself")
    own = block[block["other_strategy"] == strategy]
    if own.empty:
        raise NotInRun(f"{_T3} has no {strategy} row for {domain} {metric}")
    top = own.iloc[int(np.argmin(own["p_holm"].to_numpy()))] if own["significant"].astype(bool).all() else \
        own[~own["significant"].astype(bool)].iloc[0]
    holds = not bool(top["significant"])
    detail = (f"{_label(top['other_strategy'], top['other_representation'])} {float(top['other_auc']):.4g} against "
              f"the best {_label(best['best_strategy'], best['best_representation'])} {float(best['best_auc']):.4g}, "
              f"Holm p {float(top['p_holm']):.2g}")
    return Measurement(float(top["p_holm"]), holds=holds, detail=detail + _run_note(files, domain))


@_reader(_T3)
def table3_top_two(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str,
                   strategies: str) -> Measurement:
    """Whether the best two configurations of the block use ``strategies`` and are not significantly apart."""
    block = files.rows(_T3, _T3_COLUMNS, domain=domain, metric=metric)
    best = block.iloc[0]
    sign = 1.0 if METRIC_HIGHER_IS_BETTER[metric] else -1.0
    second = block.iloc[int(np.argmax(sign * block["other_auc"].to_numpy()))]
    top = {best["best_strategy"], second["other_strategy"]}
    holds = top == set(_names(strategies)) and not bool(second["significant"])
    value = (f"{_label(best['best_strategy'], best['best_representation'])}, "
             f"{_label(second['other_strategy'], second['other_representation'])}")
    detail = (f"best {float(best['best_auc']):.4g}, second {float(second['other_auc']):.4g}, "
              f"Holm p {float(second['p_holm']):.2g}")
    return Measurement(value, holds=holds, detail=detail + _run_note(files, domain))


@_reader(_T3S)
def share_significant(files: ResultFiles, settings: Mapping[str, Any], domains: str, alpha: str) -> Measurement:
    """Whether more than half of the (domain, metric) blocks of Table 3 have a gain with Holm p < ``alpha``."""
    parts, hits, total = [], 0, 0
    for domain in _names(domains):
        for metric in PAPER_THRESHOLDS:
            row = _summary_row(files, domain, metric)
            p = float(row["p_holm_vs_random"]) if _is_number(row["p_holm_vs_random"]) else math.nan
            hit = row["best_strategy"] != "random" and p < float(alpha)
            hits, total = hits + hit, total + 1
            parts.append(f"{domain} {metric} " + (f"p {p:.2g}" if not math.isnan(p) else "Random best"))
    notes = "".join(_run_note(files, d) for d in _names(domains))
    return Measurement(f"{hits} of {total}", holds=hits > total / 2, detail=", ".join(parts) + notes)


@_reader(f"{TABLES}/table1_auc.csv")
def beats_random(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str,
                 strategies: str) -> Measurement:
    """Whether each of ``strategies``, on its best a-priori representation, beats Random on ``metric``."""
    rows = _a_priori(files.rows(f"{TABLES}/table1_auc.csv", ("strategy", "representation", "auc_mean"),
                                domain=domain, metric=metric))
    random = rows[rows["strategy"] == "random"]
    if random.empty:
        raise NotInRun(f"table1_auc.csv has no Random row for {domain} {metric}")
    random_auc = float(random["auc_mean"].iloc[0])
    parts, wins = [], 0
    names = _names(strategies)
    for strategy in names:
        own = rows[rows["strategy"] == strategy]
        if own.empty:
            raise NotInRun(f"table1_auc.csv has no a-priori {strategy} row for {domain} {metric}")
        sign = 1.0 if METRIC_HIGHER_IS_BETTER[metric] else -1.0
        top = own.iloc[int(np.argmax(sign * own["auc_mean"].to_numpy()))]
        win = _better(metric, float(top["auc_mean"]), random_auc)
        wins += win
        parts.append(f"{_label(strategy, top['representation'])} {float(top['auc_mean']):.4g}")
    detail = ", ".join(parts) + f" against Random {random_auc:.4g}"
    return Measurement(f"{wins} of {len(names)}", holds=wins == len(names), detail=detail)


@_reader(f"{TABLES}/table1_auc.csv")
def none_beats_random_on_all(files: ResultFiles, settings: Mapping[str, Any], domain: str,
                             metrics: str) -> Measurement:
    """Whether no a-priori configuration beats Random on every one of ``metrics``."""
    names = _names(metrics)
    table = _a_priori(files.rows(f"{TABLES}/table1_auc.csv", ("strategy", "representation", "auc_mean"),
                                 domain=domain))
    wide = table[table["metric"].isin(names)].pivot_table(index=["strategy", "representation"], columns="metric",
                                                          values="auc_mean")
    if ("random", "none") not in wide.index or set(names) - set(wide.columns):
        raise NotInRun(f"table1_auc.csv lacks Random or a metric of {names} for {domain}")
    random = wide.loc[("random", "none")]
    winners = [_label(s, r) for (s, r), values in wide.drop(index=("random", "none")).iterrows()
               if all(_better(m, float(values[m]), float(random[m])) for m in names)]
    detail = ("beats Random on all: " + ", ".join(winners)) if winners else \
        f"none of {len(wide) - 1} configurations beats Random on all of {', '.join(names)}"
    return Measurement(len(winners), holds=not winners, detail=detail)


@_reader(_T3S)
def oracle_bound(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str) -> Measurement:
    """Whether the oracle's best AUC is at least as good as the best a-priori configuration's."""
    row = _summary_row(files, domain, metric)
    if row["informed_representation"] != "oracle" or not _is_number(row["informed_auc"]):
        raise NotInRun(f"{_T3S} has no oracle for {domain} {metric}")
    oracle, best = float(row["informed_auc"]), float(row["best_auc"])
    holds = not _better(metric, best, oracle)
    detail = (f"oracle ({_label(row['informed_strategy'], 'oracle')}) {oracle:.4g}, best a-priori "
              f"{_label(row['best_strategy'], row['best_representation'])} {best:.4g}")
    return Measurement(oracle, holds=holds, detail=detail)


def _curve_means(files: ResultFiles, domain: str, metric: str) -> pd.DataFrame:
    curves = files.rows(f"{TABLES}/curves_dataset_pool.csv", ("strategy", "representation", "k", "mean"),
                        domain=domain, metric=metric)
    return curves.pivot_table(index=["strategy", "representation"], columns="k", values="mean")


@_reader(f"{TABLES}/curves_dataset_pool.csv")
def early_gains(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str, split: str) -> Measurement:
    """Whether every configuration's mean curve improves more from k_min to ``split`` than from ``split`` to k_max."""
    wide = _curve_means(files, domain, metric)
    ks, k = list(wide.columns), int(split)
    if not (min(ks) < k < max(ks)) or k not in ks:
        return Measurement("", holds=False, detail=f"k = {min(ks)}..{max(ks)}",
                           incomparable=f"k = {min(ks)}..{max(ks)} does not reach past k = {k} (the paper: 2..20)")
    sign = 1.0 if METRIC_HIGHER_IS_BETTER[metric] else -1.0
    early = sign * (wide[k] - wide[min(ks)])
    late = sign * (wide[max(ks)] - wide[k])
    ok = int((early > late).sum())
    detail = (f"mean improvement k = {min(ks)}..{k}: {early.mean():.3g}, k = {k}..{max(ks)}: {late.mean():.3g} "
              f"(over {len(wide)} configurations)")
    return Measurement(f"{ok} of {len(wide)}", holds=ok == len(wide), detail=detail)


@_reader(f"{TABLES}/curves_dataset_pool.csv")
def falls_with_k(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str) -> Measurement:
    """Whether every configuration's mean curve is better at k_max than at k_min."""
    wide = _curve_means(files, domain, metric)
    lo, hi = min(wide.columns), max(wide.columns)
    ok = int(wide.apply(lambda r: _better(metric, float(r[hi]), float(r[lo])), axis=1).sum())
    return Measurement(f"{ok} of {len(wide)}", holds=ok == len(wide),
                       detail=f"mean {metric} at k = {lo}: {wide[lo].mean():.3g}, at k = {hi}: {wide[hi].mean():.3g}")


@_reader(f"{TABLES}/curves_dataset_pool.csv")
def within_random_band(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str) -> Measurement:
    """Whether every a-priori configuration's mean curve lies inside Random's uncertainty band (the 2.5 %..97.5 %
    quantiles of Random's trials, columns ``lo`` and ``hi``) at every subset size k; the value counts the
    (configuration, k) points inside."""
    curves = files.rows(f"{TABLES}/curves_dataset_pool.csv", ("strategy", "representation", "k", "mean", "lo", "hi"),
                        domain=domain, metric=metric)
    random = curves[curves["strategy"] == "random"].set_index("k")
    if random.empty:
        raise NotInRun(f"curves_dataset_pool.csv has no Random curve for {domain} {metric}")
    others = _a_priori(curves[curves["strategy"] != "random"])
    if others.empty:
        raise NotInRun(f"curves_dataset_pool.csv has no a-priori configuration for {domain} {metric}")
    lo, hi = others["k"].map(random["lo"]), others["k"].map(random["hi"])
    inside = (others["mean"] >= lo) & (others["mean"] <= hi)
    outside = others[~inside & lo.notna()]
    checked = int(lo.notna().sum())
    said = ", ".join(f"{_label(s, r)} k={int(k)} {m:.3g}" for s, r, k, m in
                     outside[["strategy", "representation", "k", "mean"]].itertuples(index=False, name=None))
    width = float((random["hi"] - random["lo"]).mean())
    detail = (f"outside Random's band: {said}" if said else
              f"{checked} (configuration, k) points of {others.groupby(['strategy', 'representation']).ngroups} "
              f"a-priori configurations inside") + f"; Random's band {width:.3g} wide on average ({metric})"
    return Measurement(f"{checked - len(outside)} of {checked}", holds=checked > 0 and outside.empty, detail=detail)


@_reader(f"{TABLES}/curves_model_pool.csv", f"{TABLES}/model_pool_full_run.csv")
def full_run_close(files: ResultFiles, settings: Mapping[str, Any], domains: str, metrics: str,
                   ratio: str = "0.5") -> Measurement:
    """Whether the model-pool trials' mean curve stays close to the single full run (every dataset, every model)
    while the trials spread around it: for every a-priori configuration and subset size k, the distance
    |trials' mean - single run| against the half-width of the trials' 2.5 %..97.5 % band. Holds when, for each of
    ``metrics``, the mean distance is at most ``ratio`` times the mean half-width; the value is the largest of
    these ratios."""
    curves_name, full_name = f"{TABLES}/curves_model_pool.csv", f"{TABLES}/model_pool_full_run.csv"
    present = _present(files, curves_name, domains)
    keys = ["domain", "representation", "strategy", "metric", "k"]
    curves = files.table(curves_name, (*keys, "mean", "lo", "hi"))
    full = files.table(full_name, (*keys, "value"))
    merged = _a_priori(curves[curves["domain"].isin(present)].merge(full, on=keys))
    ratios, parts = [], []
    for metric in _names(metrics):
        rows = merged[merged["metric"] == metric]
        if rows.empty:
            raise NotInRun(f"{full_name} has no a-priori single run of {', '.join(present)} for {metric}")
        distance = float((rows["mean"] - rows["value"]).abs().mean())
        half_width = float(((rows["hi"] - rows["lo"]) / 2).mean())
        inside = int(rows["value"].between(rows["lo"], rows["hi"]).sum())
        ratios.append(distance / half_width if half_width > 0 else math.inf)
        parts.append(f"{metric}: mean distance of the trials' mean from the single run {distance:.3g} against "
                     f"the band's half-width "
                     f"{half_width:.3g} (ratio {ratios[-1]:.2f}); the single run inside the band at {inside} of "
                     f"{len(rows)} (configuration, k) points")
    configurations = merged.groupby(["domain", "representation", "strategy"]).ngroups
    detail = "; ".join(parts) + f" ({configurations} a-priori configurations of {'+'.join(present)})"
    return Measurement(round(max(ratios), 3), holds=max(ratios) <= float(ratio), detail=detail)


@_reader(f"{TABLES}/curves_dataset_pool.csv", f"{TABLES}/table1_auc.csv")
def early_advantage(files: ResultFiles, settings: Mapping[str, Any], domain: str, metric: str, representation: str,
                    split: str) -> Measurement:
    """Whether the strategies on ``representation`` beat Random by more at small subset sizes (k <= ``split``) than
    at large ones (k > ``split``): the gap between their mean curves and Random's (oriented so that a positive
    gap is better than Random), averaged over the strategies and over the k of each range, is positive at small k
    and larger there than at large k. The value is the mean gap at small k."""
    wide = _curve_means(files, domain, metric)
    if ("random", "none") not in wide.index:
        raise NotInRun(f"curves_dataset_pool.csv has no Random curve for {domain} {metric}")
    own = wide[wide.index.get_level_values("representation") == representation]
    if own.empty:
        raise NotInRun(f"curves_dataset_pool.csv has no {representation} curve for {domain} {metric}")
    ks, k = sorted(wide.columns), int(split)
    if not min(ks) <= k < max(ks):
        return Measurement("", holds=False, detail=f"k = {min(ks)}..{max(ks)}",
                           incomparable=f"k = {min(ks)}..{max(ks)} does not reach past k = {k} (the paper: 2..20)")
    sign = 1.0 if METRIC_HIGHER_IS_BETTER[metric] else -1.0
    gap = sign * (own - wide.loc[("random", "none")])
    small = gap[[c for c in ks if c <= k]].mean(axis=1)
    large = gap[[c for c in ks if c > k]].mean(axis=1)
    holds = bool(small.mean() > 0 and small.mean() > large.mean())
    per = ", ".join(f"{s} {a:.3g} / {b:.3g}" for (s, _), a, b in zip(own.index, small, large))
    detail = (f"gap to Random ({metric}, better > 0) at k <= {k} / k > {k}: mean {small.mean():.3g} / "
              f"{large.mean():.3g}; {per}")
    return Measurement(float(small.mean()), holds=holds, detail=detail,
                       incomparable=_nlp_note(files, settings, domain, representation))


def _relative_gains(files: ResultFiles, domains: Sequence[str], metric: str) -> dict[str, float]:
    gains = {}
    for domain in domains:
        row = _summary_row(files, domain, metric)
        gains[domain] = float(row["gain_vs_random"]) / abs(float(row["random_auc"]))
    return gains


@_reader(_T3S)
def relative_gain_smallest(files: ResultFiles, settings: Mapping[str, Any], domain: str, others: str,
                           metric: str) -> Measurement:
    """Whether ``domain``'s best gain over Random, relative to Random's AUC, is below every one of ``others``'."""
    gains = _relative_gains(files, [domain, *_names(others)], metric)
    holds = all(gains[domain] < gains[d] for d in _names(others))
    detail = "gain / Random AUC: " + ", ".join(f"{d} {g:.1%}" for d, g in gains.items())
    return Measurement(gains[domain], holds=holds, detail=detail)


@_reader(_T3S, f"{TABLES}/table1_auc.csv")
def relative_gain_closer(files: ResultFiles, settings: Mapping[str, Any], domain: str, near: str, far: str,
                         metric: str, representation: str = "") -> Measurement:
    """Whether ``domain``'s relative gain over Random is closer to ``near``'s than to ``far``'s."""
    gains = _relative_gains(files, [domain, near, far], metric)
    holds = abs(gains[domain] - gains[near]) < abs(gains[domain] - gains[far])
    detail = "gain / Random AUC: " + ", ".join(f"{d} {g:.1%}" for d, g in gains.items())
    return Measurement(gains[domain], holds=holds, detail=detail,
                       incomparable=_nlp_note(files, settings, domain, representation))


def _best_on(files: ResultFiles, domain: str, metric: str, representation: str) -> tuple[str, float]:
    rows = files.rows(f"{TABLES}/table1_auc.csv", ("strategy", "representation", "auc_mean"), domain=domain,
                      metric=metric, representation=representation)
    sign = 1.0 if METRIC_HIGHER_IS_BETTER[metric] else -1.0
    top = rows.iloc[int(np.argmax(sign * rows["auc_mean"].to_numpy()))]
    return _label(top["strategy"], representation), float(top["auc_mean"])


@_reader(f"{TABLES}/table1_auc.csv")
def representation_beats_random(files: ResultFiles, settings: Mapping[str, Any], domain: str, representation: str,
                                metric: str) -> Measurement:
    """Whether the best strategy on ``representation`` beats Random on ``metric``."""
    label, auc = _best_on(files, domain, metric, representation)
    _, random = _best_on(files, domain, metric, "none")
    note = _encoder_note(settings, [representation]) if domain == "nlp" else ""
    return Measurement(auc, holds=_better(metric, auc, random), detail=f"{label} {auc:.4g} against Random {random:.4g}",
                       incomparable=note)


@_reader(f"{TABLES}/table1_auc.csv")
def representation_order(files: ResultFiles, settings: Mapping[str, Any], domain: str, better: str, worse: str,
                         metric: str) -> Measurement:
    """Whether the best strategy on ``better`` beats the best on ``worse``."""
    label_b, auc_b = _best_on(files, domain, metric, better)
    label_w, auc_w = _best_on(files, domain, metric, worse)
    note = _encoder_note(settings, [better, worse]) if domain == "nlp" else ""
    return Measurement(auc_b, holds=_better(metric, auc_b, auc_w), detail=f"{label_b} {auc_b:.4g}, {label_w} {auc_w:.4g}",
                       incomparable=note)


_COVERAGE = "results/guarantee/{domain}/coverage_{representation}.csv"
_COVERAGE_COLUMNS = ("strategy", "metric", "k", "radius", "bound")
_FAFI_METRIC = {"fafi_euclidean": "euclidean", "fafi_cosine": "cosine"}


def _coverage_tables(files: ResultFiles, domains: Sequence[str]) -> dict[str, pd.DataFrame]:
    tables = {}
    for domain in domains:
        reps = set(files.rows(f"{TABLES}/table1_auc.csv", ("representation",), domain=domain)["representation"])
        for rep in sorted(reps - {"none"}):
            name = _COVERAGE.format(domain=domain, representation=rep)
            if files.has(name):
                tables[f"{domain} {rep}"] = files.table(name, _COVERAGE_COLUMNS)
    if not tables:
        raise NotInRun(f"no covering-radius table ({_COVERAGE}) was written")
    return tables


@_reader(_COVERAGE, f"{TABLES}/table1_auc.csv")
def coverage_bound(files: ResultFiles, settings: Mapping[str, Any], domains: str) -> Measurement:
    """Whether farthest-first's mean covering radius r_k stays under the bound 2Δ/(k^(1/p) − 1) at every k
    (Euclidean farthest-first in the Euclidean metric, cosine farthest-first in the cosine metric)."""
    failures, checked = [], 0
    for name, table in _coverage_tables(files, _names(domains)).items():
        for strategy, metric in _FAFI_METRIC.items():
            rows = table[(table["strategy"] == strategy) & (table["metric"] == metric)]
            checked += len(rows)
            bad = rows[rows["radius"] > rows["bound"] * (1 + 1e-9)]
            failures += [f"{name} {strategy} k={int(k)}" for k in bad["k"]]
    detail = ("over the bound: " + ", ".join(failures[:5])) if failures else f"{checked} (representation, k) points"
    return Measurement(f"{checked - len(failures)} of {checked}", holds=not failures and checked > 0, detail=detail)


@_reader(_COVERAGE, f"{TABLES}/table1_auc.csv")
def coverage_vs_random(files: ResultFiles, settings: Mapping[str, Any], domains: str) -> Measurement:
    """Whether farthest-first's mean covering radius is below Random's at every k > k_min, per representation."""
    wins, total, losses = 0, 0, []
    for name, table in _coverage_tables(files, _names(domains)).items():
        for strategy, metric in _FAFI_METRIC.items():
            ff = table[(table["strategy"] == strategy) & (table["metric"] == metric)].set_index("k")["radius"]
            rnd = table[(table["strategy"] == "random") & (table["metric"] == metric)].set_index("k")["radius"]
            ks = [k for k in ff.index.intersection(rnd.index) if k > min(ff.index)]
            total += len(ks)
            below = [k for k in ks if ff[k] < rnd[k]]
            wins += len(below)
            losses += [f"{name} {strategy} k={int(k)}" for k in ks if k not in below]
    detail = ("not below Random: " + ", ".join(losses[:5])) if losses else f"{total} (representation, k) points"
    return Measurement(f"{wins} of {total}", holds=total > 0 and wins == total, detail=detail)


_T4 = f"{TABLES}/table4_synthetic.csv"


def _table4_auc(files: ResultFiles, regime: str, strategy: str, metric: str) -> float:
    return float(files.rows(_T4, ("auc_mean",), regime=regime, strategy=strategy, metric=metric)["auc_mean"].iloc[0])


def _table4_se(files: ResultFiles, regime: str, strategy: str, metric: str) -> float | None:
    """Standard error of Table 4's mean AUC over seeds (sd / sqrt(seeds)); None for a table without n_seeds."""
    row = files.rows(_T4, ("auc_sd",), regime=regime, strategy=strategy, metric=metric).iloc[0]
    if "n_seeds" not in row.index:
        return None
    return float(row["auc_sd"]) / math.sqrt(float(row["n_seeds"]))


def _synthetic_differences(settings: Mapping[str, Any]) -> str:
    """How the run's synthetic benchmark differs from the paper's (section 6.4), or ""."""
    run = settings.get("synthetic")
    if run is None:
        return "this run's synthetic settings are not known (settings: synthetic)"
    paper = SyntheticSettings()
    notes = [f"{key} {run[key]} (the paper: {getattr(paper, key)})" for key in
             ("n_datasets", "n_models", "n_folds", "d_lat", "d_rep", "sigma_ds", "sigma_fold", "sigma", "lam")
             if key in run and not math.isclose(float(run[key]), float(getattr(paper, key)))]
    ks = settings.get("synthetic_ks")
    if ks is not None and (min(ks), max(ks)) != PAPER_K:
        notes.append(f"k = {min(ks)}..{max(ks)} (the paper: {PAPER_K[0]}..{PAPER_K[1]})")
    return "; ".join(notes)


@_reader(_T4)
def table4_value(files: ResultFiles, settings: Mapping[str, Any], regime: str, strategy: str,
                 metric: str) -> Measurement:
    """Table 4's mean AUC of one regime and strategy."""
    value = _table4_auc(files, regime, strategy, metric)
    noise = (settings.get("synthetic") or {}).get("noise")
    se = _table4_se(files, regime, strategy, metric)
    detail = (f"{regime} regime, {_label(strategy, 'none')}" + (f"; noise {noise}" if noise else "")
              + (f"; SE {se:.3g} over seeds" if se is not None else ""))
    return Measurement(value, detail=detail, incomparable=_synthetic_differences(settings), se=se)


@_reader(_T4)
def table4_gain(files: ResultFiles, settings: Mapping[str, Any], regime: str, metric: str,
                strategy: str = "fafi_cosine") -> Measurement:
    """Table 4's gain of ``strategy`` over Random (Random − strategy for MAE, strategy − Random otherwise)."""
    own, random = _table4_auc(files, regime, strategy, metric), _table4_auc(files, regime, "random", metric)
    gain = (own - random) * (1.0 if METRIC_HIGHER_IS_BETTER[metric] else -1.0)
    ses = [_table4_se(files, regime, s, metric) for s in (strategy, "random")]
    se = None if None in ses else math.hypot(*ses)
    return Measurement(gain, holds=gain > 0, detail=f"{regime}: {strategy} {own:.4g}, Random {random:.4g}"
                       + (f"; SE {se:.3g} over seeds" if se is not None else ""),
                       incomparable=_synthetic_differences(settings), se=se)


@_reader(_T4)
def table4_better(files: ResultFiles, settings: Mapping[str, Any], regime: str, metric: str,
                  strategy: str = "fafi_cosine") -> Measurement:
    """Whether ``strategy`` beats Random in ``regime`` (a direction: judged whatever the benchmark's size)."""
    own, random = _table4_auc(files, regime, strategy, metric), _table4_auc(files, regime, "random", metric)
    return Measurement(own, holds=_better(metric, own, random), detail=f"{regime}: {strategy} {own:.4g}, Random {random:.4g}")


@_reader(_T4)
def table4_gain_order(files: ResultFiles, settings: Mapping[str, Any], metric: str, larger: str, smaller: str,
                      strategy: str = "fafi_cosine", positive: str = "no") -> Measurement:
    """Whether ``strategy``'s gain over Random is larger in regime ``larger`` than in ``smaller`` (and, with
    ``positive=yes``, still above zero in ``smaller``)."""
    sign = 1.0 if METRIC_HIGHER_IS_BETTER[metric] else -1.0
    gains = {r: sign * (_table4_auc(files, r, strategy, metric) - _table4_auc(files, r, "random", metric))
             for r in (larger, smaller)}
    holds = gains[larger] > gains[smaller] and (positive != "yes" or gains[smaller] > 0)
    return Measurement(gains[smaller], holds=holds, detail=", ".join(f"{r} gain {g:.3g}" for r, g in gains.items()))


# ------------------------------------------------------------------------------------------ readers: molecules

_LEAK = f"{TABLES}/split_leakage.csv"
_LEAK_COLUMNS = ("dataset", "split_method", "repeat", "scaled_leakage", "n_train", "n_test", "n_dropped", "status")
_PERF = f"{TABLES}/split_performance.csv"
_PERF_COLUMNS = ("dataset", "split_method", "repeat", "model", "metric", "value")


def _datasets(files: ResultFiles, spec: str) -> tuple[list[str], str]:
    """Every one of the ``|``-separated datasets with rows in split_leakage.csv (the first is the paper's, the
    others stand in for it: ``lp_pdbbind|davis|kiba``), and a note naming the stand-ins among them ("" when
    there is none)."""
    names = [d.strip() for d in spec.split("|")]
    present = set(files.table(_LEAK, _LEAK_COLUMNS)["dataset"])
    found = [name for name in names if name in present]
    if not found:
        raise NotInRun(f"{_LEAK} has no rows of {', '.join(names)}")
    stand_ins = [name for name in found if name != names[0]]
    note = f"on {' and '.join(stand_ins)}, standing in for the paper's {names[0]}" if stand_ins else ""
    return found, note


def _leakage_means(files: ResultFiles, dataset: str, column: str = "scaled_leakage") -> pd.Series:
    """Mean scaled L(π) (or another column of split_leakage.csv) per split method over the splits that were
    made."""
    rows = files.rows(_LEAK, (*_LEAK_COLUMNS, column), dataset=dataset)
    ok = rows[rows["status"] == "ok"]
    return ok.groupby("split_method", sort=True)[column].mean()


def _method_status(files: ResultFiles, dataset: str, method: str) -> str:
    rows = files.rows(_LEAK, _LEAK_COLUMNS, dataset=dataset, split_method=method)
    statuses = sorted(set(rows["status"]))
    if statuses == ["ok"]:
        return "ok"
    if all(s.startswith("skipped") for s in statuses):
        raise NotInRun(f"{dataset} {method}: {statuses[0]}")
    return "; ".join(statuses)


def _higher_is_better(metric: str) -> bool:
    from benchdesign.molexp.models import HIGHER_IS_BETTER  # scikit-learn: imported only when needed

    if metric not in HIGHER_IS_BETTER:
        raise ValueError(f"{_PERF}: unknown metric {metric!r}; known: {', '.join(HIGHER_IS_BETTER)}")
    return HIGHER_IS_BETTER[metric]


def _scores(files: ResultFiles, dataset: str) -> tuple[pd.DataFrame, str]:
    """Mean score per (model, split method) over the repeats (made splits only), and the metric."""
    rows = files.rows(_PERF, _PERF_COLUMNS, dataset=dataset)
    metrics = sorted(set(rows["metric"]))
    if len(metrics) != 1:
        raise ValueError(f"{_PERF}: dataset {dataset} has metrics {metrics}; expected one")
    wide = rows.dropna(subset=["value"]).pivot_table(index="model", columns="split_method", values="value")
    return wide, metrics[0]


def _worse(metric: str, a: float, b: float) -> bool:
    return a < b if _higher_is_better(metric) else a > b


def _lowest(files: ResultFiles, dataset: str, methods: str, column: str) -> Measurement:
    """Whether one of ``methods`` has the lowest mean ``column`` on every dataset of ``dataset`` (``|``: each
    one in the run); the value is the lowest method (per dataset when there are several)."""
    found, note = _datasets(files, dataset)
    lowest, parts = {}, []
    for name in found:
        means = _leakage_means(files, name, column).dropna()  # 1-D rows have no side columns
        if not set(_names(methods)) & set(means.index):
            raise NotInRun(f"{name}: no split of {', '.join(_names(methods))} with a {column} was made")
        lowest[name] = str(means.idxmin())
        parts.append(("" if len(found) == 1 else f"{name}: ") +
                     ", ".join(f"{m} {v:.3f}" for m, v in means.sort_values().items()))
    value = next(iter(lowest.values())) if len(found) == 1 else ", ".join(f"{d} {m}" for d, m in lowest.items())
    detail = "; ".join(parts) + (f"; {note}" if note else "")
    return Measurement(value, holds=all(m in _names(methods) for m in lowest.values()), detail=detail)


@_reader(_LEAK)
def lowest_leakage(files: ResultFiles, settings: Mapping[str, Any], dataset: str, methods: str) -> Measurement:
    """Whether one of ``methods`` has the lowest mean scaled L(π) of the splits made on ``dataset`` (each of the
    ``|``-separated datasets in the run)."""
    return _lowest(files, dataset, methods, "scaled_leakage")


@_reader(_LEAK)
def lowest_side_leakage(files: ResultFiles, settings: Mapping[str, Any], dataset: str, methods: str,
                        side: str) -> Measurement:
    """Whether one of ``methods`` has the lowest mean scaled L(π) of one side (``drug`` or ``target``: column
    ``<side>_leakage``) of the pair splits made on ``dataset`` (each of the ``|``-separated datasets in the run)."""
    if side not in ("drug", "target"):
        raise ValueError(f"side must be drug or target, got {side!r}")
    return _lowest(files, dataset, methods, f"{side}_leakage")


@_reader(_LEAK)
def leakage_between(files: ResultFiles, settings: Mapping[str, Any], dataset: str, method: str, low: str,
                    high: str) -> Measurement:
    """Whether ``method``'s mean scaled L(π) lies between ``low``'s and ``high``'s (strictly)."""
    status = _method_status(files, dataset, method)
    if status != "ok":
        return Measurement(status, holds=False, detail=f"{dataset} {method}: {status}")
    means = _leakage_means(files, dataset)
    for m in (low, high):
        if m not in means.index:
            raise NotInRun(f"{dataset}: no {m} split was made")
    holds = means[low] < means[method] < means[high]
    detail = f"{low} {means[low]:.3f}, {method} {means[method]:.3f}, {high} {means[high]:.3f}"
    return Measurement(float(means[method]), holds=bool(holds), detail=detail)


@_reader(_LEAK)
def lower_leakage(files: ResultFiles, settings: Mapping[str, Any], dataset: str, method: str,
                  baseline: str) -> Measurement:
    """Whether ``method``'s mean scaled L(π) is below ``baseline``'s."""
    means = _leakage_means(files, dataset)
    for m in (method, baseline):
        if m not in means.index:
            raise NotInRun(f"{dataset}: no {m} split was made")
    return Measurement(float(means[method]), holds=bool(means[method] < means[baseline]),
                       detail=f"{method} {means[method]:.3f}, {baseline} {means[baseline]:.3f}")


@_reader(_LEAK, _PERF)
def leakage_performance_link(files: ResultFiles, settings: Mapping[str, Any], dataset: str) -> Measurement:
    """Whether, for every model, splits with lower scaled L(π) give worse test scores: the Spearman correlation
    over split methods between L(π) and the score (oriented so that higher is better) is positive."""
    means = _leakage_means(files, dataset)
    wide, metric = _scores(files, dataset)
    sign = 1.0 if _higher_is_better(metric) else -1.0
    methods = [m for m in wide.columns if m in means.index]
    if len(methods) < 3:
        raise NotInRun(f"{dataset}: fewer than 3 split methods with both L(π) and scores")
    rhos = {}
    for model, scores in wide[methods].iterrows():
        rhos[model] = float(spearmanr(means[methods].to_numpy(), sign * scores.to_numpy()).statistic)
    ok = sum(r > 0 for r in rhos.values())
    detail = "Spearman ρ(L(π), score): " + ", ".join(f"{m} {r:.2f}" for m, r in rhos.items()) + \
        f" over {len(methods)} split methods ({metric})"
    return Measurement(f"{ok} of {len(rhos)}", holds=ok == len(rhos), detail=detail)


@_reader(_PERF, _LEAK)
def worse_than(files: ResultFiles, settings: Mapping[str, Any], dataset: str, method: str, baseline: str,
               models: str = "") -> Measurement:
    """Whether every model (or each of ``models``) scores worse on ``method`` splits than on ``baseline`` ones,
    on every dataset of ``dataset`` (``+``-joined; ``|``: the paper's dataset and its stand-ins, each one in the
    run)."""
    parts, worse, total = [], 0, 0
    for spec in _names(dataset):
        found, note = _datasets(files, spec)
        for name in found:
            for m in (method, baseline):
                _method_status(files, name, m)
            wide, metric = _scores(files, name)
            wanted = _names(models) or list(wide.index)
            absent = [m for m in wanted if m not in wide.index]
            if absent:
                raise NotInRun(f"{name}: no scores of model(s) {', '.join(absent)}")
            if method not in wide.columns or baseline not in wide.columns:
                raise NotInRun(f"{name}: no scores on {method} or {baseline} splits")
            for model in wanted:
                a, b = float(wide.loc[model, method]), float(wide.loc[model, baseline])
                total += 1
                worse += _worse(metric, a, b)
                parts.append(f"{name} {model} {metric} {b:.3g} → {a:.3g}")
        if note:
            parts.append(note)
    return Measurement(f"{worse} of {total}", holds=worse == total, detail=f"{baseline} → {method}: " + ", ".join(parts))


@_reader(_PERF, _LEAK)
def worst_split(files: ResultFiles, settings: Mapping[str, Any], dataset: str, method: str) -> Measurement:
    """Whether every model scores worst on ``method`` splits among all split methods of ``dataset``, on each of
    its ``|``-separated datasets in the run (the value counts (dataset, model) pairs)."""
    found, note = _datasets(files, dataset)
    parts, ok, total = [], 0, 0
    for name in found:
        _method_status(files, name, method)
        wide, metric = _scores(files, name)
        if method not in wide.columns:
            raise NotInRun(f"{name}: no scores on {method} splits")
        sign = 1.0 if _higher_is_better(metric) else -1.0
        worst = {model: str((sign * row.dropna()).idxmin()) for model, row in wide.iterrows()}
        ok += sum(w == method for w in worst.values())
        total += len(worst)
        parts.append(("" if len(found) == 1 else f"{name}: ") + ", ".join(f"{m} {w}" for m, w in worst.items()))
    detail = "worst split: " + "; ".join(parts) + (f"; {note}" if note else "")
    return Measurement(f"{ok} of {total}", holds=ok == total, detail=detail)


@_reader(_PERF, _LEAK)
def worst_split_no_skill(files: ResultFiles, settings: Mapping[str, Any], dataset: str, method: str) -> Measurement:
    """:func:`worst_split` with each score read against its split's yardstick: the model's test score divided by
    the split's ``no_skill_score`` (the score of predicting the training fold's mean label on the same test fold),
    per repeat, then the mean over repeats. Test folds differ in how spread their labels are; the ratio removes
    that from the comparison of splits."""
    found, note = _datasets(files, dataset)
    leak = files.table(_LEAK, _LEAK_COLUMNS)
    if "no_skill_score" not in leak.columns:
        raise NotInRun(f"{_LEAK} has no no_skill_score column (a run from before the column existed)")
    perf = files.table(_PERF, _PERF_COLUMNS)
    parts, ok, total = [], 0, 0
    for name in found:
        _method_status(files, name, method)
        yardstick = leak[(leak["dataset"] == name) & (leak["status"] == "ok")]
        rows = perf[perf["dataset"] == name].merge(yardstick[["split_method", "repeat", "no_skill_score"]],
                                                   on=["split_method", "repeat"]).dropna(subset=["value"])
        if rows.empty or rows["no_skill_score"].isna().all():
            raise NotInRun(f"{name}: no split with a no_skill_score (a run from before the column existed)")
        metric = str(rows["metric"].iloc[0])
        rows = rows.assign(relative=rows["value"] / rows["no_skill_score"])
        wide = rows.pivot_table(index="model", columns="split_method", values="relative")
        if method not in wide.columns:
            raise NotInRun(f"{name}: no scores on {method} splits")
        sign = 1.0 if _higher_is_better(metric) else -1.0
        worst = {model: str((sign * row.dropna()).idxmin()) for model, row in wide.iterrows()}
        ok += sum(w == method for w in worst.values())
        total += len(worst)
        parts.append(("" if len(found) == 1 else f"{name}: ") + ", ".join(
            f"{m} {w} ({wide.loc[m, w]:.2f} of no skill; {method} {wide.loc[m, method]:.2f})" for m, w in worst.items()))
    detail = f"worst split by {metric} / no-skill {metric}: " + "; ".join(parts) + (f"; {note}" if note else "")
    return Measurement(f"{ok} of {total}", holds=ok == total, detail=detail)


@_reader(_LEAK)
def side_leakage_below(files: ResultFiles, settings: Mapping[str, Any], dataset: str, method: str, baseline: str,
                       side: str) -> Measurement:
    """Whether ``method``'s mean scaled L(π) of one side (``drug`` or ``target``) is below ``baseline``'s, on each
    of the ``|``-separated 2-D datasets in the run; the value counts the datasets where it is."""
    if side not in ("drug", "target"):
        raise ValueError(f"side must be drug or target, got {side!r}")
    found, note = _datasets(files, dataset)
    below, parts = 0, []
    for name in found:
        means = _leakage_means(files, name, f"{side}_leakage").dropna()
        for m in (method, baseline):
            if m not in means.index:
                raise NotInRun(f"{name}: no {m} split with a {side}_leakage was made")
        below += bool(means[method] < means[baseline])
        parts.append(f"{name}: {method} {means[method]:.3f}, {baseline} {means[baseline]:.3f}")
    detail = f"{side} side: " + "; ".join(parts) + (f"; {note}" if note else "")
    return Measurement(f"{below} of {len(found)}", holds=below == len(found), detail=detail)


@_reader(_LEAK)
def dropped_pairs(files: ResultFiles, settings: Mapping[str, Any], dataset: str, methods: str) -> Measurement:
    """Whether every split of ``methods`` on ``dataset`` (each of its ``|``-separated datasets in the run) drops
    some pairs (drug and target in different folds); the value is the mean share dropped."""
    names, note = _datasets(files, dataset)
    rows = files.table(_LEAK, _LEAK_COLUMNS)
    rows = rows[rows["dataset"].isin(names) & rows["split_method"].isin(_names(methods)) & (rows["status"] == "ok")]
    if rows.empty:
        raise NotInRun(f"{', '.join(names)}: no {', '.join(_names(methods))} split was made")
    share = rows["n_dropped"] / (rows["n_train"] + rows["n_test"] + rows["n_dropped"])
    by = share.groupby([rows["dataset"], rows["split_method"]]).mean()
    detail = ", ".join(f"{m} {s:.1%}" if len(names) == 1 else f"{d} {m} {s:.1%}" for (d, m), s in by.items())
    return Measurement(float(share.mean()), holds=bool((rows["n_dropped"] > 0).all()),
                       detail=detail + " of pairs dropped" + (f"; {note}" if note else ""))


@_reader(_LEAK)
def repeats(files: ResultFiles, settings: Mapping[str, Any]) -> Measurement:
    """Number of repeats (splittings) per dataset and split method."""
    rows = files.table(_LEAK, _LEAK_COLUMNS)
    counts = rows.groupby(["dataset", "split_method"])["repeat"].nunique()
    return Measurement(int(counts.min()), detail=f"{int(counts.min())}..{int(counts.max())} per (dataset, method)")


def _kind(dataset: str) -> str:
    from benchdesign.molexp.datasets import dataset_info  # RDKit: imported only when needed

    return dataset_info(dataset).kind


@_reader(_LEAK)
def test_fraction(files: ResultFiles, settings: Mapping[str, Any], kind: str) -> Measurement:
    """Mean test share n_test / (n_train + n_test) of the splits made on the ``kind`` (1d or 2d) datasets."""
    rows = files.table(_LEAK, _LEAK_COLUMNS)
    rows = rows[(rows["status"] == "ok") & (rows["dataset"].map(_kind) == kind)]
    if rows.empty:
        raise NotInRun(f"{_LEAK} has no {kind} split")
    share = rows["n_test"] / (rows["n_train"] + rows["n_test"])
    return Measurement(float(share.mean()), detail=f"{share.min():.3f}..{share.max():.3f} over {len(rows)} splits")


@_reader(_PERF)
def models_trained(files: ResultFiles, settings: Mapping[str, Any], kind: str) -> Measurement:
    """Number of models scored on the ``kind`` (1d or 2d) datasets."""
    rows = files.table(_PERF, _PERF_COLUMNS)
    models = sorted(set(rows.loc[rows["dataset"].map(_kind) == kind, "model"]))
    if not models:
        raise NotInRun(f"{_PERF} has no {kind} dataset")
    return Measurement(len(models), detail=", ".join(models))


@_reader(_LEAK, _PERF)
def model_scored(files: ResultFiles, settings: Mapping[str, Any], model: str, dataset: str) -> Measurement:
    """Whether ``model`` has a test score on every split made of ``dataset`` (each of the ``|``-separated
    datasets in the run)."""
    names, note = _datasets(files, dataset)
    made = files.table(_LEAK, _LEAK_COLUMNS)
    made = made[made["dataset"].isin(names) & (made["status"] == "ok")]
    if made.empty:
        raise NotInRun(f"{', '.join(names)}: no split was made")
    perf = files.table(_PERF, _PERF_COLUMNS)
    rows = perf[perf["dataset"].isin(names) & (perf["model"] == model)]
    if rows.empty:
        raise NotInRun(f"{_PERF} has no {model} score on {', '.join(names)}")
    scored = made.merge(rows.dropna(subset=["value"]), on=["dataset", "split_method", "repeat"])
    detail = f"{model} scored on {len(scored)} of {len(made)} splits of {' and '.join(names)}" + \
        (f"; {note}" if note else "")
    return Measurement(f"{len(scored)} of {len(made)}", holds=len(scored) == len(made), detail=detail)


def _subsampled(settings: Mapping[str, Any], dataset: str) -> str:
    """Why a dataset's size is not the paper's: a sub-sample (``molecules.max_molecules``), or ""."""
    cap = (settings.get("max_molecules") or {}).get(dataset)
    return f"sub-sampled to at most {cap} rows (molecules.max_molecules.{dataset})" if cap is not None else ""


@_reader("results/molecules/{dataset}/samples.csv")
def class_count(files: ResultFiles, settings: Mapping[str, Any], dataset: str, column: str,
                which: str) -> Measurement:
    """Labelled molecules of one binary task: ``which`` = total, minority or majority."""
    samples = files.table(f"results/molecules/{dataset}/samples.csv", (column,))
    counts = samples[column].dropna().astype(int).value_counts()
    value = {"total": int(counts.sum()), "minority": int(counts.min()), "majority": int(counts.max())}[which]
    detail = ", ".join(f"class {c}: {n}" for c, n in counts.sort_index().items())
    return Measurement(value, detail=detail, incomparable=_subsampled(settings, dataset))


@_reader("results/molecules/{dataset}/{table}.csv")
def entity_count(files: ResultFiles, settings: Mapping[str, Any], dataset: str, table: str) -> Measurement:
    """Rows of a dataset's table: samples (pairs), molecules (drugs) or proteins (targets)."""
    frame = files.table(f"results/molecules/{dataset}/{table}.csv")
    return Measurement(len(frame), detail=f"rows of {dataset} {table}.csv", incomparable=_subsampled(settings, dataset))


_MOL = "results/molecules/{dataset}"
_FOLDS = _MOL + "/splits/{method}/{repeat}.tsv"


def _neighbour_agreement(bits: np.ndarray, folds: Sequence[np.ndarray], neighbours: int,
                         chunk: int = 512) -> list[float]:
    """Per fold labelling (one label per fingerprint row, -1 for none), the mean share of each labelled
    molecule's ``neighbours`` nearest labelled molecules (Tanimoto similarity of the fingerprint bits, itself
    left out) that share its label."""
    x = (np.asarray(bits) > 0).astype(np.float32)
    counts = x.sum(axis=1)
    labelled = np.flatnonzero(np.all([f >= 0 for f in folds], axis=0))
    if len(labelled) <= neighbours:
        raise ValueError(f"{len(labelled)} molecules with a fold, not more than {neighbours} neighbours")
    x, counts = x[labelled], counts[labelled]
    agree = np.zeros(len(folds))
    for start in range(0, len(x), chunk):
        block = slice(start, min(start + chunk, len(x)))
        shared = x[block] @ x.T
        union = counts[block, None] + counts[None, :] - shared
        similarity = np.divide(shared, union, out=np.ones_like(shared), where=union > 0)
        similarity[np.arange(block.stop - block.start), np.arange(block.start, block.stop)] = -np.inf  # itself
        nearest = np.argpartition(-similarity, neighbours - 1, axis=1)[:, :neighbours]
        for i, fold in enumerate(folds):
            own = fold[labelled]
            agree[i] += float((own[nearest] == own[block, None]).mean(axis=1).sum())
    return [float(a / len(x)) for a in agree]


@_reader(_MOL + "/features.npz", _MOL + "/samples.csv", _MOL + "/molecules.csv", _LEAK)
def neighbour_separation(files: ResultFiles, settings: Mapping[str, Any], dataset: str, method: str, baseline: str,
                         neighbours: str = "30") -> Measurement:
    """How much better ``method``'s splits of a 1-D ``dataset`` separate training from test molecules than
    ``baseline``'s, in the fingerprint space the t-SNE figures embed: per repeat, the mean share of each
    molecule's ``neighbours`` nearest molecules (Tanimoto of the ECFP bits) in its own fold, ``method``'s minus
    ``baseline``'s; the value is the mean difference over the repeats both made, with its standard error.
    Holds when the difference exceeds two standard errors (with one repeat: when it is positive)."""
    from benchdesign.molexp.experiment import read_folds  # RDKit: imported only when needed

    with np.load(files.path(_MOL.format(dataset=dataset) + "/features.npz"), allow_pickle=False) as npz:
        bits = npz["molecule_bits"]
    samples = files.table(_MOL.format(dataset=dataset) + "/samples.csv", ("id",))
    molecules = files.table(_MOL.format(dataset=dataset) + "/molecules.csv", ("id",))
    if "drug_id" in samples.columns:
        raise ValueError(f"{dataset} holds drug-target pairs; neighbour_separation reads 1-D datasets")
    if len(bits) != len(molecules):
        raise ValueError(f"{dataset}: {len(bits)} fingerprints for {len(molecules)} molecules")
    row = pd.Series(np.arange(len(molecules)), index=molecules["id"].astype(str))
    sample_ids = samples["id"].astype(str).tolist()
    index = row.reindex(sample_ids).to_numpy()
    if np.isnan(index.astype(float)).any():
        raise ValueError(f"{dataset}: samples.csv names molecules that molecules.csv lacks")
    made = files.rows(_LEAK, _LEAK_COLUMNS, dataset=dataset)
    made = made[made["status"] == "ok"]
    repeats = sorted(set(made.loc[made["split_method"] == method, "repeat"])
                     & set(made.loc[made["split_method"] == baseline, "repeat"]))
    if not repeats:
        raise NotInRun(f"{dataset}: no repeat with both a {method} and a {baseline} split")
    labels = []  # method's and baseline's fold per molecule, repeat after repeat
    for repeat in repeats:
        for m in (method, baseline):
            folds = read_folds(files.path(_FOLDS.format(dataset=dataset, method=m, repeat=repeat)), sample_ids)
            per_molecule = np.full(len(molecules), -1, dtype=np.int64)
            per_molecule[index.astype(int)] = folds
            labels.append(per_molecule)
    agreement = np.array(_neighbour_agreement(bits, labels, int(neighbours))).reshape(len(repeats), 2)
    differences = agreement[:, 0] - agreement[:, 1]
    mean = float(differences.mean())
    se = float(differences.std(ddof=1) / math.sqrt(len(differences))) if len(differences) > 1 else None
    holds = mean > (2 * se if se is not None else 0.0)
    detail = (f"share of the {neighbours} nearest molecules (Tanimoto, ECFP bits) in the same fold: {method} "
              f"{agreement[:, 0].mean():.3f}, {baseline} {agreement[:, 1].mean():.3f} over {len(repeats)} repeat(s)"
              + (f"; difference SE {se:.3g}" if se is not None else "; one repeat, no SE")
              + f"; {len(bits)} molecules" + (f", {_subsampled(settings, dataset)}" if _subsampled(settings, dataset) else ""))
    return Measurement(mean, holds=bool(holds), detail=detail, se=se)


_ABL = f"{TABLES}/ablation_{{sweep}}.csv"


def _ablation(files: ResultFiles, sweep: str, keys: Sequence[str]) -> pd.DataFrame:
    frame = files.table(_ABL.format(sweep=sweep), (*keys, "scaled_leakage", "seconds", "status"))
    ok = frame[frame["status"] == "ok"]
    if ok.empty:
        raise NotInRun(f"{_ABL.format(sweep=sweep)} has no point that ran")
    return ok


@_reader(_ABL.format(sweep="clusters"))
def clusters_flat_beyond(files: ResultFiles, settings: Mapping[str, Any], clusters: str, within: str) -> Measurement:
    """Whether no cluster count above ``clusters`` lowers L(π) by more than ``within`` (relative), per solver."""
    table, k = _ablation(files, "clusters", ("clusters", "solver")), int(clusters)
    parts, holds, gains = [], True, []
    for solver, rows in table.groupby("solver", sort=True):
        at = rows.loc[rows["clusters"] == k, "scaled_leakage"]
        beyond = rows.loc[rows["clusters"] > k, "scaled_leakage"]
        if at.empty or beyond.empty:
            raise NotInRun(f"ablation_clusters.csv: {solver} has no K = {k} or no K > {k}")
        gain = (float(at.mean()) - float(beyond.min())) / float(at.mean())
        gains.append(gain)
        holds &= gain <= float(within)
        parts.append(f"{solver}: L at K = {k} {float(at.mean()):.4f}, best beyond {float(beyond.min()):.4f}")
    return Measurement(max(gains), holds=holds, detail="; ".join(parts))


@_reader(_ABL.format(sweep="clusters"))
def clusters_good_at(files: ResultFiles, settings: Mapping[str, Any], clusters: str, within: str) -> Measurement:
    """Whether L(π) at ``clusters`` is within ``within`` (relative) of the sweep's lowest, per solver."""
    table, k = _ablation(files, "clusters", ("clusters", "solver")), int(clusters)
    parts, holds, gaps = [], True, []
    for solver, rows in table.groupby("solver", sort=True):
        at = rows.loc[rows["clusters"] == k, "scaled_leakage"]
        if at.empty:
            raise NotInRun(f"ablation_clusters.csv: {solver} has no K = {k}")
        best = float(rows["scaled_leakage"].min())
        gap = (float(at.mean()) - best) / best
        gaps.append(gap)
        holds &= gap <= float(within)
        best_k = int(rows.loc[rows["scaled_leakage"].idxmin(), "clusters"])
        parts.append(f"{solver}: K = {k} {float(at.mean()):.4f}, lowest {best:.4f} (K = {best_k})")
    return Measurement(max(gaps), holds=holds, detail="; ".join(parts))


@_reader(_ABL.format(sweep="clusters"))
def solvers_similar(files: ResultFiles, settings: Mapping[str, Any], within: str) -> Measurement:
    """Whether the solvers' L(π) at each cluster count differ by at most ``within`` (relative to the lowest)."""
    table = _ablation(files, "clusters", ("clusters", "solver"))
    wide = table.pivot_table(index="clusters", columns="solver", values="scaled_leakage")
    if wide.shape[1] < 2:
        raise NotInRun("ablation_clusters.csv has one solver")
    spread = ((wide.max(axis=1) - wide.min(axis=1)) / wide.min(axis=1)).dropna()
    detail = f"solvers {', '.join(wide.columns)}; largest spread {spread.max():.1%} (K = {int(spread.idxmax())})"
    return Measurement(float(spread.max()), holds=bool(spread.max() <= float(within)), detail=detail)


def _margin_spreads(files: ResultFiles) -> tuple[float, float, float]:
    """Mean over δ of the L(π) range over ε, mean over ε of the range over δ, and the mean L(π), over the cells
    with ε <= δ only, as DataSAIL's Fig. 6c is drawn (its plotting code leaves the cells with ε > δ blank: there
    the class constraint, not ε, bounds the fold sizes)."""
    table = _ablation(files, "margins", ("epsilon", "delta"))
    wide = table.pivot_table(index="epsilon", columns="delta", values="scaled_leakage")
    plotted = wide.where(wide.index.to_numpy()[:, None] <= wide.columns.to_numpy()[None, :])
    columns = plotted.loc[:, plotted.count(axis=0) >= 2]
    rows = plotted.loc[plotted.count(axis=1) >= 2]
    if columns.empty or rows.empty:
        raise NotInRun("ablation_margins.csv needs at least two values of both ε and δ with ε <= δ")
    over_eps = float((columns.max(axis=0) - columns.min(axis=0)).mean())
    over_delta = float((rows.max(axis=1) - rows.min(axis=1)).mean())
    return over_eps, over_delta, float(np.nanmean(plotted.to_numpy()))


@_reader(_ABL.format(sweep="margins"))
def margins_eps_matters(files: ResultFiles, settings: Mapping[str, Any]) -> Measurement:
    """Whether ε moves L(π) more than δ does (mean ranges over each at the other's values)."""
    over_eps, over_delta, mean = _margin_spreads(files)
    return Measurement(over_eps, holds=over_eps > over_delta,
                       detail=f"range over ε {over_eps:.4f}, over δ {over_delta:.4f} (mean L(π) {mean:.4f})")


@_reader(_ABL.format(sweep="margins"))
def margins_delta_flat(files: ResultFiles, settings: Mapping[str, Any], within: str) -> Measurement:
    """Whether the range of L(π) over δ (at each ε, averaged) is at most ``within`` of the mean L(π)."""
    over_eps, over_delta, mean = _margin_spreads(files)
    share = over_delta / mean
    return Measurement(share, holds=share <= float(within),
                       detail=f"range over δ {over_delta:.4f} of mean L(π) {mean:.4f}; range over ε {over_eps:.4f}")


@_reader(_ABL.format(sweep="size"))
def runtime_grows(files: ResultFiles, settings: Mapping[str, Any]) -> Measurement:
    """Whether every method's run time rises with the dataset size (Spearman ρ > 0 over >= 3 datasets)."""
    table = _ablation(files, "size", ("dataset", "method", "n_molecules"))
    rhos = {m: float(spearmanr(rows["n_molecules"], rows["seconds"]).statistic)
            for m, rows in table.groupby("method", sort=True) if rows["dataset"].nunique() >= 3}
    if not rhos:
        raise NotInRun("ablation_size.csv: no method ran on 3 or more datasets")
    ok = sum(r > 0 for r in rhos.values())
    return Measurement(f"{ok} of {len(rhos)}", holds=ok == len(rhos),
                       detail="Spearman ρ(size, seconds): " + ", ".join(f"{m} {r:.2f}" for m, r in rhos.items()))


@_reader(_ABL.format(sweep="size"))
def runtime_exponent(files: ResultFiles, settings: Mapping[str, Any], method: str, at_most: str) -> Measurement:
    """The exponent b of ``method``'s run time, seconds ~ n^b (least squares of log seconds on log n_molecules
    over the datasets it finished, >= 3), with its standard error; holds when b + 2 SE <= ``at_most``."""
    _size_status(files, method)
    table = _ablation(files, "size", ("dataset", "method", "n_molecules"))
    rows = table[table["method"] == method]
    if rows["n_molecules"].nunique() < 3:
        raise NotInRun(f"ablation_size.csv: {method} finished on fewer than 3 dataset sizes")
    x, y = np.log(rows["n_molecules"].to_numpy(float)), np.log(rows["seconds"].to_numpy(float))
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (intercept + slope * x)
    se = float(np.sqrt(residual.var(ddof=2) / ((x - x.mean()) ** 2).sum())) if len(x) > 2 else math.inf
    others = {m: float(np.polyfit(np.log(g["n_molecules"].to_numpy(float)), np.log(g["seconds"].to_numpy(float)),
                                  1)[0])
              for m, g in table.groupby("method", sort=True) if m != method and g["n_molecules"].nunique() >= 3}
    every = files.table(_ABL.format(sweep="size"), ("dataset", "method"))
    not_run = sorted(set(every.loc[every["method"] == method, "dataset"]) - set(rows["dataset"]))
    detail = (f"{method}: b = {slope:.2f} (SE {se:.2f}) over {len(rows)} datasets, "
              f"n = {int(rows['n_molecules'].min())}..{int(rows['n_molecules'].max())}"
              + (f" (not run: {', '.join(not_run)})" if not_run else "")
              + ("; others: " + ", ".join(f"{m} {b:.2f}" for m, b in others.items()) if others else "")
              + "; wall-clock seconds")
    return Measurement(float(slope), holds=bool(slope + 2 * se <= float(at_most)), detail=detail, se=se)


def _size_status(files: ResultFiles, method: str, dataset: str = "") -> pd.DataFrame:
    frame = files.table(_ABL.format(sweep="size"), ("dataset", "method", "seconds", "status"))
    rows = frame[(frame["method"] == method) & ((frame["dataset"] == dataset) if dataset else True)]
    if rows.empty or rows["status"].str.startswith("skipped").all():
        said = f" on {dataset}" if dataset else ""
        why = f": {rows['status'].iloc[0]}" if len(rows) else ""
        raise NotInRun(f"ablation_size.csv: {method}{said} did not run{why}")
    return rows


@_reader(_ABL.format(sweep="size"))
def slowest_method(files: ResultFiles, settings: Mapping[str, Any], method: str) -> Measurement:
    """Whether ``method`` takes the longest in total over the datasets every method finished."""
    _size_status(files, method)
    table = _ablation(files, "size", ("dataset", "method", "n_molecules"))
    wide = table.pivot_table(index="dataset", columns="method", values="seconds").dropna()
    if method not in wide.columns or wide.empty:
        raise NotInRun(f"ablation_size.csv: no dataset on which {method} and every other method finished")
    totals = wide.sum(axis=0).sort_values(ascending=False)
    detail = "total seconds: " + ", ".join(f"{m} {s:.0f}" for m, s in totals.items()) + f" over {len(wide)} datasets"
    return Measurement(str(totals.index[0]), holds=totals.index[0] == method, detail=detail)


@_reader(_ABL.format(sweep="size"))
def finished_all(files: ResultFiles, settings: Mapping[str, Any], method: str) -> Measurement:
    """Whether ``method`` produced a split on every dataset of the size sweep it ran on (a dataset this run's
    size cap kept it from is not run here, not a failure)."""
    rows = _size_status(files, method)
    capped = rows[rows["status"].astype(str).str.contains("> max_peer_molecules")]
    rows = rows.drop(capped.index)  # skipped by this run's own cap: not run here, not failed
    bad = rows[rows["status"] != "ok"]
    detail = ", ".join(f"{d}: {s}" for d, s in zip(bad["dataset"], bad["status"])) or f"{len(rows)} datasets"
    if len(capped):
        detail += ("; not run here (this run's cap, molecules.max_peer_molecules): "
                   + ", ".join(capped["dataset"]))
    return Measurement(f"{len(rows) - len(bad)} of {len(rows)}", holds=bad.empty, detail=detail)


@_reader(_ABL.format(sweep="size"))
def no_result(files: ResultFiles, settings: Mapping[str, Any], method: str, dataset: str) -> Measurement:
    """Whether ``method`` produced no split of ``dataset`` (timed out or failed)."""
    rows = _size_status(files, method, dataset)
    status = str(rows["status"].iloc[0])
    note = ""
    if method == "lohi":
        limit = settings.get("lohi_time_limit")
        said = "its default" if limit is None else f"{float(limit):g} s"
        if limit is None or float(limit) < PAPER_LOHI_LIMIT_S:
            note = (f"LoHi's time limit is {said} (the paper: {PAPER_LOHI_LIMIT_S} s; "
                    "molecules.method_options.lohi.time_limit)")
    return Measurement(status, holds=status != "ok", detail=f"{dataset} {method}: {status}", incomparable=note)
