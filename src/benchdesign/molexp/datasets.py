"""The molecular datasets of the DataSAIL experiments (Fig. 3-6) and their loaders.

One-dimensional sets (one row per molecule): QM8 (regression, 12 targets, MAE), Tox21 (12 binary
tasks with missing labels, ROC-AUC), SR-ARE (the Tox21 task SR-ARE alone, rows with a label, a
two-class stratified problem) and the MoleculeNet sets used only for the runtime-vs-size benchmark.
Two-dimensional sets (one row per drug-target pair): DAVIS (pKd = -log10(Kd / 1e9)) and KIBA (KIBA
score), built from DeepDTA's affinity matrix, ligand and protein JSON files, and LP-PDBBind (pK of
protein-ligand complexes; a download only, no offline copy exists), all with RMSE.

Loaders read the fetched source files and return tables with stable ids: ``M<row>`` for molecules
(row number in the source CSV, so ids survive dropping invalid SMILES), the source ids for drugs
and targets (LP-PDBBind: ``D<n>`` / ``T<n>`` in order of first appearance), and ``P<drug row>_<target
column>`` for DeepDTA pairs, the PDB id for LP-PDBBind complexes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from rdkit import Chem, RDLogger

__all__ = [
    "MolDataset",
    "PairTables",
    "DATASETS",
    "dataset_info",
    "source_paths",
    "load_molecules",
    "load_pairs",
    "load_deepdta_pairs",
    "load_lp_pdbbind",
    "subsample_rows",
]

MOLECULENET = "mol/chemprop_moleculenet/"
TOX21_TASKS = ("NR-AR", "NR-AR-LBD", "NR-AhR", "NR-Aromatase", "NR-ER", "NR-ER-LBD", "NR-PPAR-gamma",
               "SR-ARE", "SR-ATAD5", "SR-HSE", "SR-MMP", "SR-p53")
LP_PDBBIND = "mol/lp_pdbbind/LP_PDBBind.csv"
LP_PDBBIND_COLUMNS = ("smiles", "seq", "value")  # ligand SMILES, protein sequence, pK = -log10(Kd or Ki [M])
QM8_TARGETS = tuple(f"{q}-{m}" for m in ("CC2", "PBE0", "CAM") for q in ("E1", "E2", "f1", "f2"))


@dataclass(frozen=True)
class MolDataset:
    """What the experiments need to know about one dataset.

    kind : "1d" (molecules) or "2d" (drug-target pairs); files : manifest paths of its sources
    task_type : "regression" | "classification"; metric : "mae" | "rmse" | "roc_auc"
    targets : label columns; stratify : split with the label as class (eq. 4), as for SR-ARE
    drop_unlabelled : drop rows without any label; smiles_col : the SMILES column of the source file
    """

    name: str
    kind: str
    files: tuple[str, ...]
    task_type: str = "regression"
    metric: str = "mae"
    targets: tuple[str, ...] = ()
    stratify: bool = False
    drop_unlabelled: bool = False
    description: str = ""
    smiles_col: str = "smiles"


def _moleculenet(name: str, file: str, description: str, **kw) -> MolDataset:
    return MolDataset(name=name, kind="1d", files=(MOLECULENET + file,), description=description, **kw)


def _deepdta(name: str, matrix: str, description: str) -> MolDataset:
    base = f"mol/deepdta_{name}/"
    return MolDataset(name=name, kind="2d", files=(base + "ligands_can.txt", base + "proteins.txt", base + matrix),
                      task_type="regression", metric="rmse", targets=("label",), description=description)


DATASETS: dict[str, MolDataset] = {
    d.name: d
    for d in (
        _moleculenet("qm8", "qm8.csv.gz", "QM8 electronic spectra, 12 targets", targets=QM8_TARGETS),
        _moleculenet("tox21", "tox21.csv", "Tox21, 12 toxicity tasks", task_type="classification",
                     metric="roc_auc", targets=TOX21_TASKS),
        _moleculenet("sr_are", "tox21.csv", "Tox21 SR-ARE task, stratified", task_type="classification",
                     metric="roc_auc", targets=("SR-ARE",), stratify=True, drop_unlabelled=True),
        _moleculenet("esol", "delaney.csv", "ESOL (Delaney) solubility"),
        _moleculenet("freesolv", "freesolv.csv", "FreeSolv hydration free energy"),
        _moleculenet("lipo", "lipo.csv", "Lipophilicity"),
        _moleculenet("bace", "bace.csv", "BACE", task_type="classification", metric="roc_auc", smiles_col="mol"),
        _moleculenet("bbbp", "bbbp.csv", "BBBP", task_type="classification", metric="roc_auc"),
        _moleculenet("clintox", "clintox.csv", "ClinTox", task_type="classification", metric="roc_auc"),
        _moleculenet("sider", "sider.csv", "SIDER", task_type="classification", metric="roc_auc"),
        _moleculenet("toxcast", "toxcast.csv.gz", "ToxCast", task_type="classification", metric="roc_auc"),
        _moleculenet("hiv", "hiv.csv.gz", "HIV", task_type="classification", metric="roc_auc"),
        _moleculenet("muv", "muv.csv.gz", "MUV", task_type="classification", metric="roc_auc"),
        _deepdta("davis", "affinities_Kd_nM.txt", "DAVIS kinase Kd, 68 drugs x 442 kinases"),
        _deepdta("kiba", "kiba_binding_affinity_v2.txt", "KIBA scores, 2,111 drugs x 229 kinases"),
        MolDataset(name="lp_pdbbind", kind="2d", files=(LP_PDBBIND,), task_type="regression", metric="rmse",
                   targets=("label",), description="LP-PDBBind: pK of 19,443 protein-ligand complexes"),
    )
}


def dataset_info(name: str) -> MolDataset:
    """The registry entry of ``name``; a clear error for an unknown one."""
    if name not in DATASETS:
        raise ValueError(f"unknown molecular dataset {name!r}; known: {', '.join(sorted(DATASETS))}")
    return DATASETS[name]


def source_paths(names: Sequence[str]) -> list[str]:
    """Manifest paths of every source file the named datasets need (sorted, no duplicates)."""
    return sorted({f for name in names for f in dataset_info(name).files})


def _parses(smiles: object) -> bool:
    return isinstance(smiles, str) and Chem.MolFromSmiles(smiles) is not None


def valid_smiles_mask(smiles: Sequence[object]) -> np.ndarray:
    """True where RDKit parses the SMILES (RDKit's own warnings are silenced)."""
    RDLogger.DisableLog("rdApp.*")
    try:
        return np.array([_parses(s) for s in smiles], dtype=bool)
    finally:
        RDLogger.EnableLog("rdApp.*")


def load_molecules(info: MolDataset, path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Molecule table (id, smiles, targets...) of a 1-D dataset and the rows dropped (id, smiles, reason).

    Rows whose SMILES RDKit cannot parse are dropped; for a dataset with ``drop_unlabelled`` so are rows
    without a label. Targets missing from the file are an error naming the file and the columns found.
    """
    raw = pd.read_csv(path)
    if info.smiles_col not in raw.columns:
        raise ValueError(f"{path}: no {info.smiles_col!r} column (columns: {', '.join(raw.columns)})")
    raw = raw.rename(columns={info.smiles_col: "smiles"})
    targets = list(info.targets) or [c for c in raw.columns if c != "smiles" and
                                      pd.api.types.is_numeric_dtype(raw[c])]
    missing = [t for t in targets if t not in raw.columns]
    if missing:
        raise ValueError(f"{path}: label column(s) {missing} of dataset {info.name!r} not found "
                         f"(columns: {', '.join(raw.columns)})")
    labels = {t: pd.to_numeric(raw[t], errors="coerce") for t in targets}
    table = pd.DataFrame({"id": [f"M{i:06d}" for i in range(len(raw))], "smiles": raw["smiles"], **labels})
    reasons = pd.Series("", index=table.index)
    reasons[~valid_smiles_mask(table["smiles"].tolist())] = "invalid_smiles"
    if info.drop_unlabelled:
        reasons[(reasons == "") & table[targets].isna().all(axis=1)] = "no_label"
    dropped = table.loc[reasons != "", ["id", "smiles"]].assign(reason=reasons[reasons != ""])
    return table[reasons == ""].reset_index(drop=True), dropped.reset_index(drop=True)


@dataclass(frozen=True)
class PairTables:
    """A 2-D dataset: pairs (id, drug_id, target_id, label), drugs (id, smiles), targets (id, sequence)."""

    pairs: pd.DataFrame
    drugs: pd.DataFrame
    targets: pd.DataFrame
    dropped: pd.DataFrame


def _read_json_table(path: str | Path, what: str) -> dict[str, str]:
    try:
        table = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not the JSON id -> {what} object DeepDTA ships ({exc})") from exc
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise ValueError(f"{path}: expected a JSON object mapping ids to {what} strings")
    return table


def pair_labels(name: str, matrix: np.ndarray) -> np.ndarray:
    """Labels from DeepDTA's matrix: DAVIS Kd (nM) -> pKd = -log10(Kd / 1e9); KIBA scores unchanged."""
    return -np.log10(matrix / 1e9) if name == "davis" else matrix


def load_pairs(info: MolDataset, *paths: str | Path) -> PairTables:
    """The pairs of a 2-D dataset from its source files, in ``info.files`` order: LP-PDBBind's CSV
    (:func:`load_lp_pdbbind`) or DeepDTA's ligands, proteins and matrix (:func:`load_deepdta_pairs`)."""
    if info.files == (LP_PDBBIND,):
        return load_lp_pdbbind(info, *paths)
    return load_deepdta_pairs(info, *paths)


def load_deepdta_pairs(info: MolDataset, ligands: str | Path, proteins: str | Path,
                       matrix: str | Path) -> PairTables:
    """Pairs of a DeepDTA dataset: every measured (drug, target) cell of the affinity matrix.

    Drugs whose SMILES RDKit cannot parse are dropped with all their pairs (listed in ``dropped``).
    """
    drugs = _read_json_table(ligands, "SMILES")
    targets = _read_json_table(proteins, "sequence")
    values = np.loadtxt(matrix, dtype=float)
    if values.shape != (len(drugs), len(targets)):
        raise ValueError(f"{matrix}: shape {values.shape} does not match {len(drugs)} ligands x "
                         f"{len(targets)} proteins of {ligands} / {proteins}")
    drug_ids, target_ids = list(drugs), list(targets)
    rows, cols = np.nonzero(np.isfinite(values))
    pairs = pd.DataFrame({
        "id": [f"P{r:05d}_{c:04d}" for r, c in zip(rows, cols)],
        "drug_id": np.asarray(drug_ids, dtype=object)[rows],
        "target_id": np.asarray(target_ids, dtype=object)[cols],
        "label": pair_labels(info.name, values[rows, cols]),
    })
    drug_table = pd.DataFrame({"id": drug_ids, "smiles": list(drugs.values())})
    valid = valid_smiles_mask(drug_table["smiles"].tolist())
    bad = set(drug_table.loc[~valid, "id"])
    dropped = pairs[pairs["drug_id"].isin(bad)].assign(reason="invalid_smiles")[["id", "drug_id", "reason"]]
    pairs = pairs[~pairs["drug_id"].isin(bad)].reset_index(drop=True)
    target_table = pd.DataFrame({"id": target_ids, "sequence": list(targets.values())})
    return PairTables(pairs, drug_table[valid].reset_index(drop=True), target_table, dropped.reset_index(drop=True))


def subsample_rows(n: int, max_rows: int | None, seed: int) -> np.ndarray:
    """Sorted row indices of a seeded sub-sample of at most ``max_rows`` of ``n`` rows (all when None)."""
    if max_rows is not None and max_rows < 1:
        raise ValueError(f"max_rows must be >= 1 or null, got {max_rows}")
    if max_rows is None or max_rows >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=max_rows, replace=False))


