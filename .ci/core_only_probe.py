"""Run by .ci/wheel_check.sh in the plain venv before the `workflow` extra is installed: the library and the CLI
work without Snakemake and without the TSC stack (the `tsc` extra). Writes what it found as JSON to the path
given (read by tests/test_plain_install.py).

    python .ci/core_only_probe.py MOLS_CSV OUT_JSON
"""
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

import pandas as pd

from benchdesign.cli import main
from benchdesign.splitting import LeakageKFold

mols, out = Path(sys.argv[1]), Path(sys.argv[2])
absent = [m for m in ("snakemake", "jsonschema", "sktime", "numba", "pycatch22", "tsfresh")
          if importlib.util.find_spec(m) is None]  # the `workflow` extra and the `tsc` extra it brings
smiles = pd.read_csv(mols)["smiles"].tolist()
folds = [len(test) for _, test in LeakageKFold(2, similarity=smiles, clusters=4, random_state=0).split(smiles)]
with tempfile.TemporaryDirectory() as tmp:
    split = Path(tmp) / "split.tsv"
    code = main(["split", "--task", "S1", "--input", str(mols), "--id-col", "mol_id", "--smiles-col", "smiles", "--splits", "0.8",
                 "0.2", "--names", "train", "test", "--clusters", "4", "--out", str(split)])
    rows = len(pd.read_csv(split, sep="\t"))
out.write_text(json.dumps({"absent": absent, "kfold_test_sizes": folds, "split_exit": code, "split_rows": rows}))
