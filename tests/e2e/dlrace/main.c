/*
 * main.c - the "dlrace" e2e test: threads that dlopen, dlsym and dlclose
 * at once, with the loader's lock held in the ways that deadlocked or
 * crashed the runtime before:
 *   - an import's first call made under the loader's lock: each thread
 *     calls its fresh library's dlr_fn from inside a dl_iterate_phdr
 *     callback, while other threads' dlopen scans hold the runtime lock
 *     and wait for the loader's (the runtime once bound under its own
 *     lock: this hung);
 *   - a dlsym made by a constructor (the library's, through the helper
 *     libsc_dlrh.so), i.e. inside dlopen (dlsym once took the runtime lock);
 *   - a dlclose in one thread while another thread's dlopen scan patches
 *     objects (the scan read an object unmapped under it: SIGSEGV).
 * Four threads each load their own library (libsc_dlrN.so) ROUNDS times,
 * with no lock of the program's between them. Exact counts in expect;
 * the output must match.
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
	int (*fn)(int);                 /* this round's dlr_fn, called once */
};

static int cb(struct dl_phdr_info *info, size_t size, void *p)
{
	struct job *j = p;
	(void)info;
	(void)size;
	if (j->fn) {
		j->sum += j->fn(j->n);
		j->fn = NULL;
	}
	return 0;
}

static void *worker(void *p)
{
	struct job *j = p;
	char name[32];
	snprintf(name, sizeof(name), "libsc_dlr%d.so", j->n);
	for (int r = 0; r < ROUNDS; r++) {
		void *h = dlopen(name, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "dlopen %s: %s\n", name, dlerror());
			return NULL;
		}
		j->fn = (int (*)(int))dlsym(h, "dlr_fn");
		dl_iterate_phdr(cb, j);
		dlclose(h);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	struct job jobs[4];
	for (int i = 0; i < 4; i++) {
		jobs[i] = (struct job){i + 1, 0, NULL};
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
