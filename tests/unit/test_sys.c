/*
 * test_sys.c - the runtime's direct system calls (src/runtime/sys.c),
 * linked as the runtime links them (--wrap for every name in the
 * Makefile's RT_SYSCALLS): the calls below reach them, and each answers
 * as libc's would, results and errno, on success and on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

int __wrap_open(const char *path, int flags, ...);
char *__real_getcwd(char *buf, size_t len);
pid_t __real_getpid(void);
int __real_uname(struct utsname *u);

int main(void)
{
	/* the linker sent the calls to sys.c */
	CHECK((void *)open == (void *)__wrap_open, "open is sys.c's");

	errno = 0;
	CHECK(open("/nonexistent/scaler", O_RDONLY) == -1 && errno == ENOENT, "open: ENOENT");
	char path[] = "/tmp/scaler-test-sys.XXXXXX";
	int t = mkstemp(path);
	CHECK(t >= 0, "a scratch file");
	close(t);
	unlink(path);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	CHECK(fd >= 0, "open with O_CREAT");
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0640, "the mode passed on (%o)",
	      (unsigned)(st.st_mode & 0777));
	CHECK(open(path, O_RDWR | O_CREAT | O_EXCL, 0600) == -1 && errno == EEXIST, "open: EEXIST");
	CHECK_EQ(write(fd, "hello", 5), 5, "write");
	struct iovec v[2] = {{"ab", 2}, {"cd", 2}};
	CHECK_EQ(writev(fd, v, 2), 4, "writev");
	char buf[64] = {0};
	CHECK(pread(fd, buf, 8, 1) == 8 && !memcmp(buf, "elloabcd", 8), "pread at an offset");
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && read(fd, buf, 64) == 9, "read");
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC, "fcntl F_GETFD");
	CHECK(fcntl(fd, F_SETFD, 0) == 0 && fcntl(fd, F_GETFD) == 0, "fcntl F_SETFD");
	CHECK(fallocate(fd, 0, 0, 8192) == 0 && fstat(fd, &st) == 0 && st.st_size == 8192,
	      "fallocate");
	CHECK(ftruncate(fd, 3) == 0 && stat(path, &st) == 0 && st.st_size == 3, "ftruncate, stat");
	CHECK(close(fd) == 0, "close");
	CHECK(close(fd) == -1 && errno == EBADF, "close: EBADF");
	CHECK(read(fd, buf, 1) == -1 && errno == EBADF, "read: EBADF");
	CHECK(access(path, F_OK) == 0, "access");
	CHECK(unlinkat(AT_FDCWD, path, 0) == 0 && access(path, F_OK) == -1 && errno == ENOENT,
	      "unlinkat");
	int dir = openat(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY);
	CHECK(dir >= 0 && fstat(dir, &st) == 0 && S_ISDIR(st.st_mode), "openat");
	close(dir);

	char *m = mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m == MAP_FAILED && errno == EINVAL, "mmap: EINVAL");
	m = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED, "mmap");
	m[4096] = 1;
	CHECK(mprotect(m, 4096, PROT_READ) == 0, "mprotect");
	CHECK(mprotect(m + 1, 4096, PROT_READ) == -1 && errno == EINVAL, "mprotect: EINVAL");
	CHECK(madvise(m, 2 * 4096, MADV_DONTNEED) == 0 && m[4096] == 0, "madvise");
	CHECK(mprotect(m, 4096, PROT_READ | PROT_WRITE) == 0, "mprotect back");
	m[0] = 7;
	char *g = mremap(m, 2 * 4096, 64 * 4096, MREMAP_MAYMOVE);
	CHECK(g != MAP_FAILED && g[0] == 7, "mremap");
	CHECK(mremap(g, 4096, 4096, MREMAP_FIXED) == MAP_FAILED && errno == EINVAL,
	      "mremap: EINVAL");
	CHECK(munmap(g, 64 * 4096) == 0, "munmap");

	char a[4096], b[4096];
	CHECK(getcwd(a, sizeof(a)) == a && __real_getcwd(b, sizeof(b)) && !strcmp(a, b),
	      "getcwd: %s", a);
	CHECK(getcwd(a, 1) == NULL && errno == ERANGE, "getcwd: ERANGE");
	CHECK(getpid() == __real_getpid() && getppid() > 0, "getpid, getppid");
	CHECK(geteuid() == (uid_t)syscall(SYS_geteuid), "geteuid, syscall");
	CHECK(syscall(-1) == -1 && errno == ENOSYS, "syscall: ENOSYS");
	struct utsname u1, u2;
	CHECK(uname(&u1) == 0 && __real_uname(&u2) == 0 && !strcmp(u1.release, u2.release),
	      "uname");
	char name[16] = {0};
	CHECK(prctl(PR_GET_NAME, name, 0, 0, 0) == 0 && !strcmp(name, "test_sys"), "prctl: %s",
	      name);
	ssize_t n = readlink("/proc/self/exe", a, sizeof(a) - 1);
	CHECK(n > 0 && (a[n] = 0, strstr(a, "test_sys") != NULL), "readlink");
	struct timespec ts = {0, 1000};
	CHECK(nanosleep(&ts, NULL) == 0, "nanosleep");
	ts.tv_nsec = -1;
	CHECK(nanosleep(&ts, NULL) == -1 && errno == EINVAL, "nanosleep: EINVAL");
	return check_summary();
}
