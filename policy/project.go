package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/jsonpos"
)

// ErrNoSettings is the error (wrapped) of a project with no settings file
// of any agent: agentexec hook, which looks in the project on its own
// accord, then decides with no rules instead.
var ErrNoSettings = errors.New("no settings found")

// layer is one candidate file of a project's settings.
type layer struct {
	path   string
	format Format
	scope  string
}

// loadProject reads a project's settings, highest precedence first:
// Claude Code's layers when the project has a .claude directory (or the
// user has Claude settings and no other agent's are found), else Qwen
// Code's, Gemini CLI's or Codex's project file over the user's.
func (b *builder) loadProject(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("--project: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("--project: %s is not a directory", dir)
	}
	layers := b.projectLayers(dir)
	found := false
	for _, l := range layers {
		b.l.Watch = append(b.l.Watch, l.path)
		if _, err := os.Stat(l.path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		found = true
		if err := b.loadFile(l.path, l.format, l.scope); err != nil {
			return err
		}
	}
	if !found {
		return fmt.Errorf("--project %s: %w (looked for .claude/settings.json, .qwen/settings.json, .gemini/settings.json, .codex/config.toml and the user's)", dir, ErrNoSettings)
	}
	if b.l.Format == Claude || b.l.Format == "" {
		b.l.LocalFile, b.l.LocalFormat = filepath.Join(dir, ".claude", "settings.local.json"), Claude
	}
	return nil
}

func (b *builder) projectLayers(dir string) []layer {
	home := func(rel string) string {
		if b.o.Home == "" {
			return ""
		}
		return filepath.Join(b.o.Home, rel)
	}
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return p != "" && err == nil
	}
	var out []layer
	add := func(p string, f Format, scope string) {
		if p != "" {
			out = append(out, layer{p, f, scope})
		}
	}
	switch {
	case exists(filepath.Join(dir, ".claude")) || (!exists(filepath.Join(dir, ".qwen")) && !exists(filepath.Join(dir, ".gemini")) && !exists(filepath.Join(dir, ".codex"))):
		if m := b.managedPath(); m != "" {
			add(m, Claude, "managed")
		}
		add(filepath.Join(dir, ".claude", "settings.local.json"), Claude, "local")
		add(filepath.Join(dir, ".claude", "settings.json"), Claude, "project")
		add(home(filepath.Join(".claude", "settings.json")), Claude, "user")
	case exists(filepath.Join(dir, ".qwen")):
		add(filepath.Join(dir, ".qwen", "settings.json"), Qwen, "project")
		add(home(filepath.Join(".qwen", "settings.json")), Qwen, "user")
	case exists(filepath.Join(dir, ".gemini")):
		add(filepath.Join(dir, ".gemini", "settings.json"), Gemini, "project")
		if pols, _ := filepath.Glob(filepath.Join(dir, ".gemini", "policies", "*.toml")); len(pols) > 0 {
			for _, p := range pols {
				add(p, GeminiPolicy, "project")
			}
		}
		add(home(filepath.Join(".gemini", "settings.json")), Gemini, "user")
	default:
		add(filepath.Join(dir, ".codex", "config.toml"), Codex, "project")
		if rules, _ := filepath.Glob(filepath.Join(dir, ".codex", "rules", "*.rules")); len(rules) > 0 {
			for _, p := range rules {
				add(p, CodexRules, "project")
			}
		}
		add(home(filepath.Join(".codex", "config.toml")), Codex, "user")
	}
	return out
}

func (b *builder) managedPath() string {
	switch b.o.Managed {
	case "-":
		return ""
	case "":
		return ManagedSettingsPath()
	}
	return b.o.Managed
}

// localFile is the schema of .agentexec/local.json: rules only.
type localFile struct {
	Schema      string           `json:"$schema"`
	Permissions gate.Permissions `json:"permissions"`
}

// loadLocal layers the workspace's .agentexec/local.json (the rules
// "always" approvals wrote) on top, read strictly as agentexec's format.
func (b *builder) loadLocal() error {
	if b.o.Workspace == "" {
		return nil
	}
	path := filepath.Join(b.o.Workspace, ".agentexec", "local.json")
	b.l.Watch = append(b.l.Watch, path)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	if err := b.local(path, data); err != nil {
		return fmt.Errorf("policy %s: %w", path, err)
	}
	b.l.Files = append(b.l.Files, File{Path: path, Format: Agentexec, Scope: "local"})
	return nil
}

func (b *builder) local(path string, data []byte) error {
	d, err := parseDoc(path, data)
	if err != nil {
		return err
	}
	if err := jsonpos.Check(d.data, d.top, reflect.TypeFor[localFile]()); err != nil {
		return err
	}
	perms := d.top.Get("permissions")
	for _, a := range []gate.Action{gate.Deny, gate.Ask, gate.Allow} {
		for _, it := range perms.Get(string(a)).ItemsOrNil() {
			r, ok, err := gate.ParseRuleAs(it.Str, a, path, gate.Exact)
			if err != nil {
				return d.errAt(it, "permissions.%s: %v", a, err)
			}
			if !ok {
				return d.errAt(it, "permissions.%s: rule %q is not a shell rule", a, it.Str)
			}
			r.Line = jsonpos.Line(d.data, it.Offset)
			b.appendRule(r, "")
		}
	}
	return nil
}
