package sandbox

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestPhases(t *testing.T) {
	if os.Getenv("PHASES") == "" {
		t.Skip()
	}
	ws := t.TempDir()
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		cmd := exec.Command("/bin/true")
		h, err := Prepare(cmd, Spec{Profile: WorkspaceWrite, Cwd: ws, TempDir: ws})
		if err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		cmd.Start()
		t2 := time.Now()
		h.Started()
		t3 := time.Now()
		cmd.Wait()
		t4 := time.Now()
		h.Close()
		t5 := time.Now()
		c := exec.Command(os.Args[0], "-test.run=XXX")
		c.Env = append(os.Environ(), "SANDBOX_TEST_HELPER=none")
		c.Run()
		t6 := time.Now()
		t.Logf("prepare %v start %v started %v wait %v close %v | bare test binary %v", t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3), t5.Sub(t4), t6.Sub(t5))
	}
}
