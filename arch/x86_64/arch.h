/*
 * arch.h - what the portable runtime needs to know about x86-64: which
 * relocation types bind functions, the page size, a copy that calls no
 * libc, how to read the time stamp counter, and how to write one shadow
 * entry and one import stub. aarch64 supplies the same names.
 */
#ifndef SCALER_ARCH_H
#define SCALER_ARCH_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "offsets.h"

#define SC_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define SC_R_GLOB_DAT R_X86_64_GLOB_DAT

/* the page size (sysconf's code is one more page of libc to fault in) */
#define SC_PAGE 4096u

/* memcpy, without a call into libc: what a fork child copies before its
 * exec (records, the exec's environment) would otherwise fault in the
 * page of libc's memmove for it alone (~2 us here) */
static inline void sc_copy(void *d, const void *s, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static inline uint64_t sc_arch_ticks(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * Writes the 16-byte stub of import n at code, which jumps through the
 * pointer at ptr (its chunk's copy of &sc_pending_common):
 *   f3 0f 1e fa       endbr64   (a valid indirect-branch target under IBT)
 *   41 bb <n32>       mov $n, %r11d
 *   ff 25 <rel32>     jmp *ptr(%rip)
 */
static inline void sc_arch_write_stub(uint8_t *code, uint32_t n, const void *ptr)
{
	static const uint8_t endbr[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	memcpy(code, endbr, 4);
	code[4] = 0x41;
	code[5] = 0xbb;
	memcpy(code + 6, &n, 4);
	code[10] = 0xff;
	code[11] = 0x25;
	int32_t rel = (int32_t)((const uint8_t *)ptr - (code + HOOK_STUB_SIZE));
	memcpy(code + 12, &rel, 4);
}

/* rel32 from the end of an instruction ending at `end` to `to`; false if
 * out of reach */
static inline bool sc_arch_rel32(uint8_t *field, const uint8_t *end, const void *to)
{
	intptr_t d = (const uint8_t *)to - end;
	if (d != (int32_t)d)
		return false;
	int32_t r = (int32_t)d;
	memcpy(field, &r, 4);
	return true;
}

/*
 * Writes the code of shadow entry idx at code (ENTRY_CODE_SIZE bytes, 64:
 * one cache line). It holds the whole counted path, so that the jump on
 * to the API is this entry's own: a jump shared by all APIs (the common
 * interceptor's `jmp *target`) is mispredicted whenever a program calls
 * APIs in a varied order. The thread's state is
 * reached by offsets from %fs fixed at start-up (initial-exec TLS: the
 * same offset in every thread), the record by the constant idx*256:
 *
 *  0  f3 0f 1e fa                  endbr64
 *  4  64 48 81 3c 25 <lim> <idx+1> cmpq $idx+1, %fs:lim    sc_tls_lim
 * 17  72 1f                        jb   50                  CF=1: general
 * 19  64 4c 8b 14 25 <recs>        mov  %fs:recs, %r10      sc_tls_recs
 * 28  49 ff 82 <idx*256+COUNT>     incq count(%r10)
 * 35  41 ff 8a <idx*256+COUNTDOWN> decl countdown(%r10)
 * 42  7e 06                        jle  50                  CF=0: timed
 * 44  ff 25 <rel32>                jmp  *sc_entry_table[idx].target(%rip)
 * 50  41 bb <idx*256>              mov  $idx<<8, %r11d
 * 56  ff 25 <rel32>                jmp  *head(%rip)         sc_shadow_rare
 * 62  cc cc
 *
 * The two ways off the counted path share one tail to fit the line, and
 * sc_shadow_rare tells them apart by the carry flag: the cmp sets CF when
 * lim <= idx (no record, or the thread is busy: the general path must
 * look), and when it does not, the mov, inc and dec that follow leave CF
 * clear (inc and dec do not write it) on the way to the timed path. The
 * cmp is against idx+1 so that "lim <= idx" is exactly a borrow. Every
 * jump stays inside its 32-byte half (the JCC erratum, Makefile).
 *
 * target and head must be within 2 GB of the code (shadow.c reserves the
 * code next to the entry table); false if not, or an offset is too big.
 */
static inline bool sc_arch_write_entry(uint8_t *code, uint32_t idx, const void *head,
				       const void *target, int32_t lim_off, int32_t recs_off)
{
	static const uint8_t head4[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	uint32_t rec = idx << RC_SHIFT;
	if (idx >= (1u << (31 - RC_SHIFT)))
		return false;
	uint32_t imm = idx + 1, cnt = rec + RC_COUNT, cdn = rec + RC_COUNTDOWN;
	uint8_t *c = code;
	memcpy(c, head4, 4);
	c[4] = 0x64, c[5] = 0x48, c[6] = 0x81, c[7] = 0x3c, c[8] = 0x25;
	memcpy(c + 9, &lim_off, 4);
	memcpy(c + 13, &imm, 4);
	c[17] = 0x72, c[18] = 50 - 19;
	c[19] = 0x64, c[20] = 0x4c, c[21] = 0x8b, c[22] = 0x14, c[23] = 0x25;
	memcpy(c + 24, &recs_off, 4);
	c[28] = 0x49, c[29] = 0xff, c[30] = 0x82;
	memcpy(c + 31, &cnt, 4);
	c[35] = 0x41, c[36] = 0xff, c[37] = 0x8a;
	memcpy(c + 38, &cdn, 4);
	c[42] = 0x7e, c[43] = 50 - 44;
	c[44] = 0xff, c[45] = 0x25;
	c[50] = 0x41, c[51] = 0xbb;
	memcpy(c + 52, &rec, 4);
	c[56] = 0xff, c[57] = 0x25;
	c[62] = 0xcc, c[63] = 0xcc;
	return sc_arch_rel32(c + 46, c + 50, target) && sc_arch_rel32(c + 58, c + 62, head);
}

/*
 * The code of an entry that only jumps on to its API, counting nothing
 * (SCALER_BARE=1: bench part b measures what patching a program's GOT
 * slots costs by itself, the floor under any interposer that does so):
 *
 *  0  f3 0f 1e fa                  endbr64
 *  4  ff 25 <rel32>                jmp  *sc_entry_table[idx].target(%rip)
 * 10  cc ...
 */
static inline bool sc_arch_write_bare_entry(uint8_t *code, const void *target)
{
	static const uint8_t head6[6] = {0xf3, 0x0f, 0x1e, 0xfa, 0xff, 0x25};
	memset(code, 0xcc, ENTRY_CODE_SIZE);
	memcpy(code, head6, 6);
	return sc_arch_rel32(code + 6, code + 10, target);
}

/* The offset of a TLS variable of this object from the thread pointer
 * (%fs:0 holds the thread pointer itself, the x86-64 TLS ABI) */
static inline intptr_t sc_arch_tls_offset(const void *var)
{
	uintptr_t tp;
	__asm__("movq %%fs:0, %0" : "=r"(tp));
	return (intptr_t)((uintptr_t)var - tp);
}

/* peek.c: true if the n bytes of code at c, the start of a function, read
 * the function's own return address (__builtin_return_address(0)). */
bool sc_arch_reads_return_address(const uint8_t *c, size_t n);

/* gotscan.c: calls fn(ctx, slot, call) for every instruction in the len
 * bytes of code that uses a pointer slot in [lo, hi]: call is true for an
 * indirect call or jump through it, false for a load of the pointer. */
typedef void (*sc_got_ref_fn)(void *ctx, uintptr_t slot, bool call);
void sc_arch_got_refs(const uint8_t *code, size_t len, uintptr_t lo, uintptr_t hi,
		      sc_got_ref_fn fn, void *ctx);
/* its two forms, which it picks between by the CPU (for the unit test) */
void sc_arch_got_refs_sse2(const uint8_t *code, size_t len, uintptr_t lo, uintptr_t hi,
			   sc_got_ref_fn fn, void *ctx);
void sc_arch_got_refs_avx2(const uint8_t *code, size_t len, uintptr_t lo, uintptr_t hi,
			   sc_got_ref_fn fn, void *ctx);

#endif
