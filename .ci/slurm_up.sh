#!/usr/bin/env bash
# CI: bring up a one-node SLURM cluster on this machine (Debian, root, no systemd) for tests/test_slurm.py.
#
#   bash .ci/slurm_up.sh      # installs slurm-wlm + munge if needed, starts munged, slurmctld, slurmd
#   bash .ci/slurm_down.sh    # cancels leftover jobs, stops exactly the daemons started here (by PID)
#
# If a SLURM controller already answers, nothing is installed or started. The PIDs of the daemons started
# here are written to $BENCHDESIGN_SLURM_STATE/pids (default /tmp/benchdesign-slurm), one "name pid" a line.
# Status queries use squeue (no slurmdbd): run snakemake with `--slurm-status-command squeue`.
set -euo pipefail

STATE=${BENCHDESIGN_SLURM_STATE:-/tmp/benchdesign-slurm}
CONF=/etc/slurm/slurm.conf
MARK="# written by benchdesign .ci/slurm_up.sh"
start=$(date +%s)

say() { echo "slurm_up: $*"; }
die() { echo "slurm_up: ERROR: $*" >&2; exit 1; }

controller_answers() { command -v scontrol >/dev/null && timeout 10 scontrol ping 2>/dev/null | grep -q "is UP"; }

if controller_answers; then
    say "a SLURM controller already answers; nothing started"
    sinfo
    exit 0
fi

[ "$(id -u)" -eq 0 ] || die "needs root (installs packages, writes $CONF, starts daemons)"

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge from Debian packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

if [ -e "$CONF" ] && ! head -n1 "$CONF" | grep -qF "$MARK"; then
    die "$CONF exists and was not written by this script; not overwriting it (start that cluster instead)"
fi

# A bring-up that was never brought down (CI killed, machine restarted) leaves its daemons' PIDs, its saved jobs
# and the job steps of its slurmd behind. Recovered, they hold the node ("waiting for resources") or revoke the
# credentials of new jobs ("Job credential revoked"), so stop what is listed and start from an empty state.
if [ -s "$STATE/pids" ]; then
    say "a previous bring-up was not brought down; stopping what it started"
    bash "$(dirname "$0")/slurm_down.sh"
fi
if pgrep -x slurmstepd >/dev/null; then   # no controller answers (checked above): these are orphans
    say "stopping orphaned job steps: $(pgrep -x slurmstepd | tr '\n' ' ')"
    pkill -KILL -x slurmstepd || true
fi
rm -rf "$STATE/spool"
mkdir -p "$STATE"/{spool/ctld,spool/d,log}
: > "$STATE/pids"

# ---- munge -------------------------------------------------------------------------------------------
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    [ -s /etc/munge/munge.key ] || runuser -u munge -- /usr/sbin/mungekey --create 2>/dev/null \
        || die "no /etc/munge/munge.key"
    install -d -o munge -g munge -m 0755 /run/munge
    install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
    runuser -u munge -- /usr/sbin/munged
    for _ in $(seq 50); do [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
    echo "munged $(cat /run/munge/munged.pid)" >> "$STATE/pids"
    munge -n | unmunge >/dev/null || die "munge does not work"
    say "munged started (pid $(cat /run/munge/munged.pid))"
fi

# ---- slurm.conf ----------------------------------------------------------------------------------------
cpus=$(nproc)
mem_total_mb=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 ))
real_mb=$(( mem_total_mb * 8 / 10 ))                 # below physical, or slurmd drains the node
def_mem=$(( real_mb / cpus < 2000 ? real_mb / cpus : 2000 ))
cat > "$CONF" <<EOF
$MARK (one-node CI cluster; see .ci/slurm_up.sh)
ClusterName=benchdesign
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/spool/ctld
SlurmdSpoolDir=$STATE/spool/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$def_mem
MinJobAge=300
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MpiDefault=none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$real_mb State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
say "wrote $CONF (CPUs=$cpus RealMemory=$real_mb DefMemPerCPU=$def_mem)"

# ---- daemons -------------------------------------------------------------------------------------------
wait_pidfile() {  # name pidfile
    for _ in $(seq 100); do
        if [ -s "$2" ] && [ "$(cat "/proc/$(cat "$2")/comm" 2>/dev/null)" = "$1" ]; then return 0; fi
        sleep 0.1
    done
    die "$1 did not start; see $STATE/log/$1.log"
}
rm -f "$STATE/slurmctld.pid" "$STATE/slurmd.pid"
/usr/sbin/slurmctld -c                      # -c: clear any saved state; daemonizes, writes its PID file
wait_pidfile slurmctld "$STATE/slurmctld.pid"
echo "slurmctld $(cat "$STATE/slurmctld.pid")" >> "$STATE/pids"
/usr/sbin/slurmd -N localhost
wait_pidfile slurmd "$STATE/slurmd.pid"
echo "slurmd $(cat "$STATE/slurmd.pid")" >> "$STATE/pids"

for _ in $(seq 60); do
    state=$(sinfo -h -N -o %t 2>/dev/null | head -n1)
    case "$state" in idle|mix|alloc) break ;; esac
    sleep 0.5
done
case "$state" in idle|mix|alloc) ;; *) sinfo -N -l || true; die "node not idle (state '$state'); see $STATE/log" ;; esac
out=$(timeout 60 srun -N1 -n1 -t 1 hostname) || die "srun does not run a job; see $STATE/log"
say "srun ran a job on $out"
sinfo
say "SLURM up in $(( $(date +%s) - start )) s; PIDs in $STATE/pids"
