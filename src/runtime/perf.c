/*
 * perf.c - what the kernel tells of each thread: when it left the CPU and
 * why (context switches), and with `scaler record --kernel` where its time
 * in the kernel went (kernel stacks sampled on its CPU time); both given
 * to the timed calls they happened in.
 *
 * Each thread opens one perf event for itself (pid 0, cpu -1), when it
 * first leaves the CPU inside a timed call or after a few timed returns
 * (below, "before the ring": until then it measures from its own CPU
 * clock), or at its start with --kernel: a dummy
 * software event with context_switch (allowed unprivileged while
 * perf_event_paranoid <= 2: user-space events only), or with --kernel a
 * cpu-clock event that also samples, excluding user space, with kernel
 * callchains (paranoid <= 1, CAP_PERFMON or root; else the dummy event).
 * Its ring is mapped and the descriptor closed at once: the mapping keeps
 * the event alive, so no thread holds a descriptor of ours, and a fork
 * child inherits neither (perf mappings are not copied). Timestamps are
 * CLOCK_MONOTONIC (use_clockid), turned into TSC ticks against a fresh
 * (TSC, CLOCK_MONOTONIC) pair at each read: the records read are recent,
 * so the error of the rate is that of a fraction of the call.
 *
 * The ring is read on timed returns only (trampoline.S, .Lret_ring), never
 * on the counted path: when the kernel wrote something since the last
 * look, sc_perf_return hands each record to the innermost timed call in
 * flight at the record's time (frames know their start TSC). A switch-out
 * and the next switch-in make a gap off-CPU, blocked or, when the kernel
 * marks the switch-out as a preemption, preempted; a kernel sample is one
 * period of kernel time. A call keeps its figures in its frame until its
 * own return, which books them weighted by its period as the trampoline
 * weights its ticks, so the reader's count/wcount scaling applies.
 * Calls never timed carry none: their share is the estimator's.
 *
 * With --kernel, where `scaler record` could open per-CPU events (root,
 * CAP_PERFMON, perf_event_paranoid <= 0), a thread opens only the dummy
 * event, with the CPU in its switch records, and takes its kernel samples
 * from the recorder's per-CPU rings (kcpu.c) at each timed return: a
 * per-thread cpu-clock event restarts its timer at every context switch,
 * which costs a server that blocks between requests more than all else.
 * Attribution is the same either way: each sample to the innermost timed
 * call in flight at its time.
 *
 * Failure anywhere (EACCES, EMFILE, out of locked memory) leaves the
 * thread without a measurement (SC_PERF_NONE in its header), never fatal.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pidstart.h"
#include "runtime.h"

/* Kernel samples: one per 4 ms of CPU time (250 Hz), a multiple of the
 * kernel's tick at HZ 250 or 1000, which the per-CPU events' timers ride
 * on (record_kcpu.c): in a VM a timer interrupt of their own costs ~20 us
 * of the guest's CPU, so 4 kHz alone cost a busy thread 6-8 %, 1 kHz a
 * server ~4 % (doc/performance.md) */
#define KERNEL_PERIOD_NS 4000000u
#define MAX_STACK 32
/* Ring data pages: switch records are 16 bytes; samples ~300 */
#define SWITCH_PAGES 2
#define KERNEL_PAGES 16
/* distinct (entry, kernel stack) pairs kept per thread */
#define KST_SLOTS 1024u
#define KST_PROBES 64u

static bool want_kernel;        /* SCALER_KERNEL=1 (record --kernel) */
/* SCALER_KERNEL_PERIOD_NS: another period, for measuring what the rate
 * costs (bench); 10 us to 1 s */
static uint32_t kernel_period_ns = KERNEL_PERIOD_NS;
static bool perf_off;           /* SCALER_PERF=off: tests of the fallback */
static bool perf_denied;        /* a switch event was refused (EACCES, ...) */
static uint64_t tsc_hz;

/*
 * The ring of a thread that has not opened its own yet (below, "before
 * the ring"): no kernel writes it, and its data_head (1) never equals the
 * thread's ring_tail (0), so the trampoline sends each of the thread's
 * timed returns to sc_perf_return (.Lret_ring), with no change to its
 * path for a thread that has a ring. Read-only: no code reads past its
 * head, writes its tail or unmaps it (lazy()).
 */
static const struct perf_event_mmap_page lazy_ring = {.data_head = 1};

static bool lazy(const struct sc_thread *t)
{
	return t->ring == &lazy_ring;
}

static bool lazy_start(struct sc_thread *t);
static uint64_t lazy_open_gap(const struct sc_thread *t, uint64_t now, uint64_t *at,
			      uint64_t *out_at, bool *preempt);

void sc_perf_init(uint64_t hz)
{
	const char *k = sc_getenv("SCALER_KERNEL"), *p = sc_getenv("SCALER_PERF");
	want_kernel = k && k[0] == '1';
	const char *kp = sc_getenv("SCALER_KERNEL_PERIOD_NS");
	uint64_t v = kp ? sc_get_u64(kp, NULL) : 0;
	if (v >= 10000 && v <= 1000000000)
		kernel_period_ns = (uint32_t)v;
	perf_off = p && !strcmp(p, "off");
	tsc_hz = hz;
	sc_offcpu_init();
	if (want_kernel && !perf_off)
		sc_kcpu_init();
}

/* kernel: a cpu-clock event sampling kernel stacks; else a dummy one,
 * with each switch record's CPU when cpu is set (kcpu.c) */
static int event_open(bool kernel, bool cpu)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	if (kernel) {
		a.config = PERF_COUNT_SW_CPU_CLOCK;
		a.sample_period = kernel_period_ns;
		a.exclude_user = 1;
		a.exclude_callchain_user = 1;
		a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
		a.sample_max_stack = MAX_STACK;
	} else {
		a.config = PERF_COUNT_SW_DUMMY;
		a.exclude_kernel = 1;
		a.sample_type = PERF_SAMPLE_TIME | (cpu ? PERF_SAMPLE_CPU : 0);
	}
	a.exclude_hv = 1;
	a.context_switch = 1;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The thread's kernel stack table, a file of its own (format.h). */
