/*
 * args_hot.c - capturing argument and return values on timed calls
 * (args.h). These functions run in the middle of the interceptor with
 * only the general registers saved (arch/x86_64/args.S and trampoline.S):
 * the file is compiled with -mgeneral-regs-only, so no vector or x87
 * register is touched and an API's floating-point arguments and return
 * values pass as they are, and it calls nothing (no libc: the loops are
 * kept from becoming memset or memcpy calls, Makefile). Per call: a few
 * loads, one histogram bucket per value, two reads of the TSC. One
 * exception: free's size is the allocator's answer (sc_args_usable, a
 * call into it; free's own caller expects every call-clobbered register
 * clobbered, and args.c lets only the allocator that answers have it).
 */
#include "args.h"

/*
 * What the interceptor's timed path uses in place of an --args entry
 * (intercept.S, .Largs): the entry as the frame is made from it, with
 * sc_args_stub for its target; [1] for a Wait API. The stub finds the
 * real entry again from the frame.
 */
SC_HIDDEN struct sc_entry sc_args_entries[2] = {
	{ (void *)sc_args_stub, 0, 0 },
	{ (void *)sc_args_stub, SC_ENT_WAIT, 0 },
};
/* the entry .Largs saw last on this thread: the stub's answer should the
 * top frame not be its own (never, while .Largs tests what the timed
 * path tests) */
SC_HIDDEN __thread const struct sc_entry *sc_args_cur __attribute__((tls_model("initial-exec")));

