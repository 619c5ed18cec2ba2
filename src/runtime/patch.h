/*
 * patch.h - what the files that patch objects' GOT slots share: gotuse.c
 * (which GLOB_DAT slots are calls), usecache.c (its findings kept for the
 * run), rss.c (giving back the pages patching read) and patch.c (writing
 * the slots).
 */
#ifndef SCALER_PATCH_H
#define SCALER_PATCH_H

#include "reloc.h"
#include "runtime.h"

/* One GOT slot to write (patch.c): code, or raw (when set) while counting
 * is paused (pause.c); only if the slot holds old, when old is set. */
struct sc_patch {
	uintptr_t slot;
	void *code;
	void *raw;
	void *old;
};
/* Writes n slots of object o, sorted by sc_patch_cmp (takes the leaf lock). */
void sc_patch_apply(struct sc_object *o, struct sc_patch *pt, size_t n) SC_HIDDEN;
int sc_patch_cmp(const void *a, const void *b) SC_HIDDEN;

/* unpatch.c: the value slot of object id holds before the runtime first
 * writes it, kept when attached (under the leaf lock) */
void sc_unpatch_note(uint32_t id, uintptr_t slot) SC_HIDDEN;

/* How one GLOB_DAT slot of a function is used by its object's code. */
struct sc_got_use {
	uintptr_t slot;
	unsigned calls, loads;
	bool known;             /* decided without reading the code */
};

/* The GLOB_DAT slots of one object that could be hooked, sorted by slot. */
struct sc_got_uses {
	const struct sc_object *o;
	struct sc_got_use *u;
	size_t n, cap;
	size_t fini;            /* __cxa_finalize's candidate + 1 */
	bool fini_plt;          /* ... and it has a JUMP_SLOT too */
};

/* Finds o's candidate GLOB_DAT slots (g zeroed by the caller) and how its
 * code uses each. True if that read o's code. */
bool sc_got_uses_find(const struct sc_object *o, const struct sc_reloc_info *ri,
		      struct sc_got_uses *g) SC_HIDDEN;
/* Whether GLOB_DAT slot is hooked: called through, never loaded. */
bool sc_got_use_hooked(const struct sc_got_uses *g, uintptr_t slot) SC_HIDDEN;
void sc_got_uses_free(struct sc_got_uses *g) SC_HIDDEN;

/* What gotuse.c found in an object file, kept for the run (usecache.c):
 * sorted words, each a slot's offset from the load base | flag bits. */
bool sc_use_cache_wanted(const struct sc_object *o) SC_HIDDEN;
bool sc_use_cache_get(const struct sc_object *o, uint64_t code_len, uint64_t **w,
		      size_t *n) SC_HIDDEN;
void sc_use_cache_put(const struct sc_object *o, uint64_t code_len, const uint64_t *w,
		      size_t n) SC_HIDDEN;

/* Whether calls into o may be hooked: all but the runtime's own objects
 * (the dynamic linker and the vDSO are, callee.c). */
bool sc_object_callable(const struct sc_object *o) SC_HIDDEN;

/* What a call of name through o's slot, which holds *target inside *to,
 * really reaches (callee.c). HOOK: hook it, with *target inside *to, booked
 * to *booked; OWN: it reaches o's own *target: write that unhooked; LEAVE:
 * leave the slot alone. all[id] (n_all of them, or NULL): the objects'
 * parsed tables, if the caller has them. */
enum sc_callee { SC_CALLEE_HOOK, SC_CALLEE_OWN, SC_CALLEE_LEAVE };
enum sc_callee sc_callee_of(const struct sc_object *o, const char *name, uintptr_t *target,
			    struct sc_object **to, struct sc_object **booked,
			    const struct sc_reloc_info *all, uint32_t n_all) SC_HIDDEN;

/* Which pages of the objects' read-only segments were mapped (rss.c). */
struct sc_keep_rss {
	int fd;
	size_t n, pages;
	struct sc_keep_seg *seg;
	uint8_t *was;           /* one byte per page: present before */
};
void sc_keep_rss_arm(struct sc_keep_rss *k) SC_HIDDEN;
void sc_keep_rss_reading(void) SC_HIDDEN;
void sc_keep_rss_drop(struct sc_keep_rss *k, const struct sc_object *only) SC_HIDDEN;
void sc_keep_rss_free(struct sc_keep_rss *k) SC_HIDDEN;

#endif
