/*
 * objects.c - the table of loaded objects: listing them, registering the
 * new ones, pruning the unloaded ones, and finding an address's object.
 *
 * Stage contract: sc_objects_scan() runs at start-up (from the constructor)
 * and after every dlopen. It registers objects it has not seen (one
 * SC_M_OBJECT record each) and has each patched (patch.c). It runs with
 * the runtime lock held and this thread marked busy, so nothing it calls
 * is traced.
 *
 * The table is a fixed array filled in order and never shrunk (an unloaded
 * object is marked gone): an entry, once published by the count, can be
 * read without the runtime lock.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

static struct sc_object objs[SC_MAX_OBJECTS] SC_LARGE_BSS SC_LBSS_THIRD;
static uint32_t n_objs;

uint32_t sc_object_count(void)
{
	return __atomic_load_n(&n_objs, __ATOMIC_ACQUIRE);
}

/* Object id, registered whether or not still loaded, or NULL. */
struct sc_object *sc_object_get(uint32_t id)
{
	return id < sc_object_count() ? &objs[id] : NULL;
}

static int prot_of(const ElfW(Phdr) *ph)
{
	return ((ph->p_flags & PF_R) ? PROT_READ : 0) | ((ph->p_flags & PF_W) ? PROT_WRITE : 0) |
	       ((ph->p_flags & PF_X) ? PROT_EXEC : 0);
}

/* o's PT_LOAD segment holding a, as offsets from its base: [lo, hi) in
 * memory, its file bytes ending at fhi, and its protection (PROT_*);
 * from the copy made at registration, else from the program headers */
struct seg {
	uintptr_t lo, hi, fhi;
	int prot;
};
static bool seg_at(const struct sc_object *o, uintptr_t a, struct seg *s)
{
	if (a < o->base)
		return false;
	uintptr_t off = a - o->base;
	for (int i = 0; i < o->nload; i++)
		if (off >= o->load[i].lo && off < o->load[i].hi) {
			*s = (struct seg){o->load[i].lo, o->load[i].hi, o->load[i].fhi, o->load_prot[i]};
			return true;
		}
	for (int p = 0; !o->nload && p < o->phnum; p++) {
		const ElfW(Phdr) *ph = &o->phdr[p];
		if (ph->p_type == PT_LOAD && off >= ph->p_vaddr && off < ph->p_vaddr + ph->p_memsz) {
			*s = (struct seg){ph->p_vaddr, ph->p_vaddr + ph->p_memsz,
					  ph->p_vaddr + ph->p_filesz, prot_of(ph)};
			return true;
		}
	}
	return false;
}

/* The protection (PROT_*) of o's PT_LOAD segment holding a; -1 if a is
 * in none. */
int sc_object_seg_prot(const struct sc_object *o, uintptr_t a)
{
	struct seg s;
	return seg_at(o, a, &s) ? s.prot : -1;
}

struct sc_object *sc_object_of(uintptr_t a)
{
	for (uint32_t i = 0; i < n_objs; i++) {
		struct sc_object *o = &objs[i];
		if (o->gone || a < o->lo || a >= o->hi)
			continue;
		/* spans can interleave with other objects' gaps: check segments */
		if (sc_object_seg_prot(o, a) >= 0)
			return o;
	}
	return NULL;
}

/* The load bias of object id (its base, whether or not it is loaded). */
uintptr_t sc_object_base(uint32_t id)
{
	return id < n_objs ? objs[id].base : 0;
}

/* Bytes of readable code from a to the end of its segment (0: none). */
size_t sc_object_code_len(uintptr_t a)
{
	struct sc_object *o = sc_object_of(a);
	struct seg s;
	if (!o || !seg_at(o, a, &s) || !(s.prot & PROT_EXEC) || !(s.prot & PROT_READ) ||
	    a - o->base >= s.fhi)
		return 0;
	return s.fhi - (a - o->base);
}

