#!/usr/bin/env bash
# Cost of the egress proxy (issue: network by domain).
#  1. BenchmarkDownload: 100 MB from a loopback server, direct and through
#     the proxy (plain HTTP, and a CONNECT tunnel); compare the MB/s.
#  2. BenchmarkProxyUnused: a sandboxed /bin/true with the network cut
#     against the same run with an allowlist it never uses (added µs/run).
#  3. End to end through the CLI: curl downloads 100 MB from a loopback
#     server under `agentexec run`, the network open against an allowlist
#     through the proxy, interleaved RUNS times; medians and their ratio.
# Usage: scripts/bench-net.sh [RUNS]   (default 5)
set -eu
cd "$(dirname "$0")/.."
runs=${1:-5}
go test ./exec/egress -run '^$' -bench Download -benchtime 5x -count 3 | grep -E '^Benchmark'
go test ./exec -run '^$' -bench ProxyUnused -benchtime 400x -count 3 | grep -E '^Benchmark'

tmp=$(mktemp -d)
trap 'kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/agentexec" ./cmd/agentexec
head -c $((100 << 20)) /dev/urandom >"$tmp/big"
python3 -m http.server --bind 127.0.0.1 0 --directory "$tmp" >"$tmp/srv.log" 2>&1 &
srv=$!
for _ in $(seq 50); do
	port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$tmp/srv.log" | head -1)
	[ -n "$port" ] && break
	sleep 0.1
done
echo '{"mode": "yolo", "sandbox": {"network": true}}' >"$tmp/open.json"
printf '{"mode": "yolo", "sandbox": {"network": {"allow": ["127.0.0.1:%s"], "allow_local": true}}}\n' "$port" >"$tmp/proxy.json"
dl() {
	env -u http_proxy -u HTTP_PROXY -u https_proxy -u HTTPS_PROXY -u ALL_PROXY -u all_proxy \
		"$tmp/agentexec" run --audit off --policy "$tmp/$1.json" -- \
		curl -sS -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port/big"
}
dl open >/dev/null && dl proxy >/dev/null # warm up
for ((i = 0; i < runs; i++)); do
	echo "open $(dl open)"
	echo "proxy $(dl proxy)"
done | awk '
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ v[$1] = v[$1] " " $2 }
END {
	o = median(v["open"]); p = median(v["proxy"])
	printf "curl 100 MB through agentexec run: open %.3f s (%.0f MB/s), proxy %.3f s (%.0f MB/s), ratio %.2f\n", o, 100 / o, p, 100 / p, p / o
}'
