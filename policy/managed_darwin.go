package policy

// ManagedSettingsPath is where Claude Code reads managed (enterprise)
// settings on this platform.
func ManagedSettingsPath() string {
	return "/Library/Application Support/ClaudeCode/managed-settings.json"
}
