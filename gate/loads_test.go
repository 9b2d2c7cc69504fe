package gate

import "testing"

// openssl engine ID… loads an ID that is an absolute path as a shared
// object, whose code runs (a relative one is looked up in the engines
// directory: read as a path too, the stricter): project code, as -engine
// PATH is — asked for past a deny rule where no exec gate watches,
// allowed where one does; a bare engine id is one of the system's.
// TestCodeLoadConfirm runs `openssl engine "$PWD/lib.so"` with a
// gcc-built object that runs rm.
var loadForms = []struct {
	text             string
	noGate, withGate Action
}{
	{"openssl engine ./e.so", Ask, Allow},
	{"openssl engine \"$PWD/e.so\"", Ask, Ask},
	{"openssl engine -t /tmp/e.so", Ask, Allow},
	{"openssl engine -t $LIB", Ask, Ask}, // $LIB may be any option too
	{"openssl req -engine ./e.so -new", Ask, Allow},
	{"openssl engine -c pkcs11", Allow, Allow},
	{"openssl engine", Allow, Allow},
	{"openssl x509 -in c.pem -noout -text", Allow, Allow},
}

func TestLoadedCode(t *testing.T) {
	pol := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	for _, c := range loadForms {
		for _, g := range []struct {
			gate bool
			want Action
		}{{false, c.noGate}, {true, c.withGate}} {
			if d := Decide(Input{Text: c.text, Policy: pol, Cwd: "/work", ExecGate: g.gate}); d.Action != g.want {
				t.Errorf("%q (exec gate %v): %v, want %v: %s", c.text, g.gate, d.Action, g.want, d.Reason)
			}
		}
	}
}
