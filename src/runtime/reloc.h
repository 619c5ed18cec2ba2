/*
 * reloc.h - the relocation walker: which GOT slots of a loaded object bind
 * functions imported by name. Pure reading of memory the dynamic linker has
 * already mapped; no patching, no allocation, usable from unit tests.
 */
#ifndef SCALER_RELOC_H
#define SCALER_RELOC_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_reloc_info {
	uintptr_t base;
	const ElfW(Sym) *symtab;
	const char *strtab;
	size_t strsz;
	const ElfW(Rela) *jmprel;   /* .rela.plt */
	size_t jmprel_n;
	const ElfW(Rela) *rela;     /* .rela.dyn */
	size_t rela_n;
	const ElfW(Half) *versym;
	const ElfW(Verneed) *verneed;
	size_t verneed_n;
	bool bind_now;              /* DF_BIND_NOW / DF_1_NOW */
	const uint32_t *gnu_hash;   /* DT_GNU_HASH, or NULL */
};

/* One import found by the walker. */
struct sc_import {
	uintptr_t slot;             /* address of the GOT slot */
	const char *name;           /* symbol name, no version */
	const char *version;        /* required version or NULL */
	unsigned kind;              /* SC_ENT_PLT or SC_ENT_GOT */
	unsigned char st_type;      /* STT_* of the referencing symbol */
	bool defined_here;          /* the symbol is defined in this object */
};

/* Fills ri from the dynamic section at dyn of an object loaded at base.
 * Returns 0, or -1 if the object has no symbol table. */
int sc_reloc_parse(uintptr_t base, const ElfW(Dyn) *dyn, struct sc_reloc_info *ri);

/* Calls cb for every JUMP_SLOT relocation and every GLOB_DAT relocation of
 * a named symbol. cb returns non-zero to stop. Returns the number seen. */
typedef int (*sc_import_cb)(void *ctx, const struct sc_import *imp);
size_t sc_reloc_walk(const struct sc_reloc_info *ri, sc_import_cb cb, void *ctx);

/* The GNU hash of a symbol name, and whether the object defines a symbol
 * of that name (any version): 1 yes, 0 no, -1 it cannot say (no
 * DT_GNU_HASH). */
uint32_t sc_gnu_hash(const char *name);
int sc_reloc_defines(const struct sc_reloc_info *ri, const char *name, uint32_t hash);
/* The object's dynamic symbol called name (any version, the first the
 * GNU hash table lists: a defined one, or an executable's canonical PLT
 * entry, undefined with a value), or NULL (also without DT_GNU_HASH). */
const ElfW(Sym) *sc_reloc_lookup(const struct sc_reloc_info *ri, const char *name);

#endif
