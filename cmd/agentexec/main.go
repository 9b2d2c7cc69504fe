// Command agentexec gates and runs the commands an AI agent asks for.
//
// This file is flag parsing and wiring only: every subcommand lives in its
// own file and calls into the library packages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/warm"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// cli is what a subcommand gets from the process: its streams and
// environment, passed explicitly so tests can run subcommands in-process.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

type subcommand struct {
	name, summary string
	run           func(ctx context.Context, c *cli, args []string) int
}

func subcommands() []subcommand {
	return []subcommand{
		{"run", "gate a command and run it in the sandbox", runMain},
		{"check", "print the gate's decision for a command without running it", checkMain},
		{"mcp", "serve run_command and check_command over MCP (stdio)", mcpMain},
		{"serve", "answer JSON-lines requests over stdio", serveMain},
		{"policy", "show the effective policy, or check that it applies in full", policyMain},
		{"replay", "replay a recorded ReAct transcript and diff the observations", replayMain},
		{"audit", "verify, tail or replay the decision log", auditMain},
		{"hook", "answer a coding agent's pre-tool hook (claude, codex, gemini, qwen, crush)", hookMain},
		{"sandbox", "show what this host's kernel can enforce (sandbox detect)", sandboxMain},
		{"version", "print the version", versionMain},
	}
}

func main() {
	sandbox.Main() // the trampoline never returns here
	ctx, stop := context.Background(), context.CancelFunc(func() {})
	if needsSignals(os.Args[1:]) {
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	}
	c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	code := dispatch(ctx, c, os.Args[1:])
	stop()
	sandbox.Release() // the standby launcher a server readied, with its temp dir
	os.Exit(code)
}

// needsSignals reports whether the subcommand in args can be interrupted
// mid-work: all but printing the version or usage, which return at once.
// Catching signals starts a thread and a goroutine, a measurable part of
// `agentexec version`.
func needsSignals(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "version", "-version", "--version", "-h", "-help", "--help", "help":
		return false
	}
	return true
}

func dispatch(ctx context.Context, c *cli, args []string) int {
	if len(args) == 0 {
		usage(c.stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(c.stdout)
		return 0
	case "-version", "--version":
		return versionMain(ctx, c, nil)
	}
	for _, s := range subcommands() {
		if s.name == args[0] {
			if warm.Decides(s.name) {
				// Started at package initialization already when this
				// is the process's own subcommand (internal/warm); a
				// second call waits for that build, or makes it for a
				// caller of dispatch (the tests).
				go programs.Warm()
			}
			return s.run(ctx, c, args[1:])
		}
	}
	fmt.Fprintf(c.stderr, "agentexec: unknown command %q (run 'agentexec help')\n", args[0])
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, `agentexec gates and runs the commands an AI agent asks for.

Usage:
  agentexec <command> [flags] [arguments]

Commands:
`)
	for _, s := range subcommands() {
		fmt.Fprintf(w, "  %-8s %s\n", s.name, s.summary)
	}
	fmt.Fprint(w, `
Run 'agentexec <command> --help' for a command's flags.
`)
}

func versionMain(_ context.Context, c *cli, args []string) int {
	fs := newFlagSet("version", "", "print the version")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	fmt.Fprintf(c.stdout, "agentexec %s\n", version)
	return 0
}

// newFlagSet makes a flag set whose usage prints the given synopsis and
// description followed by the flags.
func newFlagSet(name, synopsis, desc string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: agentexec %s %s\n\n%s\n", name, synopsis, desc)
		var flags strings.Builder
		fs.SetOutput(&flags)
		fs.PrintDefaults()
		fs.SetOutput(w)
		if flags.Len() > 0 {
			fmt.Fprintf(w, "\nFlags:\n%s", flags.String())
		}
	}
	return fs
}

// parseFlags parses args; on --help it prints usage to stdout (exit 0), on a
// bad flag a one-line error to stderr (exit 2). ok is false when the caller
// must return code.
func parseFlags(c *cli, fs *flag.FlagSet, args []string) (code int, ok bool) {
	err := fs.Parse(joinNetworkValue(fs, args))
	if err == nil {
		return 0, true
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(c.stdout)
		fs.Usage()
		return 0, false
	}
	fmt.Fprintf(c.stderr, "agentexec %s: %v\n", fs.Name(), err)
	return 2, false
}

// usageError prints a one-line error for a command and returns exit code 2.
func usageError(c *cli, cmd, format string, a ...any) int {
	fmt.Fprintf(c.stderr, "agentexec %s: %s\n", cmd, fmt.Sprintf(format, a...))
	return 2
}
