// Package exec runs the commands an AI agent asks for, behind a gate.
//
// Two surfaces share one executor:
//
//   - Runner.RunCommand(ctx, Request) Observation: the run_command tool.
//     The request is validated, its shell detected, and the gate decides
//     before anything starts; only allow (or ask plus a yes from the
//     Approver, for that request only) starts a process, inside the
//     configured kernel sandbox. Every outcome, including a bad request, is
//     an Observation whose Text is what a model reads.
//   - Command / CommandContext / Cmd: a drop-in for os/exec whose Start
//     consults the same gate (argv quoted as bash text for the classifier)
//     and returns a *RejectedError when it does not allow the command.
//
// Guarantees, on Linux:
//
//   - A command the gate did not allow is never started.
//   - A timeout or cancellation ends the whole process tree: SIGTERM to the
//     process group, a grace period, then every process of the tree is
//     stopped, collected (again until nothing new appears, so nothing forks
//     away) and killed, including those that left the group with setsid or
//     a double fork. The process is a child subreaper, so such orphans are
//     reparented to it and found; each run's processes carry
//     AGENTEXEC_RUN_ID in their environment. Processes a command leaves
//     behind when it exits normally are ended the same way. No zombie, no
//     orphan, no descriptor or goroutine survives a run.
//   - What was printed before a timeout is kept. Output is kept per stream
//     as head and tail within the cap, with the omitted byte count; memory
//     is bounded however much is printed.
//   - Secret-looking environment variables are not inherited by default.
//
// Sharp edges:
//
//   - An orphan that both cleared its environment and left the process
//     group and session, after its parent exited normally, cannot be
//     attributed to its run and survives cleanup outside the sandbox; the
//     sandbox's PID namespace ends it.
//   - Outside Linux only the process group is signalled (macOS), or the
//     tree is a Job Object assigned just after start (Windows); PTYs are
//     Unix only.
//   - Any sandbox profile but none re-executes the current binary as the
//     trampoline: call sandbox.Main() first thing in main.
package exec
