/*
 * live.h - what `scaler live` shares between its files: snapshots of a
 * profile directory that a program is still writing (live_snap.c), the
 * rows of one view with their growth since the previous snapshot, and the
 * drawing of those rows as text (live_view.c). cmd_live.c is the command:
 * options, finding a process's profile, the refresh loop and the keys.
 *
 * A snapshot is an ordinary load of the directory (profile.h) and its model
 * (model.h): the counters live in MAP_SHARED thread files that the reader
 * preads, so reading never stops the program. Two snapshots are compared
 * key by key, (caller, callee, api) or (caller, callee): counts only grow,
 * a key missing from the older snapshot (a new thread, process or API)
 * counts from zero, and an estimated time that came out lower (a new
 * timed sample, the clock rate refined when a process ended) grows by 0.
 */
#ifndef SCALER_LIVE_H
#define SCALER_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "profile.h"

struct live_snap {
	struct sc_profile p;
	struct sc_model m;
	int64_t mono_ns;        /* CLOCK_MONOTONIC when it was read */
};

/* Load dir into s; tries again a few times over ~50 ms when a file is
 * caught half-written (a thread header being filled in). Returns 0, or -1
 * with the message in err (s is then empty, ready for live_snap_free). */
int live_snap_load(struct live_snap *s, const char *dir, char *err, size_t errlen);
void live_snap_free(struct live_snap *s);

/* Which processes a view shows: all, a process with its descendants (its
 * images and those of every process whose parent chain reaches it), or one
 * image. */
enum live_sel_kind { SEL_ALL, SEL_TREE, SEL_IMAGE };
struct live_sel {
	enum live_sel_kind kind;
	uint32_t pid, gen;
};

int live_sel_has(const struct sc_profile *p, const struct live_sel *sel,
		 const struct sc_image *im);

/* The view's grouping: one row per (caller, callee, api) or per (caller,
 * callee) component pair. */
enum live_view { VIEW_API, VIEW_COMP };

/* One row: the cumulative figures (c: the report's call shape; api is ""
 * in the component view) and their growth since the previous snapshot. */
struct live_row {
	struct sc_call c;
	uint64_t dcount;
	int64_t dns;
};

enum live_sort { LSORT_RATE, LSORT_TOTAL, LSORT_P99, LSORT_COUNT };

struct live_rows {
	size_t n;
	struct live_row *rows;
	int64_t elapsed_ns;     /* since the earliest selected process started */
	int64_t dt_ns;          /* between the two snapshots (0: only one) */
	uint64_t count, dcount; /* sums over the rows */
	int64_t total_ns, dns;
	size_t nimages, nrunning;
};

/* The rows of sel in view v from cur, their growth since prev (NULL: no
 * previous snapshot, growth is everything since start), sorted by sort.
 * Strings point into cur. Free with live_rows_free. */
void live_rows_build(struct live_rows *out, struct live_snap *cur, const struct live_snap *prev,
		     const struct live_sel *sel, enum live_view v, enum live_sort sort);
void live_rows_free(struct live_rows *r);

/* The calls of sel in cur exactly as `scaler report` has them (its model's
 * aggregate: of all images, or of one with --pid) when sel is all or one
 * image; merged over the images otherwise. *n rows; *owned (to free) is
 * set when they were merged here. */
const struct sc_call *live_calls(struct live_snap *cur, const struct live_sel *sel, size_t *n,
				 struct sc_call **owned);

/* ---- live_view.c ---- */

/* Table lines of r for a width of cols columns (>= 40): the header line,
 * then one line per row, at most max_rows (0: all). Each line into lines[]
 * (malloc'd, caller frees each and the array); returns their number. */
size_t live_view_lines(const struct live_rows *r, enum live_view v, int cols, size_t max_rows,
		       char ***lines);

#endif
