/*
 * report_series.c - the series file (format.h, series.h) read back for
 * `scaler report`: the samples the ring still holds as calls and time per
 * interval, and the report's JSON "series" object (doc/report.md).
 */
#include "series.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "profile.h"
#include "xalloc.h"

#define CHROME_KEYS 8   /* the keys a counter track shows */

static void json_row_u(struct sc_json *j, const uint64_t *v, size_t n)
{
	sc_json_begin_array(j);
	for (size_t i = 0; i < n; i++)
		sc_json_uint(j, v[i]);
	sc_json_end_array(j);
}

void series_json(struct sc_json *j, const struct series *s)
{
	sc_json_begin_object(j);
	sc_json_key(j, "interval_ns");
	sc_json_uint(j, s->interval_ns);
	sc_json_key(j, "dropped");
	sc_json_uint(j, s->dropped);
	sc_json_key(j, "keys_dropped");
	sc_json_uint(j, s->keys_dropped);
	sc_json_key(j, "keys");
	sc_json_begin_array(j);
	for (size_t k = 0; k < s->nkeys; k++) {
		sc_json_begin_array(j);
		sc_json_string(j, s->keys[k].caller);
		sc_json_string(j, s->keys[k].callee);
		sc_json_string(j, s->keys[k].api);
		sc_json_end_array(j);
	}
	sc_json_end_array(j);
	sc_json_key(j, "t_ns");
	json_row_u(j, s->t_ns, s->nsamples);
	sc_json_key(j, "calls");
	sc_json_begin_array(j);
	for (size_t i = 0; i < s->nsamples; i++)
		json_row_u(j, s->calls + i * s->nkeys, s->nkeys);
	sc_json_end_array(j);
	sc_json_key(j, "ns");
	sc_json_begin_array(j);
	for (size_t i = 0; i < s->nsamples; i++) {
		sc_json_begin_array(j);
		for (size_t k = 0; k < s->nkeys; k++)
			sc_json_int(j, s->ns[i * s->nkeys + k]);
		sc_json_end_array(j);
	}
	sc_json_end_array(j);
	sc_json_end_object(j);
}

static uint64_t key_calls(const struct series *s, size_t k)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->nsamples; i++)
		n += s->calls[i * s->nkeys + k];
	return n;
}

static const struct series *by_calls_of;       /* what by_calls compares */