uint32_t sc_object_id_of(uintptr_t a)
{
	struct sc_object *o = sc_object_of(a);
	return o ? o->id : UINT32_MAX;
}

/* the runtime's own ELF header, where the linker put it: at the start of
 * its first segment, at offset 0 (not dladdr: its code is a page of libc
 * that a small program never touches, doc/performance.md) */
extern const char __ehdr_start[] SC_HIDDEN;

/* The runtime's own load bias (0: unknown). */
uintptr_t sc_self_base(void)
{
	return (uintptr_t)__ehdr_start;
}

static int self_path_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	(void)size;
	const char **path = p;
	if (info->dlpi_addr != sc_self_base())
		return 0;
	*path = info->dlpi_name;
	return 1;
}

/* The path the loader loaded the runtime by (as dladdr's dli_fname), or
 * NULL. */
const char *sc_self_path(void)
{
	const char *path = NULL;
	dl_iterate_phdr(self_path_cb, &path);
	return path && path[0] ? path : NULL;
}

/* the loader's count of unloads so far; 0 from a loader that has none */
static unsigned long long subs_of(const struct dl_phdr_info *info, size_t size)
{
	return size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)
		       ? info->dlpi_subs : 0;
}

/*
 * Whether info is an object already registered. Its address and program
 * headers are not enough: the object may have been unloaded and loaded
 * again at the same address by calls the runtime does not see after the
 * fact (the last reference dropped by a dlclose of the runtime's own, on
 * a handle it took with RTLD_NOLOAD to look a symbol up, or one inside
 * libc). Such a copy is new, with a GOT the loader filled: if unloads
 * happened since the object was registered and the slot the runtime last
 * wrote no longer holds what it wrote, the old record is marked gone.
 * Runs inside dl_iterate_phdr (so the object stays mapped), under the
 * runtime lock.
 */
static bool is_known(struct dl_phdr_info *info, size_t size)
{
	for (uint32_t i = 0; i < n_objs; i++) {
		struct sc_object *o = &objs[i];
		if (o->gone || o->base != info->dlpi_addr || o->phdr != info->dlpi_phdr)
			continue;
		if (subs_of(info, size) == o->subs || !o->witness)
			return true;
		sc_leaf_lock();                 /* a bind may be rewriting it */
		bool same = *(void *const *)o->witness == o->witness_val;
		sc_leaf_unlock();
		if (same)
			return true;
		o->gone = true;
		struct sc_m_object m = {.id = o->id, .base = o->base};
		sc_meta_add(SC_M_UNLOAD, &m, sizeof(m), NULL);
		return false;
	}
	return false;
}

struct list_ctx {
	uint32_t n, cap;
	bool failed;            /* out of memory: the list is not whole */
	struct seen { uintptr_t base; const void *phdr; } *seen;
};

static int list_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	(void)size;
	struct list_ctx *c = p;
	if (c->n == c->cap) {
		if (c->cap >= SC_MAX_OBJECTS)
			return 0;
		uint32_t cap = c->cap ? c->cap * 2 : 31;        /* 512 bytes */
		struct seen *s = sc_mem_grow(c->seen, (size_t)cap * sizeof(*s));
		if (!s) {
			c->failed = true;
			return 1;
		}
		c->seen = s;
		c->cap = cap;
	}
	c->seen[c->n].base = info->dlpi_addr;
	c->seen[c->n].phdr = info->dlpi_phdr;
	c->n++;
	return 0;
}

/* Marks objects that are no longer loaded as gone (SC_M_UNLOAD). Runs
 * after every dlclose and before registering new objects, so that a
 * library loaded again (often at the same address) is hooked afresh.
 * Caller holds the lock. The list of loaded objects lives only during
 * this call, from sc_mem_grow (not .bss, where it would keep pages
 * resident for good), as long as the objects loaded: the scratch region
 * zeroes what a block was given when it is handed out again, so a block
 * larger than needed would cost the next ones page faults. */
