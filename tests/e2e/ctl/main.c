/*
 * main.c - the "ctl" e2e test (checks/ctl.py): known calls per phase from
 * two threads, and between phases the program waits for a line on stdin,
 * so that `scaler ctl` can pause, resume, reset and snapshot it at a
 * known state. Phase 1: 1000 b_mul on the main thread, 100 on a thread
 * that ends, 500 on a worker that then waits in read(2) on a pipe;
 * phases 2, 3 and 4: 300, 700 and 200 on the main thread and 250, 400
 * and 50 on the worker. Each phase ends with "phase N SUM" on stdout;
 * then "done" and how many of its 20 ms sleeps (poll) a third thread saw
 * cut short (EINTR): scaler ctl must wake no sleeping thread, so 0.
 * Each b_mul call comes with one call of d_step through a pointer dlsym
 * gave, of own_step (--functions own_*) and of ext_step through a pointer
 * into a library named as a Python extension (patched by default): pause
 * must stop counting them all.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int b_mul(int x, int y);

static int to_worker[2], from_worker[2];
static volatile int sleep_on = 1;
static int cut_short;
static int (*d_step)(int), (*ext_step)(int);

/* no state: the threads call it at once, and the output must not vary */
__attribute__((noinline, noclone)) long own_step(int x)
{
	return (unsigned)x * 2654435761u >> 28;
}

static long muls(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += b_mul(i, 3) + d_step(i) + own_step(i) + ext_step(i);
	return s;
}

static void *sym(const char *lib, const char *name)
{
	void *h = dlopen(lib, RTLD_NOW), *p = h ? dlsym(h, name) : NULL;

	if (!p) {
		fprintf(stderr, "%s\n", dlerror());
		exit(7);
	}
	return p;
}

static void *ended(void *arg)
{
	*(long *)arg = muls(100);
	return NULL;
}

/* makes the calls it is told, in turn, until told 0 */
static void *worker(void *arg)
{
	int n = *(int *)arg;

	while (n > 0) {
		long s = muls(n);

		if (write(from_worker[1], &s, sizeof(s)) != sizeof(s) ||
		    read(to_worker[0], &n, sizeof(n)) != sizeof(n))
			exit(4);
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	while (sleep_on)
		if (poll(NULL, 0, 20) < 0 && errno == EINTR)
			cut_short++;
	return NULL;
}

static long worker_does(int n)
{
	long s = 0;

	if ((n && write(to_worker[1], &n, sizeof(n)) != sizeof(n)) ||
	    read(from_worker[0], &s, sizeof(s)) != sizeof(s))
		exit(5);
	return s;
}

static void phase_end(int k, long sum)
{
	char line[64];

	printf("phase %d %ld\n", k, sum);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		exit(3);
}

int main(void)
{
	static const int mains[] = {300, 700, 200}, works[] = {250, 400, 50};
	pthread_t e, w, s;
	long from_ended = 0;
	int first = 500, stop = 0;

	if (pipe(to_worker) || pipe(from_worker))
		return 2;
	d_step = (int (*)(int))sym("libsc_ctld.so", "d_step");
	ext_step = ((int (*(*)(void))(int))sym("sc_ctlx.cpython-311-x86_64-linux-gnu.so",
						"ext_table"))();
	pthread_create(&e, NULL, ended, &from_ended);
	pthread_join(e, NULL);
	pthread_create(&w, NULL, worker, &first);
	pthread_create(&s, NULL, sleeper, NULL);
	phase_end(1, muls(1000) + from_ended + worker_does(0));
	for (int k = 0; k < 3; k++) {
		long s = muls(mains[k]);

		phase_end(k + 2, s + worker_does(works[k]));
	}
	if (write(to_worker[1], &stop, sizeof(stop)) != sizeof(stop))
		return 6;
	pthread_join(w, NULL);
	sleep_on = 0;
	pthread_join(s, NULL);
	printf("done, %d sleeps cut short\n", cut_short);
	return 0;
}
