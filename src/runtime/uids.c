/*
 * uids.c - wrappers in front of the set*uid family. Before a process
 * changes the user it runs as, its metadata file (still writable: the
 * runtime opened it as the old user) declares the new uid in an SC_M_UID
 * record. A root run's profile directory is open to all while the
 * command runs; a file there owned by a uid that root's own metadata
 * declared was made by the run, any other user's was planted
 * (doc/security.md). A program that changes its uid without these
 * functions (a raw system call) declares nothing: its files after the
 * change are then not trusted, which loses them but admits nothing.
 * With --kernel, the per-CPU rings, which show every task's kernel
 * stacks, are withdrawn before the change (perf.c); a raw system call
 * keeps them (doc/security.md).
 */
#include <sys/fsuid.h>
#include <unistd.h>

#include "runtime.h"

/* The uids this image declared, so that a program toggling its effective
 * uid (seteuid back and forth) writes each one once. A race between two
 * threads only writes a uid twice, which the reader takes as once. */
#define KNOWN_MAX 16
static uid_t known[KNOWN_MAX];
static unsigned nknown;

static void declare(uid_t u)
{
	if (u == (uid_t)-1 || u == 0)
		return;
	/* a raw fork's child not yet adopted makes its own state now, while
	 * it may (rawfork.c): the rings, its own sampler, its files */
	sc_rawfork_adopt();
	/* a vfork child runs in its parent's memory and thread state until
	 * it execs: the rings, the thread's event are the parent's, which
	 * goes on with them (its image is the one they belong to) */
	if ((uint32_t)getpid() == sc_meta_pid())
		sc_perf_uid_change();   /* --kernel's per-CPU rings: not the new user's */
	unsigned n = __atomic_load_n(&nknown, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n && i < KNOWN_MAX; i++)
		if (known[i] == u)
			return;
	struct sc_m_uid r = {.uid = (uint32_t)u};
	sc_meta_add(SC_M_UID, &r, sizeof(r), NULL);
	if (n < KNOWN_MAX) {
		known[n] = u;
		__atomic_store_n(&nknown, n + 1, __ATOMIC_RELEASE);
	}
}

static int w_setuid(uid_t u)
{
	declare(u);
	return setuid(u);
}

static int w_seteuid(uid_t u)
{
	declare(u);
	return seteuid(u);
}

static int w_setreuid(uid_t r, uid_t e)
{
	declare(r);
	declare(e);
	return setreuid(r, e);
}

static int w_setresuid(uid_t r, uid_t e, uid_t s)
{
	declare(r);
	declare(e);
	declare(s);
	return setresuid(r, e, s);
}

static int w_setfsuid(uid_t u)
{
	declare(u);
	return setfsuid(u);
}

static const struct sc_wrapper uid_wrappers[] = {
	{"setuid", (void *)w_setuid},       {"seteuid", (void *)w_seteuid},
	{"setreuid", (void *)w_setreuid},   {"setresuid", (void *)w_setresuid},
	{"setfsuid", (void *)w_setfsuid},
};

void *sc_uid_wrapper(const char *name)
{
	return SC_WRAPPER_FIND(uid_wrappers, name);
}

void sc_uid_wrapper_names(void (*add)(const char *name))
{
	SC_WRAPPER_NAMES(uid_wrappers, add);
}
