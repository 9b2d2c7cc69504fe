package shellcfg

import (
	"os/exec"
	"strings"
	"testing"
)

// fakeEnv builds a DetectEnv from a map of variables and the set of
// programs on PATH.
func fakeEnv(goos, configured string, vars map[string]string, path ...string) DetectEnv {
	return DetectEnv{
		GOOS:       goos,
		Configured: configured,
		Getenv:     func(k string) string { return vars[k] },
		LookPath: func(name string) (string, error) {
			for _, p := range path {
				if p == name {
					return "/usr/bin/" + name, nil
				}
			}
			return "", exec.ErrNotFound
		},
	}
}

func TestDetect(t *testing.T) {
	shellVar := map[string]string{EnvShell: "sh"}
	tests := []struct {
		name     string
		explicit string
		env      DetectEnv
		want     ShellType
	}{
		{"explicit wins over all", "pwsh", fakeEnv("linux", "bash", shellVar, "bash"), PowerShell},
		{"explicit cmd on linux", "CMD.EXE", fakeEnv("linux", "", nil, "bash"), Cmd},
		{"configured wins over env", "", fakeEnv("linux", "/bin/dash", shellVar, "bash"), Sh},
		{"env wins over host", "", fakeEnv("linux", "", shellVar, "bash"), Sh},
		{"env on windows", "", fakeEnv("windows", "", map[string]string{EnvShell: "bash"}), Bash},
		{"unix with bash", "", fakeEnv("linux", "", nil, "bash"), Bash},
		{"unix without bash", "", fakeEnv("darwin", "", nil, "sh"), Sh},
		{"unix, nothing on PATH", "", fakeEnv("freebsd", "", nil), Sh},
		{"unix, nil LookPath", "", DetectEnv{GOOS: "linux"}, Sh},
		{"windows default", "", fakeEnv("windows", "", map[string]string{"ComSpec": `C:\Windows\system32\cmd.exe`}), Cmd},
		{"windows, no ComSpec", "", fakeEnv("windows", "", nil), Cmd},
		{"windows, nil Getenv", "", DetectEnv{GOOS: "windows"}, Cmd},
		{"windows, ComSpec powershell", "", fakeEnv("windows", "", map[string]string{"ComSpec": `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`}), PowerShell},
		{"windows, ComSpec pwsh", "", fakeEnv("windows", "", map[string]string{"ComSpec": `C:\Program Files\PowerShell\7\pwsh.exe`}), PowerShell},
		{"windows, ComSpec bash is not trusted", "", fakeEnv("windows", "", map[string]string{"ComSpec": `C:\msys\bash.exe`}, "bash"), Cmd},
		{"windows, ComSpec garbage", "", fakeEnv("windows", "", map[string]string{"ComSpec": "???"}), Cmd},
		{"windows ignores bash on PATH", "", fakeEnv("windows", "", nil, "bash"), Cmd},
	}
	for _, tt := range tests {
		got, err := Detect(tt.explicit, tt.env)
		if err != nil || got != tt.want {
			t.Errorf("%s: Detect = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestDetectErrors(t *testing.T) {
	tests := []struct {
		name, explicit string
		env            DetectEnv
		source         string
	}{
		{"bad explicit", "zsh", fakeEnv("linux", "bash", nil, "bash"), "request shell"},
		{"bad configured", "", fakeEnv("linux", "fish", nil, "bash"), "configured shell"},
		{"bad env", "", fakeEnv("windows", "", map[string]string{EnvShell: "tcsh"}), EnvShell},
		{"bad explicit beats good configured", "ksh", fakeEnv("linux", "bash", nil), "request shell"},
	}
	for _, tt := range tests {
		got, err := Detect(tt.explicit, tt.env)
		if err == nil {
			t.Errorf("%s: Detect = %q, want an error", tt.name, got)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.source+": ") {
			t.Errorf("%s: error %q does not start with its source %q", tt.name, err, tt.source)
		}
	}
}

func TestDetectHost(t *testing.T) {
	env := HostEnv()
	if env.Getenv == nil || env.LookPath == nil || env.GOOS == "" {
		t.Fatalf("HostEnv() = %+v, want every field set", env)
	}
	env.Getenv = func(string) string { return "" }
	s, err := Detect("", env)
	if err != nil {
		t.Fatal(err)
	}
	_, lookErr := exec.LookPath("bash")
	if env.GOOS != "windows" && (s == Bash) != (lookErr == nil) {
		t.Errorf("Detect on this host = %q, but LookPath(bash) = %v", s, lookErr)
	}
}

func TestParseShell(t *testing.T) {
	for name, want := range map[string]ShellType{
		"bash": Bash, "/usr/bin/bash": Bash, "sh": Sh, "dash": Sh, "cmd": Cmd,
		`C:\Windows\System32\CMD.EXE`: Cmd, "powershell.exe": PowerShell, "pwsh": PowerShell,
	} {
		if got, err := ParseShell(name); err != nil || got != want {
			t.Errorf("ParseShell(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"", "zsh", "bash -l", "/bin/"} {
		if got, err := ParseShell(name); err == nil {
			t.Errorf("ParseShell(%q) = %q, want an error", name, got)
		}
	}
	if !Bash.IsPOSIX() || !Sh.IsPOSIX() || Cmd.IsPOSIX() || PowerShell.IsPOSIX() {
		t.Error("IsPOSIX is wrong")
	}
}
