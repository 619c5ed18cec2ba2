/*
 * kcpu.c - `scaler record --kernel`'s kernel samples from per-CPU events:
 * the rings of the cpu-clock events `scaler record` opened once per CPU
 * (record_kcpu.c), read by each thread for its own samples.
 *
 * Why: a per-thread cpu-clock event stops and restarts its hrtimer at
 * every context switch of its thread; in a VM each restart is a timer
 * reprogramming the host traps, and a server that blocks between requests
 * switches tens of thousands of times a second. A per-CPU event's timer
 * runs on whatever the CPU does, so a switch costs it nothing.
 *
 * How: the recorder keeps the events' descriptors (its own, close-on-exec)
 * and says where in SCALER_KCPU ("PID@START:LEN:SCOPE:CPU=FD,CPU=FD,...",
 * START its start time, LEN the length of each ring's mapping, SCOPE
 * "run" when the events keep only the samples of the run's tasks, "all"
 * when every task's); each process
 * (the first image, an exec'd one, a fork child, whose perf mappings are
 * not inherited) takes copies with pidfd_getfd, maps each ring read-only
 * and closes the copy. Read-only rings are in overwrite mode and written
 * backward (write_backward): the kernel never waits on a reader, and from
 * data_head the records run newest to oldest, so a thread reads only the
 * few records newer than what it took last time, without consuming them
 * (every thread of every process reads the same rings). A record the
 * kernel may have overwritten while it was read (data_head moved by more
 * than the ring less what was read) ends the read.
 *
 * A thread reads the rings when its timed return finds its own ring moved
 * (a context switch) or the ring of the CPU it is on (a sample there,
 * 4 kHz at most: the trampoline compares its data_head, kring and khead
 * in struct sc_thread). It reads the rings of the CPUs it ran on since
 * its last read, the one it was on then and those its switch-in records
 * name (perf.c adds PERF_SAMPLE_CPU to its context-switch event), or on
 * a machine of KCPU_FEW CPUs or fewer every ring after a switch, taking
 * its samples (by tid) newer than its mark and not after the time given,
 * which becomes its mark. No system call, lock or allocation there.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pidstart.h"
#include "runtime.h"

#define KCPU_MAX 1024           /* CPUs numbered beyond are not read */
/* Up to this many rings, a thread's switch records carry no CPU: after a
 * switch it looks at every ring's head and asks which CPU it is on, which
 * costs less than the CPU in each switch record did (~80 ns a block and
 * wake-up on our VM, doc/performance.md); past it, a head per CPU would
 * cost more */
#define KCPU_FEW 8

static struct perf_event_mmap_page *ring[KCPU_MAX] SC_LARGE_BSS;
static size_t ring_len;         /* the mapping's length, as the recorder's */
static uint32_t nrings;         /* highest CPU mapped + 1 */
static uint32_t mapped_pid;     /* the process that mapped them (fork) */
static bool run_only;           /* they hold the run's tasks' samples only */

static const char *spec;        /* SCALER_KCPU, or NULL */

void sc_kcpu_init(void)
{
	/* a copy: a program may write over its environment (nginx puts its
	 * process titles there) before it forks */
	const char *e = sc_getenv("SCALER_KCPU");
	spec = e && e[0] ? sc_mem_strdup(e) : NULL;
	sc_kcpu_process();
}

/*
 * A pidfd of the recorder, pid rec started at `start`, or -1. A process
 * that outlived the recorder (a daemon's fork child) may find its pid
 * taken by another process, whose descriptors it must not map: the start
 * time read after pidfd_open is the pidfd's process's (while it lives,
 * nothing else has its pid; if it died meanwhile, the pid's next owner
 * started later).
 */
static int recorder_open(unsigned long rec, uint64_t start)
{
	int pfd = (int)syscall(SYS_pidfd_open, (pid_t)rec, 0);
	if (pfd >= 0 && (!start || sc_pid_start((int)rec) != start)) {
		close(pfd);
		pfd = -1;
	}
	return pfd;
}

/* A ring's data area lies inside its mapping of len bytes. */
static bool ring_fits(const struct perf_event_mmap_page *pg, size_t len)
{
	uint64_t off = pg->data_offset, size = pg->data_size;
	return off && size && off <= len && size <= len - off;
}

static int process_rings(void);

/*
 * This process's mappings of the rings: made once per process (its first
 * image, an exec'd one, a fork child). 0 when mapped; -1 leaves its
 * threads to sample per thread (perf.c). errno is kept (a fork child's
 * program sees the fork's).
 */
