package procfs

import (
	"os"
	"runtime"
	"testing"
)

func TestReadStat(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/stat is Linux's")
	}
	st, ok := ReadStat(os.Getpid())
	if !ok || st.PPid != os.Getppid() || st.State == 0 || st.EnvStart == 0 {
		t.Fatalf("%+v, ok %v", st, ok)
	}
	if _, ok := ReadStat(1 << 30); ok {
		t.Fatal("a pid that cannot exist was read")
	}
}
