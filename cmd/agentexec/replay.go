package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/internal/surface"
)

func replayMain(ctx context.Context, c *cli, args []string) int {
	fs := newFlagSet("replay", "[flags] TRANSCRIPT.jsonl...", `Replay recorded ReAct transcripts through the gate and the sandbox and print
every tool call whose observation changed (status, exit code, signal,
decision, rule, output; durations and wording are ignored). Exit status 1 when
anything changed, 0 when nothing did. Each transcript line is a JSON object:
{"request": {...}, "expected": {...}} for a tool call ("approved": true when
the user approved it), {"thought": "..."} or {"answer": "..."} for the
model's words, which are skipped. Flags may come before or after the files.`)
	var rf runnerFlags
	rf.register(fs)
	update := fs.Bool("update", false, "record: rewrite each transcript's expected observations with the ones observed")
	files, code, ok := parseInterleaved(c, fs, args)
	if !ok {
		return code
	}
	if len(files) == 0 {
		return usageError(c, "replay", "no transcript given")
	}
	r, closer, err := rf.build(c)
	if err != nil {
		return usageError(c, "replay", "%v", err)
	}
	defer closer.Close()
	status := 0
	for _, name := range files {
		status = max(status, replayFile(ctx, c, r, name, *update))
	}
	return status
}

// replayFile replays one transcript: 0 unchanged or updated, 1 changed, 2
// unreadable or malformed.
func replayFile(ctx context.Context, c *cli, r *exec.Runner, name string, update bool) int {
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec replay: %v\n", err)
		return 2
	}
	rep, err := surface.Replay(ctx, r, f, c.stdout, surface.ReplayOptions{Name: name, Update: update})
	f.Close()
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec replay: %s: %v\n", name, err)
		return 2
	}
	if update {
		if err := os.WriteFile(name, rep.Updated, 0o644); err != nil {
			fmt.Fprintf(c.stderr, "agentexec replay: %v\n", err)
			return 2
		}
		fmt.Fprintf(c.stdout, "%s: recorded %d calls\n", name, rep.Calls)
		return 0
	}
	fmt.Fprintf(c.stdout, "%s: %d calls, %d changed\n", name, rep.Calls, rep.Changed)
	if rep.Changed > 0 {
		return 1
	}
	return 0
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, which it returns; "--" ends the flags.
func parseInterleaved(c *cli, fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	for {
		if code, ok := parseFlags(c, fs, args); !ok {
			return nil, code, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, true
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), 0, true
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}
