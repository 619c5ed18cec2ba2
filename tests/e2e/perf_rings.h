/*
 * perf_rings.h - for the test programs that check which perf rings a
 * process maps (tests/e2e/kcpu, rawfork, tests/hostile/victim.c): the count of
 * [perf_event] mappings of len bytes in /proc/self/maps.
 */
#ifndef SCALER_TEST_PERF_RINGS_H
#define SCALER_TEST_PERF_RINGS_H

#include <stdio.h>
#include <string.h>

static int perf_rings(unsigned long len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;
	unsigned long lo, hi;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[perf_event]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    hi - lo == len)
			n++;
	if (f)
		fclose(f);
	return n;
}

#endif
