/*
 * threads64.c - the program bench/report.sh profiles: 64 threads, each
 * calling a spread of libc and libm functions (about 30 distinct APIs), so
 * the profile has 64 counter files with many records each, the shape of a
 * busy threaded server's. `scaler report` is then timed on it.
 */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *worker(void *arg)
{
	char buf[256], out[256];
	long n = (long)arg;
	double d = 0;
	for (long i = 0; i < 5000 + n; i++) {
		snprintf(buf, sizeof(buf), "%ld-%ld", n, i);
		d += (double)strlen(buf) + atoi(buf) + (double)strtol(buf, NULL, 10);
		d += sin((double)i) + cos(d) + sqrt((double)i) + log1p((double)i) +
		     exp(-(double)(i % 10)) + floor(d) + fmod(d, 7.0);
		memcpy(out, buf, sizeof(buf));
		memset(buf, 0, sizeof(buf));
		d += memcmp(out, buf, 16) + strcmp(out, "x") + strncmp(out, "y", 1);
		void *p = malloc(64 + (size_t)(i % 100));
		p = realloc(p, 256);
		free(p);
		d += (double)(strchr(out, '-') != NULL) + (double)(strrchr(out, '-') != NULL) +
		     (double)(strstr(out, "-1") != NULL) + toupper((int)(i & 127)) + abs((int)i) +
		     (double)labs(i) + (double)strspn(out, "0123456789");
		if (i % 1000 == 0) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			d += (double)(ts.tv_nsec & 1);
		}
	}
	return (void *)(long)(d > 0);
}

int main(void)
{
	pthread_t t[64];
	long ok = 0;
	for (long i = 0; i < 64; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 64; i++) {
		void *r;
		pthread_join(t[i], &r);
		ok += (long)r;
	}
	printf("%ld threads done\n", ok);
	return 0;
}
