/*
 * reloc.c - read an object's relocations from its in-memory dynamic
 * section (never from section headers on disk: those may be stripped, and
 * only the loaded image says what is really bound).
 *
 * Only two relocation types bind functions through a GOT slot a call goes
 * through: R_X86_64_JUMP_SLOT (.rela.plt, called via the PLT or, with
 * -fno-plt and BIND_NOW, directly) and R_X86_64_GLOB_DAT (.rela.dyn,
 * `call *foo@GOTPCREL(%rip)` with -fno-plt, but also `&foo` and data).
 * The caller decides which GLOB_DAT slots are calls (gotuse.c).
 */
#include "reloc.h"

#include <elf.h>
#include <string.h>

#include "arch.h"
#include "format.h"

/*
 * glibc rewrites the address-valued dynamic entries of a writable .dynamic
 * in place (adding l_addr); a read-only one (the vDSO, some arches) keeps
 * file offsets. A valid pointer into the object is never below its base,
 * and an offset is always smaller than any base a PIC object is mapped at.
 */
static uintptr_t dyn_ptr(uintptr_t base, ElfW(Addr) v)
{
	return (v < base) ? base + v : v;
}

int sc_reloc_parse(uintptr_t base, const ElfW(Dyn) *dyn, struct sc_reloc_info *ri)
{
	size_t relasz = 0, relaent = sizeof(ElfW(Rela)), pltrelsz = 0;
	long pltrel = DT_RELA;

	memset(ri, 0, sizeof(*ri));
	ri->base = base;
	if (!dyn)
		return -1;
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB: ri->symtab = (const void *)dyn_ptr(base, d->d_un.d_ptr); break;
		case DT_STRTAB: ri->strtab = (const void *)dyn_ptr(base, d->d_un.d_ptr); break;
		case DT_STRSZ: ri->strsz = d->d_un.d_val; break;
		case DT_JMPREL: ri->jmprel = (const void *)dyn_ptr(base, d->d_un.d_ptr); break;
		case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
		case DT_PLTREL: pltrel = (long)d->d_un.d_val; break;
		case DT_RELA: ri->rela = (const void *)dyn_ptr(base, d->d_un.d_ptr); break;
		case DT_RELASZ: relasz = d->d_un.d_val; break;
		case DT_RELAENT: relaent = d->d_un.d_val; break;
		case DT_VERSYM: ri->versym = (const void *)dyn_ptr(base, d->d_un.d_ptr); break;
		case DT_VERNEED: ri->verneed = (const void *)dyn_ptr(base, d->d_un.d_ptr); break;
		case DT_VERNEEDNUM: ri->verneed_n = d->d_un.d_val; break;
		case DT_GNU_HASH: ri->gnu_hash = (const void *)dyn_ptr(base, d->d_un.d_ptr); break;
		case DT_BIND_NOW: ri->bind_now = true; break;
		case DT_FLAGS: if (d->d_un.d_val & DF_BIND_NOW) ri->bind_now = true; break;
		case DT_FLAGS_1: if (d->d_un.d_val & DF_1_NOW) ri->bind_now = true; break;
		default: break;
		}
	}
	if (!ri->symtab || !ri->strtab || relaent != sizeof(ElfW(Rela)))
		return -1;
	if (pltrel != DT_RELA)      /* x86-64 uses RELA only */
		ri->jmprel = NULL;
	if (ri->jmprel)
		ri->jmprel_n = pltrelsz / sizeof(ElfW(Rela));
	if (ri->rela)
		ri->rela_n = relasz / sizeof(ElfW(Rela));
	/* .rela.plt is usually inside the .rela.dyn range (DT_RELASZ counts
	 * it on some linkers): walk only the part before it. */
	if (ri->rela && ri->jmprel && ri->jmprel > ri->rela &&
	    ri->jmprel < ri->rela + ri->rela_n)
		ri->rela_n = (size_t)(ri->jmprel - ri->rela);
	return 0;
}

