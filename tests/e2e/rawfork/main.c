/*
 * sc_rawfork: a child made by the raw fork system call, without the fork
 * handlers (as Chromium's sandbox makes its children), that then makes
 * timed calls (checks/rawfork.py). The parent writes 1000 times to
 * /dev/null (with a usleep each), forks by the fork system call and waits;
 * the child writes 20000 times (a usleep every 100) and _exits.
 *   sc_rawfork [-m] [-b] [UID]
 * -m: before the fork the parent also calls 20 imports once each, 20
 *     metadata records more than start-up: its metadata file is mapped
 *     then (meta.c maps past 16).
 * -b: the child calls getppid 20000 times instead of write, an import no
 *     one called before the fork (its first call binds in the child), and
 *     the parent, after the child ends, calls getpriority 1000 times (an
 *     import the parent binds after the fork).
 * -d: the parent calls dlopen and dlsym (of libc) before the fork; the
 *     child, instead of writing, loads libsc_b.so by dlopen, finds b_mul
 *     by dlsym, and calls it 20000 times through the pointer: a library,
 *     an object and an import that are the child's alone, made by
 *     wrappers bound before the fork (no first call adopts it).
 * UID: the child's first call is setuid(UID) (read before the fork; the
 *     parent calls setuid(its own uid) first, so that the child's call
 *     reaches the wrapper bound already: no first call adopts it), it
 *     prints "child rings N", N the perf rings of record_kcpu.c's size (64
 *     data pages) it maps after the change, and it ends with 4 getrandom
 *     calls of 8 MB (kernel time).
 * Prints "child signal S exit E".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../perf_rings.h"

/* the fork system call itself, not libc's syscall(): no call of the
 * child's returns before its own */
static pid_t raw_fork(void)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_fork) : "rcx", "r11", "memory");
	return (pid_t)r;
}

/* 20 imports called once each (-m) */
static long many_imports(void)
{
	struct timespec ts;
	struct stat st;
	struct rlimit rl;
	long s = getpid() + getuid() + geteuid() + getgid() + getegid();

	s += clock_gettime(CLOCK_MONOTONIC, &ts) + time(NULL) + stat("/", &st);
	s += access("/", F_OK) + getpagesize() + sysconf(_SC_OPEN_MAX) + isatty(0);
	s += getpgrp() + getsid(0) + umask(022) + rand() + getrlimit(RLIMIT_NOFILE, &rl);
	srand(1);
	sched_yield();
	s += alarm(0);
	return s;
}

int main(int argc, char **argv)
{
	int mapped = 0, bind = 0, dl = 0, a = 1;
	int (*mul)(int, int) = NULL;
	volatile long s = 0;

	for (; a < argc && argv[a][0] == '-'; a++) {
		mapped |= !strcmp(argv[a], "-m");
		bind |= !strcmp(argv[a], "-b");
		dl |= !strcmp(argv[a], "-d");
	}
	uid_t uid = a < argc ? (uid_t)strtoul(argv[a], NULL, 10) : 0;
	int fd = open("/dev/null", O_WRONLY);
	char buf[256] = {0};

	if (mapped)
		s += many_imports();
	if (a < argc && setuid(getuid()) != 0)
		return 1;
	if (dl && !dlsym(dlopen("libc.so.6", RTLD_NOW), "getpid"))
		return 1;
	for (int i = 0; i < 1000; i++) {
		if (write(fd, buf, sizeof(buf)) < 0)
			return 1;
		usleep(1);
	}
	pid_t p = raw_fork();
	if (p == 0) {
		if (a < argc) {
			if (setuid(uid) != 0)
				_exit(3);
			printf("child rings %d\n", perf_rings(65ul * (unsigned long)getpagesize()));
			fflush(stdout);
		}
		if (dl && !(mul = (int (*)(int, int))dlsym(dlopen("libsc_b.so", RTLD_NOW), "b_mul")))
			_exit(5);
		for (int i = 0; i < 20000; i++) {
			if (mul)
				s += mul(i, 2);
			else if (bind)
				s += getppid();
			else if (write(fd, buf, sizeof(buf)) < 0)
				_exit(1);
			if (i % 100 == 0)
				usleep(1);
		}
		static char big[8 << 20];
		for (int i = 0; a < argc && i < 4; i++)
			if (getrandom(big, sizeof(big), 0) != (ssize_t)sizeof(big))
				_exit(4);
		_exit(0);
	}
	int st = 0;
	waitpid(p, &st, 0);
	for (int i = 0; bind && i < 1000; i++)
		s += getpriority(PRIO_PROCESS, 0);
	printf("child signal %d exit %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0,
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
