/*
 * unpatch.c - putting back every GOT slot the runtime wrote, for a process
 * that runs on unprofiled afterwards (scaler record -p detaching, attach.c;
 * the child of a fork of such a process).
 *
 * Not pause.c's sc_unpatch_all, which points the slots at their calls'
 * destinations for a while (wrapped APIs at the runtime's wrappers, which
 * keep its view of the process right until it resumes): a detached
 * process must reach no runtime code through its slots, so each gets back
 * exactly the value it held, even a lazy binding's PLT stub.
 *
 * While attached, patch.c notes each slot's value before the runtime first
 * writes it: what the program's loader (or the program) left there. Later
 * writes of the same slot (an import's stub, then its entry) find shadow
 * code there and note nothing. sc_unpatch_detach writes the noted values back
 * into every slot that still holds shadow code, with the same 8-byte
 * aligned compare-and-swap and page protection as patching
 * (sc_patch_apply: a slot the program writes meanwhile keeps its value),
 * skips the
 * objects unloaded since, and makes every import forget its entry, so a
 * pointer dlsym handed out goes straight to its target too. What stays in
 * place: the runtime's code and the threads' files stay mapped, as calls
 * in flight still return through the trampoline and book their time.
 */
#include <stdlib.h>

#include "patch.h"

struct noted {
	uintptr_t slot;
	void *was;
	uint32_t obj;
	uint32_t order;         /* notes of one slot: the last is the latest */
};

static struct noted *notes;
static size_t n_notes, cap_notes;
static bool said;

void sc_unpatch_note(uint32_t id, uintptr_t slot)
{
	void *was = __atomic_load_n((void **)slot, __ATOMIC_ACQUIRE);
	if (sc_shadow_code(was))
		return;                 /* written before: its first value is kept */
	if (n_notes == cap_notes) {
		size_t cap = cap_notes ? cap_notes * 2 : 1024;
		struct noted *m = sc_mem_grow(notes, cap * sizeof(*m));
		if (!m) {
			if (!said)
				sc_warn("out of memory noting GOT slots; some stay hooked after detaching");
			said = true;
			return;
		}
		notes = m;
		cap_notes = cap;
	}
	notes[n_notes] = (struct noted){slot, was, id, (uint32_t)n_notes};
	n_notes++;
}

/* by object, then slot, then the latest note first */
static int cmp_noted(const void *a, const void *b)
{
	const struct noted *x = a, *y = b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->order > y->order ? -1 : x->order < y->order;
}

/*
 * Puts every noted slot back; returns how many were. Under the runtime
 * lock (no scan or dlclose meanwhile) and the leaf lock (no bind), with
 * the runtime no longer active, so nothing writes a slot again.
 */
size_t sc_unpatch_detach(void)
{
	size_t put = 0;
	sc_rt_sort(notes, n_notes, sizeof(*notes), cmp_noted);
	struct sc_patch *pt = sc_mem_grow(NULL, (n_notes ? n_notes : 1) * sizeof(*pt));
	for (size_t i = 0; pt && i < n_notes;) {
		uint32_t id = notes[i].obj;
		struct sc_object *o = sc_object_get(id);
		size_t n = 0;
		for (; i < n_notes && notes[i].obj == id; i++) {
			if (i && notes[i - 1].obj == id && notes[i - 1].slot == notes[i].slot)
				continue;       /* an older note of the slot */
			if (!o || o->gone)
				continue;       /* unloaded: its memory is not its GOT now */
			void *now = __atomic_load_n((void **)notes[i].slot, __ATOMIC_ACQUIRE);
			if (sc_shadow_code(now))
				pt[n++] = (struct sc_patch){notes[i].slot, notes[i].was, NULL, now};
		}
		if (n)
			sc_patch_apply(o, pt, n);
		put += n;
	}
	if (!pt && n_notes)
		sc_warn("out of memory putting GOT slots back; the program stays hooked");
	sc_mem_free(pt);
	sc_hooks_unbind();
	sc_mem_free(notes);
	notes = NULL;
	n_notes = cap_notes = 0;
	return put;
}
