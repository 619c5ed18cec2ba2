/*
 * victim.c - the program tests/hostile/run.py profiles while it plays a
 * local attacker or a hostile environment. One mode per run:
 *
 *   attack N     prints "pid P", waits for a line on stdin, then starts N
 *                threads one at a time; each calls getppid 100 times,
 *                prints "T<i>", waits for a line, calls getppid 100 more
 *                times. Ends with "ok".
 *   threads N    N threads created and joined one at a time, each calling
 *                getppid once; then prints "fds <open descriptors>" and
 *                whether open() still works ("open ok" / "open <errno>").
 *   exhaust N    opens /dev/null until it runs out of descriptors, then
 *                starts N threads one at a time; prints "done".
 *   forkfds      forks a child that starts a thread; each prints "fds N",
 *                the child first.
 *   drop         as root: drops to nobody, closes every descriptor above 2,
 *                then calls getppid 7 times, starts a thread that calls it
 *                50 times, and exits with status 4.
 *   grow LIB     as root: drops to nobody, then calls f0 .. f599 of LIB
 *                (dlopen, dlsym) once each: 600 new entries on the main
 *                thread, more than its file had room for. Prints the sum.
 *   fill N       N threads one at a time, each calling getppid 10 times
 *                (the profile directory fills up meanwhile); prints "done"
 *                and exits with status 3.
 *   wait         prints "pid P", waits for a line on stdin, exits 0.
 *   dropwait U   as root: drops to uid and gid U, starts a thread that
 *                calls getppid 50 times, prints "dropped", waits for a
 *                line on stdin, then execs itself in mode quiet.
 *   quiet        calls getppid 3 times, exits 0.
 *   forkfull     as root: fills the profile directory's file system
 *                (SCALER_DIR) with empty files until none can be made,
 *                forks a child that drops to nobody and prints "child
 *                rings N", N the perf rings of record_kcpu.c's size (64
 *                data pages) it still maps; then removes the files.
 *   forkcall H [K]  as forkfull fills SCALER_DIR (up to 20000 files;
 *                then removes K of them), then
 *                forks from inside a call of libc's still in flight:
 *                qsort's comparator forks (H "fork": fork(); "raw":
 *                syscall(SYS_fork), no fork handlers), and the child
 *                returns through qsort, writes "child back" and exits 42.
 *                Prints "child status S" (or "child signal N"); then
 *                removes the files.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../e2e/perf_rings.h"

static int calls_before = 100, calls_after = 100;

static void wait_line(void)
{
	char buf[64];
	if (!fgets(buf, sizeof(buf), stdin))
		exit(9);
}

static void *attacked(void *arg)
{
	for (int i = 0; i < calls_before; i++)
		getppid();
	printf("T%ld\n", (long)(intptr_t)arg);
	fflush(stdout);
	wait_line();
	for (int i = 0; i < calls_after; i++)
		getppid();
	return NULL;
}

static void *calls(void *arg)
{
	long n = (long)(intptr_t)arg;
	for (long i = 0; i < n; i++)
		getppid();
	return NULL;
}

static void run_threads(long n, void *(*fn)(void *), long arg, int number)
{
	for (long i = 1; i <= n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, fn, (void *)(intptr_t)(number ? i : arg)) != 0) {
			printf("pthread_create failed at %ld\n", i);
			exit(8);
		}
		pthread_join(t, NULL);
	}
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n - 1;   /* the DIR's own */
}

/* Empty files in SCALER_DIR until none can be made, at most max; how
 * many were made (unfill removes them). */
static int fill(int max)
{
	const char *dir = getenv("SCALER_DIR");
	char path[4200];
	int n = 0;
	for (; dir && n < max; n++) {
		snprintf(path, sizeof(path), "%s/fill%d", dir, n);
		int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
		if (fd < 0)
			break;
		close(fd);
	}
	return n;
}

static void unfill_one(int i)
{
	const char *dir = getenv("SCALER_DIR");
	char path[4200];
	if (dir) {
		snprintf(path, sizeof(path), "%s/fill%d", dir, i);
		unlink(path);
	}
}

static void unfill(int n)
{
	for (int i = 0; i < n; i++)
		unfill_one(i);
}

