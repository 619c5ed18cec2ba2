/*
 * calib.c - what timing a call costs, measured so that it can be taken off
 * every timed call.
 *
 * A timed call's measured interval (entry rdtsc to return rdtsc) holds
 * some of the interceptor's own work besides the API's, and a timed call
 * nested in another adds all of its timing to its caller's interval. That
 * cost, counted in TSC ticks, is not a constant: it moves with the speed
 * the CPU runs at (frequency steps, a busy SMT sibling, the neighbours of
 * a virtual machine), from one start to the next and within one run, by
 * more than a short call lasts: a single start-up figure subtracted from
 * every call would be far off on short calls.
 *
 * So it is measured twice over:
 *  - at start-up, 9 batches of 128 calls each on a scratch thread state:
 *    the figures every thread starts with (sc_cal0). Kept small: every
 *    process pays it, however short, for a figure the first
 *    re-measurements replace soon anyway. An image exec'd by a profiled
 *    one starts with its parent's figures in force instead (inherit.c);
 *  - on each thread that makes timed calls, every SC_RECAL_MS, from the
 *    return trampoline (trampoline.S, .Lrecal): one batch of 32 calls each,
 *    on the thread itself, and the figures in force are the medians of
 *    its last three measurements (one measurement hit by an interrupt
 *    cannot move them).
 *
 * They are taken off at run time, not by the reader: a timed call's entry
 * moves its frame's start on by the thread's hot or cold figure (intercept.S),
 * and each timed return moves its timed caller's start on by the nested
 * figure. What a call books is then its own time, clamped at 0, and its
 * histogram bucket and maximum are its own as well.
 *
 * One measurement (measure()), on a function of known length rather than
 * an empty one: rdtsc does not wait for the instructions before it, so the
 * interceptor's work around the two reads partly overlaps the function's
 * own. An empty function shows all of it; a function that does some work
 * hides part of it, so subtracting the empty function's figure from every
 * call would take too much from real calls. So
 *     work   = plain call of sc_calib_work - plain call of sc_calib_nop
 *     hot    = timed sc_calib_work, inside the interval, each call timed
 *              right after the previous one - work
 *     cold   = the same, each timed call after CALIB_GAP counted ones, as
 *              adaptive timing samples a call (its timed path then runs
 *              with cold branches and lines, and reads the TSC after an
 *              lfence, intercept.S) - work
 *     nested = timed call of sc_calib_nop from outside - plain call
 *              - what that call booked itself (its interval less hot),
 *              which its caller loses with the callee's time already
 *     own_in, own_out = what hot and nested come out more on the way a
 *              call from a patched function's own object takes (fnown.S,
 *              entered as a patched entry enters it: calib.S's
 *              sc_calib_own), which keeps every register: an import's
 *              figures left ~3 ns of it in each such call (gzip's
 *              send_bits, 3 ns a call, came out twice perf's share);
 *              and both more by what an empty function still books on
 *              that path (measured cold in adaptive mode), which the
 *              work function hides and real short functions do not
 * The calls are independent (argument i, results summed), as in a loop
 * over a library call; chained through their results they would overlap
 * less and the figure would come out low. Which calls are timed is forced
 * through the record's countdown and span, so the mode's settings (and
 * other threads) are never touched.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

_Static_assert(offsetof(struct sc_thread, cal.hot) == TH_OVH_HOT, "TH_OVH_HOT");
_Static_assert(offsetof(struct sc_thread, cal.cold) == TH_OVH_COLD, "TH_OVH_COLD");
_Static_assert(offsetof(struct sc_thread, cal.nested) == TH_NESTED, "TH_NESTED");
_Static_assert(offsetof(struct sc_thread, cal.own_in) == TH_OWN_IN, "TH_OWN_IN");
_Static_assert(offsetof(struct sc_thread, cal.own_out) == TH_OWN_OUT, "TH_OWN_OUT");
_Static_assert(offsetof(struct sc_thread, recal_at) == TH_RECAL, "TH_RECAL");
_Static_assert(offsetof(struct sc_thread, span_rng) == TH_RNG, "TH_RNG");

#define SC_RECAL_MS 10
#define CALIB_GAP 8             /* counted calls before a cold timed one */
#define START_BATCHES 9
#define START_CALLS 128
#define RECAL_CALLS 32
#define WARM_CALLS 8             /* a pass before measuring (measure()) */

