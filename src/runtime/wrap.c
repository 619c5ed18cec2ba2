/*
 * wrap.c - wrappers the shadow table puts in front of a few APIs whose
 * effects the runtime must follow. Their entries are never timed, so each
 * wrapper runs with the program's own return address and can tell who
 * called (__builtin_return_address(0) is in the calling object).
 *
 *   dlclose         forget objects that were unloaded.
 *   dlopen/dlmopen  hook the objects it brought in. glibc resolves a bare
 *                   name against the *caller's* RUNPATH/RPATH and $ORIGIN;
 *                   since the real call now comes from this library, we
 *                   apply the caller's search path ourselves first.
 *   dlsym/dlvsym    hand out a shadow entry instead of a function pointer,
 *                   attributed to the calling object. RTLD_NEXT means "after
 *                   the caller", so it is resolved here object by object.
 *   pthread_create  note the start routine, so a thread can be attributed
 *                   to the component it runs.
 *   pthread_cancel  hook libgcc_s first, so cancellation unwinds correctly.
 *   __libc_start_main  notes main's return value (the exit status).
 *   exit/_exit      keep the exit status for the end record; _exit skips
 *                   destructors, so it writes the record itself.
 * Signal, exec, set*uid and seccomp wrappers live in signals.c, exec.c,
 * uids.c and seccomp.c.
 */
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names.h"
#include "runtime.h"

/* ---- search path of the calling object ------------------------------ */

static const char *dyn_str(const struct sc_object *o, ElfW(Sxword) tag)
{
	const char *strtab = NULL;
	ElfW(Addr) off = 0;
	bool have = false;
	if (!o || !o->dyn)
		return NULL;
	for (const ElfW(Dyn) *d = o->dyn; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			strtab = (const char *)(d->d_un.d_ptr < o->base ? o->base + d->d_un.d_ptr
								      : d->d_un.d_ptr);
		else if (d->d_tag == tag) {
			off = d->d_un.d_val;
			have = true;
		}
	}
	return have && strtab ? strtab + off : NULL;
}

/* dst = src with $ORIGIN / ${ORIGIN} replaced by the caller's directory */
static void expand_origin(const struct sc_object *o, const char *src, char *dst, size_t n)
{
	char origin[PATH_MAX];
	snprintf(origin, sizeof(origin), "%s", o ? o->path : ".");
	char *slash = strrchr(origin, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(origin, sizeof(origin), ".");
	size_t k = 0;
	for (const char *s = src; *s && k + 1 < n;) {
		if (strncmp(s, "$ORIGIN", 7) == 0 || strncmp(s, "${ORIGIN}", 9) == 0) {
			k += (size_t)snprintf(dst + k, n - k, "%s", origin);
			s += (s[1] == '{') ? 9 : 7;
		} else {
			dst[k++] = *s++;
		}
	}
	dst[k < n ? k : n - 1] = 0;
}

static bool try_dirs(const struct sc_object *o, const char *list, const char *file,
		     char *out, size_t n)
{
	char dirs[PATH_MAX * 2];
	if (!list)
		return false;
	expand_origin(o, list, dirs, sizeof(dirs));
	for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, n, "%s/%s", d, file);
		if (access(out, F_OK) == 0)
			return true;
	}
	return false;
}

/* What glibc would open for `file` if `o` called dlopen itself. */
static const char *caller_path(const struct sc_object *o, const char *file, char *buf, size_t n)
{
	if (!file || !o)
		return file;
	if (strchr(file, '$')) {
		expand_origin(o, file, buf, n);
		return buf;
	}
	if (strchr(file, '/'))
		return file;
	void *h = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
	if (h) {                                /* already loaded: same object */
		dlclose(h);
		return file;
	}
	const char *runpath = dyn_str(o, DT_RUNPATH);
	const char *rpath = runpath ? NULL : dyn_str(o, DT_RPATH);
	if (rpath && try_dirs(o, rpath, file, buf, n))
		return buf;
	if (runpath) {
		if (try_dirs(NULL, sc_getenv("LD_LIBRARY_PATH"), file, buf, n))
			return buf;
		if (try_dirs(o, runpath, file, buf, n))
			return buf;
	}
	return file;
}

static struct sc_object *caller_object(void *ret)
{
	return sc_object_of((uintptr_t)ret);
}

/*
 * How deep this thread is in a real dlopen or dlclose called by the
 * wrappers below. Inside one, the loader's lock is held and constructors
 * or destructors run: a dlopen or dlclose they make must not take the
 * runtime lock (lock.c), and need not, as the outer call scans or
 * prunes when the loader is done.
 */
