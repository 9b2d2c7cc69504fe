#!/usr/bin/env bash
# Overhead of the gated executor over plain os/exec, both running /bin/true
# unsandboxed, and (SandboxedRunnerVsOSExec) with the default
# workspace-write sandbox. Prints each benchmark's median ns/op and the
# ratios; the interleaved ratios are the ones to trust on a busy machine.
# Usage: scripts/bench-exec.sh [COUNT] [BENCHTIME]   (defaults: 5 500x)
set -eu
cd "$(dirname "$0")/.."
count=${1:-5}
bt=${2:-500x}
go test ./exec/ -run '^$' -bench 'OSExecTrue|RunnerTrue|DropInTrue|GateOnly|RunnerVsOSExec' \
	-benchtime "$bt" -count "$count" | tee /dev/stderr |
awk '/^BenchmarkRunnerVsOSExec/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ratio") r = r " " $i; next }
/^BenchmarkSandboxedRunnerVsOSExec/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ratio") s = s " " $i; next }
/^Benchmark/ { name=$1; sub(/-[0-9]+$/, "", name); v[name]=v[name] " " $3 }
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	base = median(v["BenchmarkOSExecTrue"])
	for (k in v) printf "%-22s median %12.0f ns/op\n", k, median(v[k])
	printf "RunnerTrue / OSExecTrue = %.3f\n", median(v["BenchmarkRunnerTrue"]) / base
	printf "DropInTrue / OSExecTrue = %.3f\n", median(v["BenchmarkDropInTrue"]) / base
	printf "gate+prepare (GateOnly) / OSExecTrue = %.2f%%\n", 100 * median(v["BenchmarkGateOnly"]) / base
	printf "interleaved RunnerVsOSExec ratio (median) = %.3f\n", median(r)
	if (s != "") printf "interleaved SandboxedRunnerVsOSExec ratio (median) = %.3f\n", median(s)
}'
