/*
 * insnlen.c - a table-driven decoder of the x86-64 instructions compilers
 * emit most (legacy encodings: prefixes, REX, one- and two-byte opcodes,
 * 0F 38 / 0F 3A), giving what fnpatch.c's rules need (struct sc_insn):
 * length, relative branches and their targets, rip-relative operands,
 * indirect jumps and calls, returns. Scanning every instruction of every
 * function to patch (python3: ~6000 functions) spent most of its time in
 * Zydis; this answers in a few table lookups. Anything it does not know
 * for sure (VEX, EVEX, XOP, 3DNow!, far returns, system and rare opcodes,
 * operand-size overrides of branches, address-size overrides) it leaves
 * to Zydis: sc_arch_decode_fast returns 1 and fnpatch.c asks Zydis. The
 * unit test holds the two to the same answer on every instruction of
 * libc and of the test's own code.
 */
#include <string.h>

#include "fnpatch.h"

/* per opcode: what follows it */
enum {
	M = 1,          /* a ModRM byte (and SIB, displacement) */
	I8 = 2,         /* an 8-bit immediate */
	IZ = 4,         /* a 16/32-bit immediate (16 with a 66 prefix) */
	I16 = 8,        /* a 16-bit immediate */
	F = 16,         /* not handled here: Zydis decides */
	P = 32,         /* a prefix */
	IV = 64,        /* B8-BF: 16/32/64-bit immediate */
	MOFF = 128,     /* A0-A3: a 64-bit address */
};

/* one-byte opcodes */
static const uint8_t one[256] = {
	/* 00 */ M, M, M, M, I8, IZ, F, F, M, M, M, M, I8, IZ, F, 0,
	/* 10 */ M, M, M, M, I8, IZ, F, F, M, M, M, M, I8, IZ, F, F,
	/* 20 */ M, M, M, M, I8, IZ, P, F, M, M, M, M, I8, IZ, P, F,
	/* 30 */ M, M, M, M, I8, IZ, P, F, M, M, M, M, I8, IZ, P, F,
	/* 40 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,      /* REX, below */
	/* 50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 60 */ F, F, F, M, P, P, P, F, IZ, M | IZ, I8, M | I8, 0, 0, 0, 0,
	/* 70 */ I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8,
	/* 80 */ M | I8, M | IZ, F, M | I8, M, M, M, M, M, M, M, M, M, M, M, F,
	/* 90 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, F, 0, 0, 0, 0, 0,
	/* a0 */ MOFF, MOFF, MOFF, MOFF, 0, 0, 0, 0, I8, IZ, 0, 0, 0, 0, 0, 0,
	/* b0 */ I8, I8, I8, I8, I8, I8, I8, I8, IV, IV, IV, IV, IV, IV, IV, IV,
	/* c0 */ M | I8, M | I8, I16, 0, F, F, M | I8, M | IZ, F, 0, F, F, 0, I8, F, F,
	/* d0 */ M, M, M, M, F, F, F, 0, M, M, M, M, M, M, M, M,
	/* e0 */ I8, I8, I8, I8, I8, I8, I8, I8, IZ, IZ, F, I8, 0, 0, 0, 0,
	/* f0 */ P, F, P, P, 0, 0, M, M, 0, 0, 0, 0, 0, 0, M, M,
};

