/*
 * arch.h - what the portable runtime needs to know about x86-64: which
 * relocation types bind functions, how to read the time stamp counter, and
 * how to write one shadow entry. aarch64 supplies the same names.
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

static inline uint64_t sc_arch_ticks(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * Writes the 16-byte shadow entry for index idx at code, which jumps
 * through the pointer at ptr (the chunk's copy of &sc_shadow_common):
 *   f3 0f 1e fa       endbr64   (a valid indirect-branch target under IBT)
 *   41 bb <idx32>     mov $idx, %r11d
 *   ff 25 <rel32>     jmp *ptr(%rip)
 */
static inline void sc_arch_write_entry(uint8_t *code, uint32_t idx, const void *ptr)
{
	static const uint8_t endbr[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	memcpy(code, endbr, 4);
	code[4] = 0x41;
	code[5] = 0xbb;
	memcpy(code + 6, &idx, 4);
	code[10] = 0xff;
	code[11] = 0x25;
	int32_t rel = (int32_t)((const uint8_t *)ptr - (code + 16));
	memcpy(code + 12, &rel, 4);
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
