package policy

import (
	"path/filepath"
	"strings"

	"github.com/agentexec/agentexec/internal/jsonpos"
	"github.com/agentexec/agentexec/internal/lazy"
)

// agentexecOnly are top-level keys only agentexec's format has: one of
// them makes a file agentexec's, read strictly, whatever else it holds.
var agentexecOnly = lazy.NewSet(
	"mode", "read_only_commands", "unknown", "blacklist",
	"output", "timeout", "audit",
)

// claudeOnly are top-level keys of Claude Code settings that no other
// format has.
var claudeOnly = lazy.NewSet(
	"apiKeyHelper", "cleanupPeriodDays", "includeCoAuthoredBy",
	"statusLine", "outputStyle", "forceLoginMethod",
	"forceLoginOrgUUID", "enableAllProjectMcpServers",
	"enabledMcpjsonServers", "disabledMcpjsonServers",
	"awsAuthRefresh", "awsCredentialExport", "spinnerTipsEnabled",
	"alwaysThinkingEnabled", "enabledPlugins", "extraKnownMarketplaces",
	"companyAnnouncements", "otelHeadersHelper", "disableAllHooks",
	"allowManagedHooksOnly", "allowManagedPermissionRulesOnly",
	"respectGitignore", "fileSuggestion", "attribution",
)

// claudePermissionKeys are the permissions keys only Claude Code has.
var claudePermissionKeys = lazy.NewSet(
	"defaultMode", "additionalDirectories", "disableBypassPermissionsMode",
)

// claudeSandboxKeys are Claude Code's sandbox keys, none of them
// agentexec's.
var claudeSandboxKeys = lazy.NewSet(
	"enabled", "autoAllowBashIfSandboxed", "excludedCommands",
	"allowUnsandboxedCommands", "enableWeakerNestedSandbox", "ignoreViolations",
)

// geminiQwenKeys are top-level keys of Gemini CLI and Qwen Code settings
// (v2 sections and the v1 tool lists).
var geminiQwenKeys = lazy.NewSet(
	"tools", "coreTools", "excludeTools", "allowedTools",
	"general", "ui", "context", "mcpServers", "security",
	"privacy", "telemetry", "advanced", "experimental",
	"extensions", "ide", "theme", "selectedAuthType",
	"autoAccept", "checkpointing", "fileFiltering", "mcp",
)

// detectJSON tells agentexec's format from a peer's settings by content:
// a $schema naming the agent, keys only one format has, rules of other
// tools (agentexec's format holds only shell rules), an env block of plain
// variables. A file that says nothing either way (only shell rules) is
// read as agentexec's — the two read such a file alike — unless it lies
// in an agent's settings directory, which then names it.
func detectJSON(path string, data []byte) (Format, error) {
	v, err := jsonpos.Parse(stripBOM(data), jsonpos.Options{Comments: true})
	if err != nil {
		return "", err
	}
	if v.Kind != jsonpos.Object {
		return "", errNotObject(v)
	}
	if f := bySchema(v.Get("$schema")); f != "" {
		return f, nil
	}
	peer := Format("")
	for _, m := range v.Members {
		switch {
		case agentexecOnly.Has(m.Key):
			return Agentexec, nil
		case claudeOnly.Has(m.Key) || m.Key == "hooks" || (m.Key == "model" && m.Value.Kind == jsonpos.String):
			peer = orFormat(peer, Claude)
		case geminiQwenKeys.Has(m.Key) || (m.Key == "model" && m.Value.Kind == jsonpos.Object):
			peer = orFormat(peer, geminiOrQwen(path, v))
		case m.Key == "env" && plainEnv(m.Value):
			peer = orFormat(peer, Claude)
		case m.Key == "sandbox" && claudeSandbox(m.Value):
			peer = orFormat(peer, Claude)
		case m.Key == "permissions":
			if f := permissionsFormat(path, v, m.Value); f != "" {
				peer = orFormat(peer, f)
			}
		}
	}
	if peer != "" {
		return peer, nil
	}
	switch dirHint(path) {
	case Claude:
		return Claude, nil
	case Qwen:
		return Qwen, nil
	}
	return Agentexec, nil
}

// orFormat keeps the first peer format found; Qwen wins over Claude when
// both show (Qwen's settings carry Claude-style permissions).
func orFormat(have, f Format) Format {
	if have == "" || f == Qwen {
		return f
	}
	return have
}

func bySchema(s *jsonpos.Value) Format {
	if s == nil || s.Kind != jsonpos.String {
		return ""
	}
	u := strings.ToLower(s.Str)
	switch {
	case strings.Contains(u, "claude"):
		return Claude
	case strings.Contains(u, "qwen"):
		return Qwen
	case strings.Contains(u, "gemini"):
		return Gemini
	}
	return ""
}

// geminiOrQwen: the two share their settings layout; permissions (Qwen
// only) or the directory tells them apart, Gemini otherwise.
func geminiOrQwen(path string, top *jsonpos.Value) Format {
	if top.Get("permissions") != nil || dirHint(path) == Qwen {
		return Qwen
	}
	return Gemini
}

// permissionsFormat reads the permissions block: a Claude-only key, Qwen's
// planMode, or a rule of another tool make it a peer's.
func permissionsFormat(path string, top, perms *jsonpos.Value) Format {
	if perms.Kind != jsonpos.Object {
		return ""
	}
	for _, m := range perms.Members {
		if claudePermissionKeys.Has(m.Key) {
			return Claude
		}
		if m.Key == "planMode" {
			return Qwen
		}
		for _, it := range m.Value.ItemsOrNil() {
			if it.Kind == jsonpos.String && !isShellRule(it.Str) {
				if dirHint(path) == Qwen {
					return Qwen
				}
				return Claude
			}
		}
	}
	return ""
}

// isShellRule reports a rule text whose tool is a shell (Bash, …).
func isShellRule(text string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(text), "(")
	switch name {
	case "Bash", "run_shell_command", "Shell", "ShellTool":
		return true
	}
	return false
}

// plainEnv: Claude's env is a map of variables; agentexec's has inherit,
// exclude and set.
func plainEnv(v *jsonpos.Value) bool {
	if v.Kind != jsonpos.Object {
		return false
	}
	for _, m := range v.Members {
		if m.Key != "inherit" && m.Key != "exclude" && m.Key != "set" {
			return true
		}
	}
	return false
}

func claudeSandbox(v *jsonpos.Value) bool {
	if v.Kind != jsonpos.Object {
		return false
	}
	for _, m := range v.Members {
		if claudeSandboxKeys.Has(m.Key) {
			return true
		}
	}
	return false
}

// dirHint names the agent whose settings directory holds path.
func dirHint(path string) Format {
	switch filepath.Base(filepath.Dir(path)) {
	case ".claude":
		return Claude
	case ".qwen":
		return Qwen
	case ".gemini":
		return Gemini
	case ".codex":
		return Codex
	}
	return ""
}

func errNotObject(v *jsonpos.Value) error {
	return &jsonpos.FieldError{Line: 1, Msg: "want a JSON object at the top level, got " + v.Kind.String()}
}
