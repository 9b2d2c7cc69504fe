/*
 * agentexec-init: the first process of a sandboxed run (PID 1 of its PID
 * namespace), so that the command is never PID 1. See init_linux.go for
 * why and for the protocol; this file is built by gen.sh into
 * init_amd64.go and must stay free of any library: it runs before the
 * command, in the command's sandbox, with nothing but system calls.
 *
 * argv: agentexec-init CTL[.IMAGE] PATH ARGV0 ARGS...   (envp: the command's)
 *
 * IMAGE, when given, is the descriptor init was executed from: it is made
 * close-on-exec so the command never holds it. CTL is one end of a socket pair whose other end agentexec holds. init
 *   1. blocks every signal, so that none is lost before the command exists
 *      (a PID 1 drops the signals it has no handler for; blocked signals
 *      are kept pending instead);
 *   2. waits for one byte on CTL: 'G' (go) or 'H' (go, under the exec
 *      gate); anything else, or end of file, exits 126 without running
 *      anything;
 *   3. forks the command. The child puts itself in its own process group
 *      (taking the terminal's foreground when init's group had it), asks
 *      for SIGKILL when init dies, and for 'H' installs the exec gate's
 *      seccomp filter, which stops every execve and execveat of the
 *      command and of everything it starts until agentexec answers (see
 *      tracer_linux.go), and sends its listener on CTL with an 'R' record
 *      (or writes an 'F' record with the errno and exits 126 if the filter
 *      cannot be installed). It restores the signal mask and execs PATH
 *      with ARGV0 ARGS. An exec failure writes an 'X' record (the errno)
 *      and exits 127 (not found) or 126;
 *   4. reads its signals from a signalfd: SIGCHLD reaps (every child: it
 *      is the namespace's reaper, or a subreaper), a signal sent by a
 *      process (kill, tkill, sigqueue: si_code <= 0) is forwarded to the
 *      command's process group, a signal the kernel sent (a terminal's
 *      hangup to the session leader) is not, since the kernel sends its
 *      own to the foreground group;
 *   5. once the command has been reaped (and every other child that is
 *      gone by then), writes an 'S' record with its wait status and ends
 *      the same way: as PID 1 with exit status
 *      128+N for a death by signal N (a PID 1 cannot die by a signal sent
 *      from its own namespace), otherwise by the same signal.
 *
 * Records are 8 bytes: the type byte, three zero bytes, an int32 in host
 * byte order.
 */

typedef unsigned long u64;
typedef unsigned int u32;

#if defined(__x86_64__)
#define NR_read 0
#define NR_write 1
#define NR_close 3
#define NR_rt_sigaction 13
#define NR_rt_sigprocmask 14
#define NR_ioctl 16
#define NR_getpid 39
#define NR_sendmsg 46
#define NR_clone 56
#define NR_execve 59
#define NR_exit 60
#define NR_wait4 61
#define NR_kill 62
#define NR_fcntl 72
#define NR_setpgid 109
#define NR_getpgid 121
#define NR_prctl 157
#define NR_exit_group 231
#define NR_signalfd4 289
#define NR_prlimit64 302
#define NR_seccomp 317

static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

__asm__(".text\n"
	".globl _start\n"
	"_start:\n"
	"	xor %rbp, %rbp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call cmain\n"
	"	hlt\n");
#else
#error "agentexec-init: no system call glue for this architecture"
#endif

#define sys0(n) sys6(n, 0, 0, 0, 0, 0, 0)
#define sys1(n, a) sys6(n, (long)(a), 0, 0, 0, 0, 0)
#define sys2(n, a, b) sys6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define sys3(n, a, b, c) sys6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sys4(n, a, b, c, d) sys6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define sys5(n, a, b, c, d, e) sys6(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

#define EINTR 4
#define EACCES 13
#define ENOENT 2
#define ECHILD 10
#define SIGKILL 9
#define SIGCHLD 17
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
#define F_SETFD 2
#define FD_CLOEXEC 1
#define SFD_CLOEXEC 02000000
#define WNOHANG 1
#define WALL 0x40000000
#define TIOCGPGRP 0x540F
#define TIOCSPGRP 0x5410
#define PR_SET_PDEATHSIG 1
#define PR_SET_NAME 15
#define PR_SET_CHILD_SUBREAPER 36
#define PR_SET_NO_NEW_PRIVS 38
#define RLIMIT_CORE 4
#define SA_RESTORER 0x04000000

struct ssi { /* struct signalfd_siginfo: 128 bytes */
	u32 signo;
	int err;
	int code;
	u32 pid;
	char rest[112];
};

static int ctl;

static void put(char type, int value)
{
	char rec[8] = {type, 0, 0, 0};
	char *v = (char *)&value;
	for (int i = 0; i < 4; i++)
		rec[4 + i] = v[i];
	sys3(NR_write, ctl, rec, 8);
}

