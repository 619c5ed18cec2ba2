/*
 * util.c - the runtime's general helpers: its one kind of message (a
 * `scaler:` line on stderr, written whole with one write), its clocks, and
 * the lookup of its tables of wrappers by API name.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

void sc_warn(const char *fmt, ...)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "scaler: ");
	va_list ap;
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	ssize_t r = write(2, buf, (size_t)n);
	(void)r;
}

uint64_t sc_rdtsc(void)
{
	return sc_arch_ticks();
}

uint64_t sc_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void *sc_wrapper_find(const struct sc_wrapper *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (sc_name_eq(name, t[i].name))
			return t[i].fn;
	return NULL;
}
