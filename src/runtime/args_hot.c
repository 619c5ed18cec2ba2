/*
 * args_hot.c - capturing argument and return values on timed calls
 * (args.h). These functions run in the middle of the interceptor with
 * only the general registers saved (arch/x86_64/args.S and trampoline.S):
 * the file is compiled with -mgeneral-regs-only, so no vector or x87
 * register is touched and an API's floating-point arguments and return
 * values pass as they are, and it calls nothing (no libc: the loops are
 * kept from becoming memset or memcpy calls, Makefile). Per call: a few
 * loads, one histogram bucket per value, two reads of the TSC.
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
			r->flags[i] = p->v[i].flags & SC_ARGV_SIGNED;
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
			default:
				f->trec = SC_ARGS_RET_TAG;
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
	}
	if (f > t->sp_base)
		(f - 1)->tsc += ticks() - t0;
}
