/*
 * control.c - control of a running image: `scaler ctl PID pause|resume|
 * reset`, `record --paused` and the control signal (doc/ctl.md).
 *
 * Requests come by one signal, checked by the kernel's rules for sending
 * one (the sender is the process's user or root), which the runtime
 * handles from start-up: the one `record --control-signal` names
 * (SCALER_CONTROL_SIGNAL), else SIGRTMAX-1. `scaler ctl` sends it with
 * sigqueue and a value that names the request and its number; any other
 * delivery of a signal the user chose toggles pause and resume, and of
 * the default one is ignored. The signal is installed with SA_RESTART;
 * what any signal does to a thread blocked in sleep, poll or epoll_wait
 * (EINTR) it does too. A program that installs its own handler for the
 * signal replaces ours (and control stops), as signals.c says of the
 * fatal ones.
 *
 * Pause and resume are the process's: the thread the signal reaches
 * rewrites the GOT slots (pause.c) under both runtime locks, taken
 * without waiting. When either is held (a scan, a bind, maybe by the very
 * thread the signal interrupted) the request waits in sc_control_due and
 * the thread that releases the lock carries it out (lock.c), outside any
 * signal handler. Done, it is written as SC_M_CONTROL with its number,
 * which ctl waits to see.
 *
 * A reset is each thread's: ctl sends it to every thread that has a
 * counter file, and each zeroes its own records in its handler, where
 * nothing of its own counting is half done (no other thread writes
 * them). Not when the signal interrupted the thread inside the runtime
 * (the entries' code, the interceptor, the trampoline, runtime C code, a
 * lock held): between the entry's count and its timing a zeroed record
 * would get a timed call it does not count. ctl then asks again. Calls
 * in flight (their shadow frames point at records) are counted again,
 * with the time from the reset on: every call the new counts hold is
 * whole. Threads that ended are zeroed by the first thread that resets.
 * Each acknowledges in its file's header (ctl_seq). A thread asleep in a
 * call that a handler would cut short (sleep, poll, epoll_wait) is not
 * signalled: ctl leaves the request in its header (ctl_want) and the
 * thread carries it out at its next timed return (sc_control_recal, from
 * sc_recalibrate), which the handler of a thread that is awake brings
 * forward (poke_sleepers).
 *
 * Paused time is nobody's time: at a resume (and at the end, still
 * paused) each thread's header gets the paused part of its life
 * (paused_ticks, paused_p), which the reader takes off its time.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "args.h"
#include "runtime.h"

/* a request's value (sigval): magic, what, number */
#define CTL_MAGIC 0x5ca1u
#define CTL_PAUSE 1u
#define CTL_RESUME 2u
#define CTL_RESET 3u
#define CTL_SEQ_MASK ((1ull << 40) - 1)

static int ctl_sig;             /* the signal requests come on (0: none) */
static bool user_sig;           /* chosen by the user: a plain delivery toggles */
static uintptr_t self_lo, self_hi;      /* the runtime's own code */

/* a pause or resume waiting for the locks: what (0: none) << 48 | seq;
 * and plain deliveries of the user's signal not yet carried out */
SC_HIDDEN int sc_control_due;
static uint64_t want;
static uint32_t toggles;
static int running;

/* when the pause in force began (ticks, parallel clock) */
static uint64_t pause_tsc, pause_p;

/* ---- paused time ------------------------------------------------------ */

static uint64_t clock_now(uint64_t tsc)
{
	return sc_pclock_step(0, tsc);
}

/* Adds the part of each thread's life since the pause began, up to now,
 * to its paused time. */
static void account_pause(uint64_t now)
{
	uint64_t pnow = clock_now(now);
	for (struct sc_thread *t = sc_thread_first(); t; t = t->all_next) {
		struct sc_thr_header *h = t->hdr;
		if (!h)
			continue;
		uint64_t s = h->start_tsc > pause_tsc ? h->start_tsc : pause_tsc;
		uint64_t e = h->end_tsc ? h->end_tsc : now;
		if (e > s)
			h->paused_ticks += e - s;
		uint64_t sp = h->start_p > pause_p ? h->start_p : pause_p;
		uint64_t ep = h->end_tsc ? h->end_p : pnow;
		if (ep > sp)
			h->paused_p += ep - sp;
	}
}

