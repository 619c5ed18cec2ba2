/*
 * thread.c - per-thread state: the counter file and the shadow stack.
 *
 * A thread gets its state the first time it calls through a shadow entry
 * (or at its start, when it was created through our pthread_create
 * wrapper). The counters are a MAP_SHARED mapping of its own file in the
 * profile directory, so they are in the kernel's page cache the moment
 * they change and survive any way the process ends. The mapping reserves
 * address space for every possible entry; the file covers the entries
 * that exist and some room (cap_for), with its disk space reserved
 * (files.c) so that no page of it can fault on a full disk. Pages are
 * committed when first touched, so memory grows with (caller, API)
 * pairs, never with calls. The descriptor is closed once the file is mapped (the mapping
 * stays), but for the first thread's: a program that starts thousands of
 * threads keeps its own descriptors; a file is reopened by name to grow.
 *
 * While runtime code runs on a thread, cap is 0: every call it makes
 * through a shadow entry takes the slow path and is passed through
 * unseen (sc_thread_busy / sc_thread_idle nest).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "runtime.h"

SC_HIDDEN __thread struct sc_thread *sc_tls_thread __attribute__((tls_model("initial-exec")));
SC_HIDDEN __thread uintptr_t sc_tls_start_routine __attribute__((tls_model("initial-exec")));
/*
 * What each entry's own counted path reads (arch.h, sc_arch_write_entry):
 * sc_tls_thread's cap and recs, copied into TLS of their own so that the
 * path reaches a record in two dependent loads (%fs:offset, then the
 * record) instead of four (GOT, %fs, the thread, its recs). Invariant:
 * sc_tls_lim is 0 or sc_tls_thread->cap, and when it is not 0,
 * sc_tls_recs is sc_tls_thread->recs. Every change of sc_tls_thread or
 * of the current thread's cap goes through sc_thread_publish, which
 * closes the gate (lim 0: every call takes the general path) while it
 * writes, so a signal handler that calls through an entry meanwhile never
 * sees a cap with the wrong array.
 */
SC_HIDDEN __thread uint64_t sc_tls_lim __attribute__((tls_model("initial-exec")));
SC_HIDDEN __thread struct sc_rec *sc_tls_recs __attribute__((tls_model("initial-exec")));
/* Stands in for a thread that has ended or cannot be profiled: cap 0 sends
 * every call to the slow path, which lets it through. */
SC_HIDDEN struct sc_thread sc_idle_thread SC_LARGE_BSS;
/*
 * The record of frames whose calls are booked already or elsewhere: those
 * a fork child inherited (sc_thread_after_fork: its parent's calls,
 * counted there), those in flight at the image's end
 * (sc_threads_finish_all) and a return's lost frame (slow.c). Their
 * returns are booked here, in no file, and it is never read: threads
 * that write it at once lose increments of nothing.
 */
SC_HIDDEN struct sc_rec sc_inherited_rec;

static uint32_t next_seq;
/*
 * The image's first thread (its main thread, or a fork child's only one)
 * keeps its file's descriptor: it is the thread most likely to have
 * started before the program dropped privileges, after which its file
 * (0600, the old user's) cannot be reopened to grow. One descriptor per
 * process, however many threads it starts.
 */
static struct sc_thread *kept_for;
static int kept_fd = -1;
static pthread_key_t exit_key;
static bool key_made;
/* what this thread's value of exit_key is (register_thread) */
static __thread struct sc_thread *key_holds __attribute__((tls_model("initial-exec")));

/*
 * The file's blocks are reserved but unwritten: each first touch of a
 * page fills it with zeros. Without MADV_RANDOM the kernel's read-ahead
 * would zero many pages after the header's on the first write, a cost at
 * every thread's start for records most threads never reach. Read-ahead
 * stops at the file's end, so a file of one page (a small program's) needs
 * no advice, nor its system call, until it grows.
 */
