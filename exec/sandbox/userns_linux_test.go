package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const nobody = 65534

// TestNonRoot runs TestAsNobody in a copy of this test binary as uid
// nobody, so that Prepare takes the user-namespace path.
func TestNonRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a test process as nobody")
	}
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755) // t.TempDir makes both levels 0700
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "sandbox.test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.Chown(ws, nobody, nobody)
	os.Chown(filepath.Join(ws, ".git"), nobody, nobody)
	cmd := exec.Command(bin, "-test.run=^TestAsNobody$", "-test.v")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_NOBODY_WS="+ws, "HOME=/nonexistent")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	if strings.Contains(string(out), "--- SKIP") {
		t.Skip("skipped as nobody (see log)")
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestAsNobody only runs inside TestNonRoot.
func TestAsNobody(t *testing.T) {
	ws := os.Getenv("SANDBOX_TEST_NOBODY_WS")
	if ws == "" {
		t.Skip("run by TestNonRoot")
	}
	c := Detect()
	if c.Root || !c.UserNS {
		t.Skipf("no user namespace for uid %d: %v", os.Getuid(), c.Problems)
	}
	spec := Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}
	r := sh(t, spec, `echo x > inside && cat /proc/self/status | grep -E "^(NoNewPrivs|CapEff|CapBnd|Uid)"`)
	if r.err != nil || !strings.Contains(r.out, "NoNewPrivs:\t1") || !strings.Contains(r.out, "CapEff:\t0000000000000000") {
		t.Errorf("workspace write as nobody: %v: %s", r.err, r.out)
	}
	if !containsLayer(r.report, "userns") {
		t.Errorf("report lacks userns: %+v", r.report)
	}
	checkPTY(t, spec)
	for _, script := range []string{`echo x > /tmp/agentexec-nobody-probe`, `echo x > .git/x`, `touch -d 2000-01-01 /tmp`} {
		if r := sh(t, spec, script); r.err == nil || !denied(r.out) {
			t.Errorf("%s: want a denial, got %v: %s", script, r.err, r.out)
		}
	}
}

func containsLayer(r Report, layer string) bool {
	for _, l := range r.Layers {
		if l == layer {
			return true
		}
	}
	return false
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
