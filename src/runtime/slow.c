/*
 * slow.c - the C half of the interceptor: what the assembly calls when the
 * counted path cannot finish on its own. Everything an API could receive
 * has been saved by the assembly; these functions may use any registers
 * and call libc.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

/*
 * Before an unwinder walks this thread's stack (a C++ exception, a forced
 * unwind), put back the real return address of every timed call in flight,
 * or the unwinder would meet the trampoline and stop. Only slots above the
 * current stack pointer that still hold the trampoline are live; anything
 * else is a frame a longjmp already abandoned. The calls keep their counts
 * and lose only their timing.
 */
static void give_back(const struct sc_frame *f)
{
	*(uint64_t *)f->slot = f->ret;
	/* a Wait left without returning: the thread runs again */
	if (f->tk == 0)
		sc_pclock_step(1, sc_rdtsc());
}

void sc_unwind_prepare(struct sc_thread *t, uintptr_t rsp)
{
	for (struct sc_frame *f = t->sp; f-- > t->sp_base;) {
		uint64_t *slot = (uint64_t *)f->slot;
		if (f->slot >= rsp && sc_is_return_point(*slot))
			give_back(f);
	}
	t->sp = t->sp_base;
}

/* Keeps a dropped frame in the thread's grave (see sc_thread.grave). */
static void bury(struct sc_thread *t, const struct sc_frame *f)
{
	t->grave[t->grave_next++ % SC_GRAVE] = *f;
}

/*
 * Drops abandoned frames from the top of the shadow stack: frames at or
 * below the return slot of the call now being made whose slot no longer
 * holds the trampoline (the stack was reused after a longjmp). A frame
 * whose slot still holds the trampoline may be live (a handler running on
 * a sigaltstack above the interrupted code) and is kept. Returns true once
 * the top frame is above slot (or the stack is empty).
 */
static bool drop_dead(struct sc_thread *t, uintptr_t slot)
{
	while (t->sp > t->sp_base) {
		struct sc_frame *top = t->sp - 1;
		if (top->slot > slot)
			return true;
		if (sc_is_return_point(*(const uint64_t *)top->slot))
			return false;
		bury(t, top);
		t->sp = top;
	}
	return true;
}

long sc_slow(uint64_t idx, int reason, void **entry_rsp);
SC_HIDDEN long sc_slow(uint64_t idx, int reason, void **entry_rsp)
{
	struct sc_thread *t = sc_tls_thread;
	switch (reason) {
	case SLOW_NOTHREAD:
		if (!sc_active)
			return SLOW_BYPASS;
		t = sc_thread_get();
		return t ? SLOW_REDISPATCH : SLOW_BYPASS;
	case SLOW_NOREC:
		if (!t || t == &sc_idle_thread || t->busy || !sc_active)
			return SLOW_BYPASS;
		if (idx < sc_entry_count() && sc_thread_grow(t) == 0 && idx < t->cap)
			return SLOW_REDISPATCH;
		return SLOW_BYPASS;
	case SLOW_STALE:
		/* counted already: undo, so that running the interceptor again
		 * after dropping dead frames counts the call once */
		if (t && t != &sc_idle_thread && idx < t->cap && drop_dead(t, (uintptr_t)entry_rsp)) {
			t->recs[idx].count--;
			t->recs[idx].countdown++;
			return SLOW_REDISPATCH;
		}
		return SLOW_UNTIMED;
	case SLOW_TAIL:
		/* the timed call that jumped here gives its real return address
		 * back (keeping its count, losing its time) */
		if (t && t != &sc_idle_thread)
			for (struct sc_frame *f = t->sp; f-- > t->sp_base;)
				if (f->slot == (uintptr_t)entry_rsp) {
					give_back(f);
					t->sp = f;
					break;
				}
		return SLOW_UNTIMED;
	case SLOW_BIND:
		/*
		 * The first call through an import. Not from runtime code
		 * (busy, or holding a lock), nor from a signal handler that
		 * interrupted this thread holding one (the tables are half
		 * written): the call goes on unseen and the next one binds
		 * (sc_hook_pass; a call of an import bound already, sent by
		 * sc_pend_budget, still reaches its entry). Paused, it goes
		 * on unbound and unseen (pause.c).
		 */
		if (__atomic_load_n(&sc_paused, __ATOMIC_RELAXED))
			return (long)sc_pause_target((uint32_t)idx);
		if (!sc_active || sc_lock_held() || sc_leaf_held() ||
		    (t && t != &sc_idle_thread && t->busy))
			return (long)sc_hook_pass((uint32_t)idx);
		/* a raw fork's child binds in its own state (rawfork.c):
		 * its entry index and SC_M_BIND are not its parent's */
		sc_rawfork_adopt();
		return (long)sc_hook_bind((uint32_t)idx);
	case SLOW_FUNC:
		sc_rawfork_adopt();     /* may make an entry, as SLOW_BIND */
		return (long)sc_fn_caller_code((uint32_t)idx, *(const uintptr_t *)entry_rsp);
	case SLOW_UNWIND:
		if (t && t != &sc_idle_thread)
			sc_unwind_prepare(t, (uintptr_t)entry_rsp);
		return SLOW_UNTIMED;
	default:
		return SLOW_BYPASS;
	}
}

