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
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rawsys.h"
#include "runtime.h"

/*
 * Each lock is a word (0 free, 1 held, 2 held with a thread waiting in
 * futex(2)), not libc's recursive mutex: pthread_mutex_lock's code is a
 * page of libc every fork child faulted in at its first lock, and its
 * three symbols were lookups in every process's start. A thread's depth
 * in a lock (thread-local) makes it recursive: the word is taken when the
 * depth leaves 0 and given back when it returns to 0, so the depth is
 * also the answer to whether this thread holds the lock. A signal handler
 * that runs between the word's change and the depth's (a lock's taking
 * or its release) and takes the lock waits for itself, as it would on
 * the window between a mutex's word and owner.
 */
/* futex(2) straight to the kernel (rawsys.h): its EAGAIN or EINTR must
 * not reach the program's errno, which a lock taken in its calls keeps */
static void take(int *w)
{
	int c = 0;
	if (__atomic_compare_exchange_n(w, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		sc_arch_syscall(SYS_futex, (long)w, FUTEX_WAIT_PRIVATE, 2, 0, 0, 0);
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	}
}

static bool try_take(int *w)
{
	int c = 0;
	return __atomic_compare_exchange_n(w, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static void give(int *w)
{
	if (__atomic_exchange_n(w, 0, __ATOMIC_RELEASE) == 2)
		sc_arch_syscall(SYS_futex, (long)w, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

/*
 * A control request (control.c) that found a lock held waits for its
 * release: every unlock looks at sc_control_due.
 */
static int lock;
/* how deep this thread is in the lock (sc_lock_held) */
static __thread int lock_depth __attribute__((tls_model("initial-exec")));
void sc_lock(void)
{
	if (lock_depth == 0)
		take(&lock);
	lock_depth++;
}
bool sc_lock_held(void) { return lock_depth > 0; }
void sc_unlock(void)
{
	if (--lock_depth == 0)
		give(&lock);
	if (__atomic_load_n(&sc_control_due, __ATOMIC_SEQ_CST))
		sc_control_run();
}

static int leaf;
static __thread int leaf_depth __attribute__((tls_model("initial-exec")));
void sc_leaf_lock(void)
{
	if (leaf_depth == 0)
		take(&leaf);
	leaf_depth++;
}
bool sc_leaf_held(void) { return leaf_depth > 0; }
void sc_leaf_unlock(void)
{
	if (--leaf_depth == 0)
		give(&leaf);
	if (__atomic_load_n(&sc_control_due, __ATOMIC_SEQ_CST))
		sc_control_run();
}

/* Both locks, without waiting, for a signal handler (control.c): true if
 * taken; false, holding neither, if another thread holds one. Only for a
 * thread that holds neither. */
bool sc_locks_try(void)
{
	if (!try_take(&lock))
		return false;
	if (!try_take(&leaf)) {
		give(&lock);
		return false;
	}
	lock_depth++;
	leaf_depth++;
	return true;
}

/* Gives both back without looking at sc_control_due. */
void sc_locks_give(void)
{
	if (--leaf_depth == 0)
		give(&leaf);
	if (--lock_depth == 0)
		give(&lock);
}

/* In a fork child: its only thread holds neither lock (the parent's
 * thread that forked held both, in the prepare handler) */
void sc_lock_reset_child(void)
{
	lock = 0;
	lock_depth = 0;
	leaf = 0;
	leaf_depth = 0;
}
