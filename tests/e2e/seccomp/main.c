/*
 * sc_seccomp: a program that installs a seccomp filter in mid-run, after
 * its threads made timed calls without their perf rings (perf.c, "before
 * the ring"), and goes on making calls, one of them blocking
 * (checks/seccomp.py). The filter lists exactly the system calls the
 * program itself makes afterwards; any other kills the process (or fails
 * with EPERM), so a system call of the runtime's after it would show.
 *
 *   prctl  main calls getppid 3 times, installs the filter by
 *          prctl(PR_SET_SECCOMP) without having blocked (no perf ring
 *          yet), makes a nanosleep that fails with EINVAL, calls getppid
 *          5 times and nanosleep (20 ms) once, prints "prctl done" and
 *          exits with status 3
 *   eperm  as prctl, but the filter's default is to fail with EPERM: it
 *          prints "eperm done KEPT" (1 if errno was EINVAL after the
 *          failing nanosleep), status 5
 *   raw    as eperm, but the filter is installed by a system call made
 *          directly (no libc call the runtime sees), so main is still
 *          without its ring after it, and its default traps: a SIGSYS
 *          handler counts the call and fails it with EPERM. 20 getppid
 *          instead of 5. Prints "raw done KEPT DENIED" (the system calls
 *          refused before the output), status 6
 *   tsync  a second thread calls getppid 3 times and waits (spinning on a
 *          flag: no call; main waits so for it to have started) while
 *          main installs the filter for both threads by
 *          syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, TSYNC); then it
 *          calls getppid 5 times and nanosleep (20 ms) once and ends; main
 *          joins it, prints "tsync done" and exits with status 4
 *
 * Output goes through write(2), the one way out the filter allows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
		  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static struct sock_filter filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	ALLOW(__NR_getppid),
	ALLOW(__NR_clock_nanosleep),
	ALLOW(__NR_nanosleep),
	ALLOW(__NR_write),
	ALLOW(__NR_futex),
	ALLOW(__NR_madvise),
	ALLOW(__NR_rt_sigprocmask),
	ALLOW(__NR_munmap),
	ALLOW(__NR_exit),
	ALLOW(__NR_exit_group),
	ALLOW(__NR_rt_sigreturn),
	/* the default, set by install() */
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
};

static struct sock_fprog prog = {
	.len = sizeof(filter) / sizeof(filter[0]),
	.filter = filter,
};

/* few calls: a thread makes 16 timed returns before it opens its ring
 * anyway (perf.c), so the modes' words are told apart by their first
 * letter and no strlen is called */
static void say(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	if (write(1, s, n) < 0)
		_exit(9);
}

static void install(char how, unsigned ret)
{
	filter[prog.len - 1].k = ret;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("PR_SET_NO_NEW_PRIVS");
		exit(8);
	}
	long r;
	if (how == 'r')
		__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_seccomp),
				 "D"((long)SECCOMP_SET_MODE_FILTER), "S"(0L), "d"(&prog)
				 : "rcx", "r11", "memory");
	else if (how == 'p')
		r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	else
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (r != 0) {
		perror("seccomp filter");
		exit(8);
	}
}

static volatile int denied;

/* a trapped system call fails with EPERM, counted */
static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	denied++;
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RAX] = -EPERM;
}

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		getppid();
}

static void sleep_ns(long ns)
{
	struct timespec ts = {0, ns};
	nanosleep(&ts, NULL);
}

static void *nothing(void *arg)
{
	return arg;
}

/* Each API the program calls after the filter is called once before it:
 * an import's first call is bound then, which the runtime records with
 * system calls of its own while its metadata is not mapped yet
 * (doc/design.md, Limits). Without blocking: a failing nanosleep, errno,
 * an empty write; the thread has not opened its perf ring after them. */
static const struct timespec bad = {0, -1};

static void bind_quiet(void)
{
	errno = 0;
	nanosleep(&bad, NULL);
	say("");
}

