/*
 * gotscan.c - find the instructions that use GOT slots, by their bytes.
 *
 * Whether a GLOB_DAT slot of a function may be patched depends on how the
 * object's code uses it (objects.c, GLOB_DAT classification): only
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
 * The scan reads all of the object's code, 1-3 MB for libc or libcrypto,
 * at every start-up, so it runs on 16 bytes at a time: SSE2 (part of the
 * x86-64 baseline) compares every position's first three bytes at once,
 * and only positions that match one of the forms are decoded (a plain
 * 48 8b, any 64-bit load, is ~1 byte in 90 of libc: stopping at each
 * costs more than the vector compares). A memchr
 * for 0xff, the first form's lead byte, stopped every ~20 bytes of code
 * and cost ~3 ms of start-up per process.
 */
#include <emmintrin.h>
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
	if (p[0] == 0xff && (p[1] == 0x15 || p[1] == 0x25 || p[1] == 0x35)) {
		if (end - p < 6)
			return;
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

void sc_arch_got_refs(const uint8_t *code, size_t len, uintptr_t lo, uintptr_t hi,
		      sc_got_ref_fn fn, void *ctx)
{
	const uint8_t *end = code + len;
	size_t i = 0;
	const __m128i ff = _mm_set1_epi8((char)0xff), x15 = _mm_set1_epi8(0x15),
		      x25 = _mm_set1_epi8(0x25), x35 = _mm_set1_epi8(0x35),
		      x48 = _mm_set1_epi8(0x48), x4c = _mm_set1_epi8(0x4c),
		      x8b = _mm_set1_epi8((char)0x8b), xc7 = _mm_set1_epi8((char)0xc7),
		      x05 = _mm_set1_epi8(0x05);
	/* blocks of 16 positions, each reading its first three bytes (18
	 * bytes in all) */
	for (; i + 18 <= len; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(code + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(code + i + 1));
		__m128i c = _mm_loadu_si128((const __m128i *)(code + i + 2));
		__m128i call = _mm_and_si128(_mm_cmpeq_epi8(a, ff),
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(b, x15), _mm_cmpeq_epi8(b, x25)),
				     _mm_cmpeq_epi8(b, x35)));
		__m128i mov = _mm_and_si128(
			_mm_and_si128(_mm_cmpeq_epi8(b, x8b),
				      _mm_cmpeq_epi8(_mm_and_si128(c, xc7), x05)),
			_mm_or_si128(_mm_cmpeq_epi8(a, x48), _mm_cmpeq_epi8(a, x4c)));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(call, mov));
		while (m) {
			one(code + i + (unsigned)__builtin_ctz(m), end, lo, hi, fn, ctx);
			m &= m - 1;
		}
	}
	for (; i + 2 <= len; i++)
		one(code + i, end, lo, hi, fn, ctx);
}
