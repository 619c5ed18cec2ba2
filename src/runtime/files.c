/*
 * files.c - the runtime's files in the profile directory, made so that no
 * other user on the machine can redirect, read or pull them away.
 *
 * Run as root, `scaler record` makes the directory like /tmp (1777) so that
 * a server dropping privileges can still add files; anyone else may then
 * plant names in it. So every file is created here with O_CREAT|O_EXCL|
 * O_NOFOLLOW (a planted name or link is never written through: the caller
 * takes the next name), mode 0600, relative to one descriptor of the
 * directory that is checked to still be the directory first seen. A
 * mapped region is reserved (fallocate) before it is mapped: a full disk
 * then refuses the region, once said on stderr, instead of killing the
 * program with SIGBUS on a page it cannot back. Callers hold the leaf lock
 * (or run alone: start-up, a fork child); the runtime keeps at most three
 * descriptors open: this one, the meta file's and the first thread's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

static int dir_fd = -1;
static dev_t dir_dev;
static ino_t dir_ino;
/*
 * While the preloaded runtime starts (sc_start: no code of the program's
 * has run yet, and no other thread), no one can have closed or replaced a
 * descriptor of ours: the checks that each is still our file, an fstat
 * before every use, wait until sc_files_started.
 */
static bool starting;

/*
 * fstat(2) by its own system call. glibc's fstat is fstatat(fd, "",
 * AT_EMPTY_PATH), and the kernel reads that "" from libc's read-only
 * data: a page fault (~2 us here) in every fork child, whose first
 * system calls these checks are. (x86-64's struct stat is the kernel's.)
 */
int sc_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_fstat, fd, st);
}

/*
 * The directory, once at start-up: a directory, ours or root's, and not
 * open to others' renames (writable by others only with the sticky bit).
 * Otherwise another user could swap our files for theirs.
 */
int sc_files_init(void)
{
	int fd = open(sc_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || sc_fstat(fd, &st) != 0) {
		sc_warn("cannot open %s: %s; not profiling", sc_dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	const char *why = NULL;
	if (st.st_uid != geteuid() && st.st_uid != 0)
		why = "is another user's";
	else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		why = "is writable by others and not sticky";
	if (why) {
		sc_warn("%s %s; not profiling", sc_dir, why);
		close(fd);
		return -1;
	}
	dir_fd = fd;
	dir_dev = st.st_dev;
	dir_ino = st.st_ino;
	starting = !sc_attached && __libc_single_threaded;
	return 0;
}

/* The program runs from now: our descriptors are checked before use. */
void sc_files_started(void)
{
	starting = false;
}

static bool closed;

/* Whether fd is open on the file (dev, ino). */
static bool is_file(int fd, dev_t dev, ino_t ino)
{
	struct stat st;
	return fd >= 0 && sc_fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

/* Detached: the directory's descriptor is closed, and never reopened. */
void sc_files_close(void)
{
	if (dir_fd >= 0)
		close(dir_fd);
	dir_fd = -1;
	closed = true;
}

/* Our descriptor of the directory, reopened if the program closed it
 * (daemons close every descriptor); -1 if it is gone or another. */
static int dir(void)
{
	if (closed)
		return -1;
	if (starting || is_file(dir_fd, dir_dev, dir_ino))
		return dir_fd;
	dir_fd = open(sc_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd >= 0 && !is_file(dir_fd, dir_dev, dir_ino)) {
		close(dir_fd);
		dir_fd = -1;
	}
	return dir_fd;
}

int sc_file_create(const char *name, int flags, dev_t *dev, ino_t *ino)
{
	int d = dir();
	if (d < 0) {
		errno = ENOENT;
		return -1;
	}
	int fd = openat(d, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;
	if (fd >= 0 && sc_fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (fd >= 0) {
		*dev = st.st_dev;
		*ino = st.st_ino;
	}
	return fd;
}

/* Closes fd if it is still the file (dev, ino): a descriptor of ours a
 * fork child inherited, which the program may have closed and reused. */
void sc_file_close_same(int fd, dev_t dev, ino_t ino)
{
	if (is_file(fd, dev, ino))
		close(fd);
}

void sc_file_remove(const char *name)
{
	int d = dir();
	if (d >= 0)
		unlinkat(d, name, 0);
}

/*
 * fd if it is still the file (dev, ino); else the file reopened by name,
 * or -1. A daemon closes every descriptor and opens files of its own,
 * which may get our old number: never write through a descriptor that is
 * no longer our file.
 */
int sc_file_still(int fd, const char *name, dev_t dev, ino_t ino, int flags)
{
	if (fd >= 0 && (starting || is_file(fd, dev, ino)))
		return fd;
	int d = dir();
	if (d < 0)
		return -1;
	int nfd = openat(d, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (nfd < 0)
		return -1;
	if (!is_file(nfd, dev, ino)) {
		close(nfd);
		return -1;
	}
	return nfd;
}

/*
 * The FIFO name in the directory, opened for reading (blocking reads),
 * or -1: it must be a FIFO of ours or root's (scaler record -p made it).
 */
int sc_file_open_fifo(const char *name)
{
	int d = dir();
	int fd = d >= 0 ? openat(d, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) : -1;
	struct stat st;
	if (fd < 0)
		return -1;
	if (sc_fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode) ||
	    (st.st_uid != geteuid() && st.st_uid != 0) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* Says once per process that the disk is full: every thread that
 * starts afterwards would say it again. */
void sc_file_full(const char *name, int err)
{
	static bool said;
	if (said)
		return;
	said = true;
	sc_warn("%s/%s: %s; recording stops where it needs more room, the program runs on",
		sc_dir, name, strerror(err));
}

/* Disk space for the first len bytes of fd (and its size at least len),
 * so that a mapping of them never faults for want of a block. By the
 * system call (sys.c), and libc's posix_fallocate, which emulates it by
 * writing a byte into each block, only where the file system has none:
 * its code is one more page of libc that every fork child faults in. */
int sc_file_reserve(int fd, const char *name, size_t len)
{
	int e = fallocate(fd, 0, 0, (off_t)len) == 0 ? 0 : errno;
	if (e == EOPNOTSUPP)
		e = posix_fallocate(fd, 0, (off_t)len);
	if (e == 0)
		return 0;
	if (e == ENOSPC || e == EDQUOT || e == EFBIG)
		sc_file_full(name, e);
	else
		sc_warn("cannot reserve room in %s/%s: %s", sc_dir, name, strerror(e));
	errno = e;
	return -1;
}

void *sc_file_map_new(const char *name, size_t len, bool *created)
{
	dev_t dev;
	ino_t ino;
	int fd = sc_file_create(name, O_RDWR, &dev, &ino);
	*created = fd >= 0;
	if (fd < 0)
		return NULL;
	void *m = MAP_FAILED;
	if (sc_file_reserve(fd, name, len) == 0)
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		sc_file_remove(name);
		return NULL;
	}
	return m;
}