static void kst_open(struct sc_thread *t)
{
	char name[SC_NAME_MAX];
	bool created;
	size_t len = sizeof(struct sc_kst_header) + KST_SLOTS * sizeof(struct sc_kst_slot);
	sc_file_name(name, t->pid, t->gen, "-t", t->seq, ".kst");
	void *m = sc_file_map_new(name, len, &created);
	if (!m)
		return;
	struct sc_kst_header *h = m;
	h->version = SC_FORMAT_VERSION;
	h->nslots = KST_SLOTS;
	h->slot_size = sizeof(struct sc_kst_slot);
	h->period_ns = kernel_period_ns;
	memcpy(h->magic, SC_KST_MAGIC, 8);
	t->perf.kst = h;
	t->perf.kst_len = len;
}

/*
 * Maps event fd's ring and closes fd: a per-thread kernel sampler's (big)
 * of KERNEL_PAGES, or SWITCH_PAGES when locked memory is short, else
 * SWITCH_PAGES; its length in *len. MAP_FAILED if not even that.
 */
static void *ring_map(int fd, bool big, size_t *len)
{
	long page = SC_PAGE;
	*len = (size_t)page * (1 + (big ? KERNEL_PAGES : SWITCH_PAGES));
	void *m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED && big) {
		*len = (size_t)page * (1 + SWITCH_PAGES);
		m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	close(fd);
	return m;
}

/* The thread's ring, mapped: false if perf events are not to be had. */
static bool ring_open(struct sc_thread *t)
{
	uint8_t kind = SC_PERF_NONE;
	int fd = -1;
	bool kcpu = !perf_off && want_kernel && sc_kcpu_process() == 0;
	if (kcpu && (fd = event_open(false, sc_kcpu_switch_cpu())) >= 0)
		kind = SC_PERF_KERNEL;
	else if (!perf_off && want_kernel && (kcpu = false, fd = event_open(true, false)) >= 0)
		kind = SC_PERF_KERNEL;
	else if (!perf_off && (fd = event_open(false, false)) >= 0)
		kind = SC_PERF_SWITCHES;
	if (fd < 0) {
		/* refused, not short of something: so will every thread's be */
		if (!perf_off && errno != EMFILE && errno != ENFILE && errno != ENOMEM)
			perf_denied = true;
		return false;
	}
	size_t len;
	void *m = ring_map(fd, kind == SC_PERF_KERNEL && !kcpu, &len);
	if (m == MAP_FAILED)
		return false;
	if (kind == SC_PERF_KERNEL) {
		kst_open(t);
		sc_offcpu_thread_start(t);
	}
	t->perf.ring_len = len;
	t->perf.kind = kind;
	t->hdr->perf_kind = kind;
	t->hdr->perf_flags = SC_PERF_F_UNTIMED | SC_PERF_F_ONCPU;
	t->ring_tail = 0;
	t->perf.kcpu = kcpu;
	if (kcpu)
		sc_kcpu_thread_start(t);
	t->perf.anchor_tsc = sc_rdtsc();
	t->perf.anchor_ns = sc_clock_ns(CLOCK_MONOTONIC);
	t->ring = m;
	return true;
}

/*
 * Before a change of user (uids.c): the per-CPU rings are withdrawn
 * (kcpu.c), and the calling thread, while it still has the rights,
 * opens an event of its own sampling its kernel stacks in their place.
 * Other threads of the process take no kernel samples after the change
 * (doc/security.md). Records of the old ring not read yet are lost: at
 * most a context switch's gap in a call in flight.
 */
void sc_perf_uid_change(void)
{
	if (!sc_kcpu_drop())
		return;
	struct sc_thread *t = sc_tls_thread;
	if (!t || t == &sc_idle_thread || !t->perf.kcpu || !t->ring)
		return;
	int fd = event_open(true, false);
	size_t len;
	void *m = fd >= 0 ? ring_map(fd, true, &len) : MAP_FAILED;
	if (m == MAP_FAILED)
		return;
	/* a signal handler's timed return must not read a ring half changed */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	struct perf_event_mmap_page *r = t->ring;
	size_t rlen = t->perf.ring_len;
	t->ring = NULL;
	t->kring = NULL;
	t->perf.kcpu = false;
	t->perf.ring_len = len;
	t->ring_tail = 0;
	t->perf.anchor_tsc = sc_rdtsc();
	t->perf.anchor_ns = sc_mono_ns();
	t->ring = m;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	munmap(r, rlen);
}

/*
 * The clock hears whether this thread's preemptions are measured. A
 * thread starts without its ring (lazy_start) unless it samples kernel
 * stacks from its start (--kernel) or perf events were refused already.
 */
void sc_perf_thread_start(struct sc_thread *t)
{
	if (__atomic_load_n(&sc_sandboxed, __ATOMIC_ACQUIRE)) {
		sc_pclock_oncpu(false);
		return;
	}
	if (!perf_off && !want_kernel) {
		if (perf_denied || lazy_start(t)) {
			sc_pclock_oncpu(!perf_denied);
			return;
		}
	}
	sc_pclock_oncpu(ring_open(t));
}

void sc_perf_thread_end(struct sc_thread *t)
{
	struct perf_event_mmap_page *r = t->ring;
	bool own = !lazy(t);
	t->ring = NULL;
	t->kring = NULL;
	/* under a seccomp filter munmap may kill: the mappings stay */
	bool unmap = !__atomic_load_n(&sc_sandboxed, __ATOMIC_ACQUIRE);
	if (r && own && unmap)
		munmap(r, t->perf.ring_len);
	if (t->perf.kst && unmap)
		munmap(t->perf.kst, t->perf.kst_len);
	t->perf.kst = NULL;
	t->perf.ring_len = 0;
	sc_offcpu_thread_end(t);
}

