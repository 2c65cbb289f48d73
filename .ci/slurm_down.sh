#!/usr/bin/env bash
# CI: stop the one-node SLURM started by .ci/slurm_up.sh. Only the daemons listed in
# $BENCHDESIGN_SLURM_STATE/pids are stopped, each by its PID after checking /proc/PID/comm (PIDs wrap).
set -uo pipefail

STATE=${BENCHDESIGN_SLURM_STATE:-/tmp/benchdesign-slurm}
PIDS="$STATE/pids"

say() { echo "slurm_down: $*"; }

if [ ! -s "$PIDS" ]; then
    say "no daemons were started by slurm_up.sh ($PIDS empty or absent); nothing to stop"
    exit 0
fi

if grep -q '^slurmctld ' "$PIDS"; then
    # Jobs left over by an interrupted test: cancel them while the controller still answers.
    left=$(squeue -h -o %i 2>/dev/null | tr '\n' ' ')
    if [ -n "${left// /}" ]; then
        say "cancelling leftover jobs: $left"
        # shellcheck disable=SC2086
        scancel $left || true
        sleep 2
    fi
fi

# Reverse start order: slurmd, slurmctld, munged.
tac "$PIDS" | while read -r name pid; do
    [ -n "${pid:-}" ] || continue
    comm=$(cat "/proc/$pid/comm" 2>/dev/null || true)
    if [ "$comm" != "$name" ]; then
        say "$name (pid $pid) is not running (pid now: '${comm:-none}'); skipped"
        continue
    fi
    kill -TERM "$pid"
    for _ in $(seq 100); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
    if [ -d "/proc/$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ]; then
        say "$name (pid $pid) ignored SIGTERM for 10 s; SIGKILL"
        kill -KILL "$pid"
    fi
    say "stopped $name (pid $pid)"
done
: > "$PIDS"
exit 0
