/*
 * pidstart.c - a process's start time from /proc/PID/stat, and the
 * reading of such a stat file (pidstart.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pidstart.h"

const char *sc_stat_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	/* "pid (comm) state ppid ...": comm may hold spaces and ')' */
	return strrchr(buf, ')');
}

uint64_t sc_pid_start(int pid)
{
	char path[32], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	const char *p = sc_stat_read(path, buf, sizeof(buf));
	if (!p)
		return 0;
	/* the fields after comm: state is the 3rd of the line, starttime the 22nd */
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return 0;
	uint64_t v = 0;
	for (p++; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}