int sc_kcpu_process(void)
{
	/* the usual case, first: errno is read through a libc function
	 * whose code page a fork child would fault in for this alone */
	if (!spec)
		return -1;
	int saved = errno, r = process_rings();
	errno = saved;
	return r;
}

static int process_rings(void)
{
	uint32_t pid = (uint32_t)getpid();
	if (!spec)
		return -1;
	if (mapped_pid == pid)
		return nrings ? 0 : -1;
	/* a fork child: its parent's mappings were not copied */
	memset(ring, 0, sizeof(ring));
	nrings = 0;
	mapped_pid = pid;
	char *end;
	unsigned long rec = strtoul(spec, &end, 10);
	uint64_t start = *end == '@' ? strtoull(end + 1, &end, 10) : 0;
	if (*end != ':')
		return -1;
	ring_len = strtoul(end + 1, &end, 10);
	if (*end != ':' || !ring_len)
		return -1;
	run_only = !strncmp(end + 1, "run:", 4);
	if (!run_only && strncmp(end + 1, "all:", 4))
		return -1;
	int pfd = recorder_open(rec, start);
	if (pfd < 0)
		return -1;
	const char *p = end + 5;
	bool ok = true;
	while (*p && ok) {
		unsigned long cpu = strtoul(p, &end, 10), fd;
		if (*end != '=')
			break;
		fd = strtoul(end + 1, &end, 10);
		int mine = cpu < KCPU_MAX ? (int)syscall(SYS_pidfd_getfd, pfd, (int)fd, 0) : -1;
		/* whatever the pid and numbers say, a perf event's only: a
		 * regular file mapped as a ring would fault past its end */
		void *m = mine >= 0 && sc_fd_is_perf_event(mine)
				  ? mmap(NULL, ring_len, PROT_READ, MAP_SHARED, mine, 0)
				  : MAP_FAILED;
		if (mine >= 0)
			close(mine);
		if (m != MAP_FAILED && !ring_fits(m, ring_len)) {
			munmap(m, ring_len);
			m = MAP_FAILED;
		}
		if (m == MAP_FAILED) {
			ok = cpu >= KCPU_MAX;
		} else {
			ring[cpu] = m;
			if (cpu + 1 > nrings)
				nrings = (uint32_t)cpu + 1;
		}
		p = *end == ',' ? end + 1 : end;
	}
	close(pfd);
	if (!ok || !nrings) {
		for (uint32_t c = 0; c < nrings; c++)
			if (ring[c])
				munmap(ring[c], ring_len);
		memset(ring, 0, sizeof(ring));
		nrings = 0;
		return -1;
	}
	return 0;
}

/*
 * Before the process changes the user it runs as (uids.c). Rings holding
 * only the run's tasks' samples stay: the new user may read what the
 * run's tasks do in the kernel, nothing of any other task
 * (doc/security.md). Rings holding every task's must not stay readable
 * by a server dropping to another user: each mapping is replaced, in
 * place and at once, by zero pages (a thread reading it meanwhile sees a
 * ring of size 0, never an unmapped page), and later threads, fork
 * children and exec'd images of this process map none. True if rings
 * were withdrawn.
 */
