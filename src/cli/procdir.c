/*
 * procdir.c - the profile a running process writes: found from its pid
 * (`scaler live -p`, `scaler ctl`), with the check that the caller may
 * look at it (its owner or root).
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procdir.h"
#include "xalloc.h"

/* "process 12 belongs to user bob (uid 1000): ..." */
void proc_not_yours(const char *cmd, uint32_t pid, uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	fprintf(stderr, "scaler: %s: process %u belongs to %s%s%s(uid %u): only that user or "
		"root can %s it\n", cmd, pid, pw ? "user " : "", pw ? pw->pw_name : "",
		pw ? " " : "", (unsigned)uid, strcmp(cmd, "live") ? "control" : "watch");
}

/* The directory of a counter file the process pid maps (its threads'
 * p<pid>-<gen>-t<seq>.thr, format.h) into dir: the profile it writes,
 * named by the kernel whatever the program did to its environment. 0, or
 * 1 when it maps none. */
int proc_maps_dir(uint32_t pid, char *dir, size_t n, uint32_t *gen)
{
	char path[64], line[4096 + 128];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	if (!(f = fopen(path, "re")))
		return 1;
	while (!found && fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/'), *base;
		unsigned p, g, t;
		int end = 0;

		if (!file)
			continue;
		file[strcspn(file, "\n")] = 0;
		base = strrchr(file, '/');
		if (sscanf(base, "/p%u-%u-t%u.thr%n", &p, &g, &t, &end) != 3 || base[end])
			continue;
		*base = 0;
		if (gen)
			*gen = g;
		found = (size_t)snprintf(dir, n, "%s", base == file ? "/" : file) < n;
	}
	fclose(f);
	return !found;
}

/* The profile directory of process pid: the one its counter files are in,
 * else the SCALER_DIR of its environment resolved against its working
 * directory (a process that has not counted a call yet). 0; 1 when it has
 * neither; -1 after the message. */
static int env_dir(const char *cmd, uint32_t pid, char *dir, size_t n)
{
	char path[64], *buf;
	unsigned char *b = NULL;
	size_t len = 0, cap = 0;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u", pid);
	if (stat(path, &st) < 0) {
		fprintf(stderr, "scaler: %s: no process %u\n", cmd, pid);
		return -1;
	}
	if (geteuid() != 0 && geteuid() != st.st_uid) {
		proc_not_yours(cmd, pid, st.st_uid);
		return -1;
	}
	if (proc_maps_dir(pid, dir, n, NULL) == 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/environ", pid);
	if (!(f = fopen(path, "re"))) {
		if (errno == EACCES || errno == EPERM)
			proc_not_yours(cmd, pid, st.st_uid);
		else
			fprintf(stderr, "scaler: %s: cannot read %s: %s\n", cmd, path, strerror(errno));
		return -1;
	}
	for (;;) {
		b = sc_grow(b, &cap, len + 4096, 1);
		size_t r = fread(b + len, 1, cap - len - 1, f);
		len += r;
		if (r == 0)
			break;
	}
	fclose(f);
	b[len] = 0;
	buf = NULL;
	for (size_t at = 0; at < len; at += strlen((char *)b + at) + 1)
		if (!strncmp((char *)b + at, "SCALER_DIR=", 11))
			buf = (char *)b + at + 11;
	if (!buf || !buf[0]) {
		free(b);
		return 1;
	}
	if (buf[0] == '/') {
		snprintf(dir, n, "%s", buf);
	} else {
		char cwd[4096];
		ssize_t k;

		snprintf(path, sizeof(path), "/proc/%u/cwd", pid);
		if ((k = readlink(path, cwd, sizeof(cwd) - 1)) < 0) {
			fprintf(stderr, "scaler: %s: cannot resolve %s against %s: %s\n", cmd, buf, path,
				strerror(errno));
			free(b);
			return -1;
		}
		cwd[k] = 0;
		if ((size_t)snprintf(dir, n, "%s/%s", cwd, buf) >= n) {
			fprintf(stderr, "scaler: %s: the profile path of process %u is too long\n", cmd, pid);
			free(b);
			return -1;
		}
	}
	free(b);
	return 0;
}

/* The first child of pid (scaler record's command), 0 if none. */
static uint32_t first_child(uint32_t pid)
{
	char path[64];
	unsigned c = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/children", pid, pid);
	if (!(f = fopen(path, "re")))
		return 0;
	if (fscanf(f, "%u", &c) != 1)
		c = 0;
	fclose(f);
	return c;
}

/* -p PID: the directory and the process to show; -1 after the message. */
int proc_resolve(const char *cmd, const char *arg, char *dir, size_t n, uint32_t *pid)
{
	char *end;
	unsigned long v;
	int r;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v == 0 || v > UINT32_MAX) {
		fprintf(stderr, "scaler: %s: %s wants a process id, not '%s'\n", cmd,
			strcmp(cmd, "live") ? "PID" : "-p", arg);
		return -1;
	}
	*pid = (uint32_t)v;
	r = env_dir(cmd, *pid, dir, n);
	if (r == 1) {
		/* scaler record itself: it profiles its child */
		uint32_t c = first_child(*pid);

		if (c && (r = env_dir(cmd, c, dir, n)) == 0)
			*pid = c;
		else if (r == 1)
			fprintf(stderr, "scaler: %s: process %s is not running under scaler record "
				"(no SCALER_DIR in its environment)\n", cmd, arg);
	}
	return r == 0 ? 0 : -1;
}
