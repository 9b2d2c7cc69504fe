package exec

import (
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentexec/agentexec/gate"
)

func TestDropInSysProcAttr(t *testing.T) {
	// A caller's attributes are kept, but the command never joins our
	// group: ending its tree must not signal us.
	// (Under the exec gate the process started is agentexec-init, and the
	// command, its child, has a group of its own.)
	c := Command("sh", "-c", "echo $$ $(ps -o pgid= -p $$)")
	c.Runner = &Runner{Mode: gate.ModeYolo, Sandbox: "none"}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: syscall.Getpgrp()}
	out, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || f[0] != f[1] || f[1] == strconv.Itoa(syscall.Getpgrp()) {
		t.Fatalf("pid and pgid %q, want a group of its own, not ours (%d)", f, syscall.Getpgrp())
	}
}