static inline uint64_t ticks(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* value x as its prototype reads it: a 32-bit int (the register's upper
 * half is undefined then) sign- or zero-extended */
static inline uint64_t as_read(uint64_t x, uint32_t flags)
{
	if (!(flags & SC_ARGV_INT32))
		return x;
	return flags & SC_ARGV_SIGNED ? (uint64_t)(int64_t)(int32_t)x : (uint32_t)x;
}

static void add(struct sc_args_val *v, uint64_t x, uint32_t flags, uint64_t w)
{
	int sgn = flags & SC_ARGV_SIGNED;
	if (v->n == 0) {
		v->min = v->max = x;
	} else if (sgn) {
		if ((int64_t)x < (int64_t)v->min)
			v->min = x;
		if ((int64_t)x > (int64_t)v->max)
			v->max = x;
	} else {
		if (x < v->min)
			v->min = x;
		if (x > v->max)
			v->max = x;
	}
	v->n++;
	v->w += w;
	if (sgn && (int64_t)x < 0) {
		v->wneg += w;
		return;
	}
	uint64_t p, s;
	if (__builtin_mul_overflow(x, w, &p) || __builtin_add_overflow(v->wsum, p, &s))
		s = UINT64_MAX;
	v->wsum = s;
	unsigned b = x ? 64u - (unsigned)__builtin_clzll(x) : 0;
	if (b > SC_ARGS_NHIST - 1)
		b = SC_ARGS_NHIST - 1;
	uint32_t h;
	v->hist[b] = __builtin_add_overflow(v->hist[b], (uint32_t)w, &h) ? UINT32_MAX : h;
}

/* The first distinct values exactly, then a HyperLogLog of them all
 * (format.h, SC_ARGV_DISTINCT): at most SC_ARGS_EXACT compares a call. */
static void add_distinct(struct sc_args_val *v, uint64_t x, uint64_t w)
{
	v->n++;
	v->w += w;
	if (v->wsum <= SC_ARGS_EXACT) {
		uint64_t k = 0;
		while (k < v->wsum && v->distinct.exact[k] != x)
			k++;
		if (k == v->wsum) {
			if (k < SC_ARGS_EXACT)
				v->distinct.exact[k] = x;
			v->wsum = k + 1;
		}
	}
	/* splitmix64's finaliser: addresses differ in few low bits */
	uint64_t h = x + 0x9e3779b97f4a7c15ull;
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	uint32_t reg = (uint32_t)(h >> 57);
	uint64_t rest = h << 7;
	uint8_t rank = rest ? (uint8_t)(__builtin_clzll(rest) + 1) : 58;
	if (rank > v->distinct.hll[reg])
		v->distinct.hll[reg] = rank;
}

/* A return of the call: a failure (as the prototype tells it) is counted
 * by its errno (format.h, SC_ARGV_ERRNO). */
static void add_errno(struct sc_args_val *v, const struct sc_argval *p, uint64_t rax, uint64_t w)
{
	v->n++;
	v->w += w;
	uint32_t err;
	switch (p->a) {
	case SC_FAIL_MINUS1:
		if (as_read(rax, p->flags) != UINT64_MAX)
			return;
		err = sc_tls_errno ? (uint32_t)*sc_tls_errno : 0;
		break;
	case SC_FAIL_NULL:
		if (rax)
			return;
		err = sc_tls_errno ? (uint32_t)*sc_tls_errno : 0;
		break;
	default:
		err = (uint32_t)rax;
		if (!err)
			return;
	}
	for (uint32_t k = 0; k < SC_ARGS_NERR; k++)
		if (v->errs[k].err == err || v->errs[k].err == 0) {
			uint32_t s;
			v->errs[k].err = err;
			v->errs[k].w = __builtin_add_overflow(v->errs[k].w, (uint32_t)w, &s)
					       ? UINT32_MAX : s;
			return;
		}
	v->wneg += w;
}

/* The nanoseconds of the struct timespec at p; false for no pointer or
 * one outside user space. A pointer the call itself would refuse
 * (EFAULT) elsewhere faults here: the built-in prototypes use it only
 * for the request of a sleep, which programs pass as a valid pointer. */
static bool timespec_ns(uint64_t p, uint64_t *ns)
{
	if (p < 4096 || p >= (1ull << 47))
		return false;
	const int64_t *ts = (const int64_t *)p;
	int64_t s = ts[0], n = ts[1];
	if (s < 0 || n < 0) {
		*ns = 0;
		return true;
	}
	uint64_t x;
	if (__builtin_mul_overflow((uint64_t)s, 1000000000ull, &x) ||
	    __builtin_add_overflow(x, (uint64_t)n, &x))
		x = UINT64_MAX;
	*ns = x;
	return true;
}

/* This thread's record of entry idx, named at its first capture; NULL
 * if its values are not kept. */
static struct sc_args_rec *rec_of(uint64_t idx, const struct sc_argproto **proto)
{
	uint32_t s = sc_args_slot_of ? sc_args_slot_of[idx] : 0;
	struct sc_args_rec *base = sc_tls_args;
	if (!s || !base)
		return NULL;
	struct sc_args_rec *r = &base[s - 1];
	const struct sc_argproto *p = &sc_args_spec.p[sc_args_proto_of[s - 1]];
	*proto = p;
	if (!r->entry) {
		r->nval = p->nval;
		for (uint32_t i = 0; i < p->nval; i++) {
			r->flags[i] = p->v[i].flags &
				      (SC_ARGV_SIGNED | SC_ARGV_DISTINCT | SC_ARGV_ERRNO);
			for (uint32_t k = 0; k < SC_ARGS_NAME; k++) {
				r->name[i][k] = p->v[i].name[k];
				__asm__("" ::: "memory");   /* no memcpy */
			}
		}
		r->entry = (uint32_t)idx + 1;
	}
	return r;
}

static inline uint64_t weight(const struct sc_rec *r)
{
	return r->span > 1 ? r->span : 1;
}

/*
 * The stub's call (args.S): regs are the call's six argument registers
 * in order (rdi, rsi, rdx, rcx, r8, r9), slot where its return address
 * is. The top frame is the call's own, just made by the timed path: its
 * values are added, its return value asked for by tagging the frame
 * (FR_TREC, which the trampoline tests anyway), and *fout set to it (the
 * stub takes its time out of the call's). Returns where the call goes.
 */
void *sc_args_enter(const uint64_t *regs, uint64_t slot, struct sc_frame **fout)
{
	struct sc_thread *t = sc_tls_thread;
	struct sc_frame *f = t && t->sp > t->sp_base ? t->sp - 1 : NULL;
	if (!f || f->slot != slot || f->trec || f->rec < t->recs)
		return sc_args_cur->target;
	uint64_t idx = (uint64_t)(f->rec - t->recs);
	const struct sc_entry *e = &sc_entry_table[idx];
	if (!(e->flags & SC_ENT_ARGS))
		return sc_args_cur->target;
	const struct sc_argproto *p;
	struct sc_args_rec *r = rec_of(idx, &p);
	if (r) {
		uint64_t w = weight(f->rec);
		for (uint32_t i = 0; i < p->nval; i++) {
			const struct sc_argval *v = &p->v[i];
			uint64_t x = 0;
			switch (v->kind) {
			case SC_ARGK_ARG:
				x = as_read(regs[v->a - 1], v->flags);
				break;
			case SC_ARGK_PRODUCT:
				if (__builtin_mul_overflow(regs[v->a - 1], regs[v->b - 1], &x))
					x = UINT64_MAX;
				break;
			case SC_ARGK_TIMESPEC:
				if (!timespec_ns(regs[v->a - 1], &x))
					continue;
				break;
			case SC_ARGK_USABLE:
				/* free(NULL) frees 0 bytes */
				x = regs[v->a - 1] && sc_args_usable
					    ? sc_args_usable((void *)regs[v->a - 1]) : 0;
				break;
			case SC_ARGK_DISTINCT:
				add_distinct(&r->v[i], regs[v->a - 1], w);
				continue;
			default:
				f->trec = SC_ARGS_RET_TAG;
				f->trec2 = NULL;
				continue;
			}
			add(&r->v[i], x, v->flags, w);
		}
	}
	*fout = f;
	return e->target;
}

/* The trampoline's call for a tagged frame f, rax the return value, with
 * the call booked already: its return values are added, the tag taken
 * off, and this function's time taken out of the caller's call. */
void sc_args_ret(struct sc_frame *f, uint64_t rax)
{
	uint64_t t0 = ticks();		/* the trampoline's TSC read is before */
	struct sc_thread *t = sc_tls_thread;
	f->trec = NULL;
	const struct sc_argproto *p;
	struct sc_args_rec *r = rec_of((uint64_t)(f->rec - t->recs), &p);
	if (r) {
		uint64_t w = weight(f->rec);
		for (uint32_t i = 0; i < p->nval; i++)
			if (p->v[i].kind == SC_ARGK_RET)
				add(&r->v[i], as_read(rax, p->v[i].flags), p->v[i].flags, w);
			else if (p->v[i].kind == SC_ARGK_ERRNO)
				add_errno(&r->v[i], &p->v[i], rax, w);
	}
	if (f > t->sp_base)
		(f - 1)->tsc += ticks() - t0;
}
