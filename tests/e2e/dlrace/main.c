/*
 * main.c - the "dlrace" e2e test: an import's first call made while the
 * dynamic loader's lock is held, racing with threads that dlopen, dlsym
 * and dlclose. Four threads each load their own library (libsc_dlrN.so),
 * find dlr_fn, and call it from inside a dl_iterate_phdr callback (which
 * runs under the loader's lock), so the fresh copy's imports are bound
 * under that lock while other threads' dlopen scans hold the runtime's
 * lock and wait for the loader's; then unload it, ROUNDS times. The
 * runtime once bound under its own lock: this hung. Exact counts in
 * expect; the output must match.
 *
 * dlopen and dlclose are serialized by the program (m): a dlclose while
 * another thread's dlopen is being scanned can still unmap an object the
 * scan is about to patch, a race of its own this test does not provoke.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 150

struct job {
	int n;
	long sum;
};

static int (*volatile cur_fn[5])(int);
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static int cb(struct dl_phdr_info *info, size_t size, void *p)
{
	struct job *j = p;
	(void)info;
	(void)size;
	if (cur_fn[j->n]) {
		j->sum += cur_fn[j->n](j->n);
		cur_fn[j->n] = NULL;            /* once per round */
	}
	return 0;
}

static void *worker(void *p)
{
	struct job *j = p;
	char name[32];
	snprintf(name, sizeof(name), "libsc_dlr%d.so", j->n);
	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&m);
		void *h = dlopen(name, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "dlopen %s: %s\n", name, dlerror());
			pthread_mutex_unlock(&m);
			return NULL;
		}
		cur_fn[j->n] = (int (*)(int))dlsym(h, "dlr_fn");
		pthread_mutex_unlock(&m);
		dl_iterate_phdr(cb, j);
		pthread_mutex_lock(&m);
		dlclose(h);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	struct job jobs[4];
	for (int i = 0; i < 4; i++) {
		jobs[i] = (struct job){i + 1, 0};
		pthread_create(&t[i], NULL, worker, &jobs[i]);
	}
	long total = 0;
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		total += jobs[i].sum;
	}
	printf("%ld\n", total);
	return 0;
}
