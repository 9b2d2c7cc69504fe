package exec

import (
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/shellcfg"

	"golang.org/x/sys/windows"
)

// setProcAttr starts the command in a new process group; the tree is held
// by a Job Object (see tree).
func setProcAttr(cmd *osexec.Cmd, _ bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// rawCmdLine hands cmd.exe its command line verbatim: shellcfg.Argv
// quotes the text for cmd's /s rule, and os/exec's argv escaping would
// change it.
func rawCmdLine(cmd *osexec.Cmd, s shellcfg.ShellType) {
	if s == shellcfg.Cmd {
		cmd.SysProcAttr.CmdLine = strings.Join(cmd.Args, " ")
	}
}

// exitInfo returns the exit code; Windows has no signals.
func exitInfo(ps *os.ProcessState) (*int, string) {
	code := ps.ExitCode()
	return &code, ""
}

// outcomeExit never applies on Windows: there is no init.
func outcomeExit(o sandbox.Outcome) (*int, string) {
	code := o.Code
	return &code, ""
}

// openPTY: ConPTY is not supported yet.
func openPTY(uint16, uint16) (*os.File, *os.File, error) { return nil, nil, errNoPTY }

func feedPTY(*os.File, *string) {}

func enableSubreaper() {}

// tree is a Job Object that every process of the run belongs to
// (children inherit the job), so the whole tree ends together. The job is
// assigned right after start: a process the command spawns in that first
// instant could escape it, a gap that only CREATE_SUSPENDED would close.
type tree struct {
	mu     sync.Mutex // kill (timeout) and cleanup (exit) may race
	job    windows.Handle
	pid    int
	reaped bool
	killed atomic.Bool // never set: nothing to sweep here
}

// waitExit blocks until pid has exited; os/exec keeps its own handle for
// the exit code, so nothing is lost. Cleanup must not run before this.
func waitExit(pid int) {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return // already gone
	}
	windows.WaitForSingleObject(h, windows.INFINITE)
	windows.CloseHandle(h)
}

func newTree(string) *tree { return &tree{} }

// started puts the process in a new kill-on-close job.
// sweep does nothing: there is no init here.
func (t *tree) sweep() {}

// setGroup does nothing: there is no init on Windows.
func (t *tree) setGroup(func() int) {}

// setEnclosed does nothing: there are no PID namespaces on Windows.
func (t *tree) setEnclosed(bool) {}

func (t *tree) started(pid int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pid = pid
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err == nil {
		windows.AssignProcessToJobObject(job, h)
		windows.CloseHandle(h)
	}
	t.job = job
}

// terminate: Windows has no soft signal for a console tree; end it.
func (t *tree) terminate() { t.kill() }

// termIsLost is false: Windows has no PID namespace.
func (t *tree) termIsLost() bool { return false }

// othersAlive is true: terminate already ended the whole Job Object.
func (t *tree) othersAlive() bool { return true }

// kill terminates every process in the job.
func (t *tree) kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		windows.TerminateJobObject(t.job, 1)
	}
}

// recheck does nothing: the job object holds every process of the run,
// and cleanup ended them all.
func (t *tree) recheck() {}

// cleanup ends what is left in the job and closes it.
func (t *tree) cleanup() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		windows.TerminateJobObject(t.job, 1)
		windows.CloseHandle(t.job)
		t.job = 0
	}
}

// children is not available without /proc.
func children(int) []int { return nil }

// mergeProcAttr keeps a drop-in caller's attributes and adds a new
// process group.
func mergeProcAttr(user *syscall.SysProcAttr) *syscall.SysProcAttr {
	a := *user
	a.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
	return &a
}
