package main

import (
	"bufio"
	"bytes"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"testing"
)

// initBudget is the most a package of this module may allocate while it is
// initialized. Every process pays for the initialization of every linked
// package before main runs, whatever the subcommand: `agentexec version`,
// and an `agentexec hook` process per tool call an agent makes. A
// package-level map literal, regexp.MustCompile or table built by a call
// shows up here; declare it with internal/lazy or internal/lazyre, which
// the compiler lays out as static data, so that it is built on first use.
const initBudget = 2 << 10

// TestNothingBuiltAtInit runs this test binary, which links the same
// packages as agentexec, with GODEBUG=inittrace=1 and reads what each of
// the module's packages allocated at initialization (allocation bytes, not
// time: the figure is the same on every run).
func TestNothingBuiltAtInit(t *testing.T) {
	cmd := osexec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/agentexec/agentexec/") {
			continue
		}
		seen++
		b, err := strconv.Atoi(f[7])
		if err != nil || f[8] != "bytes," {
			t.Fatalf("unreadable inittrace line %q", sc.Text())
		}
		if b > initBudget {
			t.Errorf("%s allocates %d bytes at init (budget %d): a table is built at start-up", f[1], b, initBudget)
		}
	}
	if seen < 5 {
		t.Fatalf("inittrace reported %d of the module's packages, want the gate, audit, exec, policy…:\n%s", seen, out)
	}
}
