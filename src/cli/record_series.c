/*
 * record_series.c - the series file (format.h, series.h) written by
 * `scaler record --interval MS` while it waits for its command
 * (report_series.c reads it).
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

#include "live.h"
#include "xalloc.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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
	off_t at = series_slot_off(&w->h, w->h.nsamples);
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
	size = series_slot_off(&h, 0) + (off_t)nslots * (off_t)series_slot_size(SERIES_KEYS);
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
