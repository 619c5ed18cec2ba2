/*
 * peek.c - does a function read its own return address?
 *
 * A timed call's return address is the runtime's trampoline, so a callee
 * that looks at its caller (__builtin_return_address(0): allocators and
 * lock checkers that attribute to call sites, loaders that resolve names
 * for "the caller's object", like glibc's dlopen) would see the runtime
 * instead. Such callees are never timed.
 *
 * They are found by decoding the start of the function along its
 * fall-through path, with the few instruction forms compilers put there
 * (pushes and pops, sub/add of %rsp, ModRM arithmetic and moves, %fs
 * loads of the stack guard, conditional branches, calls, nops), keeping
 * the number of bytes between %rsp and the return slot. The answer is yes
 * when a 64-bit load reads the slot: mov n(%rsp),%reg with n that depth,
 * or mov n(%rbp),%reg once %rbp was set from %rsp with the slot n above.
 * Decoding stops at a return, a jump, anything else it does not know, or
 * after PEEK_INSNS instructions: what lies past that is not seen (doc/design.md:
 * limits). Nothing is guessed, so a function is never wrongly taken for
 * one that reads its return address.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arch.h"

#define PEEK_INSNS 40

/* Length of ModRM + SIB + displacement at m, and the displacement; base
 * is the base register (0-15, -1 for none or RIP). */
static size_t modrm_len(const uint8_t *m, uint8_t rex, int32_t *disp, int *base, bool *mem)
{
	uint8_t mod = m[0] >> 6, rm = m[0] & 7;
	size_t len = 1;
	*disp = 0;
	*mem = mod != 3;
	*base = rm | ((rex & 1) << 3);
	if (mod == 3)
		return len;
	if (rm == 4) {                          /* SIB */
		uint8_t sib = m[1];
		len++;
		*base = (sib & 7) | ((rex & 1) << 3);
		if (((sib >> 3) & 7) != 4 || (rex & 2))
			*base = -2;             /* indexed: never the slot */
		if (mod == 0 && (sib & 7) == 5) {
			memcpy(disp, m + len, 4);
			*base = -1;
			return len + 4;
		}
	} else if (mod == 0 && rm == 5) {       /* RIP-relative */
		memcpy(disp, m + len, 4);
		*base = -1;
		return len + 4;
	}
	if (mod == 1) {
		*disp = (int8_t)m[len];
		return len + 1;
	}
	if (mod == 2) {
		memcpy(disp, m + len, 4);
		return len + 4;
	}
	return len;
}

bool sc_arch_reads_return_address(const uint8_t *c, size_t n)
{
	size_t i = 0;
	long depth = 0;         /* the slot is at rsp + depth */
	long rbp = -1;          /* and at rbp + rbp, once known */
	for (int k = 0; k < PEEK_INSNS && i + 16 <= n; k++) {
		bool fs = false;
		if (!memcmp(c + i, "\xf3\x0f\x1e\xfa", 4)) {    /* endbr64 */
			i += 4;
			continue;
		}
		if (c[i] == 0x64) {                             /* %fs: */
			fs = true;
			i++;
		}
		uint8_t rex = (c[i] & 0xf0) == 0x40 ? c[i++] : 0;
		uint8_t op = c[i];
		bool w = rex & 8;
		if (fs && op != 0x8b)
			return false;
		if (op >= 0x50 && op <= 0x57) {                 /* push */
			depth += 8;
			i++;
			continue;
		}
		if (op >= 0x58 && op <= 0x5f) {                 /* pop */
			depth -= 8;
			i++;
			continue;
		}
		if ((op >= 0x70 && op <= 0x7f) || op == 0x90) { /* jcc rel8, nop */
			i += op == 0x90 ? 1 : 2;
			continue;
		}
		if (op == 0xe8) {                               /* call rel32 */
			i += 5;
			continue;
		}
		if (op == 0x0f && c[i + 1] >= 0x80 && c[i + 1] <= 0x8f) {  /* jcc rel32 */
			i += 6;
			continue;
		}
		int32_t disp;
		int base;
		bool mem;
		if (op == 0x0f && c[i + 1] == 0x1f) {           /* nopl */
			i += 2 + modrm_len(c + i + 2, rex, &disp, &base, &mem);
			continue;
		}
		uint8_t reg = ((c[i + 1] >> 3) & 7) | ((rex & 4) << 1);
		size_t ml;
		switch (op) {
		case 0x01: case 0x03: case 0x09: case 0x0b: case 0x21: case 0x23:
		case 0x29: case 0x2b: case 0x31: case 0x33: case 0x39: case 0x3b:
		case 0x85: case 0x89: case 0x8b: case 0x8d: {
			ml = modrm_len(c + i + 1, rex, &disp, &base, &mem);
			if (op == 0x8b && w && mem && !fs &&
			    ((base == 4 && disp == depth) || (base == 5 && rbp >= 0 && disp == rbp)))
				return true;
			/* the register written: reg for loads, r/m otherwise */
			bool to_reg = op & 2 || op == 0x8d;
			int dst = op == 0x39 || op == 0x3b || op == 0x85 ? -1
				  : to_reg ? reg : mem ? -1 : base;
			int src = to_reg ? (mem ? -1 : base) : reg;
			if (dst == 4)
				return false;                   /* %rsp moves */
			if (dst == 5)                           /* mov %rsp,%rbp */
				rbp = (op == 0x89 || op == 0x8b) && w && src == 4 ? depth : -1;
			i += 1 + ml;
			continue;
		}
		case 0x83: case 0x81:                          /* group 1, imm */
			ml = modrm_len(c + i + 1, rex, &disp, &base, &mem);
			if (!mem && base == 4) {
				int32_t imm;
				if (op == 0x83)
					imm = (int8_t)c[i + 1 + ml];
				else
					memcpy(&imm, c + i + 1 + ml, 4);
				if ((reg & 7) == 5)
					depth += imm;           /* sub $imm,%rsp */
				else if ((reg & 7) == 0)
					depth -= imm;           /* add $imm,%rsp */
				else if ((reg & 7) != 7)
					return false;
			} else if (!mem && base == 5 && (reg & 7) != 7) {
				rbp = -1;
			}
			i += 1 + ml + (op == 0x83 ? 1 : 4);
			continue;
		case 0xc7:                                     /* mov $imm32,r/m */
			ml = modrm_len(c + i + 1, rex, &disp, &base, &mem);
			if (!mem && base == 4)
				return false;
			if (!mem && base == 5)
				rbp = -1;
			i += 1 + ml + 4;
			continue;
		default:
			return false;
		}
	}
	return false;
}
