package main

import (
	"context"
	"fmt"
	"time"

	"github.com/agentexec/agentexec/internal/surface"
)

func serveMain(ctx context.Context, c *cli, args []string) int {
	fs := newFlagSet("serve", "[flags]", `Answer JSON-lines requests on stdin, one per line: {"id": ..., "request": {...}}
where request is a run_command request ("command" or "argv", "cwd", "timeout",
"shell", "pty", "stdin", "env"). Each answer is one line on stdout,
{"id": ..., "observation": {...}}, in the order the requests finish. A line
that cannot be understood (not JSON, not valid UTF-8, over --max-line-bytes)
answers {"id": ..., "error": "..."} and nothing of it runs; the stream goes
on. Blank lines are skipped. At the end of input, or on SIGTERM or SIGINT,
running requests get --grace to finish, then they are cancelled; no child
outlives serve.`)
	var rf runnerFlags
	rf.register(fs)
	parallel := fs.Int("parallel", surface.DefaultParallel, "run at most `N` requests at once")
	grace := surface.DefaultGrace
	fs.Var(durationFlag{&grace}, "grace", "at the end of input or on a signal, let running requests go on this `DURATION` before cancelling them (default 30s)")
	maxLine := fs.Int("max-line-bytes", surface.MaxLineBytes, "answer a line longer than `BYTES` with an error instead of reading it")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(c, "serve", "unexpected argument %q", fs.Arg(0))
	}
	if *parallel < 1 {
		return usageError(c, "serve", "--parallel: %d is not a positive number", *parallel)
	}
	if grace <= 0 {
		return usageError(c, "serve", "--grace: %v is not a positive duration", grace)
	}
	if *maxLine < 1 {
		return usageError(c, "serve", "--max-line-bytes: %d is not a positive number", *maxLine)
	}
	r, closer, err := rf.build(c)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec serve: %v\n", err)
		return buildExit(err)
	}
	defer closer.Close()
	go rf.watcher.Run(ctx, time.Second) // reload on edit; report a broken one even between requests
	opts := surface.ServeOptions{Parallel: *parallel, Grace: grace, MaxLineBytes: *maxLine}
	if err := surface.Serve(ctx, r, c.stdin, c.stdout, opts); err != nil {
		fmt.Fprintf(c.stderr, "agentexec serve: %v\n", err)
		return 1
	}
	return 0
}