/* get reads one byte from CTL; -1 on end of file or error. */
static int get(void)
{
	unsigned char b;
	long n;
	do
		n = sys3(NR_read, ctl, &b, 1);
	while (n == -EINTR);
	return n == 1 ? b : -1;
}

static int atoi10(const char *s)
{
	int n = 0;
	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (*s - '0');
	}
	return n;
}

/* fdpair reads "CTL" or "CTL.IMAGE": the control socket's descriptor and,
 * when given, the one this program was executed from. */
static int fdpair(const char *s, int *image)
{
	int n = 0;
	if (!s || !*s)
		return -1;
	for (; *s && *s != '.'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (*s - '0');
	}
	if (*s == '.') {
		*image = atoi10(s + 1);
		if (*image < 0)
			return -1;
	}
	return n;
}

static void say(const char *s)
{
	long n = 0;
	while (s[n])
		n++;
	sys3(NR_write, 2, s, n);
}

/* foreground hands the terminal to the child's new process group when
 * init's group had it, as a shell does for a foreground job. */
static void foreground(int oldpgrp, int self)
{
	for (int fd = 0; fd < 3; fd++) {
		int pg = 0;
		if (sys3(NR_ioctl, fd, TIOCGPGRP, &pg) == 0) {
			if (pg == oldpgrp)
				sys3(NR_ioctl, fd, TIOCSPGRP, &self);
			return;
		}
	}
}

/* The exec gate's filter: execve and execveat of every ABI the kernel
 * runs on x86_64 wait for agentexec's answer (SECCOMP_RET_USER_NOTIF);
 * everything else is allowed (the sandbox's own filter, when there is
 * one, decides the rest). The i386 ABI (int 0x80) has its own numbers;
 * x32 calls carry bit 30. A foreign architecture number is notified
 * whatever the call: agentexec refuses what it does not know. */
struct sock_filter {
	unsigned short code;
	unsigned char jt, jf;
	u32 k;
};
struct sock_fprog {
	unsigned short len;
	struct sock_filter *filter;
};
#define LD_W_ABS 0x20
#define JEQ_K 0x15
#define RET_K 0x06
#define ARCH_X86_64 0xc000003eU
#define ARCH_I386 0x40000003U
#define RET_ALLOW 0x7fff0000U
#define RET_NOTIFY 0x7fc00000U
#define X32 0x40000000U
#define SECCOMP_SET_MODE_FILTER 1
#define SECCOMP_FILTER_FLAG_NEW_LISTENER 8
static struct sock_filter gate[] = {
	{LD_W_ABS, 0, 0, 4},              /* 0: arch */
	{JEQ_K, 2, 0, ARCH_X86_64},       /* 1 */
	{JEQ_K, 10, 0, ARCH_I386},        /* 2 -> 13 */
	{RET_K, 0, 0, RET_NOTIFY},        /* 3: a foreign architecture */
	{LD_W_ABS, 0, 0, 0},              /* 4: nr */
	{JEQ_K, 6, 0, 59},                /* 5: execve */
	{JEQ_K, 5, 0, 322},               /* 6: execveat */
	{JEQ_K, 4, 0, X32 | 59},          /* 7 */
	{JEQ_K, 3, 0, X32 | 322},         /* 8 */
	{JEQ_K, 2, 0, X32 | 520},         /* 9: x32 execve */
	{JEQ_K, 1, 0, X32 | 545},         /* 10: x32 execveat */
	{RET_K, 0, 0, RET_ALLOW},         /* 11 */
	{RET_K, 0, 0, RET_NOTIFY},        /* 12, reached from 5-10 */
	/* i386: 13.. */
	{LD_W_ABS, 0, 0, 0},              /* 13: nr */
	{JEQ_K, 2, 0, 11},                /* 14: execve */
	{JEQ_K, 1, 0, 358},               /* 15: execveat */
	{RET_K, 0, 0, RET_ALLOW},         /* 16 */
	{RET_K, 0, 0, RET_NOTIFY},        /* 17 */
};

struct iovec {
	void *base;
	u64 len;
};
struct msghdr {
	void *name;
	int namelen;
	struct iovec *iov;
	u64 iovlen;
	void *control;
	u64 controllen;
	int flags;
};

/* gatefilter installs the exec gate's filter and sends its listener on
 * CTL. Without CAP_SYS_ADMIN the kernel wants no_new_privs first, which a
 * sandbox has set already; a run without one gets it here (a traced
 * program never gained privileges by exec either). */
