/*
 * argspec.c - the built-in prototypes of --args and the spec parser
 * (argspec.h). Linked into the CLI and the runtime: no allocation, no
 * output, only string functions and snprintf.
 */
#include "argspec.h"

#include <stdio.h>
#include <string.h>

#define A(n, nm) { SC_ARGK_ARG, n, 0, 0, nm }
#define P(x, y, nm) { SC_ARGK_PRODUCT, x, y, 0, nm }
#define AI(n, nm) { SC_ARGK_ARG, n, 0, SC_ARGV_SIGNED | SC_ARGV_INT32, nm }
#define AU(n, nm) { SC_ARGK_ARG, n, 0, SC_ARGV_INT32, nm }
#define R { SC_ARGK_RET, 0, 0, 0, "ret" }
#define RI { SC_ARGK_RET, 0, 0, SC_ARGV_SIGNED | SC_ARGV_INT32, "ret" }
#define RS { SC_ARGK_RET, 0, 0, SC_ARGV_SIGNED, "ret" }
#define TS(n, nm) { SC_ARGK_TIMESPEC, n, 0, 0, nm }
#define US(n, nm) { SC_ARGK_USABLE, n, 0, 0, nm }
#define DI(n, nm) { SC_ARGK_DISTINCT, n, 0, SC_ARGV_DISTINCT, nm }
#define E1 { SC_ARGK_ERRNO, SC_FAIL_MINUS1, 0, SC_ARGV_ERRNO | SC_ARGV_SIGNED, "errors" }
#define E1I { SC_ARGK_ERRNO, SC_FAIL_MINUS1, 0, \
	      SC_ARGV_ERRNO | SC_ARGV_SIGNED | SC_ARGV_INT32, "errors" }
#define EN { SC_ARGK_ERRNO, SC_FAIL_NULL, 0, SC_ARGV_ERRNO, "errors" }
#define EE { SC_ARGK_ERRNO, SC_FAIL_ERRNUM, 0, SC_ARGV_ERRNO | SC_ARGV_INT32, "errors" }
#define PROTO(api, nv, ...) { "", api, nv, { __VA_ARGS__ } }

/*
 * Names as in the man page prototypes. Sizes of what is allocated,
 * copied and moved; counts asked for and moved (the return value: an
 * error is a negative one); timeouts (signed: -1 waits for ever).
 */
