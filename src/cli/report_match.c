/*
 * report_match.c - which components `--component PATTERN` selects.
 *
 * Component names are file names (libc.so.6, libstdc++.so.6, the
 * executable's name), which nobody types in full: the pattern is, in
 * this order,
 *   1. a whole name: that component alone (so any component can be picked,
 *      whatever else starts like it);
 *   2. a shell glob when it has any of * ? [ (`'lib*'`, `'*.so.*'`): every
 *      name it matches;
 *   3. the start of a name where the name goes on with a character that is
 *      not a letter or digit: `libc` is libc.so.6 (and libc-2.31.so), not
 *      libcrypto.so.3;
 *   4. else the start of a name: `libcry` is libcrypto.so.3.
 * The first rule that matches anything decides.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <string.h>

#include "report.h"

static int starts_with(const char *name, const char *prefix, size_t len)
{
	return len && !strncmp(name, prefix, len);
}

size_t report_match_components(const struct sc_agg *a, const char *pattern,
			       const char **out)
{
	size_t i, n = 0, len = strlen(pattern);

	for (i = 0; i < a->ncomp; i++)
		if (!strcmp(a->comp[i].name, pattern)) {
			out[0] = a->comp[i].name;
			return 1;
		}
	if (strpbrk(pattern, "*?[")) {
		for (i = 0; i < a->ncomp; i++)
			if (!fnmatch(pattern, a->comp[i].name, 0))
				out[n++] = a->comp[i].name;
		return n;
	}
	for (i = 0; i < a->ncomp; i++) {
		const char *name = a->comp[i].name;

		if (starts_with(name, pattern, len) && !isalnum((unsigned char)name[len]))
			out[n++] = name;
	}
	if (n)
		return n;
	for (i = 0; i < a->ncomp; i++)
		if (starts_with(a->comp[i].name, pattern, len))
			out[n++] = a->comp[i].name;
	return n;
}

int report_comp_selected(const struct report *r, const char *name)
{
	size_t i;

	if (!r->component)
		return 1;
	for (i = 0; i < r->nselected; i++)
		if (!strcmp(r->selected[i], name))
			return 1;
	return 0;
}