/*
 * The last resort of sc_ret_lookup: no live or buried frame has this
 * slot, because the stack was emptied without burying (an end of the image
 * that booked the calls in flight) or more than SC_GRAVE frames were
 * buried since. The frames past the top are still in memory unless a
 * later call reused them, and the newest one with this slot (by its entry
 * TSC) is the call that put the trampoline there, since a slot holds one
 * return address at a time. It is made the top again, with the frames
 * below it, booked in no file (sc_inherited_rec: what it counted is
 * unknown), and the program goes on; said once. With no such frame there
 * is no address to return to at all: the only way on is to stop as a
 * crash would.
 */
static struct sc_frame *lost_frame(struct sc_thread *t, uint64_t slot)
{
	static int said;
	struct sc_frame *best = NULL;
	for (struct sc_frame *f = t->sp; f < t->sp_end; f++)
		if (f->slot == slot && (!best || f->t0 > best->t0))
			best = f;
	if (!best) {
		sc_warn("lost the return address of a timed call (slot %#lx)",
			(unsigned long)slot);
		abort();
	}
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		sc_warn("a timed call returned without its frame; its time is not booked");
	best->rec = &sc_inherited_rec;
	best->trec = NULL;
	best->pend = 0;
	t->sp = best + 1;
	return best;
}

/*
 * The return trampoline found a top frame that is not its own. Either the
 * frames above ours were abandoned (longjmp out of a timed call, a vfork
 * child that exec'd) or they belong to another coroutine sharing this
 * thread (swapcontext), which may still return through them. Ours is
 * found by its stack slot; the frames above it are dropped but buried, and
 * a return that finds no live frame looks in the grave. The frame is
 * handed back on top of the stack, which the trampoline then pops.
 */
struct sc_frame *sc_ret_lookup(uint64_t slot);
SC_HIDDEN struct sc_frame *sc_ret_lookup(uint64_t slot)
{
	struct sc_thread *t = sc_tls_thread;
	for (struct sc_frame *f = t->sp; f-- > t->sp_base;) {
		if (f->slot == slot) {
			for (struct sc_frame *d = f + 1; d < t->sp; d++)
				bury(t, d);
			t->sp = f + 1;
			return f;
		}
	}
	uint32_t n = t->grave_next < SC_GRAVE ? t->grave_next : SC_GRAVE;
	for (uint32_t k = 1; k <= n; k++) {
		struct sc_frame *g = &t->grave[(t->grave_next - k) % SC_GRAVE];
		if (g->slot == slot && t->sp < t->sp_end) {
			*t->sp = *g;
			g->slot = 0;
			g->child = 0;
			return t->sp++;
		}
	}
	return lost_frame(t, slot);
}

/*
 * Books one timed call of t ticks from TSC `start` (self of them its own,
 * pticks its share of the parallel clock) standing for w calls, as the
 * return trampoline does in trampoline.S: for the calls C code times (a
 * tail call, a call still in flight at the end).
 */
void sc_rec_book(struct sc_rec *r, uint64_t start, uint64_t t, uint64_t self, uint64_t w,
		 uint64_t pticks)
{
	r->timed++;
	r->ticks += t;
	r->wticks += t * w;
	r->wcount += w;
	r->self_ticks += self;
	if (t > r->max_ticks) {
		r->max_ticks = t;
		r->max_tsc = start;
	}
	if (t >= sc_block_ticks)
		r->wblock += t * w;
	r->wpticks += pticks * w;
	int b = 63 - __builtin_clzll((t >> SC_REC_HIST_LOG2_MIN) | 1);
	if (b >= SC_REC_HIST)
		b = SC_REC_HIST - 1;
	r->hist[b] = r->hist[b] + w < r->hist[b] ? UINT32_MAX : r->hist[b] + (uint32_t)w;
}

/* The edge key of record r of thread t (0: none, or not one of t's). */
static uint32_t rec_edge(const struct sc_thread *t, const struct sc_rec *r)
{
	uint64_t idx = (uint64_t)((uintptr_t)r - (uintptr_t)t->recs) / sizeof(*r);
	return idx < SC_MAX_ENTRIES ? sc_entry_table[idx].edge : 0;
}