static const struct sc_argproto builtin[] = {
	PROTO("malloc", 2, A(1, "size"), EN),
	PROTO("calloc", 2, P(1, 2, "nmemb*size"), EN),
	PROTO("realloc", 1, A(2, "size")),      /* NULL is no failure for size 0 */
	PROTO("reallocarray", 1, P(2, 3, "nmemb*size")),
	PROTO("aligned_alloc", 2, A(2, "size"), EN),
	PROTO("memalign", 2, A(2, "size"), EN),
	PROTO("posix_memalign", 2, A(3, "size"), EE),
	PROTO("free", 1, US(1, "size")),
	PROTO("memcpy", 1, A(3, "n")),
	PROTO("memmove", 1, A(3, "n")),
	PROTO("memset", 1, A(3, "n")),
	PROTO("memcmp", 1, A(3, "n")),
	PROTO("strncmp", 1, A(3, "n")),
	PROTO("__memcpy_chk", 1, A(3, "len")),
	PROTO("__memmove_chk", 1, A(3, "len")),
	PROTO("__memset_chk", 1, A(3, "len")),
	PROTO("read", 3, A(3, "count"), RS, E1),
	PROTO("__read_chk", 3, A(3, "nbytes"), RS, E1),
	PROTO("write", 3, A(3, "count"), RS, E1),
	PROTO("pread", 3, A(3, "count"), RS, E1),
	PROTO("pread64", 3, A(3, "count"), RS, E1),
	PROTO("pwrite", 3, A(3, "count"), RS, E1),
	PROTO("pwrite64", 3, A(3, "count"), RS, E1),
	PROTO("readv", 3, AI(3, "iovcnt"), RS, E1),
	PROTO("writev", 3, AI(3, "iovcnt"), RS, E1),
	PROTO("send", 3, A(3, "len"), RS, E1),
	PROTO("recv", 3, A(3, "len"), RS, E1),
	PROTO("sendto", 3, A(3, "len"), RS, E1),
	PROTO("recvfrom", 3, A(3, "len"), RS, E1),
	PROTO("sendmsg", 2, RS, E1),
	PROTO("recvmsg", 2, RS, E1),
	PROTO("fread", 2, P(2, 3, "size*nmemb"), R),
	PROTO("fwrite", 2, P(2, 3, "size*nmemb"), R),
	PROTO("fread_unlocked", 2, P(2, 3, "size*nmemb"), R),
	PROTO("fwrite_unlocked", 2, P(2, 3, "size*nmemb"), R),
	PROTO("mmap", 2, A(2, "length"), E1),
	PROTO("mmap64", 2, A(2, "length"), E1),
	PROTO("munmap", 2, A(2, "length"), E1I),
	PROTO("madvise", 2, A(2, "length"), E1I),
	PROTO("mremap", 2, A(3, "new_size"), E1),
	PROTO("poll", 4, A(2, "nfds"), AI(3, "timeout"), RI, E1I),
	PROTO("epoll_wait", 4, AI(3, "maxevents"), AI(4, "timeout"), RI, E1I),
	PROTO("epoll_pwait", 4, AI(3, "maxevents"), AI(4, "timeout"), RI, E1I),
	PROTO("select", 3, AI(1, "nfds"), RI, E1I),
	PROTO("nanosleep", 2, TS(1, "req_ns"), E1I),
	PROTO("clock_nanosleep", 2, TS(3, "request_ns"), EE),
	PROTO("usleep", 2, AU(1, "usec"), E1I),
	PROTO("sleep", 1, AU(1, "seconds")),
	/* futex-based locks: which lock (distinct addresses); the pthread
	 * calls return the error number, sem_* -1 and errno */
	PROTO("pthread_mutex_lock", 2, DI(1, "mutex"), EE),
	PROTO("pthread_mutex_trylock", 2, DI(1, "mutex"), EE),
	PROTO("pthread_mutex_timedlock", 2, DI(1, "mutex"), EE),
	PROTO("pthread_mutex_unlock", 2, DI(1, "mutex"), EE),
	PROTO("pthread_rwlock_rdlock", 2, DI(1, "rwlock"), EE),
	PROTO("pthread_rwlock_wrlock", 2, DI(1, "rwlock"), EE),
	PROTO("pthread_rwlock_tryrdlock", 2, DI(1, "rwlock"), EE),
	PROTO("pthread_rwlock_trywrlock", 2, DI(1, "rwlock"), EE),
	PROTO("pthread_rwlock_timedrdlock", 2, DI(1, "rwlock"), EE),
	PROTO("pthread_rwlock_timedwrlock", 2, DI(1, "rwlock"), EE),
	PROTO("pthread_rwlock_unlock", 2, DI(1, "rwlock"), EE),
	PROTO("pthread_cond_wait", 2, DI(1, "cond"), EE),
	PROTO("pthread_cond_timedwait", 2, DI(1, "cond"), EE),
	PROTO("pthread_cond_signal", 1, DI(1, "cond")),
	PROTO("pthread_cond_broadcast", 1, DI(1, "cond")),
	PROTO("sem_wait", 2, DI(1, "sem"), E1I),
	PROTO("sem_trywait", 2, DI(1, "sem"), E1I),
	PROTO("sem_timedwait", 2, DI(1, "sem"), E1I),
	PROTO("sem_post", 2, DI(1, "sem"), E1I),
};

size_t sc_argspec_builtin_count(void)
{
	return sizeof(builtin) / sizeof(builtin[0]);
}

const struct sc_argproto *sc_argspec_builtin(size_t i)
{
	return i < sc_argspec_builtin_count() ? &builtin[i] : NULL;
}

static const struct sc_argproto *builtin_of(const char *api)
{
	for (size_t i = 0; i < sc_argspec_builtin_count(); i++)
		if (strcmp(builtin[i].api, api) == 0)
			return &builtin[i];
	return NULL;
}

static int fail(char *err, size_t errlen, const char *what, const char *s, size_t n)
{
	if (err && errlen)
		snprintf(err, errlen, "--args: %s: '%.*s'", what, (int)(n > 80 ? 80 : n), s);
	return -1;
}

/* The prototype for (lib, api) in out, added if new; NULL when full. */
static struct sc_argproto *proto_for(struct sc_argspec *out, const char *lib, const char *api)
{
	for (uint32_t i = 0; i < out->n; i++)
		if (!strcmp(out->p[i].lib, lib) && !strcmp(out->p[i].api, api))
			return &out->p[i];
	if (out->n >= SC_ARGSPEC_MAX)
		return NULL;
	struct sc_argproto *p = &out->p[out->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->lib, sizeof(p->lib), "%s", lib);
	snprintf(p->api, sizeof(p->api), "%s", api);
	return p;
}