/*
 * The pauses that ended, the last PAUSE_LOG of them, for perf.c: a
 * thread reads the switches the kernel wrote while it was paused only at
 * its first timed return after (no call is timed meanwhile), and its time
 * off the CPU then is paused time, which the thread's header already
 * holds (paused_p): it must not go to off_p and off_untimed as well.
 * Written under both locks (set_paused), read by any thread without one:
 * a window is complete before npauses counts it. A pause older than those
 * kept goes into horizon: before it, everything counts as paused (less off
 * time taken off the thread, never more).
 */
#define PAUSE_LOG 16u
static struct {
	uint64_t from, to;
} pauses[PAUSE_LOG];
static uint32_t npauses;
static uint64_t horizon;

static void log_pause(uint64_t from, uint64_t to)
{
	uint32_t n = __atomic_load_n(&npauses, __ATOMIC_RELAXED);
	if (n >= PAUSE_LOG)
		__atomic_store_n(&horizon, pauses[n % PAUSE_LOG].to, __ATOMIC_RELEASE);
	__atomic_store_n(&pauses[n % PAUSE_LOG].from, from, __ATOMIC_RELAXED);
	__atomic_store_n(&pauses[n % PAUSE_LOG].to, to, __ATOMIC_RELAXED);
	__atomic_store_n(&npauses, n + 1, __ATOMIC_RELEASE);
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
	return hi > lo ? hi - lo : 0;
}

/* The ticks of [from, to) the process spent paused (the pause in force
 * counted up to `to`). Any thread, no lock, no system call. */
uint64_t sc_control_paused_in(uint64_t from, uint64_t to)
{
	if (to <= from)
		return 0;
	uint32_t n = __atomic_load_n(&npauses, __ATOMIC_ACQUIRE);
	uint64_t sum = overlap(from, to, 0, __atomic_load_n(&horizon, __ATOMIC_ACQUIRE));
	for (uint32_t i = n > PAUSE_LOG ? n - PAUSE_LOG : 0; i < n; i++)
		sum += overlap(from, to, __atomic_load_n(&pauses[i % PAUSE_LOG].from, __ATOMIC_RELAXED),
			       __atomic_load_n(&pauses[i % PAUSE_LOG].to, __ATOMIC_RELAXED));
	if (__atomic_load_n(&sc_paused, __ATOMIC_ACQUIRE))
		sum += overlap(from, to, __atomic_load_n(&pause_tsc, __ATOMIC_RELAXED), UINT64_MAX);
	/* a resume logs its pause before it clears sc_paused: both seen */
	return sum < to - from ? sum : to - from;
}

void sc_control_end(uint64_t tsc)
{
	if (sc_paused)
		account_pause(tsc);
}

/* ---- pause and resume (both locks held) ------------------------------ */

static void note(uint32_t what, uint64_t seq, uint64_t now)
{
	struct sc_m_control c = {.what = what, .sig = what == SC_CTL_LISTEN ? (uint32_t)ctl_sig : 0,
				 .seq = seq, .tsc = now, .mono_ns = sc_clock_ns(CLOCK_MONOTONIC)};
	sc_meta_add(SC_M_CONTROL, &c, sizeof(c), NULL);
}

static void set_paused(bool on, uint64_t seq)
{
	uint64_t now = sc_rdtsc();
	if (on && !sc_paused) {
		__atomic_store_n(&pause_tsc, now, __ATOMIC_RELAXED);
		pause_p = clock_now(now);
		sc_unpatch_all();
	} else if (!on && sc_paused) {
		log_pause(pause_tsc, now);
		sc_repatch_all();
		account_pause(now);
	}
	note(on ? SC_CTL_PAUSE : SC_CTL_RESUME, seq, now);
}

