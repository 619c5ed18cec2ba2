/*
 * json.c - the streaming JSON writer declared in json.h.
 */
#include "json.h"

#include <inttypes.h>
#include <math.h>
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

void sc_json_thousandths(struct sc_json *j, int64_t v)
{
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;

	before_value(j);
	fprintf(j->f, "%s%" PRIu64 ".%03u", v < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

void sc_json_amount(struct sc_json *j, long double v)
{
	if (!(v > 0))
		v = 0;          /* and NaN */
	if (v < 9.2e15L) {
		sc_json_thousandths(j, (int64_t)llroundl(v * 1000));
		return;
	}
	before_value(j);
	fprintf(j->f, "%.0Lf", v < (long double)UINT64_MAX ? v : (long double)UINT64_MAX);
}

void sc_json_share(struct sc_json *j, double v)
{
	before_value(j);
	/* not finite or out of range would be no JSON number or no share */
	fprintf(j->f, "%.6f", v > 0 && v <= 1 ? v : v > 1 ? 1.0 : 0.0);
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

/*
 * Length of the valid UTF-8 sequence starting at s (2..4), or 0 if the
 * bytes there are not one (overlong forms, surrogates and code points above
 * U+10FFFF are invalid). Only called for a lead byte >= 0x80.
 */
static int utf8_seq_len(const unsigned char *s)
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

void sc_write_escaped(FILE *f, const char *str, const char *(*esc)(unsigned c, char *buf))
{
	const unsigned char *s = (const unsigned char *)str;
	char buf[16];

	while (*s) {
		const char *e;
		int n;

		if (*s >= 0x80 && (n = utf8_seq_len(s)) > 0) {
			fwrite(s, 1, (size_t)n, f);
			s += n;
			continue;
		}
		e = esc(*s, buf);
		if (e)
			fputs(e, f);
		else
			fputc(*s, f);
		s++;
	}
}

static const char *json_esc(unsigned c, char *buf)
{
	switch (c) {
	case '"': return "\\\"";
	case '\\': return "\\\\";
	case '\n': return "\\n";
	case '\t': return "\\t";
	case '\r': return "\\r";
	case '\b': return "\\b";
	case '\f': return "\\f";
	default: break;
	}
	if (c < 0x20 || c >= 0x80) {
		snprintf(buf, 16, "\\u%04x", c);
		return buf;
	}
	return NULL;
}

void sc_json_write_string(FILE *f, const char *str)
{
	fputc('"', f);
	sc_write_escaped(f, str, json_esc);
	fputc('"', f);
}