static void no_readahead(struct sc_thread *t, size_t file_size)
{
	if (t->no_ra || file_size <= SC_PAGE)
		return;
	madvise(t->hdr, t->map_len, MADV_RANDOM);
	t->no_ra = true;
}

/* Room kept past the entries that exist: at least this many entries. */
#define ROOM_MIN 8u

/* The name of t's file in the profile directory. */
#define THR_NAME_MAX SC_NAME_MAX
static const char *thr_name(const struct sc_thread *t, char buf[THR_NAME_MAX])
{
	return sc_file_name(buf, t->pid, t->gen, "-t", t->seq, ".thr");
}

static void register_thread(struct sc_thread *t);

void sc_thread_publish(void)
{
	struct sc_thread *t = sc_tls_thread;
	sc_tls_lim = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* the idle state's cap is 0, and not read: its page is touched by
	 * nothing else, a page fault in every process */
	if (!t || t == &sc_idle_thread || !t->cap)
		return;
	sc_tls_recs = t->recs;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	sc_tls_lim = t->cap;
}

/* t->cap = cap, and the entries' copy of it if t is this thread's */
static void set_cap(struct sc_thread *t, uint64_t cap)
{
	t->cap = cap;
	if (t == sc_tls_thread)
		sc_thread_publish();
}

void sc_thread_set_current(struct sc_thread *t)
{
	sc_tls_lim = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	sc_tls_thread = t;
	sc_thread_publish();
}

/* The CPU time of thread tid of this process (0: the calling one), 0 if
 * it cannot be had. */
uint64_t sc_thread_cpu_ns(uint32_t tid)
{
	/* the kernel's per-thread CPU clock of a tid: MAKE_THREAD_CPUCLOCK
	 * (tid, CPUCLOCK_SCHED) */
	return sc_clock_ns(tid ? (clockid_t)((~(uint32_t)tid << 3) | 6u) : CLOCK_THREAD_CPUTIME_ID);
}

/* The calling thread's voluntary and involuntary context switches so far
 * (the system call: libc's getrusage would be one more import to look up
 * in every process, sys.c); false if they cannot be had. */
bool sc_thread_switches(long *vol, long *invol)
{
	struct rusage ru;
	if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0)
		return false;
	*vol = ru.ru_nvcsw;
	*invol = ru.ru_nivcsw;
	return true;
}

static void on_thread_exit(void *p)
{
	struct sc_thread *t = p;
	if (t && t == sc_tls_thread) {
		sc_thread_finish(t, sc_rdtsc());
		sc_thread_set_current(&sc_idle_thread);
		sc_perf_thread_end(t);
	}
}

static size_t file_size_for(uint64_t cap)
{
	return SC_THR_HEADER_SIZE + cap * sizeof(struct sc_rec);
}

/*
 * Room for n entries and then some: a quarter more, at least ROOM_MIN,
 * rounded up to fill the file's last page (the header and the records
 * share pages); with spare false, only the rounding. Every thread's file
 * reserves it on disk (in memory on tmpfs) whether or not the thread
 * calls them, and a process's start pays for each page reserved, so the
 * room is kept small: a short process calls a few APIs, and a grow costs
 * a few system calls. Growing by a share of n keeps the grows
 * logarithmic in the entries a long-lived thread comes to call.
 */
static uint64_t cap_for(uint32_t n, bool spare)
{
	const uint64_t page = 4096, rec = sizeof(struct sc_rec);
	uint64_t room = !spare ? 0 : n / 4 > ROOM_MIN ? n / 4 : ROOM_MIN;
	uint64_t pages = (file_size_for((uint64_t)n + room) + page - 1) / page;
	return (pages * page - SC_THR_HEADER_SIZE) / rec;
}

/* Creates state for the calling thread; NULL (and one warning) on failure.
 * Its file is mapped at `at` if not NULL (MAP_FIXED: a fork child's
 * replaces the mapping of its parent's file, one system call instead of
 * an munmap too). The state is `reuse` if not NULL, its fields cleared
 * and its frames kept (a fork child's copy of its parent's: see
 * sc_thread_after_fork), else new, unmapped on failure. */
