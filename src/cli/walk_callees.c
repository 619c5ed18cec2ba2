/*
 * walk_callees.c - the functions a function of an ELF file may call, for
 * `scaler walk --deeper` (walk_deeper.c): as CrossWalk finds a hot
 * function's callees, by decoding it (Zydis, through arch/x86_64's
 * sc_arch_decode) and keeping every direct call and jump that lands on the
 * start of a named function of the same file, and every function whose
 * address it takes (a rip-relative operand that points at a function's
 * start: a callback handed to a library, which then calls it).
 *
 * Calls through the PLT land on no function start and are left out: they
 * are imports, counted already. Indirect calls are not followed (CrossWalk
 * finds those at run time); the address-taken rule covers the common case
 * of a pointer set up in the function that passes it on.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnpatch.h"
#include "symbols.h"
#include "walk_deeper.h"

struct fn {
	char *name;
	uint64_t addr, size;
};

struct fns {
	struct fn *v;
	size_t n, cap;
};

static int collect(void *ctx, const char *name, uint64_t addr, uint64_t size)
{
	struct fns *f = ctx;

	if (!name || !*name)
		return 0;
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 256;
		struct fn *v = realloc(f->v, cap * sizeof(*v));

		if (!v)
			return 1;
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n].name = strdup(name);
	if (!f->v[f->n].name)
		return 1;
	f->v[f->n].addr = addr;
	f->v[f->n].size = size;
	f->n++;
	return 0;
}

static const struct fn *fn_at(const struct fns *f, uint64_t addr)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].addr == addr)
			return &f->v[i];
	return NULL;
}

/* The file bytes of [addr, addr + size) of the mapped ELF file, or NULL. */
static const uint8_t *code_at(const uint8_t *img, size_t len, uint64_t addr, uint64_t size)
{
	const Elf64_Ehdr *eh = (const void *)img;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > len || (len - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		return NULL;
	const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff);
	for (size_t i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || addr < ph[i].p_vaddr ||
		    addr - ph[i].p_vaddr >= ph[i].p_filesz ||
		    size > ph[i].p_filesz - (addr - ph[i].p_vaddr))
			continue;
		uint64_t off = ph[i].p_offset + (addr - ph[i].p_vaddr);
		return off <= len && size <= len - off ? img + off : NULL;
	}
	return NULL;
}

static int listed(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

/* Functions a walk has no business patching: the C start-up's. */
static int startup(const char *name)
{
	static const char *const names[] = {
		"main", "_start", "_init", "_fini", "frame_dummy", "register_tm_clones",
		"deregister_tm_clones", "__do_global_dtors_aux", "__libc_csu_init",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

size_t walk_callees(const char *path, const char *const *roots, size_t nroots, char **out,
		    size_t max, char *err, size_t errlen)
{
	struct fns f = { 0 };
	const char *why = NULL;
	size_t n = 0;
	struct stat st;
	int fd;

	if (sc_arch_decoder_load(&why) != 0) {
		snprintf(err, errlen, "%s", why);
		return 0;
	}
	if (sc_syms_each(path, NULL, collect, &f) <= 0 || !f.n) {
		snprintf(err, errlen, "%s has no function names", path);
		goto out;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0) {
		snprintf(err, errlen, "cannot read %s", path);
		if (fd >= 0)
			close(fd);
		goto out;
	}
	const uint8_t *img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED) {
		snprintf(err, errlen, "cannot map %s", path);
		goto out;
	}
	for (size_t r = 0; r < (nroots ? nroots : 1); r++) {
		for (size_t i = 0; i < f.n; i++) {
			const struct fn *root = &f.v[i];
			const uint8_t *code;

			if ((nroots && strcmp(root->name, roots[r])) || !root->size ||
			    !(code = code_at(img, (size_t)st.st_size, root->addr, root->size)))
				continue;
			for (uint64_t off = 0; off < root->size;) {
				struct sc_insn in;
				const struct fn *t;

				if (sc_arch_decode(code + off, root->size - off, root->addr + off, &in) ||
				    !in.len)
					break;
				off += in.len;
				if (in.kind != SC_INSN_RIP &&
				    (!nroots || (in.kind != SC_INSN_CALL && in.kind != SC_INSN_JMP)))
					continue;
				t = fn_at(&f, in.target);
				if (!t || t == root || startup(t->name) || listed(out, n, t->name) ||
				    listed((char **)roots, nroots, t->name))
					continue;
				if (n == max)
					break;
				if (!(out[n] = strdup(t->name)))
					break;
				n++;
			}
		}
	}
	if (!n)
		snprintf(err, errlen, "no function of %s called by it found", path);
	munmap((void *)img, (size_t)st.st_size);
out:
	for (size_t i = 0; i < f.n; i++)
		free(f.v[i].name);
	free(f.v);
	return n;
}