void sc_same_edge_credit(struct sc_thread *t, struct sc_frame *above, const struct sc_rec *r,
			 uint64_t ticks)
{
	uint32_t key = rec_edge(t, r);
	if (!key)
		return;
	for (struct sc_frame *f = above; f-- > t->sp_base;)
		if (f->rec && rec_edge(t, f->rec) == key) {
			f->rec->dup_ticks += ticks;
			return;
		}
}

/*
 * The period after a cheap timed call of r, as trampoline.S works it out:
 * 2p+1 while p * mean is below sc_period_budget, then p, or p/2 while the
 * half still meets it (unsigned __int128: no product can wrap), the mean
 * leaving out the time preempted; at most SC_PERIOD_LONG while most of
 * r's time is in long calls, and they hold more a call than the cap costs
 * one (trampoline.S).
 */
static uint32_t next_period(const struct sc_rec *r)
{
	unsigned __int128 budget = (unsigned __int128)sc_period_budget * r->wcount;
	uint64_t on = r->wticks > r->wpreempt ? r->wticks - r->wpreempt : 0;
	uint32_t p = r->period;
	if ((unsigned __int128)p * on < budget)
		p = 2 * p + 1;
	else if ((unsigned __int128)(p >> 1) * on >= budget)
		p >>= 1;
	if (p > SC_PERIOD_LONG && r->wblock > r->wpreempt && on > 0 &&
	    r->wblock - r->wpreempt > on / 2 &&
	    r->wblock - r->wpreempt > (uint64_t)(budget >> 9))
		p = SC_PERIOD_LONG;
	return p;
}

/*
 * Books API r, reached by a tail jump at TSC ttsc from the timed call of
 * frame f, returning now: a timed call of r chosen by its own sampling
 * (the jump found its countdown run out), booked like the trampoline
 * books one: weighted by its period, with `share` of the parallel clock
 * per tick, child (ticks of a call it tail-called in turn) off its self
 * time, and the next span drawn. Returns its estimate (ticks x weight),
 * which the call it lies in loses from its exclusive time.
 */
static uint64_t book_tail(struct sc_frame *f, struct sc_rec *r, uint64_t ttsc, uint64_t now,
			  long double share, uint64_t child)
{
	/* the tail's interval holds the interceptor's cost of a timed call
	 * too (calib.c): taken off as from any timed call */
	uint64_t t0 = ttsc + sc_tls_thread->cal.hot;
	uint64_t t = now > t0 ? now - t0 : 0;
	uint64_t w = r->period ? r->period : 1;

	sc_rec_book(r, t0, t, t - child, w, (uint64_t)((long double)t * share));
	sc_same_edge_credit(sc_tls_thread, f + 1, r, t * w);

	/* the next span, as trampoline.S draws it */
	uint32_t per = t > sc_slow_ticks ? 1 : next_period(r);
	if (per > sc_period_max)
		per = sc_period_max;
	if (per < sc_period_min)
		per = sc_period_min;
	r->period = per;
	r->span = sc_span_draw(per, &sc_tls_thread->span_rng);
	r->countdown = (int32_t)r->span;
	return t * w;
}

/*
 * The timed call of frame f tail-called the API of f->trec at TSC
 * f->ttsc (and that one the API of f->trec2 at f->ttsc2, if set), and it
 * has now returned (to f's caller, through the trampoline). Each is
 * booked (book_tail); the first holds the second, and f holds the first.
 *
 * Their share of the parallel clock is f's per tick, f's being what it
 * will book at its return: P's advance over f less the part of it that
 * passed while the thread was off the CPU (in proportion to the off-CPU
 * time, as sc_perf_return cuts f's), so a tail's attributed time is never
 * more than the call it ended, whose component's attributed self time
 * would then be clamped to 0.
 */
void sc_tail_credit(struct sc_frame *f, uint64_t now)
{
	struct sc_rec *r = f->trec, *r2 = f->trec2;
	uint64_t el = now - f->tsc, off = sc_perf_off(f, now);
	uint64_t p = sc_pclock_step(0, now), pe = sc_pclock_entry(f);
	long double share = 0;

	f->trec = f->trec2 = NULL;
	if (off > el)
		off = el;
	if (el > 0 && p > pe)
		share = (long double)(p - pe) / (long double)el * (long double)(el - off) /
			(long double)el;
	if (!r2) {
		f->child += book_tail(f, r, f->ttsc, now, share, 0);
		return;
	}
	/* the second jump's timing (its TSC read and what led to it) lies
	 * in the first's interval and in f's, as a timed call's cost in its
	 * caller's: taken off both, f's start moved on like the
	 * trampoline's nested returns move it (and its caller's by as much) */
	uint64_t cost = sc_tls_thread->cal.hot;
	uint64_t in = book_tail(f, r2, f->ttsc2, now, share, 0);
	f->child += book_tail(f, r, f->ttsc + cost, now, share, in);
	f->tsc += cost;
	f->moved += cost;
}
