package hook

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/policy"
	"github.com/agentexec/agentexec/shellcfg"
	"github.com/google/jsonschema-go/jsonschema"
)

var update = flag.Bool("update", false, "rewrite testdata/hooks/*/cases/*.out")

const testdata = "../../testdata/hooks"

// fakeRewriter rewrites as TicketRewriter does, with a fixed token and no
// ticket file, so the golden answers are stable.
type fakeRewriter struct{}

func (fakeRewriter) Rewrite(c Call, d gate.Decision, verdict Action) (string, error) {
	return shellcfg.Quote(shellcfg.Bash, []string{"/usr/local/bin/agentexec", "run", FromHookFlag, "TOKEN", "--shell", "bash", "--mode", string(d.Mode), "--cwd", c.Dir, "-c", c.Command})
}

// project is the working directory the recorded payloads name; the test
// puts a real directory in its place (the gate reads the directory's git
// configuration) and records answers with the placeholder again.
const project = "/home/user/project"

func goldenConfig(t *testing.T, ws string) Config {
	t.Helper()
	// The settings sit in the project, as an agent's do: file rules are
	// relative to the project root.
	b, err := os.ReadFile(filepath.Join(testdata, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(ws, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := policy.Load(policy.Options{Path: settings, Managed: "-"})
	if err != nil {
		t.Fatal(err)
	}
	pol := l.Policy
	home := t.TempDir() // an empty home: no global git configuration
	return Config{Policy: pol, Home: "/home/user", Env: []string{"HOME=" + home}, Workspace: ws, Rewrite: fakeRewriter{}}
}

// golden is a recorded answer. Reasons (every string that starts with
// "agentexec: ") are recorded as "<reason>": the gate's wording is the
// gate's to change, the answer's shape is pinned here.
type golden struct {
	Exit   int             `json:"exit"`
	Stdout json.RawMessage `json:"stdout"`
	Stderr string          `json:"stderr,omitempty"`
}

// TestGolden feeds every recorded payload under testdata/hooks/<agent>/cases
// to that agent's hook, compares the answer with the recorded one, and
// checks every JSON answer against the agent's documented output schema.
func TestGolden(t *testing.T) {
	ws := t.TempDir()
	cfg := goldenConfig(t, ws)
	for _, name := range Names() {
		a, _ := Lookup(name)
		schema := loadSchema(t, filepath.Join(testdata, name, "output.schema.json"))
		ins, _ := filepath.Glob(filepath.Join(testdata, name, "cases", "*.in"))
		if len(ins) < 10 {
			t.Fatalf("%s: only %d recorded payloads", name, len(ins))
		}
		for _, in := range ins {
			t.Run(name+"/"+strings.TrimSuffix(filepath.Base(in), ".in"), func(t *testing.T) {
				data, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				data = bytes.ReplaceAll(data, []byte(project), []byte(ws))
				ans := Judge(a, data, func(Call) (Config, error) { return cfg, nil }, nil)
				ans.Stdout = bytes.ReplaceAll(ans.Stdout, []byte(ws), []byte(project))
				ans.Stderr = strings.ReplaceAll(ans.Stderr, ws, project)
				got := recordAnswer(t, ans)
				if len(ans.Stdout) > 0 {
					var v any
					if err := json.Unmarshal(ans.Stdout, &v); err != nil {
						t.Fatalf("stdout is not JSON: %q", ans.Stdout)
					}
					if err := schema.Validate(v); err != nil {
						t.Errorf("answer does not fit %s's documented schema: %v\n%s", name, err, ans.Stdout)
					}
				}
				checkGolden(t, strings.TrimSuffix(in, ".in")+".out", got)
			})
		}
	}
}

func loadSchema(t *testing.T, path string) *jsonschema.Resolved {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rs
}

func recordAnswer(t *testing.T, ans Answer) []byte {
	t.Helper()
	g := golden{Exit: ans.Exit, Stderr: ans.Stderr, Stdout: json.RawMessage("null")}
	if len(ans.Stdout) > 0 {
		var v any
		if err := json.Unmarshal(ans.Stdout, &v); err != nil {
			t.Fatalf("stdout is not JSON: %q", ans.Stdout)
		}
		b, err := marshalNoEscape(normalizeReasons(v))
		if err != nil {
			t.Fatal(err)
		}
		g.Stdout = b
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func normalizeReasons(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeReasons(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeReasons(e)
		}
	case string:
		if strings.HasPrefix(x, "agentexec: ") {
			return "<reason>"
		}
	}
	return v
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGolden -update to record it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("answer changed (-update records it):\n--- want\n%s\n--- got\n%s", want, got)
	}
}