static __thread int in_loader __attribute__((tls_model("initial-exec")));

/* the scan after a dlopen, unless nested in one (see in_loader) */
static void scan_after_open(void)
{
	if (!sc_active || in_loader)
		return;
	sc_rawfork_adopt();     /* its records are a raw fork child's own */
	struct sc_thread *t = sc_tls_thread;
	sc_thread_busy(t);
	sc_objects_scan(true);
	sc_thread_idle(t);
}

static void *w_dlopen(const char *file, int flags)
{
	void *ret = __builtin_return_address(0);
	struct sc_thread *t = sc_tls_thread;
	char buf[PATH_MAX];
	sc_thread_busy(t);
	const char *f = caller_path(caller_object(ret), file, buf, sizeof(buf));
	sc_thread_idle(t);
	in_loader++;
	void *h = dlopen(f, flags);
	in_loader--;
	if (h)
		scan_after_open();
	return h;
}

static void *w_dlmopen(Lmid_t lm, const char *file, int flags)
{
	in_loader++;
	void *h = dlmopen(lm, file, flags);
	in_loader--;
	if (h)
		scan_after_open();
	return h;
}

/*
 * A library may really go away here: forget it, so that if it comes back
 * (maybe at the same address) it is a new object and hooked again. The
 * runtime lock is held across the real dlclose: a scan in another thread
 * reads the headers of every object it registered (rss.c) and patches
 * new ones, and must not see one unmapped under it (e2e dlrace). Its
 * destructors may call anything but the runtime lock, as any code run
 * under the loader's lock (lock.c). Nested in a dlopen
 * or dlclose of this thread the lock is not taken and the outer call
 * prunes (in_loader).
 */
static int w_dlclose(void *h)
{
	bool outer = sc_active && !in_loader;
	if (outer)
		sc_rawfork_adopt();     /* before it takes the runtime lock */
	struct sc_thread *t = sc_tls_thread;
	if (outer) {
		sc_thread_busy(t);
		sc_lock();
	}
	in_loader++;
	int r = dlclose(h);
	in_loader--;
	if (outer) {
		sc_objects_prune();
		sc_unlock();
		sc_thread_idle(t);
	}
	return r;
}

/* ---- dlsym ------------------------------------------------------------ */

/* The objects after the caller in load order, collected first and probed
 * after dl_iterate_phdr returns (dlopen must not run under its lock). No
 * runtime lock: a constructor may be the caller (lock.c), so the list
 * is mapped for the call (16 KB, too much for some threads' stacks). */
#define NEXT_MAX 1024
struct next_list {
	uintptr_t caller_base;
	bool after;
	size_t n;
	uintptr_t base[NEXT_MAX];
	const char *path[NEXT_MAX];
};

static int next_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	(void)size;
	struct next_list *l = p;
	if (!l->after) {
		l->after = info->dlpi_addr == l->caller_base;
		return 0;
	}
	if (info->dlpi_name && info->dlpi_name[0] && l->n < NEXT_MAX) {
		l->base[l->n] = info->dlpi_addr;
		l->path[l->n++] = info->dlpi_name;
	}
	return 0;
}

/* RTLD_NEXT as glibc means it for the caller: the first object after it
 * in load order that itself defines the symbol. */
static void *next_after(const struct sc_object *co, const char *name, const char *ver)
{
	struct next_list *l = sc_mem_grow(NULL, sizeof(*l));
	void *found = NULL;
	if (!l)
		return NULL;
	l->caller_base = co->base;
	dl_iterate_phdr(next_cb, l);
	for (size_t i = 0; i < l->n && !found; i++) {
		void *h = dlopen(l->path[i], RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		void *r = ver ? dlvsym(h, name, ver) : dlsym(h, name);
		dlclose(h);
		struct sc_object *o = r ? sc_object_of((uintptr_t)r) : NULL;
		if (o && o->base == l->base[i])
			found = r;
	}
	sc_mem_free(l);
	sc_mem_trim();
	return found;
}

static void *lookup(void *h, const char *name, const char *ver, void *ret)
{
	struct sc_object *co = caller_object(ret);
	if (h == RTLD_NEXT) {
		void *r = co ? next_after(co, name, ver) : NULL;
		if (r)
			return r;
		return ver ? dlvsym(RTLD_NEXT, name, ver) : dlsym(RTLD_NEXT, name);
	}
	void *r = ver ? dlvsym(h, name, ver) : dlsym(h, name);
	if (!r && h == RTLD_DEFAULT && co && co->id != 0) {
		void *ch = dlopen(co->path, RTLD_LAZY | RTLD_NOLOAD);
		if (ch) {
			r = ver ? dlvsym(ch, name, ver) : dlsym(ch, name);
			dlclose(ch);
		}
	}
	return r;
}

static bool executable(const struct sc_object *o, uintptr_t a)
{
	for (int p = 0; p < o->phnum; p++) {
		const ElfW(Phdr) *ph = &o->phdr[p];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && a >= o->base + ph->p_vaddr &&
		    a < o->base + ph->p_vaddr + ph->p_memsz)
			return true;
	}
	return false;
}

