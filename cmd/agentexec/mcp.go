package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentexec/agentexec/internal/surface"
)

func mcpMain(ctx context.Context, c *cli, args []string) int {
	fs := newFlagSet("mcp", "[flags]", `Serve the run_command and check_command tools over MCP on stdin and stdout,
for Claude Desktop, Claude Code, Cursor or any MCP client. A refused command
is a tool result with isError and the reason. Logs go to stderr.

A message longer than --max-line-bytes, one that is not valid UTF-8 JSON or
not JSON-RPC is answered with a JSON-RPC error under its id (null when it
cannot be read) and the session goes on. When the server cannot be built
(a malformed --policy, an audit log that cannot be opened) every request is
answered with an error naming the cause, so the client can show it; the
exit status is then 2 for a usage error, 125 otherwise.`)
	var rf runnerFlags
	rf.register(fs)
	maxLine := fs.Int("max-line-bytes", surface.MaxLineBytes, "answer a message longer than `BYTES` with an error instead of reading it")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(c, "mcp", "unexpected argument %q", fs.Arg(0))
	}
	if *maxLine < 1 {
		return usageError(c, "mcp", "--max-line-bytes: %d is not a positive number", *maxLine)
	}
	r, closer, err := rf.build(c)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec mcp: %v\n", err)
		if serr := surface.ServeMCPError(c.stdin, c.stdout, err); serr != nil {
			fmt.Fprintf(c.stderr, "agentexec mcp: %v\n", serr)
		}
		return buildExit(err)
	}
	defer closer.Close()
	go rf.watcher.Run(ctx, time.Second) // reload on edit; report a broken one even between requests
	log := slog.New(slog.NewTextHandler(c.stderr, nil))
	srv := surface.NewMCPServer(r, surface.MCPOptions{Version: version, Logger: log, Approvals: rf.approvals(), NoAsk: rf.loaded.DontAsk})
	t := &surface.Transport{In: c.stdin, Out: c.stdout, MaxLineBytes: *maxLine, Logger: log}
	if err := srv.Run(ctx, t); err != nil && !endOfSession(err) {
		fmt.Fprintf(c.stderr, "agentexec mcp: %v\n", err)
		return 1
	}
	return 0
}

// endOfSession reports whether err is how a session ends normally: the
// client closed stdin, or a signal asked us to stop.
func endOfSession(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed)
}