void sc_perf_forget(struct sc_thread *t)
{
	t->ring = NULL;                 /* not mapped in a fork child */
	t->kring = NULL;
	if (t->perf.kst)
		munmap(t->perf.kst, t->perf.kst_len);   /* the parent's file */
	t->perf.kst = NULL;
	sc_offcpu_forget(t);
}

/* ---- reading the ring ----------------------------------------------- */

/*
 * The TSC at CLOCK_MONOTONIC time ns, interpolated between two (TSC,
 * CLOCK_MONOTONIC) pairs: the previous read of the ring (or the thread's
 * start) and this one, which bracket the records read now. A rate known
 * to 1e-4 would misplace a switch 100 ms old by 10 us, more than lies
 * between a call's start and its blocking; interpolating between pairs
 * read tens of ns apart misplaces it by about that much.
 */
struct anchors {
	uint64_t tsc0, ns0, tsc1, ns1;
};

static uint64_t ns_to_tsc(uint64_t ns, const struct anchors *a)
{
	if (a->ns1 <= a->ns0 || a->tsc1 <= a->tsc0) {
		uint64_t d = (uint64_t)((unsigned __int128)(a->ns1 > ns ? a->ns1 - ns : 0) * tsc_hz /
					1000000000u);
		return d < a->tsc1 ? a->tsc1 - d : 0;
	}
	long double r = (long double)(a->tsc1 - a->tsc0) / (long double)(a->ns1 - a->ns0);
	long double at = (long double)a->tsc0 + ((long double)ns - (long double)a->ns0) * r;
	return at <= 0 ? 0 : (uint64_t)at;
}

static uint64_t ns_ticks(uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * tsc_hz / 1000000000u);
}

/* The innermost timed call in flight at TSC `at`, or NULL: by the TSC
 * its entry read (t0). */
static struct sc_frame *frame_at(struct sc_thread *t, uint64_t at)
{
	for (struct sc_frame *g = t->sp; g-- > t->sp_base;)
		if (g->t0 <= at)
			return g;
	return NULL;
}

/*
 * `at`, or 0 (before any frame: no call's) when it lies in the runtime's
 * last stretch of its own work: the frames' starts were moved past that
 * time (sc_perf_return, sc_recalibrate), so it is in no call's elapsed
 * time, and the calls in flight would be given more time off the CPU
 * than they lasted (a preemption during a re-measurement, under load).
 */
static uint64_t quiet(const struct sc_thread *t, uint64_t at)
{
	return at >= t->perf.quiet_from && at <= t->perf.quiet_to ? 0 : at;
}

static void pend(struct sc_frame *g)
{
	if (!g->pend) {
		g->off_blocked = g->off_preempt = g->kernel = g->off_incl = 0;
		g->nested_preempt = 0;
		g->pend = 1;
	}
}

static void give(struct sc_frame *g, uint64_t blocked, uint64_t preempt, uint64_t kernel)
{
	pend(g);
	g->off_blocked += blocked;
	g->off_preempt += preempt;
	g->kernel += kernel;
}

/*
 * A gap off the CPU inside frame g, blocked or preempted: no part of the
 * parallel clock's share of g and of the calls around it, up to the first
 * Wait (whose share is taken off the calls around it whole, gap or not:
 * trampoline.S). Each keeps it in off_incl until its return
 * (sc_perf_return). A thread runs only on a CPU: with preempted gaps taken
 * off, k is capped at the process's CPUs (pclock.c), so that 4 threads on
 * 2 CPUs, each on a CPU half the span, are attributed a quarter of it
 * each, not an eighth.
 */
