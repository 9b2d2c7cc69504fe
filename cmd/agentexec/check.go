package main

import (
	"context"
	"fmt"
)

func checkMain(_ context.Context, c *cli, args []string) int {
	fs := newFlagSet("check", "[flags]", "not implemented yet")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	fmt.Fprintln(c.stderr, "agentexec check: not implemented yet")
	return 1
}
