#!/usr/bin/env python
"""Write the example files of ``src/benchdesign/examples/`` from the data mirror (sources and licences: the
README.md there). Deterministic: a rerun on the same mirror writes the same bytes (tests/test_examples.py
checks that)::

    python scripts/dev/make_examples.py --mirror ../shared/data [--out src/benchdesign/examples]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from benchdesign.data.loaders import load_mteb_metadata, load_mteb_table11
from benchdesign.domains.nlp.metadata import nlp_metadata_representation

REPO = Path(__file__).resolve().parents[2]
N_MOLECULES = 200
PAIRS_PER_DRUG = 3
# every third model of MTEB Table 11 in its column order (Ada Similarity left out: 15 of its cells are empty)
MODELS = ("Glove", "SimCSE-BERT-unsup", "Contriever", "LASER2", "MiniLM-L12-multilingual", "SGPT-125M-nli",
          "SGPT-1.3B-msmarco", "SGPT-BLOOM-7.1B-msmarco", "GTR-XL", "ST5-Large")


def molecules(mirror: Path) -> pd.DataFrame:
    """200 BBBP molecules RDKit parses, evenly spaced over the file: ``id`` (``bbbp<data row>``), ``smiles``,
    ``active`` (p_np: 1 = penetrates the blood–brain barrier)."""
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    bbbp = pd.read_csv(mirror / "mol/chemprop_moleculenet/bbbp.csv")
    bbbp = bbbp[[Chem.MolFromSmiles(s) is not None for s in bbbp["smiles"]]]
    rows = bbbp.iloc[np.linspace(0, len(bbbp) - 1, N_MOLECULES).round().astype(int)]
    return pd.DataFrame({"id": [f"bbbp{i:04d}" for i in rows.index], "smiles": rows["smiles"].to_numpy(),
                         "active": rows["p_np"].to_numpy()})


def pairs(mirror: Path) -> pd.DataFrame:
    """Drug–target pairs of DataSAIL's pipeline test set, 3 per drug (every drug and every target present):
    ``smiles, sequence, label`` (1 = interacts; the set holds interactions only)."""
    folder = mirror / "mol/datasail_tests"
    drugs = pd.read_csv(folder / "pipeline__drugs.tsv", sep="\t").set_index("Drug_ID")["SMILES"]
    targets = pd.read_csv(folder / "pipeline__seqs.tsv", sep="\t").set_index("ID")["seq"]
    inter = pd.read_csv(folder / "pipeline__inter.tsv", sep="\t")
    inter = inter.iloc[np.random.default_rng(0).permutation(len(inter))]
    used: dict[str, int] = dict.fromkeys(targets.index, 0)
    chosen = []
    for _, group in inter.groupby("Drug_ID", sort=True):
        # the drug's pairs with the targets used least so far, so that every target appears
        group = group.assign(used=group["Target_ID"].map(used)).sort_values("used", kind="stable")
        for row in group.head(PAIRS_PER_DRUG).itertuples():
            chosen.append(row)
            used[row.Target_ID] += 1
    frame = pd.DataFrame(chosen)
    return pd.DataFrame({"smiles": frame["Drug_ID"].map(drugs).to_numpy(),
                         "sequence": frame["Target_ID"].map(targets).to_numpy(), "label": frame["Y"].to_numpy()})


def benchmark(mirror: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """MTEB's English results (paper Table 11, read as the NLP domain reads it) of every third model on the 56
    tasks in the long layout ``dataset, model, score`` (no folds), and the tasks' metadata features (the NLP
    domain's ``metadata`` representation of the mteb 1.0.0 README's task table: one-hot type and category,
    min-max scaled sizes and lengths)."""
    scores = load_mteb_table11(mirror / "nlp/orig__mtebpaper_plotstables_all_en.txt", MODELS)
    scores = scores[["dataset", "model", "score"]]
    features = nlp_metadata_representation(load_mteb_metadata(mirror / "nlp/orig__mteb_1.0.0_README.md"))
    return scores.reset_index(drop=True), features.loc[pd.unique(scores["dataset"])].rename_axis("dataset")


def write(mirror: Path, out: Path) -> list[Path]:
    """Write the four example files into ``out``; return their paths."""
    mols, drug_target = molecules(mirror), pairs(mirror)
    scores, features = benchmark(mirror)
    files = {"mols.csv": mols, "pairs.csv": drug_target, "scores.csv": scores}
    for name, frame in files.items():
        frame.to_csv(out / name, index=False, lineterminator="\n")
    features.to_csv(out / "features.csv", float_format="%.6g", lineterminator="\n")
    return [out / name for name in (*files, "features.csv")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", required=True, help="the data mirror (e.g. ../shared/data)")
    parser.add_argument("--out", default=str(REPO / "src/benchdesign/examples"), help="destination folder")
    args = parser.parse_args()
    for path in write(Path(args.mirror), Path(args.out)):
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
