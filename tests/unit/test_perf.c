/*
 * test_perf.c - unit test of the runtime's reading of a thread's perf ring
 * (src/runtime/perf.c): records written as the kernel writes them, one
 * across the end of the ring, handed to the timed calls in flight at
 * their times and booked at each call's return with its weight; and the
 * sched_switch tracepoint's ring beside it (src/runtime/offcpu.c), whose
 * switch-out stacks get the blocked gaps that follow them. The runtime's
 * clocks and files are stubbed: 1 TSC tick per ns.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "pidstart.h"
#include "runtime.h"

/* ---- what perf.c uses of the rest of the runtime ---------------------- */

__thread struct sc_thread *sc_tls_thread;
struct sc_thread sc_idle_thread;
void sc_warn(const char *fmt, ...) { (void)fmt; }
uint64_t sc_outlier_ticks = 1000000;
struct sc_rec sc_inherited_rec;
static uint64_t clock_now;

uint64_t sc_rdtsc(void) { return clock_now; }
uint64_t sc_mono_ns(void) { return clock_now; }
uint64_t sc_clock_ns(clockid_t c) { (void)c; return clock_now; }
/* the thread's CPU clock (before its ring: perf.c), moved by the test */
static uint64_t cpu_now = 1;
static unsigned cpu_reads;
static bool cpu_refused;        /* as under a filter that returns EPERM */
uint64_t sc_thread_cpu_ns(uint32_t tid)
{
	(void)tid;
	cpu_reads++;
	return cpu_refused ? 0 : cpu_now;
}
bool sc_sandboxed;
/* the thread's context switches: the test's, so that a real preemption
 * of this process under load cannot open a lazy thread's ring early */
static long vol_now, invol_now;
bool sc_thread_switches(long *vol, long *invol)
{
	*vol = vol_now;
	*invol = invol_now;
	return true;
}
const char *sc_mem_strdup(const char *s) { return strdup(s); }
const char *sc_file_name(char buf[SC_NAME_MAX], uint32_t a, uint32_t b, const char *sep,
			 uint32_t c, const char *ext)
{
	(void)a, (void)b, (void)sep, (void)c, (void)ext;
	buf[0] = 0;
	return buf;
}
void *sc_file_map_new(const char *name, size_t len, bool *created)
{
	(void)name, (void)len;
	*created = false;
	return NULL;
}
/* a clock that runs with the TSC (one thread running: k = 1) */
struct sc_pclock sc_pclock = {0, 1};
const uint32_t sc_recip[2] = {0, 1u << 16};
uint64_t sc_pclock_step(int64_t delta, uint64_t now) { (void)delta; return now; }
uint64_t sc_pclock_entry(const struct sc_frame *f) { return f->tsc; }
uint64_t sc_pclock_share(uint64_t ticks, uint64_t k) { return k ? ticks / k : 0; }
void sc_pclock_oncpu(bool measured) { (void)measured; }
/* the test's rings are a memfd's, not a perf event's */
bool sc_fd_is_perf_event(int fd) { return fd >= 0; }
/* never paused */
uint64_t sc_control_paused_in(uint64_t from, uint64_t to) { (void)from, (void)to; return 0; }

/* ---- a ring written by hand -------------------------------------------- */

#define DATA 256u                       /* a small ring: records wrap */
#define PERIOD 4000000                  /* perf.c's sampling period, ticks at 1 GHz */
static union {
	struct perf_event_mmap_page pg;
	char b[4096 + DATA];
} ring;
static uint64_t head;

static void put(const void *rec, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ring.b[4096 + (head + i) % DATA] = ((const char *)rec)[i];
	head += n;
	ring.pg.data_head = head;
}

static void put_switch(uint64_t ns, uint16_t misc)
{
	struct { struct perf_event_header h; uint64_t time; } r = {
		{PERF_RECORD_SWITCH, misc, sizeof(r)}, ns};
	put(&r, sizeof(r));
}

static void put_sample(uint64_t ns, uint64_t ip1, uint64_t ip2)
{
	struct { struct perf_event_header h; uint64_t time, nr, ip[3]; } r = {
		{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sizeof(r)}, ns, 3,
		{(uint64_t)PERF_CONTEXT_KERNEL, ip1, ip2}};
	put(&r, sizeof(r));
}

