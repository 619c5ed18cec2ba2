/*
 * symbols.c - the functions an ELF object defines (symbols.h): its
 * .symtab, a separate debug file's, its .gnu_debugdata's (with its
 * .dynsym), or its .eh_frame's FDE ranges.
 *
 * Every read is bounds-checked against the mapped file: the input is any
 * file a program maps, possibly truncated or hostile, and the runtime
 * reads it inside someone else's process.
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names.h"
#include "symbols.h"
#include "xz.h"

struct elf {
	const uint8_t *p;
	size_t len;
	struct sc_xz_buf xz;    /* p's mapping when decompressed, else empty */
	const Elf64_Shdr *sh;
	unsigned shnum;
	const char *shstr;
	size_t shstr_len;
};

/* Checks the headers of e->p[0, len) and finds its section names. */
static int elf_parse(struct elf *e)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *)e->p;

	if (e->len < sizeof(*h) || memcmp(h->e_ident, ELFMAG, SELFMAG) != 0 ||
	    h->e_ident[EI_CLASS] != ELFCLASS64 || h->e_shentsize != sizeof(Elf64_Shdr) ||
	    h->e_shoff > e->len || (size_t)h->e_shnum * sizeof(Elf64_Shdr) > e->len - h->e_shoff)
		return -1;
	e->sh = (const Elf64_Shdr *)(e->p + h->e_shoff);
	e->shnum = h->e_shnum;
	if (h->e_shstrndx < e->shnum) {
		const Elf64_Shdr *s = &e->sh[h->e_shstrndx];
		if (s->sh_offset <= e->len && s->sh_size <= e->len - s->sh_offset) {
			e->shstr = (const char *)e->p + s->sh_offset;
			e->shstr_len = s->sh_size;
		}
	}
	return 0;
}

static int elf_open(const char *path, struct elf *e)
{
	memset(e, 0, sizeof(*e));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	void *m = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof(Elf64_Ehdr))
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	e->p = m;
	e->len = (size_t)st.st_size;
	if (elf_parse(e) != 0) {
		munmap(m, e->len);
		e->p = NULL;
		return -1;
	}
	return 0;
}

static void elf_close(struct elf *e)
{
	if (e->xz.data)
		sc_xz_free(&e->xz);
	else if (e->p)
		munmap((void *)e->p, e->len);
	e->p = NULL;
}

/* The bytes of section s in the file, or NULL (none, or NOBITS). */
static const uint8_t *sec_data(const struct elf *e, const Elf64_Shdr *s)
{
	if (s->sh_type == SHT_NOBITS || s->sh_offset > e->len ||
	    s->sh_size > e->len - s->sh_offset)
		return NULL;
	return e->p + s->sh_offset;
}

static const Elf64_Shdr *sec_named(const struct elf *e, const char *name)
{
	size_t n = strlen(name);
	for (unsigned i = 0; i < e->shnum && e->shstr; i++) {
		uint32_t at = e->sh[i].sh_name;
		if (at < e->shstr_len && e->shstr_len - at > n &&
		    memcmp(e->shstr + at, name, n + 1) == 0)
			return &e->sh[i];
	}
	return NULL;
}

/* Walks e's symbol tables of type (SHT_SYMTAB, SHT_DYNSYM); the number
 * of functions reported, or -1 if fn stopped the walk. */
static long walk_syms(const struct elf *e, uint32_t type, sc_syms_fn fn, void *ctx)
{
	long n = 0;
	for (unsigned i = 0; i < e->shnum; i++) {
		const Elf64_Shdr *s = &e->sh[i];
		if (s->sh_type != type || s->sh_entsize != sizeof(Elf64_Sym) ||
		    s->sh_link >= e->shnum)
			continue;
		const uint8_t *d = sec_data(e, s), *str = sec_data(e, &e->sh[s->sh_link]);
		if (!d || !str)
			continue;
		size_t slen = e->sh[s->sh_link].sh_size;
		const Elf64_Sym *sym = (const Elf64_Sym *)d;
		for (size_t k = 0; k < s->sh_size / sizeof(Elf64_Sym); k++) {
			if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_shndx == SHN_UNDEF ||
			    sym[k].st_name >= slen)
				continue;
			const char *name = (const char *)str + sym[k].st_name;
			if (!memchr(name, 0, slen - sym[k].st_name))
				continue;
			n++;
			if (fn(ctx, name, sym[k].st_value, sym[k].st_size))
				return -1;
		}
	}
	return n;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* The build-id's bytes from .note.gnu.build-id, or 0. */
