#!/usr/bin/env bash
# Installed, not only editable: build a wheel, install it (not editable) into a fresh venv and run the CLI
# and a tiny pipeline from it, outside the source tree, so package data must come from the wheel.
# Usage: bash .ci/wheel_check.sh [python]   (default: python3)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
py=${1:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$py" -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" "$repo"
"$py" -m venv "$work/venv"
bin="$work/venv/bin"
"$bin/python" -m pip install --quiet "$work"/dist/benchdesign-*.whl
cd "$work"
unset PYTHONPATH
"$bin/python" - "$repo" <<'PY'
import sys
import benchdesign
from benchdesign.domains.nlp.descriptions import load_descriptions
from benchdesign.domains.tsc.data import load_checksums
assert not benchdesign.__file__.startswith(sys.argv[1]), f"imported from the checkout: {benchdesign.__file__}"
print(f"wheel: {benchdesign.__file__}; {len(load_checksums())} UCR checksums, {len(load_descriptions())} NLP descriptions")
PY
mols="$repo/tests/splitting/fixtures/mols.csv"
"$bin/benchdesign" split --task S1 --input "$mols" --id-col mol_id --smiles-col smiles --splits 0.8 0.2 \
    --names train test --clusters 4 --out split.tsv
"$bin/benchdesign" leakage --input "$mols" --id-col mol_id --smiles-col smiles --split split.tsv
cat > tiny.yaml <<YAML
mirror: null
allow_download: false
splitting: {name: wheel, input: "$mols", id_col: mol_id, smiles_col: smiles, clusters: 4}
YAML
"$bin/python" -m snakemake --snakefile "$repo/Snakefile" --directory "$work/run" --cores 2 --quiet rules \
    --configfile tiny.yaml -- results/splitting/wheel.tsv results/features/nlp/description.csv
test -s run/results/splitting/wheel.tsv && test -s run/results/features/nlp/description.csv
echo "wheel check passed"