void sc_objects_prune(void)
{
	struct list_ctx c = {0};
	dl_iterate_phdr(list_cb, &c);
	if (c.failed) {
		sc_mem_free(c.seen);
		return;
	}
	for (uint32_t i = 0; i < n_objs; i++) {
		if (objs[i].gone)
			continue;
		bool found = false;
		for (uint32_t k = 0; k < c.n && !found; k++)
			found = c.seen[k].base == objs[i].base && c.seen[k].phdr == objs[i].phdr;
		if (!found) {
			objs[i].gone = true;
			sc_fnsites_unloaded(objs[i].lo, objs[i].hi);
			struct sc_m_object m = {.id = objs[i].id, .base = objs[i].base};
			sc_meta_add(SC_M_UNLOAD, &m, sizeof(m), NULL);
		}
	}
	sc_mem_free(c.seen);
}

/*
 * Whether the file fn is the running executable, whose program headers
 * are phdr[0, phnum): its ELF header and program headers are those (a
 * script, for its interpreter, is not; nor is another program). Read
 * from the file, not by comparing it with /proc/self/exe: the first look
 * at /proc/<pid> makes its entries, 10-30 us of every process's start.
 * A file that cannot be read (mode --x) is compared the old way.
 */
static bool is_exe(const char *fn, const ElfW(Phdr) *phdr, int phnum)
{
	int fd = open(fn, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		struct stat a, b;
		return stat(fn, &a) == 0 && stat("/proc/self/exe", &b) == 0 &&
		       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	}
	/* the ELF header and, where linkers put them, the program headers
	 * right after it: one read */
	union {
		ElfW(Ehdr) eh;
		char b[sizeof(ElfW(Ehdr)) + 32 * sizeof(ElfW(Phdr))];
	} u;
	size_t n = (size_t)phnum * sizeof(ElfW(Phdr));
	ssize_t got = phnum > 0 && phnum <= 32 ? pread(fd, &u, sizeof(u), 0) : -1;
	bool same = got >= (ssize_t)sizeof(u.eh) && !memcmp(u.eh.e_ident, ELFMAG, SELFMAG) &&
		    u.eh.e_phnum == phnum && u.eh.e_phentsize == sizeof(ElfW(Phdr));
	if (same && u.eh.e_phoff <= (size_t)got && n <= (size_t)got - u.eh.e_phoff)
		same = !memcmp(u.b + u.eh.e_phoff, phdr, n);
	else if (same)
		same = pread(fd, u.b, n, (off_t)u.eh.e_phoff) == (ssize_t)n && !memcmp(u.b, phdr, n);
	close(fd);
	return same;
}

/*
 * The executable's path, for its object (copied by the caller): the path
 * it was started by (AT_EXECFN, made absolute with the working directory,
 * which is still the exec's at start-up), so that it is named as invoked:
 * `redis-server`, not `redis-check-rdb` its symlink leads to. The kernel's
 * /proc/self/exe when that path is not the executable itself (a script's
 * path, for its interpreter) or is gone.
 */
static const char *main_path(char *buf, size_t len, const ElfW(Phdr) *phdr, int phnum)
{
	const char *fn = (const char *)getauxval(AT_EXECFN);
	/* a path through /proc or /dev/fd (fexecve) names no program */
	if (fn && strncmp(fn, "/proc/", 6) && strncmp(fn, "/dev/fd/", 8) &&
	    is_exe(fn, phdr, phnum)) {
		if (fn[0] == '/' && strlen(fn) < len) {
			strcpy(buf, fn);
			return buf;
		}
		while (fn[0] == '.' && fn[1] == '/')
			fn += 2;
		size_t at;
		if (fn[0] != '/' && getcwd(buf, len) && (at = strlen(buf)) + 1 + strlen(fn) < len) {
			buf[at] = '/';
			strcpy(buf + at + 1, fn);
			return buf;
		}
	}
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return "a.out";
	buf[n] = 0;
	return buf;
}

