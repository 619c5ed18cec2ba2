/*
 * pause.c - counting turned off and on again by the GOT slots.
 *
 * While a process is paused every GOT slot the runtime hooked holds its
 * call's own destination, as the loader would have left it: a call jumps
 * straight on, neither counted nor timed, and the counted path gains
 * nothing (no check, no lock, no system call). Resuming points the slots
 * back at the runtime. Used by `scaler ctl pause|resume`, `record
 * --paused` and the control signal (control.c); the same two calls undo
 * and redo the patching for anything else that must leave a process
 * running unhooked.
 *
 * A hooked slot holds its import's stub until the import's first call,
 * then its entry's code (shadow.c); paused, it holds sc_pause_target: the
 * runtime's wrapper of a wrapped API (dlopen, pthread_create, fork...: they
 * keep the runtime's view of the process right), else the API itself (a
 * function --functions patched: its replay copy, as the entry would
 * reach). Every write is one 8-byte compare and swap from what the runtime
 * wrote there (patch.c): a slot the program wrote itself stays as it is.
 * Slots of unloaded objects are skipped. While paused, patch.c writes new
 * objects' slots (dlopen) with their destinations too, and an import's
 * bind leaves its slot alone.
 *
 * Calls that no slot leads to are paused where they arrive: a pointer
 * dlsym handed out leads to an import's stub, whose code
 * (sc_pending_common, intercept.S) reads sc_paused and jumps straight on;
 * a function --functions patched (or a Python extension's) is entered
 * by its own code, which reads data that functions.c rewrites
 * (sc_functions_pause) so that every call goes to the replay copy.
 *
 * Not paused (doc/ctl.md): a call through a slot's value the program
 * copied before the pause, which holds an entry's code.
 */
#include "patch.h"

/* read by intercept.S (sc_pending_common) and C without a lock; written
 * with both locks held */
SC_HIDDEN bool sc_paused;

#define IDX_MASK ((1u << HK_IDX_BITS) - 1)

void *sc_pause_target(uint32_t n)
{
	return sc_functions_target(sc_hook_target(n));
}

/*
 * Rewrites every hooked slot, object by object in the order imports were
 * hooked (a scan hooks one object's slots together, by address): runs of
 * one caller are written together. No qsort: this may run in a signal
 * handler (control.c), and glibc's qsort may call malloc.
 */
static void rewrite(bool pause)
{
	uint32_t n = sc_hook_count();
	struct sc_patch *pt = sc_mem_grow(NULL, 2 * (size_t)n * sizeof(*pt) + 1);
	if (!pt) {
		sc_warn("cannot %s counting: out of memory", pause ? "pause" : "resume");
		return;
	}
	size_t k = 0;
	uint32_t run_of = UINT32_MAX;
	for (uint32_t i = 0; i <= n; i++) {
		const struct sc_hook *h = i < n ? &sc_hook_table[i] : NULL;
		if (k && (!h || h->caller != run_of)) {
			sc_patch_apply(sc_object_get(run_of), pt, k);
			k = 0;
		}
		if (!h || !h->slot_off)
			continue;               /* a dlsym pointer: no slot */
		struct sc_object *o = sc_object_get(h->caller);
		if (!o || o->gone || o->id != h->caller)
			continue;
		run_of = h->caller;
		uintptr_t slot = o->base + h->slot_off;
		uint32_t b = __atomic_load_n(&h->bound, __ATOMIC_ACQUIRE) & IDX_MASK;
		void *stub = sc_hook_code(i), *dest = sc_pause_target(i);
		void *code = b ? sc_entry_code(b - 1) : stub;
		if (pause) {
			/* a bound import's slot may still wait for its entry
			 * (patch.c): it then holds the stub */
			pt[k++] = (struct sc_patch){slot, dest, NULL, code};
			if (b)
				pt[k++] = (struct sc_patch){slot, dest, NULL, stub};
		} else {
			pt[k++] = (struct sc_patch){slot, code, NULL, dest};
		}
	}
	sc_mem_free(pt);
}

void sc_unpatch_all(void)
{
	if (sc_paused)
		return;
	__atomic_store_n(&sc_paused, true, __ATOMIC_SEQ_CST);
	rewrite(true);
	sc_functions_pause(true);
}

void sc_repatch_all(void)
{
	if (!sc_paused)
		return;
	sc_functions_pause(false);
	__atomic_store_n(&sc_paused, false, __ATOMIC_SEQ_CST);
	rewrite(false);
}
