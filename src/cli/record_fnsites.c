/*
 * record_fnsites.c - the function entries of an attached process, written
 * and put back from outside (record_fnsites.h; the runtime's side:
 * src/runtime/fnsites.c).
 *
 * Every thread is stopped by the caller, so no instruction of the process
 * runs while the bytes change, and each thread resumes through the
 * kernel (serializing) onto the new bytes. The writes go through
 * /proc/PID/mem, as a debugger's breakpoints do: the pages stay read+exec
 * (the kernel copies a private page it writes), never writable and
 * executable. An entry is refused when a thread could come back into the
 * middle of the bytes the jump overwrites (its first byte is fine: it
 * runs the jump, or the original instruction again):
 *  - its next instruction is there (or, for a system call that will be
 *    restarted, the system call instruction 2 bytes before);
 *  - such an address is anywhere in the part of a thread's stack in use,
 *    or anywhere in its own stack when it runs on another (a signal
 *    stack): a signal handler's interrupted context (its saved rip) lies
 *    there.
 *    A return address never lands inside: a call among the overwritten
 *    bytes is always their last instruction (fnpatch.c), so it returns
 *    to the first byte after them. A word of data equal to such an
 *    address refuses the entry too: the check errs on the safe side.
 * The jump's own bytes are one instruction, so after it is written no
 * thread can be inside it: putting the bytes back is refused only by the
 * same checks, which then find nothing, or by bytes someone changed.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fnsite.h"
#include "record_fnsites.h"

#define STACK_MAX (64u << 20)   /* of a thread's stack scanned */
#define CHUNK (1u << 20)

int proc_mem_read(pid_t pid, uint64_t at, void *p, size_t n)
{
	struct iovec l = {p, n}, r = {(void *)(uintptr_t)at, n};
	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -1;
}