/* (caller object, function) -> import, so a pointer asked for twice is the
 * same pointer both times (the program may compare them): the import's
 * code, also once it is bound (its calls then take one load more). */
struct dl_map {
	uint32_t caller;
	uint32_t idx;
	uintptr_t target;
	uint32_t callee;        /* a reloaded library is a new object */
};
static struct dl_map *dlmap;
static size_t dlmap_n, dlmap_cap;

static void *shadow_for(void *r, const char *name, void *ret)
{
	struct sc_object *co = caller_object(ret);
	struct sc_object *to = r ? sc_object_of((uintptr_t)r) : NULL;
	if (!r || !co || !to || to == co || !sc_active || !executable(to, (uintptr_t)r))
		return r;
	if (to->skip && !strstr(to->path, "ld-linux"))
		return r;
	void *res = r;
	sc_leaf_lock();                 /* not the runtime lock: lock.c */
	for (size_t i = 0; i < dlmap_n; i++)
		if (dlmap[i].caller == co->id && dlmap[i].target == (uintptr_t)r &&
		    dlmap[i].callee == to->id) {
			res = sc_hook_code(dlmap[i].idx);
			goto out;
		}
	char api[256];
	sc_api_name(name, api, sizeof(api));
	void *wrapper;
	uint32_t flags = SC_ENT_DLSYM | sc_entry_flags_for(api, &wrapper);
	long idx = sc_hook_new(wrapper ? wrapper : r, wrapper ? NULL : to, flags, co->id,
			       to->id, api, 0);
	if (idx < 0)
		goto out;
	if (dlmap_n == dlmap_cap) {
		size_t cap = dlmap_cap ? dlmap_cap * 2 : 64;
		struct dl_map *m = sc_mem_grow(dlmap, cap * sizeof(*m));
		if (!m)
			goto out;
		dlmap = m;
		dlmap_cap = cap;
	}
	dlmap[dlmap_n++] = (struct dl_map){co->id, (uint32_t)idx, (uintptr_t)r, to->id};
	res = sc_hook_code((uint32_t)idx);
out:
	sc_leaf_unlock();
	return res;
}

/* Both run with the program's return address: that is the caller. */
static void *dlsym_for(void *h, const char *name, const char *ver, void *ret)
{
	sc_rawfork_adopt();     /* its imports are a raw fork child's own */
	struct sc_thread *t = sc_tls_thread;
	sc_thread_busy(t);
	void *r = shadow_for(lookup(h, name, ver, ret), name, ret);
	sc_thread_idle(t);
	return r;
}

static void *w_dlsym(void *h, const char *name)
{
	return dlsym_for(h, name, NULL, __builtin_return_address(0));
}

static void *w_dlvsym(void *h, const char *name, const char *ver)
{
	return dlsym_for(h, name, ver, __builtin_return_address(0));
}

/* ---- threads ---------------------------------------------------------- */

/*
 * What a new thread needs to start: handed over in a box from a pool
 * rather than the heap. A box malloc'd by the creator and freed by the new
 * thread would make glibc give every new thread a malloc arena (address
 * space and a page or two of RSS) in programs that never use glibc's
 * malloc. Boxes beyond the pool's come from malloc.
 */
struct start_box {
	void *(*fn)(void *);
	void *arg;
	struct start_box *next;         /* free list */
};
#define BOXES 128
static struct start_box boxes[BOXES] SC_LARGE_BSS;
static struct start_box *free_boxes;
static uint32_t boxes_used;             /* boxes ever taken from the pool */

static struct start_box *box_get(void)
{
	sc_leaf_lock();
	struct start_box *b = free_boxes;
	if (b)
		free_boxes = b->next;
	else if (boxes_used < BOXES)
		b = &boxes[boxes_used++];
	sc_leaf_unlock();
	return b ? b : malloc(sizeof(*b));
}

static void box_put(struct start_box *b)
{
	if (b < boxes || b >= boxes + BOXES) {
		free(b);
		return;
	}
	sc_leaf_lock();
	b->next = free_boxes;
	free_boxes = b;
	sc_leaf_unlock();
}