static void put_lost(uint64_t n)
{
	struct { struct perf_event_header h; uint64_t id, lost, time; } r = {
		{PERF_RECORD_LOST, 0, sizeof(r)}, 1, n, 0};
	put(&r, sizeof(r));
}

/* the tracepoint's ring (offcpu.c) */
static union {
	struct perf_event_mmap_page pg;
	char b[4096 + 4096];
} oring;
static uint64_t ohead;

static void put_switch_stack(uint64_t ns, uint64_t ip1, uint64_t ip2)
{
	struct { struct perf_event_header h; uint64_t time, nr, ip[3]; } r = {
		{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sizeof(r)}, ns, 3,
		{(uint64_t)PERF_CONTEXT_KERNEL, ip1, ip2}};
	memcpy(oring.b + 4096 + ohead % 4096, &r, sizeof(r));
	ohead += sizeof(r);
	oring.pg.data_head = ohead;
}

static struct sc_thread th;
static struct sc_thr_header hdr;
static struct sc_rec recs[4];
static union {
	struct sc_kst_header h;
	char b[sizeof(struct sc_kst_header) + 1024 * sizeof(struct sc_kst_slot)];
} kst, kso;

static struct sc_frame *push(uint32_t rec, uint64_t tsc)
{
	struct sc_frame *f = th.sp++;
	memset(f, 0, sizeof(*f));
	f->rec = &recs[rec];
	f->tsc = f->t0 = tsc;
	f->tk = 1;                      /* not a Wait */
	return f;
}

/* ---- per-CPU rings (kcpu.c): written backward, read newest first ------- */

#define KDATA 4096u
static char *kdata;                     /* the test's mapping of the data */
static uint64_t khead_at;               /* goes down */

static void kput(uint32_t tid, uint64_t ns, uint64_t ip)
{
	struct { struct perf_event_header h; uint32_t pid, tid; uint64_t time, nr, ip[2]; } r = {
		{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sizeof(r)}, 1, tid, ns, 2,
		{(uint64_t)PERF_CONTEXT_KERNEL, ip}};
	khead_at -= sizeof(r);
	for (size_t i = 0; i < sizeof(r); i++)
		kdata[(khead_at + i) % KDATA] = ((const char *)&r)[i];
	((struct perf_event_mmap_page *)(kdata - 4096))->data_head = khead_at;
}

/*
 * The ring of the CPU this thread is on (pinned there) is a memfd here,
 * mapped by the runtime as a recorder's events are (SCALER_KCPU:
 * pidfd_getfd of this process's own descriptor); the thread reads it.
 */
