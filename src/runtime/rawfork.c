/*
 * rawfork.c - a child made without the fork handlers: a raw fork system
 * call (syscall(SYS_fork), clone without CLONE_VM, as Chromium's sandbox
 * makes its zygote's children), where at_fork_child (init.c) never ran.
 * Such a child starts with its parent's thread state: its perf rings are
 * not mapped in it (perf mappings are not copied), its counters are the
 * parent's thread file (MAP_SHARED), its metadata stream the parent's.
 *
 * It is told by one word in a page marked MADV_WIPEONFORK (mem.c's
 * sc_mem_wipe_page says what else the page holds):
 * set in every process with a state of its own, zero in any child the
 * kernel copied memory for (fork, raw or not), shared with a vfork child
 * (which runs in its parent's memory and must stay the parent's). A fork
 * through libc sets it again in the fork handler; a raw fork child's
 * first timed return (trampoline.S reads the word), the first thing it
 * would write into its parent's state (sc_rawfork_adopt says which) or
 * its end (sc_record_end) finds it zero and makes the child's state then,
 * as the handler would have. Until then its calls were counted in its
 * parent's records; from then on it is a process of the profile like any
 * fork child (doc/record.md). Where the kernel has no MADV_WIPEONFORK (before
 * 4.14) the word is never wiped and nothing here happens.
 */
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"

/* read by trampoline.S: nonzero, until the runtime starts and in every
 * process whose state is its own */
static uint64_t unmarked = 1;
SC_HIDDEN uint64_t *sc_fork_mark = &unmarked;
static bool wiped;              /* the mark's page is wiped in fork children */

/* The mark's page: the scratch region's first (mem.c, marked already),
 * or, without it, a mapping of its own. */
void sc_rawfork_init(void)
{
	uint64_t *p = sc_mem_wipe_page();
	if (!p) {
		p = mmap(NULL, SC_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
		if (madvise(p, SC_PAGE, MADV_WIPEONFORK) != 0) {
			munmap(p, SC_PAGE);
			return;
		}
	}
	*p = 1;
	wiped = true;
	__atomic_store_n(&sc_fork_mark, p, __ATOMIC_RELEASE);
}

/* Whether this process's state is its own: false in a raw fork's child
 * not yet adopted, which shares its parent's mapped files (meta.c must
 * not store where its parent stores). */
bool sc_rawfork_own(void)
{
	return wiped ? __atomic_load_n(sc_fork_mark, __ATOMIC_RELAXED) != 0
		     : (uint32_t)getpid() == sc_meta_pid();
}

/* In a fork child: true once, when its state is still the parent's (the
 * caller makes it now); where marks are not wiped, always. One exchange,
 * not a load and a store: the child's wiped page is then made once, by
 * the write, instead of mapped by the read and copied by the write (two
 * page faults, ~2 us each, in every fork child). */
bool sc_rawfork_claim(void)
{
	if (!wiped)
		return true;
	return __atomic_exchange_n(sc_fork_mark, 1, __ATOMIC_RELAXED) == 0;
}

/*
 * Makes a raw fork child's state, if it is still its parent's: from
 * trampoline.S, at a timed return that found the mark zero; and before
 * the child writes anything its parent's state would take (an import's
 * first call, sc_slow; a metadata record, sc_meta_add; a uid change,
 * uids.c; the wrappers that take the runtime's locks, wrap.c), so that
 * none of it lands in the parent's metadata file; and sc_record_end, in
 * a process not the image's. Never while this thread holds one of the
 * runtime's locks: the code it interrupted (a signal handler's timed
 * return) or its caller is inside what the setup replaces (the meta
 * file, the locks themselves); a later call adopts. False only then: in
 * a raw fork child whose state is still its parent's. Cheap once
 * adopted: two loads.
 */
bool sc_rawfork_adopt(void)
{
	if (!wiped || *sc_fork_mark)
		return true;
	if (sc_lock_held() || sc_leaf_held())
		return false;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (sc_rawfork_claim())
		sc_fork_child_setup();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return true;
}
