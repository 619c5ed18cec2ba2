/*
 * fnsites.c - the function entries patched in an attached process
 * (scaler record -p --functions; the layout: src/common/fnsite.h).
 *
 * A running process's threads may be anywhere, so the runtime does not
 * write the jumps of the entries it patches while scaler_attach runs: it
 * makes each function's code (functions.c) and notes the entry here,
 * PENDING, with its bytes and its jump. scaler then stops every thread,
 * writes the jumps of those no thread is inside (src/cli/record_fnsites.c)
 * and calls scaler_attach_sites, which lists the refused ones with their
 * reason as the load-time ones are. Objects a dlopen loads later while
 * attached have their jumps written by functions.c as at any dlopen, and
 * noted PATCHED. At the detach scaler stops every thread again and puts
 * back the bytes of each PATCHED entry that still holds its jump; the
 * runtime's detaching pauses every function (functions.c), so that an
 * entry left patched (scaler killed) sends its calls straight on. The
 * functions' code stays mapped for good: a thread may be in it.
 */
#include <string.h>
#include <sys/mman.h>

#include "fnsite.h"
#include "runtime.h"

#define MAX_SITES (1u << 20)

static struct sc_fnsites table;
static struct sc_fnsite *sites;
static const char *spec;
static bool deferred;

void sc_fnsites_begin(const char *s)
{
	spec = s && s[0] ? sc_mem_strdup(s) : NULL;
	deferred = spec != NULL;
}

const char *sc_fnsites_spec(void)
{
	return spec;
}

bool sc_fnsites_deferred(void)
{
	return deferred;
}

void sc_fnsites_end_defer(void)
{
	deferred = false;
}

uint64_t sc_fnsites_table(void)
{
	return spec ? (uintptr_t)&table : 0;
}

size_t sc_fnsites_mark(void)
{
	return table.n;
}

void sc_fnsites_truncate(size_t mark)
{
	__atomic_store_n(&table.n, mark, __ATOMIC_RELEASE);
}

/* Notes an entry (under the runtime lock); false if there is no room. */
bool sc_fnsites_add(uintptr_t at, const uint8_t *orig, const uint8_t *jump, uint32_t len,
		    uint32_t fn, int state)
{
	if (!sites) {
		void *m = mmap(NULL, (size_t)MAX_SITES * sizeof(*sites), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			return false;
		sites = m;
		table.sites = (uintptr_t)m;
	}
	if (table.n == MAX_SITES || len > SC_FNSITE_BYTES)
		return false;
	struct sc_fnsite *s = &sites[table.n];
	*s = (struct sc_fnsite){.at = at, .fn = fn, .len = (uint8_t)len, .state = (uint8_t)state};
	memcpy(s->orig, orig, len);
	memcpy(s->jump, jump, len);
	__atomic_store_n(&table.n, table.n + 1, __ATOMIC_RELEASE);
	return true;
}

/* Marks the entries in [lo, hi), an object unloaded, as such (under the
 * runtime lock): scaler neither writes nor puts back their bytes, which
 * may be another object's by then */
void sc_fnsites_unloaded(uintptr_t lo, uintptr_t hi)
{
	for (size_t i = 0; i < table.n; i++)
		if (sites[i].at >= lo && sites[i].at < hi)
			__atomic_store_n(&sites[i].state, SC_FNSITE_UNLOADED, __ATOMIC_RELAXED);
}

static const char *reason(int state)
{
	switch (state) {
	case SC_FNSITE_PENDING:
		return "attached: its jump was not written";
	case SC_FNSITE_BUSY_PC:
		return "attached: a thread was executing its first bytes";
	case SC_FNSITE_BUSY_STACK:
		return "attached: an address inside its first bytes on a thread's stack "
		       "(an interrupted context)";
	case SC_FNSITE_CHANGED:
		return "attached: its bytes changed since they were read";
	case SC_FNSITE_FAILED:
		return "attached: its jump could not be written";
	default:
		return NULL;
	}
}

/*
 * Called by scaler record -p in a stopped thread, the other threads
 * running, once it has written the jumps (each site's state says how it
 * went): lists the entries it refused. Returns how many are patched.
 */
__attribute__((visibility("default"))) long scaler_attach_sites(void);
long scaler_attach_sites(void)
{
	long patched = 0;
	sc_lock();
	if (sc_detached) {
		sc_unlock();
		return 0;
	}
	sc_meta_batch(true);
	for (size_t i = 0; i < table.n; i++) {
		const char *why = reason(sites[i].state);
		if (why)
			sc_functions_refused(sites[i].fn, why);
		patched += sites[i].state == SC_FNSITE_PATCHED;
	}
	sc_meta_batch(false);
	sc_unlock();
	return patched;
}