def _first_appearance_ids(values: pd.Series, prefix: str, column: str) -> tuple[pd.Series, pd.DataFrame]:
    """Ids ``<prefix><n>`` numbering the distinct values in order of first appearance, and the table
    (id, ``column``) of those values."""
    codes, uniques = pd.factorize(values)
    ids = np.array([f"{prefix}{i:05d}" for i in range(len(uniques))], dtype=object)
    return pd.Series(ids[codes], index=values.index), pd.DataFrame({"id": ids, column: np.asarray(uniques)})


def load_lp_pdbbind(info: MolDataset, path: str | Path) -> PairTables:
    """Pairs of LP-PDBBind's ``LP_PDBBind.csv``: one per complex (first column = PDB id) with a SMILES, a
    protein sequence and a pK ``value``. Rows missing one of them, or with a SMILES RDKit cannot parse, are
    dropped (``no_smiles`` / ``no_sequence`` / ``no_label`` / ``invalid_smiles``). Identical SMILES are one
    drug and identical sequences one target."""
    raw = pd.read_csv(path, dtype=str)  # as text: a PDB id such as 1e66 is not a number
    raw = raw.set_index(raw.columns[0])
    missing = [c for c in LP_PDBBIND_COLUMNS if c not in raw.columns]
    if missing:
        raise ValueError(f"{path}: column(s) {missing} of LP-PDBBind not found (columns: {', '.join(raw.columns)})")
    duplicated = raw.index[raw.index.duplicated()]
    if len(duplicated):
        raise ValueError(f"{path}: PDB id(s) {sorted(map(str, set(duplicated)))[:5]} listed more than once")
    table = pd.DataFrame({"id": raw.index.astype(str), "smiles": raw["smiles"].to_numpy(),
                          "sequence": raw["seq"].to_numpy(),
                          "label": pd.to_numeric(raw["value"], errors="coerce").to_numpy()})
    reasons = pd.Series("", index=table.index)
    for column, reason in (("smiles", "no_smiles"), ("sequence", "no_sequence"), ("label", "no_label")):
        reasons[(reasons == "") & table[column].isna()] = reason
    reasons[(reasons == "") & ~valid_smiles_mask(table["smiles"].where(reasons == "").tolist())] = "invalid_smiles"
    dropped = table.loc[reasons != "", ["id", "smiles"]].assign(reason=reasons[reasons != ""])
    kept = table[reasons == ""].reset_index(drop=True)
    drug_ids, drugs = _first_appearance_ids(kept["smiles"], "D", "smiles")
    target_ids, targets = _first_appearance_ids(kept["sequence"], "T", "sequence")
    pairs = pd.DataFrame({"id": kept["id"], "drug_id": drug_ids, "target_id": target_ids, "label": kept["label"]})
    return PairTables(pairs, drugs, targets, dropped.reset_index(drop=True))
