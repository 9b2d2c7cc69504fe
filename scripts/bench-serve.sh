#!/usr/bin/env bash
# Requests a second that `agentexec serve` and `agentexec mcp` answer, with
# the default sandbox and the audit log on (fsync per record): strictly
# sequential (each request sent when the previous one is answered), and
# with several in flight (serve --parallel 2; mcp runs tool calls
# concurrently). The command is `true` as text (run by bash) and
# /bin/true as an argv (no shell). For reference, the same without the
# sandbox and without the audit log. scripts/servebench is the client; it
# also prints the CPU time the server and the processes it waited for used
# per request, less noisy than wall time on a shared machine.
# Usage: scripts/bench-serve.sh [REQUESTS]   (default 400)
# BASE=REV also builds revision REV and runs the sequential and
# --parallel 2 cases against it, alternating the two builds, ROUNDS times
# (default 3): the before/after of a change on a machine whose load drifts.
set -eu
cd "$(dirname "$0")/.."
n=${1:-400}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/agentexec" ./cmd/agentexec
go build -o "$tmp/servebench" ./scripts/servebench
mkdir "$tmp/ws"
sb() { "$tmp/servebench" -bin "$tmp/agentexec" -dir "$tmp/ws" -n "$n" "$@"; }
log="--audit $tmp/audit.jsonl"
sb -surface serve -- --parallel 1 $log
sb -surface serve -argv -cmd /bin/true -- --parallel 1 $log
sb -surface serve -inflight 2 -- --parallel 2 $log
sb -surface serve -inflight 4 -- --parallel 4 $log
sb -surface mcp -- $log
sb -surface mcp -argv -cmd /bin/true -- $log
sb -surface mcp -inflight 4 -- $log
echo "reference:"
sb -surface serve -- --parallel 1 --sandbox none $log
sb -surface serve -- --parallel 1 --audit off
sb -surface serve -argv -cmd /bin/true -- --parallel 1 --sandbox none --audit off
if [ -n "${BASE:-}" ]; then
	mkdir "$tmp/base"
	git archive "$BASE" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && go build -o "$tmp/agentexec-base" ./cmd/agentexec)
	echo "against $BASE, alternated (base first in each round):"
	for _ in $(seq "${ROUNDS:-3}"); do
		for b in "$tmp/agentexec-base" "$tmp/agentexec"; do
			tag=head
			[ "$b" = "$tmp/agentexec" ] || tag=base
			for c in "-- --parallel 1" "-argv -cmd /bin/true -- --parallel 1" "-inflight 2 -- --parallel 2"; do
				# shellcheck disable=SC2086 # the case's flags split on purpose
				"$tmp/servebench" -bin "$b" -dir "$tmp/ws" -n "$n" $c $log | sed "s/^/$tag /"
			done
		done
	done
fi
