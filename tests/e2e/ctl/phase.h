/*
 * phase.h - the handshake of the ctl test programs (stale.c, busy.c) with
 * their check (checks/ctl_stale.py, ctl_busy.py): "phase K done" on
 * stdout, then wait for a line on stdin before going on.
 */
#ifndef CTL_PHASE_H
#define CTL_PHASE_H

#include <stdio.h>

static void phase(int k)
{
	char line[64];

	printf("phase %d done\n", k);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
}

#endif
