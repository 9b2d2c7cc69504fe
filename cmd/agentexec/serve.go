package main

import (
	"context"
	"fmt"
)

func serveMain(_ context.Context, c *cli, args []string) int {
	fs := newFlagSet("serve", "[flags]", "not implemented yet")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	fmt.Fprintln(c.stderr, "agentexec serve: not implemented yet")
	return 1
}