static void give_off(struct sc_thread *t, struct sc_frame *g, uint64_t gap)
{
	for (; g >= t->sp_base && g->tk; g--) {
		pend(g);
		g->off_incl += gap;
	}
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/*
 * One kernel stack (innermost first) of entry slot `entry` (index + 1,
 * or UINT32_MAX outside any timed call), counted w times in a thread's
 * table (its open addressing: format.h). Two threads may add to one
 * table at once: at the image's end the exiting thread books the stack of
 * a thread still blocked (sc_offcpu_open) while that thread may wake and
 * book its own (sc_offcpu_gap). So a free slot is claimed by its entry
 * before its stack is written, its depth after (a slot matches once its
 * depth is there), and counts are added atomically: a slot the other
 * thread is still writing does not match, and the same stack then takes
 * a second slot (the reader adds them up); its samples, added last, are
 * 0 until its stack is whole (the reader skips such a slot). The owner
 * alone, as it nearly always is, pays a locked add a sample.
 */
void sc_kst_add(struct sc_kst_header *h, uint32_t entry, const uint64_t *ip, uint32_t n, uint64_t w)
{
	struct sc_kst_slot *slots = (struct sc_kst_slot *)(h + 1);
	uint64_t k = mix(0, entry);
	for (uint32_t i = 0; i < n; i++)
		k = mix(k, ip[i]);
	__atomic_fetch_add(&h->samples, w, __ATOMIC_RELAXED);
	for (uint32_t p = 0; p < KST_PROBES; p++) {
		struct sc_kst_slot *s = &slots[(k + p) % h->nslots];
		uint32_t e = __atomic_load_n(&s->entry, __ATOMIC_ACQUIRE);
		if (!e && __atomic_compare_exchange_n(&s->entry, &e, entry, false, __ATOMIC_ACQ_REL,
						      __ATOMIC_ACQUIRE)) {
			memcpy(s->ip, ip, n * sizeof(*ip));
			__atomic_store_n(&s->depth, n, __ATOMIC_RELEASE);
			__atomic_fetch_add(&s->samples, w, __ATOMIC_RELEASE);
			return;
		}
		if (e == entry && __atomic_load_n(&s->depth, __ATOMIC_ACQUIRE) == n &&
		    !memcmp(s->ip, ip, n * sizeof(*ip))) {
			__atomic_fetch_add(&s->samples, w, __ATOMIC_RELAXED);
			return;
		}
	}
	__atomic_fetch_add(&h->overflow, w, __ATOMIC_RELAXED);
}

/* A kernel sample's stack, counted once in the thread's .kst table. */
static void kst_add(struct sc_kst_header *h, uint32_t entry, const uint64_t *ip, uint32_t n)
{
	sc_kst_add(h, entry, ip, n, 1);
}

/* A sample's kernel frames, without the context markers perf puts in. */
static uint32_t kernel_frames(const uint64_t *chain, uint64_t nr, uint64_t *out)
{
	uint32_t n = 0;
	for (uint64_t i = 0; i < nr && n < SC_KST_DEPTH; i++)
		if (chain[i] < (uint64_t)PERF_CONTEXT_MAX)
			out[n++] = chain[i];
	return n;
}

uint32_t sc_perf_kernel_frames(const uint64_t *chain, uint64_t nr, uint64_t *out)
{
	return kernel_frames(chain, nr, out);
}

/* The entry slot of timed call g's record for a stack table (index + 1),
 * UINT32_MAX for none (no timed call, or one inherited across fork). */
static uint32_t entry_of(const struct sc_thread *t, const struct sc_frame *g)
{
	return g && g->rec != &sc_inherited_rec ? (uint32_t)(g->rec - t->recs) + 1 : UINT32_MAX;
}

/* A kernel sample of thread t at time ns (CLOCK_MONOTONIC), its chain
 * of nr addresses; arg is the read's struct anchors. */
static void take_sample(struct sc_thread *t, uint64_t ns, const uint64_t *chain, uint64_t nr,
			void *arg)
{
	uint64_t at = ns_to_tsc(ns, arg);
	if (at < t->perf.floor_tsc)
		return;                 /* before a reset */
	struct sc_frame *g = frame_at(t, quiet(t, at));
	if (g)
		give(g, 0, 0, ns_ticks(kernel_period_ns));
	if (t->perf.kst) {
		uint64_t ip[SC_KST_DEPTH];
		uint32_t n = kernel_frames(chain, nr, ip);
		if (n)
			kst_add(t->perf.kst, entry_of(t, g), ip, n);
	}
}

/* One record of the ring (its header and body, contiguous). */
static void take(struct sc_thread *t, const struct perf_event_header *h, const struct anchors *a)
{
	const uint64_t *body = (const uint64_t *)(h + 1);
	size_t words = (h->size - sizeof(*h)) / 8;
	struct sc_perf *pf = &t->perf;
	switch (h->type) {
	case PERF_RECORD_SWITCH:
		if (words < 1)
			return;
		if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
			pf->out = true;
			pf->out_preempt = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
			pf->out_ns = body[0];
		} else {
			/* a switch-in: sample_id {time, cpu} with kcpu on
			 * many CPUs, {time} on few */
			if (pf->kcpu && words >= 2)
				sc_kcpu_visit(t, (uint32_t)body[1]);
			else if (pf->kcpu)
				sc_kcpu_switched(t);
			if (!pf->out)
				return;
			pf->out = false;
			if (body[0] <= pf->out_ns)
				return;
			uint64_t at = ns_to_tsc(pf->out_ns, a), gap = ns_ticks(body[0] - pf->out_ns);
			if (at < pf->floor_tsc) {       /* begun before a reset */
				uint64_t cut = pf->floor_tsc - at;
				if (gap <= cut)
					return;
				gap -= cut;
				at = pf->floor_tsc;
			}
			/*
			 * A gap is placed by its middle, not its start: the
			 * thread ran the entry of every call in flight, so no
			 * gap holds an entry, and the middle of one lies in
			 * the right call whatever error the clocks' conversion
			 * has up to half the gap (a preemption is ~ms long,
			 * the calls it falls in may last 100 ns)
			 */
			struct sc_frame *g = frame_at(t, quiet(t, at + gap / 2));
			sc_offcpu_gap(t, entry_of(t, g), pf->out_ns,
				      pf->out_preempt ? 0 : body[0] - pf->out_ns);
			if (g) {
				give(g, pf->out_preempt ? 0 : gap, pf->out_preempt ? gap : 0, 0);
				give_off(t, g, gap);
			} else {
				/* paused time is the header's already (paused_p) */
				gap -= sc_control_paused_in(at, at + gap);
				if (!pf->out_preempt)
					t->hdr->off_untimed += gap;
				/* its share of the clock: at the rate the clock
				 * moves now, the best figure at hand */
				uint64_t k = __atomic_load_n(&sc_pclock.tk, __ATOMIC_RELAXED) & 0xffff;
				t->hdr->off_p += sc_pclock_share(gap, k);
			}
		}
		return;
	case PERF_RECORD_SAMPLE:
		if (words < 2 || body[1] > words - 2)
			return;
		take_sample(t, body[0], body + 2, body[1], (void *)a);
		return;
	case PERF_RECORD_LOST:
		if (words >= 2) {
			pf->lost += body[1];
			pf->out = false;        /* its switch-in may be gone */
			if (pf->kcpu)
				sc_kcpu_lost(t);
			t->hdr->perf_lost = pf->lost > 0xffff ? 0xffff : (uint16_t)pf->lost;
		}
		return;
	}
}

/* Reads every record the kernel wrote since the last look, the records
 * bracketed by the anchors a. */
