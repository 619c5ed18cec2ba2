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
	struct sc_reloc_info none;
	CHECK(sc_reloc_parse(0, NULL, &none) == -1, "no dynamic section is an error");
	return check_summary();
}
