#!/usr/bin/env bash
# Reads the execution trace BenchmarkConfigMapFanout1000Apart writes with
# BRAMBLE_BENCH_TRACE_DIR set, and prints per update, in ms from the update's
# start (the "fanout" log mark): when the publisher queued the first and the
# last node's Event (outbox goroutine created), how many writes the broker's
# connections made (brokerConn.sendLoop), when the 1,000th and the last of
# them began, and how much of the update's window the collector took (mark
# phase, mark assists summed over goroutines, stop-the-world pauses).
#
#   BRAMBLE_BENCH_TRACE_DIR=DIR go test -run '^$' -bench 'ConfigMapFanout1000Apart$' -benchtime 1x ./bench/
#   bench/fanout-trace.sh DIR/fanout-apart.trace [nodes]
set -euo pipefail
trace=${1:?usage: $0 TRACE [nodes]}
nodes=${2:-1000}
go tool trace -d=parsed "$trace" | awk -v nodes="$nodes" '
function flush() {
	if (kind == "Log" && rest ~ /Category="fanout"/) marks[++nm] = t
	else if (kind == "StateTransition" && rest ~ /NotExist->Runnable/ && stk ~ /outbox\)\.push/) creates[++nc] = t
	else if (kind == "StateTransition" && rest ~ /Running->Syscall/ && stk ~ /syscall\.write/ && stk ~ /brokerConn\)\.sendLoop/) writes[++nw] = t
	else if ((kind == "RangeBegin" || kind == "RangeEnd") && rest ~ /Name="(GC mark assist|GC concurrent mark phase|stop-the-world[^"]*)"/) {
		match(rest, /Name="[^"]*"/); name = substr(rest, RSTART + 6, RLENGTH - 7)
		match(rest, /Scope=[^ ]*/); key = name SUBSEP substr(rest, RSTART, RLENGTH)
		if (kind == "RangeBegin") open[key] = t
		else if (key in open) { gs[++ng] = open[key]; ge[ng] = t; gn[ng] = name; delete open[key] }
	}
	stk = ""
}
/^M=/ { flush(); kind = $4; t = substr($5, 6) + 0; rest = $0; next }
{ stk = stk $0 }
function overlap(a, b, pat,   i, s, sum) {
	sum = 0
	for (i = 1; i <= ng; i++) if (gn[i] ~ pat) { s = (ge[i] < b ? ge[i] : b) - (gs[i] > a ? gs[i] : a); if (s > 0) sum += s }
	return sum / 1e6
}
END {
	flush(); marks[nm + 1] = 1e30
	print "update first-queued last-queued writes nth-write last-write gc-mark gc-assist stw"
	for (u = 1; u <= nm; u++) {
		a = marks[u]; b = marks[u + 1]; fc = lc = -1; n = 0; nth = last = -1
		for (i = 1; i <= nc; i++) if (creates[i] >= a && creates[i] < b) { if (fc < 0) fc = creates[i]; lc = creates[i] }
		for (i = 1; i <= nw; i++) if (writes[i] >= a && writes[i] < b) { n++; if (n == nodes) nth = writes[i]; last = writes[i] }
		printf "%6d %12.1f %11.1f %6d %9.1f %10.1f %7.1f %9.1f %5.2f\n", u - 1, (fc - a) / 1e6, (lc - a) / 1e6, n,
			nth < 0 ? -1 : (nth - a) / 1e6, (last - a) / 1e6, overlap(a, b, "concurrent"), overlap(a, b, "assist"), overlap(a, b, "stop-the-world")
	}
}'
