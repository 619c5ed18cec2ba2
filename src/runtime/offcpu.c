/*
 * offcpu.c - where in the kernel a thread blocked (`scaler record
 * --kernel`, where the sched_switch tracepoint is allowed): the kernel
 * stack of each switch-out, with the time the thread then stayed off the
 * CPU blocked, given to the timed call in flight as perf.c gives it the
 * blocked time itself.
 *
 * Each thread with kernel samples (perf.c, SC_PERF_KERNEL) opens one more
 * perf event for itself: the sched_switch tracepoint (its id from
 * SCALER_SCHED_SWITCH, which `scaler record` read in tracefs), sampled at
 * every hit with the kernel callchain. A per-thread tracepoint event hits
 * only while its thread runs, so every sample is one of its own
 * switch-outs, the stack where it left the CPU (pipe_write > ... >
 * schedule). Like the main ring, its ring is mapped and the descriptor
 * closed at once (the mapping keeps the event alive).
 *
 * The rings are read together: perf.c, at a switch-in that ends a gap
 * off the CPU, calls sc_offcpu_gap with the switch-out's time; this ring
 * is read up to that time (both are in CLOCK_MONOTONIC, in order), and
 * its last sample, taken a moment before the switch-out record, is that
 * switch-out's stack. A preempted gap only moves the reading on. A stack
 * not found close enough before the switch-out (the ring was full and the
 * kernel dropped samples) leaves the gap unplaced: the .kso table gives
 * the split of blocked time among stacks, the records its amount.
 *
 * Failure anywhere (the id unset, EACCES, EMFILE, locked memory) leaves
 * the thread without off-CPU stacks, never fatal.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "offcpu_event.h"
#include "runtime.h"

#define RING_PAGES 4            /* samples are ~250 bytes: 64 of them */
#define KSO_SLOTS 512u          /* distinct (entry, stack) pairs kept */
/* a switch-out's record follows its tracepoint sample by microseconds;
 * an older sample is another switch-out's */
#define NEAR_NS 1000000u

static uint64_t tracepoint_id;  /* 0: off-CPU stacks not asked for */

void sc_offcpu_init(void)
{
	const char *id = sc_getenv("SCALER_SCHED_SWITCH");
	tracepoint_id = id ? sc_get_u64(id, NULL) : 0;
}

