#!/usr/bin/env bash
# Cost of the Linux sandbox: /bin/true started by plain os/exec against the
# same run through the sandbox (Prepare, Start, Wait, Close), alternating in
# blocks within one benchmark run, for each launcher (thread, trampoline)
# and network cut. Prints, per variant, the median over COUNT benchmark
# runs of: the plain median, the sandboxed median, their ratio and the
# time added per command.
# Usage: scripts/bench-sandbox.sh [COUNT] [BENCHTIME]   (defaults: 5 400x)
set -eu
cd "$(dirname "$0")/.."
count=${1:-5}
bt=${2:-400x}
go test ./exec/sandbox/ -run '^$' -bench 'BenchmarkTrue' -benchtime "$bt" -count "$count" | tee /dev/stderr |
awk '/^BenchmarkTrue/ {
	name=$1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkTrue\//, "", name)
	names[name] = 1
	for (i = 3; i < NF; i += 2) v[name, $(i+1)] = v[name, $(i+1)] " " $i
}
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	for (k in names)
		printf "%-32s plain %6.0f µs  sandboxed %6.0f µs  ratio %5.2f  added %6.0f µs\n", k,
			median(v[k, "plain-median-µs/run"]), median(v[k, "median-µs/run"]),
			median(v[k, "ratio"]), median(v[k, "added-µs/run"])
}' | sort

# The same through the agentexec CLI (gate, audit off): the trampoline is
# the agentexec binary itself here, with its package initialization.
bin=$(mktemp -d)/agentexec
go build -o "$bin" ./cmd/agentexec
ws=$(mktemp -d)
out=$(mktemp -d)
n=${CLI_RUNS:-50}
# Interleaved, so that the machine's drift falls on every profile alike.
for ((i = 0; i < n; i++)); do
	for p in none workspace-write read-only; do
		s=$(date +%s%N)
		(cd "$ws" && "$bin" run --audit off --mode yolo --sandbox "$p" -- /bin/true) >/dev/null 2>&1
		e=$(date +%s%N)
		echo $(((e - s) / 1000)) >>"$out/$p"
	done
done
med() { sort -n "$out/$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
none=$(med none)
ww=$(med workspace-write)
ro=$(med read-only)
echo "cli none             median ${none} µs/run"
echo "cli workspace-write  median ${ww} µs/run  ratio $(awk "BEGIN{printf \"%.2f\", $ww/$none}")  added $((ww - none)) µs"
echo "cli read-only        median ${ro} µs/run  ratio $(awk "BEGIN{printf \"%.2f\", $ro/$none}")  added $((ro - none)) µs"
rm -rf "$ws" "$out" "$(dirname "$bin")"
