/*
 * sys.c - the runtime's own system calls, made directly instead of
 * through libc's wrappers.
 *
 * Every import of the runtime's is looked up by the loader in every
 * process it is preloaded into, before anything runs (~0.15 us each
 * here, with -z now). The runtime's calls of the functions below are
 * sent here instead by the linker (-Wl,--wrap=NAME for each name in the
 * Makefile's RT_SYSCALLS), so they are no imports at all; the program's
 * own calls of them are not touched. Each does what libc's does for the
 * runtime's uses: the kernel's call, -1 and errno on failure. None is a
 * thread cancellation point, as libc's read, write, open, close and
 * nanosleep are: the runtime must not be cancelled in the middle of its
 * own work (with a lock held, a record half written). Calls with a vDSO
 * fast path (clock_gettime, sched_getcpu) stay libc's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "rawsys.h"

/* hidden, as all of the runtime (-fvisibility=hidden) */
#define W(name) __wrap_##name

/* the kernel's result r, as libc returns it: -1 and errno on failure */
long sc_sys_ret(long r)
{
	if ((unsigned long)r > -4096ul) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static long sys(long n, long a, long b, long c, long d)
{
	return sc_sys_ret(sc_arch_syscall(n, a, b, c, d, 0, 0));
}

/* open's and openat's mode: only with O_CREAT or O_TMPFILE, as libc's */
#define MODE_ARG(flags, mode)                                                   \
	do {                                                                    \
		if ((flags) & (O_CREAT | __O_TMPFILE)) {                        \
			va_list ap;                                             \
			va_start(ap, flags);                                    \
			mode = va_arg(ap, mode_t);                              \
			va_end(ap);                                             \
		}                                                               \
	} while (0)

int W(open)(const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	return (int)sys(SYS_openat, AT_FDCWD, (long)path, flags, mode);
}

int W(openat)(int dir, const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	return (int)sys(SYS_openat, dir, (long)path, flags, mode);
}

int W(close)(int fd) { return (int)sys(SYS_close, fd, 0, 0, 0); }
ssize_t W(read)(int fd, void *b, size_t n) { return sys(SYS_read, fd, (long)b, (long)n, 0); }
ssize_t W(write)(int fd, const void *b, size_t n)
{
	return sys(SYS_write, fd, (long)b, (long)n, 0);
}
ssize_t W(writev)(int fd, const struct iovec *v, int n)
{
	return sys(SYS_writev, fd, (long)v, n, 0);
}

ssize_t W(pread)(int fd, void *b, size_t n, off_t at)
{
	return sc_sys_ret(sc_arch_syscall(SYS_pread64, fd, (long)b, (long)n, at, 0, 0));
}

int W(fstat)(int fd, struct stat *st) { return (int)sys(SYS_fstat, fd, (long)st, 0, 0); }
int W(stat)(const char *path, struct stat *st)
{
	return (int)sys(SYS_stat, (long)path, (long)st, 0, 0);
}
int W(access)(const char *path, int mode) { return (int)sys(SYS_access, (long)path, mode, 0, 0); }
int W(unlinkat)(int dir, const char *path, int flags)
{
	return (int)sys(SYS_unlinkat, dir, (long)path, flags, 0);
}

ssize_t W(readlink)(const char *path, char *buf, size_t len)
{
	return sys(SYS_readlink, (long)path, (long)buf, (long)len, 0);
}

/* the kernel's getcwd answers the length; libc's the buffer, and fails
 * with ENOENT for a directory outside the process's root, which the
 * kernel names "(unreachable)/..." */
char *W(getcwd)(char *buf, size_t len)
{
	long r = sys(SYS_getcwd, (long)buf, (long)len, 0, 0);
	if (r < 0)
		return NULL;
	if (r == 0 || buf[0] != '/') {
		errno = ENOENT;
		return NULL;
	}
	return buf;
}

int W(fcntl)(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);
	va_end(ap);
	return (int)sys(SYS_fcntl, fd, cmd, arg, 0);
}

int W(fallocate)(int fd, int mode, off_t at, off_t len)
{
	return (int)sc_sys_ret(sc_arch_syscall(SYS_fallocate, fd, mode, at, len, 0, 0));
}

int W(ftruncate)(int fd, off_t len) { return (int)sys(SYS_ftruncate, fd, len, 0, 0); }

void *W(mmap)(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
	long r = sc_sys_ret(sc_arch_syscall(SYS_mmap, (long)a, (long)len, prot, flags, fd, off));
	return r == -1 ? MAP_FAILED : (void *)r;
}

int W(munmap)(void *a, size_t len) { return (int)sys(SYS_munmap, (long)a, (long)len, 0, 0); }
int W(mprotect)(void *a, size_t len, int prot)
{
	return (int)sys(SYS_mprotect, (long)a, (long)len, prot, 0);
}
int W(madvise)(void *a, size_t len, int advice)
{
	return (int)sys(SYS_madvise, (long)a, (long)len, advice, 0);
}

void *W(mremap)(void *old, size_t len, size_t new_len, int flags, ...)
{
	void *to = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
	}
	long r = sc_sys_ret(sc_arch_syscall(SYS_mremap, (long)old, (long)len, (long)new_len, flags,
				     (long)to, 0));
	return r == -1 ? MAP_FAILED : (void *)r;
}

pid_t W(getpid)(void) { return (pid_t)sc_arch_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0); }
pid_t W(getppid)(void) { return (pid_t)sc_arch_syscall(SYS_getppid, 0, 0, 0, 0, 0, 0); }
uid_t W(geteuid)(void) { return (uid_t)sc_arch_syscall(SYS_geteuid, 0, 0, 0, 0, 0, 0); }
int W(uname)(struct utsname *u) { return (int)sys(SYS_uname, (long)u, 0, 0, 0); }

int W(nanosleep)(const struct timespec *t, struct timespec *left)
{
	return (int)sys(SYS_nanosleep, (long)t, (long)left, 0, 0);
}

int W(prctl)(int op, ...)
{
	va_list ap;
	va_start(ap, op);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long),
	     d = va_arg(ap, long);
	va_end(ap);
	return (int)sc_sys_ret(sc_arch_syscall(SYS_prctl, op, a, b, c, d, 0));
}

long W(syscall)(long n, ...)
{
	va_list ap;
	va_start(ap, n);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long),
	     d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	return sc_sys_ret(sc_arch_syscall(n, a, b, c, d, e, f));
}
