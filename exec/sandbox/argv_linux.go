package sandbox

import (
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/unix"
)

// At its exec stop a program has run no instruction, and its stack is as
// the kernel laid it out: argc at the stack pointer, then argv's pointers,
// a NULL, envp's pointers. The argument strings lie back to back from
// argv[0] to envp[0] (the environment's strings follow them), which is
// the very range /proc/PID/cmdline reads. Reading them from the stack
// takes one or two process_vm_readv calls instead of opening
// /proc/PID/cmdline, whose lookup instantiates a /proc entry for every new
// process (most of what reading an exec cost). The memory is the new
// program's own, which no other thread shares: the same guarantee as the
// cmdline read. Whatever does not fit that layout (no environment, a
// pointer out of order, a short read) is read from /proc instead.

// stackArgvRead is how much of the stack the first read takes: argc, the
// pointers and, for a usual environment, the strings themselves.
const stackArgvRead = 4 << 10

// stackArgv reads pid's argv from its stack at its exec stop; ok is false
// when it must be read from /proc.
func (t *tracer) stackArgv(pid int) (argv []string, ok bool) {
	sp, ok := stackPointer(pid)
	if !ok {
		return nil, false
	}
	if cap(t.stack) < stackArgvRead {
		t.stack = make([]byte, stackArgvRead)
	}
	b := t.stack[:stackArgvRead]
	n := readRemote(pid, sp, b)
	if n < 8 {
		return nil, false
	}
	b = b[:n]
	argc := binary.LittleEndian.Uint64(b)
	// argc, argc pointers, NULL, envp[0].
	need := (argc + 3) * 8
	if argc == 0 || argc > maxCmdline/2 || need > uint64(len(b)) {
		return nil, false
	}
	word := func(i uint64) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }
	start, end := word(1), word(argc+2)
	if word(argc+1) != 0 || end <= start || end-start > maxCmdline || start < sp {
		return nil, false
	}
	var s []byte
	if off := start - sp; end-sp <= uint64(len(b)) {
		s = b[off : end-sp]
	} else {
		s = make([]byte, end-start)
		if readRemote(pid, start, s) != len(s) {
			return nil, false
		}
	}
	if s[len(s)-1] != 0 {
		return nil, false
	}
	argv = splitNUL(s)
	if uint64(len(argv)) != argc {
		return nil, false
	}
	// Each pointer where its string starts: the layout is the kernel's.
	at := start
	for i, a := range argv {
		if word(uint64(i)+1) != at {
			return nil, false
		}
		at += uint64(len(a)) + 1
	}
	return argv, true
}

// readRemote reads pid's memory from addr into b, one page per remote
// vector, so that a read running past the top of the stack returns what
// lies before it. It returns how many bytes were read.
func readRemote(pid int, addr uint64, b []byte) int {
	const page = 4096
	var remote [8]unix.RemoteIovec
	n, at := 0, addr
	for rest := uint64(len(b)); rest > 0 && n < len(remote); n++ {
		l := min(page-at%page, rest)
		if n == len(remote)-1 {
			l = rest // the rest in one vector
		}
		remote[n] = unix.RemoteIovec{Base: uintptr(at), Len: int(l)}
		at += l
		rest -= l
	}
	local := []unix.Iovec{{Base: unsafe.SliceData(b)}}
	local[0].SetLen(len(b))
	m, err := unix.ProcessVMReadv(pid, local, remote[:n], 0)
	if err != nil {
		return 0
	}
	return m
}
