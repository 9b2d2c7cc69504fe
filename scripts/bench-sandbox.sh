#!/usr/bin/env bash
# What a sandboxed command costs end to end, measured interleaved (each
# round starts every variant once, in turn, so a busy machine's drift falls
# on all alike; scripts/spawnbench): a bare /bin/true; `agentexec run --
# /bin/true` with --sandbox none and with the default sandbox, both in the
# default mode with the audit log on; and bubblewrap with a read-only root
# and new network and PID namespaces, when installed. Prints each one's
# median, mean and p90 and its ratio to the bare spawn, then the targets.
# Usage: scripts/bench-sandbox.sh [ROUNDS]   (default 200)
# INPROCESS=1 also runs the in-process benchmark of exec/sandbox (the
# sandbox alone, without agentexec's start-up: BenchmarkTrue).
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/agentexec" ./cmd/agentexec
go build -o "$tmp/spawnbench" ./scripts/spawnbench
mkdir "$tmp/ws"
a="$tmp/agentexec"
log="$tmp/audit.jsonl"
variants=(
	"bare=/bin/true"
	"run-sandbox-none=$a run --audit $log --sandbox none -- /bin/true"
	"run-default=$a run --audit $log -- /bin/true"
)
bw="bwrap --ro-bind / / --unshare-net --unshare-pid --dev /dev --proc /proc /bin/true"
if command -v bwrap >/dev/null && $bw 2>/dev/null; then
	variants+=("bwrap=$bw")
fi
"$tmp/spawnbench" -n "$rounds" -dir "$tmp/ws" "${variants[@]}" | tee "$tmp/out"
awk '{m[$1] = $3}
END {
	printf "targets: run-sandbox-none %.2fx (at most 2.5x), run-default %.2fx (at most 4x)", m["run-sandbox-none"] / m["bare"], m["run-default"] / m["bare"]
	if ("bwrap" in m) printf ", run-default / bwrap %.2f (below 1)", m["run-default"] / m["bwrap"]
	printf "\n"
}' "$tmp/out"

if [ "${INPROCESS:-}" = 1 ]; then
	# The sandbox alone, in process: plain os/exec against Prepare, Start,
	# Wait, Close, per launcher and network cut (medians over 5 runs).
	go test ./exec/sandbox/ -run '^$' -bench 'BenchmarkTrue' -benchtime 400x -count 5 |
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
			printf "in-process %-32s plain %6.0f µs  sandboxed %6.0f µs  ratio %5.2f  added %6.0f µs\n", k,
				median(v[k, "plain-median-µs/run"]), median(v[k, "median-µs/run"]),
				median(v[k, "ratio"]), median(v[k, "added-µs/run"])
	}' | sort
fi
