"""Read fetched source files into the "scores" long frame and the per-dataset feature tables.

Every loader returns scores as a long DataFrame with columns ``dataset`` (str), ``model`` (str),
``fold`` (int, 0 when the source has no folds) and ``score`` (float, no NaN), one row per
(dataset, model, fold); the score direction is carried in ``scores.attrs["higher_is_better"]`` (and
in :data:`SCORES_HIGHER_IS_BETTER`). Bad inputs raise ``ValueError`` naming the file and the offending value.

Sources: TSC bake-off redux (Middlehurst et al., DMKD 2024); RecSys (Shevchenko et al., KDD 2024);
MTEB Table 11 and Table 2 (Muennighoff et al., EACL 2023). See ``data/sources.yaml``.
"""
from __future__ import annotations

import io
import json
import math
import os
import re
import tarfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "SCORES_HIGHER_IS_BETTER",
    "MTEB_ADA_MODEL",
    "MTEB_DROPPED_TASKS",
    "load_mteb_metadata",
    "load_mteb_table11",
    "load_recsys",
    "load_tsc_bakeoff",
]

SCORES_HIGHER_IS_BETTER = {"tsc": True, "recsys": True, "nlp": True}
"""Score direction per domain: accuracy, nDCG@10 and the MTEB main scores are all higher-is-better."""

SCORE_COLUMNS = ["dataset", "model", "fold", "score"]
TSC_HEADERS = ("folds:", "Resamples:")
_TSC_SUFFIX = "_TESTFOLDS.csv"

MTEB_ADA_MODEL = "Ada Similarity"
"""Column of MTEB Table 11 whose 15 retrieval cells are empty in the paper."""
MTEB_ADA_RESULTS_DIR = "results/text-similarity-ada-001/no_revision_available"
"""Where the Ada results JSON files live in the results repository (and in its tarball)."""
MTEB_DROPPED_TASKS = ("BUCC", "Tatoeba", "MSMARCOv2")
"""Rows of the MTEB README task table that are not in Table 11 (bitext mining; MSMARCOv2 not run)."""
MTEB_CQADUPSTACK = "CQADupstackRetrieval"

_MTEB_README_COLUMNS = {
    "Name": "name",
    "Hub URL": "hub",
    "Description": "description",
    "Type": "type",
    "Category": "category",
    "#Languages": "n_langs",
    "Train #Samples": "train_samples",
    "Dev #Samples": "dev_samples",
    "Test #Samples": "test_samples",
    "Avg. chars / train": "avg_chars_train",
    "Avg. chars / dev": "avg_chars_dev",
    "Avg. chars / test": "avg_chars_test",
}
_INT_COLUMNS = ("n_langs", "train_samples", "dev_samples", "test_samples")
_FLOAT_COLUMNS = ("avg_chars_train", "avg_chars_dev", "avg_chars_test")
_MD_LINK = re.compile(r"^\[(.*?)\]\((.*)\)$")


# ------------------------------------------------------------------------------------------ helpers

def _finish(scores: pd.DataFrame, higher_is_better: bool) -> pd.DataFrame:
    scores = scores[SCORE_COLUMNS].reset_index(drop=True)
    scores["dataset"] = scores["dataset"].astype(str)
    scores["model"] = scores["model"].astype(str)
    scores["fold"] = scores["fold"].astype(np.int64)
    scores["score"] = scores["score"].astype(np.float64)
    scores.attrs["higher_is_better"] = higher_is_better
    return scores


def _select_models(available: Sequence[str], models: Iterable[str] | None, what: str) -> list[str]:
    if models is None:
        return list(available)
    models = list(models)
    unknown = [m for m in models if m not in set(available)]
    if unknown:
        raise ValueError(f"{what}: unknown model(s) {unknown}; available: {list(available)}")
    dup = sorted({m for m in models if models.count(m) > 1})
    if dup:
        raise ValueError(f"{what}: model(s) requested twice: {dup}")
    return models