static int fork_full(void)
{
	int n = fill(1 << 30), st = 0;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(8);
		printf("child rings %d\n", perf_rings(65ul * (unsigned long)getpagesize()));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	unfill(n);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 9;
}

static int raw_fork;
static pid_t forked = -1;

/* forks once, inside qsort */
static int fork_cmp(const void *a, const void *b)
{
	if (forked < 0)
		forked = raw_fork ? (pid_t)syscall(SYS_fork) : fork();
	return *(const int *)a - *(const int *)b;
}

static int fork_in_call(const char *how, int room)
{
	int n = fill(20000), st = 0, v[2] = {2, 1};
	for (; room > 0 && n > 0; room--)
		unfill_one(--n);
	raw_fork = !strcmp(how, "raw");
	fflush(stdout);
	qsort(v, 2, sizeof(v[0]), fork_cmp);
	if (forked == 0) {
		write(1, "child back\n", 11);
		_exit(42);
	}
	waitpid(forked, &st, 0);
	unfill(n);
	if (WIFEXITED(st))
		printf("child status %d\n", WEXITSTATUS(st));
	else
		printf("child signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	if (!strcmp(mode, "attack") || !strcmp(mode, "wait")) {
		printf("pid %d\n", (int)getpid());
		fflush(stdout);
		wait_line();
		if (!strcmp(mode, "attack"))
			run_threads(n, attacked, 0, 1);
		printf("ok\n");
		return 0;
	}
	if (!strcmp(mode, "threads")) {
		run_threads(n, calls, 1, 0);
		int fds = count_fds();
		int fd = open("/dev/null", O_RDONLY);
		printf("fds %d open %s\n", fds, fd >= 0 ? "ok" : strerror(errno));
		return 0;
	}
	if (!strcmp(mode, "exhaust")) {
		while (open("/dev/null", O_RDONLY) >= 0)
			;
		run_threads(n, calls, 1, 0);
		printf("done\n");
		return 0;
	}
	if (!strcmp(mode, "forkfds")) {
		pid_t pid = fork();
		if (pid == 0) {
			run_threads(1, calls, 1, 0);
			printf("fds %d\n", count_fds());
			return 0;
		}
		waitpid(pid, NULL, 0);
		printf("fds %d\n", count_fds());
		return 0;
	}
	if (!strcmp(mode, "drop")) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
			perror("drop");
			return 8;
		}
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		for (int i = 0; i < 7; i++)
			getppid();
		run_threads(1, calls, 50, 0);
		printf("dropped\n");
		exit(4);
	}
	if (!strcmp(mode, "grow") && argc > 2) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
			perror("drop");
			return 8;
		}
		void *h = dlopen(argv[2], RTLD_NOW);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 8;
		}
		long sum = 0;
		for (int i = 0; i < 600; i++) {
			char name[16];
			snprintf(name, sizeof(name), "f%d", i);
			int (*f)(void) = (int (*)(void))dlsym(h, name);
			if (!f)
				return 8;
			sum += f();
		}
		printf("sum %ld\n", sum);
		return 0;
	}
	if (!strcmp(mode, "fill")) {
		run_threads(n, calls, 10, 0);
		printf("done\n");
		return 3;
	}
	if (!strcmp(mode, "dropwait") && n > 0) {
		if (setgroups(0, NULL) || setgid((gid_t)n) || setuid((uid_t)n)) {
			perror("drop");
			return 8;
		}
		run_threads(1, calls, 50, 0);
		printf("dropped\n");
		fflush(stdout);
		wait_line();
		execl("/proc/self/exe", argv[0], "quiet", (char *)NULL);
		perror("exec");
		return 8;
	}
	if (!strcmp(mode, "forkfull"))
		return fork_full();
	if (!strcmp(mode, "forkcall") && argc > 2)
		return fork_in_call(argv[2], argc > 3 ? atoi(argv[3]) : 0);
	if (!strcmp(mode, "quiet")) {
		for (int i = 0; i < 3; i++)
			getppid();
		return 0;
	}
	fprintf(stderr, "usage: victim attack|threads|drop|fill|wait|dropwait|quiet|forkfull|"
		"forkcall [N]\n");
	return 2;
}
