//go:build !linux && !darwin && !windows

package policy

// ManagedSettingsPath is where Claude Code reads managed (enterprise)
// settings on this platform: none known.
func ManagedSettingsPath() string { return "" }