/* ... and pthread_create and pthread_join, which block */
static void bind_threads(void)
{
	pthread_t th;
	if (pthread_create(&th, NULL, nothing, NULL) != 0 || pthread_join(th, NULL) != 0)
		exit(8);
}

/* the failing nanosleep after the filter: 1 if it left EINVAL in errno */
static int einval_kept(void)
{
	errno = 0;
	int r = nanosleep(&bad, NULL);
	return r == -1 && errno == EINVAL;
}

static volatile int started, filtered;

static void *second(void *arg)
{
	(void)arg;
	calls(3);
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&filtered, __ATOMIC_ACQUIRE))
		;
	calls(5);
	sleep_ns(20000000);
	return NULL;
}

/* probes that install nothing, as libseccomp's check of support makes:
 * the kernel refuses them whatever the process (1 if each did) */
static int probes_refused(void)
{
	errno = 0;
	int a = syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 1, NULL) == -1 && errno == EINVAL;
	errno = 0;
	int b = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL) == -1 && errno == EFAULT;
	errno = 0;
	int c = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0) == -1 && errno == EFAULT;
	return a && b && c;
}

/* 24 functions of libm, each called once: 24 APIs bound in a process */
static volatile double arg = 0.5;
#define M(f) s += f(arg);
static double libm_calls(void)
{
	double s = 0;
	M(sin) M(cos) M(tan) M(asin) M(acos) M(atan) M(sinh) M(cosh) M(tanh) M(exp) M(log)
	M(log10) M(cbrt) M(exp2) M(log2) M(log1p) M(expm1) M(erf) M(erfc) M(tgamma)
	M(lgamma) M(asinh) M(atanh) M(sqrt)
	return s;
}

int main(int argc, char **argv)
{
	char mode = argc > 1 ? argv[1][0] : 0;
	if (mode == 'p' || mode == 'e' || mode == 'r') {
		struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};
		bind_quiet();
		calls(3);
		if (mode == 'r' && sigaction(SIGSYS, &sa, NULL) != 0)
			return 8;
		install(mode == 'r' ? 'r' : 'p', mode == 'p' ? SECCOMP_RET_KILL_PROCESS
				   : mode == 'e' ? SECCOMP_RET_ERRNO | EPERM : SECCOMP_RET_TRAP);
		int kept = einval_kept();
		calls(mode == 'r' ? 20 : 5);
		sleep_ns(20000000);
		if (mode == 'p') {
			say("prctl done\n");
			return 3;
		}
		if (mode == 'e') {
			say(kept ? "eperm done 1\n" : "eperm done 0\n");
			return 5;
		}
		int n = denied;
		char out[32] = "raw done 0 ";
		out[9] = kept ? '1' : '0';
		snprintf(out + 11, sizeof(out) - 11, "%d\n", n);
		say(out);
		return 6;
	}
	if (mode == 't') {
		pthread_t th;
		bind_quiet();
		bind_threads();
		if (pthread_create(&th, NULL, second, NULL) != 0)
			return 8;
		calls(3);
		while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
			;
		install('t', SECCOMP_RET_KILL_PROCESS);
		__atomic_store_n(&filtered, 1, __ATOMIC_RELEASE);
		pthread_join(th, NULL);
		say("tsync done\n");
		return 4;
	}
	if (mode == 'q') {
		bind_quiet();
		int ok = probes_refused();
		bind_threads();         /* a thread started after the probes */
		sleep_ns(20000000);
		say(ok ? "probe done 1\n" : "probe done 0\n");
		return 9;
	}
	if (mode == 'f') {
		bind_quiet();
		pid_t pid = fork();
		if (pid == 0) {
			install('p', SECCOMP_RET_ALLOW);
			_exit(libm_calls() > 0 ? 0 : 1);
		}
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 8;
		say("fork done\n");
		return 7;
	}
	fprintf(stderr, "usage: sc_seccomp prctl|tsync|eperm|raw|query|fork\n");
	return 2;
}
