//go:build !unix

package classify

// trustedDir is false: without Unix ownership no directory is known to be
// the system's alone (Git Bash's /usr/bin is the user's), so a command
// named by a path stays unknown.
func trustedDir(string) bool { return false }
