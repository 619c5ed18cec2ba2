/*
 * fnpatch.h - patching a function's entry on x86-64 (fnpatch.c): deciding
 * whether a function can take a 5-byte jump at its entry, writing the
 * replay copy of the instructions the jump overwrites, and the per-function
 * code that counts a call. The decoding is Zydis 4's, loaded only when
 * functions are patched (sc_arch_decoder_load).
 */
#ifndef SCALER_FNPATCH_H
#define SCALER_FNPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SC_FN_JMP 5u            /* jmp rel32 */
#define SC_FN_REPLAY_MAX 64u    /* bytes of a replay copy, its jump back included */

/* What one decoded instruction is, as far as moving it goes. */
enum sc_insn_kind {
	SC_INSN_PLAIN,          /* position-independent */
	SC_INSN_NOP,
	SC_INSN_RIP,            /* a rip-relative memory operand (disp32) */
	SC_INSN_JMP,            /* jmp rel8/rel32 */
	SC_INSN_JCC,            /* jcc rel8/rel32 (cc: condition) */
	SC_INSN_CALL,           /* call rel32 */
	SC_INSN_REL_OTHER,      /* loop, jrcxz, xbegin: relative, not movable */
	SC_INSN_JMP_IND,        /* jmp through a register or memory */
	SC_INSN_CALL_IND,
	SC_INSN_RET,
	SC_INSN_STOP,           /* int3, ud2, hlt: ends a path */
};

struct sc_insn {
	uint8_t len;
	uint8_t kind;           /* enum sc_insn_kind */
	uint8_t cc;             /* SC_INSN_JCC */
	uint8_t disp_off;       /* SC_INSN_RIP: offset of its disp32 */
	uint64_t target;        /* relative ones: where they go */
};

/* Loads the decoder (libZydis.so.4.0); 0, or -1 with *why set. */
int sc_arch_decoder_load(const char **why);
/* Decodes the instruction at code (n bytes readable), which runs at addr;
 * 0 or -1. The common instructions by insnlen.c's tables
 * (sc_arch_decode_fast: 1 when it leaves one to Zydis), the rest by Zydis
 * (sc_arch_decode_zydis); the two give the same answers. */
int sc_arch_decode(const uint8_t *code, size_t n, uint64_t addr, struct sc_insn *in);
int sc_arch_decode_fast(const uint8_t *code, size_t n, uint64_t addr, struct sc_insn *in);
int sc_arch_decode_zydis(const uint8_t *code, size_t n, uint64_t addr, struct sc_insn *in);
/* The decoder's file, once loaded (objects.c leaves it unhooked). */
const char *sc_arch_decoder_path(void);

/* Where a function's entry is patched. */
struct sc_fn_plan {
	uint32_t at;            /* offset of the jump: 4 after an endbr64 */
	uint32_t len;           /* bytes it overwrites (>= 5) */
	bool nops;              /* they are nops (a compiler's patch site) */
};

/*
 * Decides whether the function of size bytes at code (running at addr)
 * can be patched, scanning all of it; 0 with *p, or -1 with the reason.
 * Each relative jump, branch or call of it that leaves it is passed to
 * out (when not NULL) for the checks across functions.
 */
typedef void (*sc_fn_out_fn)(void *ctx, uint64_t target, bool call);
int sc_arch_fn_plan(const uint8_t *code, size_t size, uint64_t addr, struct sc_fn_plan *p,
		    const char **why, sc_fn_out_fn out, void *ctx);

/*
 * Writes the replay copy of the overwritten instructions at out (which
 * will run at out_addr) followed by a jump back; the bytes written, or 0
 * if an operand cannot reach from there.
 */
size_t sc_arch_fn_replay(uint8_t *out, uint64_t out_addr, const uint8_t *code, uint64_t addr,
			 const struct sc_fn_plan *p);

/*
 * The code a patched entry jumps to: SC_FN_HEAD bytes, the replay copy
 * right after them, and SC_FN_TAIL bytes elsewhere (tail). A call from the
 * function's own object (its return address in [lo, lo + span)) is
 * counted in record idx of the thread, keeping every register but the
 * flags: a caller of a local function may rely on it not touching
 * registers it does not use (-fipa-ra). When its countdown runs out, or
 * there is no record (a new thread, a busy one), it goes to *own_ptr
 * (sc_fn_own, fnown.S), which times it keeping every register too. A
 * call whose return address is one of *ret_ptrs (a tail call from a
 * timed call) is taken as one from its own object. A call from elsewhere
 * goes to the cached caller's shadow entry (cache: {lo, span, code}) when
 * its return address is in that range, else to *miss_ptr (sc_slowpath)
 * with %r11 = fn, %r10 = SLOW_FUNC. False if an operand does not fit.
 */
#define SC_FN_HEAD 82u
#define SC_FN_TAIL 92u
struct sc_fn_refs {
	uint32_t idx, fn;
	int32_t lim_off, recs_off;      /* of sc_tls_lim, sc_tls_recs */
	uint64_t own_lo;                /* address of {lo, span} */
	uint64_t cache;                 /* address of {lo, span, code} */
	uint64_t own_ptr, miss_ptr;     /* addresses of the pointers */
	uint64_t ret_ptrs;              /* address of the two return points */
	bool own_calls;                 /* false: calls from its own object
					   (and tail calls from timed ones)
					   go straight to the replay copy */
};
bool sc_arch_fn_head(uint8_t *code, uint64_t code_addr, uint8_t *tail, uint64_t tail_addr,
		     const struct sc_fn_refs *r);

/* The jump written at the entry (SC_FN_JMP bytes, then int3 up to len). */
bool sc_arch_fn_jump(uint8_t *out, uint64_t at_addr, uint64_t to, uint32_t len);

#endif
