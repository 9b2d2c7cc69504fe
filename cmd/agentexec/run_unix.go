//go:build !windows

package main

import "golang.org/x/sys/unix"

// signalNumber maps a signal name such as SIGKILL to its number (0 when
// unknown, so the status is 128).
func signalNumber(name string) int { return int(unix.SignalNum(name)) }
