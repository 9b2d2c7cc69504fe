#!/usr/bin/env bash
# The gate's cost: a full decision per command over the agent corpus
# (testdata/corpus/agent-commands.txt) and over a mix of long commands
# agents send, under a 20-rule policy — mean, median, p99 and max time and
# the median and mean allocations per decision — then every hostile shape
# (internal/hostile) at 1 KiB … 1 MiB, through the decision and through the
# audit record, as seconds and megabytes per MiB of input (linear cost
# keeps these flat across sizes; the bar is 1 s and 64 MB per MiB).
#
# With valgrind installed it also counts the instructions per decision over
# the corpus (callgrind, the garbage collector off): unlike time, the count
# does not move with the machine's other load, so small changes show.
#
# Usage: scripts/bench-gate.sh [BASE]
#   BASE, a git revision: the same benchmarks are run on it too (its tree
#   checked out in a temporary worktree, the benchmark files copied in when
#   it lacks them) and benchstat prints before/after.
# Environment: COUNT (runs per benchmark, default 6), PASSES (corpus passes
# per run, default 40), SHAPES and SIZES (regexps of the hostile shapes and
# sizes to run, default all: SIZES='(1|16|64)KiB' keeps a BASE from before
# the linear fixes to minutes).
set -eu
cd "$(dirname "$0")/.."
count=${COUNT:-6}
passes=${PASSES:-40}
shapes=${SHAPES:-.}
sizes=${SIZES:-.*}
benchstat=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run DIR NAME: the benchmarks of the tree at DIR into $out/NAME.*.txt
run() {
	(cd "$1" &&
		go test ./gate -run '^$' -bench 'BenchmarkDecide(Corpus|Mix)$' -benchtime "${passes}x" -count "$count" >"$out/$2.corpus.txt" &&
		go test ./gate -run '^$' -bench "BenchmarkHostile/$shapes/^$sizes\$" -benchtime 3x -count 1 -timeout 60m >"$out/$2.hostile.txt" &&
		go test ./audit -run '^$' -bench "BenchmarkAppendHostile/$shapes/^$sizes\$" -benchtime 3x -count 1 -timeout 60m >"$out/$2.audit.txt")
}

# instructions DIR: instructions per corpus decision of the tree at DIR,
# counted only inside gate.Decide (the runtime's background threads and
# the benchmark's timers would add noise) — BenchmarkDecideCorpus run for
# 2 and for 6 passes (each run also makes its warm-up decisions, the same
# in both), the difference over 4 passes and the corpus's commands. The
# trusted-directory check a decision re-runs once a second (chainTTL) is
# taken out: under valgrind a run is slow enough for it to run a varying
# number of times, which had moved the count by up to 10% under load.
instructions() {
	command -v valgrind >/dev/null || return 0
	command -v callgrind_annotate >/dev/null || return 0
	(cd "$1" && go test -c -o "$out/gate.test" ./gate) || return 0
	ir() {
		(cd "$1/gate" && GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg.$2" \
			--toggle-collect='github.com/agentexec/agentexec/gate.Decide' \
			"$out/gate.test" -test.run '^$' -test.bench 'BenchmarkDecideCorpus$' -test.benchtime "$2" >/dev/null 2>&1)
		local total ttl
		total=$(callgrind_annotate "$out/cg.$2" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
		ttl=$(callgrind_annotate --inclusive=yes "$out/cg.$2" 2>/dev/null | awk '/trustedChainNow \[/ { gsub(",", "", $1); print $1; exit }')
		echo $((total - ${ttl:-0}))
	}
	local a b n
	a=$(ir "$1" 2x) b=$(ir "$1" 6x)
	n=$(grep -cv '^[[:space:]]*\(#\|$\)' "$1/testdata/corpus/agent-commands.txt")
	echo "instructions per decision (callgrind inside gate.Decide, GC off, $n commands): $(( (b - a) / 4 / n ))"
}

# corpus FILE: the per-decision distribution, medians over the runs.
corpus() {
	awk '/^BenchmarkDecide/ {
		name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkDecide/, "", name); names[name] = 1
		for (i = 3; i < NF; i++) if ($(i+1) ~ /\/decision$/) v[name, $(i+1)] = v[name, $(i+1)] " " $i
	}
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		for (k in names)
			printf "decide %-7s mean %7.1f µs  median %6.1f µs  p99 %7.1f µs  max %8.1f µs  allocs median %5.0f mean %6.0f\n", tolower(k),
				median(v[k, "mean-ns/decision"]) / 1000, median(v[k, "median-ns/decision"]) / 1000,
				median(v[k, "p99-ns/decision"]) / 1000, median(v[k, "max-ns/decision"]) / 1000,
				median(v[k, "median-allocs/decision"]), median(v[k, "mean-allocs/decision"])
	}' "$1" | sort
}

# perMiB FILE WHAT: each hostile benchmark as time and memory per MiB.
perMiB() {
	awk -v what="$2" '/^Benchmark/ && / ns\/op/ {
		name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark[A-Za-z]*\//, "", name)
		kib = name; sub(/.*\//, "", kib); sub(/KiB$/, "", kib)
		for (i = 3; i < NF; i++) { if ($(i+1) == "ns/op") ns = $i; if ($(i+1) == "B/op") by = $i }
		f = 1024 / kib
		printf "%-6s %-30s %9.3f ms  %8.3f s/MiB  %8.1f MB/MiB%s\n", what, name, ns / 1e6, ns * f / 1e9, by * f / 1e6,
			((kib + 0 >= 16 && (ns * f > 1e9 || by * f > 64e6)) ? "  OVER" : "")
	}' "$1"
}

run . new
if [ $# -gt 0 ]; then
	base=$(mktemp -d)
	git worktree add -q --detach "$base" "$1"
	trap 'git worktree remove --force "$base"; rm -rf "$out"' EXIT
	for f in gate/decide_corpus_bench_test.go gate/hostile_bench_test.go audit/hostile_bench_test.go internal/hostile/hostile.go; do
		if [ ! -e "$base/$f" ]; then mkdir -p "$base/$(dirname "$f")" && cp "$f" "$base/$f"; fi
	done
	run "$base" old
fi

echo "== per decision, 20-rule policy (best of $passes passes per command; medians of $count runs)"
[ -e "$out/old.corpus.txt" ] && corpus "$out/old.corpus.txt" | sed 's/^/before: /'
corpus "$out/new.corpus.txt"
[ $# -gt 0 ] && instructions "$base" | sed 's/^/before: /'
instructions .
echo "== hostile shapes: a full decision, and the audit record of the command"
perMiB "$out/new.hostile.txt" decide
perMiB "$out/new.audit.txt" audit
if [ -e "$out/old.corpus.txt" ]; then
	echo "== before (BASE $1):"
	perMiB "$out/old.hostile.txt" decide
	perMiB "$out/old.audit.txt" audit
	echo "== benchstat $1 → working tree"
	"$benchstat" "$out/old.corpus.txt" "$out/new.corpus.txt" || true
	"$benchstat" "$out/old.hostile.txt" "$out/new.hostile.txt" || true
	"$benchstat" "$out/old.audit.txt" "$out/new.audit.txt" || true
fi
