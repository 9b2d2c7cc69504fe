package gate

import "testing"

// TestTransparentAllow: an allow rule for a command covers it run through
// a launcher that only bounds its time, priority or buffering, after bash's
// time keyword, and after assignments of variables known to be inert, as
// Claude Code reads such commands; never through a launcher that runs
// something else or writes, a computed launcher word, a redirection, or an
// assignment that may load code. Deny rules see through all of them.
func TestTransparentAllow(t *testing.T) {
	p := testPolicy(t, []string{"Bash(npm test:*)", "Bash(cargo test:*)"}, nil, nil)
	for _, tt := range []struct {
		text  string
		allow bool
	}{
		{"timeout 60 npm test", true},
		{"timeout -s KILL 5m npm test", true},
		{"nice -n 5 cargo test", true},
		{"ionice -c 3 cargo test", true},
		{"stdbuf -oL npm test", true},
		{"timeout 5 nice npm test", true},
		{"DEBUG=1 timeout 5 npm test", true},
		{"NODE_ENV=test npm test", true},
		{"CI=true NODE_ENV=test npm test -- --coverage", true},
		{"RUST_BACKTRACE=1 cargo test", true},
		{"time npm test", true},
		{"time -p npm test", true},

		{"timeout 60 rm -rf x", false},
		{"timeout 60 npm test > out", false},
		{"nohup npm test", false},
		{"timeout 60 bash -c 'npm test'", false},
		{"timeout $T npm test", false},
		{"timeout --bogus 60 npm test", false},
		{"nice --bogus npm test", false},
		{"nice -n $N npm test", false},
		{"time rm -rf x", false},
		{"LD_PRELOAD=x.so npm test", false},
		{"NODE_ENV=$(rm -rf x) npm test", false},
		{`NODE_ENV="$X" npm test`, false},
		{"NODE_ENV=test PYTHONPATH=x npm test", false},
		{"npm_config_script_shell=/tmp/x npm test", false},
		{"GOFLAGS=-toolexec=x cargo test", false},
		{"HOME=/tmp npm test", false},
		{"MYVAR=1 npm test", false},
		{"timeout 60 npm test && rm -rf x", false},
	} {
		d := Decide(Input{Text: tt.text, Policy: p})
		if got := d.Action == Allow; got != tt.allow {
			t.Errorf("%q: %s (%s), want allow %v", tt.text, d.Action, d.Reason, tt.allow)
		}
	}
	deny := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(npm test:*)"})
	for _, text := range []string{"timeout 60 npm test", "NODE_ENV=test npm test", "time npm test", "nice npm test"} {
		if d := Decide(Input{Text: text, Policy: deny}); d.Action != Deny {
			t.Errorf("deny Bash(npm test:*): %q: %s (%s)", text, d.Action, d.Reason)
		}
	}
}