/* Carries out what waits, if both locks can be had now (see the top). */
void sc_control_run(void)
{
	for (int tries = 0; tries < 2; tries++) {
		if (!__atomic_load_n(&sc_control_due, __ATOMIC_SEQ_CST) || sc_lock_held() ||
		    sc_leaf_held())
			return;
		if (__atomic_exchange_n(&running, 1, __ATOMIC_SEQ_CST))
			return;                 /* another thread is at it */
		bool locked = sc_locks_try();
		if (locked) {
			__atomic_store_n(&sc_control_due, 0, __ATOMIC_SEQ_CST);
			uint64_t w = __atomic_exchange_n(&want, 0, __ATOMIC_SEQ_CST);
			uint32_t tg = __atomic_exchange_n(&toggles, 0, __ATOMIC_SEQ_CST);
			if (w)
				set_paused(w >> 48 == CTL_PAUSE, w & CTL_SEQ_MASK);
			if (tg & 1)
				set_paused(!sc_paused, 0);
			sc_locks_give();
		}
		__atomic_store_n(&running, 0, __ATOMIC_SEQ_CST);
		/* a holder that let go meanwhile saw running set and left the
		 * request to us: look once more */
		if (locked && !__atomic_load_n(&sc_control_due, __ATOMIC_SEQ_CST))
			return;
	}
}

/* ---- reset (a thread, in its handler) --------------------------------- */

_Static_assert(offsetof(struct sc_rec, period) + sizeof(uint32_t) ==
	       offsetof(struct sc_rec, wticks), "sampler state is countdown, period");

/* Zeroes the counters of records [0, n) of r, keeping the sampling state
 * (countdown, period, span), the kernel's figures too. A record that is
 * zero already is not written (its page may never have been touched). */
static void zero_recs(struct sc_rec *r, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		struct sc_rec *x = &r[i];
		if (!x->count && !x->timed && !x->wcount)
			continue;
		/* every sum goes, whatever fields the format grows; the sampler's
		 * state (countdown, period, span), which the thread may be
		 * updating now, is not written */
		char *b = (char *)x;
		memset(b, 0, offsetof(struct sc_rec, countdown));
		memset(b + offsetof(struct sc_rec, wticks), 0,
		       offsetof(struct sc_rec, span) - offsetof(struct sc_rec, wticks));
		memset(b + offsetof(struct sc_rec, span) + sizeof(x->span), 0,
		       sizeof(*x) - offsetof(struct sc_rec, span) - sizeof(x->span));
	}
}

static uint64_t recs_in(const struct sc_thread *t)
{
	uint64_t n = sc_entry_count();
	return n < t->real_cap ? n : t->real_cap;
}

/* The parallel clock's state now, as the entries read it (intercept.S). */
static void clock_state(uint64_t *p, uint64_t *tk)
{
	do {
		*tk = __atomic_load_n(&sc_pclock.tk, __ATOMIC_ACQUIRE);
		*p = __atomic_load_n(&sc_pclock.p, __ATOMIC_ACQUIRE);
	} while (*tk != __atomic_load_n(&sc_pclock.tk, __ATOMIC_ACQUIRE));
}

/* Threads that ended: nobody writes their records any more. */
static void reset_ended(uint64_t seq)
{
	for (struct sc_thread *t = sc_thread_first(); t; t = t->all_next) {
		struct sc_thr_header *h = t->hdr;
		if (!h || !h->end_tsc || h->ctl_seq >= seq)
			continue;
		zero_recs(t->recs, recs_in(t));
		h->start_tsc = h->end_tsc;
		h->start_p = h->end_p;
		h->paused_ticks = h->paused_p = 0;
		h->off_untimed = h->off_p = 0;
		h->cpu_start_ns = h->cpu_end_ns;
		__atomic_store_n(&h->ctl_seq, seq, __ATOMIC_RELEASE);
	}
}

static bool in_runtime(const ucontext_t *uc)
{
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	return (pc >= self_lo && pc < self_hi) || sc_shadow_code_has(pc);
}

