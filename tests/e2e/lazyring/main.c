/*
 * sc_lazyring: a thread measures its time off the CPU from its own clock
 * until it first needs its perf ring (checks/lazyring.py). Each mode
 * prints on stdout what it saw: the perf rings (of a thread's switch
 * event: 3 pages) mapped in the process at points of it, and the time its
 * blocking call took by its own clock, in ns.
 *
 *   first    the first call that blocks is main's nanosleep of 50 ms,
 *            among its first timed calls: "first RINGS_BEFORE RINGS_AFTER NS"
 *   many     main calls getppid 40 times (recorded with --timing=all:
 *            40 timed returns, more than a thread makes before it opens
 *            its ring anyway), then sleeps 50 ms: "many RINGS_BEFORE
 *            RINGS_BETWEEN NS"
 *   preempt  the process is pinned to one CPU; two threads each make one
 *            call, spin() of libsc_spin.so for ~150 ms, their first: each
 *            is runnable but not running about half of it, and never
 *            blocks. Prints "preempt NS" (the wall time of both calls)
 *
 * The rings are counted from /proc/self/maps read by system calls made
 * directly: a libc call would be a timed call of its own.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

unsigned long spin(unsigned long n);

static long sys3(long nr, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

/* the [perf_event] mappings of 3 pages (a switch event's ring) */
static int rings(void)
{
	static char buf[1 << 16];
	long fd = sys3(SYS_open, (long)"/proc/self/maps", O_RDONLY, 0), n = 0, r;
	if (fd < 0)
		return -1;
	while (n < (long)sizeof(buf) - 1 && (r = sys3(SYS_read, fd, (long)buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	sys3(SYS_close, fd, 0, 0);
	buf[n] = 0;
	int k = 0;
	for (char *l = buf; l && *l;) {
		char *e = strchr(l, '\n');
		unsigned long lo, hi;
		if (e)
			*e = 0;
		if (strstr(l, "[perf_event]") && sscanf(l, "%lx-%lx", &lo, &hi) == 2 &&
		    hi - lo == 3ul * 4096)
			k++;
		l = e ? e + 1 : NULL;
	}
	return k;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long sleep50(void)
{
	struct timespec ts = {0, 50000000};
	long long t0 = now_ns();
	nanosleep(&ts, NULL);
	return now_ns() - t0;
}

static unsigned long rounds;

static void *spinner(void *arg)
{
	return (void *)spin(rounds + (unsigned long)arg);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "first")) {
		int before = rings();
		long long ns = sleep50();
		printf("first %d %d %lld\n", before, rings(), ns);
	} else if (!strcmp(mode, "many")) {
		int before = rings();
		long s = 0;
		for (int i = 0; i < 40; i++)
			s += getppid();
		int between = rings();
		long long ns = sleep50();
		printf("many %d %d %lld\n", before, between, ns + (s == 0));
	} else if (!strcmp(mode, "preempt")) {
		/* the affinity by the system call: no call of main's before */
		unsigned long one = 1;
		if (sys3(SYS_sched_setaffinity, 0, sizeof(one), (long)&one) != 0)
			return 2;
		/* ~75 ms of CPU: the rate measured first, by a call alone */
		long long t0 = now_ns();
		spin(1000000);
		long long per = now_ns() - t0;
		rounds = per > 0 ? (unsigned long)(75e6 / per * 1e6) : 100000000;
		pthread_t a, b;
		t0 = now_ns();
		if (pthread_create(&a, NULL, spinner, NULL) || pthread_create(&b, NULL, spinner, (void *)1))
			return 2;
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		printf("preempt %lld\n", now_ns() - t0);
	} else {
		fprintf(stderr, "usage: sc_lazyring first|many|preempt\n");
		return 2;
	}
	return 0;
}
