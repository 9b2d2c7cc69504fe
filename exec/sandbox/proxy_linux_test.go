package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runProxied runs script under the proxy mode and serves its listener:
// every connection gets "via-proxy\n".
func runProxied(t *testing.T, spec Spec, script string) (string, Report, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", script)
	cmd.Dir = spec.Cwd
	cmd.Env = append(os.Environ(), "NO_PROXY=localhost")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	h, err := Prepare(cmd, spec)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer h.Close()
	if err := h.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	l, err := h.ProxyListener()
	if err != nil {
		cmd.Wait()
		t.Fatalf("ProxyListener: %v (output %q)", err, out.String())
	}
	defer l.Close()
	if _, err := h.ProxyListener(); err == nil {
		t.Error("a second ProxyListener succeeded")
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Fprintln(c, "via-proxy")
			c.Close()
		}
	}()
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return out.String(), h.Report(), code
}

// TestProxyMode: the command's only route is the listener it was given.
func TestProxyMode(t *testing.T) {
	requireSandbox(t)
	if !Detect().NetNS {
		t.Skip("no network namespaces here: the proxy mode is refused (TestProxyNeedsNetNS)")
	}
	port, connected := listen(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		script := fmt.Sprintf(`
exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3
echo "env: $HTTP_PROXY $https_proxy $ALL_PROXY no_proxy=[$NO_PROXY]"
(exec 4<>/dev/tcp/127.0.0.1/%d) 2>/dev/null && echo HOST-REACHED
(exec 4<>/dev/tcp/127.0.0.1/22) 2>/dev/null && echo OTHER-PORT-REACHED
(exec 4<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo INTERNET-REACHED
getent hosts example.com && echo RESOLVED
tail -n +3 /proc/self/net/dev | cut -d: -f1 | tr -d ' '
python3 -c 'import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)' 2>&1 | tail -1
python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)' 2>&1 | tail -1
echo "disabled=[$AGENTEXEC_SANDBOX_NETWORK_DISABLED]"
`, ProxyPort, port)
		out, rep, code := runProxied(t, Spec{Profile: WorkspaceWrite, Cwd: ws, Proxy: true}, script)
		if code != 0 || rep.Network != "proxy" {
			t.Fatalf("exit %d, network %q: %s", code, rep.Network, out)
		}
		for _, want := range []string{"via-proxy", "env: http://127.0.0.1:3128 http://127.0.0.1:3128 socks5h://127.0.0.1:3128 no_proxy=[]", "\nlo\n", "disabled=[]"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		for _, bad := range []string{"HOST-REACHED", "OTHER-PORT-REACHED", "INTERNET-REACHED", "RESOLVED", "eth", "Traceback"} {
			if strings.Contains(out, bad) && bad != "Traceback" {
				t.Errorf("output has %q:\n%s", bad, out)
			}
		}
		if strings.Count(out, "PermissionError") != 2 {
			t.Errorf("vsock and netlink sockets: want EPERM for both:\n%s", out)
		}
		if connected() {
			t.Error("the host's listener got a connection from the sandbox")
		}
		if !strings.Contains(strings.Join(rep.Layers, ","), "egress-proxy") {
			t.Errorf("layers %v lack egress-proxy", rep.Layers)
		}
	})
}

// Standby launchers of proxy runs hand each run its own listener.
func TestProxyStandby(t *testing.T) {
	requireSandbox(t)
	c := Detect()
	if !c.ThreadLaunch || !c.NetNS {
		t.Skip("needs the thread launcher and network namespaces")
	}
	withCaps(t, c)
	setStandbys(t, true)
	ws, _ := workspace(t)
	for i := range 4 {
		out, _, code := runProxied(t, Spec{Profile: WorkspaceWrite, Cwd: ws, Proxy: true}, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3`, ProxyPort))
		if code != 0 || !strings.Contains(out, "via-proxy") {
			t.Fatalf("run %d: exit %d: %s", i, code, out)
		}
	}
}

func TestProxyNeedsNetNS(t *testing.T) {
	c := Detect()
	c.NetNS = false
	_, err := makePlan(Spec{Profile: WorkspaceWrite, Proxy: true}, c)
	if err == nil || !strings.Contains(err.Error(), "network namespace") {
		t.Errorf("proxy without netns: %v", err)
	}
	if _, err := makePlan(Spec{Profile: WorkspaceWrite, Proxy: true, Network: true}, Detect()); err == nil {
		t.Error("Proxy with Network: no error")
	}
}

// TestProxyNonRoot runs TestProxyAsNobody as nobody: the trampoline in a
// user namespace, which brings lo up with an ambient CAP_NET_ADMIN.
func TestProxyNonRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a test process as nobody")
	}
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "sandbox.test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	os.Chown(ws, nobody, nobody)
	cmd := exec.Command(bin, "-test.run=^TestProxyAsNobody$", "-test.v")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_NOBODY_WS="+ws, "HOME=/nonexistent")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	if strings.Contains(string(out), "--- SKIP") {
		t.Skipf("skipped as nobody:\n%s", out)
	}
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

func TestProxyAsNobody(t *testing.T) {
	ws := os.Getenv("SANDBOX_TEST_NOBODY_WS")
	if ws == "" {
		t.Skip("run by TestProxyNonRoot")
	}
	if c := Detect(); c.Root || !c.UserNS || !c.NetNS {
		t.Skipf("no user and network namespaces for uid %d: %v", os.Getuid(), c.Problems)
	}
	out, rep, code := runProxied(t, Spec{Profile: WorkspaceWrite, Cwd: ws, Proxy: true},
		fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3; grep CapEff /proc/self/status`, ProxyPort))
	if code != 0 || !strings.Contains(out, "via-proxy") || !strings.Contains(out, "CapEff:\t0000000000000000") || !containsLayer(rep, "userns") {
		t.Errorf("exit %d, report %+v: %s", code, rep, out)
	}
}
