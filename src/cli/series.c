/*
 * series.c - the series file (format.h): written by `scaler record
 * --interval MS` while it waits for its command, read by `scaler report`
 * (series.h).
 *
 * The sampler is scaler record itself, not the runtime: it reads the
 * profile directory as `scaler live` does (the counters are MAP_SHARED
 * files), so the profiled program pays nothing for the series beyond the
 * CPU the reading takes on the machine. The ring is made full size when
 * the run starts; memory and disk never grow with the run's length.
 */
#include "series.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "live.h"
#include "xalloc.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static size_t slot_size(uint32_t nkeys_max)
{
	return sizeof(struct sc_series_slot) + (size_t)nkeys_max * sizeof(struct sc_series_cell);
}

static off_t slot_off(const struct sc_series_header *h, uint64_t i)
{
	return (off_t)(sizeof(*h) + (size_t)h->nkeys_max * sizeof(struct sc_series_key) +
		       (size_t)(i % h->nslots) * slot_size(h->nkeys_max));
}

/* ---- writing ------------------------------------------------------------ */

struct writer {
	int fd;
	struct sc_series_header h;
	struct sc_series_key *keys;
	struct sc_series_cell *cells;
	const char *dir;
};

static int key_is(const struct sc_series_key *k, const struct sc_call *c)
{
	return !strncmp(k->caller, c->caller, sizeof(k->caller) - 1) &&
	       !strncmp(k->callee, c->callee, sizeof(k->callee) - 1) &&
	       !strncmp(k->api, c->api, sizeof(k->api) - 1);
}

/* The column of c's key, a new one if there is room; -1 if not. */
static int column(struct writer *w, const struct sc_call *c)
{
	for (uint32_t k = 0; k < w->h.nkeys; k++)
		if (key_is(&w->keys[k], c))
			return (int)k;
	if (w->h.nkeys == w->h.nkeys_max)
		return -1;
	struct sc_series_key *k = &w->keys[w->h.nkeys];

	snprintf(k->caller, sizeof(k->caller), "%s", c->caller);
	snprintf(k->callee, sizeof(k->callee), "%s", c->callee);
	snprintf(k->api, sizeof(k->api), "%s", c->api);
	if (pwrite(w->fd, k, sizeof(*k), (off_t)(sizeof(w->h) + w->h.nkeys * sizeof(*k))) !=
	    (ssize_t)sizeof(*k))
		return -1;
	return (int)w->h.nkeys++;
}

/* One sample: the whole profile's calls so far, into the next slot. */
static void sample(struct writer *w)
{
	struct live_snap s;
	char err[512];
	struct sc_series_slot slot = { now_ns(), 0 };
	uint64_t dropped = 0;

	if (live_snap_load(&s, w->dir, err, sizeof(err)) < 0) {
		live_snap_free(&s);
		return;         /* no sample this time: the next one has it all */
	}
	memset(w->cells, 0, w->h.nkeys_max * sizeof(*w->cells));
	for (size_t i = 0; i < s.m.agg.ncalls; i++) {
		const struct sc_call *c = &s.m.agg.calls[i];
		int k = column(w, c);

		if (k < 0) {
			dropped++;
			continue;
		}
		w->cells[k].count += c->count;
		w->cells[k].total_ns += c->total_ns;
	}
	live_snap_free(&s);
	off_t at = slot_off(&w->h, w->h.nsamples);
	if (pwrite(w->fd, &slot, sizeof(slot), at) != (ssize_t)sizeof(slot) ||
	    pwrite(w->fd, w->cells, w->h.nkeys_max * sizeof(*w->cells), at + (off_t)sizeof(slot)) !=
	    (ssize_t)(w->h.nkeys_max * sizeof(*w->cells)))
		return;
	/* the slot is whole before the header counts it */
	w->h.nsamples++;
	if (dropped > w->h.keys_dropped)
		w->h.keys_dropped = dropped;
	if (pwrite(w->fd, &w->h, sizeof(w->h), 0) != (ssize_t)sizeof(w->h))
		return;
}

static int writer_open(struct writer *w, const char *dir, unsigned interval_ms, unsigned nslots,
		       uint64_t start)
{
	char path[4096];
	off_t size;

	struct sc_series_header h = {
		.magic = SC_SERIES_MAGIC, .version = SC_SERIES_VERSION, .nkeys_max = SERIES_KEYS,
		.nslots = nslots, .interval_ns = (uint64_t)interval_ms * 1000000ull,
		.start_mono_ns = start,
	};

	memset(w, 0, sizeof(*w));
	w->dir = dir;
	w->h = h;
	size = slot_off(&h, 0) + (off_t)nslots * (off_t)slot_size(SERIES_KEYS);
	snprintf(path, sizeof(path), "%s/%s", dir, SC_SERIES_FILE);
	w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0 || ftruncate(w->fd, size) != 0 ||
	    pwrite(w->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		fprintf(stderr, "scaler: cannot make %s: %s; no series\n", path, strerror(errno));
		if (w->fd >= 0)
			close(w->fd);
		return -1;
	}
	w->keys = sc_xcalloc(SERIES_KEYS, sizeof(*w->keys));
	w->cells = sc_xcalloc(SERIES_KEYS, sizeof(*w->cells));
	return 0;
}

/* Sleeps until pid ends or deadline (CLOCK_MONOTONIC ns): on its pidfd
 * when there is one, so that its end is seen at once. */
static void nap(int pidfd, uint64_t deadline)
{
	uint64_t now = now_ns();

	if (now >= deadline)
		return;
	if (pidfd >= 0) {
		struct pollfd p = { pidfd, POLLIN, 0 };

		poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
	} else {
		uint64_t d = deadline - now > 1000000 ? 1000000 : deadline - now;

		nanosleep(&(struct timespec){ 0, (long)d }, NULL);
	}
}

int series_wait(const char *dir, pid_t pid, unsigned interval_ms, unsigned nslots,
		uint64_t start_mono_ns, int *status)
{
	struct writer w;
	int ok = writer_open(&w, dir, interval_ms, nslots, start_mono_ns) == 0;
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	uint64_t next = start_mono_ns + (uint64_t)interval_ms * 1000000ull;
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			break;
		if (ok && now_ns() >= next) {
			sample(&w);
			next += (uint64_t)interval_ms * 1000000ull;
			if (next < now_ns())    /* a slow read: skip, not catch up */
				next = now_ns() + (uint64_t)interval_ms * 1000000ull;
		}
		nap(pidfd, ok ? next : now_ns() + 1000000000ull);
	}
	if (pidfd >= 0)
		close(pidfd);
	if (ok) {
		sample(&w);     /* the end: every call of the run */
		close(w.fd);
		free(w.keys);
		free(w.cells);
	}
	return r == pid ? 0 : -1;
}

/* ---- reading ------------------------------------------------------------ */

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
	int fd;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/%s", dir, SC_SERIES_FILE);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "cannot open %s: %s", path,
						       strerror(errno)), -1);
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
		off_t at = slot_off(&h, i);

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
