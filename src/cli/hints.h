/*
 * hints.h - bug-pattern hints in a single profile, where no baseline
 * exists (hints.c), each only with the figures that triggered it:
 *
 * - lock contention: Wait in mutex, rwlock and file-lock calls;
 * - string comparisons dominating a component's time;
 * - busy polling: poll/select/epoll called at a high rate and almost
 *   never blocking;
 * - tiny I/O: many reads or writes of a few bytes each (needs the sizes:
 *   scaler record --args);
 * - allocation churn: allocations at a high rate, freed again by the same
 *   caller (with their sizes when --args recorded them).
 */
#ifndef SCALER_HINTS_H
#define SCALER_HINTS_H

#include <stddef.h>

#include "model.h"

struct hint {
	const char *kind;       /* "lock contention", "string comparisons",
				   "busy polling", "tiny I/O", "allocation
				   churn" */
	const char *caller, *callee, *api;  /* the row (api NULL: the
				   caller component as a whole) */
	double share;           /* of the time the hint is about, in [0, 1]:
				   what ranks the hints */
	char text[320];         /* in words, with the figures */
};

/* The hints of aggregate a (of a profile whose longest process ran
 * wall_ns), by share, into a malloc'd *out; returns how many. */
size_t hints_find(const struct sc_agg *a, long double wall_ns, struct hint **out);

/* Is api a read or write of bytes (read, write, send, fread...)? */
int hints_is_io_api(const char *api);

/* Is api a lock acquisition (mutex, rwlock, spin, file lock)? */
int hints_is_lock_api(const char *api);

/* Calls of a latency histogram (SC_HIST_BUCKETS, estimate.h) at or above
 * lo_ns, as a share of all of them; 0 for an empty one. */
double hints_share_above(const double *hist, double lo_ns);

/* A call that takes this long blocked: a wake-up alone takes a few µs,
 * an uncontended lock 20 ns (README: Wait of may-block APIs). */
#define HINTS_BLOCKED_NS 16384

#endif