static struct sc_thread *thread_new(void *at, struct sc_thread *reuse)
{
	struct sc_thread *t = reuse;
	if (t)
		memset(t, 0, offsetof(struct sc_thread, frames));
	else
		t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	/* a name someone else planted is skipped: it costs a number */
	char name[THR_NAME_MAX];
	int fd = -1;
	sc_leaf_lock();
	if (sc_detached) {                      /* lost the race with detaching */
		sc_leaf_unlock();
		if (!reuse)
			munmap(t, sizeof(*t));
		return NULL;
	}
	t->pid = (uint32_t)getpid();
	t->gen = sc_gen;
	for (int tries = 0; fd < 0 && tries < 1000; tries++) {
		t->seq = next_seq++;
		fd = sc_file_create(thr_name(t, name), O_RDWR, &t->dev, &t->ino);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	uint32_t seq = t->seq;
	if (fd >= 0)
		sc_args_thread_open(t->pid, t->gen, seq);
	/* a fork child's (reuse) covers the entries its parent made and no
	 * more: most exec at once, after a few calls, and the room a long
	 * program's parent has would be pages of memory reserved in each */
	uint64_t cap = cap_for(sc_entry_count(), !reuse);
	size_t reserve = file_size_for(SC_MAX_ENTRIES);
	void *m = MAP_FAILED;
	/* once: a program out of descriptors would have it for each thread */
	static bool said;
	if (fd < 0 && !said) {
		sc_warn("cannot create %s/%s: %s; thread not profiled (said once)", sc_dir, name,
			strerror(errno));
		said = true;
	} else if (fd >= 0 && sc_file_reserve(fd, name, file_size_for(cap)) == 0)
		m = mmap(at, reserve, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0),
			 fd, 0);
	if (m != MAP_FAILED && !kept_for) {
		kept_for = t;
		kept_fd = fd;
	} else if (fd >= 0)
		close(fd);
	if (m == MAP_FAILED) {
		if (fd >= 0)
			sc_file_remove(name);   /* an empty file is not a thread */
		sc_leaf_unlock();
		if (!reuse)
			munmap(t, sizeof(*t));
		return NULL;
	}
	sc_leaf_unlock();
	t->hdr = m;
	t->map_len = reserve;
	no_readahead(t, file_size_for(cap));
	t->tid = (uint32_t)syscall(SYS_gettid);
	memcpy(t->hdr->magic, SC_THR_MAGIC, 8);
	t->hdr->version = SC_FORMAT_VERSION;
	t->hdr->seq = seq;
	t->hdr->tid = t->tid;
	t->hdr->rec_size = sizeof(struct sc_rec);
	t->hdr->cpu_start_ns = sc_thread_cpu_ns(0);
	t->hdr->start_tsc = sc_rdtsc();
	t->hdr->block_ticks = sc_block_ticks;
	/* one more thread running, until sc_thread_finish */
	t->hdr->start_p = sc_pclock_step(1, t->hdr->start_tsc);
	prctl(PR_GET_NAME, t->hdr->name, 0, 0, 0);
	t->recs = (struct sc_rec *)((char *)m + SC_THR_HEADER_SIZE);
	t->last_tsc = &t->hdr->last_tsc;
	t->real_cap = cap;
	t->cap = cap;
	t->sp = t->sp_base = t->frames;
	t->sp_end = t->frames + SC_FRAMES;
	sc_calib_thread_init(t);
	t->span_rng = sc_rdtsc();       /* each thread and run draws its own spans */

