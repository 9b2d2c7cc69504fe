// Package surface puts an [exec.Runner] behind the protocols agents speak:
//
//   - [NewMCPServer]: a Model Context Protocol server (official Go SDK) with
//     the run_command and check_command tools;
//   - [Serve]: JSON lines over a reader and a writer, one request in, one
//     observation out, answered by id and run concurrently;
//   - [Replay]: a recorded ReAct transcript replayed through the Runner, with
//     a diff of every observation that changed.
//
// Every surface keeps the Runner's contract: a command that the gate refuses
// is an answer (an observation with status rejected or needs_approval), never
// a protocol error. Protocol errors are kept for requests that cannot be
// understood, and they name the field at fault.
//
// Sharp edges:
//   - An approval obtained through MCP elicitation covers one call: the exact
//     request the user saw, once, within [ApprovalTTL]. It is not remembered
//     as a rule.
//   - [Serve] bounds concurrency, not memory per request: each running request
//     holds at most the Runner's output cap per stream, and each line at most
//     [MaxLineBytes].
//   - [Replay] compares the fields that describe behaviour (see [Pinned]);
//     durations, run ids, reasons and sandbox details are not compared, so a
//     reworded reason does not fail a pinned transcript.
package surface