static void test_kcpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t one, was;
	CHECK(sched_getaffinity(0, sizeof(was), &was) == 0, "its CPUs");
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	CHECK(cpu >= 0 && sched_setaffinity(0, sizeof(one), &one) == 0, "pinned to its CPU");
	int fd = memfd_create("kcpu", 0);
	CHECK(fd >= 0 && ftruncate(fd, 4096 + KDATA) == 0, "memfd");
	char *m = mmap(NULL, 4096 + KDATA, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "map");
	struct perf_event_mmap_page *pg = (void *)m;
	pg->data_offset = 4096;
	pg->data_size = KDATA;
	kdata = m + 4096;
	char spec[8192];
	snprintf(spec, sizeof(spec), "%d@%llu:%u:all:%d=%d", (int)getpid(),
		 (unsigned long long)sc_pid_start(getpid()), 4096 + KDATA, cpu, fd);
	setenv("SCALER_KERNEL", "1", 1);
	setenv("SCALER_KCPU", spec, 1);
	sc_perf_init(1000000000u);
	CHECK_EQ(sc_kcpu_process(), 0, "the rings mapped from this process's descriptor");

	memset(recs, 0, sizeof(recs));
	memset(&kst, 0, sizeof(kst));
	kst.h.nslots = 1024;
	th.perf.kst = &kst.h;
	th.tid = 42;
	th.sp = th.sp_base;
	th.perf.kcpu = true;
	th.ring_tail = head;                    /* the switch ring: nothing new */
	clock_now = 100;
	sc_kcpu_thread_start(&th);
	CHECK(th.kring != NULL, "the ring of the CPU it is on");
	struct sc_frame *outer = push(1, 1000), *inner = push(2, 5000);
	kput(42, 50, 0xffffffff81000100ull);    /* before its mark: not read */
	kput(42, 3000, 0xffffffff81000200ull);  /* in outer */
	kput(7, 6000, 0xffffffff81000300ull);   /* another task's */
	kput(42, 7000, 0xffffffff81000400ull);  /* in inner */
	kput(42, 200000, 0xffffffff81000500ull); /* after the read's time */
	CHECK(th.kring->data_head != th.khead, "the trampoline would call in");
	clock_now = 100000;
	sc_perf_return(inner, 100000);
	CHECK_EQ(recs[2].wkernel, PERIOD, "inner: its own sample at 7000, not task 7's");
	CHECK_EQ(kst.h.samples, 2, "two samples of its own in (100, 100000]");
	CHECK_EQ(th.khead, th.kring->data_head, "read to the head");
	CHECK_EQ(th.perf.kcpu_mark, 100000, "the mark moves to the read's time");
	th.sp--;
	sc_perf_return(outer, 101000);
	CHECK_EQ(recs[1].wkernel, PERIOD, "outer: its sample at 3000");
	/* the next read takes the sample at 200000 only */
	th.sp = th.sp_base;
	struct sc_frame *late = push(3, 150000);
	kput(42, 210000, 0xffffffff81000600ull);
	clock_now = 300000;
	sc_perf_return(late, 300000);
	CHECK_EQ(recs[3].wkernel, 2 * PERIOD, "late: the samples at 200000 and 210000, once");
	CHECK_EQ(kst.h.samples, 4, "each sample counted once");
	close(fd);
	sched_setaffinity(0, sizeof(was), &was);       /* the writers' test runs on all */
}

/* ---- two threads adding to one stack table (sc_kst_add) ----------------
 * At the image's end the exiting thread books a blocked thread's stack in
 * that thread's .kso table while the thread may wake and book its own.
 * Each round both threads add the same 8 stacks to an empty table, at
 * once, KST_ADDS times each: every stack must be counted 2 * KST_ADDS
 * times, whole, whichever slots it took. */
#define KST_ROUNDS 200
#define KST_ADDS 2000
#define KST_STACKS 8
static union {
	struct sc_kst_header h;
	char b[sizeof(struct sc_kst_header) + 64 * sizeof(struct sc_kst_slot)];
} shared_kst;
static pthread_barrier_t kst_round;

static void kst_stack(int i, uint64_t ip[3])
{
	ip[0] = 0xffffffff81000000ull + (uint64_t)i * 16;
	ip[1] = 0xffffffff82000000ull + (uint64_t)i;
	ip[2] = 0xffffffff83000000ull;
}

static void *kst_writer(void *arg)
{
	(void)arg;
	for (int r = 0; r < KST_ROUNDS; r++) {
		pthread_barrier_wait(&kst_round);       /* the table emptied */
		for (int n = 0; n < KST_ADDS * KST_STACKS; n++) {
			uint64_t ip[3];
			kst_stack(n % KST_STACKS, ip);
			sc_kst_add(&shared_kst.h, 1 + (uint32_t)n % 2, ip, 3, 1);
		}
		pthread_barrier_wait(&kst_round);       /* both done */
		pthread_barrier_wait(&kst_round);       /* checked */
	}
	return NULL;
}

