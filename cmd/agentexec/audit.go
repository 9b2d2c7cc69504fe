package main

import (
	"context"
	"fmt"
)

func auditMain(_ context.Context, c *cli, args []string) int {
	fs := newFlagSet("audit", "[flags]", "not implemented yet")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	fmt.Fprintln(c.stderr, "agentexec audit: not implemented yet")
	return 1
}
