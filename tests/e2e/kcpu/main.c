/*
 * sc_kcpu: kernel time in a process that makes it hard for per-CPU
 * kernel sampling to reach it (checks/kernel_cpu.py). Prints "MODE NS",
 * the time of its getrandom loop by its own clock.
 *
 *   random      getrandom of 8 MB buffers, 16 times
 *   fork UID    writes over its environment (as nginx's process titles
 *               do), then forks a child that drops to UID (when root) and
 *               makes the same 16 getrandom calls; the parent waits and
 *               prints the child's time and how many perf mappings of
 *               ring length LEN bytes (the recorder's per-CPU rings) the
 *               child had before and after the drop: "fork NS BEFORE AFTER"
 *   drop UID LEN PID
 *               forks a child that starts a thread, lets process PID run
 *               for 200 ms, drops to UID, starts a second thread; the
 *               first makes the 16 calls with getrandom(), the second
 *               with syscall(SYS_getrandom) (a row each); the parent prints "drop
 *               RINGS FOREIGN_BEFORE FOREIGN_AFTER OWN": how many rings
 *               of LEN bytes the child still maps after the drop, how
 *               many samples of process PID (one outside the run) they
 *               held before the drop and after the calls, and how many of
 *               the child's own after the calls (records it can read in
 *               them, the kernel's layout)
 *   busy SECONDS
 *               getrandom of 64 KB buffers for SECONDS: kernel time
 *   tick LEN PERIOD
 *               getrandom of 64 KB buffers for 0.4 s, then prints "tick
 *               N NEAR": how many of its own samples the rings of LEN
 *               bytes mapped here hold, and how many of them were taken
 *               from 0 to 500 us after a multiple of PERIOD ns of
 *               CLOCK_MONOTONIC (where the kernel's tick fires)
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../perf_rings.h"

extern char **environ;
static char big[8 << 20];

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Samples of process pid in the perf rings of len bytes mapped here, as
 * far back as they can be read (a ring written backward: from data_head
 * on, newest to oldest). */
static long long samples_of(unsigned long len, unsigned pid, long long period, long long *near)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	long long n = 0;
	unsigned long lo, hi;
	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[perf_event]") || sscanf(line, "%lx-%lx", &lo, &hi) != 2 ||
		    hi - lo != len)
			continue;
		struct perf_event_mmap_page *pg = (void *)lo;
		uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		uint64_t size = pg->data_size, off = 0;
		const char *data = (const char *)pg + pg->data_offset;
		while (size && off + sizeof(struct perf_event_header) <= size) {
			struct perf_event_header h;
			uint32_t who[2];
			memcpy(&h, data + (head + off) % size, sizeof(h));
			if (h.size < sizeof(h) || off + h.size > size || (h.size & 7))
				break;
			if (h.type == PERF_RECORD_SAMPLE) {
				uint64_t at;
				memcpy(who, data + (head + off + sizeof(h)) % size, sizeof(who));
				memcpy(&at, data + (head + off + sizeof(h) + 8) % size, sizeof(at));
				n += who[0] == pid;
				if (who[0] == pid && near && (long long)(at % period) < 500000)
					++*near;
			}
			off += h.size;
		}
	}
	if (f)
		fclose(f);
	return n;
}

static long long randoms(void)
{
	long long t0 = now_ns();
	for (int i = 0; i < 16; i++)
		if (getrandom(big, sizeof(big), 0) != (ssize_t)sizeof(big))
			exit(2);
	return now_ns() - t0;
}

/* The child's figures r[n] down pipe p, and its exit. */
static void report(int *p, const long long *r, size_t n)
{
	_exit(write(p[1], r, n * sizeof(*r)) == (ssize_t)(n * sizeof(*r)) ? 0 : 4);
}

/* The parent: child pid's n figures from pipe p, printed after word;
 * 0, or 1 when the child failed. */
static int print_child(int *p, pid_t pid, const char *word, size_t n)
{
	long long r[8];
	int st;
	if (read(p[0], r, n * sizeof(*r)) != (ssize_t)(n * sizeof(*r)) ||
	    waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("%s", word);
	for (size_t i = 0; i < n; i++)
		printf(" %lld", r[i]);
	printf("\n");
	return 0;
}

static int go[2];                /* the first thread waits for the drop */

static void *randoms_thread(void *arg)
{
	char c;
	if (read(go[0], &c, 1) != 1)
		exit(5);
	(void)arg;
	randoms();
	return NULL;
}

static void *syscalls_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 16; i++)
		if (syscall(SYS_getrandom, big, sizeof(big), 0) != (long)sizeof(big))
			exit(2);
	return NULL;
}

/* drop UID LEN PID */
static int drop(char **argv)
{
	unsigned long len = strtoul(argv[3], NULL, 10);
	unsigned outside = (unsigned)strtoul(argv[4], NULL, 10);
	int p[2];
	if (pipe(p))
		return 2;
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		pthread_t t[2];
		if (pipe(go) || pthread_create(&t[0], NULL, randoms_thread, NULL))
			_exit(3);
		usleep(200000);
		long long before = samples_of(len, outside, 1, NULL);
		if (setgid((gid_t)atoi(argv[2])) || setuid((uid_t)atoi(argv[2])) ||
		    write(go[1], "", 1) != 1 || pthread_create(&t[1], NULL, syscalls_thread, NULL))
			_exit(3);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		long long r[4] = {perf_rings(len), before, samples_of(len, outside, 1, NULL),
				  samples_of(len, (unsigned)getpid(), 1, NULL)};
		report(p, r, 4);
	}
	return print_child(p, pid, "drop", 4);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "random")) {
		printf("random %lld\n", randoms());
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "busy")) {
		long long end = now_ns() + atoll(argv[2]) * 1000000000LL;
		while (now_ns() < end)
			if (getrandom(big, 65536, 0) != 65536)
				return 2;
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "tick")) {
		long long end = now_ns() + 400000000LL, near = 0, n;
		while (now_ns() < end)
			if (getrandom(big, 65536, 0) != 65536)
				return 2;
		n = samples_of(strtoul(argv[2], NULL, 10), (unsigned)getpid(), atoll(argv[3]), &near);
		printf("tick %lld %lld\n", n, near);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "drop"))
		return drop(argv);
	if (argc != 4 || strcmp(argv[1], "fork")) {
		fprintf(stderr, "usage: sc_kcpu random | fork UID LEN | drop UID LEN PID | busy S | tick LEN PERIOD\n");
		return 2;
	}
	int p[2];
	if (pipe(p))
		return 2;
	for (char **e = environ; *e; e++)
		memset(*e, 'x', strlen(*e));
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		unsigned long len = strtoul(argv[3], NULL, 10);
		int before = perf_rings(len);
		if (getuid() == 0 && (setgid((gid_t)atoi(argv[2])) || setuid((uid_t)atoi(argv[2]))))
			_exit(3);
		long long r[3] = {randoms(), before, perf_rings(len)};
		report(p, r, 3);
	}
	return print_child(p, pid, "fork", 3);
}
