/*
 * names.c - basename and API-name normalisation (see names.h).
 *
 * Compiled into both the CLI and the runtime (libscaler.so). The runtime may
 * call this while it is patching another program's GOT, so the code here is
 * deliberately self-contained: no allocation, no libc calls at all (plain
 * loops instead of strchr/strncmp), no global state.
 */
#include "names.h"

const char *sc_basename(const char *path)
{
	const char *base = path;
	const char *p;

	for (p = path; *p; p++)
		if (*p == '/' && p[1] != '\0')
			base = p + 1;
	return base;
}

/* Does [s, s+len) start with prefix (prefix fully inside the range)? */
static int range_starts_with(const char *s, size_t len, const char *prefix)
{
	size_t i;

	for (i = 0; prefix[i]; i++)
		if (i >= len || s[i] != prefix[i])
			return 0;
	return 1;
}

/* Families of glibc string/memory functions that have IFUNC variants. */
static const char *const api_families[] = {
	"str", "mem", "wcs", "wmem", "stp", "wcp", "rawmemchr",
};

/* Leading words of the variant suffix glibc's multiarch code uses. */
static const char *const variant_words[] = {
	"sse2", "ssse3", "sse4_1", "sse4_2", "sse42", "sse4", "avx", "avx2",
	"evex", "evex256", "avx512", "erms", "unaligned",
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Is [s, s+len) the name of a string/memory function (a family prefix,
 * then only lower-case letters, digits and '_')? */
static int is_string_api(const char *s, size_t len)
{
	size_t i;
	int fam = 0;

	for (i = 0; i < N_OF(api_families); i++)
		if (range_starts_with(s, len, api_families[i]))
			fam = 1;
	if (!fam)
		return 0;
	for (i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

static int is_variant(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < N_OF(variant_words); i++)
		if (range_starts_with(s, len, variant_words[i]))
			return 1;
	return 0;
}

/* Copy [s, s+len) (optionally after `prefix`) into out[n], truncating. */
static void put(char *out, size_t n, const char *prefix, const char *s, size_t len)
{
	size_t o = 0, i;

	if (n == 0)
		return;
	for (i = 0; prefix[i] && o + 1 < n; i++)
		out[o++] = prefix[i];
	for (i = 0; i < len && o + 1 < n; i++)
		out[o++] = s[i];
	out[o] = '\0';
}

void sc_api_name(const char *raw, char *out, size_t n)
{
	size_t len = 0, k;

	/* The name proper ends at the first '@' (symbol version). */
	while (raw[len] && raw[len] != '@')
		len++;

	/*
	 * IFUNC variants are "__X_<variant>": try every '_' after "__X" as the
	 * split point, so multi-word APIs (strcasecmp_l, memcpy_chk) are found
	 * when their suffix is the variant ("__strcasecmp_l_avx").
	 */
	if (len > 3 && raw[0] == '_' && raw[1] == '_' && raw[2] != '_') {
		const char *x = raw + 2;
		size_t xlen_max = len - 2;

		for (k = 1; k + 1 < xlen_max; k++) {
			if (x[k] != '_' || !is_variant(x + k + 1, xlen_max - k - 1))
				continue;
			if (!is_string_api(x, k))
				break;
			/* The fortified entry points are themselves "__X_chk". */
			if (k > 4 && range_starts_with(x + k - 4, 4, "_chk"))
				put(out, n, "__", x, k);
			else
				put(out, n, "", x, k);
			return;
		}
	}
	put(out, n, "", raw, len);
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

int sc_api_rendezvous(const char *api)
{
	static const char *const joins[] = {
		"pthread_join", "pthread_timedjoin_np", "pthread_clockjoin_np", "pthread_tryjoin_np",
	};

	if (same(api, "pthread_barrier_wait"))
		return SC_RENDEZVOUS_BARRIER;
	for (size_t i = 0; i < sizeof(joins) / sizeof(joins[0]); i++)
		if (same(api, joins[i]))
			return SC_RENDEZVOUS_JOIN;
	return 0;
}
