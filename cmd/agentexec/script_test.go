package main

import (
	"errors"
	"flag"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript re-execute this test binary as the agentexec
// command: main calls os.Exit, which testscript.Main expects.
func TestMain(m *testing.M) {
	sandbox.Main() // the sandbox trampoline re-executes this binary too
	testscript.Main(m, map[string]func(){
		"agentexec": main,
	})
}

var update = flag.Bool("update", false, "rewrite the golden output in testdata/script/*.txtar")

// TestScript runs every testdata/script/*.txtar. Each subcommand's owner
// adds files named after the subcommand (run_*.txtar, check_*.txtar, ...).
//
// Besides the standard testscript commands, scripts can use
//
//	exits N prog [args...]
//
// which runs prog like exec and fails unless it exits with status N, so a
// script can tell a usage error (2) from a refusal or failure (1).
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"exits": cmdExits},
		Setup: func(e *testscript.Env) error {
			// Under -race every agentexec a script starts would sleep a
			// second at exit waiting for late race reports.
			e.Setenv("GORACE", "atexit_sleep_ms=0")
			return nil
		},
	})
}

// cmdExits implements "exits N prog [args...]".
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: status %q is not a number", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}