def _duplicates(values: Iterable) -> list:
    seen, dup = set(), []
    for v in values:
        if v in seen and v not in dup:
            dup.append(v)
        seen.add(v)
    return dup


def _to_float(text: str, where: str) -> float:
    text = text.strip()
    if text == "" or text.lower() in ("nan", "na", "n/a", "none", "null"):
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{where}: not a number: {text!r}") from None


# --------------------------------------------------------------------------------------------- TSC

def _tsc_model_name(path: Path) -> str:
    if not path.name.endswith(_TSC_SUFFIX) or len(path.name) == len(_TSC_SUFFIX):
        raise ValueError(f"{path}: file name must be <classifier>{_TSC_SUFFIX} to name the model")
    return path.name[: -len(_TSC_SUFFIX)]


def _read_tsc_file(path: Path, model: str) -> pd.DataFrame:
    """One <clf>_TESTFOLDS.csv -> DataFrame (rows = datasets, columns = int folds), validated."""
    try:
        raw = pd.read_csv(path, header=0, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot parse as CSV ({exc})") from None
    first = raw.columns[0]
    if first not in TSC_HEADERS:
        raise ValueError(f"{path}: first header cell is {first!r}, expected one of {list(TSC_HEADERS)}")
    try:
        folds = [int(c) for c in raw.columns[1:]]
    except ValueError:
        raise ValueError(f"{path}: fold headers must be integers, got {list(raw.columns[1:])}") from None
    if not folds or len(set(folds)) != len(folds):
        raise ValueError(f"{path}: fold headers must be distinct integers, got {folds}")
    datasets = raw[first].str.strip()
    if (datasets == "").any():
        raise ValueError(f"{path}: empty dataset name in row(s) {list(np.flatnonzero(datasets == '') + 2)}")
    dup = _duplicates(datasets)
    if dup:
        raise ValueError(f"{path}: duplicate dataset name(s) {dup}")
    values = np.empty((len(raw), len(folds)))
    for j, col in enumerate(raw.columns[1:]):
        for i, cell in enumerate(raw[col]):
            values[i, j] = _to_float(
                cell, f"{path}: dataset {datasets.iat[i]!r}, model {model!r}, fold {folds[j]}")
    bad = np.argwhere(np.isnan(values))
    if len(bad):
        cells = [f"(dataset {datasets.iat[i]!r}, fold {folds[j]})" for i, j in bad[:10]]
        more = f" and {len(bad) - 10} more" if len(bad) > 10 else ""
        raise ValueError(f"{path}: missing/NaN score for model {model!r} at {', '.join(cells)}{more}")
    return pd.DataFrame(values, index=pd.Index(datasets, name="dataset"), columns=folds)


def load_tsc_bakeoff(files: Mapping[str, str | os.PathLike] | Iterable[str | os.PathLike],
                     models: Iterable[str] | None = None) -> pd.DataFrame:
    """Bake-off redux accuracies as the long scores frame (higher is better).

    Parameters
    ----------
    files : ``{model: path}``, or paths named ``<model>_TESTFOLDS.csv``. Each file has a header
        ``folds:,0,..,29`` (the published files) or ``Resamples:,0,..,29`` (tsml-eval) and one row per
        dataset with the test accuracy of every resample.
    models : models to keep (default: all files, in the given order).

    Returns
    -------
    scores : DataFrame ``dataset, model, fold, score``. Only the datasets present in *every* given file
        are kept (8 of the 35 published files also hold 30 newer datasets; the common 112 are the
        benchmark), computed over all files before ``models`` is applied so that the dataset set does
        not depend on the model subset. Datasets keep the order of the first file.
        ``scores.attrs["higher_is_better"] is True``. On the mirror: 112 x 35 x 30 = 117,600 rows.

    Examples
    --------
    Two classifiers' files of two resamples each; ``Newer``, only in the second file, is left out:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.data import load_tsc_bakeoff
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "ROCKET_TESTFOLDS.csv").write_text("folds:,0,1\\nCoffee,1.0,0.96\\nWine,0.9,0.85\\n")
    >>> _ = (folder / "HC2_TESTFOLDS.csv").write_text("folds:,0,1\\nCoffee,1.0,1.0\\nWine,0.95,0.9\\nNewer,0.5,0.6\\n")
    >>> scores = load_tsc_bakeoff([folder / "ROCKET_TESTFOLDS.csv", folder / "HC2_TESTFOLDS.csv"])
    >>> scores
      dataset   model  fold  score
    0  Coffee  ROCKET     0   1.00
    1  Coffee  ROCKET     1   0.96
    2  Coffee     HC2     0   1.00
    3  Coffee     HC2     1   1.00
    4    Wine  ROCKET     0   0.90
    5    Wine  ROCKET     1   0.85
    6    Wine     HC2     0   0.95
    7    Wine     HC2     1   0.90
    >>> scores.attrs["higher_is_better"]
    True
    """
    if isinstance(files, Mapping):
        items = [(str(m), Path(p)) for m, p in files.items()]
    else:
        items = [(_tsc_model_name(Path(p)), Path(p)) for p in files]
    if not items:
        raise ValueError("load_tsc_bakeoff: no files given")
    dup = _duplicates(m for m, _ in items)
    if dup:
        raise ValueError(f"load_tsc_bakeoff: model(s) given by more than one file: {dup}")
    chosen = _select_models([m for m, _ in items], models, "load_tsc_bakeoff")
    tables = {m: _read_tsc_file(p, m) for m, p in items}
    first = tables[items[0][0]]
    for m, p in items[1:]:
        if list(tables[m].columns) != list(first.columns):
            raise ValueError(f"{p}: folds {list(tables[m].columns)} differ from those of "
                             f"{items[0][1]} ({list(first.columns)})")
    common = set.intersection(*(set(t.index) for t in tables.values()))
    datasets = [d for d in first.index if d in common]
    if not datasets:
        raise ValueError("load_tsc_bakeoff: no dataset is present in every file")
    parts = []
    for m in chosen:
        t = tables[m].loc[datasets]
        long = t.stack().rename("score").reset_index()
        long.columns = ["dataset", "fold", "score"]
        long.insert(1, "model", m)
        parts.append(long)
    scores = pd.concat(parts, ignore_index=True)
    order = {d: i for i, d in enumerate(datasets)}
    scores = scores.assign(_d=scores["dataset"].map(order)).sort_values("_d", kind="stable")
    return _finish(scores, SCORES_HIGHER_IS_BETTER["tsc"])


# ------------------------------------------------------------------------------------------ RecSys

def load_recsys(path: str | os.PathLike, models: Iterable[str] | None = None
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """RecSys nDCG@10 scores and dataset features from ``Datafeatures_and_metrics.csv``.

    Parameters
    ----------
    path : the long file of Shevchenko et al. (2024): one row per (Dataset, Method) with the dataset's
        features, ``Method`` (model) and ``Value`` (nDCG@10). Every column other than
        ``Dataset, Method, Value`` is a feature (18 in the published file).
    models : models to keep (default: all, in file order).

    Returns
    -------
    scores : DataFrame ``dataset, model, fold=0, score``; ``attrs["higher_is_better"] is True``.
        On the mirror: 30 datasets x 9 models = 270 rows.
    features : DataFrame (n_datasets, n_features), index ``dataset`` (same order as in scores),
        float. On the mirror: 30 x 18.

    Examples
    --------
    Two datasets with two features each, scored by two models:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.data import load_recsys
    >>> path = Path(tempfile.mkdtemp()) / "Datafeatures_and_metrics.csv"
    >>> _ = path.write_text("Dataset,Nu,Density,Method,Value\\nml1m,6040,0.045,EASE,0.31\\nml1m,6040,0.045,ALS,0.27\\n"
    ...                     "yelp,1000,0.002,EASE,0.05\\nyelp,1000,0.002,ALS,0.06\\n")
    >>> scores, features = load_recsys(path)
    >>> scores
      dataset model  fold  score
    0    ml1m  EASE     0   0.31
    1    ml1m   ALS     0   0.27
    2    yelp  EASE     0   0.05
    3    yelp   ALS     0   0.06
    >>> features.to_dict(orient="index")
    {'ml1m': {'Nu': 6040.0, 'Density': 0.045}, 'yelp': {'Nu': 1000.0, 'Density': 0.002}}
    """
    path = Path(path)
    try:
        raw = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot parse as CSV ({exc})") from None
    missing = [c for c in ("Dataset", "Method", "Value") if c not in raw.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; columns are {list(raw.columns)}")
    feat_cols = [c for c in raw.columns if c not in ("Dataset", "Method", "Value")]
    if not feat_cols:
        raise ValueError(f"{path}: no feature columns besides Dataset, Method, Value")
    for c in ("Dataset", "Method"):
        empty = raw[c].isna() | (raw[c].astype(str).str.strip() == "")
        if empty.any():
            raise ValueError(f"{path}: empty {c} in row(s) {list(np.flatnonzero(empty) + 2)}")
    raw["Dataset"] = raw["Dataset"].astype(str).str.strip()
    raw["Method"] = raw["Method"].astype(str).str.strip()
    for c in feat_cols + ["Value"]:
        if not pd.api.types.is_numeric_dtype(raw[c]):
            conv = pd.to_numeric(raw[c], errors="coerce")
            bad = conv.isna() & raw[c].notna()
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"{path}: column {c!r}, dataset {raw['Dataset'].iat[i]!r}, model "
                                 f"{raw['Method'].iat[i]!r}: not a number: {raw[c].iat[i]!r}")
            raw[c] = conv
    pairs = list(zip(raw["Dataset"], raw["Method"]))
    dup = _duplicates(pairs)
    if dup:
        raise ValueError(f"{path}: duplicate (dataset, model) row(s) {dup}")
    nan_value = raw["Value"].isna()
    if nan_value.any():
        cells = [f"(dataset {d!r}, model {m!r})"
                 for d, m in zip(raw.loc[nan_value, "Dataset"], raw.loc[nan_value, "Method"])]
        raise ValueError(f"{path}: missing/NaN score (Value) at {', '.join(cells)}")
    datasets = list(dict.fromkeys(raw["Dataset"]))
    available = list(dict.fromkeys(raw["Method"]))
    chosen = _select_models(available, models, f"load_recsys({path})")
    present = set(pairs)
    absent = [(d, m) for d in datasets for m in available if (d, m) not in present]
    if absent:
        raise ValueError(f"{path}: missing (dataset, model) row(s) {absent[:20]}"
                         + (f" and {len(absent) - 20} more" if len(absent) > 20 else ""))
    # features: one value per dataset, no NaN
    feats = raw[["Dataset"] + feat_cols]
    for c in feat_cols:
        if feats[c].isna().any():
            bad = sorted(set(feats.loc[feats[c].isna(), "Dataset"]))
            raise ValueError(f"{path}: missing/NaN feature {c!r} for dataset(s) {bad}")
        n_distinct = feats.groupby("Dataset", sort=False)[c].nunique()
        if (n_distinct > 1).any():
            bad = list(n_distinct.index[n_distinct > 1])
            raise ValueError(f"{path}: feature {c!r} differs between the rows of dataset(s) {bad}")
    features = feats.drop_duplicates("Dataset").set_index("Dataset").loc[datasets].astype(np.float64)
    features.index.name = "dataset"
    features.columns.name = None
    sel = raw[raw["Method"].isin(chosen)]
    scores = pd.DataFrame({"dataset": sel["Dataset"], "model": sel["Method"], "fold": 0,
                           "score": sel["Value"]})
    order = {d: i for i, d in enumerate(datasets)}
    morder = {m: i for i, m in enumerate(chosen)}
    scores = scores.assign(_d=scores["dataset"].map(order), _m=scores["model"].map(morder))
    scores = scores.sort_values(["_d", "_m"], kind="stable")
    return _finish(scores, SCORES_HIGHER_IS_BETTER["recsys"]), features


# --------------------------------------------------------------------------------------- MTEB (11)

def _parse_latex_rows(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header model names and (line number, cells) of the data rows of an all_en.txt-style file."""
    header: list[str] | None = None
    rows: list[tuple[int, list[str]]] = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        s = line.strip()
        if "&" not in s:
            continue  # blank lines, \hline, captions
        s = re.sub(r"\\\\\s*(\\hline)?\s*$", "", s).strip()
        cells = [c.strip() for c in s.split("&")]
        if header is None:
            if cells[0] != "Dataset" or len(cells) < 3:
                raise ValueError(f"{path}:{lineno}: expected a header row 'Dataset & Language & <models>', "
                                 f"got {line[:80]!r}")
            header = cells
            continue
        if len(cells) != len(header):
            raise ValueError(f"{path}:{lineno}: {len(cells)} cells, the header has {len(header)} "
                             f"(task {cells[0]!r})")
        rows.append((lineno, cells))
    if header is None:
        raise ValueError(f"{path}: no LaTeX table row found")
    return header[2:], rows


def _ada_member(task: str) -> str:
    return f"{MTEB_ADA_RESULTS_DIR}/{task}.json"


def _ada_main_score(doc: dict, task: str, origin: str) -> float:
    """ndcg_at_10 x 100 on the test split (MSMARCO: dev) of one MTEB results JSON."""
    name = doc.get("mteb_dataset_name")
    if name is not None and name != task:
        raise ValueError(f"{origin}: results file is for task {name!r}, expected {task!r}")
    split = "dev" if task == "MSMARCO" else "test"
    block = doc.get(split)
    if isinstance(block, dict) and "ndcg_at_10" not in block and isinstance(block.get("en"), dict):
        block = block["en"]
    if not isinstance(block, dict) or "ndcg_at_10" not in block:
        raise ValueError(f"{origin}: no '{split}' -> 'ndcg_at_10' (only retrieval tasks can be filled)")
    value = float(block["ndcg_at_10"]) * 100.0
    if not math.isfinite(value):
        raise ValueError(f"{origin}: ndcg_at_10 is not finite: {block['ndcg_at_10']!r}")
    return value


def _ada_scores(ada_fill: str | os.PathLike, tasks: Sequence[str]) -> dict[str, float]:
    """Ada main scores for ``tasks`` from the results tarball or a directory of results JSON files."""
    src = Path(ada_fill)
    out: dict[str, float] = {}
    if src.is_file():
        try:
            tar = tarfile.open(src)
        except tarfile.TarError as exc:
            raise ValueError(f"{src}: ada_fill must be a tarball or a directory ({exc})") from None
        with tar:
            names = {n.lstrip("./"): n for n in tar.getnames()}
            for task in tasks:
                member = names.get(_ada_member(task))
                if member is None:
                    raise ValueError(f"{src}: no member {_ada_member(task)} to fill task {task!r}, "
                                     f"model {MTEB_ADA_MODEL!r}")
                fh = tar.extractfile(member)
                doc = json.load(io.TextIOWrapper(fh, encoding="utf-8"))
                out[task] = _ada_main_score(doc, task, f"{src}!{member}")
    elif src.is_dir():
        for task in tasks:
            candidates = [src / _ada_member(task), src / f"{task}.json"]
            hit = next((c for c in candidates if c.is_file()), None)
            if hit is None:
                raise ValueError(f"no results JSON to fill task {task!r}, model {MTEB_ADA_MODEL!r}; looked at "
                                 + ", ".join(str(c) for c in candidates))
            out[task] = _ada_main_score(json.loads(hit.read_text(encoding="utf-8")), task, str(hit))
    else:
        raise FileNotFoundError(f"ada_fill: {src} is neither a file nor a directory")
    return out


def load_mteb_table11(path: str | os.PathLike, models: Iterable[str] | None = None,
                      ada_fill: str | os.PathLike | None = None) -> pd.DataFrame:
    """MTEB Table 11 (all English results) as the long scores frame (higher is better).

    Parameters
    ----------
    path : ``plotstables/all_en.txt`` of the mtebpaper repository: LaTeX rows
        ``Task & Language & v_1 & ... & v_31 \\\\`` after a ``Dataset & Language & <models>`` header;
        the ``Average`` row is skipped.
    models : models to keep (default: all 31, in table order).
    ada_fill : the results tarball (``mteb_results_json_...tar.gz``) or a directory holding
        ``results/text-similarity-ada-001/no_revision_available/<Task>.json`` (or ``<Task>.json``).
        Empty cells of ``Ada Similarity`` (the 15 retrieval tasks the paper leaves empty) are filled
        with ``ndcg_at_10 x 100`` of the test split (MSMARCO: dev), unrounded.

    Returns
    -------
    scores : DataFrame ``dataset (task), model, fold=0, score`` in the table's units (x100).
        On the mirror: 56 tasks x 31 models = 1,736 rows.

    Raises
    ------
    ValueError naming the task(s) and model(s) of any empty cell that remains (among the selected
    models), duplicate task names, unknown models, or malformed rows.

    Examples
    --------
    A table of two tasks and two models; the ``Average`` row is skipped:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.data import load_mteb_table11
    >>> rows = ["Dataset & Language & Glove & BERT", "Banking77Classification & en & 67.69 & 63.41",
    ...         "STS12 & en & 54.64 & 30.87", "Average & en & 61.17 & 47.14"]
    >>> path = Path(tempfile.mkdtemp()) / "all_en.txt"
    >>> _ = path.write_text("".join(row + r" \\\\" + "\\n" for row in rows))  # LaTeX rows ending in \\\\
    >>> load_mteb_table11(path)
                       dataset  model  fold  score
    0  Banking77Classification  Glove     0  67.69
    1  Banking77Classification   BERT     0  63.41
    2                    STS12  Glove     0  54.64
    3                    STS12   BERT     0  30.87
    """
    path = Path(path)
    header, rows = _parse_latex_rows(path)
    dup = _duplicates(header)
    if dup:
        raise ValueError(f"{path}: duplicate model column(s) {dup}")
    chosen = _select_models(header, models, f"load_mteb_table11({path})")
    tasks, values = [], []
    for lineno, cells in rows:
        task = cells[0]
        if task == "Average":
            continue
        tasks.append(task)
        values.append([_to_float(v, f"{path}:{lineno}: task {task!r}, model {m!r}")
                       for m, v in zip(header, cells[2:])])
    dup = _duplicates(tasks)
    if dup:
        raise ValueError(f"{path}: duplicate task name(s) {dup}")
    if not tasks:
        raise ValueError(f"{path}: no task rows")
    table = pd.DataFrame(values, index=tasks, columns=header)[chosen]
    if ada_fill is not None and MTEB_ADA_MODEL in chosen:
        empty = list(table.index[table[MTEB_ADA_MODEL].isna()])
        if empty:
            filled = _ada_scores(ada_fill, empty)
            for task, v in filled.items():
                table.loc[task, MTEB_ADA_MODEL] = v
    holes = [(t, m) for t, m in zip(*np.nonzero(table.isna().to_numpy()))]
    if holes:
        cells = [f"(task {table.index[i]!r}, model {table.columns[j]!r})" for i, j in holes]
        hint = ""
        if any(table.columns[j] == MTEB_ADA_MODEL for _, j in holes) and ada_fill is None:
            hint = "; pass ada_fill=<results tarball or directory> to fill the Ada Similarity cells"
        raise ValueError(f"{path}: empty cell(s) {', '.join(cells)}{hint}")
    long = table.stack().rename("score").reset_index()
    long.columns = ["dataset", "model", "score"]
    long["fold"] = 0
    return _finish(long, SCORES_HIGHER_IS_BETTER["nlp"])


# ---------------------------------------------------------------------------------------- MTEB (2)

def _md_cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


def _unlink(cell: str) -> str:
    m = _MD_LINK.match(cell)
    return m.group(1).strip() if m else cell


def _read_readme_task_table(path: Path) -> pd.DataFrame:
    lines = path.read_text(encoding="utf-8").splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip().lower().startswith("## available tasks"))
    except StopIteration:
        raise ValueError(f"{path}: no '## Available tasks' section") from None
    i = start + 1
    while i < len(lines) and not lines[i].lstrip().startswith("|"):
        i += 1
    if i >= len(lines):
        raise ValueError(f"{path}: no table under '## Available tasks'")
    head = _md_cells(lines[i])
    unknown = [h for h in head if h not in _MTEB_README_COLUMNS]
    absent = [h for h in _MTEB_README_COLUMNS if h not in head]
    if unknown or absent:
        raise ValueError(f"{path}:{i + 1}: unexpected task-table header: unknown {unknown}, missing {absent}")
    cols = [_MTEB_README_COLUMNS[h] for h in head]
    i += 2  # header + alignment row
    records = []
    while i < len(lines) and lines[i].lstrip().startswith("|"):
        cells = _md_cells(lines[i])
        if len(cells) != len(cols):
            raise ValueError(f"{path}:{i + 1}: {len(cells)} cells, the header has {len(cols)}")
        rec = dict(zip(cols, cells))
        rec["name"] = _unlink(rec["name"])
        rec["hub"] = _unlink(rec["hub"])
        for c in _INT_COLUMNS + _FLOAT_COLUMNS:
            v = _to_float(rec[c], f"{path}:{i + 1}: task {rec['name']!r}, column {c!r}")
            if math.isnan(v):
                raise ValueError(f"{path}:{i + 1}: task {rec['name']!r}, column {c!r}: empty cell")
            if c in _INT_COLUMNS and v != int(v):
                raise ValueError(f"{path}:{i + 1}: task {rec['name']!r}, column {c!r}: not an integer: {rec[c]!r}")
            rec[c] = int(v) if c in _INT_COLUMNS else v
        records.append(rec)
        i += 1
    if not records:
        raise ValueError(f"{path}: the task table under '## Available tasks' has no rows")
    dup = _duplicates(r["name"] for r in records)
    if dup:
        raise ValueError(f"{path}: duplicate task name(s) {dup}")
    return pd.DataFrame.from_records(records, columns=list(_MTEB_README_COLUMNS.values()))


def load_mteb_metadata(path: str | os.PathLike) -> pd.DataFrame:
    """MTEB task metadata (paper Table 2) from the README of mteb 1.0.0, aligned to Table 11.

    The README table ("## Available tasks") has 70 rows. To align them 1:1 with the 56 tasks of
    Table 11: the CQADupstack<forum>Retrieval rows (12 sub-forums) are merged into one
    ``CQADupstackRetrieval`` row (sample counts summed; average characters weighted by each split's
    sample count, rounded to 0.1 as in the README); ``BUCC``, ``Tatoeba`` (bitext mining, not English-
    only) and ``MSMARCOv2`` (not in the paper's tables) are dropped.

    Parameters
    ----------
    path : the README.md.

    Returns
    -------
    DataFrame indexed by task name (index name ``dataset``, README order) with columns
    ``hub, description, type, category`` (str), ``n_langs, train_samples, dev_samples, test_samples``
    (int) and ``avg_chars_train, avg_chars_dev, avg_chars_test`` (float). On the mirror: 56 x 11.

    Examples
    --------
    A README task table with STS12 and two CQADupstack sub-forums, which merge into one task (100 + 300 test
    samples; average characters (100 x 500 + 300 x 1000) / 400 = 875):

    >>> import tempfile
    >>> from pathlib import Path
    >>> from benchdesign.data import load_mteb_metadata
    >>> rows = ["Name|Hub URL|Description|Type|Category|#Languages|Train #Samples|Dev #Samples|Test #Samples"
    ...         "|Avg. chars / train|Avg. chars / dev|Avg. chars / test", "|".join(["-"] * 12),
    ...         "STS12|mteb/sts12-sts|STS 2012|STS|s2s|1|4468|0|3108|100.7|0|64.7",
    ...         "CQADupstackAndroidRetrieval|BeIR/cqadupstack/android|CQA|Retrieval|s2p|1|0|0|100|0|0|500.0",
    ...         "CQADupstackEnglishRetrieval|BeIR/cqadupstack/english|CQA|Retrieval|s2p|1|0|0|300|0|0|1000.0"]
    >>> path = Path(tempfile.mkdtemp()) / "README.md"
    >>> _ = path.write_text("## Available tasks\\n\\n" + "\\n".join(f"| {row} |" for row in rows) + "\\n")
    >>> load_mteb_metadata(path)[["type", "test_samples", "avg_chars_test"]].reset_index()
                    dataset       type  test_samples  avg_chars_test
    0                 STS12        STS          3108            64.7
    1  CQADupstackRetrieval  Retrieval           400           875.0
    """
    path = Path(path)
    table = _read_readme_task_table(path)
    table = table[~table["name"].isin(MTEB_DROPPED_TASKS)].reset_index(drop=True)
    is_sub = table["name"].str.fullmatch(r"CQADupstack\w+Retrieval") & (table["name"] != MTEB_CQADUPSTACK)
    if is_sub.any():
        if (table["name"] == MTEB_CQADUPSTACK).any():
            raise ValueError(f"{path}: both {MTEB_CQADUPSTACK} and its sub-forum rows are present")
        sub = table[is_sub]
        merged: dict = {"name": MTEB_CQADUPSTACK}
        for c in ("type", "category", "n_langs"):
            vals = sorted(set(sub[c]))
            if len(vals) != 1:
                raise ValueError(f"{path}: CQADupstack sub-forums disagree on {c!r}: {vals}")
            merged[c] = vals[0]
        descr = list(dict.fromkeys(sub["description"]))
        merged["description"] = descr[0]
        hubs = sorted({h.split("/")[0] for h in sub["hub"]})
        merged["hub"] = f"{hubs[0]}/cqadupstack ({len(sub)} subforums aggregated)"
        for split in ("train", "dev", "test"):
            n = sub[f"{split}_samples"].to_numpy(dtype=np.int64)
            a = sub[f"avg_chars_{split}"].to_numpy(dtype=float)
            merged[f"{split}_samples"] = int(n.sum())
            merged[f"avg_chars_{split}"] = round(float((n * a).sum() / n.sum()), 1) if n.sum() > 0 else 0.0
        first = int(np.flatnonzero(is_sub)[0])
        keep = table[~is_sub]
        before = keep[keep.index < first]
        after = keep[keep.index > first]
        table = pd.concat([before, pd.DataFrame([merged]), after], ignore_index=True)
    table = table.set_index("name")
    table.index.name = "dataset"
    for c in _INT_COLUMNS:
        table[c] = table[c].astype(np.int64)
    for c in _FLOAT_COLUMNS:
        table[c] = table[c].astype(np.float64)
    return table
