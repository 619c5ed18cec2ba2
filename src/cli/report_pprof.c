/*
 * report_pprof.c - `scaler report --format pprof`: the nesting tree
 * (report_stacks.c) as a gzip-compressed profile.proto
 * (github.com/google/pprof, proto/profile.proto), the format of `pprof`,
 * Pyroscope and Parca.
 *
 *   - sample types calls/count and time/nanoseconds (default_sample_type
 *     by --weight); a sample per tree node with calls or time of its own,
 *     its stack leaf first down to the process;
 *   - one function and one location per frame ("callee:api", C++ names
 *     demangled, the symbol as linked its system_name; the component; the
 *     process "cmd[pid]"); a mapping per component, the
 *     location's address a made-up one inside it (the profile has no
 *     addresses); has_functions set, so nothing tries to symbolize;
 *   - time_nanos and duration_nanos from the first process's start and
 *     the longest process.
 *
 * The protobuf wire format is written here (varints, length-delimited
 * fields, packed repeated ones); zlib writes the gzip stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report.h"

/* ---- protobuf wire format ------------------------------------------------ */

struct pb {
	unsigned char *b;
	size_t n, cap;
};

static void pb_put(struct pb *p, const void *data, size_t len)
{
	if (p->n + len > p->cap) {
		while (p->n + len > p->cap)
			p->cap = p->cap ? 2 * p->cap : 256;
		p->b = realloc(p->b, p->cap);
		if (!p->b) {
			fputs("scaler: out of memory\n", stderr);
			exit(1);
		}
	}
	memcpy(p->b + p->n, data, len);
	p->n += len;
}

