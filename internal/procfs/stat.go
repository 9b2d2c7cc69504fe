// Package procfs reads the few /proc files the runner and the sandbox
// both need, parsed once here.
package procfs

import (
	"bytes"
	"strconv"
	"strings"
)

// Stat is what /proc/PID/stat says of a process.
type Stat struct {
	State               byte
	PPid, Pgrp, Session int
	// EnvStart is where the environment begins in the process's memory:
	// 0 while an execve is replacing the image (and for a zombie, or when
	// the reader may not see it).
	EnvStart uint64
}

// ReadStat parses /proc/PID/stat; the command name may contain spaces
// and parentheses, so fields are counted from the last ')'.
func ReadStat(pid int) (Stat, bool) {
	b, err := ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 || len(f[0]) != 1 {
		return Stat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	sess, _ := strconv.Atoi(f[3])
	st := Stat{State: f[0][0], PPid: ppid, Pgrp: pgrp, Session: sess}
	// env_start is field 50 of stat(5); f[0] is field 3. Kernels older
	// than 3.5 lack it: it stays 0, and callers bound their waits.
	if len(f) > 47 {
		st.EnvStart, _ = strconv.ParseUint(f[47], 10, 64)
	}
	return st, true
}
