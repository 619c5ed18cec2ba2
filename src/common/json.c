/*
 * json.c - the streaming JSON writer declared in json.h.
 */
#include "json.h"

#include <inttypes.h>
#include <string.h>

void sc_json_init(struct sc_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* Emit the separator a new value needs at the current position. */
static void before_value(struct sc_json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth <= 0 || j->depth > SC_JSON_MAX_DEPTH)
		return;         /* top level, or nested too deep to track */
	if (j->nonempty[j->depth - 1])
		fputc(',', j->f);
	j->nonempty[j->depth - 1] = 1;
}

static void open_level(struct sc_json *j, int c)
{
	before_value(j);
	fputc(c, j->f);
	if (j->depth < SC_JSON_MAX_DEPTH)
		j->nonempty[j->depth] = 0;
	j->depth++;
}

static void close_level(struct sc_json *j, int c)
{
	if (j->depth > 0)
		j->depth--;
	fputc(c, j->f);
}

void sc_json_begin_object(struct sc_json *j) { open_level(j, '{'); }
void sc_json_end_object(struct sc_json *j) { close_level(j, '}'); }
void sc_json_begin_array(struct sc_json *j) { open_level(j, '['); }
void sc_json_end_array(struct sc_json *j) { close_level(j, ']'); }

void sc_json_key(struct sc_json *j, const char *key)
{
	before_value(j);
	sc_json_write_string(j->f, key);
	fputc(':', j->f);
	j->after_key = 1;
}

void sc_json_string(struct sc_json *j, const char *s)
{
	before_value(j);
	sc_json_write_string(j->f, s ? s : "");
}

void sc_json_int(struct sc_json *j, int64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRId64, v);
}

void sc_json_uint(struct sc_json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRIu64, v);
}

void sc_json_bool(struct sc_json *j, int v)
{
	before_value(j);
	fputs(v ? "true" : "false", j->f);
}

void sc_json_null(struct sc_json *j)
{
	before_value(j);
	fputs("null", j->f);
}

/* (json.h) */
int sc_utf8_seq_len(const unsigned char *s)
{
	unsigned c = s[0];
	int n, i;
	uint32_t cp;

	if (c >= 0xc2 && c <= 0xdf) {
		n = 2; cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3; cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4; cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)  /* also stops at the NUL */
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void sc_json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		unsigned c = *s;
		int n;

		switch (c) {
		case '"':  fputs("\\\"", f); s++; continue;
		case '\\': fputs("\\\\", f); s++; continue;
		case '\n': fputs("\\n", f); s++; continue;
		case '\t': fputs("\\t", f); s++; continue;
		case '\r': fputs("\\r", f); s++; continue;
		case '\b': fputs("\\b", f); s++; continue;
		case '\f': fputs("\\f", f); s++; continue;
		default: break;
		}
		if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
			s++;
		} else if (c < 0x80) {
			fputc((int)c, f);
			s++;
		} else if ((n = sc_utf8_seq_len(s)) > 0) {
			fwrite(s, 1, (size_t)n, f);
			s += n;
		} else {
			fprintf(f, "\\u%04x", c);
			s++;
		}
	}
	fputc('"', f);
}