	struct sc_m_thread mt = {.seq = seq, .tid = t->tid,
				 .start_routine = sc_tls_start_routine,
				 .routine_obj = sc_tls_start_routine
					 ? sc_object_id_of(sc_tls_start_routine) : UINT32_MAX};
	/* payload: the struct, the thread's name, its start routine's symbol */
	struct {
		struct sc_m_thread mt;
		char name[17];
	} fixed;
	/* whole: the reader takes the first byte past the name's NULs for the
	 * routine's, so the struct's tail padding must be zeros too */
	memset(&fixed, 0, sizeof(fixed));
	fixed.mt = mt;
	memcpy(fixed.name, t->hdr->name, sizeof(t->hdr->name));
	/* its exported name, else object+offset (static functions have no
	 * dynamic symbol; addr2line or the symbol table resolves the offset) */
	Dl_info di;
	char routine[300] = "";
	if (sc_tls_start_routine && dladdr((void *)sc_tls_start_routine, &di)) {
		if (di.dli_sname && di.dli_saddr == (void *)sc_tls_start_routine)
			snprintf(routine, sizeof(routine), "%s", di.dli_sname);
		else if (di.dli_fname && di.dli_fbase) {
			const char *b = strrchr(di.dli_fname, '/');
			snprintf(routine, sizeof(routine), "%s+%#lx", b ? b + 1 : di.dli_fname,
				 (unsigned long)(sc_tls_start_routine - (uintptr_t)di.dli_fbase));
		}
	}
	sc_meta_add(SC_M_THREAD, &fixed, sizeof(fixed), routine);
	register_thread(t);
	/* last: what the thread measures off the CPU starts with its calls,
	 * not in the runtime's locks and lookups above (perf.c) */
	sc_perf_thread_start(t);
	return t;
}

struct sc_thread *sc_thread_get(void)
{
	struct sc_thread *t = sc_tls_thread;
	if (t)
		return t == &sc_idle_thread ? NULL : t;
	sc_thread_set_current(&sc_idle_thread); /* calls made while creating pass */
	t = thread_new(NULL, NULL);
	sc_thread_set_current(t ? t : &sc_idle_thread);
	return t;
}

/* Room for SC_FILTER_ROOM entries more than exist, in the calling
 * thread's file, before a seccomp filter (seccomp.c): under it a file
 * does not grow, and the APIs a process first calls then (a fork child
 * that sandboxes itself has no room of its own) still get counted. */
#define SC_FILTER_ROOM 1024u
static int grow_to(struct sc_thread *t, uint64_t cap);
void sc_thread_room_before_filter(void)
{
	struct sc_thread *t = sc_tls_thread;
	if (t && t != &sc_idle_thread)
		grow_to(t, cap_for(sc_entry_count() + SC_FILTER_ROOM, true));
}

/* The entry table grew (dlopen, dlsym) past this thread's file. */
int sc_thread_grow(struct sc_thread *t)
{
	return grow_to(t, cap_for(sc_entry_count(), true));
}

static int grow_to(struct sc_thread *t, uint64_t cap)
{
	if (cap > SC_MAX_ENTRIES)
		cap = SC_MAX_ENTRIES;
	if (cap <= t->real_cap)
		return 0;
	/* under a seccomp filter, no system call: it keeps the room it has */
	if (t->stuck || __atomic_load_n(&sc_sandboxed, __ATOMIC_ACQUIRE))
		return -1;
	/* its descriptor, unless it was closed at its start: reopened by
	 * name, which fails after a privilege drop (the file is 0600, the
	 * old user's): the thread then keeps the room it has, said once */
	char name[THR_NAME_MAX];
	sc_leaf_lock();
	if (sc_detached) {
		sc_leaf_unlock();
		return -1;
	}
	int fd = sc_file_still(t == kept_for ? kept_fd : -1, thr_name(t, name), t->dev, t->ino,
			       O_RDWR);
	int e = errno;
	int r = fd >= 0 ? sc_file_reserve(fd, name, file_size_for(cap)) : -1;
	if (t == kept_for)
		kept_fd = fd;
	else if (fd >= 0)
		close(fd);
	if (fd < 0) {
		static bool said;
		if (!said)
			sc_warn("cannot reopen %s/%s: %s; calls to APIs bound later on threads "
				"started before are not counted", sc_dir, name, strerror(e));
		said = true;
	}
	sc_leaf_unlock();
	if (r != 0) {
		t->stuck = true;
		return -1;
	}
	no_readahead(t, file_size_for(cap));
	t->real_cap = cap;
	if (!t->busy)
		set_cap(t, cap);
	return 0;
}