static void *thread_start(void *p)
{
	struct start_box b = *(struct start_box *)p;
	box_put(p);
	sc_tls_start_routine = (uintptr_t)b.fn;
	if (sc_active)
		sc_thread_get();
	return b.fn(b.arg);
}

static int w_pthread_create(pthread_t *th, const pthread_attr_t *attr,
			    void *(*fn)(void *), void *arg)
{
	sc_rawfork_adopt();     /* the new thread is a raw fork child's own */
	struct start_box *b = box_get();
	if (!b)
		return pthread_create(th, attr, fn, arg);
	b->fn = fn;
	b->arg = arg;
	int r = pthread_create(th, attr, thread_start, b);
	if (r)
		box_put(b);
	return r;
}

/*
 * A cancelled thread is unwound by libgcc's forced unwind, which glibc
 * loads on demand (dlopen of libgcc_s inside pthread_cancel) and calls
 * through pointers: no PLT call the runtime could see. The unwinder does
 * ask the loader for every frame's FDE through libgcc_s's GOT
 * (_dl_find_object, an SC_ENT_UNWIND entry), so load and hook libgcc_s
 * before the first cancellation; the target thread then gets its real
 * return addresses back before its stack is walked, and its cleanup
 * handlers run as they would without us.
 */
static int w_pthread_cancel(pthread_t th)
{
	static int hooked;
	if (!__atomic_load_n(&hooked, __ATOMIC_ACQUIRE) && sc_active) {
		sc_rawfork_adopt();     /* its scan's records are the child's own */
		struct sc_thread *t = sc_tls_thread;
		sc_thread_busy(t);
		if (dlopen("libgcc_s.so.1", RTLD_NOW))
			sc_objects_scan(true);
		sc_thread_idle(t);
		__atomic_store_n(&hooked, 1, __ATOMIC_RELEASE);
	}
	return pthread_cancel(th);
}

/* ---- process exit: keep the status (the parent may not be scaler) ---- */

static void w_exit(int status)
{
	sc_exit_status = status & 0xff;
	exit(status);
}

static void w__exit(int status)
{
	sc_record_end(status & 0xff, SC_END_EXIT);
	_exit(status);
}

/* main's return value is the exit status when main returns: remember it.
 * _start calls __libc_start_main through the executable's GOT, which is
 * hooked before _start runs, so the wrapper hands it this shim for main. */
typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

static int sc_main(int argc, char **argv, char **envp)
{
	int r = real_main(argc, argv, envp);
	sc_exit_status = r & 0xff;
	return r;
}

extern int __libc_start_main(main_fn, int, char **, void (*)(void), void (*)(void),
			     void (*)(void), void *);

static int w___libc_start_main(main_fn m, int argc, char **argv, void (*init)(void),
			       void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	real_main = m;
	return __libc_start_main(m ? sc_main : m, argc, argv, init, fini, rtld_fini, stack_end);
}

/* Which APIs get which wrapper: the one table of them. */
static const struct sc_wrapper wrappers[] = {
	{"__libc_start_main", (void *)w___libc_start_main},
	{"exit", (void *)w_exit},
	{"_exit", (void *)w__exit},
	{"_Exit", (void *)w__exit},
	{"dlopen", (void *)w_dlopen},
	{"dlmopen", (void *)w_dlmopen},
	{"dlclose", (void *)w_dlclose},
	{"dlsym", (void *)w_dlsym},
	{"dlvsym", (void *)w_dlvsym},
	{"pthread_create", (void *)w_pthread_create},
	{"pthread_cancel", (void *)w_pthread_cancel},
};

void *sc_wrapper_for(const char *name, bool *timed)
{
	void *s = sc_signal_wrapper(name);
	if (s)
		return s;
	/* exec.c's wrappers never need to see their caller: posix_spawn
	 * stays timed (the exec family is never timed: no return) */
	s = sc_exec_wrapper(name);
	if (s) {
		*timed = true;
		return s;
	}
	s = sc_uid_wrapper(name);
	if (!s)
		s = sc_seccomp_wrapper(name);
	if (s) {
		*timed = true;
		return s;
	}
	return SC_WRAPPER_FIND(wrappers, name);
}

/* Every name sc_wrapper_for answers, to add(name). */
void sc_wrapper_names(void (*add)(const char *name))
{
	sc_signal_wrapper_names(add);
	sc_exec_wrapper_names(add);
	sc_uid_wrapper_names(add);
	sc_seccomp_wrapper_names(add);
	SC_WRAPPER_NAMES(wrappers, add);
}