/* Adds v to p unless it has it already; -1 if p is full. */
static int add_val(struct sc_argproto *p, const struct sc_argval *v)
{
	for (uint32_t i = 0; i < p->nval; i++)
		if (!strcmp(p->v[i].name, v->name))
			return 0;
	if (p->nval >= SC_ARGS_NVAL)
		return -1;
	p->v[p->nval++] = *v;
	return 0;
}

static int add_builtin(struct sc_argspec *out, const char *lib, const struct sc_argproto *b)
{
	struct sc_argproto *p = proto_for(out, lib, b->api);
	if (!p)
		return -1;
	for (uint32_t i = 0; i < b->nval; i++)
		if (add_val(p, &b->v[i]) < 0)
			return -1;
	return 0;
}

static int word_is(const char *s, size_t n, const char *w)
{
	return n == strlen(w) && !strncmp(s, w, n);
}

/* "errors[/-1|/null|/num]" (s, n bytes) into *v; -1 if it is not. */
static int parse_errors(const char *s, size_t n, struct sc_argval *v)
{
	static const struct { const char *fmt; uint8_t how, flags; } how[] = {
		{ "", SC_FAIL_MINUS1, SC_ARGV_SIGNED }, { "/-1", SC_FAIL_MINUS1, SC_ARGV_SIGNED },
		{ "/null", SC_FAIL_NULL, 0 }, { "/num", SC_FAIL_ERRNUM, SC_ARGV_INT32 },
	};
	if (n < 6 || strncmp(s, "errors", 6))
		return -1;
	for (size_t i = 0; i < sizeof(how) / sizeof(how[0]); i++)
		if (word_is(s + 6, n - 6, how[i].fmt)) {
			v->kind = SC_ARGK_ERRNO;
			v->a = how[i].how;
			v->flags = SC_ARGV_ERRNO | how[i].flags;
			snprintf(v->name, sizeof(v->name), "errors");
			return 0;
		}
	return -1;
}

/* "argN[/FMT]", "ret[/FMT]" / "retval[/FMT]" or "errors[/HOW]" (s, n
 * bytes) into *v; FMT "distinct" counts an argument's distinct values. */
static int parse_val(const char *s, size_t n, struct sc_argval *v)
{
	size_t k = 0;
	memset(v, 0, sizeof(*v));
	if (parse_errors(s, n, v) == 0)
		return 0;
	if (n >= 4 && !strncmp(s, "arg", 3) && s[3] >= '1' && s[3] <= '6') {
		v->kind = SC_ARGK_ARG;
		v->a = (uint8_t)(s[3] - '0');
		snprintf(v->name, sizeof(v->name), "arg%d", v->a);
		k = 4;
	} else if (n >= 6 && !strncmp(s, "retval", 6)) {
		v->kind = SC_ARGK_RET;
		k = 6;
	} else if (n >= 3 && !strncmp(s, "ret", 3)) {
		v->kind = SC_ARGK_RET;
		k = 3;
	} else {
		return -1;
	}
	if (v->kind == SC_ARGK_RET)
		snprintf(v->name, sizeof(v->name), "ret");
	if (k == n)
		return 0;
	if (v->kind == SC_ARGK_ARG && word_is(s + k, n - k, "/distinct")) {
		v->kind = SC_ARGK_DISTINCT;
		v->flags = SC_ARGV_DISTINCT;
		return 0;
	}
	if (n != k + 2 || s[k] != '/')
		return -1;
	switch (s[k + 1]) {
	case 'd': case 'i': v->flags = SC_ARGV_SIGNED; return 0;
	case 'u': case 'x': case 'o': return 0;
	default: return -1;
	}
}

static int is_val(const char *s, size_t n)
{
	struct sc_argval v;
	return parse_val(s, n, &v) == 0;
}

/* Splits "[LIB:]API" (s, n bytes) into lib and api; -1 if a part is
 * empty or too long. */
static int split_name(const char *s, size_t n, char *lib, char *api)
{
	const char *c = memchr(s, ':', n);
	size_t ln = c ? (size_t)(c - s) : 0, an = c ? n - ln - 1 : n;
	const char *a = c ? c + 1 : s;
	if (an == 0 || an >= SC_ARGSPEC_NAME || ln >= SC_ARGSPEC_NAME || (c && ln == 0) ||
	    memchr(a, ':', an))
		return -1;
	memcpy(lib, s, ln);
	lib[ln] = '\0';
	memcpy(api, a, an);
	api[an] = '\0';
	return 0;
}

