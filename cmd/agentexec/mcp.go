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
is a tool result with isError and the reason. Logs go to stderr.`)
	var rf runnerFlags
	rf.register(fs)
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(c, "mcp", "unexpected argument %q", fs.Arg(0))
	}
	r, closer, err := rf.build(c)
	if err != nil {
		return usageError(c, "mcp", "%v", err)
	}
	defer closer.Close()
	go rf.watcher.Run(ctx, time.Second) // reload on edit; report a broken one even between requests
	log := slog.New(slog.NewTextHandler(c.stderr, nil))
	srv := surface.NewMCPServer(r, surface.MCPOptions{Version: version, Logger: log})
	t := &mcp.IOTransport{Reader: io.NopCloser(c.stdin), Writer: nopWriteCloser{c.stdout}}
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

// nopWriteCloser keeps the transport from closing our stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
