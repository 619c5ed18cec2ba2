/*
 * json.h - a tiny streaming JSON writer (no external library) used by
 * `scaler report --format json`. Output is compact; commas and the
 * key/value colon are placed by the writer, the caller only says what comes
 * next.
 */
#ifndef SCALER_JSON_H
#define SCALER_JSON_H

#include <stdint.h>
#include <stdio.h>

#define SC_JSON_MAX_DEPTH 32

struct sc_json {
	FILE *f;
	int depth;
	/* per nesting level: has a value been written at this level yet? */
	unsigned char nonempty[SC_JSON_MAX_DEPTH];
	int after_key;          /* the next value completes a "key": pair */
};

void sc_json_init(struct sc_json *j, FILE *f);
void sc_json_begin_object(struct sc_json *j);
void sc_json_end_object(struct sc_json *j);
void sc_json_begin_array(struct sc_json *j);
void sc_json_end_array(struct sc_json *j);
void sc_json_key(struct sc_json *j, const char *key);
void sc_json_string(struct sc_json *j, const char *s);
void sc_json_int(struct sc_json *j, int64_t v);
void sc_json_uint(struct sc_json *j, uint64_t v);
/* A share in [0, 1] with six places ("0.620000"); NaN and values out of
 * range clamped into it. */
void sc_json_share(struct sc_json *j, double v);
void sc_json_bool(struct sc_json *j, int v);
void sc_json_null(struct sc_json *j);
/* v / 1000 as a decimal number with three places ("-1.005"): ns as µs. */
void sc_json_thousandths(struct sc_json *j, int64_t v);
/* A non-negative amount with three places while they fit an int64 in
 * thousandths (below 9.2e15), else as a whole number: a mean of sizes
 * near SIZE_MAX is still a positive number. */
void sc_json_amount(struct sc_json *j, long double v);

/*
 * Write `s` as a quoted JSON string: '"' and '\\' escaped, control
 * characters as \n \t \r \b \f or \u00XX, valid UTF-8 passed through, and
 * every byte that is not part of a valid UTF-8 sequence as \u00XX (so any
 * byte string yields valid JSON; such bytes read back as U+0080..U+00FF).
 */
void sc_json_write_string(FILE *f, const char *s);

/*
 * Write s with every valid UTF-8 multi-byte sequence as it is and every
 * other byte (ASCII, or not part of valid UTF-8: c >= 0x80) through esc:
 * its replacement text, NULL for the byte itself. buf (16 bytes) is there
 * for esc to format into. The one UTF-8 check of the JSON and HTML writers.
 */
void sc_write_escaped(FILE *f, const char *s, const char *(*esc)(unsigned c, char *buf));

#endif