SC_HIDDEN struct sc_calib sc_cal0;
static uint64_t recal_ticks = ~0ull;    /* ~0: no re-measuring */
static long nop_idx = -1, work_idx = -1;
/* calib.S's sc_calib_own: per thread, since every thread re-measures on
 * its own (measure()) and two at once must not swap each other's calls */
SC_HIDDEN __thread long sc_calib_own_idx __attribute__((tls_model("initial-exec")));

typedef unsigned long (*calib_fn)(unsigned long);

static calib_fn through(long idx)
{
	return (calib_fn)sc_entry_code((uint32_t)idx);
}

/*
 * Mean ticks of n calls of fn from outside. Before each call the record r
 * is set so that the call is timed if fn goes through its entry (for a
 * plain function r is a scratch record: the same stores either way).
 */
static uint64_t plain(calib_fn volatile fn, struct sc_rec *r, uint32_t n)
{
	unsigned long x = 3;
	uint64_t t0 = sc_rdtsc();
	for (uint32_t i = 0; i < n; i++) {
		r->countdown = 1;
		r->span = 1;
		x += fn(i | 1);
	}
	__asm__ volatile("" : : "r"(x));
	return (sc_rdtsc() - t0) / n;
}

/* Mean ticks inside the timed interval of n timed calls of fn (through
 * record r), each right after the previous one, or (cold) each after
 * CALIB_GAP counted calls of gap (fn itself through an entry, whose
 * countdown counts them; the plain function on the own object's path,
 * calib.S's sc_calib_own, which times every call it is given); ~0 if none
 * was timed (a full shadow stack). */
static uint64_t timed(calib_fn fn, calib_fn gap, struct sc_rec *r, uint32_t n, bool cold)
{
	unsigned long x = 3;
	r->timed = r->ticks = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (cold) {
			r->countdown = INT32_MAX;       /* counted only */
			for (uint32_t j = 0; j < CALIB_GAP; j++)
				x += gap(j | 1);
		}
		r->countdown = 1;                       /* this one is timed */
		r->span = cold ? CALIB_GAP + 1 : 1;
		x += fn(i | 1);
	}
	__asm__ volatile("" : : "r"(x));
	return r->timed ? r->ticks / r->timed : ~0ull;
}

/* One measurement of n calls each on thread t (whose figures in force
 * must be 0 meanwhile); false if the calls could not be timed. */
