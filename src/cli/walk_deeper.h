/*
 * walk_deeper.h - `scaler walk --deeper -- CMD` (walk_deeper.c): record,
 * walk, and record again with the hot place's callees patched
 * (--functions), round after round, as CrossWalk refines its
 * instrumentation; and the scan of call instructions that finds those
 * callees (walk_callees.c).
 */
#ifndef SCALER_WALK_DEEPER_H
#define SCALER_WALK_DEEPER_H

#include <stddef.h>
#include <stdio.h>

/*
 * The names of the functions of the ELF file at path that its functions
 * named roots call directly or whose addresses they take (nroots == 0:
 * the functions whose addresses any of its functions takes), the roots
 * and the C start-up's functions left out, at most max, malloc'd into out;
 * returns how many, with a one-line reason in err when none.
 */
size_t walk_callees(const char *path, const char *const *roots, size_t nroots, char **out,
		    size_t max, char *err, size_t errlen);

struct walk_opts {
	const char *dir;        /* round 1's profile; round N's is DIR.N */
	double threshold;
	int wall;               /* walk wall time, not on-CPU time */
	int json;
	unsigned rounds;        /* at most */
};

/* Runs the rounds of CMD (argv, NULL-terminated) printing each round's
 * walk on out; the exit status of `scaler walk`. */
int walk_deeper(const struct walk_opts *o, char **cmd, FILE *out);

#endif
