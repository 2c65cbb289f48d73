#!/usr/bin/env bash
# A plain, non-editable install: build a wheel of the project and pip-install it (core dependencies only, no
# extras) into a fresh venv, for tests/test_plain_install.py; .ci/core_only_probe.py records that the library
# and the CLI work there without Snakemake (DIR/core_only.json), then the `workflow` extra is added for the
# pipeline test. The wheel is built from a copy of src/, pyproject.toml, README.md and LICENSE, so the checkout gets no build/ or egg-info. The tests check, outside the
# source tree, that the package imports from that venv with its package data, the CLI, `benchdesign
# evaluate` and a pipeline run to its figures.
#
#   bash .ci/wheel_check.sh [python] DIR   # build the venv DIR only (.ci/run: while the CI venv installs;
#                                          # the tests then reuse it through BENCHDESIGN_PLAIN_VENV=DIR)
#   bash .ci/wheel_check.sh [python]       # build it in a temporary directory, run the tests on it, remove it
#                                          # (python: one with the test dependencies; default python3)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
py=${1:-python3}
if [ $# -ge 2 ]; then
    dest=$2
else
    dest=$(mktemp -d)
    trap 'rm -rf "$dest"' EXIT
fi
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
start=$(date +%s)
project="$dest/project"
rm -rf "$project" "$dest/dist" "$dest/venv"
mkdir -p "$project"
tar -C "$repo" --exclude='*.egg-info' --exclude=__pycache__ -cf - src pyproject.toml README.md LICENSE | tar -C "$project" -xf -
"$py" -m venv "$dest/venv"
"$dest/venv/bin/python" -m pip wheel --quiet --no-deps --wheel-dir "$dest/dist" "$project"
rm -rf "$project"
wheel=$(echo "$dest"/dist/benchdesign-*.whl)
"$dest/venv/bin/python" -m pip install --quiet "$wheel"
# the library and the CLI without the `workflow` extra (no Snakemake): recorded for tests/test_plain_install.py
(cd "$dest" && "$dest/venv/bin/python" "$repo/.ci/core_only_probe.py" "$repo/tests/splitting/fixtures/mols.csv" \
    "$dest/core_only.json" >"$dest/core_only.log" 2>&1)
"$dest/venv/bin/python" -m pip install --quiet "$wheel[workflow]"
echo "wheel_check: $(basename "$wheel") installed into $dest/venv in $(( $(date +%s) - start )) s"
if [ $# -lt 2 ]; then
    cd "$repo"
    BENCHDESIGN_PLAIN_VENV="$dest/venv" BENCHDESIGN_FRESH_VENV=1 "$py" -m pytest -q tests/test_plain_install.py
fi
