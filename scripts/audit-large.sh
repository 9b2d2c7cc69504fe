#!/usr/bin/env bash
# Memory of `agentexec audit verify` and `audit tail` on a large log: writes
# a valid chain of SIZE bytes (default 1 GiB) with its anchors in a temp
# dir, then prints each command's wall time and maximum resident set size.
# Memory must stay flat whatever SIZE is (the audit readers stream).
# Usage: scripts/audit-large.sh [SIZE_BYTES]
set -eu
cd "$(dirname "$0")/.."
size=${1:-$((1 << 30))}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/agentexec" ./cmd/agentexec
AUDIT_LARGE_LOG="$tmp/audit.jsonl" AUDIT_LARGE_BYTES=$size go test ./audit -run '^TestWriteLargeLog$' -count=1 -v | grep -E 'records|ok|FAIL'
ls -l "$tmp/audit.jsonl" "$tmp/audit.jsonl.anchors"
for cmd in "audit verify $tmp/audit.jsonl" "audit tail -n 5 $tmp/audit.jsonl"; do
	/usr/bin/time -f "%e s, max RSS %M KiB: agentexec $cmd" "$tmp/agentexec" $cmd >"$tmp/out" 2>"$tmp/err" || true
	tail -n 1 "$tmp/err"
	head -c 300 "$tmp/out"; echo
done
