/*
 * fnsite.h - the function entries patched in an attached process
 * (scaler record -p --functions): the table the runtime keeps in its own
 * memory (src/runtime/fnsites.c) and scaler reads and writes from outside
 * (src/cli/record_fnsites.c), with every thread of the process stopped, to
 * write each entry's jump and to put its bytes back at the detach. Its
 * layout is shared by both sides, which are built together.
 */
#ifndef SCALER_FNSITE_H
#define SCALER_FNSITE_H

#include <stdint.h>

#define SC_FNSITE_BYTES 24      /* the most an entry's jump overwrites */

/* What has become of one entry. */
enum sc_fnsite_state {
	SC_FNSITE_PENDING = 1,  /* its code is ready; scaler writes the jump */
	SC_FNSITE_PATCHED,      /* the jump is in place */
	SC_FNSITE_BUSY_PC,      /* refused: a thread's next instruction in its bytes */
	SC_FNSITE_BUSY_STACK,   /* refused: an address in its bytes on a thread's stack */
	SC_FNSITE_CHANGED,      /* refused: its bytes are not what the runtime read */
	SC_FNSITE_FAILED,       /* refused: the write failed */
	SC_FNSITE_RESTORED,     /* put back at the detach */
	SC_FNSITE_UNLOADED,     /* its object was unloaded: its address may be
				   another's (a copy loaded again) */
};

struct sc_fnsite {
	uint64_t at;            /* the first byte the jump overwrites */
	uint32_t fn;            /* the runtime's number of the function */
	uint8_t len;            /* bytes overwritten (<= SC_FNSITE_BYTES) */
	uint8_t state;          /* enum sc_fnsite_state */
	uint8_t pad[2];
	uint8_t orig[SC_FNSITE_BYTES];
	uint8_t jump[SC_FNSITE_BYTES];
};
_Static_assert(sizeof(struct sc_fnsite) == 64, "struct sc_fnsite is shared");

/* The table: sites[0 .. n) are complete (n is stored last). */
struct sc_fnsites {
	uint64_t n;
	uint64_t sites;         /* address of struct sc_fnsite[] */
};

/* scaler_attach's last argument: what scaler asks and what it gets. */
struct sc_attach_fns {
	uint64_t spec;          /* address of --functions' PATTERN,... or 0 */
	uint64_t table;         /* out: address of struct sc_fnsites, 0: none */
};

#endif
