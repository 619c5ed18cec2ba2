/*
 * record_functions.c - `scaler record --functions` (record_functions.h).
 * The runtime does the patching (src/runtime/functions.c); the CLI checks
 * the patterns and, after the run, counts from the profile what was
 * patched (entries flagged SC_ENT_FUNC) and skipped (SC_M_SKIP).
 */
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "record_functions.h"

#define SPEC_MAX 4000   /* the runtime's variable stays well under a page */

int record_functions_check(const char *spec, char *err, size_t errlen)
{
	if (strlen(spec) > SPEC_MAX) {
		snprintf(err, errlen, "--functions: patterns longer than %d bytes", SPEC_MAX);
		return -1;
	}
	for (const char *p = spec;;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *colon = memchr(p, ':', n);
		if (colon && colon + 1 < p + n && colon[1] == ':')
			colon = NULL;           /* a C++ name's "::" */
		if (n == 0 || (colon && (colon == p || colon + 1 == p + n))) {
			snprintf(err, errlen,
				 "--functions: empty pattern or part in '%.*s' (want [COMPONENT:]GLOB)",
				 (int)n, p);
			return -1;
		}
		if (!end)
			return 0;
		p = end + 1;
	}
}

void record_functions_summary(const char *dir)
{
	struct sc_profile p;
	char err[256];
	if (sc_profile_load(dir, &p, err, sizeof(err)) == 0) {
		size_t patched = 0, skipped = 0;
		for (size_t i = 0; i < p.nimages; i++) {
			const struct sc_image *im = &p.images[i];
			/* a function's own entry; its callers in other
			 * objects have entries of their own */
			for (size_t k = 0; k < im->nentries; k++)
				patched += (im->entries[k].flags & SC_ENT_FUNC) &&
					   im->entries[k].caller == im->entries[k].callee;
			skipped += im->nskipped;
		}
		fprintf(stderr, "scaler: %zu functions patched, %zu skipped\n", patched, skipped);
	}
	sc_profile_free(&p);
}
