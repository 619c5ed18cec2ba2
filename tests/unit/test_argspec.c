/*
 * test_argspec.c - unit test of the --args spec parser and the value
 * distributions' arithmetic (src/common/argspec.c, argdist.c).
 */
#include <stdlib.h>
#include <string.h>

#include "argdist.h"
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
	CHECK(p && p->nval == 2 && p->v[0].kind == SC_ARGK_ARG && p->v[0].a == 3 &&
	      !strcmp(p->v[0].name, "count") && p->v[1].kind == SC_ARGK_RET &&
	      (p->v[1].flags & SC_ARGV_SIGNED), "write: count (arg3), signed ret");
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
	CHECK(p && p->nval == 3 && !strcmp(p->v[2].name, "arg2"), "write: count, ret, arg2");

	bad("nosuch", "no built-in prototype");
	bad("write=arg7", "not argN");
	bad("write=", "no value");
	bad("=arg1", "not [LIB:]API");
	bad("a:b:c=arg1", "not [LIB:]API");
	bad("f=arg1,arg2,arg3,arg4,arg5", "more than 4 values");
	bad("write=arg1/z", "not argN");
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
	return check_summary();
}
