/*
 * test_files.c - the runtime's files (src/runtime/files.c), alone: a file
 * is made once, 0600, never through a name already there; its room is
 * reserved by the fallocate system call, by libc's posix_fallocate where
 * the file system has none (EOPNOTSUPP), and a full disk refuses it with
 * one line said once. fallocate is this test's own, to play the file
 * system: it passes through, or fails with the errno asked for.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "runtime.h"

const char *sc_dir;
int sc_attached;
static int warnings;
static char last_warning[512];
void sc_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_warning, sizeof(last_warning), fmt, ap);
	va_end(ap);
	warnings++;
}

static int fail_with;           /* 0: the real system call */
static int fallocate_calls;
int fallocate(int fd, int mode, off_t at, off_t len)
{
	fallocate_calls++;
	if (fail_with) {
		errno = fail_with;
		return -1;
	}
	return (int)syscall(SYS_fallocate, fd, mode, at, len);
}

static off_t size_of(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 ? st.st_size : -1;
}

int main(void)
{
	char dir[] = "/tmp/scaler-test-files.XXXXXX";
	CHECK(mkdtemp(dir) != NULL, "a directory");
	sc_dir = dir;
	CHECK_EQ(sc_files_init(), 0, "the directory is accepted");
	sc_files_started();

	dev_t dev;
	ino_t ino;
	int fd = sc_file_create("a", O_RDWR, &dev, &ino);
	CHECK(fd >= 0, "a file is made");
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_ino == ino,
	      "0600, the inode it reports");
	CHECK(sc_file_create("a", O_RDWR, &dev, &ino) < 0 && errno == EEXIST,
	      "never through a name already there");

	CHECK_EQ(sc_file_reserve(fd, "a", 8192), 0, "room reserved");
	CHECK_EQ(fallocate_calls, 1, "by the system call");
	CHECK_EQ((long)size_of(fd), 8192L, "the file has the room");

	int b = sc_file_create("b", O_RDWR, &dev, &ino);
	fail_with = EOPNOTSUPP;
	CHECK_EQ(sc_file_reserve(b, "b", 12288), 0, "a file system without fallocate: room all the same");
	CHECK_EQ((long)size_of(b), 12288L, "by posix_fallocate");
	CHECK_EQ(warnings, 0, "nothing said");

	fail_with = ENOSPC;
	CHECK_EQ(sc_file_reserve(fd, "a", 16384), -1, "a full disk refuses the room");
	CHECK_EQ(errno, ENOSPC, "and says why");
	CHECK_EQ(warnings, 1, "one line");
	CHECK(strstr(last_warning, "recording stops") != NULL, "that recording stops");
	CHECK_EQ((long)size_of(fd), 8192L, "the file keeps what it had");
	CHECK_EQ(sc_file_reserve(fd, "a", 16384), -1, "refused again");
	CHECK_EQ(warnings, 1, "said once");

	fail_with = EIO;
	CHECK_EQ(sc_file_reserve(b, "b", 16384), -1, "another error refuses the room");
	CHECK(warnings == 2 && strstr(last_warning, "cannot reserve") != NULL, "said");

	close(fd);
	close(b);
	sc_file_remove("a");
	sc_file_remove("b");
	CHECK(rmdir(dir) == 0, "both files removed");
	return check_summary();
}
