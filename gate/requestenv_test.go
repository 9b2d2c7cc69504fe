package gate

import "testing"

// TestRequestEnvIsGateInput: a variable the request sets that steers which
// program runs makes a read-only command unknown (so plan mode asks and
// no allow rule vouches for it); a harmless one, or the same variable
// inherited, does not.
func TestRequestEnvIsGateInput(t *testing.T) {
	allowLs := &Policy{Permissions: Permissions{Allow: []string{"Bash(ls)"}}}
	for _, tt := range []struct {
		env  map[string]string
		want Action
	}{
		{map[string]string{"PATH": "/work/bin:/usr/bin:/bin"}, Ask},
		{map[string]string{"LD_PRELOAD": "/tmp/x.so"}, Ask},
		{map[string]string{"BASH_ENV": "/tmp/rc"}, Ask},
		{map[string]string{"GIT_SSH_COMMAND": "sh -c evil"}, Ask},
		{map[string]string{"NODE_OPTIONS": "--require /tmp/x.js"}, Ask},
		{map[string]string{"PYTHONSTARTUP": "/tmp/x.py"}, Ask},
		{map[string]string{"PERL5OPT": "-Mx"}, Ask},
		{map[string]string{"RUBYOPT": "-rx"}, Ask},
		{map[string]string{"PAGER": "sh -c evil"}, Ask},
		{map[string]string{"FOO": "bar"}, Allow},
		{map[string]string{"LANG": "C.UTF-8", "TZ": "UTC"}, Allow},
		{nil, Allow},
	} {
		for _, mode := range []Mode{ModePlan, ModeDefault} {
			d := Decide(Input{Text: "ls", Mode: mode, Policy: allowLs, Env: []string{"PATH=/usr/bin:/bin"}, RequestEnv: tt.env})
			if d.Action != tt.want {
				t.Errorf("%s, env %v: %s, want %s (%s)", mode, tt.env, d.Action, tt.want, d.Reason)
			}
		}
	}
	// Inherited (not the request's): an absolute PATH stays as it was.
	if d := Decide(Input{Text: "ls", Mode: ModePlan, Env: []string{"PATH=/opt/bin:/usr/bin"}}); d.Action != Allow {
		t.Errorf("inherited PATH: %s", d.Action)
	}
}
