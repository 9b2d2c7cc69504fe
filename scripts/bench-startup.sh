#!/usr/bin/env bash
# Start-up: `agentexec version` against a Go hello-world built the same
# way (same toolchain, go build defaults), interleaved (scripts/spawnbench),
# and what runs at package initialization (GODEBUG=inittrace=1, the
# packages that take longest). A third variant, deps, is a binary that links
# every package agentexec links from outside the module (blank imports, same
# versions) and prints the same line: what the dependencies alone cost at
# start-up, whatever agentexec's own code does.
# Usage: scripts/bench-startup.sh [ROUNDS]   (default 300)
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-300}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/agentexec" ./cmd/agentexec
go build -o "$tmp/spawnbench" ./scripts/spawnbench
mkdir "$tmp/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$tmp/hello/main.go"
printf 'module hello\n\ngo %s\n' "$(go env GOVERSION | sed 's/^go//; s/\.[0-9]*$//')" >"$tmp/hello/go.mod"
(cd "$tmp/hello" && go build -o "$tmp/hello-bin" .)
mkdir "$tmp/deps"
sed 's#^module .*#module deps#' go.mod >"$tmp/deps/go.mod"
cp go.sum "$tmp/deps/"
{
	printf 'package main\n\nimport (\n\t"fmt"\n'
	go list -deps ./cmd/agentexec | grep -v -e '^github.com/agentexec/agentexec' -e '^vendor/' -e '^internal/' \
		-e '/internal$' -e '/internal/' -e '^C$' -e '^runtime/cgo$' | sed 's/.*/\t_ "&"/'
	printf ')\n\nfunc main() { fmt.Println("agentexec 0.1.0-dev") }\n'
} >"$tmp/deps/main.go"
(cd "$tmp/deps" && go build -o "$tmp/deps-bin" .)
"$tmp/spawnbench" -n "$rounds" "hello=$tmp/hello-bin" "version=$tmp/agentexec version" "deps=$tmp/deps-bin" | tee "$tmp/out"
awk '{m[$1] = $3} END { printf "target: version %.2fx a Go hello-world (at most 1.5x); its dependencies alone %.2fx\n", m["version"] / m["hello"], m["deps"] / m["hello"] }' "$tmp/out"
echo "package init, slowest (GODEBUG=inittrace=1, median clock of 21 runs):"
for i in $(seq 21); do GODEBUG=inittrace=1 "$tmp/agentexec" version 2>&1 >/dev/null; done |
	awk '/^init/ { t[$2] = t[$2] " " $5; n[$2]++ }
	function median(s,   a, k, i, j, x) {
		k = split(s, a, " ")
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { x = a[i]; a[i] = a[j]; a[j] = x }
		return a[int((k + 1) / 2)]
	}
	END { for (p in t) { m = median(t[p]); sum += m; printf "%8.3f ms  %s\n", m, p } printf "%8.3f ms  all package init\n", sum }' |
	sort -rn | head -9
echo "agentexec's own packages at init (GODEBUG=inittrace=1, mean of 21 runs):"
for i in $(seq 21); do GODEBUG=inittrace=1 "$tmp/agentexec" version 2>&1 >/dev/null; done |
	awk '/^init (main|github\.com\/agentexec\/)/ { t += $5; b += $8; a += $10 }
	/^init runtime / { n++ }
	END { printf "%8.3f ms  %d bytes  %d allocations  (mean per run)\n", t / n, b / n, a / n }'
