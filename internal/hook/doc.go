// Package hook makes agentexec the pre-tool hook of the coding agents people
// already run: Claude Code, Codex CLI, Gemini CLI, Qwen Code and Crush.
//
// Each agent calls its hook with one tool call as JSON on stdin and reads an
// answer (allow, deny, ask, a rewritten tool input) in its own format and
// exit-code convention. This package turns a payload into an agent-neutral
// [Call] (one file per agent format: claude.go, codex.go, gemini.go,
// qwen.go, crush.go), judges it with [Decide] — the same gate.Decide as
// every other surface for shell commands, the file rules and the workspace
// boundary for file tools — and renders the [Verdict] back with the agent's
// [Agent.Answer].
//
// Guarantees:
//   - Fail closed. A payload that is not JSON, a shell tool whose input has
//     an unknown shape, or an internal error is answered with [FailClosed]:
//     exit status 2 and the reason on stderr, which every one of the five
//     agents documents as "block this tool call". Never allow.
//   - A shell command the gate allows is, where the agent lets a hook
//     rewrite the tool input, rewritten to run through `agentexec run`
//     (the sandbox, the run-time exec gate, the audit log). The rewritten
//     text, parsed by bash, runs exactly `agentexec run FLAGS -c ORIGINAL`:
//     every word is quoted with shellcfg.Quote.
//   - The `--from-hook` handshake is a [Ticket]: a random name the hook
//     writes into a private directory, bound to the exact command text,
//     working directory, policy, mode and sandbox of the rewrite, valid for
//     [TicketTTL] and consumed by the first run that redeems it. A run whose
//     ticket is missing, expired, already used or bound to something else
//     is refused; a valid ticket never loosens the gate beyond approving the
//     ask the agent already put to the person (deny rules, the blacklist and
//     the sandbox still apply to the run).
//
// Sharp edges:
//   - An agent that cannot ask (Codex) gets a deny where agentexec would ask;
//     Crush has no ask either, and gets "no decision", which sends the call
//     to Crush's own permission prompt (under `crush --yolo` nothing asks).
//   - Without a rewrite (--no-rewrite, or an agent that cannot rewrite) the
//     agent runs the command itself: no sandbox and no exec gate watch it,
//     so the gate decides with Input.ExecGate false.
//   - A rewritten command runs in its own bash: a `cd` or `export` in it no
//     longer changes the agent's shell for the next command.
package hook
