#!/usr/bin/env bash
# Latency of `agentexec hook --agent claude` for a typical command (git
# status): one process start, one decision, one answer (with the ticket
# written and the decision audited), timed from the caller's side as an
# agent sees it, interleaved with the baselines so a busy machine skews
# them alike:
#   true      /bin/true                     (the cost of any process start)
#   version   agentexec version             (agentexec's own start-up)
#   hook      agentexec hook --agent claude (the default: rewrite + audit)
#   noaudit   ... --audit off
#   answer    ... --no-rewrite --audit off  (decision and answer only)
# Usage: scripts/bench-hook.sh [ROUNDS]   (default 200)
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/agentexec" ./cmd/agentexec
mkdir -p "$tmp/ws" "$tmp/state"
git -C "$tmp/ws" init -q
python3 - "$tmp" "$rounds" <<'PY'
import json, os, statistics, subprocess, sys, time
tmp, rounds = sys.argv[1], int(sys.argv[2])
ws, bin = os.path.join(tmp, "ws"), os.path.join(tmp, "agentexec")
env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTEXEC_")}
env.update(XDG_STATE_HOME=os.path.join(tmp, "state"), HOME=tmp)
payload = json.dumps({"session_id": "s", "transcript_path": "", "cwd": ws, "permission_mode": "default",
                      "hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": "git status", "description": "x"}, "tool_use_id": "t"}).encode()
hook = [bin, "hook", "--agent", "claude"]
runs = {"true": ["/bin/true"], "version": [bin, "version"], "hook": hook,
        "noaudit": hook + ["--audit", "off"], "answer": hook + ["--no-rewrite", "--audit", "off"]}
times = {k: [] for k in runs}
out = subprocess.run(hook, input=payload, capture_output=True, cwd=ws, env=env).stdout
assert b'"allow"' in out, out
for _ in range(rounds):
    for k, argv in runs.items():
        t0 = time.perf_counter()
        subprocess.run(argv, input=payload, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ws, env=env)
        times[k].append((time.perf_counter() - t0) * 1000)
base = statistics.median(times["true"])
for k, v in times.items():
    v.sort()
    print("%-8s median %6.2f ms  p10 %6.2f  p90 %6.2f  (%.1fx /bin/true)" % (
        k, statistics.median(v), v[len(v) // 10], v[len(v) * 9 // 10], statistics.median(v) / base))
PY