/*
 * Zeroes the records of t (the calling thread) for request seq; its calls
 * in flight are counted again and timed from `from` (pfrom: the parallel
 * clock then). ended, if not NULL, is the frame of a call that returned
 * just now and was booked (sc_control_recal): it was in flight at `from`,
 * so it is booked again, whole, from then. What the kernel measured goes
 * the same way: the figures of the time before are dropped (the records',
 * the thread's time off the CPU outside calls, its CPU time so far), and
 * what the calls in flight and `ended` were off the CPU is kept up to
 * their time since `from` (the thread was off it last: a reset carried
 * out late is one it slept through).
 */
static void reset_thread(struct sc_thread *t, uint64_t seq, uint64_t from, uint64_t pfrom,
			 uint64_t now, const struct sc_frame *ended)
{
	uint64_t p, tk;
	clock_state(&p, &tk);
	zero_recs(t->recs, recs_in(t));
	/* a frame whose slot no longer holds the trampoline was abandoned */
	for (struct sc_frame *f = t->sp_base; f < t->sp; f++) {
		if (*(const uint64_t *)f->slot != (uint64_t)(uintptr_t)sc_return_point)
			continue;
		if (f->rec)
			f->rec->count++;
		/* trec is a tail call's record, or --args' tag (not a record) */
		if (f->trec && f->trec != SC_ARGS_RET_TAG) {
			f->trec->count++;
			f->ttsc = from;
			if (f->trec2) {
				f->trec2->count++;
				f->ttsc2 = from;
			}
		}
		f->tsc = f->t0 = from;
		f->child = 0;
		f->moved = 0;
		if (f->pend) {
			uint64_t el = now - from;
			f->off_blocked = f->off_blocked < el ? f->off_blocked : el;
			f->off_preempt = f->off_preempt < el ? f->off_preempt : el;
			f->off_incl = f->off_incl < el ? f->off_incl : el;
			f->nested_preempt = f->nested_preempt < el ? f->nested_preempt : el;
			f->kernel = 0;
		}
		if (f->tk) {
			f->p = p;
			f->tk = tk;
		} else {
			f->p = pfrom;           /* a Wait: the clock itself */
		}
	}
	if (ended && ended->rec && now > from) {
		uint64_t b = t->perf.last_blocked < now - from ? t->perf.last_blocked : now - from;
		ended->rec->count++;
		sc_rec_book(ended->rec, from, now - from, now - from, 1, 0);
		ended->rec->wblocked += b;
		ended->rec->rblocked += b;
		if (t->sp > t->sp_base)
			(t->sp - 1)->child += now - from;
	}
	struct sc_thr_header *h = t->hdr;
	h->start_tsc = from;
	h->start_p = pfrom;
	h->paused_ticks = h->paused_p = 0;
	h->off_untimed = h->off_p = 0;
	h->cpu_start_ns = sc_thread_cpu_ns(0);
	sc_perf_reset(t, from);
	__atomic_store_n(&h->ctl_seq, seq, __ATOMIC_RELEASE);
	reset_ended(seq);
}

static void reset_self(uint64_t seq, const ucontext_t *uc)
{
	struct sc_thread *t = sc_tls_thread;
	if (!t || t == &sc_idle_thread || !t->hdr || t->hdr->end_tsc)
		return;
	if (t->hdr->ctl_seq >= seq)
		return;                         /* asked twice */
	if (t->busy || sc_lock_held() || sc_leaf_held() || !uc || in_runtime(uc))
		return;                         /* not now: ctl asks again */
	uint64_t now = sc_rdtsc();
	reset_thread(t, seq, now, clock_now(now), now, NULL);
}

/*
 * Threads scaler ctl left a reset for while they slept (ctl_want): their
 * next timed return carries it out (sc_control_recal), which the deadline
 * of their next re-measure makes sure of. Only their own code writes that
 * deadline, and it is asleep.
 */
static void poke_sleepers(const struct sc_thread *self)
{
	for (struct sc_thread *u = sc_thread_first(); u; u = u->all_next) {
		struct sc_thr_header *h = u->hdr;
		if (u != self && h && !h->end_tsc &&
		    __atomic_load_n(&h->ctl_want, __ATOMIC_ACQUIRE) > h->ctl_seq)
			__atomic_store_n(&u->recal_at, 0, __ATOMIC_RELAXED);
	}
}

