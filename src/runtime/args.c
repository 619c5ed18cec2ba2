/*
 * args.c - setup of argument and return value capture (args.h): the spec
 * from SCALER_ARGS, which imports match it, a slot for each (caller, API)
 * entry that does, and each thread's .args file (format.h). The capture
 * itself is args_hot.c. Nothing here runs on a call's path: hooking and
 * binding an import, and creating a thread, are all slow paths already.
 *
 * Memory: the slots are at most SC_ARGS_SLOTS per image, so a thread's
 * file has a fixed size reserved on disk when it is created (no page of
 * it can fault later on a full disk) and grows with nothing: values are
 * kept as histograms, per (caller, API) pair, never per call. Entries
 * bound after the slots ran out are counted and timed as usual, their
 * values not kept (said once).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "args.h"

SC_HIDDEN struct sc_argspec sc_args_spec SC_LARGE_BSS;
SC_HIDDEN uint16_t *sc_args_slot_of;
SC_HIDDEN uint16_t sc_args_proto_of[SC_ARGS_SLOTS];
SC_HIDDEN __thread struct sc_args_rec *sc_tls_args __attribute__((tls_model("initial-exec")));
SC_HIDDEN __thread int *sc_tls_errno __attribute__((tls_model("initial-exec")));
SC_HIDDEN size_t (*sc_args_usable)(void *);

static bool on;
static uint8_t *proto_of_import;        /* by import number: prototype + 1 */
static uint32_t nslots;

static void *reserve(size_t bytes)
{
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

void sc_args_init(void)
{
	const char *s = sc_getenv("SCALER_ARGS");
	char err[200];
	if (!s)
		return;
	if (sc_argspec_parse(s, &sc_args_spec, err, sizeof(err)) != 0) {
		sc_warn("SCALER_ARGS: %s; no values captured", err);
		return;
	}
	sc_args_slot_of = reserve((size_t)SC_MAX_ENTRIES * sizeof(*sc_args_slot_of));
	proto_of_import = reserve(SC_MAX_ENTRIES);
	if (!sc_args_slot_of || !proto_of_import) {
		sc_warn("cannot reserve the --args tables: %s; no values captured", strerror(errno));
		return;
	}
	/* free's size: malloc_usable_size as the program would find it (an
	 * allocator preloaded, jemalloc or tcmalloc, has its own), kept for
	 * the free of the object that defines it (sc_args_hook) */
	sc_args_usable = (size_t (*)(void *))dlsym(RTLD_DEFAULT, "malloc_usable_size");
	on = true;
}

/* Whether p's values can be taken from calls of an API defined in object
 * callee: free's size only where the allocator that answers
 * malloc_usable_size is that object (a pointer another allocator owns
 * is nothing glibc's can measure, and may crash it). */
static bool usable_here(const struct sc_argproto *p, uint32_t callee)
{
	for (uint32_t i = 0; i < p->nval; i++)
		if (p->v[i].kind == SC_ARGK_USABLE) {
			struct sc_object *o = sc_args_usable
				? sc_object_of((uintptr_t)sc_args_usable) : NULL;
			return o && o->id == callee;
		}
	return true;
}

bool sc_args_wants(const char *name)
{
	if (!on)
		return false;
	for (uint32_t i = 0; i < sc_args_spec.n; i++)
		if (sc_name_eq(sc_args_spec.p[i].api, name))
			return true;
	return false;
}

bool sc_args_hook(uint32_t n, const char *name, uint32_t callee)
{
	struct sc_object *o = sc_object_get(callee);
	const struct sc_argproto *p = sc_argspec_find(&sc_args_spec, name, o ? o->path : NULL);
	if (!on || !p || !usable_here(p, callee))
		return false;
	proto_of_import[n] = (uint8_t)(p - sc_args_spec.p + 1);
	return true;
}

void sc_args_bind(uint32_t n, uint32_t idx)
{
	struct sc_entry *e = &sc_entry_table[idx];
	/* entries never timed, or timed through a wrapper, have no timed
	 * call to capture from (and the interceptor must not see both) */
	if (!on || !proto_of_import[n] ||
	    (e->flags & (SC_ENT_NOTIME | SC_ENT_UNWIND | SC_ENT_WRAP)) || nslots >= SC_ARGS_SLOTS) {
		static bool said;
		if (on && proto_of_import[n] && nslots >= SC_ARGS_SLOTS && !said) {
			sc_warn("--args: more than %u (caller, API) pairs; values of the next "
				"ones not kept (said once)", SC_ARGS_SLOTS);
			said = true;
		}
		e->flags &= ~SC_ENT_ARGS;
		return;
	}
	sc_args_proto_of[nslots] = (uint16_t)(proto_of_import[n] - 1);
	sc_args_slot_of[idx] = (uint16_t)(nslots + 1);
	nslots++;
}

void sc_args_thread_open(uint32_t pid, uint32_t gen, uint32_t seq)
{
	sc_tls_args = NULL;
	/* a fork child's thread has its parent's, at the same place: &errno
	 * calls into libc, a page fault there for nothing */
	if (!sc_tls_errno)
		sc_tls_errno = &errno;
	if (!on)
		return;
	char name[SC_NAME_MAX];
	bool created;
	size_t len = SC_ARGS_HEADER_SIZE + (size_t)SC_ARGS_SLOTS * sizeof(struct sc_args_rec);
	sc_file_name(name, pid, gen, "-t", seq, ".args");
	void *m = sc_file_map_new(name, len, &created);
	if (!m) {
		static bool said;
		if (!created && !said)
			sc_warn("cannot create %s/%s: %s; values of this thread not kept (said once)",
				sc_dir, name, strerror(errno));
		said |= !created;
		return;
	}
	struct sc_args_header *h = m;
	memcpy(h->magic, SC_ARGS_MAGIC, 8);
	h->version = SC_ARGS_VERSION;
	h->seq = seq;
	h->nslots = SC_ARGS_SLOTS;
	h->rec_size = sizeof(struct sc_args_rec);
	sc_tls_args = (struct sc_args_rec *)((char *)m + SC_ARGS_HEADER_SIZE);
}