static bool measure(struct sc_thread *t, uint32_t n, bool cold, struct sc_calib *out)
{
	struct sc_rec scratch;
	struct sc_rec *rn = &t->recs[nop_idx], *rw = &t->recs[work_idx];
	/* A first pass, not kept: a re-measurement runs once per
	 * SC_RECAL_MS, with its code and branches gone cold meanwhile on a
	 * busy CPU; a mean over a few cold calls came out 4 times the
	 * nested figure of a warm one (300 ticks against 80), and every
	 * timed call moved its callers' starts on by that much (their
	 * self times fell to 0) */
	plain((calib_fn)sc_calib_nop, &scratch, WARM_CALLS);
	plain(through(nop_idx), rn, WARM_CALLS);
	plain(sc_calib_work, &scratch, WARM_CALLS);
	timed(through(work_idx), through(work_idx), rw, WARM_CALLS, cold);
	sc_calib_own_idx = nop_idx;
	plain(sc_calib_own, rn, WARM_CALLS);
	sc_calib_own_idx = work_idx;
	timed(sc_calib_own, sc_calib_own, rw, WARM_CALLS, false);
	rn->timed = rn->ticks = 0;
	/* the nop takes no argument; called as the work's type, it ignores it */
	uint64_t direct = plain((calib_fn)sc_calib_nop, &scratch, n);
	uint64_t outside = plain(through(nop_idx), rn, n);
	/* those calls were timed with the figures at 0: what they booked */
	uint64_t nop_in = rn->timed ? rn->ticks / rn->timed : 0;
	uint64_t w = plain(sc_calib_work, &scratch, n);
	uint64_t in_hot = timed(through(work_idx), NULL, rw, n, false);
	uint64_t in_cold = cold ? timed(through(work_idx), through(work_idx), rw, n, true) : in_hot;
	if (in_hot == ~0ull || in_cold == ~0ull || rn->timed == 0)
		return false;
	/* the same calls on the way a call from a function's own object
	 * takes (fnown.S): what it costs more, inside and outside */
	rn->timed = rn->ticks = 0;
	sc_calib_own_idx = nop_idx;
	uint64_t own_outside = plain(sc_calib_own, rn, n);
	uint64_t own_nop_in = rn->timed ? rn->ticks / rn->timed : 0;
	sc_calib_own_idx = work_idx;
	uint64_t own_in = timed(sc_calib_own, NULL, rw, n, false);
	/* and the empty function again, timed as the mode times most calls
	 * (a sampled call's path is cold: between two, calls of the plain
	 * function leave its branches and lines as the program's do); a
	 * quarter as many, each costs ~10 of the others (45 us more at
	 * start-up with n) */
	sc_calib_own_idx = nop_idx;
	uint64_t own_nop_cold = cold ? timed(sc_calib_own, (calib_fn)sc_calib_nop, rn, n / 4, true) :
				       own_nop_in;
	if (own_in == ~0ull || own_nop_cold == ~0ull)
		return false;
	w = w > direct ? w - direct : 0;
	out->hot = in_hot > w ? in_hot - w : 0;
	out->cold = in_cold > w ? in_cold - w : 0;
	out->own_in = own_in > in_hot ? own_in - in_hot : 0;
	/*
	 * What a timed caller loses beyond its callee's booked time. The
	 * nop's timed call costs its caller outside - direct, of which the
	 * nop itself booked nop_in less the hot figure (the part of the
	 * timing inside its interval that a call doing no work cannot hide):
	 * taking the whole cost off the caller as well would take that part
	 * twice, in the callee's time and in the nested figure, and move it
	 * from every timed caller to its short callees. Likewise on the own
	 * object's path, whose nop booked own_nop_in less hot and own_in.
	 */
	uint64_t b_imp = nop_in > out->hot ? nop_in - out->hot : 0;
	uint64_t b_own = own_nop_in > out->hot + out->own_in ? own_nop_in - out->hot - out->own_in : 0;
	uint64_t cost = outside > direct ? outside - direct : 0;
	uint64_t own_cost = own_outside > direct ? own_outside - direct : 0;
	out->nested = cost > b_imp ? cost - b_imp : 0;
	own_cost = own_cost > b_own ? own_cost - b_own : 0;
	out->own_out = own_cost > out->nested ? own_cost - out->nested : 0;
	/*
	 * On this path the empty function's figure is the one taken off:
	 * what it books beyond the work's figures (7-10 ticks, the floor) is
	 * no part of a real call's time either. The work function, a chain
	 * of dependent multiplies, hides it because the return's TSC read
	 * runs ahead of the chain's end; gzip's short functions (ct_tally,
	 * send_bits) hide none of it, and with the work's figures booked it
	 * on every call (doc/performance.md). The floor moves from the
	 * call's time to what its timed caller's start is moved on by.
	 */
	uint64_t off = (cold ? out->cold : out->hot) + out->own_in;
	uint64_t floor = own_nop_cold > off ? own_nop_cold - off : 0;
	out->own_in += floor;
	out->own_out += floor;
	return true;
}