static size_t build_id(const struct elf *e, const uint8_t **id)
{
	const Elf64_Shdr *s = sec_named(e, ".note.gnu.build-id");
	const uint8_t *d = s ? sec_data(e, s) : NULL;
	if (!d || s->sh_size < 16)
		return 0;
	uint32_t namesz = rd32(d), descsz = rd32(d + 4), type = rd32(d + 8);
	size_t at = 12 + ((namesz + 3) & ~3u);
	if (type != NT_GNU_BUILD_ID || namesz != 4 || memcmp(d + 12, "GNU", 4) != 0 ||
	    descsz == 0 || descsz > 64 || at + descsz > s->sh_size)
		return 0;
	*id = d + at;
	return descsz;
}

/* Opens the separate debug file of e (at path) into dbg; 0 if found. */
static int open_debug_file(const struct elf *e, const char *path, const char *root,
			   struct elf *dbg)
{
	char buf[PATH_MAX];
	const uint8_t *id;
	size_t n = build_id(e, &id);
	if (n >= 2) {
		int at = snprintf(buf, sizeof(buf), "%s/.build-id/%02x/", root, id[0]);
		for (size_t i = 1; i < n && at > 0 && (size_t)at < sizeof(buf) - 8; i++)
			at += snprintf(buf + at, sizeof(buf) - (size_t)at, "%02x", id[i]);
		if (at > 0 && (size_t)at < sizeof(buf) - 8) {
			memcpy(buf + at, ".debug", 7);
			if (elf_open(buf, dbg) == 0)
				return 0;
		}
	}
	const Elf64_Shdr *s = sec_named(e, ".gnu_debuglink");
	const char *link = s ? (const char *)sec_data(e, s) : NULL;
	if (!link || !s->sh_size || !memchr(link, 0, s->sh_size) || strchr(link, '/'))
		return -1;
	/* the object's directory, with its trailing '/' */
	size_t dlen = (size_t)(sc_basename(path) - path);
	if (dlen >= sizeof(buf) / 2)
		return -1;
	const char *forms[] = {"%.*s%s", "%.*s.debug/%s", NULL};
	for (int f = 0; forms[f]; f++) {
		int k = snprintf(buf, sizeof(buf), forms[f], (int)dlen, path, link);
		if (k > 0 && (size_t)k < sizeof(buf) && strcmp(buf, path) != 0 &&
		    elf_open(buf, dbg) == 0)
			return 0;
	}
	int k = snprintf(buf, sizeof(buf), "%s%s%.*s%s", root, path[0] == '/' ? "" : "/",
			 (int)dlen, path, link);
	if (k > 0 && (size_t)k < sizeof(buf) && elf_open(buf, dbg) == 0)
		return 0;
	return -1;
}

/* ---- .eh_frame -------------------------------------------------------- */