static void drain(struct sc_thread *t, const struct anchors *a)
{
	struct perf_event_mmap_page *pg = t->ring;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = t->ring_tail;
	uint64_t size = pg->data_size ? pg->data_size : t->perf.ring_len - (size_t)SC_PAGE;
	const char *data = (const char *)pg + (pg->data_offset ? pg->data_offset
							       : (uint64_t)SC_PAGE);
	union {
		struct perf_event_header h;
		char b[2048];
	} buf;
	while (tail + sizeof(struct perf_event_header) <= head) {
		uint64_t off = tail % size;
		const struct perf_event_header *h = (const void *)(data + off);
		struct perf_event_header hh;
		if (off + sizeof(hh) <= size) {
			hh = *h;
		} else {
			memcpy(&hh, data + off, size - off);
			memcpy((char *)&hh + (size - off), data, sizeof(hh) - (size - off));
		}
		if (hh.size < sizeof(hh) || tail + hh.size > head)
			break;
		if (hh.size <= sizeof(buf)) {
			if (off + hh.size <= size) {
				memcpy(buf.b, data + off, hh.size);
			} else {
				memcpy(buf.b, data + off, size - off);
				memcpy(buf.b + (size - off), data, hh.size - (size - off));
			}
			take(t, &buf.h, a);
		}
		tail += hh.size;
	}
	t->ring_tail = head;
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

/*
 * At the image's end, for a thread that may be running on another CPU or
 * blocked (sc_threads_finish_all): the gap since its last switch-out, if
 * it is off the CPU now, found by reading its ring without consuming it
 * (its owner may be reading it). Returns the gap in ticks (0 if it is on
 * the CPU or unknown) with the TSC of the switch-out in *at, its
 * CLOCK_MONOTONIC time in *out_at and whether it was a preemption in
 * *preempt.
 */
uint64_t sc_perf_open_gap(const struct sc_thread *t, uint64_t now, uint64_t *at, uint64_t *out_at,
			  bool *preempt)
{
	const struct perf_event_mmap_page *pg = t->ring;
	if (!pg)
		return 0;
	if (lazy(t))
		return lazy_open_gap(t, now, at, out_at, preempt);
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = t->ring_tail;
	uint64_t size = pg->data_size, out_ns = 0;
	const char *data = (const char *)pg + pg->data_offset;
	bool out = t->perf.out, pre = t->perf.out_preempt;
	if (!size || !pg->data_offset || head - tail > size)
		return 0;
	out_ns = t->perf.out_ns;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t off = tail % size, time;
		for (size_t i = 0; i < sizeof(h); i++)
			((char *)&h)[i] = data[(off + i) % size];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (h.type == PERF_RECORD_SWITCH && h.size >= sizeof(h) + 8) {
			for (size_t i = 0; i < 8; i++)
				((char *)&time)[i] = data[(off + sizeof(h) + i) % size];
			out = (h.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
			pre = (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
			out_ns = time;
		}
		tail += h.size;
	}
	uint64_t mono = sc_mono_ns();
	if (!out || out_ns >= mono)
		return 0;
	struct anchors a = {t->perf.anchor_tsc, t->perf.anchor_ns, now, mono};
	*at = ns_to_tsc(out_ns, &a);
	*out_at = out_ns;
	*preempt = pre;
	uint64_t gap = ns_ticks(mono - out_ns);
	if (*at < t->perf.floor_tsc) {          /* begun before a reset */
		uint64_t cut = t->perf.floor_tsc - *at;
		gap = gap > cut ? gap - cut : 0;
		*at = t->perf.floor_tsc;
	}
	return gap;
}

/* The stack where thread t, blocked at the image's end, left the CPU at
 * out_ns (sc_perf_open_gap), given with the time since to the call of
 * frame g (offcpu.c). */
void sc_perf_open_stack(struct sc_thread *t, const struct sc_frame *g, uint64_t out_ns)
{
	uint64_t mono = sc_mono_ns();
	if (mono > out_ns)
		sc_offcpu_open(t, entry_of(t, g), out_ns, mono - out_ns);
}

/*
 * scaler ctl reset, on thread t itself, from TSC `from`: what the ring
 * still holds of the time before is dropped when it is read, a gap across
 * `from` cut there (take, sc_perf_open_gap).
 */
void sc_perf_reset(struct sc_thread *t, uint64_t from)
{
	if (from > t->perf.floor_tsc)
		t->perf.floor_tsc = from;
}

/*
 * The runtime's work since TSC now (a read of the ring, of the thread's
 * clocks) is its own time, not the calls' in flight below frame f: their
 * starts move on by it (as sc_recalibrate's), and the kernel's records
 * in it are no call's (quiet).
 */
static void quiet_since(struct sc_thread *t, struct sc_frame *f, uint64_t now)
{
	uint64_t end = sc_rdtsc(), d = end > now ? end - now : 0;
	t->perf.quiet_from = now;
	t->perf.quiet_to = end;
	for (struct sc_frame *g = t->sp_base; g < f; g++) {
		g->tsc += d;
		if (g->trec) {
			g->ttsc += d;
			g->ttsc2 += d;
		}
	}
}

/* ---- before the ring: the thread's own clocks ----------------------- */

/*
 * A thread opens its ring when it first needs it: a small program's
 * threads make a few timed returns and never leave the CPU inside a call,
 * and a ring costs a thread ~15 us (event, mapping, unmapping), twice per
 * start of a program through a profiled shell (the fork child, the
 * image). Until then its ring is lazy_ring, so each of its timed returns
 * comes here (lazy_take): the time it spent off the CPU since its
 * previous one is the wall time less its CPU time (CLOCK_THREAD_CPUTIME_ID).
 * Some always passes unseen (clock reads apart, a VM's steal, interrupts):
 * over LAZY_EPS_NS, the kernel's count of its context switches (getrusage)
 * says whether it really left the CPU, and how (a voluntary switch:
 * blocked; only involuntary ones: preempted). Then the calls in flight
 * get that time (lazy_give) and the thread opens its ring at once, so
 * that every later figure comes from the switch records. After
 * LAZY_RETURNS timed returns it opens the ring anyway: a thread's lazy
 * phase costs at most that many returns of ~0.37 us more than a ring's (a
 * call into C, a system call), ~6 us, less than half the ring it may then
 * open (doc/performance.md).
 *
 * The wall time is the TSC's, at the rate measured at start-up (0.1 %):
 * enough to tell that nothing happened in a short interval. Over
 * LAZY_EPS_NS or LAZY_PRECISE_NS, it is CLOCK_MONOTONIC's, interpolated
 * between the pair read now and the last one (lazy_atsc, lazy_ans), as
 * the ring's records are placed. By the system call, not the vDSO: its
 * first read costs a process that never used it two page faults.
 */
#define LAZY_RETURNS 16u
#define LAZY_EPS_NS 2000u
#define LAZY_PRECISE_NS 1000000u

static uint64_t ticks_ns(uint64_t ticks)
{
	return (uint64_t)((unsigned __int128)ticks * 1000000000u / tsc_hz);
}

/* CLOCK_MONOTONIC at TSC `at`, on the line through the pairs (atsc0,
 * ans0) and (atsc1, ans1) */
static uint64_t mono_at(uint64_t at, uint64_t atsc0, uint64_t ans0, uint64_t atsc1, uint64_t ans1)
{
	if (atsc1 <= atsc0 || ans1 <= ans0)
		return ans1 - ticks_ns(atsc1 > at ? atsc1 - at : 0);
	long double r = (long double)(ans1 - ans0) / (long double)(atsc1 - atsc0);
	long double ns = (long double)ans1 - ((long double)atsc1 - (long double)at) * r;
	return ns <= 0 ? 0 : (uint64_t)ns;
}

/* The thread starts on lazy_ring, measured (SC_PERF_SWITCHES, with
 * SC_PERF_F_CLOCK): false if its CPU clock cannot be read, or before
 * sc_perf_init (attached to a running process: no TSC rate) */
static bool lazy_start(struct sc_thread *t)
{
	struct sc_perf *pf = &t->perf;
	if (!tsc_hz)
		return false;
	pf->lazy_atsc = sc_rdtsc();
	pf->lazy_ans = sc_clock_ns(CLOCK_MONOTONIC);
	pf->lazy_tsc = sc_rdtsc();
	pf->lazy_cpu = sc_thread_cpu_ns(0);
	if (!pf->lazy_ans || !pf->lazy_cpu || !sc_thread_switches(&pf->lazy_nvcsw, &pf->lazy_nivcsw))
		return false;
	pf->lazy_left = LAZY_RETURNS;
	pf->kind = SC_PERF_SWITCHES;
	t->hdr->perf_kind = SC_PERF_SWITCHES;
	t->hdr->perf_flags = SC_PERF_F_UNTIMED | SC_PERF_F_ONCPU | SC_PERF_F_CLOCK;
	t->ring_tail = 0;
	t->ring = (struct perf_event_mmap_page *)&lazy_ring;
	return true;
}

/*
 * `gap` ticks off the CPU, blocked or preempted, somewhere between the
 * thread's previous timed return (TSC prev) and the return of frame f
 * now. Where in it is not known: the calls in flight take it innermost
 * first, each at most the part of the interval it alone spans (f: its
 * own elapsed time; a call below it: from the later of prev and its
 * start up to the start of the call above it), as a ring's gaps go to
 * the innermost call in flight; what is left lay before the outermost
 * call's start, when no timed call was in flight (off_untimed, as the
 * ring's gaps there). A call that was on the CPU inside the interval
 * may so be given time lost before its start: at most its own time on
 * the CPU (f gets min(gap, elapsed), while the gap inside it is its
 * elapsed time less that), nothing when the interval lies inside it.
 */
static void lazy_give(struct sc_thread *t, struct sc_frame *f, uint64_t prev, uint64_t now,
		      uint64_t gap, bool blocked)
{
	if (prev < t->perf.floor_tsc)
		prev = t->perf.floor_tsc;       /* since a reset only */
	uint64_t end = now;
	for (struct sc_frame *g = f; g >= t->sp_base; g--) {
		uint64_t from = g->t0 > prev ? g->t0 : prev, room = end > from ? end - from : 0;
		if (g == f && room > (now > f->tsc ? now - f->tsc : 0))
			room = now > f->tsc ? now - f->tsc : 0;
		uint64_t x = gap < room ? gap : room;
		if (x) {
			give(g, blocked ? x : 0, blocked ? 0 : x, 0);
			give_off(t, g, x);
			gap -= x;
		}
		if (!gap || g->t0 <= prev)
			return;         /* the interval began inside g */
		end = g->t0;
	}
	uint64_t room = end > prev ? end - prev : 0, x = gap < room ? gap : room;
	uint64_t paused = sc_control_paused_in(prev, end);
	x = x > paused ? x - paused : 0;
	if (blocked)
		t->hdr->off_untimed += x;
	uint64_t k = __atomic_load_n(&sc_pclock.tk, __ATOMIC_RELAXED) & 0xffff;
	t->hdr->off_p += sc_pclock_share(x, k);
}

/*
 * The thread opens its ring, now that it needs it, and the time it spent
 * off the CPU before (`gap`, between TSC prev and now) goes to the calls
 * in flight. If perf events cannot be had, the thread is measured no
 * more (lazy_stop: SC_PERF_NONE, as one whose ring could not be opened
 * at its start, with no system call) and the gap goes nowhere.
 */
static void lazy_stop(struct sc_thread *t)
{
	t->ring = NULL;
	t->perf.kind = SC_PERF_NONE;
	t->hdr->perf_kind = SC_PERF_NONE;
	t->hdr->perf_flags = 0;
	sc_pclock_oncpu(false);
}

static void lazy_open(struct sc_thread *t, struct sc_frame *f, uint64_t prev, uint64_t now,
		      uint64_t gap, bool blocked)
{
	if (!ring_open(t)) {
		lazy_stop(t);
		return;
	}
	t->hdr->perf_flags |= SC_PERF_F_CLOCK;
	if (gap)
		lazy_give(t, f, prev, now, gap, blocked);
}

/*
 * A timed return (frame f, at TSC now) of a thread on lazy_ring: its
 * clocks are read, the time it spent off the CPU since its previous one
 * found, and its ring opened if it left the CPU or if this return is its
 * LAZY_RETURNS-th (how: LAZY_RETURN; LAZY_PEEK, a tail call's reading
 * before its return, counts none), or now (LAZY_FILTER: before a seccomp
 * filter, f the innermost call in flight, which goes on). False when it
 * interrupted the thread's own reading (a signal handler's timed
 * return): the read is left to that one.
 *
 * Once a filter may be in force, the thread stops before any system
 * call: measured no more (lazy_stop), its time so far having had no gap
 * to give (it would have opened its ring). A system call that fails (a
 * filter that returns an error) stops it as well: one try, no wrong
 * figure, and the program's errno is kept.
 */
enum lazy_how { LAZY_PEEK, LAZY_RETURN, LAZY_FILTER };

static bool lazy_take(struct sc_thread *t, struct sc_frame *f, uint64_t now, enum lazy_how how)
{
	struct sc_perf *pf = &t->perf;
	if (pf->reading)
		return false;
	pf->reading = true;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (how != LAZY_FILTER && __atomic_load_n(&sc_sandboxed, __ATOMIC_ACQUIRE)) {
		lazy_stop(t);
		goto out;
	}
	int err = errno;
	uint64_t tsc = sc_rdtsc(), cpu = sc_thread_cpu_ns(0), off = 0;
	if (!cpu)
		goto fail;
	uint64_t used = cpu > pf->lazy_cpu ? cpu - pf->lazy_cpu : 0;
	uint64_t wall = ticks_ns(tsc - pf->lazy_tsc);
	bool open = how == LAZY_FILTER, blocked = false;
	if (cpu < pf->lazy_cpu || wall > used + LAZY_EPS_NS || wall > LAZY_PRECISE_NS) {
		/* a vfork child runs in its parent's thread state: its clocks
		 * are not the thread's, nor its ring */
		long tid = syscall(SYS_gettid);
		if (tid < 0)
			goto fail;
		if ((uint32_t)tid != t->tid)
			goto keep;
		uint64_t atsc = sc_rdtsc(), ans = sc_clock_ns(CLOCK_MONOTONIC);
		if (!ans)
			goto fail;
		uint64_t w1 = mono_at(tsc, pf->lazy_atsc, pf->lazy_ans, atsc, ans);
		uint64_t w0 = mono_at(pf->lazy_tsc, pf->lazy_atsc, pf->lazy_ans, atsc, ans);
		wall = w1 > w0 ? w1 - w0 : 0;
		long vol, invol;
		if (cpu >= pf->lazy_cpu && wall > used + LAZY_EPS_NS) {
			if (!sc_thread_switches(&vol, &invol))
				goto fail;
			if (vol != pf->lazy_nvcsw || invol != pf->lazy_nivcsw) {
				off = wall - used;
				blocked = vol != pf->lazy_nvcsw;
				open = true;
			}
			pf->lazy_nvcsw = vol;
			pf->lazy_nivcsw = invol;
		}
		pf->lazy_atsc = atsc;
		pf->lazy_ans = ans;
	}
	if (how == LAZY_RETURN && pf->lazy_left && --pf->lazy_left == 0)
		open = true;
	uint64_t prev = pf->lazy_tsc;
	pf->lazy_tsc = tsc;
	pf->lazy_cpu = cpu;
	if (open)
		lazy_open(t, f, prev, now, ns_ticks(off), blocked);
	/* the calls in flight lose the runtime's work; a returning one ends
	 * at now, before it */
	quiet_since(t, how == LAZY_FILTER ? f + 1 : f, now);
	goto keep;
fail:
	lazy_stop(t);
keep:
	errno = err;
out:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pf->reading = false;
	return true;
}

/*
 * Before a seccomp filter (seccomp.c): from now on no thread makes the
 * system calls of its time before the ring. The first filter's caller
 * opens its ring now, while it may (as at its LAZY_RETURNS-th return);
 * every other thread still on lazy_ring stops at its next timed return,
 * before any system call, and so does a caller once a filter may be in
 * force already (first false). Threads started later are unmeasured
 * (sc_perf_thread_start): their ring would take perf_event_open. A
 * thread that ends later keeps its ring mapped (sc_perf_thread_end).
 */
void sc_perf_seccomp(bool first)
{
	struct sc_thread *t = sc_tls_thread;
	if (t && lazy(t))
		lazy_take(t, t->sp - 1, sc_rdtsc(), first ? LAZY_FILTER : LAZY_PEEK);
}

/* The run state of thread tid of this process ('R', 'S', 'D', ...), 0
 * if unknown: the field after the name in its stat file. */
static char thread_state(uint32_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/self/task/%u/stat", tid);
	const char *p = sc_stat_read(path, buf, sizeof(buf));
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * sc_perf_open_gap for a thread on lazy_ring, another than the caller:
 * its time off the CPU since its last timed return, if more than
 * LAZY_EPS_NS, as off the CPU now (blocked if it sleeps, else
 * preempted), given to its innermost call in flight (*at = now). Its
 * fields are read while it may change them: a torn read gives a wrong
 * figure, which its call's elapsed time bounds (credit_in_flight).
 */
static uint64_t lazy_open_gap(const struct sc_thread *t, uint64_t now, uint64_t *at,
			      uint64_t *out_at, bool *preempt)
{
	const struct sc_perf *pf = &t->perf;
	if (t == sc_tls_thread || __atomic_load_n(&sc_sandboxed, __ATOMIC_ACQUIRE))
		return 0;               /* on the CPU: running this; no system call */
	uint64_t prev = __atomic_load_n(&pf->lazy_tsc, __ATOMIC_RELAXED);
	uint64_t prev_cpu = __atomic_load_n(&pf->lazy_cpu, __ATOMIC_RELAXED);
	uint64_t tsc = sc_rdtsc(), cpu = sc_thread_cpu_ns(t->tid);
	uint64_t atsc = sc_rdtsc(), ans = sc_clock_ns(CLOCK_MONOTONIC);
	if (!cpu || !ans || cpu < prev_cpu || tsc < prev)
		return 0;
	uint64_t w1 = mono_at(tsc, pf->lazy_atsc, pf->lazy_ans, atsc, ans);
	uint64_t w0 = mono_at(prev, pf->lazy_atsc, pf->lazy_ans, atsc, ans);
	uint64_t wall = w1 > w0 ? w1 - w0 : 0;
	if (wall <= cpu - prev_cpu + LAZY_EPS_NS)
		return 0;
	char state = thread_state(t->tid);
	if (!state)
		return 0;
	uint64_t off = wall - (cpu - prev_cpu);
	*preempt = state == 'R';
	*at = now;
	*out_at = ans > off ? ans - off : 0;
	return ns_ticks(off);
}

/*
 * The weight the trampoline gives the timed call of frame f ending now
 * (trampoline.S, .Lweighted): its record's period, the one in force when
 * the span that ends here was drawn (not that span's length, which would
 * weight the blocked time as the estimator no longer weights the time),
 * but 1 for a call that stands for one call only: a period of 0 or 1, or
 * an outlier (over sc_outlier_ticks and 256 times the record's mean).
 */
static uint64_t weight(const struct sc_frame *f, uint64_t el)
{
	const struct sc_rec *r = f->rec;
	if (r->period <= 1)
		return 1;
	if (el > sc_outlier_ticks &&
	    (unsigned __int128)(el >> 8) * r->wcount > (unsigned __int128)r->wticks)
		return 1;
	return r->period;
}

/*
 * Reads what the kernel wrote since the last look into the calls in
 * flight (frame f, returning at `now`, and those below it); false when a
 * signal handler's timed call returns while this thread was reading its
 * ring: the read is left to the interrupted one.
 */
static bool catch_up(struct sc_thread *t, struct sc_frame *f, uint64_t now)
{
	if (t->perf.reading)
		return false;
	t->perf.reading = true;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	bool moved = t->ring && __atomic_load_n(&t->ring->data_head, __ATOMIC_ACQUIRE) != t->ring_tail;
	bool samples = t->kring && __atomic_load_n(&t->kring->data_head, __ATOMIC_ACQUIRE) != t->khead;
	if (moved || samples) {
		struct anchors a = {t->perf.anchor_tsc, t->perf.anchor_ns, sc_rdtsc(), sc_mono_ns()};
		if (moved)
			drain(t, &a);
		/* after the switch records, which name the CPUs it ran on */
		if (t->perf.kcpu)
			sc_kcpu_read(t, a.ns1, take_sample, &a);
		t->perf.anchor_tsc = a.tsc1;
		t->perf.anchor_ns = a.ns1;
		quiet_since(t, f, now);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->perf.reading = false;
	return true;
}

/*
 * The time frame f spent off the CPU inside the parallel clock's share of
 * it (off_incl), the kernel's records read first: a tail call's share of
 * f's (sc_tail_credit) loses its part of it before f's return books it.
 */
uint64_t sc_perf_off(struct sc_frame *f, uint64_t now)
{
	struct sc_thread *t = sc_tls_thread;
	if (lazy(t))
		lazy_take(t, f, now, LAZY_PEEK);
	else if (t->ring)
		catch_up(t, f, now);
	return f->pend && f->tk ? f->off_incl : 0;
}

void sc_perf_return(struct sc_frame *f, uint64_t now)
{
	struct sc_thread *t = sc_tls_thread;
	/* a figure given to this call during an interrupted read is lost
	 * with it */
	if (!(lazy(t) ? lazy_take(t, f, now, LAZY_RETURN) : catch_up(t, f, now)))
		return;
	t->perf.last_blocked = 0;
	if (!f->pend)
		return;
	f->pend = 0;
	uint64_t el = now > f->tsc ? now - f->tsc : 0, w = weight(f, el);
	struct sc_rec *r = f->rec;
	uint64_t blocked = f->off_blocked < el ? f->off_blocked : el;
	r->wblocked += blocked * w;
	r->rblocked += blocked;
	t->perf.last_blocked = blocked;
	/* the call's share of the parallel clock, which the trampoline adds
	 * to wpticks next, loses the part of it that passed while the thread
	 * was off the CPU: in proportion, P having moved at about the same
	 * rate over the call (wpticks wraps below 0 until then) */
	if (f->off_incl && f->tk && el) {
		uint64_t pe = sc_pclock_entry(f), pn = sc_pclock_step(0, now);
		uint64_t pi = pn > pe ? pn - pe : 0, off = f->off_incl < el ? f->off_incl : el;
		uint64_t cut = (uint64_t)((unsigned __int128)pi * off / el);
		r->wpticks -= cut * w;
		/* the thread's, once: at the outermost call that lost it */
		if (f == t->sp_base)
			t->hdr->off_p += cut;
	}
	uint64_t pre = f->off_preempt < el ? f->off_preempt : el;
	r->wpreempt += pre * w;
	r->wself_preempt += (pre - f->nested_preempt) * w;     /* signed */
	/* this call stands for w calls, the w - 1 untimed ones nested in
	 * the timed call below it, whose preemptions went to that call */
	if (pre && w > 1 && f > t->sp_base) {
		give(f - 1, 0, 0, 0);
		(f - 1)->nested_preempt += pre * (w - 1);
	}
	/* a sample stands for a period of kernel time wherever it fell,
	 * however short the call: not clamped (the reader keeps the sum
	 * within the record's time) */
	r->wkernel += f->kernel * w;
}