static uint64_t median3(uint64_t a, uint64_t b, uint64_t c)
{
	if (a > b) {
		uint64_t x = a;
		a = b;
		b = x;
	}
	return c < a ? a : c > b ? b : c;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* the figure a report shows: the one taken off most timed calls */
static uint64_t shown(const struct sc_calib *c)
{
	return sc_timing_mode == SC_TIMING_ADAPTIVE ? c->cold : c->hot;
}

static void note(struct sc_thread *t)
{
	struct sc_thr_header *h = t->hdr;
	uint64_t v = shown(&t->cal);
	if (!h)
		return;
	h->ovh_sum += v;
	if (!h->ovh_n || v < h->ovh_min)
		h->ovh_min = v;
	if (v > h->ovh_max)
		h->ovh_max = v;
	h->ovh_n++;
}

/* `none` times nothing worth re-measuring for. SCALER_RECAL=N sets the
 * interval to N us (tests: 1, on nearly every timed return), 0 keeps the
 * start-up figures (to compare, bench/accuracy.sh). */
static void set_recal(uint64_t tsc_hz)
{
	const char *e = sc_getenv("SCALER_RECAL");
	uint64_t us = e && *e ? sc_get_u64(e, NULL) : SC_RECAL_MS * 1000;
	if (sc_timing_mode != SC_TIMING_NONE && us)
		recal_ticks = tsc_hz / 1000000 * us;
}

/*
 * Start-up: the median of START_BATCHES measurements, on a scratch thread
 * state with private entries (sc_calib_nop and sc_calib_work, never bound
 * to an import, so no report ever shows them). Each batch measures
 * everything once, back to back: on a shared machine the speed drifts,
 * and a minimum taken of each quantity separately could pair a fast
 * moment of one with a slow one of the other. With given figures (handed
 * down by the parent image, inherit.c) only the entries are made, for the
 * re-measurements. Returns what a report shows (the meta header keeps it);
 * 0 if nothing could be measured.
 */
uint64_t sc_calibrate_start(uint64_t tsc_hz, const struct sc_calib *given)
{
	/* on an edge of their own: timed as calls on edges are */
	nop_idx = sc_entry_new((void *)sc_calib_nop, 0, SC_EDGE_ALONE);
	work_idx = sc_entry_new((void *)sc_calib_work, 0, SC_EDGE_ALONE);
	if (nop_idx < 0 || work_idx < 0)
		return 0;
	if (given) {
		sc_cal0 = *given;
		set_recal(tsc_hz);
		return shown(&sc_cal0);
	}
	/* the state and its records, one mapping (a system call less at
	 * each way) */
	size_t nrec = (size_t)work_idx + 1;
	size_t at = (sizeof(struct sc_thread) + 63) / 64 * 64;
	size_t len = at + nrec * sizeof(struct sc_rec);
	struct sc_thread *t = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);
	if (t == MAP_FAILED)
		return 0;
	t->recs = (struct sc_rec *)((char *)t + at);
	t->cap = t->real_cap = nrec;
	t->sp = t->sp_base = t->frames;
	t->sp_end = t->frames + SC_FRAMES;
	t->recal_at = ~0ull;
	uint64_t last;                          /* scratch */
	t->last_tsc = &last;
	sc_thread_set_current(t);
	uint64_t hot[START_BATCHES], cold[START_BATCHES], nested[START_BATCHES];
	uint64_t own_in[START_BATCHES], own_out[START_BATCHES];
	int n = 0;
	for (int b = 0; b < START_BATCHES; b++) {
		struct sc_calib m;
		if (measure(t, START_CALLS, sc_timing_mode == SC_TIMING_ADAPTIVE, &m)) {
			hot[n] = m.hot;
			cold[n] = m.cold;
			nested[n] = m.nested;
			own_in[n] = m.own_in;
			own_out[n] = m.own_out;
			n++;
		}
	}
	sc_thread_set_current(NULL);
	munmap(t, len);
	if (!n)
		return 0;
	sc_rt_sort(hot, (size_t)n, sizeof(hot[0]), cmp_u64);
	sc_rt_sort(cold, (size_t)n, sizeof(cold[0]), cmp_u64);
	sc_rt_sort(nested, (size_t)n, sizeof(nested[0]), cmp_u64);
	sc_rt_sort(own_in, (size_t)n, sizeof(own_in[0]), cmp_u64);
	sc_rt_sort(own_out, (size_t)n, sizeof(own_out[0]), cmp_u64);
	sc_cal0 = (struct sc_calib){hot[n / 2], cold[n / 2], nested[n / 2], own_in[n / 2],
				    own_out[n / 2]};
	set_recal(tsc_hz);
	return shown(&sc_cal0);
}