static void gatefilter(void)
{
	struct sock_fprog prog = {sizeof gate / sizeof gate[0], gate};
	long fd = sys3(NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd == -EACCES) {
		sys2(NR_prctl, PR_SET_NO_NEW_PRIVS, 1);
		fd = sys3(NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	}
	if (fd < 0) {
		put('F', (int)-fd);
		sys1(NR_exit_group, 126);
	}
	char rec[8] = {'R', 0, 0, 0, 0, 0, 0, 0};
	struct iovec iov = {rec, 8};
	/* struct cmsghdr (len, level 1 SOL_SOCKET, type 1 SCM_RIGHTS), the fd */
	u64 cmsg[3] = {20, 1 | (1UL << 32), (u64)fd};
	struct msghdr m = {0, 0, &iov, 1, cmsg, 24, 0};
	long n = sys3(NR_sendmsg, ctl, &m, 0);
	sys1(NR_close, fd); /* the command must never hold its own gate */
	if (n != 8)
		sys1(NR_exit_group, 126);
}

static void child(char *path, char **argv, char **envp, u64 *oldmask, int hold)
{
	int oldpgrp = (int)sys1(NR_getpgid, 0);
	sys2(NR_setpgid, 0, 0);
	foreground(oldpgrp, (int)sys0(NR_getpid));
	sys2(NR_prctl, PR_SET_PDEATHSIG, SIGKILL);
	if (hold)
		gatefilter();
	sys4(NR_rt_sigprocmask, SIG_SETMASK, oldmask, 0, 8);
	long err = sys3(NR_execve, path, argv, envp);
	put('X', (int)-err);
	say("agentexec-init: cannot run ");
	say(path);
	say("\n");
	sys1(NR_exit_group, err == -ENOENT ? 127 : 126);
}

struct ksigaction {
	void *handler;
	u64 flags;
	void *restorer;
	u64 mask;
};

/* die ends init with the command's status: the same exit code, or death
 * by the same signal (as PID 1, which cannot die by it, 128+N). */
static void die(int status)
{
	int sig = status & 0x7f;
	if (sig == 0)
		sys1(NR_exit_group, (status >> 8) & 0xff);
	if (sys0(NR_getpid) != 1) {
		struct ksigaction dfl = {0, 0, 0, 0};
		u64 zero[2] = {0, 0};
		u64 one = 1UL << (sig - 1);
		sys4(NR_rt_sigaction, sig, &dfl, 0, 8);
		sys4(NR_prlimit64, 0, RLIMIT_CORE, zero, 0);
		sys2(NR_kill, sys0(NR_getpid), sig);
		sys4(NR_rt_sigprocmask, SIG_UNBLOCK, &one, 0, 8);
	}
	sys1(NR_exit_group, 128 + sig);
}

int cmain(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	u64 all = ~0UL, oldmask = 0;

	sys4(NR_rt_sigprocmask, SIG_BLOCK, &all, &oldmask, 8);
	int image = -1;
	if (argc < 4 || (ctl = fdpair(argv[1], &image)) < 0) {
		say("agentexec-init: started without its arguments (this program is run by agentexec)\n");
		sys1(NR_exit_group, 126);
	}
	sys3(NR_fcntl, ctl, F_SETFD, FD_CLOEXEC);
	if (image >= 0) /* the descriptor this program was run from */
		sys3(NR_fcntl, image, F_SETFD, FD_CLOEXEC);
	sys2(NR_prctl, PR_SET_NAME, "agentexec-init"); /* not the memfd's number */
	int go = get();
	if (go != 'G' && go != 'H')
		sys1(NR_exit_group, 126);
	int sfd = (int)sys4(NR_signalfd4, -1, &all, 8, SFD_CLOEXEC);
	if (sfd < 0) {
		say("agentexec-init: signalfd failed\n");
		sys1(NR_exit_group, 126);
	}
	if (sys0(NR_getpid) != 1)
		sys2(NR_prctl, PR_SET_CHILD_SUBREAPER, 1);
	long pid = sys5(NR_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid < 0) {
		say("agentexec-init: fork failed\n");
		sys1(NR_exit_group, 126);
	}
	if (pid == 0)
		child(argv[2], argv + 3, envp, &oldmask, go == 'H');

	int status = -1;
	for (;;) {
		struct ssi si;
		long n = sys3(NR_read, sfd, &si, sizeof si);
		if (n == -EINTR)
			continue;
		if (n != sizeof si)
			sys1(NR_exit_group, 126);
		if (si.signo != SIGCHLD) {
			if (si.code <= 0 && sys2(NR_kill, -pid, si.signo) < 0)
				sys2(NR_kill, pid, si.signo);
			continue;
		}
		/* Every child that is gone is reaped, the command's siblings too:
		 * without a PID namespace they would pass to agentexec as
		 * zombies of a process group it does not know. */
		for (;;) {
			int st = 0;
			long got = sys4(NR_wait4, -1, &st, WNOHANG | WALL, 0);
			if (got == -EINTR)
				continue;
			if (got <= 0)
				break;
			if (got == pid)
				status = st;
		}
		if (status >= 0) {
			put('S', status);
			die(status);
		}
	}
}
