/*
 * series.h - calls over time (format.h, "series"): `scaler record
 * --interval MS` samples the profile while it waits for its command
 * (series_wait, record_series.c), and `scaler report` reads the samples
 * back (series_load, report_series.c) as calls and time per interval.
 */
#ifndef SCALER_SERIES_H
#define SCALER_SERIES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format.h"

/* The size of a slot, and where sample i is in the file. */
static inline size_t series_slot_size(uint32_t nkeys_max)
{
	return sizeof(struct sc_series_slot) + (size_t)nkeys_max * sizeof(struct sc_series_cell);
}

static inline off_t series_slot_off(const struct sc_series_header *h, uint64_t i)
{
	return (off_t)(sizeof(*h) + (size_t)h->nkeys_max * sizeof(struct sc_series_key) +
		       (size_t)(i % h->nslots) * series_slot_size(h->nkeys_max));
}

#define SERIES_SLOTS_DEFAULT 512
#define SERIES_KEYS 256

/*
 * Waits for pid like waitpid (its status in *status; 0, or -1 with errno)
 * while sampling the profile in dir every interval_ms into dir/series, a
 * ring of nslots samples made full size before the first. The last sample
 * is taken after pid ended. A sample that cannot be read is skipped; a
 * series file that cannot be made is one `scaler:` line and no series.
 */
int series_wait(const char *dir, pid_t pid, unsigned interval_ms, unsigned nslots,
		uint64_t start_mono_ns, int *status);

/* The samples kept, oldest first; calls[s * nkeys + k] is key k's calls in
 * the interval that ends at sample s (time in ns[]), t_ns[s] its time since
 * the start. The oldest sample kept is the base of the next one and not
 * itself listed when older ones were overwritten. */
struct series {
	uint64_t interval_ns;
	uint64_t start_mono_ns; /* CLOCK_MONOTONIC when the command started */
	uint64_t dropped;       /* samples overwritten, or the base */
	uint64_t keys_dropped;
	size_t nkeys, nsamples;
	struct sc_series_key *keys;
	uint64_t *t_ns;
	uint64_t *calls;
	int64_t *ns;
};

/* Reads dir/series: 1 when read, 0 when there is none, -1 with the
 * message (naming the file) in err when it is not one. */
int series_load(const char *dir, struct series *s, char *err, size_t errlen);
void series_free(struct series *s);

/* The report's "series" object (doc/report.md): interval_ns, dropped,
 * keys_dropped, keys ([caller, callee, api]), t_ns, and per sample the
 * calls and ns of each key in its interval. */
/* The keys with any calls, most calls first, at most max of them, into
 * top (room for max); returns how many. */
size_t series_top(const struct series *s, size_t *top, size_t max);
/* Key k's calls (ns == 0) or time in ns (ns == 1) per second in the
 * interval that ends at sample i. */
double series_rate(const struct series *s, size_t i, size_t k, int ns);

struct sc_json;
void series_json(struct sc_json *j, const struct series *s);

/* Chrome trace counter events ("ph":"C") of the keys with the most calls:
 * "calls/s" and "time ms/s", one series per key, as the process root's
 * tracks; root's clocks place them on the trace's time line, whose zero
 * is the TSC reading origin. Nothing when root has no clock rate. */
struct sc_image;
void series_chrome(struct sc_json *j, const struct series *s, const struct sc_image *root,
		   uint64_t origin);

#endif
