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
	c := Command("sh", "-c", "ps -o pgid= -p $$")
	c.Runner = &Runner{Mode: gate.ModeYolo, Sandbox: "none"}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: syscall.Getpgrp()}
	out, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != strconv.Itoa(c.Process.Pid) {
		t.Fatalf("pgid %s, want its own %d", got, c.Process.Pid)
	}
}
