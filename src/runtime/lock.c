/*
 * lock.c - the runtime's two locks: the runtime lock, held across calls
 * into the dynamic loader, and the leaf lock, for everything else shared.
 * Two, because of the dynamic loader's own lock.
 *
 * The runtime lock is held across calls into the loader: dl_iterate_phdr,
 * dlsym and dlopen(RTLD_NOLOAD) while a scan pins objects and resolves
 * imports, and the real dlclose in its wrapper, so that no object is
 * unmapped while a scan reads it. So it must never be wanted by code that
 * may run with the loader's lock held: constructors and destructors run
 * by dlopen and dlclose, dl_iterate_phdr callbacks, libc's dladdr calling
 * into ld.so. That is any intercepted call and any wrapper. Only the scan
 * (dlopen wrappers, start-up), the dlclose wrapper and fork take it, and
 * the wrappers skip it when they run nested inside a dlopen or dlclose of
 * their own thread (in_loader, wrap.c: the outer call scans or prunes).
 * What is left: a constructor run by a dlopen the runtime does not wrap
 * (libc's own, for NSS or iconv modules) that calls dlopen or dlclose
 * while another thread scans.
 *
 * The leaf lock covers everything else that is shared: shadow entries and
 * imports, the meta file, writes to GOT slots, thread files and the
 * thread list, dlsym's map, start boxes. An import's first call takes it
 * (sc_hook_bind), from wherever it happens, constructors included, so it
 * cannot be the runtime lock. Its holders never call the loader
 * nor take the runtime lock; the order is always runtime lock, then leaf
 * lock.
 */
#include <pthread.h>

#include "runtime.h"

/*
 * A control request (control.c) that found a lock held waits for its
 * release: every unlock looks at sc_control_due.
 */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
/* how deep this thread is in the lock (sc_lock_held) */
static __thread int lock_depth __attribute__((tls_model("initial-exec")));
void sc_lock(void) { pthread_mutex_lock(&lock); lock_depth++; }
bool sc_lock_held(void) { return lock_depth > 0; }
void sc_unlock(void)
{
	lock_depth--;
	pthread_mutex_unlock(&lock);
	if (__atomic_load_n(&sc_control_due, __ATOMIC_SEQ_CST))
		sc_control_run();
}

static pthread_mutex_t leaf = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static __thread int leaf_depth __attribute__((tls_model("initial-exec")));
void sc_leaf_lock(void) { pthread_mutex_lock(&leaf); leaf_depth++; }
bool sc_leaf_held(void) { return leaf_depth > 0; }
void sc_leaf_unlock(void)
{
	leaf_depth--;
	pthread_mutex_unlock(&leaf);
	if (__atomic_load_n(&sc_control_due, __ATOMIC_SEQ_CST))
		sc_control_run();
}

/* Both locks, without waiting, for a signal handler (control.c): true if
 * taken; false, holding neither, if another thread holds one. Only for a
 * thread that holds neither. */
bool sc_locks_try(void)
{
	if (pthread_mutex_trylock(&lock) != 0)
		return false;
	if (pthread_mutex_trylock(&leaf) != 0) {
		pthread_mutex_unlock(&lock);
		return false;
	}
	lock_depth++;
	leaf_depth++;
	return true;
}

/* Gives both back without looking at sc_control_due. */
void sc_locks_give(void)
{
	leaf_depth--;
	pthread_mutex_unlock(&leaf);
	lock_depth--;
	pthread_mutex_unlock(&lock);
}

void sc_lock_reset_child(void)
{
	lock = (pthread_mutex_t)PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	lock_depth = 0;
	leaf = (pthread_mutex_t)PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	leaf_depth = 0;
}
