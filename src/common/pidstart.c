/*
 * pidstart.c - a process's start time from /proc/PID/stat (pidstart.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pidstart.h"

uint64_t sc_pid_start(int pid)
{
	char path[32], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* "pid (comm) state ppid ...": comm may hold spaces and ')' */
	const char *p = strrchr(buf, ')');
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
