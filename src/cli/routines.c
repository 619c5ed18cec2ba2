/*
 * routines.c - the names of the threads' start routines (model.h).
 *
 * The runtime records a start routine by its dynamic symbol, which only
 * exported functions have; a static one (`heavy_worker`) is recorded as
 * `object+0xoffset`. The reader's side names it from the object's own
 * symbols (symbols.h: .symtab, then a debug file found by build-id or
 * .gnu_debuglink under /usr/lib/debug), keeping `object+0xoffset` only
 * when none names the address. Done once per profile, before the model
 * is built, so every format shows the same name.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "demangle.h"
#include "model.h"
#include "symbols.h"

struct find {
	uint64_t addr;          /* link-time address sought */
	char name[256];
	int exact;
};

static int find_cb(void *ctx, const char *name, uint64_t addr, uint64_t size)
{
	struct find *f = ctx;
	if (!name || !name[0])
		return 0;
	if (addr == f->addr || (!f->name[0] && f->addr > addr && f->addr < addr + size)) {
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->exact = addr == f->addr;
	}
	return f->exact;
}

/* A thread whose routine the runtime did not name: none, or object+0x... */
static int unnamed(const struct sc_thread *t)
{
	return t->start_routine && (!t->routine || !t->routine[0] || strstr(t->routine, "+0x"));
}

static void name_image(struct sc_profile *p, struct sc_image *im)
{
	for (size_t i = 0; i < im->nthreads; i++) {
		struct sc_thread *t = &im->threads[i];
		const struct sc_object *o = sc_image_object(im, t->routine_obj);
		if (!unnamed(t) || !o || !o->path || t->start_routine < o->base)
			continue;
		/* a thread before it with the same routine was named already */
		size_t k;
		for (k = 0; k < i; k++)
			if (im->threads[k].start_routine == t->start_routine &&
			    im->threads[k].routine_obj == t->routine_obj)
				break;
		if (k < i) {
			if (!unnamed(&im->threads[k]))
				t->routine = im->threads[k].routine;
			continue;
		}
		struct find f = {.addr = t->start_routine - o->base};
		if (sc_syms_each(o->path, NULL, find_cb, &f) > 0 && f.name[0])
			t->routine = sc_profile_strdup(p, f.name);
	}
	for (size_t i = 0; i < im->nthreads; i++) {
		struct sc_thread *t = &im->threads[i];
		char buf[512];
		const char *d = t->routine ? sc_demangle(t->routine, buf, sizeof(buf)) : NULL;
		if (d && d != t->routine)
			t->routine = sc_profile_strdup(p, d);
	}
}

void sc_model_name_routines(struct sc_profile *p)
{
	for (size_t i = 0; i < p->nimages; i++)
		name_image(p, &p->images[i]);
}
