#!/usr/bin/env bash
# Cost of the Linux sandbox: /bin/true started by plain os/exec against the
# same run through sandbox.Prepare (trampoline, namespaces, read-only mounts,
# caps, Landlock, seccomp), once per iteration. Prints the median of the
# per-run medians, the ratio and the absolute added time.
# Usage: scripts/bench-sandbox.sh [COUNT] [BENCHTIME]   (defaults: 5 200x)
set -eu
cd "$(dirname "$0")/.."
count=${1:-5}
bt=${2:-200x}
go test ./exec/sandbox/ -run '^$' -bench 'BenchmarkTrue' -benchtime "$bt" -count "$count" | tee /dev/stderr |
awk '/^BenchmarkTrue/ {
	name=$1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkTrue\//, "", name)
	for (i = 3; i < NF; i += 2) {
		if ($(i+1) == "median-µs/run") wall[name] = wall[name] " " $i
		if ($(i+1) == "median-cpu-µs/run") cpu[name] = cpu[name] " " $i
	}
}
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	bw = median(wall["plain"]); bc = median(cpu["plain"])
	printf "%-20s wall %7.0f µs  cpu %7.0f µs\n", "plain", bw, bc
	for (k in wall) if (k != "plain")
		printf "%-20s wall %7.0f µs (x%.2f, +%.0f)  cpu %7.0f µs (x%.2f, +%.0f)\n", k,
			median(wall[k]), median(wall[k]) / bw, median(wall[k]) - bw,
			median(cpu[k]), median(cpu[k]) / bc, median(cpu[k]) - bc
}'

# The same through the agentexec CLI (gate, audit off): the trampoline is
# the agentexec binary itself here, with its package initialization.
bin=$(mktemp -d)/agentexec
go build -o "$bin" ./cmd/agentexec
ws=$(mktemp -d)
cli() { # profile runs -> median µs
	local i s e
	for ((i = 0; i < $2; i++)); do
		s=$(date +%s%N)
		(cd "$ws" && "$bin" run --audit off --mode yolo --sandbox "$1" -- /bin/true) >/dev/null 2>&1
		e=$(date +%s%N)
		echo $(((e - s) / 1000))
	done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
n=${CLI_RUNS:-50}
none=$(cli none "$n")
ww=$(cli workspace-write "$n")
ro=$(cli read-only "$n")
echo "cli none             median ${none} µs/run"
echo "cli workspace-write  median ${ww} µs/run  ratio $(awk "BEGIN{printf \"%.2f\", $ww/$none}")  added $((ww - none)) µs"
echo "cli read-only        median ${ro} µs/run  ratio $(awk "BEGIN{printf \"%.2f\", $ro/$none}")  added $((ro - none)) µs"
rm -rf "$ws" "$(dirname "$bin")"