struct cur {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	for (int sh = 0; c->p < c->end; sh += 7) {
		uint8_t b = *c->p++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return 0;
}

static int64_t sleb(struct cur *c)
{
	int64_t v = 0;
	int sh = 0;
	uint8_t b = 0x80;
	while (c->p < c->end && (b & 0x80)) {
		b = *c->p++;
		if (sh < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << sh);
		sh += 7;
	}
	if (b & 0x80)
		c->bad = 1;
	else if (sh < 64 && (b & 0x40))
		v |= -((int64_t)1 << sh);
	return v;
}

static uint64_t fixed(struct cur *c, size_t n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	uint64_t v = 0;
	memcpy(&v, c->p, n);
	c->p += n;
	return v;
}

/* A DW_EH_PE-encoded pointer; field_addr is where it lies at run time
 * (link-time address), for pc-relative ones. */
static uint64_t read_enc(struct cur *c, uint8_t enc, uint64_t field_addr)
{
	uint64_t v;
	switch (enc & 0x0f) {
	case 0x00: v = fixed(c, 8); break;                              /* absptr */
	case 0x01: v = uleb(c); break;
	case 0x02: v = fixed(c, 2); break;
	case 0x03: v = fixed(c, 4); break;
	case 0x04: case 0x0c: v = fixed(c, 8); break;
	case 0x09: v = (uint64_t)sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
	default: c->bad = 1; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += field_addr; break;                              /* pcrel */
	default: c->bad = 1; break;     /* datarel, textrel, funcrel: not in .eh_frame FDEs */
	}
	return v;
}

/* The FDE pointer encoding a CIE gives (its 'R' augmentation), and
 * whether its FDEs have augmentation data ('z'). */
static int cie_encoding(const uint8_t *cie, const uint8_t *end, uint64_t cie_addr, uint8_t *enc,
			int *z)
{
	struct cur c = {cie, end, 0};
	uint8_t ver = (uint8_t)fixed(&c, 1);
	const char *aug = (const char *)c.p;
	const uint8_t *nul = memchr(c.p, 0, (size_t)(end - c.p));
	if (!nul || (ver != 1 && ver != 3))
		return -1;
	c.p = nul + 1;
	*enc = 0;       /* absptr */
	*z = 0;
	if (aug[0] == 'e' && aug[1] == 'h')
		return -1;
	uleb(&c);
	sleb(&c);
	if (ver == 1)
		fixed(&c, 1);
	else
		uleb(&c);
	*z = aug[0] == 'z';
	if (!*z)
		return c.bad ? -1 : 0;
	uleb(&c);       /* augmentation data length */
	for (const char *a = aug + 1; *a && !c.bad; a++) {
		if (*a == 'R') {
			*enc = (uint8_t)fixed(&c, 1);
			return c.bad ? -1 : 0;
		} else if (*a == 'P') {
			uint8_t penc = (uint8_t)fixed(&c, 1);
			read_enc(&c, penc & 0x7f, cie_addr + (uint64_t)(c.p - cie));
		} else if (*a == 'L') {
			fixed(&c, 1);
		} else if (*a != 'S' && *a != 'B') {
			return -1;
		}
	}
	return c.bad ? -1 : 0;
}

/*
 * Whether the call frame instructions at c (an FDE's, after its
 * augmentation data) leave the CIE's rule in force at the FDE's first
 * byte: a function's entry (CFA = rsp + 8, the return address just
 * pushed). An FDE that changes the rule before any advance starts inside
 * a frame: a function's .cold part, entered by a jump from its function,
 * which is not a function of its own.
 */
static int starts_a_frame(const uint8_t *c, const uint8_t *end)
{
	if (c >= end)
		return 1;
	uint8_t op = *c;
	return op == 0 /* nop */ || (op >> 6) == 1 /* advance_loc */ ||
	       (op >= 0x02 && op <= 0x04) /* advance_loc1/2/4 */;
}

/* Every FDE of e's .eh_frame that starts a frame, as an unnamed function. */
static long walk_eh_frame(const struct elf *e, sc_syms_fn fn, void *ctx)
{
	const Elf64_Shdr *s = sec_named(e, ".eh_frame");
	const uint8_t *d = s ? sec_data(e, s) : NULL;
	if (!d)
		return 0;
	const uint8_t *end = d + s->sh_size, *p = d;
	const uint8_t *last_cie = NULL;
	uint8_t enc = 0;
	int z = 0;
	long n = 0;
	while ((size_t)(end - p) >= 4) {
		uint64_t len = rd32(p);
		size_t hl = 4;
		if (len == 0)
			break;                  /* terminator */
		if (len == 0xffffffffu) {
			if ((size_t)(end - p) < 12)
				break;
			memcpy(&len, p + 4, 8);
			hl = 12;
		}
		if (len > (size_t)(end - p) - hl || len < 4)
			break;
		const uint8_t *body = p + hl, *next = body + len;
		uint32_t id = rd32(body);
		if (id != 0) {
			/* an FDE: id is the distance back to its CIE */
			const uint8_t *cie = body - id;
			if (cie < d || cie + 8 > end)
				break;
			if (cie != last_cie) {
				uint64_t clen = rd32(cie);
				if (clen == 0xffffffffu || clen > (size_t)(end - cie) - 4 ||
				    cie_encoding(cie + 8, cie + 4 + clen,
						 s->sh_addr + (uint64_t)(cie + 8 - d), &enc, &z) != 0) {
					p = next;
					continue;
				}
				last_cie = cie;
			}
			struct cur c = {body + 4, next, 0};
			uint64_t start = read_enc(&c, enc, s->sh_addr + (uint64_t)(c.p - d));
			uint64_t size = read_enc(&c, enc & 0x0f, 0);
			if (z) {
				uint64_t alen = uleb(&c);
				if (alen > (uint64_t)(c.end - c.p))
					c.bad = 1;
				else
					c.p += alen;
			}
			if (!c.bad && start && size && starts_a_frame(c.p, c.end)) {
				n++;
				if (fn(ctx, NULL, start, size))
					return -1;
			}
		}
		p = next;
	}
	return n;
}

/*
 * .gnu_debugdata (Fedora's "mini debuginfo"): an xz-compressed ELF file
 * whose .symtab holds the functions .dynsym does not, so both are walked.
 * Returns the functions reported, 0 if none or no such section, -1 if fn
 * stopped the walk.
 */
static long walk_debugdata(const struct elf *e, sc_syms_fn fn, void *ctx)
{
	const Elf64_Shdr *s = sec_named(e, ".gnu_debugdata");
	const uint8_t *xz = s ? sec_data(e, s) : NULL;
	struct elf mini;
	long n, d;

	memset(&mini, 0, sizeof(mini));
	if (!xz || sc_xz_decode(xz, s->sh_size, &mini.xz) != 0)
		return 0;
	mini.p = mini.xz.data;
	mini.len = mini.xz.len;
	n = elf_parse(&mini) == 0 ? walk_syms(&mini, SHT_SYMTAB, fn, ctx) : 0;
	elf_close(&mini);
	if (n <= 0)
		return n;
	d = walk_syms(e, SHT_DYNSYM, fn, ctx);
	return d < 0 ? -1 : n + d;
}

int sc_syms_each(const char *path, const char *debug_root, sc_syms_fn fn, void *ctx)
{
	struct elf e, dbg;
	if (elf_open(path, &e) != 0)
		return -1;
	int src = SC_SYMS_NONE;
	long n = walk_syms(&e, SHT_SYMTAB, fn, ctx);
	if (n != 0)
		src = SC_SYMS_SYMTAB;
	else if (open_debug_file(&e, path, debug_root ? debug_root : "/usr/lib/debug", &dbg) == 0) {
		n = walk_syms(&dbg, SHT_SYMTAB, fn, ctx);
		elf_close(&dbg);
		if (n != 0)
			src = SC_SYMS_DEBUGFILE;
	}
	if (src == SC_SYMS_NONE && walk_debugdata(&e, fn, ctx) != 0)
		src = SC_SYMS_DEBUGDATA;
	if (src == SC_SYMS_NONE && walk_eh_frame(&e, fn, ctx) != 0)
		src = SC_SYMS_EHFRAME;
	elf_close(&e);
	return src;
}

void sc_syms_anon_name(char *out, size_t n, const char *path, uint64_t addr)
{
	snprintf(out, n, "%s+0x%llx", sc_basename(path), (unsigned long long)addr);
}
