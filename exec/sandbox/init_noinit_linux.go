//go:build linux && !amd64

package sandbox

// initELF is empty where no agentexec-init is built (initsrc/init.c has
// system call glue for amd64 only): runs there start through the
// trampoline, and the command is PID 1 of its PID namespace.
const initELF = ""
