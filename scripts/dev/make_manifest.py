#!/usr/bin/env python
"""Write data/sources.yaml: every external input with its sha256 and canonical URL.

Run once (by a developer, not by the pipeline) with the data mirror at hand::

    python scripts/dev/make_manifest.py --mirror ../shared/data --out data/sources.yaml

Hashes are computed from the mirror files and, for the TSC second source, from the files of the
installed ``tsml-eval==0.6.0`` package. The 15 Ada results JSON files are hashed as members of the
mirror's results tarball (they are verbatim copies of the files at the named commit).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import tarfile
from pathlib import Path

import yaml

from benchdesign.files import sha256_file

# ---- TSC ---------------------------------------------------------------------------------------
TSC_URL = "https://timeseriesclassification.com/results/PublishedResults/Bakeoff2023/{clf}_TESTFOLDS.csv"
TSC_PKG_DIR = "publications/y2023/tsc_bakeoff/results"
# mirror (2023-07) name -> tsml-eval 0.6.0 (2024) name; all other names are identical.
TSC_RENAMED = {
    "Hydra-MR": "MR-Hydra", "Mini-R": "MiniROCKET", "Multi-R": "MR", "InceptionT": "InceptionTime",
    "RSTSF": "R-STSF", "WEASEL-D": "WEASEL-2", "WEASEL": "WEASEL-1",
}
TSC_RERUN = {
    "EE": "re-run in the 2024 package version: 2763 of 3360 cells differ from the mirror/URL file",
    "HC2": "re-run in the 2024 package version: 2692 of 3360 cells differ from the mirror/URL file",
    "STC": "re-run in the 2024 package version: 3078 of 3360 cells differ (mean accuracy 0.8524 -> 0.8639)",
    "CNN": "the 2024 package version differs from the mirror/URL file in 1 cell",
}

# ---- RecSys ------------------------------------------------------------------------------------
RECSYS_COMMIT = "a55db713977f094ccef7c8ab3d278ffcc8d228af"
RECSYS_RAW = f"https://raw.githubusercontent.com/nokiroki/recsys-evaluation-of-dozens-datasets/{RECSYS_COMMIT}/"

# ---- MTEB --------------------------------------------------------------------------------------
MTEBPAPER_RAW = ("https://raw.githubusercontent.com/embeddings-benchmark/mtebpaper/"
                 "6a5f049459d08998791da57a089c1f254ee67472/")
MTEB_RAW = "https://raw.githubusercontent.com/embeddings-benchmark/mteb/9c544a465f05628945ab1dccc67a05c5da90f53b/"
RESULTS_COMMIT = "46c0fcaeb47434a703f01afe5d18555f2a285953"
RESULTS_RAW = f"https://raw.githubusercontent.com/embeddings-benchmark/results/{RESULTS_COMMIT}/"
RESULTS_TARBALL = "nlp/mteb_results_json_31paper_models_commit46c0fcae.tar.gz"
ADA_DIR = "results/text-similarity-ada-001/no_revision_available"
ADA_TASKS = ["ArguAna", "ClimateFEVER", "CQADupstackRetrieval", "DBPedia", "FEVER", "FiQA2018",
             "HotpotQA", "MSMARCO", "NFCorpus", "NQ", "QuoraRetrieval", "SCIDOCS", "SciFact",
             "Touche2020", "TRECCOVID"]


def tsc_source(mirror: Path) -> dict:
    spec = importlib.util.find_spec("tsml_eval")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("tsml_eval is not installed: pip install tsml-eval==0.6.0")
    pkg_root = Path(list(spec.submodule_search_locations)[0])
    by_name = {}
    for f in sorted((pkg_root / TSC_PKG_DIR).glob("*/*_accuracy.csv")):
        if f.parent.name != "best":  # best/ repeats 8 classifiers with 142 rows
            by_name[f.name[: -len("_accuracy.csv")]] = f
    files = []
    for f in sorted((mirror / "tsc" / "bakeoff2023").glob("*_TESTFOLDS.csv"), key=lambda p: p.name.lower()):
        clf = f.name[: -len("_TESTFOLDS.csv")]
        new = TSC_RENAMED.get(clf, clf)
        pkg_file = by_name[new]
        rel_pkg = pkg_file.relative_to(pkg_root).as_posix()
        entry = {
            "path": f"tsc/bakeoff2023/{f.name}",
            "sha256": sha256_file(f),
            "url": TSC_URL.format(clf=clf),
            "package": {"name": "tsml_eval", "pip": "tsml-eval==0.6.0", "path": rel_pkg,
                        "sha256": sha256_file(pkg_file)},
        }
        notes = []
        if new != clf:
            notes.append(f"named {new} in tsml-eval")
        if clf in TSC_RERUN:
            notes.append(TSC_RERUN[clf])
        n_rows = sum(1 for _ in f.open()) - 1
        if n_rows != 112:
            notes.append(f"{n_rows} rows (the 112 UCR datasets + 30 newer ones); the package file has the 112")
        if notes:
            entry["note"] = "; ".join(notes)
        files.append(entry)
    return {
        "description": "Bake-off redux (Middlehurst, Schaefer & Bagnall, DMKD 2024): test accuracy of 35 "
                       "classifiers x 112 UCR datasets x 30 resamples, one <clf>_TESTFOLDS.csv per classifier "
                       "(header 'folds:,0..29', one row per dataset).",
        "higher_is_better": True,
        "note": ("sha256 = the mirror copy, taken verbatim from github.com/hangover137/efficient_benchmarking "
                 "@42c2a9a7196921da17facf88b951977a3a1f5739 data/datasets_metrics/metrics/Bakeoff2023/; the "
                 "url is the original publisher (what aeon's load_classification_bake_off_2023_results reads); "
                 "that it still serves identical bytes could not be verified offline (a mismatch is reported, "
                 "never used). Second source: the 2024 re-run shipped in tsml-eval 0.6.0 "
                 "(tsml_eval/publications/y2023/tsc_bakeoff/results/<category>/<CLF>_accuracy.csv): header "
                 "'Resamples:' instead of 'folds:', renamed classifiers, 112 rows in every file, and EE, HC2, "
                 "STC re-run (CNN differs in 1 cell), so results built from it differ slightly from the paper's. "
                 "When copied from the package the file keeps its manifest path (old name)."),
        "files": files,
    }


def recsys_source(mirror: Path) -> dict:
    name = "orig__results_datasets_statistics_Datafeatures_and_metrics.csv"
    return {
        "description": "Shevchenko et al. (KDD 2024) 'From Variability to Stability': 30 datasets x 9 models, "
                       "nDCG@10 (column Value) with the 18 dataset features, long format (270 rows).",
        "higher_is_better": True,
        "note": "github.com/nokiroki/recsys-evaluation-of-dozens-datasets @ HEAD a55db713 "
                "(file last changed in 3632b12d, 2024-02-19); Value == nDCG@10 of results/aggregation.",
        "files": [{
            "path": f"recsys/{name}",
            "sha256": sha256_file(mirror / "recsys" / name),
            "url": RECSYS_RAW + "results/datasets_statistics/Datafeatures_and_metrics.csv",
        }],
    }


def nlp_sources(mirror: Path) -> dict:
    t11 = "orig__mtebpaper_plotstables_all_en.txt"
    readme = "orig__mteb_1.0.0_README.md"
    out = {
        "nlp_mteb_table11": {
            "description": "MTEB paper (Muennighoff et al., EACL 2023) Table 11, all English results: 56 tasks x "
                           "31 models as LaTeX rows ('Dataset & Language & <31 models> \\\\'), plus an Average row.",
            "higher_is_better": True,
            "note": "github.com/embeddings-benchmark/mtebpaper @ 6a5f0494 plotstables/all_en.txt (last changed "
                    "75bf809a). 15 cells are empty in the paper too (Ada Similarity x 15 retrieval tasks); "
                    "they are filled from nlp_mteb_results_json.",
            "files": [{"path": f"nlp/{t11}", "sha256": sha256_file(mirror / "nlp" / t11),
                       "url": MTEBPAPER_RAW + "plotstables/all_en.txt"}],
        },
        "nlp_mteb_metadata": {
            "description": "MTEB 1.0.0 README, section 'Available tasks' (paper Table 2): type, category, "
                           "#languages, train/dev/test #samples and average characters of 70 tasks.",
            "note": "github.com/embeddings-benchmark/mteb tag 1.0.0 = 9c544a46 (numbers identical in 0.9.0..1.0.2). "
                    "Aligned to Table 11 by the loader: the 12 CQADupstack<forum>Retrieval rows are merged into "
                    "CQADupstackRetrieval; BUCC, Tatoeba, MSMARCOv2 are dropped.",
            "files": [{"path": f"nlp/{readme}", "sha256": sha256_file(mirror / "nlp" / readme),
                       "url": MTEB_RAW + "README.md"}],
        },
    }
    files = []
    with tarfile.open(mirror / RESULTS_TARBALL) as tar:
        for task in ADA_TASKS:
            member = f"{ADA_DIR}/{task}.json"
            data = tar.extractfile(member).read()
            files.append({
                "path": f"nlp/mteb_results_json/{member}",
                "sha256": hashlib.sha256(data).hexdigest(),
                "url": RESULTS_RAW + member,
                "archive": {"path": RESULTS_TARBALL, "member": member},
            })
    out["nlp_mteb_results_json"] = {
        "description": "Raw MTEB results of text-similarity-ada-001 for the 15 retrieval tasks that Table 11 "
                       "leaves empty (main score ndcg_at_10 on test; MSMARCO: dev).",
        "higher_is_better": True,
        "note": (f"github.com/embeddings-benchmark/results @ {RESULTS_COMMIT} (initial commit, 2024-07-06). "
                 f"Each file is listed with its own raw URL; in the mirror the files are members of "
                 f"{RESULTS_TARBALL} (sha256 {sha256_file(mirror / RESULTS_TARBALL)}, a verbatim tar of the "
                 f"results/ folder of the 31 paper models), so fetch extracts them from there ('archive'). "
                 f"The loader also accepts that tarball directly."),
        "files": files,
    }
    return out


# ---- Molecules (DataSAIL experiments) ------------------------------------------------------------
CHEMPROP_RAW = "https://raw.githubusercontent.com/chemprop/chemprop/3f2b73372a8968f0f73b2fb279a5780cae918d58/data/"
DEEPDTA_RAW = "https://raw.githubusercontent.com/hkmztrk/DeepDTA/a546a8433a6822e958f36171c4356ad6f414d623/data/"
MOLECULENET_FILES = ["tox21.csv", "qm8.csv.gz", "delaney.csv", "freesolv.csv", "lipo.csv", "bace.csv", "bbbp.csv",
                     "clintox.csv", "sider.csv", "toxcast.csv.gz", "hiv.csv.gz", "muv.csv.gz"]
# mirror name -> name in the DeepDTA repository (data/<set>/)
DEEPDTA_FILES = {
    "davis": {"ligands_can.txt": "ligands_can.txt", "proteins.txt": "proteins.txt",
              "affinities_Kd_nM.txt": "drug-target_interaction_affinities_Kd__Davis_et_al.2011v1.txt"},
    "kiba": {"ligands_can.txt": "ligands_can.txt", "proteins.txt": "proteins.txt",
             "kiba_binding_affinity_v2.txt": "kiba_binding_affinity_v2.txt"},
}


LP_PDBBIND_COMMIT = "0ec619e26460be8ab4d3ce857e2df4751df3a0bb"


def lp_pdbbind_source() -> dict:
    """LP-PDBBind has no offline copy, so no sha256: the file is checked by the leading digits of its git blob id."""
    return {
        "description": "LP-PDBBind (Li et al. 2024): one row per protein-ligand complex, first column the PDB id, "
                       "with smiles, seq (protein sequence), value (pK = -log10 Kd or Ki in M), kd/ki, new_split, "
                       "CL1-CL3. A download only: no offline copy exists.",
        "note": f"github.com/THGLab/LP-PDBBind @ {LP_PDBBIND_COMMIT[:8]} dataset/LP_PDBBind.csv. The file (>= 4 MiB) "
                "is absent from every offline snapshot, so its sha256 is unknown; what is known is its git blob id "
                "8706a40a (same blob as the earlier dataset/UCBSplit.csv), which fetch checks instead.",
        "files": [{"path": "mol/lp_pdbbind/LP_PDBBind.csv", "git_blob": "8706a40a",
                   "url": f"https://raw.githubusercontent.com/THGLab/LP-PDBBind/{LP_PDBBIND_COMMIT}/dataset/"
                          "LP_PDBBind.csv"}],
    }


MOSES_PIP = "molsets==0.3.1"
MOSES_TRAIN = "dataset/data/train.csv.gz"  # inside the importable package `moses`
MOSES_TRAIN_SHA256 = "786f0313aa6b9ba5514df685f885742a70ea8d86f1a4fa48115f7f80a634265c"


def moses_source() -> dict:
    """MOSES train set, a package-data source: the file inside the molsets wheel (checked if installed)."""
    spec = importlib.util.find_spec("moses")
    if spec is not None and spec.submodule_search_locations:
        got = sha256_file(Path(list(spec.submodule_search_locations)[0]) / MOSES_TRAIN)
        if got != MOSES_TRAIN_SHA256:
            raise SystemExit(f"installed moses/{MOSES_TRAIN} has sha256 {got}, expected {MOSES_TRAIN_SHA256}")
    return {
        "description": "MOSES benchmark (Polykovskiy et al., Front. Pharmacol. 2020) training set: 1,584,663 SMILES "
                       "(ZINC Clean Leads, column SMILES), the million-molecule set of the splitting scale benchmark.",
        "note": f"shipped in the PyPI wheel {MOSES_PIP} (MIT licence) as moses/{MOSES_TRAIN}; "
                f"`pip install --no-deps {MOSES_PIP}` (its declared dependencies are not needed, the package is "
                "never imported). The url is the same path in github.com/molecularsets/moses; that it serves "
                "identical bytes could not be verified offline (a mismatch is reported, never used).",
        "files": [{"path": "mol/moses/train.csv.gz", "sha256": MOSES_TRAIN_SHA256,
                   "url": "https://raw.githubusercontent.com/molecularsets/moses/master/moses/" + MOSES_TRAIN,
                   "package": {"name": "moses", "pip": MOSES_PIP, "path": MOSES_TRAIN,
                               "sha256": MOSES_TRAIN_SHA256}}],
    }


def mol_sources(mirror: Path) -> dict:
    moleculenet = [{"path": f"mol/chemprop_moleculenet/{name}",
                    "sha256": sha256_file(mirror / "mol" / "chemprop_moleculenet" / name),
                    "url": CHEMPROP_RAW + name} for name in MOLECULENET_FILES]
    out = {"mol_moleculenet": {
        "description": "MoleculeNet CSVs (smiles + label columns, empty = missing) as committed in the chemprop "
                       "repository: Tox21 (7,831 rows, 12 tasks), QM8 (21,786 rows, 12 targets) and the sets of "
                       "the runtime-vs-size benchmark.",
        "note": "github.com/chemprop/chemprop @ 3f2b7337 data/ (the last commit before the files moved into "
                "data.tar.gz). 8 Tox21 SMILES do not parse with RDKit 2026 and are dropped, with a log line.",
        "files": moleculenet,
    }}
    for name, files in DEEPDTA_FILES.items():
        out[f"mol_{name}"] = {
            "description": f"{name.upper()} drug-target affinities from DeepDTA: ligands_can.txt (JSON id -> SMILES, "
                           "order = matrix rows), proteins.txt (JSON id -> sequence, order = columns) and the "
                           "affinity matrix (" + ("Kd in nM, 10000 = inactive; label pKd = -log10(Kd / 1e9)"
                                                 if name == "davis" else "KIBA score, nan = unmeasured") + ").",
            "note": "github.com/hkmztrk/DeepDTA @ a546a843 data/" + name + "/ (no license file; data of "
                    + ("Davis et al. 2011" if name == "davis" else "Tang et al. 2014") + ").",
            "files": [{"path": f"mol/deepdta_{name}/{local}",
                       "sha256": sha256_file(mirror / "mol" / f"deepdta_{name}" / local),
                       "url": DEEPDTA_RAW + f"{name}/{remote}"} for local, remote in files.items()],
        }
    out["mol_lp_pdbbind"] = lp_pdbbind_source()
    out["mol_moses"] = moses_source()
    return out


def main() -> None:
    repo = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=repo.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=repo / "data" / "sources.yaml")
    args = ap.parse_args()
    mirror = args.mirror.resolve()
    sources = {"tsc_bakeoff2023": tsc_source(mirror), "recsys_shevchenko2024": recsys_source(mirror)}
    sources.update(nlp_sources(mirror))
    sources.update(mol_sources(mirror))
    header = (
        "# Every external input of benchdesign, generated by scripts/dev/make_manifest.py (do not edit by hand).\n"
        "# path: identical inside the data mirror (--config mirror=DIR) and the local cache (resources/data).\n"
        "# sha256: of the bytes at path (mirror copy = url); package.sha256: of the file shipped in the package.\n"
        "# git_blob: leading digits of the git blob id, for a file whose sha256 is unknown (checked instead).\n"
        "# archive: the mirror holds this file as a member of a tarball (path inside the mirror).\n"
    )
    text = yaml.safe_dump({"version": 1, "sources": sources}, sort_keys=False, width=110, allow_unicode=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(header + text)
    n = sum(len(s["files"]) for s in sources.values())
    print(f"wrote {args.out}: {len(sources)} sources, {n} files")


if __name__ == "__main__":
    main()
