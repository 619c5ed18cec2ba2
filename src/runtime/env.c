/*
 * env.c - the runtime's settings read from the environment, by hand: what
 * the start-up needs of getenv and strtoull. Their code is pages of libc
 * that a small program never touches, and each page is one more page
 * fault in every profiled process (doc/performance.md).
 */
#include <stdint.h>

#include "runtime.h"

/* The decimal at s (leading digits only; 0 if none, saturating past
 * UINT64_MAX), *end set past them if end. */
uint64_t sc_get_u64(const char *s, const char **end)
{
	uint64_t v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		uint64_t d = (uint64_t)(*s - '0');
		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
	}
	if (end)
		*end = s;
	return v;
}

/* The value of environment variable name, or NULL (getenv's). Called
 * before the runtime's imports are bound to libc (sc_bind_self_to_libc),
 * so it calls no function: a loop that measures a string would be made a
 * call of strlen, which a library the program interposes would see. */
const char *sc_getenv(const char *name)
{
	extern char **environ;
	for (char **e = environ; e && *e; e++) {
		const char *a = name, *b = *e;
		while (*a && *a == *b) {
			a++;
			b++;
		}
		if (!*a && *b == '=')
			return b + 1;
	}
	return NULL;
}
