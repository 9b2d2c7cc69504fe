//go:build !linux

package exec

// sameProgram finds nothing: there is no exec gate outside Linux.
func sameProgram(int, string) []string { return nil }

// exeIdentity is unknown: nothing is cached.
func exeIdentity(int, string) string { return "" }

// environOf is unknown outside Linux.
func environOf(int) []string { return nil }