static int by_calls(const void *a, const void *b)
{
	uint64_t x = key_calls(by_calls_of, *(const size_t *)a);
	uint64_t y = key_calls(by_calls_of, *(const size_t *)b);

	if (x != y)
		return x > y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

size_t series_top(const struct series *s, size_t *top, size_t max)
{
	size_t *all = sc_xcalloc(s->nkeys + 1, sizeof(*all)), n = 0;

	for (size_t k = 0; k < s->nkeys; k++)
		if (key_calls(s, k))
			all[n++] = k;
	by_calls_of = s;
	sc_sort(all, n, sizeof(*all), by_calls);
	if (n > max)
		n = max;
	memcpy(top, all, n * sizeof(*top));
	free(all);
	return n;
}

/* The length of the interval that ends at sample i, in seconds. */
static double interval_s(const struct series *s, size_t i)
{
	uint64_t from = i ? s->t_ns[i - 1] : s->dropped ? s->t_ns[0] - s->interval_ns : 0;

	return (double)(s->t_ns[i] - from) / 1e9;
}

double series_rate(const struct series *s, size_t i, size_t k, int ns)
{
	double dur = interval_s(s, i);
	size_t at = i * s->nkeys + k;

	if (dur <= 0)
		return 0;
	return (ns ? (double)s->ns[at] : (double)s->calls[at]) / dur;
}

void series_chrome(struct sc_json *j, const struct series *s, const struct sc_image *root,
		   uint64_t origin)
{
	size_t top[CHROME_KEYS], ntop;
	char name[CHROME_KEYS][320];

	if (!root || root->tsc_hz <= 0 || !s->nsamples)
		return;
	ntop = series_top(s, top, CHROME_KEYS);
	for (size_t i = 0; i < ntop; i++)
		snprintf(name[i], sizeof(name[i]), "%s -> %s:%s", s->keys[top[i]].caller,
			 s->keys[top[i]].callee, s->keys[top[i]].api);
	/* the series' zero (CLOCK_MONOTONIC) on the trace's (TSC origin) */
	long double origin_mono = (long double)root->hdr.start_mono_ns -
		((long double)root->hdr.start_tsc - (long double)origin) * 1e9L / root->tsc_hz;
	long double shift = (long double)s->start_mono_ns - origin_mono;

	for (size_t i = 0; i < s->nsamples; i++) {
		uint64_t from = i ? s->t_ns[i - 1]
			      : s->dropped ? s->t_ns[0] - s->interval_ns : 0;

		if (interval_s(s, i) <= 0)
			continue;
		for (int what = 0; what < 2; what++) {
			sc_json_begin_object(j);
			sc_json_key(j, "ph");
			sc_json_string(j, "C");
			sc_json_key(j, "name");
			sc_json_string(j, what ? "time ms/s" : "calls/s");
			sc_json_key(j, "pid");
			sc_json_uint(j, root->pid);
			sc_json_key(j, "tid");
			sc_json_uint(j, 0);
			sc_json_key(j, "ts");
			/* the series starts before the runtime does (exec) */
			sc_json_thousandths(j, shift + (long double)from > 0
					    ? (int64_t)(shift + (long double)from) : 0);
			sc_json_key(j, "args");
			sc_json_begin_object(j);
			for (size_t t = 0; t < ntop; t++) {
				sc_json_key(j, name[t]);
				/* three decimals: ms/s, calls/s */
				sc_json_thousandths(j, (int64_t)(series_rate(s, i, top[t], what) *
								 (what ? 1e-3 : 1e3)));
			}
			sc_json_end_object(j);
			sc_json_end_object(j);
		}
	}
}

void series_free(struct series *s)
{
	free(s->keys);
	free(s->t_ns);
	free(s->calls);
	free(s->ns);
	memset(s, 0, sizeof(*s));
}

int series_load(const char *dir, struct series *s, char *err, size_t errlen)
{
	char path[4096];
	struct sc_series_header h;
	struct sc_series_slot slot;
	struct sc_series_cell *prev, *cur;
	uint64_t first, have;
	struct stat st;
	int fd;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/%s", dir, SC_SERIES_FILE);
	/* as the profile reader opens its files: not through a link, not
	 * blocking on a fifo planted under this name (profile.c) */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "cannot open %s: %s", path,
						       strerror(errno)), -1);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, SC_SERIES_MAGIC, 8) || h.version != SC_SERIES_VERSION ||
	    !h.nslots || h.nslots > 1u << 20 || !h.nkeys_max || h.nkeys_max > 1u << 16 ||
	    h.nkeys > h.nkeys_max) {
		snprintf(err, errlen, "%s: not a series file of this scaler (version %u)", path,
			 SC_SERIES_VERSION);
		close(fd);
		return -1;
	}
	s->interval_ns = h.interval_ns;
	s->start_mono_ns = h.start_mono_ns;
	s->keys_dropped = h.keys_dropped;
	s->nkeys = h.nkeys;
	s->keys = sc_xcalloc(h.nkeys, sizeof(*s->keys));
	if (pread(fd, s->keys, h.nkeys * sizeof(*s->keys), (off_t)sizeof(h)) !=
	    (ssize_t)(h.nkeys * sizeof(*s->keys)))
		goto short_file;
	for (size_t k = 0; k < h.nkeys; k++) {
		s->keys[k].caller[sizeof(s->keys[k].caller) - 1] = 0;
		s->keys[k].callee[sizeof(s->keys[k].callee) - 1] = 0;
		s->keys[k].api[sizeof(s->keys[k].api) - 1] = 0;
	}
	/* the samples still in the ring; when the oldest were overwritten,
	 * the first one left is only the base of the next */
	have = h.nsamples < h.nslots ? h.nsamples : h.nslots;
	first = h.nsamples - have;
	if (first > 0 && have > 0) {
		first++;
		have--;
	}
	s->dropped = first;
	s->t_ns = sc_xcalloc(have, sizeof(*s->t_ns));
	s->calls = sc_xcalloc(have * h.nkeys, sizeof(*s->calls));
	s->ns = sc_xcalloc(have * h.nkeys, sizeof(*s->ns));
	prev = sc_xcalloc(h.nkeys_max, sizeof(*prev));
	cur = sc_xcalloc(h.nkeys_max, sizeof(*cur));
	for (uint64_t i = first ? first - 1 : 0; i < first + have; i++) {
		off_t at = series_slot_off(&h, i);

		if (pread(fd, &slot, sizeof(slot), at) != (ssize_t)sizeof(slot) ||
		    pread(fd, cur, h.nkeys_max * sizeof(*cur), at + (off_t)sizeof(slot)) !=
		    (ssize_t)(h.nkeys_max * sizeof(*cur))) {
			free(prev);
			free(cur);
			goto short_file;
		}
		if (i >= first) {
			size_t n = s->nsamples++;

			s->t_ns[n] = slot.mono_ns > h.start_mono_ns ? slot.mono_ns - h.start_mono_ns : 0;
			for (size_t k = 0; k < h.nkeys; k++) {
				/* counts only grow; an estimate may come out lower */
				s->calls[n * h.nkeys + k] = cur[k].count > prev[k].count
							    ? cur[k].count - prev[k].count : 0;
				s->ns[n * h.nkeys + k] = cur[k].total_ns > prev[k].total_ns
							 ? cur[k].total_ns - prev[k].total_ns : 0;
			}
		}
		memcpy(prev, cur, h.nkeys_max * sizeof(*cur));
	}
	free(prev);
	free(cur);
	close(fd);
	return 1;
short_file:
	snprintf(err, errlen, "%s: cut short", path);
	close(fd);
	series_free(s);
	return -1;
}
