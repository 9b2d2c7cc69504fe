package sandbox

import (
	"testing"
)

func TestSmoke(t *testing.T) {
	requireSandbox(t)
	ws, _ := workspace(t)
	r := sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}, `echo hi > x && cat x; echo $TMPDIR; cat /proc/self/status | grep -E "NoNewPrivs|Cap|Seccomp"; echo $$; echo no > /etc/foo; echo no > .git/config`)
	t.Logf("%+v\n%s", r.report, r.out)
}
