/*
 * report_fixture.h - what the report writers' unit tests (test_report.c,
 * test_exports.c) share: a one-image model over a profile built in memory,
 * and running one writer into a string.
 */
#ifndef SCALER_REPORT_FIXTURE_H
#define SCALER_REPORT_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "model.h"
#include "report.h"

/* p holds the one image im, whose aggregate is ia; m is their model. */
static inline void fixture_model(struct sc_profile *p, struct sc_image *im, struct sc_agg *ia,
				 struct sc_model *m, uint32_t timing, int64_t wall_ns)
{
	memset(p, 0, sizeof(*p));
	p->dir = "mem";
	p->nimages = 1;
	p->images = im;
	p->timing_mode = timing;
	p->wall_ns = wall_ns;
	memset(m, 0, sizeof(*m));
	m->p = p;
	m->agg = *ia;
	m->nimages = 1;
	m->images = ia;
}

/* Run one writer into a string (free it); its length in *len if len. */
static inline char *render(struct report *r, void (*writer)(const struct report *), size_t *len)
{
	char *buf = NULL;
	size_t n = 0;

	r->out = open_memstream(&buf, &n);
	report_select(r);
	writer(r);
	fclose(r->out);
	report_release(r);
	if (len)
		*len = n;
	return buf;
}

#endif