/*
 * An object the scan found and has not registered: what dl_iterate_phdr
 * said of it, and the handle that pins it (see sc_objects_scan).
 */
struct cand {
	uintptr_t base;
	const ElfW(Phdr) *phdr;
	int phnum;
	unsigned long long subs;
	const char *name;       /* sc_mem_strdup: becomes the object's path */
	bool anon;              /* no name to pin by: the executable, the vDSO */
	void *pin;
};

struct scan_ctx {
	struct cand *c;
	uint32_t n, cap;
	bool failed;
};

static int cand_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	struct scan_ctx *ctx = p;
	if (is_known(info, size))
		return 0;
	if (ctx->n == ctx->cap) {
		uint32_t cap = ctx->cap ? ctx->cap * 2 : 16;
		struct cand *nc = sc_mem_grow(ctx->c, cap * sizeof(*nc));
		if (!nc) {
			ctx->failed = true;
			return 1;
		}
		ctx->c = nc;
		ctx->cap = cap;
	}
	const char *name = info->dlpi_name;
	bool anon = !name || !name[0];
	/* the executable's path is made in scratch, not on the stack: each
	 * page of stack below what the program uses is one more page fault */
	char *exe = NULL;
	if (n_objs == 0 && ctx->n == 0 && anon)
		name = (exe = sc_mem_grow(NULL, PATH_MAX))
			       ? main_path(exe, PATH_MAX, info->dlpi_phdr, info->dlpi_phnum)
			       : "a.out";
	else if (anon)
		name = "linux-vdso.so.1";
	struct cand *c = &ctx->c[ctx->n++];
	*c = (struct cand){.base = info->dlpi_addr, .phdr = info->dlpi_phdr,
			   .phnum = info->dlpi_phnum, .subs = subs_of(info, size),
			   .name = sc_mem_strdup(name), .anon = anon};
	sc_mem_free(exe);
	return 0;
}

static void add_object(const struct cand *c, uintptr_t self)
{
	struct sc_object *o = &objs[n_objs];
	memset(o, 0, sizeof(*o));
	o->id = n_objs;
	o->subs = c->subs;
	o->base = c->base;
	o->phdr = c->phdr;
	o->phnum = c->phnum;
	o->lo = UINTPTR_MAX;
	int nload = 0;
	bool far = false;               /* a segment past 4 GB from base */
	for (int i = 0; i < c->phnum; i++) {
		const ElfW(Phdr) *ph = &c->phdr[i];
		uintptr_t s = c->base + ph->p_vaddr;
		if (ph->p_type == PT_LOAD) {
			if (s < o->lo)
				o->lo = s;
			if (s + ph->p_memsz > o->hi)
				o->hi = s + ph->p_memsz;
			far = far || ph->p_vaddr + ph->p_memsz > UINT32_MAX ||
			      ph->p_vaddr + ph->p_filesz > UINT32_MAX;
			if (nload < SC_OBJ_LOADS) {
				o->load[nload].lo = (uint32_t)ph->p_vaddr;
				o->load[nload].hi = (uint32_t)(ph->p_vaddr + ph->p_memsz);
				o->load[nload].fhi = (uint32_t)(ph->p_vaddr + ph->p_filesz);
				o->load_prot[nload] = (uint8_t)prot_of(ph);
			}
			nload++;
		} else if (ph->p_type == PT_DYNAMIC) {
			o->dyn = (const void *)s;
		} else if (ph->p_type == PT_GNU_RELRO) {
			o->relro = s;
			o->relro_len = ph->p_memsz;
		}
	}
	o->nload = nload <= SC_OBJ_LOADS && !far ? (uint8_t)nload : 0;
	o->path = c->name ? c->name : "?";
	o->vdso = strstr(o->path, "linux-vdso") != NULL;
	o->ldso = strstr(o->path, "ld-linux") != NULL;
	if (o->base == self && self)
		o->skip = true;                 /* ourselves */
	if (strstr(o->path, "linux-vdso") || strstr(o->path, "/ld-linux") ||
	    strstr(o->path, "ld64.so"))
		o->skip = true;                 /* no imports worth hooking */
	if (sc_functions_decoder(o->path))
		o->skip = true;                 /* the runtime's, for --functions */
	struct sc_m_object m = {.id = o->id, .base = o->base,
				.flags = o->id == 0 ? SC_OBJ_MAIN : (sc_active ? SC_OBJ_DLOPEN : 0)};
	/* published whole: binds read objs without the runtime lock */
	__atomic_store_n(&n_objs, n_objs + 1, __ATOMIC_RELEASE);
	sc_meta_add(SC_M_OBJECT, &m, sizeof(m), o->path);
}