void sc_thread_busy(struct sc_thread *t)
{
	if (t && t->busy++ == 0)
		set_cap(t, 0);
}

void sc_thread_idle(struct sc_thread *t)
{
	if (t && --t->busy == 0)
		set_cap(t, t->real_cap);
}

void sc_thread_finish(struct sc_thread *t, uint64_t tsc)
{
	if (t && t->hdr && !t->hdr->end_tsc) {
		/* 0, not known, under a seccomp filter: no system call */
		if (!__atomic_load_n(&sc_sandboxed, __ATOMIC_ACQUIRE))
			t->hdr->cpu_end_ns = t == sc_tls_thread ? sc_thread_cpu_ns(0)
								: sc_thread_cpu_ns(t->tid);
		t->hdr->end_p = sc_pclock_step(-1, tsc);
		t->hdr->end_tsc = tsc;
	}
}

/*
 * Every thread's state, for the end of the image: a list through the
 * states themselves, newest first. Threads only ever join (an ended
 * thread's state stays, its hdr->end_tsc set). Read without the lock: a
 * state's all_next is written before the state is published as the head,
 * and never changed after. No memory of its own: an array cost every
 * process an mmap and two page faults (doc/performance.md).
 *
 * A thread's end is seen by the destructor of a key it sets
 * (on_thread_exit): at pthread_exit, cancellation or its start routine's
 * return. The key is made once, under the leaf lock: pthread_once woke
 * futex waiters, a system call in every process.
 */
static struct sc_thread *all_threads;

static void register_thread(struct sc_thread *t)
{
	sc_leaf_lock();
	t->all_next = all_threads;
	__atomic_store_n(&all_threads, t, __ATOMIC_RELEASE);
	if (!key_made)
		key_made = pthread_key_create(&exit_key, on_thread_exit) == 0;
	sc_leaf_unlock();
	/* a fork child's thread keeps its state where its parent's was, and
	 * the key's value with it (fork copied both): pthread_setspecific's
	 * code is a page of libc the child would fault in */
	if (key_made && key_holds != t && pthread_setspecific(exit_key, t) == 0)
		key_holds = t;
}

struct sc_thread *sc_thread_first(void)
{
	return __atomic_load_n(&all_threads, __ATOMIC_ACQUIRE);
}

/*
 * Calls still in flight when the image ends (an event loop that never
 * returns, a worker blocked in epoll_wait at shutdown) would otherwise
 * never be booked, while every call made inside them was: each is booked
 * now as a timed call that lasted until `now`, standing for itself,
 * innermost first so each caller loses its nested calls' time as at a
 * return. Other threads are still running: their records may miss an
 * increment they make meanwhile, nothing of theirs is changed otherwise.
 */