static void test_kst_two_writers(void)
{
	pthread_t a, b;
	int bad_rounds = 0, torn = 0;
	pthread_barrier_init(&kst_round, NULL, 3);
	pthread_create(&a, NULL, kst_writer, NULL);
	pthread_create(&b, NULL, kst_writer, NULL);
	for (int r = 0; r < KST_ROUNDS; r++) {
		memset(&shared_kst, 0, sizeof(shared_kst));
		shared_kst.h.nslots = 64;
		pthread_barrier_wait(&kst_round);
		pthread_barrier_wait(&kst_round);
		uint64_t per[KST_STACKS] = {0}, sum = 0;
		struct sc_kst_slot *slots = (struct sc_kst_slot *)(&shared_kst.h + 1);
		for (int i = 0; i < 64; i++) {
			if (!slots[i].samples)
				continue;
			int which = -1;
			for (int j = 0; j < KST_STACKS; j++) {
				uint64_t ip[3];
				kst_stack(j, ip);
				if (slots[i].entry == 1 + (uint32_t)j % 2 && slots[i].depth == 3 &&
				    !memcmp(slots[i].ip, ip, sizeof(ip)))
					which = j;
			}
			if (which < 0)
				torn++;
			else
				per[which] += slots[i].samples;
			sum += slots[i].samples;
		}
		bool ok = shared_kst.h.samples == 2 * KST_ADDS * KST_STACKS &&
			  !shared_kst.h.overflow && sum == 2 * KST_ADDS * KST_STACKS;
		for (int j = 0; j < KST_STACKS; j++)
			ok = ok && per[j] == 2 * KST_ADDS;
		bad_rounds += !ok;
		pthread_barrier_wait(&kst_round);
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_barrier_destroy(&kst_round);
	CHECK_EQ(bad_rounds, 0, "rounds of two threads adding 8 stacks to one table where "
		 "a stack was not counted as often as both added it");
	CHECK_EQ(torn, 0, "slots holding a stack neither thread added");
}

/*
 * Before the ring (perf.c): a thread starts on the stand-in ring; time
 * off the CPU that its switch counts do not confirm (a VM's steal) goes
 * nowhere; time they do goes to the calls in flight, innermost first,
 * each at most the part of the interval it alone spans, the rest to the
 * time no call was in flight, and the ring opens; after 16 returns on
 * the CPU it opens anyway. The switch counts are the test's; the ring is
 * the real one (perf_event_open): where perf events are refused it checks
 * that the thread ends unmeasured.
 */
static struct sc_rec lrecs[3];
static struct sc_thr_header lhdr;

/* a fresh lazy thread lt on lhdr, its one frame returning at clock_now */
static void lazy_thread(struct sc_thread *lt)
{
	memset(lt, 0, offsetof(struct sc_thread, frames));
	memset(&lhdr, 0, sizeof(lhdr));
	lt->recs = lrecs;
	lt->hdr = &lhdr;
	lt->sp = lt->sp_base = lt->frames;
	lt->tid = (uint32_t)gettid();
	sc_tls_thread = lt;
	sc_perf_thread_start(lt);
}

static void lazy_return(struct sc_thread *lt)
{
	struct sc_frame *f = lt->sp++;
	memset(f, 0, sizeof(*f));
	f->rec = &lrecs[0];
	f->tsc = f->t0 = clock_now;
	f->tk = 1;
	clock_now += 100;
	cpu_now += 100;
	sc_perf_return(f, clock_now);
	lt->sp--;
}

static void test_lazy(void)
{
	static struct sc_thread lt;
	unsetenv("SCALER_KERNEL");      /* set by test_kcpu */
	unsetenv("SCALER_KCPU");
	sc_perf_init(1000000000u);
	lt.recs = lrecs;
	lt.hdr = &lhdr;
	lt.sp = lt.sp_base = lt.frames;
	lt.tid = (uint32_t)gettid();
	sc_tls_thread = &lt;
	clock_now = 10000000;
	cpu_now = 1000000;
	sc_perf_thread_start(&lt);
	CHECK(lt.ring && lt.ring->data_head == 1 && lt.ring_tail == 0,
	      "a thread starts on the stand-in ring: its head never its tail");
	CHECK_EQ(lhdr.perf_kind, SC_PERF_SWITCHES, "measured from its start");
	CHECK_EQ(lhdr.perf_flags, SC_PERF_F_UNTIMED | SC_PERF_F_ONCPU | SC_PERF_F_CLOCK,
		 "by its CPU clock until its ring opens");

	/* 100 us of wall, 10 us on the CPU, no switch: steal, not Wait */
	struct sc_frame *f = lt.sp++;
	memset(f, 0, sizeof(*f));
	f->rec = &lrecs[0];
	f->tsc = f->t0 = 10050000;
	f->tk = 1;
	clock_now = 10100000;
	cpu_now += 10000;
	sc_perf_return(f, clock_now);
	lt.sp--;
	CHECK(lt.ring && lt.ring->data_head == 1, "no switch: still on the stand-in");
	CHECK_EQ(lrecs[0].wblocked + lrecs[0].wpreempt, 0, "no switch: no Wait");

	/* the thread blocks; its clocks say 99.5 us of 100 off the
	 * CPU since its last return: inner (from 10150000) takes its 50 us,
	 * outer (from 10101000) the 49 us it alone spans, the 500 ns left
	 * lay before outer's start */
	struct sc_frame *outer = lt.sp++, *inner = lt.sp++;
	memset(outer, 0, 2 * sizeof(*outer));
	outer->rec = &lrecs[1];
	outer->tsc = outer->t0 = 10101000;
	outer->tk = 1;
	inner->rec = &lrecs[2];
	inner->tsc = inner->t0 = 10150000;
	inner->tk = 1;
	vol_now++;                      /* it blocked: a voluntary switch */
	clock_now = 10200000;
	cpu_now += 500;
	sc_perf_return(inner, clock_now);
	lt.sp--;
	if (lhdr.perf_kind == SC_PERF_NONE) {
		CHECK(lt.ring == NULL && lhdr.perf_flags == 0 && lrecs[2].wblocked == 0,
		      "perf events refused here: the thread ends unmeasured, its gap nowhere");
		return;
	}
	CHECK(lt.ring && lt.ring->data_head != 1 && lt.perf.ring_len,
	      "a thread that left the CPU opens its ring at once");
	CHECK(lhdr.perf_flags & SC_PERF_F_CLOCK, "the header keeps how it measured before");
	CHECK_EQ(lrecs[2].wblocked, 50000, "inner: blocked its own 50 us");
	CHECK_EQ(outer->off_blocked, 49000, "outer: the 49 us it alone spans, kept until "
		 "its return");
	CHECK_EQ(outer->off_incl, 99000, "outer: off the CPU in itself and in inner");
	CHECK_EQ(lhdr.off_untimed, 500, "the rest, before outer's start: no call's");
	sc_perf_thread_end(&lt);

	/* a thread that never leaves the CPU opens its ring at its 16th
	 * timed return */
	lazy_thread(&lt);
	int n = 0;
	for (; n < 40 && lt.ring && lt.ring->data_head == 1; n++)
		lazy_return(&lt);
	CHECK_EQ(n, 16, "the ring opens at the 16th timed return on the CPU");
	sc_perf_thread_end(&lt);
	sc_tls_thread = &th;
}

/*
 * Under a seccomp filter (seccomp.c): a thread without its ring stops at
 * its next timed return with no system call (its CPU clock unread) and
 * is unmeasured; a thread started then is unmeasured from its start. A
 * failed read of the CPU clock (a filter's EPERM) ends the lazy phase at
 * once and leaves the program's errno. The filter's caller opens its ring
 * before the filter.
 */
static void test_lazy_sandbox(void)
{
	static struct sc_thread lt;
	sc_perf_init(1000000000u);
	clock_now = 20000000;
	lazy_thread(&lt);
	CHECK(lt.ring && lt.ring->data_head == 1, "a lazy thread");
	sc_sandboxed = true;
	unsigned reads = cpu_reads;
	lazy_return(&lt);
	CHECK(lt.ring == NULL && lhdr.perf_kind == SC_PERF_NONE && lhdr.perf_flags == 0,
	      "after a filter: unmeasured at its next timed return");
	CHECK_EQ(cpu_reads, reads, "... without reading its CPU clock");
	lazy_thread(&lt);
	CHECK(lt.ring == NULL && lhdr.perf_kind == SC_PERF_NONE && cpu_reads == reads,
	      "a thread started after a filter: unmeasured, no clock read");
	sc_sandboxed = false;

	lazy_thread(&lt);
	cpu_refused = true;             /* CLOCK_THREAD_CPUTIME_ID */
	errno = EINVAL;
	reads = cpu_reads;
	lazy_return(&lt);
	CHECK(lt.ring == NULL && lhdr.perf_kind == SC_PERF_NONE,
	      "a refused clock ends the lazy phase: unmeasured");
	CHECK_EQ(cpu_reads, reads + 1, "after one try");
	CHECK_EQ(errno, EINVAL, "the program's errno is kept");
	cpu_refused = false;

	lazy_thread(&lt);
	sc_sandboxed = true;
	sc_perf_seccomp(true);
	CHECK(lt.ring != NULL ? lt.ring->data_head != 1 && lhdr.perf_kind == SC_PERF_SWITCHES
			      : lhdr.perf_kind == SC_PERF_NONE,
	      "the filter's caller opens its ring first (or is unmeasured if refused)");
	sc_perf_thread_end(&lt);
	sc_sandboxed = false;
	sc_tls_thread = &th;
}

int main(void)
{
	sc_perf_init(1000000000u);      /* 1 GHz: a tick is a ns */
	th.recs = recs;
	th.hdr = &hdr;
	th.sp = th.sp_base = th.frames;
	th.ring = &ring.pg;
	th.perf.ring_len = sizeof(ring);
	th.perf.kst = &kst.h;
	kst.h.nslots = 1024;
	ring.pg.data_offset = 4096;
	ring.pg.data_size = DATA;
	/* start near the end of the ring, so that the second record wraps */
	head = th.ring_tail = DATA - 20;
	ring.pg.data_head = head;
	sc_tls_thread = &th;

	/* the outer call (record 1) from 1000, the inner one (record 2) from
	 * 5000; the ring was last read at 0 */
	struct sc_frame *outer = push(1, 1000), *inner = push(2, 5000);
	put_switch(2000, PERF_RECORD_MISC_SWITCH_OUT);          /* blocked in outer */
	put_switch(3000, 0);
	put_switch(6000, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	put_switch(6500, 0);                                     /* preempted in inner */
	put_sample(7000, 0xffffffff81000010ull, 0xffffffff81000020ull);
	put_switch(8000, PERF_RECORD_MISC_SWITCH_OUT);
	put_lost(3);                                             /* its switch-in lost */
	put_switch(9000, PERF_RECORD_MISC_SWITCH_OUT);           /* blocked in inner */
	put_switch(9400, 0);
	put_switch(500, PERF_RECORD_MISC_SWITCH_OUT);            /* before any call */
	put_switch(600, 0);
	put_switch(700, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	put_switch(750, 0);                                      /* preempted, no call */

	clock_now = 100000;
	sc_perf_return(inner, 100000);
	CHECK_EQ(ring.pg.data_tail, head, "the ring read to its head");
	CHECK_EQ(th.ring_tail, head, "the runtime's tail");
	CHECK_EQ(recs[2].wpreempt, 500, "inner: preempted 6000-6500");
	CHECK_EQ(recs[2].wblocked, 400, "inner: blocked 9000-9400, not the gap whose "
		 "switch-in was lost");
	/* one sample period of kernel time: a sample stands for a period
	 * wherever it fell, not clamped to the call's own 95000 ticks */
	CHECK_EQ(recs[2].wkernel, PERIOD, "inner: one sample period of kernel time");
	CHECK_EQ(inner->pend, 0, "inner booked");
	CHECK(outer->pend != 0, "outer keeps its figures until its return");
	CHECK_EQ(outer->off_blocked, 1000, "outer: blocked 2000-3000");
	CHECK_EQ(recs[1].wblocked, 0, "outer not booked yet");
	CHECK_EQ(hdr.perf_lost, 3, "lost records counted in the header");
	CHECK_EQ(recs[2].rblocked, 400, "inner: the same blocked time, unweighted");
	CHECK_EQ(recs[2].wpticks, (uint64_t)-900, "inner: its clock share loses its 400 "
		 "ticks blocked and 500 preempted: a thread runs only on a CPU (the "
		 "trampoline adds the share next)");
	CHECK_EQ(outer->off_incl, 1900, "outer: blocked 1000 in itself, 900 off-CPU in inner");
	CHECK_EQ(hdr.off_untimed, 100, "blocked 500-600 with no timed call in flight: "
		 "the thread's untimed off-CPU time (not the preempted 700-750)");
	CHECK_EQ(hdr.off_p, 150, "... and its clock share (k = 1), the preempted 50 too");

	/* the kernel stack of the sample, for record 2 (entry index + 1) */
	struct sc_kst_slot *slots = (struct sc_kst_slot *)(&kst.h + 1);
	int found = 0;
	for (int i = 0; i < 1024; i++)
		if (slots[i].entry) {
			found++;
			CHECK_EQ(slots[i].entry, 3, "the sample's entry: record 2, + 1");
			CHECK_EQ(slots[i].depth, 2, "two kernel frames, the context marker dropped");
			CHECK_EQ(slots[i].ip[0], 0xffffffff81000010ull, "innermost first");
			CHECK_EQ(slots[i].samples, 1, "one sample");
		}
	CHECK_EQ(found, 1, "one (entry, stack) slot");
	CHECK_EQ(kst.h.samples, 1, "samples seen");

	/* the outer call returns: weighted by its period (7) as its ticks
	 * are, not by the span that ends with it (3) */
	th.sp--;
	recs[1].period = 7;
	recs[1].span = 3;
	recs[1].wcount = 10;
	recs[1].wticks = 1000000;
	sc_perf_return(outer, 101000);
	CHECK_EQ(recs[1].wblocked, 7000, "outer: 1000 ticks blocked, times its period 7");
	CHECK_EQ(recs[1].rblocked, 1000, "outer: 1000 ticks blocked, unweighted");
	CHECK_EQ(recs[1].wpticks, (uint64_t)-13300, "outer: its clock share loses 1900 "
		 "ticks off-CPU, times its period");
	CHECK_EQ(hdr.off_p, 2050, "the thread's clock share off-CPU: the outermost "
		 "call's 1900 and the 150 outside calls");
	CHECK_EQ(outer->pend, 0, "outer booked");

	/* an outlier (over sc_outlier_ticks and 256 times the mean) stands
	 * for itself: weight 1, as trampoline.S gives it */
	th.sp = th.sp_base;
	struct sc_frame *slow = push(3, 200000);
	recs[3].period = 31;
	recs[3].wcount = 100;
	recs[3].wticks = 100;
	put_switch(200100, PERF_RECORD_MISC_SWITCH_OUT);
	put_switch(2200100, 0);
	clock_now = 2300000;
	sc_perf_return(slow, 2300000);
	CHECK_EQ(recs[3].wblocked, 2000000, "an outlier's blocked time, weight 1");

	/* off-CPU stacks: each blocked gap goes to the stack of the
	 * tracepoint's sample just before its switch-out; a preempted gap
	 * and a sample too far before its switch-out (its own lost) to none */
	th.perf.oring = &oring.pg;
	th.perf.kso = &kso.h;
	kso.h.nslots = 512;
	oring.pg.data_offset = 4096;
	oring.pg.data_size = 4096;
	th.sp = th.sp_base;
	slow = push(3, 3000000);
	put_switch_stack(3000100, 0xffffffff81000100ull, 0xffffffff81000200ull);  /* pipe_write */
	put_switch(3000105, PERF_RECORD_MISC_SWITCH_OUT);
	put_switch(3100105, 0);                                 /* blocked 100000 */
	put_switch_stack(3100200, 0xffffffff81000300ull, 0xffffffff81000200ull);
	put_switch(3100205, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	put_switch(3100300, 0);                                 /* preempted: no stack's */
	put_switch_stack(3100400, 0xffffffff81000100ull, 0xffffffff81000200ull);
	put_switch(3100405, PERF_RECORD_MISC_SWITCH_OUT);
	put_switch(3150405, 0);                                 /* blocked 50000, same stack */
	put_switch(5200000, PERF_RECORD_MISC_SWITCH_OUT);       /* its sample lost: 2 ms old */
	put_switch(5300000, 0);
	clock_now = 5400000;
	sc_perf_return(slow, 5400000);
	slots = (struct sc_kst_slot *)(&kso.h + 1);
	found = 0;
	for (int i = 0; i < 512; i++)
		if (slots[i].entry) {
			found++;
			CHECK_EQ(slots[i].entry, 4, "the blocked call's entry: record 3, + 1");
			CHECK_EQ(slots[i].ip[0], 0xffffffff81000100ull, "the switch-out's stack");
			CHECK_EQ(slots[i].samples, 150000, "both gaps' ns at that stack");
		}
	CHECK_EQ(found, 1, "one off-CPU (entry, stack) slot: the preempted gap and the one "
		 "without its sample have none");
	CHECK_EQ(kso.h.samples, 150000, "the table's blocked ns");
	CHECK_EQ(oring.pg.data_tail, ohead, "the tracepoint's ring read to its head");
	test_kcpu();
	test_kst_two_writers();
	test_lazy();
	test_lazy_sandbox();
	return check_summary();
}
