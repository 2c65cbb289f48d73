#!/usr/bin/env bash
# CI: the programs some tests call, from Debian packages (root): mmseqs2, the aligner of GraphPart
# (method graphpart_target, tests/molexp/test_pair_peers.py). Nothing is installed when they are on PATH.
# .ci/run runs this before .ci/slurm_up.sh in the same background step (one apt-get at a time).
set -euo pipefail
missing=()
command -v mmseqs >/dev/null || missing+=(mmseqs2)
if [ ${#missing[@]} -eq 0 ]; then
    echo "apt_tools: mmseqs already installed"
    exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "apt_tools: ERROR: needs root to install ${missing[*]}" >&2; exit 1; }
start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "apt_tools: installed ${missing[*]} in $(($(date +%s) - start)) s"
