#!/usr/bin/env bash
# Counts the fsync-family system calls a `bramble agent` makes per pod status
# change (BenchmarkAgentFsyncPerStatusChange): a real server, a private
# containerd, one agent process with 10 busybox pods, one of which flips its
# readiness every 10 s; strace -f follows every thread of the agent over a
# window of 6 flips, and `kubectl get pods --watch-only` counts the pod changes
# in that window. Needs root, containerd, runc and strace (hack/deps.sh).
#
#   bench/fsync-per-status.sh [runs]     # default 1 run; results in BENCHMARKS.md
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
runs=${1:-1}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
go test -run '^$' -bench 'AgentFsyncPerStatusChange' -benchtime 1x -count "$runs" -timeout 30m ./bench/
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