/* "[LIB:]API=VAL,VAL..." */
static int parse_proto(struct sc_argspec *out, const char *s, size_t n, char *err, size_t errlen)
{
	const char *eq = memchr(s, '=', n);
	char lib[SC_ARGSPEC_NAME], api[SC_ARGSPEC_NAME];
	if (split_name(s, (size_t)(eq - s), lib, api) < 0)
		return fail(err, errlen, "not [LIB:]API before '='", s, n);
	struct sc_argproto *p = proto_for(out, lib, api);
	if (!p)
		return fail(err, errlen, "too many APIs", s, n);
	const char *v = eq + 1, *end = s + n;
	if (v == end)
		return fail(err, errlen, "no value after '='", s, n);
	while (v < end) {
		const char *c = memchr(v, ',', (size_t)(end - v));
		size_t vn = c ? (size_t)(c - v) : (size_t)(end - v);
		struct sc_argval val;
		if (parse_val(v, vn, &val) < 0)
			return fail(err, errlen, "not argN[/FMT], ret[/FMT] or errors[/HOW]", v, vn);
		if (add_val(p, &val) < 0)
			return fail(err, errlen, "more than 4 values for one API", s, n);
		v += vn + (c ? 1 : 0);
	}
	return 0;
}

/* "default", "[LIB:]API" or "[LIB:]API:VAL" */
static int parse_token(struct sc_argspec *out, const char *s, size_t n, char *err, size_t errlen)
{
	char lib[SC_ARGSPEC_NAME], api[SC_ARGSPEC_NAME];
	if (n == 7 && !strncmp(s, "default", 7)) {
		for (size_t i = 0; i < sc_argspec_builtin_count(); i++)
			if (add_builtin(out, "", &builtin[i]) < 0)
				return fail(err, errlen, "too many APIs", s, n);
		return 0;
	}
	const char *c = NULL;
	for (const char *q = s + n; q-- > s;)
		if (*q == ':') {
			c = q;
			break;
		}
	if (c && is_val(c + 1, (size_t)(s + n - c - 1))) {
		struct sc_argval val;
		parse_val(c + 1, (size_t)(s + n - c - 1), &val);
		if (split_name(s, (size_t)(c - s), lib, api) < 0)
			return fail(err, errlen, "not [LIB:]API before the value", s, n);
		struct sc_argproto *p = proto_for(out, lib, api);
		if (!p)
			return fail(err, errlen, "too many APIs", s, n);
		if (add_val(p, &val) < 0)
			return fail(err, errlen, "more than 4 values for one API", s, n);
		return 0;
	}
	if (split_name(s, n, lib, api) < 0)
		return fail(err, errlen, "not [LIB:]API", s, n);
	const struct sc_argproto *b = builtin_of(api);
	if (!b)
		return fail(err, errlen, "no built-in prototype (say which values: API=arg1,ret)",
			    s, n);
	if (add_builtin(out, lib, b) < 0)
		return fail(err, errlen, "too many APIs", s, n);
	return 0;
}

int sc_argspec_parse(const char *text, struct sc_argspec *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!text || !*text)
		text = "default";
	for (const char *s = text; *s;) {
		const char *semi = strchr(s, ';');
		size_t n = semi ? (size_t)(semi - s) : strlen(s);
		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (n && memchr(s, '=', n)) {
			if (parse_proto(out, s, n, err, errlen) < 0)
				return -1;
		} else {
			for (const char *t = s, *end = s + n; t < end;) {
				const char *c = memchr(t, ',', (size_t)(end - t));
				size_t tn = c ? (size_t)(c - t) : (size_t)(end - t);
				if (tn && parse_token(out, t, tn, err, errlen) < 0)
					return -1;
				t += tn + (c ? 1 : 0);
			}
		}
		if (!semi)
			break;
		s = semi + 1;
	}
	if (!out->n)
		return fail(err, errlen, "no API named", text, strlen(text));
	return 0;
}

const struct sc_argproto *sc_argspec_find(const struct sc_argspec *s, const char *api,
					  const char *lib)
{
	const char *base = lib ? strrchr(lib, '/') : NULL;
	base = base ? base + 1 : lib;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct sc_argproto *p = &s->p[i];
		if (strcmp(p->api, api) != 0)
			continue;
		if (p->lib[0] && (!base || strncmp(base, p->lib, strlen(p->lib)) != 0))
			continue;
		return p;
	}
	return NULL;
}
