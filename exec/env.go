package exec

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/lazy"
)

// RunIDEnv is the variable every started command carries, set to its run
// id: it is how the executor recognises the orphans of a run (processes that
// left its process group) so it can end them too.
const RunIDEnv = "AGENTEXEC_RUN_ID"

// DefaultEnvExclude is the exclusion list used when the policy gives none:
// names that look like credentials. Matching is path.Match on the upper-cased
// name.
var DefaultEnvExclude = []string{
	"*_TOKEN", "*_TOKEN_*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*_KEY", "*_API_KEY*",
	"*_PAT", "*CREDENTIAL*", "*_AUTH", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
	"AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AGENTEXEC_AUDIT_KEY*",
}

// coreEnv are the names kept under inherit "core": enough for programs to
// find their tools, home, locale and temp directory.
var coreEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_*", "TZ", "TMPDIR", "TERM",
	"SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR", "TEMP", "TMP", "USERPROFILE",
	"APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES",
}

// defaultSet keeps agents out of pagers and credential prompts. A policy's
// env.set or the request's env overrides them.
var defaultSet = &lazy.Value[map[string]string]{Build: func() map[string]string {
	return map[string]string{"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
}}

// buildEnv applies the env policy to base (KEY=VALUE entries): inherit
// all/core/none, drop excluded names, then set the defaults, the policy's
// set, the request's additions, TERM under a PTY and the run id, in that
// order (later wins). The result is sorted for reproducibility.
func buildEnv(base []string, pol gate.EnvPolicy, add map[string]string, pty bool, runID string) ([]string, error) {
	if err := checkEnvPolicy(pol); err != nil {
		return nil, err
	}
	exclude := pol.Exclude
	if exclude == nil {
		exclude = DefaultEnvExclude
	}
	m := inheritedEnv(base, pol.Inherit, exclude)
	for _, set := range []map[string]string{defaultSet.Get(), pol.Set, add} {
		for k, v := range set {
			m[k] = v
		}
	}
	if pty {
		m["TERM"] = "xterm-256color"
	}
	m[RunIDEnv] = runID
	env := make([]string, 0, len(m))
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env, nil
}

// inheritedEnv is the variables of base that mode and exclude let
// through, as a map the caller owns. A server starts every request with
// the same environment and policy, so the last answer is kept and reused
// for inputs equal to its own (compared whole: about 1 µs, where matching
// every variable against every pattern cost 40 µs a request here).
func inheritedEnv(base []string, mode string, exclude []string) map[string]string {
	if f := lastInherited.Load(); f != nil && f.mode == mode && slices.Equal(f.base, base) && slices.Equal(f.exclude, exclude) {
		return maps.Clone(f.kept)
	}
	kept := filterEnv(base, mode, exclude)
	lastInherited.Store(&inheritedSet{base: slices.Clone(base), mode: mode, exclude: slices.Clone(exclude), kept: kept})
	return maps.Clone(kept)
}

// inheritedSet is one answer of inheritedEnv with its inputs; never
// changed once stored.
type inheritedSet struct {
	base    []string
	mode    string
	exclude []string
	kept    map[string]string
}

var lastInherited atomic.Pointer[inheritedSet]

// filterEnv keeps the variables of base that mode inherits and exclude
// does not name.
func filterEnv(base []string, mode string, exclude []string) map[string]string {
	m := make(map[string]string, len(base)+8)
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || !inherited(mode, k) || matchAny(exclude, k) {
			continue
		}
		m[k] = v
	}
	return m
}

func checkEnvPolicy(pol gate.EnvPolicy) error {
	switch pol.Inherit {
	case "", "all", "core", "none":
	default:
		return fmt.Errorf("env.inherit: %q is not all, core or none", pol.Inherit)
	}
	for _, p := range pol.Exclude {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("env.exclude: bad pattern %q: %v", p, err)
		}
	}
	return nil
}

// checkEnvAdd rejects additions a process cannot receive.
func checkEnvAdd(add map[string]string) error {
	for k, v := range add {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("env: bad variable name %q", k)
		}
		if strings.ContainsRune(v, 0) {
			return fmt.Errorf("env: value of %s contains a NUL byte", k)
		}
		if k == RunIDEnv {
			return fmt.Errorf("env: %s is set by agentexec", k)
		}
	}
	return nil
}

func inherited(mode, name string) bool {
	switch mode {
	case "none":
		return false
	case "core":
		return matchAny(coreEnv, name)
	}
	return true
}

func matchAny(patterns []string, name string) bool {
	up := strings.ToUpper(name)
	for _, p := range patterns {
		if globMatch(strings.ToUpper(p), up) {
			return true
		}
	}
	return false
}

// globMatch is path.Match for the common patterns made of literals and
// '*' only, without its per-call cost (this runs for every variable of
// every run); anything else goes to path.Match.
func globMatch(p, s string) bool {
	if strings.ContainsAny(p, "?[\\") {
		ok, _ := path.Match(p, s)
		return ok
	}
	i := strings.IndexByte(p, '*')
	if i < 0 {
		return p == s
	}
	if !strings.HasPrefix(s, p[:i]) {
		return false
	}
	s, p = s[i:], p[i+1:]
	for {
		j := strings.IndexByte(p, '*')
		if j < 0 {
			return strings.HasSuffix(s, p)
		}
		k := strings.Index(s, p[:j])
		if k < 0 {
			return false
		}
		s, p = s[k+j:], p[j+1:]
	}
}

// CommandEnv is the environment a request with the variables add would
// run with under pol (nil: none), from base (the inherited environment):
// what `agentexec check` gives the gate, so that check and run decide on
// the same environment. The run id tag is left out.
func CommandEnv(base []string, pol *gate.Policy, add map[string]string) ([]string, error) {
	var ep gate.EnvPolicy
	if pol != nil {
		ep = pol.Env
	}
	if err := checkEnvAdd(add); err != nil {
		return nil, err
	}
	env, err := buildEnv(base, ep, add, false, "")
	if err != nil {
		return nil, err
	}
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, RunIDEnv+"=") {
			out = append(out, kv)
		}
	}
	return out, nil
}
