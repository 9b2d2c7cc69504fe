package main

import (
	"context"
	"fmt"
)

func replayMain(_ context.Context, c *cli, args []string) int {
	fs := newFlagSet("replay", "[flags]", "not implemented yet")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	fmt.Fprintln(c.stderr, "agentexec replay: not implemented yet")
	return 1
}