/* two-byte opcodes, 0F xx (0F 38 and 0F 3A apart) */
static const uint8_t two[256] = {
	/* 00 */ F, F, M, M, F, 0, F, F, F, F, F, 0, F, M, F, F,
	/* 10 */ M, M, M, M, M, M, M, M, M, F, F, F, F, F, F, M,
	/* 20 */ F, F, F, F, F, F, F, F, M, M, M, M, M, M, M, M,
	/* 30 */ F, 0, F, F, F, F, F, F, F, F, F, F, F, F, F, F,
	/* 40 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 50 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 60 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 70 */ M | I8, M | I8, M | I8, M | I8, M, M, M, F, F, F, F, F, M, M, M, M,
	/* 80 */ IZ, IZ, IZ, IZ, IZ, IZ, IZ, IZ, IZ, IZ, IZ, IZ, IZ, IZ, IZ, IZ,
	/* 90 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* a0 */ 0, 0, 0, M, M | I8, M, F, F, 0, 0, F, M, M | I8, M, M, M,
	/* b0 */ M, M, F, M, F, F, M, M, M, F, M | I8, M, M, M, M, M,
	/* c0 */ M, M, M | I8, M, M | I8, M | I8, M | I8, M, 0, 0, 0, 0, 0, 0, 0, 0,
	/* d0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* e0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* f0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, F,
};

static int32_t rd32(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

int sc_arch_decode_fast(const uint8_t *code, size_t n, uint64_t addr, struct sc_insn *in)
{
	size_t i = 0, lim = n < 15 ? n : 15;
	bool p66 = false, rex_w = false, rex_b = false, rep = false;
	uint8_t f, op;
	memset(in, 0, sizeof(*in));
	for (;; i++) {
		if (i >= lim)
			return 1;
		op = code[i];
		if (op == 0x67)
			return 1;               /* address size: Zydis */
		if (one[op] != P)
			break;
		p66 |= op == 0x66;
		rep |= op == 0xf3;
	}
	if (op >= 0x40 && op <= 0x4f) {
		rex_w = op & 8;
		rex_b = op & 1;
		if (++i >= lim)
			return 1;
		op = code[i];
		if (one[op] == P || (op >= 0x40 && op <= 0x4f))
			return 1;
	}
	i++;
	bool twob = false;
	if (op == 0x0f) {
		if (i >= lim)
			return 1;
		op = code[i++];
		twob = true;
		if (op == 0x38 || op == 0x3a) {
			if (i >= lim)
				return 1;
			i++;
			f = M | (op == 0x3a ? I8 : 0);
			op = 0;                 /* no kind of interest */
		} else {
			f = two[op];
		}
	} else {
		f = one[op];
	}
	if (f & F)
		return 1;
	/* what the opcode makes of the instruction */
	bool rel = false;
	if (!twob) {
		if ((op >= 0x70 && op <= 0x7f) || op == 0xeb || op == 0xe9 || op == 0xe8)
			rel = true;
		else if (op >= 0xe0 && op <= 0xe3)
			rel = true;
		else if (op == 0xf6 || op == 0xf7) {
			if (i >= lim)
				return 1;
			if (((code[i] >> 3) & 7) < 2)
				f |= op == 0xf6 ? I8 : IZ;
		} else if (op == 0xc7 && i < lim && code[i] == 0xf8) {
			return 1;               /* xbegin */
		} else if (op == 0xfe && i < lim && ((code[i] >> 3) & 7) >= 2) {
			return 1;
		}
	} else if (op >= 0x80 && op <= 0x8f) {
		rel = true;
	} else if (op == 0xb8 && !rep) {
		return 1;                       /* popcnt needs its f3 */
	}
	if (rel && p66)
		return 1;                       /* a 16-bit branch */
	int disp_off = -1;
	if (f & M) {
		if (i >= lim)
			return 1;
		uint8_t modrm = code[i++], mod = modrm >> 6, rm = modrm & 7;
		if (mod != 3 && rm == 4) {
			if (i >= lim)
				return 1;
			uint8_t sib = code[i++];
			if (mod == 0 && (sib & 7) == 5)
				i += 4;
		} else if (mod == 0 && rm == 5) {
			disp_off = (int)i;
			i += 4;
		}
		i += mod == 1 ? 1 : mod == 2 ? 4 : 0;
		if (!twob && op == 0xff) {
			uint8_t reg = (modrm >> 3) & 7;
			if (reg == 2 || reg == 3)
				in->kind = SC_INSN_CALL_IND;
			else if (reg == 4 || reg == 5)
				in->kind = SC_INSN_JMP_IND;
			else if (reg == 7)
				return 1;
		}
	}
	size_t imm = i;
	i += (f & I8 ? 1 : 0) + (f & I16 ? 2 : 0) + (f & IZ ? (p66 ? 2 : 4) : 0) +
	     (f & IV ? (rex_w ? 8 : p66 ? 2 : 4) : 0) + (f & MOFF ? 8 : 0);
	if (i > lim)
		return 1;
	in->len = (uint8_t)i;
	if (rel) {
		int64_t d = i - imm == 1 ? (int8_t)code[imm] : rd32(code + imm);
		in->target = addr + i + (uint64_t)d;
		if (twob)
			in->kind = SC_INSN_JCC, in->cc = op & 0xf;
		else if (op >= 0x70 && op <= 0x7f)
			in->kind = SC_INSN_JCC, in->cc = op & 0xf;
		else if (op == 0xeb || op == 0xe9)
			in->kind = SC_INSN_JMP;
		else if (op == 0xe8)
			in->kind = SC_INSN_CALL;
		else
			in->kind = SC_INSN_REL_OTHER;
		return 0;
	}
	if (in->kind)
		return 0;                       /* an indirect jump or call */
	if (!twob && (op == 0xc3 || op == 0xc2))
		in->kind = SC_INSN_RET;
	else if ((!twob && op == 0x90 && !rex_b && !rep) || (twob && op == 0x1f))
		in->kind = SC_INSN_NOP;
	else if ((!twob && (op == 0xcc || op == 0xf4)) || (twob && op == 0x0b))
		in->kind = SC_INSN_STOP;
	if (disp_off >= 0 && in->kind != SC_INSN_RET) {
		in->kind = SC_INSN_RIP;
		in->disp_off = (uint8_t)disp_off;
		in->target = addr + i + (uint64_t)(int64_t)rd32(code + disp_off);
	}
	return 0;
}
