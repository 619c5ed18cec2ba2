/*
 * test_reloc.c - unit test of the relocation walker (src/runtime/reloc.c)
 * on this very executable as the dynamic linker loaded it. Built twice by
 * unit.mk: with -Wl,-z,now (JUMP_SLOTs resolved, so each slot must hold the
 * function dlsym finds) and with -fno-plt (calls bound by GLOB_DAT).
 */
#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format.h"
#include "reloc.h"

struct seen {
	int puts_kind, strtod_kind, cos_kind;
	int slots_ok, slots_bad;
	const char *cos_ver;
};

static int cb(void *p, const struct sc_import *imp)
{
	struct seen *s = p;
	if (!strcmp(imp->name, "puts")) {
		s->puts_kind = (int)imp->kind;
	}
	if (!strcmp(imp->name, "strtod"))
		s->strtod_kind = (int)imp->kind;
	if (!strcmp(imp->name, "cos")) {
		s->cos_kind = (int)imp->kind;
		s->cos_ver = imp->version;
	}
	if (imp->st_type == STT_FUNC || imp->st_type == STT_GNU_IFUNC) {
		void *want = imp->version ? dlvsym(RTLD_DEFAULT, imp->name, imp->version)
					  : dlsym(RTLD_DEFAULT, imp->name);
		void *have = *(void **)imp->slot;
		if (want && have == want)
			s->slots_ok++;
		else if (want)
			s->slots_bad++;
	}
	return 0;
}

static int main_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	(void)size;
	struct sc_reloc_info *ri = p;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
			int r = sc_reloc_parse(info->dlpi_addr,
					       (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr), ri);
			return r == 0 ? 1 : -1;
		}
	return -1;
}

/* libm's symbols, read from its own GNU hash table (sc_reloc_defines) */
static int libm_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	(void)size;
	const char *n = info->dlpi_name;
	if (!n || !strstr(n, "/libm.so"))
		return 0;
	return main_cb(info, size, p);
}

int main(int argc, char **argv)
{
	(void)argv;
	/* keep real calls to the imports the walker must find */
	puts("test_reloc");
	double d = strtod(argc > 5 ? "2" : "1", NULL);
	if (cos(d * (argc > 7 ? 2 : 0)) != 1.0)
		return 2;

	struct sc_reloc_info ri;
	CHECK(dl_iterate_phdr(main_cb, &ri) == 1, "parse the executable's dynamic section");
	CHECK(ri.symtab && ri.strtab, "symbol and string tables found");
	struct seen s = {0};
	size_t n = sc_reloc_walk(&ri, cb, &s);
	CHECK(n >= 3, "at least three function relocations (%zu)", n);
#ifdef EXPECT_GOT
	CHECK(s.puts_kind == SC_ENT_GOT, "puts bound by GLOB_DAT under -fno-plt");
	CHECK(s.cos_kind == SC_ENT_GOT, "cos (libm) bound by GLOB_DAT under -fno-plt");
#else
	CHECK(s.puts_kind == SC_ENT_PLT, "puts bound by JUMP_SLOT");
	CHECK(s.cos_kind == SC_ENT_PLT, "cos (libm) bound by JUMP_SLOT");
#endif
	CHECK(s.strtod_kind != 0, "strtod found");
	CHECK(s.cos_ver && !strcmp(s.cos_ver, "GLIBC_2.2.5"), "cos needs version GLIBC_2.2.5 (%s)",
	      s.cos_ver ? s.cos_ver : "none");
	CHECK(ri.bind_now, "object is bound now");
	CHECK(s.slots_ok >= 3 && s.slots_bad == 0, "every resolved slot holds what dlsym finds (%d ok, %d bad)",
	      s.slots_ok, s.slots_bad);
	struct sc_reloc_info m;
	CHECK(dl_iterate_phdr(libm_cb, &m) == 1, "parse libm's dynamic section");
	CHECK(m.gnu_hash != NULL, "libm has a GNU hash table");
	int hits = 0;
	const char *have[] = {"cos", "sin", "exp", "log", "pow", "sqrt", "floor", "ldexp"};
	for (size_t i = 0; i < sizeof(have) / sizeof(have[0]); i++)
		hits += sc_reloc_defines(&m, have[i], sc_gnu_hash(have[i])) == 1;
	CHECK(hits == 8, "libm defines cos, sin, ... (%d of 8 found)", hits);
	const char *lack[] = {"puts", "strtod", "malloc", "cosx", "co", "sc_no_such_symbol"};
	int misses = 0;
	for (size_t i = 0; i < sizeof(lack) / sizeof(lack[0]); i++)
		misses += sc_reloc_defines(&m, lack[i], sc_gnu_hash(lack[i])) == 0;
	CHECK(misses == 6, "libm does not define puts, strtod, ... (%d of 6 absent)", misses);
	CHECK(sc_gnu_hash("") == 5381 && sc_gnu_hash("printf") == 0x156b2bb8u,
	      "the GNU hash function (%#x)", sc_gnu_hash("printf"));
	m.gnu_hash = NULL;
	CHECK(sc_reloc_defines(&m, "cos", sc_gnu_hash("cos")) == -1, "no table: cannot say");
	struct sc_reloc_info none;
	CHECK(sc_reloc_parse(0, NULL, &none) == -1, "no dynamic section is an error");
	return check_summary();
}
