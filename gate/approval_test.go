package gate

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentexec/agentexec/shellcfg"
)

func TestApproval(t *testing.T) {
	p := testPolicy(t, []string{"Bash(git *)"}, nil, nil)
	in := Input{Text: "python3 x.py", Shell: shellcfg.Bash, Cwd: "/work", Mode: ModePlan, Policy: p}
	d := Decide(in)
	if d.Action != Ask || !d.OneOff {
		t.Fatalf("setup: %+v", d)
	}
	a := NewApproval(in, d)
	changes := map[string]Input{
		"command": {Text: "python3 y.py", Shell: in.Shell, Cwd: in.Cwd, Mode: in.Mode, Policy: p},
		"cwd":     {Text: in.Text, Shell: in.Shell, Cwd: "/elsewhere", Mode: in.Mode, Policy: p},
		"shell":   {Text: in.Text, Shell: shellcfg.Sh, Cwd: in.Cwd, Mode: in.Mode, Policy: p},
		"mode":    {Text: in.Text, Shell: in.Shell, Cwd: in.Cwd, Mode: ModeDefault, Policy: p},
		"policy":  {Text: in.Text, Shell: in.Shell, Cwd: in.Cwd, Mode: in.Mode, Policy: testPolicy(t, []string{"Bash(git *)", "Bash(ls)"}, nil, nil)},
	}
	for what, changed := range changes {
		err := a.Use(changed)
		var stale *StaleApprovalError
		if !errors.As(err, &stale) || len(stale.Changed) != 1 || stale.Changed[0] != what {
			t.Errorf("%s changed: err %v, want a StaleApprovalError naming %s", what, err, what)
		}
	}
	// Failed checks did not consume it; an equal policy built anew is the same.
	same := in
	same.Policy = testPolicy(t, []string{"Bash(git *)"}, nil, nil)
	if err := a.Use(same); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if err := a.Use(in); !errors.Is(err, ErrApprovalUsed) {
		t.Errorf("second use: %v, want ErrApprovalUsed", err)
	}
	// A mode that comes from the policy is part of the snapshot too.
	pp := testPolicy(t, nil, nil, nil)
	pp.Mode = ModePlan
	in2 := Input{Text: "python3 x.py", Policy: pp}
	a2 := NewApproval(in2, Decide(in2))
	py := testPolicy(t, nil, nil, nil)
	py.Mode = ModeYolo
	if err := a2.Use(Input{Text: "python3 x.py", Policy: py}); err == nil {
		t.Error("policy mode change not noticed")
	}
}

func TestApprovalNilPolicy(t *testing.T) {
	in := Input{Text: "rm x"}
	a := NewApproval(in, Decide(in))
	if err := a.Use(Input{Text: "rm x", Policy: &Policy{}}); err != nil {
		t.Errorf("nil and empty policy differ: %v", err)
	}
}

func TestApprovalNotAsk(t *testing.T) {
	in := Input{Text: "ls"}
	if err := NewApproval(in, Decide(in)).Use(in); !errors.Is(err, ErrApprovalNotAsk) {
		t.Errorf("approving an allow: %v", err)
	}
	in = Input{Text: "rm -rf /"}
	if err := NewApproval(in, Decide(in)).Use(in); !errors.Is(err, ErrApprovalNotAsk) {
		t.Errorf("approving a deny: %v", err)
	}
}

func TestApprovalConcurrentOnce(t *testing.T) {
	in := Input{Text: "rm x"}
	a := NewApproval(in, Decide(in))
	var ok atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if a.Use(in) == nil {
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 {
		t.Errorf("%d uses succeeded, want 1", ok.Load())
	}
}