/* Version name required for symbol index i, from .gnu.version_r. */
static const char *sym_version(const struct sc_reloc_info *ri, size_t i)
{
	if (!ri->versym || !ri->verneed)
		return NULL;
	ElfW(Half) v = ri->versym[i] & 0x7fff;
	if (v <= 1)
		return NULL;
	const ElfW(Verneed) *vn = ri->verneed;
	for (size_t n = 0; n < ri->verneed_n; n++) {
		const ElfW(Vernaux) *va = (const void *)((const char *)vn + vn->vn_aux);
		for (unsigned a = 0; a < vn->vn_cnt; a++) {
			if (va->vna_other == v)
				return ri->strtab + va->vna_name;
			if (!va->vna_next)
				break;
			va = (const void *)((const char *)va + va->vna_next);
		}
		if (!vn->vn_next)
			break;
		vn = (const void *)((const char *)vn + vn->vn_next);
	}
	return NULL;
}

static int one(const struct sc_reloc_info *ri, const ElfW(Rela) *r, unsigned kind,
	       sc_import_cb cb, void *ctx)
{
	size_t si = ELF64_R_SYM(r->r_info);
	if (si == 0)
		return 0;           /* IRELATIVE-like, no name */
	const ElfW(Sym) *s = &ri->symtab[si];
	if (ri->strsz && s->st_name >= ri->strsz)
		return 0;
	struct sc_import imp = {
		.slot = ri->base + r->r_offset,
		.name = ri->strtab + s->st_name,
		.version = sym_version(ri, si),
		.kind = kind,
		.st_type = (unsigned char)ELF64_ST_TYPE(s->st_info),
		.defined_here = s->st_shndx != SHN_UNDEF,
	};
	if (!imp.name[0])
		return 0;
	return cb(ctx, &imp);
}

size_t sc_reloc_walk(const struct sc_reloc_info *ri, sc_import_cb cb, void *ctx)
{
	size_t seen = 0;
	for (size_t i = 0; i < ri->jmprel_n; i++) {
		if (ELF64_R_TYPE(ri->jmprel[i].r_info) != SC_R_JUMP_SLOT)
			continue;
		seen++;
		if (one(ri, &ri->jmprel[i], SC_ENT_PLT, cb, ctx))
			return seen;
	}
	for (size_t i = 0; i < ri->rela_n; i++) {
		if (ELF64_R_TYPE(ri->rela[i].r_info) != SC_R_GLOB_DAT)
			continue;
		seen++;
		if (one(ri, &ri->rela[i], SC_ENT_GOT, cb, ctx))
			return seen;
	}
	return seen;
}

uint32_t sc_gnu_hash(const char *name)
{
	uint32_t h = 5381;
	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = h * 33 + *s;
	return h;
}

/*
 * DT_GNU_HASH: nbuckets, symoffset, bloom words, bloom shift, then the
 * bloom filter, the buckets and one chain word per defined symbol from
 * symoffset on (bit 0 ends a chain). It lists every defined dynamic
 * symbol, which is what a lookup by name can find.
 */
static const ElfW(Sym) *find_sym(const struct sc_reloc_info *ri, const char *name, uint32_t h)
{
	const uint32_t *g = ri->gnu_hash;
	uint32_t nbuckets = g[0], symoffset = g[1], nbloom = g[2], shift = g[3];
	if (!nbuckets || !nbloom)
		return NULL;
	const ElfW(Addr) *bloom = (const ElfW(Addr) *)(g + 4);
	const uint32_t *buckets = (const uint32_t *)(bloom + nbloom);
	const uint32_t *chain = buckets + nbuckets;
	unsigned bits = sizeof(ElfW(Addr)) * 8;
	ElfW(Addr) word = bloom[(h / bits) % nbloom];
	ElfW(Addr) mask = ((ElfW(Addr))1 << (h % bits)) | ((ElfW(Addr))1 << ((h >> shift) % bits));
	if ((word & mask) != mask)
		return NULL;
	uint32_t i = buckets[h % nbuckets];
	if (i < symoffset)
		return NULL;
	for (;; i++) {
		uint32_t c = chain[i - symoffset];
		if ((c | 1) == (h | 1) && (!ri->strsz || ri->symtab[i].st_name < ri->strsz) &&
		    !strcmp(ri->strtab + ri->symtab[i].st_name, name))
			return &ri->symtab[i];
		if (c & 1)
			return NULL;
	}
}

int sc_reloc_defines(const struct sc_reloc_info *ri, const char *name, uint32_t h)
{
	if (!ri->gnu_hash)
		return -1;
	return find_sym(ri, name, h) != NULL;
}

const ElfW(Sym) *sc_reloc_lookup(const struct sc_reloc_info *ri, const char *name)
{
	return ri->gnu_hash ? find_sym(ri, name, sc_gnu_hash(name)) : NULL;
}