static void credit_in_flight(struct sc_thread *t, uint64_t now, uint64_t pnow)
{
	struct sc_frame *top = __atomic_load_n(&t->sp, __ATOMIC_ACQUIRE);
	if (top < t->sp_base || top > t->sp_end)
		return;
	/* a thread off the CPU now (blocked in the call in flight): its
	 * gap so far goes to the innermost call that began before it */
	uint64_t gap_at = 0, out_at = 0;
	bool gap_pre = false;
	uint64_t gap = sc_perf_open_gap(t, now, &gap_at, &out_at, &gap_pre);
	/* the clock's share of the Waits in flight inside the next frame and
	 * of its time off the CPU so far (the open gap included): no part of its
	 * own share, as at a return (trampoline.S, perf.c) */
	uint64_t pwait = 0, open_off = 0;
	for (struct sc_frame *f = top; f-- > t->sp_base;) {
		struct sc_rec *r = f->rec;
		if (!r || r == &sc_inherited_rec || f->tsc > now)
			continue;
		uint64_t el = now - f->tsc, pe = sc_pclock_entry(f);
		uint64_t t_own = el;    /* f->tsc moved on past nested timing */
		uint64_t pi = pnow > pe ? pnow - pe : 0;
		if (f->tk) {
			uint64_t off = (f->pend ? f->off_incl : 0) + open_off;
			if (gap && f->t0 <= gap_at && !open_off)
				off += open_off = gap;
			pi = pi > pwait ? pi - pwait : 0;
			if (off && el) {
				uint64_t cut = (uint64_t)((unsigned __int128)pi * (off < el ? off : el) / el);
				pi -= cut;
				if (f == t->sp_base)    /* the thread's, once */
					t->hdr->off_p += cut;
			}
		} else {
			pwait += pi;
			open_off = 0;
		}
		sc_rec_book(r, f->tsc, t_own, t_own - f->child, 1, pi);
		if (f->pend) {          /* what perf.c gave it, standing for itself */
			uint64_t b = f->off_blocked < el ? f->off_blocked : el;
			r->wblocked += b;
			r->rblocked += b;
			uint64_t pre = f->off_preempt < el ? f->off_preempt : el;
			r->wpreempt += pre;
			r->wself_preempt += pre - f->nested_preempt;
			r->wkernel += f->kernel;
		}
		if (gap && f->t0 <= gap_at) {
			uint64_t g = gap < el ? gap : el;
			if (gap_pre) {
				r->wpreempt += g;
				r->wself_preempt += g;
			} else {
				r->wblocked += g;
				r->rblocked += g;
				sc_perf_open_stack(t, f, out_at);
			}
			gap = 0;
		}
		if (f > t->sp_base) {
			(f - 1)->child += t_own;
			sc_same_edge_credit(t, f, r, t_own);
		}
	}
}

/* At process exit: calls in flight are booked, threads still running end
 * now (the kernel keeps the pages; the files stay mapped for calls made
 * by later destructors). */
void sc_threads_finish_all(uint64_t tsc)
{
	uint64_t pnow = sc_pclock_step(0, tsc);
	for (struct sc_thread *t = sc_thread_first(); t; t = t->all_next) {
		if (t->hdr && !t->hdr->end_tsc && t->sp > t->sp_base) {
			credit_in_flight(t, tsc, pnow);
			/* booked: a late return (the other threads run on
			 * until the process ends) books in no file. The
			 * frames stay: they hold the return addresses. Only
			 * rec changes, one store each, as the thread may be
			 * returning through one meanwhile. */
			for (struct sc_frame *f = t->sp_base; f < t->sp_end && f < t->sp; f++)
				__atomic_store_n(&f->rec, &sc_inherited_rec, __ATOMIC_RELAXED);
		}
		/* running on to the image's end: its CPU time so far */
		if (t->hdr && !t->hdr->end_tsc && t != sc_tls_thread)
			t->hdr->cpu_end_ns = sc_thread_cpu_ns(t->tid);
	}
	struct sc_thread *t = sc_tls_thread;
	if (t && t != &sc_idle_thread)
		sc_thread_finish(t, tsc);
}

/* Detached: the descriptor kept for the first thread's file is closed
 * (its mapping stays, for the calls still in flight). Under the leaf lock. */
void sc_threads_close(void)
{
	if (kept_for)
		sc_file_close_same(kept_fd, kept_for->dev, kept_for->ino);
	kept_for = NULL;
	kept_fd = -1;
}

/* The header of a fork child's thread that has no file: written by its
 * returns (last_tsc), never read. Ended, so that the image's end books
 * nothing in it. */
static struct sc_thr_header no_file_hdr = {.end_tsc = 1};

/*
 * The fork child's thread t when it has no file: it stays the current
 * thread, its frames kept for the returns of the calls in flight
 * (sc_idle_thread has none: a return through the trampoline would read
 * below a NULL stack), and counts nothing: cap 0 and a file that cannot
 * grow send every call it makes through unseen, its cost is never
 * re-measured, and each return books to sc_inherited_rec (the caller
 * sets the frames so, and sp, busy and cap as for any child).
 */