/* The figures in force on the calling thread (the start-up ones if it has
 * none); what an exec hands down. Reads only: runs in vfork children. */
struct sc_calib sc_calib_in_force(void)
{
	struct sc_thread *t = sc_tls_thread;
	return t && t != &sc_idle_thread ? t->cal : sc_cal0;
}

/* A new thread starts with the start-up figures. */
void sc_calib_thread_init(struct sc_thread *t)
{
	t->cal = sc_cal0;
	for (int i = 0; i < 3; i++)
		t->cal_last[i] = sc_cal0;
	t->cal_n = 0;
	t->recal_at = recal_ticks == ~0ull ? ~0ull : sc_rdtsc() + recal_ticks;
	note(t);
}

/*
 * From the return trampoline, when a timed call of thread t returned at
 * TSC `now` past t->recal_at (the call is booked and its frame popped;
 * every register the program can see is saved). Measures on t itself,
 * through the private entries: their records and the top frame (which
 * the measuring calls charge as their timed caller) are put back as they
 * were, and every call still in flight on t is given the time this took,
 * as its timing cost is given back to a timed caller.
 */
void sc_recalibrate(struct sc_thread *t, uint64_t now)
{
	sc_control_recal(t, now);               /* a reset asked while asleep */
	t->recal_at = ~0ull;                    /* its own timed calls */
	if (recal_ticks == ~0ull)
		return;                         /* only the reset (control.c) */
	struct sc_frame *top = t->sp > t->sp_base ? t->sp - 1 : NULL;
	if (t->busy || (uint64_t)work_idx >= t->cap || nop_idx < 0 ||
	    t->sp + 1 >= t->sp_end) {
		t->recal_at = now + recal_ticks;
		return;
	}
	struct sc_rec keep_n = t->recs[nop_idx], keep_w = t->recs[work_idx];
	struct sc_frame keep_top;
	if (top)
		keep_top = *top;
	struct sc_calib in_force = t->cal, m;
	t->cal = (struct sc_calib){0, 0, 0, 0, 0};
	/* the kernel's records wait until after: reading them (perf.c) is
	 * no part of what timing a call costs */
	struct perf_event_mmap_page *ring = t->ring;
	t->ring = NULL;
	uint64_t head = ring ? __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE) : 0;
	bool ok = measure(t, RECAL_CALLS, sc_timing_mode == SC_TIMING_ADAPTIVE, &m);
	/* a measurement the thread was switched out in (the kernel wrote
	 * to its ring meanwhile) holds that gap in a mean of 32 calls, ms
	 * over tens of us: not kept (median3 hides one such, not two) */
	if (ring && __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE) != head)
		ok = false;
	t->ring = ring;
	t->recs[nop_idx] = keep_n;
	t->recs[work_idx] = keep_w;
	if (top)
		*top = keep_top;
	if (ok) {
		struct sc_calib *l = t->cal_last;
		l[t->cal_n++ % 3] = m;
		t->cal.hot = median3(l[0].hot, l[1].hot, l[2].hot);
		t->cal.cold = median3(l[0].cold, l[1].cold, l[2].cold);
		t->cal.nested = median3(l[0].nested, l[1].nested, l[2].nested);
		t->cal.own_in = median3(l[0].own_in, l[1].own_in, l[2].own_in);
		t->cal.own_out = median3(l[0].own_out, l[1].own_out, l[2].own_out);
		note(t);
	} else {
		t->cal = in_force;
	}
	uint64_t end = sc_rdtsc(), d = end - now;
	t->perf.quiet_from = now;       /* perf.c: no call's time */
	t->perf.quiet_to = end;
	for (struct sc_frame *f = t->sp_base; f < t->sp; f++) {
		f->tsc += d;
		if (f->trec) {
			f->ttsc += d;
			f->ttsc2 += d;
		}
	}
	t->recal_at = end + recal_ticks;
}
