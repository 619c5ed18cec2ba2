/*
 * sc_vdso - calls glibc serves from the vDSO, and a function whose address
 * the program takes but never calls (issue 19, item 7).
 *
 * time() and gettimeofday() are IFUNCs whose resolvers return the vDSO's
 * code: the program's GOT slots point into the vDSO, yet the calls are
 * libc's API and must be counted exactly. Taking malloc's address makes a
 * non-PIE program (the nopie variant) define malloc at its own PLT stub,
 * to which libc's GLOB_DAT slot for malloc binds: libc's own calls of
 * malloc (under strdup) must not show as libc calling the program, nor as
 * the program calling libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

void *(*volatile malloc_addr)(size_t);

int main(void)
{
	struct timeval tv;
	long sum = 0;
	malloc_addr = malloc;       /* in code: an absolute address (nopie) */
	for (int i = 0; i < 1000; i++)
		sum += time(NULL) > 0;
	for (int i = 0; i < 1000; i++)
		sum += gettimeofday(&tv, NULL) == 0;
	for (int i = 0; i < 100; i++) {
		char *s = strdup("scaler");
		sum += s[0] == 's';
		free(s);
	}
	printf("%ld %d\n", sum, malloc_addr != NULL);
	return 0;
}
