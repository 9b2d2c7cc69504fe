package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentexec/agentexec/policy"
)

// policyFlags say where the policy comes from: shared by run, check, mcp,
// serve and policy.
type policyFlags struct {
	path, project, format string
}

func (f *policyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.path, "policy", "", "policy `FILE`: agentexec's JSON, or Claude Code, Qwen Code or Gemini CLI settings, a Gemini policy TOML, a Codex config.toml or .rules file (detected by content); default $AGENTEXEC_POLICY")
	fs.StringVar(&f.project, "project", "", "read a project's settings, layered as its agent does (Claude Code: managed > .claude/settings.local.json > .claude/settings.json > ~/.claude/settings.json), from `DIR`")
	fs.StringVar(&f.format, "policy-format", "", "read --policy as this format instead of detecting it: agentexec, claude, qwen, gemini or codex")
}

// options resolves the flags against the environment: workspace is the
// directory whose .agentexec/local.json is layered on top ("" = the
// current directory).
func (f *policyFlags) options(c *cli, workspace string) (policy.Options, error) {
	o := policy.Options{Path: f.path, Project: f.project, Home: c.getenv("HOME"), Workspace: workspace}
	if o.Path == "" && o.Project == "" {
		o.Path = c.getenv("AGENTEXEC_POLICY")
	}
	if f.path != "" && f.project != "" {
		return o, fmt.Errorf("--policy and --project: give one")
	}
	fm, err := policy.ParseFormat(f.format)
	if err != nil {
		return o, err
	}
	o.Format = fm
	if o.Managed = c.getenv("AGENTEXEC_CLAUDE_MANAGED_SETTINGS"); o.Managed == "" && o.Project == "" {
		o.Managed = "-"
	}
	if o.Workspace == "" {
		if o.Workspace, err = os.Getwd(); err != nil {
			return o, err
		}
	}
	if abs, err := filepath.Abs(o.Workspace); err == nil {
		o.Workspace = abs
	}
	return o, nil
}

// load reads the policy the flags name.
func (f *policyFlags) load(c *cli, workspace string) (*policy.Loaded, error) {
	o, err := f.options(c, workspace)
	if err != nil {
		return nil, err
	}
	return policy.Load(o)
}

const policyDesc = `Show the effective policy, or check that it applies in full.

  agentexec policy show  [--policy FILE | --project DIR] [--json]
  agentexec policy check [--policy FILE | --project DIR] [--json]

show prints every rule in force with the file and line it came from and how
its pattern matches, what each setting was mapped to, what was ignored and
why, refused read-only vouches, the sandbox, the environment and the digest
the audit records carry. check prints the same and exits 1 when anything was
ignored or refused (for CI), 0 when everything applies, 2 when the policy
cannot be read.`

func policyMain(_ context.Context, c *cli, args []string) int {
	if len(args) == 0 || (args[0] != "show" && args[0] != "check") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(c.stdout, policyDesc)
			return 0
		}
		return usageError(c, "policy", "want show or check (run 'agentexec policy --help')")
	}
	verb := args[0]
	var pf policyFlags
	var asJSON bool
	var cwd string
	fs := newFlagSet("policy "+verb, "[--policy FILE | --project DIR] [--json]", policyDesc)
	pf.register(fs)
	fs.BoolVar(&asJSON, "json", false, "print one JSON object")
	fs.StringVar(&cwd, "cwd", "", "the workspace `DIR` whose .agentexec/local.json is layered on top (default: the current directory)")
	if code, ok := parseFlags(c, fs, args[1:]); !ok {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(c, "policy "+verb, "takes no arguments")
	}
	l, err := pf.load(c, cwd)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec policy %s: %v\n", verb, err)
		return 2
	}
	s, err := l.Show()
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec policy %s: %v\n", verb, err)
		return 2
	}
	if asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(s)
	} else {
		err = s.WriteText(c.stdout)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec policy %s: %v\n", verb, err)
		return 2
	}
	if verb == "check" && !s.Clean {
		fmt.Fprintf(c.stderr, "agentexec policy check: %d setting(s) ignored and %d vouch(es) refused; see above\n", len(s.Ignored), len(s.Refused))
		return 1
	}
	return 0
}
