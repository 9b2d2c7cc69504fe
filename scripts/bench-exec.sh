#!/usr/bin/env bash
# What the executor costs.
#
# 1. The gated executor over plain os/exec, both running /bin/true
#    unsandboxed, and (SandboxedRunnerVsOSExec) with the default
#    workspace-write sandbox: each benchmark's median ns/op and the ratios
#    (the interleaved ratios are the ones to trust on a busy machine).
# 2. The run-time exec gate (BenchmarkExecGate): the same request with the
#    gate off and on, alternating, under workspace-write and none: a single
#    /bin/true, a shell loop of 1,000 /bin/true, and `make -B -j2` of
#    testdata/cproject. Medians of the on/off ratio and of the time added,
#    in wall time and in processor time (this process's and the run's: on
#    a loaded machine the wall time's ratio blurs, the processor time's
#    much less).
# 3. Through the CLI, one process per run (agentexec's own start
#    included): `agentexec run` of the same three loads with --exec-gate off
#    and on, and BEFORE_BIN (an agentexec built before the gate, if given)
#    and plain bash, interleaved, RUNS times each; medians in ms.
#
# Usage: scripts/bench-exec.sh [COUNT] [BENCHTIME] [RUNS]
#   (defaults: 5 500x 11; the exec gate's benchmark runs COUNT times at 10x)
#   BEFORE_BIN=/path/to/old/agentexec scripts/bench-exec.sh
#   PARTS="2 3" scripts/bench-exec.sh   (only some parts)
set -eu
cd "$(dirname "$0")/.."
count=${1:-5}
bt=${2:-500x}
runs=${3:-11}
parts=${PARTS:-1 2 3}

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) { print "-"; exit } print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

part1() {
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
}

part2() {
	go test ./exec/ -run '^$' -bench 'BenchmarkExecGate$' -benchtime 10x -count "$count" | tee /dev/stderr |
	awk '/^BenchmarkExecGate\// {
		name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkExecGate\//, "", name)
		for (i = 1; i <= NF; i++) {
			if ($(i+1) == "ratio") ratio[name] = ratio[name] " " $i
			if ($(i+1) == "added-us/op") added[name] = added[name] " " $i
			if ($(i+1) == "off-ns/op") off[name] = off[name] " " $i
			if ($(i+1) == "cpu-ratio") cpu[name] = cpu[name] " " $i
			if ($(i+1) == "cpu-added-us/op") cpuadded[name] = cpuadded[name] " " $i
		}
	}
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		printf "%-26s %12s %10s %12s %10s %14s\n", "exec gate (on vs off)", "off ms", "ratio", "added ms", "cpu ratio", "cpu added ms"
		for (k in ratio) printf "%-26s %12.2f %10.3f %12.3f %10.3f %14.3f\n", k, median(off[k]) / 1e6, median(ratio[k]), median(added[k]) / 1e3, median(cpu[k]), median(cpuadded[k]) / 1e3
	}'
}

part3() {
	ws=$(mktemp -d)
	bin=$ws/agentexec
	go build -o "$bin" ./cmd/agentexec
	trap 'rm -rf "$ws"' EXIT
	mkdir "$ws/w"
	cp -r testdata/cproject/. "$ws/w/"
	pol=$ws/policy.json
	# No deny rule: without the gate the static gate would ask about make
	# then (no allow rule vouches for project code it cannot watch), and
	# the CLI has no one to ask. With the gate every exec is still judged
	# (the blacklist); the rules' own cost is in part 2.
	echo '{"permissions":{"allow":["Bash(*)"]}}' > "$pol"
	declare -A loads=(
		[true]='true'
		[loop1000]='for i in $(seq 1000); do /bin/true; done'
		[make-j2]='make -B -j2 -s'
	)
	now() { date +%s%N; }
	for load in true loop1000 make-j2; do
		text=${loads[$load]}
		declare -A t=()
		for ((k = 0; k < runs; k++)); do
			order="off on before bash"
			if ((k % 2)); then order="bash before on off"; fi
			for v in $order; do
				case $v in
				before) [ -n "${BEFORE_BIN:-}" ] || continue ;;
				esac
				s=$(now)
				case $v in
				off | on) (cd "$ws/w" && "$bin" run --audit off --policy "$pol" --exec-gate "$v" -c "$text" >/dev/null 2>&1) || echo "bench-exec: the $v run of $load failed: its time is not the load's" >&2 ;;
				before) (cd "$ws/w" && "$BEFORE_BIN" run --audit off --policy "$pol" -c "$text" >/dev/null 2>&1) || echo "bench-exec: the $v run of $load failed: its time is not the load's" >&2 ;;
				bash) (cd "$ws/w" && bash -c "$text" >/dev/null 2>&1) || echo "bench-exec: the $v run of $load failed: its time is not the load's" >&2 ;;
				esac
				t[$v]="${t[$v]:-} $(( ($(now) - s) / 1000 ))"
			done
		done
		line="$load:"
		for v in bash before off on; do
			[ -n "${t[$v]:-}" ] || continue
			line="$line $v $(printf '%s\n' ${t[$v]} | median | awk '{ printf "%.1f", $1 / 1000 }') ms,"
		done
		echo "cli (workspace-write, $runs runs each, medians) ${line%,}"
		unset t
	done
}

for p in $parts; do "part$p"; done
