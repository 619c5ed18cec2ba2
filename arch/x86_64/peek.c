/*
 * peek.c - does a function read its own return address?
 *
 * A timed call's return address is the runtime's trampoline, so a callee
 * that looks at its caller (__builtin_return_address(0): allocators and
 * lock checkers that attribute to call sites, loaders that resolve names
 * for "the caller's object") would see the runtime instead. Such callees
 * are never timed. They are found by reading the start of the function:
 * the prologue (endbr64, pushes, sub $n,%rsp, mov %rsp,%rbp and
 * register-to-register moves) is followed to the first instruction that
 * is not one of those; if that, or one of them, loads the return slot
 * (mov n(%rsp),%reg with n = bytes pushed so far, or mov 8(%rbp),%reg
 * after push %rbp; mov %rsp,%rbp) the answer is yes. A load placed later
 * in the function is not seen (README: limits).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arch.h"

bool sc_arch_reads_return_address(const uint8_t *c, size_t n)
{
	size_t i = 0;
	long depth = 0;         /* bytes below the return slot: rsp + depth */
	long rbp = -1;          /* rbp + rbp_off is the slot, when known */
	if (n >= 4 && !memcmp(c, "\xf3\x0f\x1e\xfa", 4))
		i = 4;
	for (int steps = 0; steps < 16 && i + 8 <= n; steps++) {
		uint8_t b = c[i];
		uint8_t rex = 0;
		if ((b & 0xf0) == 0x40) {
			rex = b;
			b = c[i + 1];
		}
		size_t p = rex ? i + 1 : i;     /* the opcode */
		if (b >= 0x50 && b <= 0x57 && !(rex & 0x08)) {  /* push %reg */
			depth += 8;
			i = p + 1;
			continue;
		}
		if (!(rex & 0x08))
			return false;
		uint8_t modrm = c[p + 1], mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
		if (b == 0x83 && modrm == 0xec) {               /* sub $imm8,%rsp */
			depth += (int8_t)c[p + 2];
			i = p + 3;
			continue;
		}
		if (b == 0x81 && modrm == 0xec) {               /* sub $imm32,%rsp */
			int32_t imm;
			memcpy(&imm, c + p + 2, 4);
			depth += imm;
			i = p + 6;
			continue;
		}
		if ((b == 0x89 || b == 0x8b) && mod == 3) {     /* mov %reg,%reg */
			if (b == 0x89 && reg == 4 && rm == 5 && !(rex & 5))
				rbp = depth;                    /* mov %rsp,%rbp */
			i = p + 2;
			continue;
		}
		if (b != 0x8b)
			return false;
		/* mov m64,%reg: the slot through rsp (SIB 0x24) or rbp */
		long disp = 0;
		if (rm == 4 && c[p + 2] == 0x24 && !(rex & 3)) {
			if (mod == 0)
				disp = 0;
			else if (mod == 1)
				disp = (int8_t)c[p + 3];
			else if (mod == 2) {
				int32_t d;
				memcpy(&d, c + p + 3, 4);
				disp = d;
			} else
				return false;
			return disp == depth;
		}
		if (rm == 5 && mod == 1 && rbp >= 0 && !(rex & 1))
			return (int8_t)c[p + 2] == rbp;
		return false;
	}
	return false;
}
