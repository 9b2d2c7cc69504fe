package main

import (
	"context"
	"fmt"
)

func sandboxMain(_ context.Context, c *cli, args []string) int {
	fs := newFlagSet("sandbox", "[flags]", "not implemented yet")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	fmt.Fprintln(c.stderr, "agentexec sandbox: not implemented yet")
	return 1
}
