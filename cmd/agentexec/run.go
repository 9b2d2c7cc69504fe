package main

import (
	"context"
	"fmt"
)

func runMain(_ context.Context, c *cli, args []string) int {
	fs := newFlagSet("run", "[flags]", "not implemented yet")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	fmt.Fprintln(c.stderr, "agentexec run: not implemented yet")
	return 1
}
