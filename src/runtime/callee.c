/*
 * callee.c - which object a GOT slot's call really reaches, and which
 * component it is booked to, when the address the slot holds says
 * otherwise.
 *
 *  - The vDSO: glibc's IFUNCs for time(), gettimeofday() (and others on
 *    other arches) resolve to the vDSO's code, so the slot points into an
 *    object that exports nothing anyone imports by name. The call is the
 *    API of the object that defines the IFUNC (libc): it is booked there,
 *    its target stays the vDSO's code.
 *  - A canonical PLT entry: a non-PIE executable that takes the address
 *    of a function it imports (`mov $malloc, %edi`) defines the symbol at
 *    its own PLT stub, undefined (st_shndx 0) with a value, so that the
 *    address is the same everywhere; other objects' GLOB_DAT slots (and
 *    dlsym) bind to that stub, which jumps through the executable's own
 *    slot. A call through such a slot is not the executable's: it goes to
 *    the definition the stub jumps to, and is booked from the object whose
 *    code made it to that definition (or not at all if that is the caller
 *    itself, as for libc's own calls of malloc).
 */
#include <elf.h>
#include <string.h>

#include "patch.h"

bool sc_object_callable(const struct sc_object *o)
{
	return !o->skip || o->ldso || o->vdso;
}

/* o's dynamic symbol name, if o is loaded and has a GNU hash table;
 * o's tables from all[o->id] if the scan has them (a scan asks for every
 * import: parsing the callee's dynamic section for each cost python3's
 * start ~0.1 ms). */
static const ElfW(Sym) *symbol_of(const struct sc_object *o, const char *name,
				  const struct sc_reloc_info *all, uint32_t n_all)
{
	struct sc_reloc_info ri;
	if (o->gone || !o->dyn)
		return NULL;
	if (all && o->id < n_all && all[o->id].symtab)
		return sc_reloc_lookup(&all[o->id], name);
	if (sc_reloc_parse(o->base, o->dyn, &ri) != 0)
		return NULL;
	return sc_reloc_lookup(&ri, name);
}

/* The first object after the ones left out, in load order (the global
 * scope's order for objects loaded at start-up), that defines function
 * name; *sym gets its symbol. */
static struct sc_object *definer(const char *name, const struct sc_object *except,
				 const ElfW(Sym) **sym, const struct sc_reloc_info *all,
				 uint32_t n_all)
{
	for (uint32_t i = 0, n = sc_object_count(); i < n; i++) {
		struct sc_object *d = sc_object_get(i);
		if (d == except || (d->skip && !d->ldso))
			continue;
		const ElfW(Sym) *s = symbol_of(d, name, all, n_all);
		if (s && s->st_shndx != SHN_UNDEF &&
		    (ELF64_ST_TYPE(s->st_info) == STT_FUNC ||
		     ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC)) {
			*sym = s;
			return d;
		}
	}
	return NULL;
}

enum sc_callee sc_callee_of(const struct sc_object *o, const char *name, uintptr_t *target,
			    struct sc_object **to, struct sc_object **booked,
			    const struct sc_reloc_info *all, uint32_t n_all)
{
	struct sc_object *t = *to;
	const ElfW(Sym) *s;
	if (t->vdso) {
		struct sc_object *d = definer(name, t, &s, all, n_all);
		if (!d || d == o || ELF64_ST_TYPE(s->st_info) != STT_GNU_IFUNC)
			return SC_CALLEE_LEAVE;
		*booked = d;
		return SC_CALLEE_HOOK;
	}
	*booked = t;
	/* only an executable has canonical PLT entries (a shared object's
	 * code is position-independent: it takes a function's address from
	 * its GOT), so only the executable's table is looked in, not the
	 * callee's of every import (~0.2 us each) */
	if (t == o || t->id != 0)
		return SC_CALLEE_HOOK;
	s = symbol_of(t, name, all, n_all);
	if (!s || s->st_shndx != SHN_UNDEF || !s->st_value || t->base + s->st_value != *target)
		return SC_CALLEE_HOOK;
	/* a canonical PLT entry */
	struct sc_object *d = definer(name, t, &s, all, n_all);
	if (!d || ELF64_ST_TYPE(s->st_info) != STT_FUNC)
		return SC_CALLEE_LEAVE;
	*target = d->base + s->st_value;
	*to = *booked = d;
	return d == o ? SC_CALLEE_OWN : SC_CALLEE_HOOK;
}