static int event_open(void)
{
	struct perf_event_attr a;
	sc_offcpu_attr(&a, tracepoint_id);
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

void sc_offcpu_thread_start(struct sc_thread *t)
{
	struct sc_perf *pf = &t->perf;
	if (!tracepoint_id)
		return;
	int fd = event_open();
	if (fd < 0)
		return;
	size_t len = (size_t)SC_PAGE * (1 + RING_PAGES);
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	char name[SC_NAME_MAX];
	bool created;
	size_t klen = sizeof(struct sc_kst_header) + KSO_SLOTS * sizeof(struct sc_kst_slot);
	sc_file_name(name, t->pid, t->gen, "-t", t->seq, ".kso");
	struct sc_kst_header *h = sc_file_map_new(name, klen, &created);
	if (!h) {
		munmap(m, len);
		return;
	}
	h->version = SC_FORMAT_VERSION;
	h->nslots = KSO_SLOTS;
	h->slot_size = sizeof(struct sc_kst_slot);
	memcpy(h->magic, SC_KSO_MAGIC, 8);
	pf->kso = h;
	pf->kso_len = klen;
	pf->otail = 0;
	pf->ostack_n = 0;
	pf->oring_len = len;
	pf->oring = m;
}

void sc_offcpu_thread_end(struct sc_thread *t)
{
	struct sc_perf *pf = &t->perf;
	if (pf->oring)
		munmap(pf->oring, pf->oring_len);
	if (pf->kso)
		munmap(pf->kso, pf->kso_len);
	pf->oring = NULL;
	pf->kso = NULL;
}

void sc_offcpu_forget(struct sc_thread *t)
{
	t->perf.oring = NULL;           /* not mapped in a fork child */
	if (t->perf.kso)
		munmap(t->perf.kso, t->perf.kso_len);   /* the parent's file */
	t->perf.kso = NULL;
}

/* The record at tail of a ring's data (size bytes), whole in buf if it
 * fits in cap bytes, else its header only: its size, 0 if none is whole
 * before head. */
static size_t ring_copy(const char *data, uint64_t size, uint64_t tail, uint64_t head, void *buf,
			size_t cap)
{
	struct perf_event_header hh;
	uint64_t off = tail % size;
	if (tail + sizeof(hh) > head)
		return 0;
	for (size_t i = 0; i < sizeof(hh); i++)
		((char *)&hh)[i] = data[(off + i) % size];
	if (hh.size < sizeof(hh) || tail + hh.size > head)
		return 0;
	size_t n = hh.size <= cap ? hh.size : sizeof(hh);
	if (off + n <= size) {
		memcpy(buf, data + off, n);
	} else {
		memcpy(buf, data + off, size - off);
		memcpy((char *)buf + (size - off), data, n - (size - off));
	}
	return hh.size;
}

/* The latest stack sampled at or before `until` in the ring's records
 * from *tail on: its frames in stack[*n], its time in *ns (*n left as it
 * was when there is none); *tail moves past the records read. */
static void read_until(const struct perf_event_mmap_page *pg, uint64_t until, uint64_t *tail,
		       uint64_t *stack, uint32_t *n, uint64_t *ns)
{
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), at = *tail;
	const char *data = (const char *)pg + pg->data_offset;
	union {
		struct perf_event_header h;
		uint64_t w[4 + SC_OFFCPU_MAX_STACK + 8];
	} buf;
	size_t len;
	if (!pg->data_size || !pg->data_offset)
		return;
	while ((len = ring_copy(data, pg->data_size, at, head, &buf, sizeof(buf))) != 0) {
		const uint64_t *body = buf.w + 1;
		size_t words = (buf.h.size - sizeof(buf.h)) / 8;
		if (len <= sizeof(buf) && buf.h.type == PERF_RECORD_SAMPLE && words >= 2 &&
		    body[1] <= words - 2) {
			if (body[0] > until)
				break;
			*ns = body[0];
			*n = sc_perf_kernel_frames(body + 2, body[1], stack);
		}
		at += len;
	}
	*tail = at;
}

/* Books stack (n frames, sampled at stack_ns) for a switch-out at out_ns
 * that kept the thread off the CPU ns, if it is that switch-out's. */
static void book(struct sc_perf *pf, uint32_t entry, const uint64_t *stack, uint32_t n,
		 uint64_t stack_ns, uint64_t out_ns, uint64_t ns)
{
	if (ns && n && stack_ns <= out_ns && out_ns - stack_ns <= NEAR_NS)
		sc_kst_add(pf->kso, entry, stack, n, ns);
}

void sc_offcpu_gap(struct sc_thread *t, uint32_t entry, uint64_t out_ns, uint64_t ns)
{
	struct sc_perf *pf = &t->perf;
	if (!pf->oring)
		return;
	read_until(pf->oring, out_ns, &pf->otail, pf->ostack, &pf->ostack_n, &pf->ostack_ns);
	__atomic_store_n(&pf->oring->data_tail, pf->otail, __ATOMIC_RELEASE);
	book(pf, entry, pf->ostack, pf->ostack_n, pf->ostack_ns, out_ns, ns);
	pf->ostack_n = 0;       /* each switch-out's stack once */
}

/*
 * At the image's end, for thread t still off the CPU since out_ns (its
 * call blocked: credit_in_flight), from another thread: the stack where
 * it left the CPU, read without consuming the ring or changing t's
 * reading state (t may wake and read it meanwhile).
 */
void sc_offcpu_open(struct sc_thread *t, uint32_t entry, uint64_t out_ns, uint64_t ns)
{
	struct sc_perf *pf = &t->perf;
	uint64_t tail = pf->otail, stack[SC_KST_DEPTH], stack_ns = 0;
	uint32_t n = 0;
	if (!pf->oring || !pf->kso)
		return;
	read_until(pf->oring, out_ns, &tail, stack, &n, &stack_ns);
	book(pf, entry, stack, n, stack_ns, out_ns, ns);
}
