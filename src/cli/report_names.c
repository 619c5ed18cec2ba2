/*
 * report_names.c - the function a compiler-made clone (`foo.isra.0`,
 * `foo.cold`) belongs to, shared by every writer of `scaler report`.
 *
 * The model names a call demangled (model.c by sc_demangle), a clone
 * suffix still visible (libstdc++ prints `f(int) [clone .isra.0]`, a C
 * name keeps `.isra.0`); report_function_name() groups a clone with its
 * function by taking the suffix off, in either spelling.
 */
#include <stdio.h>
#include <string.h>

#include "report.h"

/* The words GCC and Clang put after a '.' when they clone a function or
 * split it; a number may follow each (".constprop.0", ".llvm.1234"). */
static const char *const clone_words[] = {
	"isra", "constprop", "part", "cold", "lto_priv", "localalias", "clone",
	"llvm", "specialized", "str",
};

static int clone_token(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (len && i == len)
		return 1;
	for (i = 0; i < sizeof(clone_words) / sizeof(clone_words[0]); i++)
		if (strlen(clone_words[i]) == len && memcmp(s, clone_words[i], len) == 0)
			return 1;
	return 0;
}

/* A demangled clone, "f(int) [clone .isra.0] [clone .cold]": the length
 * without its " [clone ...]" groups, or strlen(sym) if it has none. */
static size_t demangled_clone_base(const char *sym)
{
	size_t n = strlen(sym);
	const char *tag = " [clone .";

	for (;;) {
		size_t k;

		if (n == 0 || sym[n - 1] != ']')
			return n;
		for (k = n - 1; k > 0 && sym[k] != '['; k--)
			;
		if (k == 0 || strncmp(sym + k - 1, tag, strlen(tag)) != 0)
			return n;
		n = k - 1;
	}
}

size_t report_clone_base(const char *sym)
{
	const char *dot;
	size_t d = demangled_clone_base(sym);

	if (sym[d])
		return d;

	/* the first '.' after which every '.'-separated token is a clone word
	 * or a number: "foo.part.0.cold" -> "foo", "libz.so.1+0x40" stays */
	for (dot = strchr(sym, '.'); dot; dot = strchr(dot + 1, '.')) {
		const char *t = dot;
		int ok = dot != sym;

		while (ok && *t == '.') {
			size_t len = strcspn(t + 1, ".");

			ok = clone_token(t + 1, len);
			t += 1 + len;
		}
		if (ok && !*t)
			return (size_t)(dot - sym);
	}
	return strlen(sym);
}

const char *report_function_name(const char *api, char *buf, size_t n)
{
	size_t base = report_clone_base(api);

	if (!api[base])
		return api;
	snprintf(buf, n, "%.*s", (int)base, api);
	return buf;
}
