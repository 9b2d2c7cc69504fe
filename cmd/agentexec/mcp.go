package main

import (
	"context"
	"fmt"
)

func mcpMain(_ context.Context, c *cli, args []string) int {
	fs := newFlagSet("mcp", "[flags]", "not implemented yet")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	fmt.Fprintln(c.stderr, "agentexec mcp: not implemented yet")
	return 1
}