/*
 * A handle on the loaded object c names, taken with RTLD_NOLOAD, or NULL.
 * The loader adds an object to its list before relocating it, and
 * dl_iterate_phdr shows it then: a scan that patched it would see its
 * slots overwritten by the relocation still to come (calls lost). dlopen
 * waits for the loader's lock, i.e. for a dlopen in flight in another
 * thread to finish, and the handle keeps the object mapped until the
 * scan lets it go. (dl_iterate_phdr lists the caller's namespace only:
 * objects of other namespaces, from dlmopen, are not seen at all.)
 */
static void *pin(const struct cand *c)
{
	void *h = dlopen(c->name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	struct link_map *lm = NULL;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_addr == c->base)
		return h;
	dlclose(h);
	return NULL;
}

/*
 * The scan, in stages, under the runtime lock:
 *   1. forget objects no longer loaded (prune);
 *   2. list the objects not registered yet (dl_iterate_phdr);
 *   3. after start-up, and at any time when attached to a running
 *      process, pin each (pin(): waits out a dlopen in flight, keeps it
 *      mapped); one that cannot be pinned was unloaded meanwhile, or is
 *      still being loaded by a dlopen that will scan it itself (the
 *      executable and the vDSO, loaded before any thread ran, need not);
 *   4. register them all, then patch them (sc_objects_patch): every new
 *      object must be registered before any is patched, as a target is
 *      attributed to the object that contains it;
 *   5. let the pins go; if that unloaded one, prune again.
 */
void sc_objects_scan(bool patch)
{
	sc_lock();
	if (sc_detached) {
		sc_unlock();                    /* a dlopen's scan that lost the race */
		return;
	}
	sc_meta_batch(true);
	if (n_objs)
		sc_objects_prune();     /* the first scan has nothing to prune */
	struct scan_ctx ctx = {0};
	dl_iterate_phdr(cand_cb, &ctx);
	if (ctx.failed)
		sc_warn("out of memory listing objects; some not profiled");
	uint32_t first_new = n_objs, pins = 0;
	uintptr_t self = sc_self_base();
	for (uint32_t i = 0; i < ctx.n && n_objs < SC_MAX_OBJECTS; i++) {
		/* at start-up every object is loaded and relocated, and
		 * some (the program, the vDSO) have no name to pin by;
		 * attached to a running process, only those two are */
		bool must_pin = sc_active || (sc_attached && !ctx.c[i].anon);
		if (must_pin && !(ctx.c[i].pin = pin(&ctx.c[i])))
			continue;
		pins += ctx.c[i].pin != NULL;
		add_object(&ctx.c[i], self);
	}
	if (patch && first_new < n_objs) {
		sc_objects_patch(first_new);
		sc_functions_patch(first_new);  /* attached: fnsites.c */
	}
	for (uint32_t i = 0; i < ctx.n; i++)
		if (ctx.c[i].pin)
			dlclose(ctx.c[i].pin);
	if (pins)
		sc_objects_prune();
	sc_mem_free(ctx.c);
	sc_mem_trim();
	sc_meta_batch(false);
	sc_unlock();
}
