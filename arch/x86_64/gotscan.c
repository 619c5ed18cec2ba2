/*
 * gotscan.c - find the instructions that use GOT slots, by their bytes.
 *
 * Whether a GLOB_DAT slot of a function may be patched depends on how the
 * object's code uses it (src/runtime/gotuse.c): only
 * through indirect calls and jumps, or also by loading the pointer, which
 * then escapes. The forms looked for, all RIP-relative with a 32-bit
 * displacement d, the slot being the end of the instruction plus d:
 *     ff 15 d      call *slot(%rip)            a call
 *     ff 25 d      jmp  *slot(%rip)            a call (tail call)
 *     ff 35 d      push slot(%rip)             a load
 *     48|4c 8b m d mov  slot(%rip), %reg       a load (m: mod 00, rm 101)
 * A misread byte (an operand that happens to look like one of these) can
 * only add a use that does not exist, which makes the caller skip a slot,
 * never patch one it should not.
 *
 * The scan reads all of the object's code at every start-up, so it
 * compares many positions' first three bytes at once, with GCC's vector
 * extensions: 32 positions in AVX2 instructions where the CPU and kernel
 * allow them, else 16 in SSE2 (pcmpeqb, pmovmskb: part of the x86-64
 * baseline, so always there). Only positions that pass this filter are
 * decoded: stopping at every candidate lead byte (a plain 48 8b is any
 * 64-bit load) costs more than the vector compares.
 */
#include <cpuid.h>
#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arch.h"

/* Decodes the instruction that may start at p (which has end - p bytes
 * after it); reports its slot if it is one of the forms and lies in
 * [lo, hi]. */
static inline void one(const uint8_t *p, const uint8_t *end, uintptr_t lo, uintptr_t hi,
		       sc_got_ref_fn fn, void *ctx)
{
	int32_t d;
	uintptr_t slot;
	bool call;
	if (end - p < 6)
		return;                 /* no form is shorter */
	if (p[0] == 0xff && (p[1] == 0x15 || p[1] == 0x25 || p[1] == 0x35)) {
		memcpy(&d, p + 2, 4);
		slot = (uintptr_t)(p + 6) + (uintptr_t)(intptr_t)d;
		call = p[1] != 0x35;
	} else if ((p[0] == 0x48 || p[0] == 0x4c) && p[1] == 0x8b) {
		if (end - p < 7 || (p[2] & 0xc7) != 0x05)
			return;
		memcpy(&d, p + 3, 4);
		slot = (uintptr_t)(p + 7) + (uintptr_t)(intptr_t)d;
		call = false;
	} else {
		return;
	}
	if (slot >= lo && slot <= hi)
		fn(ctx, slot, call);
}

/*
 * The filter, per position: the bytes a, b, c there could start one of
 * the forms. Masks widen it a little so that it takes fewer operations
 * (b & 0xcf == 0x05 also lets ff 05, inc; a & 0xfb == 0x48 is 48 or 4c):
 * one() decides.
 *     call-like  a == ff  &&  (b & cf) == 05
 *     mov-like   (a & fb) == 48  &&  b == 8b  &&  (c & c7) == 05
 * Blocks of W positions read W + 2 bytes; the rest goes to one() a
 * position at a time.
 */
#define DEFINE_SCAN(name, W, movemask)                                         \
void name(const uint8_t *code, size_t len, uintptr_t lo, uintptr_t hi,          \
	  sc_got_ref_fn fn, void *ctx)                                           \
{                                                                               \
	typedef uint8_t vec __attribute__((vector_size(W)));                    \
	const uint8_t *end = code + len;                                        \
	size_t i = 0;                                                           \
	for (; i + (W) + 2 <= len; i += (W)) {                                  \
		vec a, b, c;                                                    \
		memcpy(&a, code + i, (W));                                      \
		memcpy(&b, code + i + 1, (W));                                  \
		memcpy(&c, code + i + 2, (W));                                  \
		vec hit = (vec)((a == 0xff) & ((b & 0xcf) == 0x05)) |           \
			  (vec)(((a & 0xfb) == 0x48) & (b == 0x8b) &            \
				((c & 0xc7) == 0x05));                          \
		unsigned m = (unsigned)movemask(hit);                           \
		while (m) {                                                     \
			one(code + i + (unsigned)__builtin_ctz(m), end, lo, hi, fn, ctx); \
			m &= m - 1;                                             \
		}                                                               \
	}                                                                       \
	for (; i < len; i++)                                                    \
		one(code + i, end, lo, hi, fn, ctx);                            \
}

#define MOVEMASK16(v) _mm_movemask_epi8((__m128i)(v))
#define MOVEMASK32(v) _mm256_movemask_epi8((__m256i)(v))

/* 16 positions at a time: SSE2, which every x86-64 CPU has */
DEFINE_SCAN(sc_arch_got_refs_sse2, 16, MOVEMASK16)

/* 32 at a time: AVX2, only where have_avx2() says so */
#pragma GCC push_options
#pragma GCC target("avx2")
DEFINE_SCAN(sc_arch_got_refs_avx2, 32, MOVEMASK32)
#pragma GCC pop_options

/*
 * AVX2 usable: the CPU has it (CPUID.7:EBX bit 5) and the kernel saves
 * the YMM state (OSXSAVE, then XCR0 bits 1 and 2). Asked of CPUID
 * directly: __builtin_cpu_supports would pull libgcc's CPU model code
 * into the runtime, a page of RSS more in every process.
 */
static bool have_avx2(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
		return false;
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 6) != 6)
		return false;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2);
}

void sc_arch_got_refs(const uint8_t *code, size_t len, uintptr_t lo, uintptr_t hi,
		      sc_got_ref_fn fn, void *ctx)
{
	static int avx2 = -1;
	if (avx2 < 0)
		avx2 = have_avx2();
	if (avx2)
		sc_arch_got_refs_avx2(code, len, lo, hi, fn, ctx);
	else
		sc_arch_got_refs_sse2(code, len, lo, hi, fn, ctx);
}
