/*
 * seccomp.c - wrappers in front of the ways a program installs a seccomp
 * filter through libc: prctl(PR_SET_SECCOMP, ...), and syscall() with
 * SYS_seccomp (libseccomp's seccomp_load, glibc having no seccomp()) or
 * SYS_prctl. After a filter, any system call the program did not list may
 * kill it; a thread that has not opened its perf ring would make some at
 * a later timed return (perf.c, "before the ring"). So before the real
 * call, sc_perf_seccomp opens the caller's ring, tells every other thread
 * to stop measuring without another system call, and makes later threads
 * start unmeasured (doc/design.md, Limits). A failed call counts as well:
 * the filter may be in force from another thread's call.
 *
 * Both stay timed calls of the program (wrap.c). syscall() is the way
 * some programs reach futex: its wrapper costs one compare when the
 * number is another, then makes the call itself.
 */
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rawsys.h"
#include "runtime.h"

SC_HIDDEN bool sc_sandboxed;

/* before the call that may install a filter */
static void filter_coming(void)
{
	sc_meta_map_now();
	sc_thread_room_before_filter();
	sc_perf_seccomp(!__atomic_exchange_n(&sc_sandboxed, true, __ATOMIC_SEQ_CST));
}

/* Whether a call may install a filter: a probe the kernel refuses
 * whatever the process (libseccomp's check of support: strict mode with
 * flags or arguments, a filter at NULL) leaves the process as it is.
 * prctl(PR_SET_SECCOMP, mode, filter) and seccomp(op, flags, args). */
static bool prctl_installs(unsigned long mode, unsigned long filter)
{
	return mode == SECCOMP_MODE_STRICT || (mode == SECCOMP_MODE_FILTER && filter);
}

static bool seccomp_installs(unsigned long op, unsigned long flags, unsigned long args)
{
	if (op == SECCOMP_SET_MODE_STRICT)
		return !flags && !args;
	return op == SECCOMP_SET_MODE_FILTER && args;
}

/* prctl and syscall are variadic: each argument is a register's worth,
 * passed on as the kernel takes them (glibc's syscall passes six). The
 * real call is the runtime's own system call (sys.c, rawsys.h), as
 * libc's. */
static int w_prctl(int op, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5)
{
	if (op == PR_SET_SECCOMP && prctl_installs(a2, a3))
		filter_coming();
	return prctl(op, a2, a3, a4, a5);
}

static __attribute__((noinline, cold)) void syscall_seen(long nr, long a1, long a2, long a3)
{
	if ((nr == SYS_seccomp && seccomp_installs(a1, a2, a3)) ||
	    (nr == SYS_prctl && a1 == PR_SET_SECCOMP && prctl_installs(a2, a3)))
		filter_coming();
}

/* Some programs reach futex through syscall(): one compare of the
 * number, then the kernel's call made here (no va_list), -1 and errno
 * on failure as libc's */
static long w_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	if (__builtin_expect(nr == SYS_seccomp || nr == SYS_prctl, 0))
		syscall_seen(nr, a1, a2, a3);
	return sc_sys_ret(sc_arch_syscall(nr, a1, a2, a3, a4, a5, a6));
}

static const struct sc_wrapper seccomp_wrappers[] = {
	{"prctl", (void *)w_prctl},
	{"syscall", (void *)w_syscall},
};

void *sc_seccomp_wrapper(const char *name)
{
	return SC_WRAPPER_FIND(seccomp_wrappers, name);
}

void sc_seccomp_wrapper_names(void (*add)(const char *name))
{
	SC_WRAPPER_NAMES(seccomp_wrappers, add);
}
