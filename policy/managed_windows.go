package policy

// ManagedSettingsPath is where Claude Code reads managed (enterprise)
// settings on this platform.
func ManagedSettingsPath() string { return `C:\Program Files\ClaudeCode\managed-settings.json` }
