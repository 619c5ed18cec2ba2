/*
 * test_argspec.c - unit test of the --args spec parser and the value
 * distributions' arithmetic (src/common/argspec.c, argdist.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "argdist.h"
#include "json.h"
#include "argspec.h"
#include "check.h"

static struct sc_argspec s;

static void bad(const char *text, const char *words)
{
	char err[200] = "";
	int r = sc_argspec_parse(text, &s, err, sizeof(err));
	CHECK(r == -1 && strstr(err, words), "'%s' refused: %s", text, err);
}

int main(void)
{
	char err[200];
	const struct sc_argproto *p;

	CHECK_EQ(sc_argspec_parse("", &s, err, sizeof(err)), 0, "empty spec");
	CHECK_EQ(s.n, sc_argspec_builtin_count(), "empty spec: every built-in");
	p = sc_argspec_find(&s, "write", "/lib/x86_64-linux-gnu/libc.so.6");
	CHECK(p && p->nval == 3 && p->v[0].kind == SC_ARGK_ARG && p->v[0].a == 3 &&
	      !strcmp(p->v[0].name, "count") && p->v[1].kind == SC_ARGK_RET &&
	      (p->v[1].flags & SC_ARGV_SIGNED) && p->v[2].kind == SC_ARGK_ERRNO &&
	      p->v[2].a == SC_FAIL_MINUS1 && !(p->v[2].flags & SC_ARGV_INT32),
	      "write: count (arg3), signed ret, errors on a 64-bit -1");
	p = sc_argspec_find(&s, "free", NULL);
	CHECK(p && p->nval == 1 && p->v[0].kind == SC_ARGK_USABLE && p->v[0].a == 1,
	      "free: the allocator's size of arg1");
	p = sc_argspec_find(&s, "clock_nanosleep", NULL);
	CHECK(p && p->v[0].kind == SC_ARGK_TIMESPEC && p->v[0].a == 3 &&
	      p->v[1].a == SC_FAIL_ERRNUM, "clock_nanosleep: request (arg3), error number");
	p = sc_argspec_find(&s, "pthread_mutex_lock", NULL);
	CHECK(p && p->v[0].kind == SC_ARGK_DISTINCT && (p->v[0].flags & SC_ARGV_DISTINCT) &&
	      p->v[1].a == SC_FAIL_ERRNUM && (p->v[1].flags & SC_ARGV_INT32),
	      "pthread_mutex_lock: distinct mutexes, int error number");
	p = sc_argspec_find(&s, "malloc", NULL);
	CHECK(p && p->v[1].a == SC_FAIL_NULL, "malloc: fails with NULL");
	p = sc_argspec_find(&s, "realloc", NULL);
	CHECK(p && p->nval == 1, "realloc: no errors (NULL for size 0 is none)");
	p = sc_argspec_find(&s, "fread", NULL);
	CHECK(p && p->v[0].kind == SC_ARGK_PRODUCT && p->v[0].a == 2 && p->v[0].b == 3,
	      "fread: size*nmemb");
	p = sc_argspec_find(&s, "poll", NULL);
	CHECK(p && (p->v[1].flags & SC_ARGV_INT32) && (p->v[1].flags & SC_ARGV_SIGNED),
	      "poll's timeout: a signed int");

	CHECK_EQ(sc_argspec_parse("libfoo:foo=arg2/d,ret;write", &s, err, sizeof(err)), 0,
		 "libfoo:foo=arg2/d,ret;write");
	CHECK_EQ(s.n, 2, "two APIs");
	p = sc_argspec_find(&s, "foo", "/opt/lib/libfoo.so.1");
	CHECK(p && p->nval == 2 && p->v[0].a == 2 && (p->v[0].flags & SC_ARGV_SIGNED) &&
	      !strcmp(p->v[0].name, "arg2") && !strcmp(p->v[1].name, "ret"),
	      "foo in libfoo.so.1: arg2 signed, ret");
	CHECK(!sc_argspec_find(&s, "foo", "/opt/lib/libbar.so"), "foo in libbar: not chosen");
	CHECK(!sc_argspec_find(&s, "read", NULL), "read: not chosen");

	CHECK_EQ(sc_argspec_parse("write:arg3,write:retval/d,malloc:arg1", &s, err, sizeof(err)), 0,
		 "uftrace style");
	p = sc_argspec_find(&s, "write", NULL);
	CHECK(p && p->nval == 2 && p->v[0].a == 3 && p->v[1].kind == SC_ARGK_RET,
	      "write:arg3,write:retval merged");
	CHECK_EQ(sc_argspec_parse("default;write=arg2", &s, err, sizeof(err)), 0,
		 "default and one more value");
	p = sc_argspec_find(&s, "write", NULL);
	CHECK(p && p->nval == 4 && !strcmp(p->v[3].name, "arg2"), "write: count, ret, errors, arg2");
	CHECK_EQ(sc_argspec_parse("lk=arg1/distinct,errors/num;g=errors/null;h:errors", &s, err,
				  sizeof(err)), 0, "argN/distinct, errors/HOW");
	p = sc_argspec_find(&s, "lk", NULL);
	CHECK(p && p->nval == 2 && p->v[0].kind == SC_ARGK_DISTINCT && p->v[0].a == 1 &&
	      p->v[1].kind == SC_ARGK_ERRNO && p->v[1].a == SC_FAIL_ERRNUM &&
	      !strcmp(p->v[1].name, "errors"), "lk: arg1 distinct, errors as the return");
	p = sc_argspec_find(&s, "g", NULL);
	CHECK(p && p->v[0].a == SC_FAIL_NULL, "g: errors on NULL");
	p = sc_argspec_find(&s, "h", NULL);
	CHECK(p && p->v[0].a == SC_FAIL_MINUS1 && (p->v[0].flags & SC_ARGV_SIGNED),
	      "h:errors (uftrace style): on -1");

	bad("nosuch", "no built-in prototype");
	bad("write=arg7", "not argN");
	bad("write=", "no value");
	bad("=arg1", "not [LIB:]API");
	bad("a:b:c=arg1", "not [LIB:]API");
	bad("f=arg1,arg2,arg3,arg4,arg5", "more than 4 values");
	bad("write=arg1/z", "not argN");
	bad("write=errors/0", "not argN");
	bad("write=ret/distinct", "not argN");
	bad("write=arg1/distinctx", "not argN");
	bad(";;", "no API named");

	/* distributions: merge by name, signed min/max, scale, mean */
	struct sc_argdist a = { .name = "ret", .flags = SC_ARGV_SIGNED, .seen = 2, .min = 5,
				.max = 9, .calls = 4, .sum = 28, .neg = 0 };
	struct sc_argdist b = { .name = "ret", .flags = SC_ARGV_SIGNED, .seen = 1,
				.min = (uint64_t)-1, .max = (uint64_t)-1, .calls = 2, .sum = 0,
				.neg = 2 };
	a.hist[4] = 4;
	struct sc_argdist *d = NULL;
	uint32_t nd = 0;
	sc_argdist_merge(&d, &nd, &a, 1);
	sc_argdist_merge(&d, &nd, &b, 1);
	CHECK(nd == 1 && (int64_t)d->min == -1 && d->max == 9 && d->seen == 3 && d->calls == 6,
	      "merged: min -1, max 9, 3 seen, 6 calls");
	CHECK(sc_argdist_mean(d) == 7, "mean of the non-negative: 28 / 4");
	sc_argdist_scale(d, 0.5L);
	CHECK(d->calls == 3 && d->hist[4] == 2 && d->neg == 1, "scaled by 1/2");
	CHECK_EQ(sc_argdist_mode(d), 4, "mode bucket");
	CHECK_EQ(sc_argdist_lo(0), 0, "bucket 0 from 0");
	CHECK_EQ(sc_argdist_lo(7), 64, "bucket 7 from 64");
	free(d);

	/* malloc(SIZE_MAX) three times: the runtime's sum saturated; the
	 * mean stays within the values' exact min and max, and JSON writes
	 * it as the positive number it is */
	struct sc_argdist big = { .name = "size", .seen = 3, .min = UINT64_MAX,
				  .max = UINT64_MAX, .calls = 3,
				  .sum = (long double)UINT64_MAX };
	CHECK(sc_argdist_mean(&big) == (long double)UINT64_MAX, "saturated sum: mean = max");
	char *out = NULL;
	size_t outn = 0;
	FILE *f = open_memstream(&out, &outn);
	struct sc_json j;
	sc_json_init(&j, f);
	sc_json_begin_array(&j);
	sc_json_amount(&j, sc_argdist_mean(&big));
	sc_json_amount(&j, 64);
	sc_json_amount(&j, 2.5L);
	sc_json_end_array(&j);
	fclose(f);
	CHECK(out && strcmp(out, "[18446744073709551615,64.000,2.500]") == 0,
	      "JSON amounts: huge whole, small with three places");
	if (out && strcmp(out, "[18446744073709551615,64.000,2.500]"))
		fprintf(stderr, "  got %s\n", out);
	free(out);

	/* distinct values: exact sets merged while they fit, then the
	 * HyperLogLog; a register of rank r stands for 2^r values */
	struct sc_argdist x = { .name = "mutex", .flags = SC_ARGV_DISTINCT, .seen = 5, .nexact = 3,
				.exact = { 10, 20, 30 } };
	struct sc_argdist y = { .name = "mutex", .flags = SC_ARGV_DISTINCT, .seen = 4, .nexact = 2,
				.exact = { 20, 40 } };
	int exact;
	d = NULL;
	nd = 0;
	sc_argdist_merge(&d, &nd, &x, 1);
	sc_argdist_merge(&d, &nd, &y, 1);
	CHECK(nd == 1 && sc_argdist_distinct(d, &exact) == 4 && exact && d->seen == 9,
	      "3 and 2 addresses, one shared: 4 exactly");
	for (uint32_t i = 0; i < SC_ARGS_EXACT; i++)
		y.exact[i] = 100 + i;
	y.nexact = SC_ARGS_EXACT;
	sc_argdist_merge(&d, &nd, &y, 1);
	CHECK(d->nexact == SC_ARGS_EXACT + 1 && (sc_argdist_distinct(d, &exact), !exact),
	      "past 16 together: estimated");
	memset(d->hll, 0, sizeof(d->hll));
	for (uint32_t r = 0; r < 64; r++)
		d->hll[r] = 1;
	CHECK(fabs(sc_argdist_distinct(d, &exact) - round(128 * log(2.0))) < 1e-9,
	      "half the registers set: linear counting, m ln 2 = 89");
	for (uint32_t r = 0; r < SC_ARGS_HLL; r++)
		d->hll[r] = 10;
	double est = sc_argdist_distinct(d, &exact);
	CHECK(fabs(est - round(0.7213 / (1 + 1.079 / 128) * 128 * 1024)) < 1e-9,
	      "every register at 10: the raw estimate, %.0f", est);
	free(d);

	/* errors: merged by errno, scaled like the calls */
	struct sc_argdist e1 = { .name = "errors", .flags = SC_ARGV_ERRNO, .seen = 10, .calls = 10,
				 .nerr = 2, .errs = { { 11, 3 }, { 4, 1 } } };
	struct sc_argdist e2 = { .name = "errors", .flags = SC_ARGV_ERRNO, .seen = 5, .calls = 5,
				 .nerr = 1, .errs = { { 4, 2 } }, .err_other = 1 };
	d = NULL;
	nd = 0;
	sc_argdist_merge(&d, &nd, &e1, 1);
	sc_argdist_merge(&d, &nd, &e2, 1);
	CHECK(nd == 1 && d->nerr == 2 && d->errs[0].err == 11 && d->errs[0].calls == 3 &&
	      d->errs[1].err == 4 && d->errs[1].calls == 3 && sc_argdist_failed(d) == 7,
	      "EAGAIN 3, EINTR 1+2, 1 other: 7 failed");
	sc_argdist_scale(d, 2);
	CHECK(d->errs[1].calls == 6 && d->err_other == 2 && d->calls == 30, "scaled by 2");
	free(d);
	return check_summary();
}