static void keep_unprofiled(struct sc_thread *t)
{
	memset(t, 0, offsetof(struct sc_thread, frames));
	t->hdr = &no_file_hdr;
	t->last_tsc = &no_file_hdr.last_tsc;
	t->sp_base = t->frames;
	t->sp_end = t->frames + SC_FRAMES;
	t->cal = sc_cal0;               /* what an exec hands down */
	t->recal_at = ~(uint64_t)0;
	t->stuck = true;
}

/*
 * fork child: the counters are a shared mapping of the parent's file, so
 * the child must stop writing them before it makes another call. It gets
 * a new counter file for its only thread (its new meta file is made
 * first: sc_meta_reopen_child).
 *
 * The shadow frames of calls in flight stay, for their return addresses
 * (the stack was copied: the child may still return through them), but
 * those calls are the parent's: counted there, begun before the child
 * existed. Booked in the child they would be calls it never made (timed
 * but not counted), longer than its life, with every call it makes inside
 * them nested in theirs: a postmaster forks its auxiliary processes from
 * a signal handler that interrupted its select, and a child that never
 * returns from the handler showed that select in flight for its whole
 * life. So they are booked to sc_inherited_rec, and none is a Wait any
 * more: the child's thread joined the parallel clock running at its start,
 * and a Wait's return would count it in a second time. The child's time
 * until such a call returns is its caller's.
 *
 * A child whose files cannot be made (a full disk, no inode left) keeps
 * its state too, unprofiled (keep_unprofiled): the calls in flight still
 * return through its frames.
 */
void sc_thread_after_fork(void)
{
	struct sc_thread *t = sc_tls_thread;
	next_seq = 0;
	all_threads = NULL;             /* the parent's threads are not ours */
	/* nor is the descriptor it kept (still in memory: no thread state
	 * of the parent's is unmapped before this) */
	sc_threads_close();
	if (!t || t == &sc_idle_thread)
		return;
	/*
	 * The parent's thread state is still mapped here (private memory,
	 * copied by fork): read it in place. A copy on the stack (it holds
	 * the whole shadow stack, ~0.4 MB) would stay in every child's RSS.
	 */
	sc_thread_set_current(&sc_idle_thread);
	/*
	 * The child's state is the copy fork made of its parent's, cleared
	 * and filled in place: its shadow stack stays where it is, where a
	 * new state cost a child that execs at once an mmap, a page fault,
	 * a copy of the frames and an munmap of the copy. What the copy had
	 * mapped that the child does not share goes first. The parent's
	 * file is never written again: the child's takes its place (no call
	 * in between: the thread is idle).
	 */
	size_t depth = (size_t)(t->sp - t->sp_base);
	int busy = t->busy;
	struct sc_thr_header *old_hdr = t->hdr;
	size_t old_len = t->map_len;
	sc_perf_forget(t);
	void *at = old_len == file_size_for(SC_MAX_ENTRIES) ? old_hdr : NULL;
	/* a thread's file without its process's is read by no one */
	struct sc_thread *n = sc_meta_has_file() ? thread_new(at, t) : NULL;
	if (!n) {
		keep_unprofiled(t);
		n = t;
	}
	/* the shadow stack carried over, its calls the parent's (above) */
	for (size_t i = 0; i < depth; i++) {
		struct sc_frame *f = &n->frames[i];
		f->rec = &sc_inherited_rec;
		f->trec = NULL;         /* a tail call's API, --args' tag */
		f->pend = 0;
		f->p = sc_pclock.p;     /* the state now, as at a call's entry */
		f->tk = sc_pclock.tk;
	}
	n->sp = n->frames + depth;
	n->busy = busy;
	n->cap = n->busy ? 0 : n->real_cap;
	if (n->hdr != old_hdr)
		munmap(old_hdr, old_len);
	sc_thread_set_current(n);
}