/*
 * From sc_recalibrate, at a timed return of t that has just been booked
 * and popped (its frame is still at t->sp): a reset scaler ctl asked for
 * while t slept (ctl_want) is carried out, from the moment it was asked.
 */
void sc_control_recal(struct sc_thread *t, uint64_t now)
{
	struct sc_thr_header *h = t->hdr;
	uint64_t seq = h ? __atomic_load_n(&h->ctl_want, __ATOMIC_ACQUIRE) : 0;
	if (!seq || seq <= h->ctl_seq || t->busy)
		return;
	uint64_t from = h->ctl_want_tsc && h->ctl_want_tsc < now ? h->ctl_want_tsc : now;
	const struct sc_frame *ended = t->sp < t->sp_end ? t->sp : NULL;
	reset_thread(t, seq, from, clock_now(now), now, ended);
}

/* ---- the signal -------------------------------------------------------- */


static void on_control(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	uint64_t v = si && si->si_code == SI_QUEUE ? (uint64_t)(uintptr_t)si->si_value.sival_ptr : 0;
	if (v >> 48 == CTL_MAGIC) {
		uint32_t what = (uint32_t)(v >> 40) & 0xff;
		uint64_t seq = v & CTL_SEQ_MASK;
		if (what == CTL_RESET) {
			reset_self(seq, uc);
			poke_sleepers(sc_tls_thread);
		} else if (what == CTL_PAUSE || what == CTL_RESUME) {
			__atomic_store_n(&want, (uint64_t)what << 48 | seq, __ATOMIC_SEQ_CST);
			__atomic_store_n(&sc_control_due, 1, __ATOMIC_SEQ_CST);
			sc_control_run();
		}
	} else if (sig == ctl_sig && user_sig) {
		__atomic_add_fetch(&toggles, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&sc_control_due, 1, __ATOMIC_SEQ_CST);
		sc_control_run();
	}
	errno = saved;
}

bool sc_control_handler(void *h)
{
	return h == (void *)on_control;
}

/* SCALER_PAUSED=1: the image starts paused, before its first patching. */
void sc_control_init(void)
{
	const char *p = sc_getenv("SCALER_PAUSED");
	if (p && !strcmp(p, "1")) {
		sc_paused = true;
		pause_tsc = sc_rdtsc();
		pause_p = clock_now(pause_tsc);
	}
	const char *s = sc_getenv("SCALER_CONTROL_SIGNAL");
	char *end;
	long n = s && s[0] ? strtol(s, &end, 10) : 0;
	if (n > 0 && n <= SIGRTMAX && !*end && n != SIGKILL && n != SIGSTOP) {
		ctl_sig = (int)n;
		user_sig = true;
	} else {
		ctl_sig = SIGRTMAX - 1;
	}
}

/* What a new metadata stream says first: the signal, and a pause in
 * force (--paused, or a fork child of a paused process). */
static void note_state(void)
{
	sc_leaf_lock();
	if (ctl_sig)
		note(SC_CTL_LISTEN, 0, sc_rdtsc());
	if (sc_paused)
		note(SC_CTL_PAUSE, 0, pause_tsc);
	sc_leaf_unlock();
}

void sc_control_after_fork(void)
{
	note_state();
}

/* Installs the handler (the default signal only if the program has left
 * it alone) and says so in the meta stream; the pause --paused began. */
void sc_control_listen(void)
{
	struct sc_object *self = sc_object_of((uintptr_t)sc_control_init);
	if (self) {
		self_lo = self->lo;
		self_hi = self->hi;
	}
	struct sigaction old, sa;
	if (sigaction(ctl_sig, NULL, &old) != 0 ||
	    (!user_sig && (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))) ||
	    !self_hi) {
		ctl_sig = 0;
	} else {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_control;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
		sigfillset(&sa.sa_mask);
		if (sigaction(ctl_sig, &sa, NULL) != 0)
			ctl_sig = 0;
	}
	note_state();
}