static void pb_varint(struct pb *p, uint64_t v)
{
	unsigned char c[10];
	size_t n = 0;

	do {
		c[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_put(p, c, n);
}

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

/* A varint field; 0 is the default and is left out. */
static void pb_uint(struct pb *p, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(p, (uint64_t)field << 3 | WIRE_VARINT);
	pb_varint(p, v);
}

static void pb_bytes(struct pb *p, unsigned field, const void *data, size_t len)
{
	pb_varint(p, (uint64_t)field << 3 | WIRE_LEN);
	pb_varint(p, len);
	pb_put(p, data, len);
}

/* An embedded message (or packed list) built in m, then m emptied. */
static void pb_message(struct pb *p, unsigned field, struct pb *m)
{
	pb_bytes(p, field, m->b, m->n);
	m->n = 0;
}

/* ---- profile.proto ------------------------------------------------------- */

enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	MAPPING_ID = 1, MAPPING_START = 2, MAPPING_LIMIT = 3, MAPPING_FILENAME = 5,
	MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

/* The fixed strings, then one per frame (its label), then one per
 * component that has a mapping, then the raw API names. */
enum { S_EMPTY, S_CALLS, S_COUNT, S_TIME, S_NANOSECONDS, S_FIXED };
static const char *const fixed_strings[S_FIXED] = { "", "calls", "count", "time", "nanoseconds" };

/* Each mapping spans 4 GiB of made-up addresses; a location sits at its
 * frame's number inside its component's. */
#define MAPPING_SPAN (1ull << 32)

struct pprof {
	struct pb out, m, sub;
	const struct stack_tree *t;
	size_t nmaps;
	const char **maps;      /* component of mapping i + 1 */
	size_t *map_of;         /* per frame: its mapping id, 0 for none */
};

static void sample_type(struct pprof *w, uint64_t type, uint64_t unit)
{
	pb_uint(&w->m, VALUETYPE_TYPE, type);
	pb_uint(&w->m, VALUETYPE_UNIT, unit);
	pb_message(&w->out, PROFILE_SAMPLE_TYPE, &w->m);
}

/* Mappings: one per component a frame runs in, in order of first use. */
static void mappings(struct pprof *w)
{
	const struct stack_tree *t = w->t;
	size_t f, k;

	w->maps = report_xcalloc(t->nframes, sizeof(*w->maps));
	w->map_of = report_xcalloc(t->nframes, sizeof(*w->map_of));
	for (f = 0; f < t->nframes; f++) {
		const char *c = t->nodes[t->frames[f]].component;

		if (!c)
			continue;
		for (k = 0; k < w->nmaps && strcmp(w->maps[k], c); k++)
			;
		if (k == w->nmaps)
			w->maps[w->nmaps++] = c;
		w->map_of[f] = k + 1;
	}
	for (k = 0; k < w->nmaps; k++) {
		pb_uint(&w->m, MAPPING_ID, k + 1);
		pb_uint(&w->m, MAPPING_START, (k + 1) * MAPPING_SPAN);
		pb_uint(&w->m, MAPPING_LIMIT, (k + 2) * MAPPING_SPAN);
		pb_uint(&w->m, MAPPING_FILENAME, S_FIXED + t->nframes + k);
		pb_uint(&w->m, MAPPING_HAS_FUNCTIONS, 1);
		pb_message(&w->out, PROFILE_MAPPING, &w->m);
	}
}

/* A function and a location per frame, both numbered frame + 1. */
static void frames(struct pprof *w)
{
	const struct stack_tree *t = w->t;
	size_t f;

	for (f = 0; f < t->nframes; f++) {
		uint64_t id = f + 1, map = w->map_of[f];

		pb_uint(&w->m, FUNCTION_ID, id);
		pb_uint(&w->m, FUNCTION_NAME, S_FIXED + f);
		pb_uint(&w->m, FUNCTION_SYSTEM_NAME, S_FIXED + t->nframes + w->nmaps + f);
		if (map)
			pb_uint(&w->m, FUNCTION_FILENAME, S_FIXED + t->nframes + map - 1);
		pb_message(&w->out, PROFILE_FUNCTION, &w->m);

		pb_uint(&w->m, LOCATION_ID, id);
		pb_uint(&w->m, LOCATION_MAPPING_ID, map);
		if (map)
			pb_uint(&w->m, LOCATION_ADDRESS, map * MAPPING_SPAN + id);
		pb_uint(&w->sub, LINE_FUNCTION_ID, id);
		pb_message(&w->m, LOCATION_LINE, &w->sub);
		pb_message(&w->out, PROFILE_LOCATION, &w->m);
	}
}

/* A sample per node with calls or time of its own: [calls, ns]. */
static void samples(struct pprof *w)
{
	const struct stack_tree *t = w->t;
	size_t i, k, n, path[STACK_MAX_PATH];
	struct pb ids = { 0 };

	for (i = 0; i < t->n; i++) {
		uint64_t calls = report_stack_self(&t->nodes[i], WEIGHT_COUNT);
		uint64_t ns = report_stack_self(&t->nodes[i], WEIGHT_TIME);

		if (!calls && !ns)
			continue;
		n = report_stack_path(t, i, path);
		for (k = n; k-- > 0;)
			pb_varint(&ids, t->nodes[path[k]].frame + 1);
		pb_message(&w->m, SAMPLE_LOCATION_ID, &ids);
		pb_varint(&ids, calls);
		pb_varint(&ids, ns);
		pb_message(&w->m, SAMPLE_VALUE, &ids);
		pb_message(&w->out, PROFILE_SAMPLE, &w->m);
	}
	free(ids.b);
}

static void strings(struct pprof *w)
{
	const struct stack_tree *t = w->t;
	char label[1024];
	size_t k;

	for (k = 0; k < S_FIXED; k++)
		pb_bytes(&w->out, PROFILE_STRING_TABLE, fixed_strings[k], strlen(fixed_strings[k]));
	for (k = 0; k < t->nframes; k++) {
		report_stack_title(&t->nodes[t->frames[k]], label, sizeof(label));
		pb_bytes(&w->out, PROFILE_STRING_TABLE, label, strlen(label));
	}
	for (k = 0; k < w->nmaps; k++)
		pb_bytes(&w->out, PROFILE_STRING_TABLE, w->maps[k], strlen(w->maps[k]));
	for (k = 0; k < t->nframes; k++) {
		const struct stack_node *n = &t->nodes[t->frames[k]];
		const char *raw = n->call && n->call->symbol ? n->call->symbol : n->name;

		pb_bytes(&w->out, PROFILE_STRING_TABLE, raw, strlen(raw));
	}
}

/* The encoded profile through gzip into f; 0, or -1 if zlib failed. */
static int write_gzip(FILE *f, const struct pb *p)
{
	unsigned char buf[65536];
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	/* windowBits 15 + 16: a gzip header and trailer, not zlib's */
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = p->b;
	z.avail_in = (uInt)p->n;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		rc = deflate(&z, Z_FINISH);
		if (rc == Z_STREAM_ERROR)
			break;
		fwrite(buf, 1, sizeof(buf) - z.avail_out, f);
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

void report_pprof(const struct report *r)
{
	const struct sc_image *first = NULL;
	struct stack_tree t;
	struct pprof w;
	size_t i;

	report_stacks(r, &t);
	memset(&w, 0, sizeof(w));
	w.t = &t;
	sample_type(&w, S_CALLS, S_COUNT);
	sample_type(&w, S_TIME, S_NANOSECONDS);
	samples(&w);
	mappings(&w);
	frames(&w);
	strings(&w);
	for (i = 0; i < r->p->nimages && !first; i++)
		if (report_has_image(r, &r->p->images[i]))
			first = &r->p->images[i];
	if (first)
		pb_uint(&w.out, PROFILE_TIME_NANOS, first->hdr.start_real_ns);
	pb_uint(&w.out, PROFILE_DURATION_NANOS,
		(uint64_t)(r->only ? r->only->wall_ns : r->p->wall_ns));
	pb_uint(&w.out, PROFILE_DEFAULT_SAMPLE_TYPE, r->weight == WEIGHT_COUNT ? S_CALLS : S_TIME);
	/* a zlib failure (out of memory) leaves a short file: the write
	 * check of cmd_report cannot see it, so say so here */
	if (write_gzip(r->out, &w.out) < 0)
		fputs("scaler: report: zlib could not compress the profile\n", stderr);
	free(w.out.b);
	free(w.m.b);
	free(w.sub.b);
	free(w.maps);
	free(w.map_of);
	report_stacks_free(&t);
}