bool sc_kcpu_drop(void)
{
	if (run_only)
		return false;
	spec = NULL;
	uint32_t n = __atomic_exchange_n(&nrings, 0, __ATOMIC_ACQ_REL);
	for (uint32_t c = 0; c < n; c++)
		if (ring[c] && mmap(ring[c], ring_len, PROT_READ,
				    MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			sc_warn("--kernel: a per-CPU ring could not be withdrawn before a "
				"change of user");
	return n != 0;
}

void sc_kcpu_thread_start(struct sc_thread *t)
{
	int cpu = sched_getcpu();
	t->perf.kcpu_mark = sc_mono_ns();
	t->perf.kcpu_cpus = cpu >= 0 ? 1ull << (cpu & 63) : ~0ull;
	t->perf.kcpu_cur = cpu >= 0 ? (uint32_t)cpu : 0;
	t->kring = cpu >= 0 && (uint32_t)cpu < nrings ? ring[cpu] : NULL;
	t->khead = t->kring ? __atomic_load_n(&t->kring->data_head, __ATOMIC_ACQUIRE) : 0;
}

bool sc_kcpu_switch_cpu(void)
{
	return nrings > KCPU_FEW;
}

/* nrings bits: every ring (bit cpu % 64) */
static uint64_t all_rings(void)
{
	return nrings >= 64 ? ~0ull : (1ull << nrings) - 1;
}

void sc_kcpu_switched(struct sc_thread *t)
{
	t->perf.kcpu_cur = UINT32_MAX;  /* asked at the read */
}

void sc_kcpu_visit(struct sc_thread *t, uint32_t cpu)
{
	t->perf.kcpu_cpus |= 1ull << (cpu & 63);
	t->perf.kcpu_cur = cpu;
}

void sc_kcpu_lost(struct sc_thread *t)
{
	t->perf.kcpu_cpus = ~0ull;      /* a switch-in may be gone */
	t->perf.kcpu_cur = UINT32_MAX;  /* and with it the CPU it is on */
}

/* The rings of the CPUs in mask (bit cpu % 64), in c */
#define EACH_RING(c, mask)                                                      \
	for (uint64_t m_ = (mask); m_; m_ &= m_ - 1)                            \
		for (uint32_t c = (uint32_t)__builtin_ctzll(m_); c < nrings; c += 64) \
			if (ring[c])

static void copy_out(const char *data, uint64_t size, uint64_t pos, void *to, size_t n)
{
	pos %= size;
	if (pos + n <= size) {
		memcpy(to, data + pos, n);
	} else {
		memcpy(to, data + pos, size - pos);
		memcpy((char *)to + (size - pos), data, n - (size - pos));
	}
}

/* One ring's samples of thread t in (mark, until], newest first. */
static void scan(struct sc_thread *t, struct perf_event_mmap_page *pg, uint64_t until,
		 sc_kcpu_fn fn, void *arg)
{
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t size = pg->data_size, off = 0;
	const char *data = (const char *)pg + pg->data_offset;
	union {
		struct perf_event_header h;
		uint64_t w[256];
	} buf;
	if (!ring_fits(pg, ring_len))
		return;
	while (off + sizeof(struct perf_event_header) <= size) {
		copy_out(data, size, head + off, &buf.h, sizeof(buf.h));
		uint16_t n = buf.h.size;
		if (n < sizeof(buf.h) || off + n > size)
			break;          /* never written yet, or the ring's end */
		if (buf.h.type == PERF_RECORD_SAMPLE && n <= sizeof(buf) && n >= 32)
			copy_out(data, size, head + off, &buf, n);
		/* the kernel went on writing (downward) meanwhile: what it
		 * wrote since plus what was read must still fit */
		uint64_t now = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		if (head - now + off + n > size)
			break;
		off += n;
		if (buf.h.type != PERF_RECORD_SAMPLE || n > sizeof(buf) || n < 32)
			continue;
		/* {pid, tid}, time, nr, ips[nr] (record_kcpu.c's sample_type) */
		const uint64_t *b = buf.w + 1;
		uint64_t ns = b[1], nr = b[2];
		if (ns <= t->perf.kcpu_mark)
			break;
		if ((uint32_t)(b[0] >> 32) != t->tid || ns > until || nr > (n - 32u) / 8)
			continue;
		fn(t, ns, b + 3, nr, arg);
	}
}

void sc_kcpu_read(struct sc_thread *t, uint64_t until, sc_kcpu_fn fn, void *arg)
{
	/* the trampoline looks at the ring of the CPU it is on: a sample
	 * there after this head, its own or not, makes it read again */
	uint32_t cur = t->perf.kcpu_cur;
	if (cur == UINT32_MAX) {
		int c = sched_getcpu();
		cur = c >= 0 ? (uint32_t)c : 0;
	}
	struct perf_event_mmap_page *k = cur < nrings ? ring[cur] : NULL;
	uint64_t h = k ? __atomic_load_n(&k->data_head, __ATOMIC_ACQUIRE) : 0;
	/* a context switch brings it here: when the rings it ran on (on
	 * few CPUs: all) were not written since (heads only go down), there
	 * is nothing to read */
	uint64_t mask = nrings > KCPU_FEW ? t->perf.kcpu_cpus : all_rings(), sum = 0;
	EACH_RING(c, mask)
		sum += __atomic_load_n(&ring[c]->data_head, __ATOMIC_ACQUIRE);
	if (mask != t->perf.kcpu_last_cpus || sum != t->perf.kcpu_last_sum) {
		EACH_RING(c, mask)
			scan(t, ring[c], until, fn, arg);
		if (until > t->perf.kcpu_mark)
			t->perf.kcpu_mark = until;
	}
	if (nrings > KCPU_FEW) {
		t->perf.kcpu_cpus = t->perf.kcpu_last_cpus = 1ull << (cur & 63);
		t->perf.kcpu_last_sum = h;
	} else {
		t->perf.kcpu_last_cpus = mask;
		t->perf.kcpu_last_sum = sum;
	}
	t->perf.kcpu_cur = cur;
	t->kring = k;
	t->khead = h;
}