int proc_mem_write(pid_t pid, uint64_t at, const void *p, size_t n)
{
	struct iovec l = {(void *)p, n}, r = {(void *)(uintptr_t)at, n};
	return process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* The sites s, and n of them indexed by by_at, sorted by address (for
 * inside()) */
struct sorted {
	struct sc_fnsite *s;
	uint32_t *by_at;
	size_t n;
};

static struct sorted *sort_ctx;

static int by_at(const void *a, const void *b)
{
	uint64_t x = sort_ctx->s[*(const uint32_t *)a].at, y = sort_ctx->s[*(const uint32_t *)b].at;
	return x < y ? -1 : x > y;
}

/* The site whose overwritten bytes hold address a past their first, or
 * NULL (the sites indexed do not overlap: one per function entry of an
 * object loaded) */
static struct sc_fnsite *inside(const struct sorted *so, uint64_t a)
{
	size_t lo = 0, hi = so->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (so->s[so->by_at[mid]].at < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	struct sc_fnsite *s = &so->s[so->by_at[lo - 1]];
	return a > s->at && a < s->at + s->len ? s : NULL;
}

/* Marks busy (state) the site a is inside of, if it is one to change */
static void busy(const struct sorted *so, uint64_t a, int want, int state)
{
	struct sc_fnsite *s = inside(so, a);
	if (s && s->state == want)
		s->state = (uint8_t)state;
}

/* Marks the sites a word of [lo, hi) (its first STACK_MAX) points into */
static void scan_words(pid_t pid, const struct sorted *so, uint64_t lo, uint64_t hi, int want,
		       uint64_t *buf)
{
	lo &= ~7ull;
	if (hi > lo + STACK_MAX)
		hi = lo + STACK_MAX;
	for (uint64_t at = lo; at < hi; at += CHUNK) {
		size_t len = hi - at < CHUNK ? (size_t)(hi - at) & ~(size_t)7 : CHUNK;
		if (!len || proc_mem_read(pid, at, buf, len) != 0)
			break;
		for (size_t i = 0; i < len / 8; i++)
			busy(so, buf[i], want, SC_FNSITE_BUSY_STACK);
	}
}

/* Marks the sites a stack word of thread th points into */
static void scan_stack(pid_t pid, const struct sorted *so, const struct fnsite_thread *th,
		       int want, uint64_t *buf)
{
	scan_words(pid, so, th->stack_lo, th->stack_hi, want, buf);
	if (th->home_hi > th->home_lo)
		scan_words(pid, so, th->home_lo, th->home_hi, want, buf);
}

int fnsites_apply(pid_t pid, uint64_t table, const struct fnsite_thread *th, size_t n,
		  int restore, struct fnsite_counts *c)
{
	struct sc_fnsites t;
	c->done = c->busy = c->other = 0;
	if (proc_mem_read(pid, table, &t, sizeof(t)) != 0)
		return -1;
	if (!t.n)
		return 0;
	if (t.n > (1u << 20)) {
		errno = EINVAL;
		return -1;
	}
	struct sorted so = {calloc(t.n, sizeof(*so.s)), calloc(t.n, sizeof(*so.by_at)), t.n};
	uint8_t *was = malloc(t.n);
	uint64_t *buf = malloc(CHUNK);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int fd = -1, rc = -1;
	if (!so.s || !so.by_at || !was || !buf ||
	    proc_mem_read(pid, t.sites, so.s, t.n * sizeof(*so.s)) != 0 ||
	    (fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		goto out;
	/* an unloaded object's entries are left out: their addresses may be
	 * a copy's loaded again since */
	so.n = 0;
	for (size_t i = 0; i < t.n; i++) {
		was[i] = so.s[i].state;
		if (so.s[i].state != SC_FNSITE_UNLOADED)
			so.by_at[so.n++] = (uint32_t)i;
	}
	sort_ctx = &so;
	qsort(so.by_at, so.n, sizeof(*so.by_at), by_at);
	int want = restore ? SC_FNSITE_PATCHED : SC_FNSITE_PENDING;
	for (size_t i = 0; i < t.n; i++)
		so.s[i].pad[0] = so.s[i].state == want;        /* one to change */
	for (size_t k = 0; k < n; k++) {
		busy(&so, th[k].pc[0], want, SC_FNSITE_BUSY_PC);
		if (th[k].pc[1])
			busy(&so, th[k].pc[1], want, SC_FNSITE_BUSY_PC);
		scan_stack(pid, &so, &th[k], want, buf);
	}
	for (size_t i = 0; i < t.n; i++) {
		struct sc_fnsite *s = &so.s[i];
		uint8_t now[SC_FNSITE_BYTES];
		const uint8_t *from = restore ? s->jump : s->orig, *to = restore ? s->orig : s->jump;
		if (!s->pad[0])
			continue;
		s->pad[0] = 0;
		if (s->state == SC_FNSITE_BUSY_PC || s->state == SC_FNSITE_BUSY_STACK) {
			c->busy++;
			if (restore)
				s->state = SC_FNSITE_PATCHED;   /* stays: paused at the detach */
			continue;
		}
		if (s->len > SC_FNSITE_BYTES)
			continue;
		if (pread(fd, now, s->len, (off_t)s->at) != s->len || memcmp(now, from, s->len)) {
			s->state = restore ? SC_FNSITE_PATCHED : SC_FNSITE_CHANGED;
			c->other++;
		} else if (pwrite(fd, to, s->len, (off_t)s->at) != s->len) {
			s->state = restore ? SC_FNSITE_PATCHED : SC_FNSITE_FAILED;
			c->other++;
		} else {
			s->state = restore ? SC_FNSITE_RESTORED : SC_FNSITE_PATCHED;
			c->done++;
		}
	}
	/* only the states that changed: the table is the process's */
	rc = 0;
	for (size_t i = 0; rc == 0 && i < t.n; i++)
		if (so.s[i].state != was[i])
			rc = proc_mem_write(pid, t.sites + i * sizeof(*so.s) +
					    offsetof(struct sc_fnsite, state), &so.s[i].state, 1);
out:
	if (fd >= 0)
		close(fd);
	free(so.s);
	free(so.by_at);
	free(was);
	free(buf);
	return rc;
}
