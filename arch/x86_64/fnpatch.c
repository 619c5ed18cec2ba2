/*
 * fnpatch.c - the x86-64 side of patching function entries (fnpatch.h):
 * decoding with Zydis (what insnlen.c's tables leave to it), the rules
 * that refuse a function, the replay copy and the counting code a patched
 * entry jumps to.
 *
 * Zydis is dlopen'ed, not linked: Debian ships it as a shared library
 * only, and the runtime must not bring a library into every profiled
 * process when only `--functions` needs it. Its decoder allocates
 * nothing and calls nothing of the program's.
 *
 * The refusal rules (after uftrace's, arch/x86_64/mcount-insn.c): the
 * whole function is decoded; it is refused when it is shorter than the
 * jump, when any branch of it lands in the bytes the jump overwrites (a
 * loop whose head is the entry included: each turn would count as a
 * call), when it holds an indirect jump (a switch table's targets cannot
 * be checked), or when an overwritten instruction cannot run elsewhere (a
 * call followed by other overwritten instructions: a call is moved as a
 * push of its return address in the function and a jump, so the callee
 * returns into the function, where unwinders find it, and that address
 * must be where the function goes on; an indirect call; loop, jrcxz,
 * xbegin).
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "fnpatch.h"
#include "offsets.h"

typedef ZyanStatus (*init_fn)(ZydisDecoder *, ZydisMachineMode, ZydisStackWidth);
typedef ZyanStatus (*mode_fn)(ZydisDecoder *, ZydisDecoderMode, ZyanBool);
typedef ZyanStatus (*decode_fn)(const ZydisDecoder *, ZydisDecoderContext *, const void *,
				ZyanUSize, ZydisDecodedInstruction *);

#define DECODER_SO "libZydis.so.4.0"

static ZydisDecoder decoder;
static decode_fn decode;
static const char *decoder_path;

int sc_arch_decoder_load(const char **why)
{
	if (decode)
		return 0;
	void *h = dlopen(DECODER_SO, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		*why = "cannot load " DECODER_SO " (Debian package libzydis4.0)";
		return -1;
	}
	init_fn init = (init_fn)dlsym(h, "ZydisDecoderInit");
	mode_fn mode = (mode_fn)dlsym(h, "ZydisDecoderEnableMode");
	decode_fn d = (decode_fn)dlsym(h, "ZydisDecoderDecodeInstruction");
	/* minimal: lengths, mnemonics and the raw fields are all we read,
	 * at half the cost of a full decode */
	if (!init || !mode || !d ||
	    ZYAN_FAILED(init(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(mode(&decoder, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE))) {
		*why = DECODER_SO " has no usable decoder";
		dlclose(h);
		return -1;
	}
	struct link_map *lm = NULL;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm)
		decoder_path = lm->l_name;
	decode = d;                     /* the handle is kept for good */
	return 0;
}

const char *sc_arch_decoder_path(void)
{
	return decoder_path;
}

int sc_arch_decode(const uint8_t *code, size_t n, uint64_t addr, struct sc_insn *in)
{
	int r = sc_arch_decode_fast(code, n, addr, in);
	return r == 1 ? sc_arch_decode_zydis(code, n, addr, in) : r;
}

int sc_arch_decode_zydis(const uint8_t *code, size_t n, uint64_t addr, struct sc_insn *in)
{
	ZydisDecodedInstruction z;
	if (!decode || ZYAN_FAILED(decode(&decoder, NULL, code, n, &z)))
		return -1;
	memset(in, 0, sizeof(*in));
	in->len = z.length;
	in->kind = SC_INSN_PLAIN;
	const struct ZydisDecodedInstructionRawImm_ *imm = &z.raw.imm[0];
	if (imm->is_relative) {
		in->target = addr + z.length + (uint64_t)imm->value.s;
		uint8_t op = code[imm->offset - 1];
		uint8_t op0 = imm->offset >= 2 ? code[imm->offset - 2] : 0;
		if (imm->size == 8 && op == 0xeb)
			in->kind = SC_INSN_JMP;
		else if (imm->size == 8 && op >= 0x70 && op <= 0x7f)
			in->kind = SC_INSN_JCC, in->cc = op & 0xf;
		else if (imm->size == 32 && op == 0xe9)
			in->kind = SC_INSN_JMP;
		else if (imm->size == 32 && op == 0xe8)
			in->kind = SC_INSN_CALL;
		else if (imm->size == 32 && op0 == 0x0f && op >= 0x80 && op <= 0x8f)
			in->kind = SC_INSN_JCC, in->cc = op & 0xf;
		else
			in->kind = SC_INSN_REL_OTHER;
		return 0;
	}
	switch (z.mnemonic) {
	case ZYDIS_MNEMONIC_JMP:        /* not relative: through a register or memory */
		in->kind = SC_INSN_JMP_IND;
		return 0;
	case ZYDIS_MNEMONIC_CALL:
		in->kind = SC_INSN_CALL_IND;
		return 0;
	case ZYDIS_MNEMONIC_RET:
		in->kind = SC_INSN_RET;
		return 0;
	case ZYDIS_MNEMONIC_NOP:
		in->kind = SC_INSN_NOP;
		break;
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
		in->kind = SC_INSN_STOP;
		break;
	default:
		break;
	}
	if (z.raw.modrm.offset && z.raw.modrm.mod == 0 && z.raw.modrm.rm == 5 &&
	    z.raw.disp.size == 32) {
		in->kind = SC_INSN_RIP;
		in->disp_off = z.raw.disp.offset;
		in->target = addr + z.length + (uint64_t)z.raw.disp.value;
	}
	return 0;
}

static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};

int sc_arch_fn_plan(const uint8_t *code, size_t size, uint64_t addr, struct sc_fn_plan *p,
		    const char **why, sc_fn_out_fn out, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->at = size >= 4 && !memcmp(code, endbr64, 4) ? 4 : 0;
	if (size < p->at + SC_FN_JMP) {
		*why = "shorter than the jump";
		return -1;
	}
	/* the instructions the jump overwrites */
	struct sc_insn in;
	bool nops = true;
	uint32_t off = p->at;
	while (off < p->at + SC_FN_JMP) {
		if (sc_arch_decode(code + off, size - off, addr + off, &in) != 0) {
			*why = "an instruction the decoder does not know";
			return -1;
		}
		switch (in.kind) {
		case SC_INSN_CALL:
			/* moved as push of its own return address + jmp: the
			 * callee returns into the function, where an unwinder
			 * finds it; 5 bytes, it is always the last overwritten */
			break;
		case SC_INSN_CALL_IND:
			*why = "a call in the overwritten bytes";
			return -1;
		case SC_INSN_REL_OTHER:
			*why = "an overwritten instruction that cannot be moved";
			return -1;
		case SC_INSN_JMP_IND:
		case SC_INSN_RET:
		case SC_INSN_STOP:
		case SC_INSN_JMP:
			if (off + in.len < p->at + SC_FN_JMP) {
				*why = "shorter than the jump";    /* ends before 5 bytes */
				return -1;
			}
			break;
		default:
			break;
		}
		nops = nops && in.kind == SC_INSN_NOP;
		off += in.len;
	}
	p->len = off - p->at;
	p->nops = nops;
	/* every branch of the whole function */
	uint64_t lo = addr, hi = addr + p->at + p->len;
	for (off = 0; off < size; off += in.len) {
		if (sc_arch_decode(code + off, size - off, addr + off, &in) != 0) {
			*why = "an instruction the decoder does not know";
			return -1;
		}
		if (in.kind == SC_INSN_JMP_IND) {
			*why = "an indirect jump";
			return -1;
		}
		bool rel = in.kind == SC_INSN_JMP || in.kind == SC_INSN_JCC ||
			   in.kind == SC_INSN_CALL || in.kind == SC_INSN_REL_OTHER;
		if (rel && in.target >= lo && in.target < hi &&
		    !(in.kind == SC_INSN_CALL && in.target == addr)) {
			*why = "a branch into the overwritten bytes";
			return -1;
		}
		if (rel && out && (in.target < addr || in.target >= addr + size))
			out(ctx, in.target, in.kind == SC_INSN_CALL);
	}
	return 0;
}

static bool put_rel32(uint8_t *field, uint64_t end, uint64_t to)
{
	int64_t d = (int64_t)(to - end);
	if (d != (int32_t)d)
		return false;
	int32_t r = (int32_t)d;
	memcpy(field, &r, 4);
	return true;
}

size_t sc_arch_fn_replay(uint8_t *out, uint64_t out_addr, const uint8_t *code, uint64_t addr,
			 const struct sc_fn_plan *p)
{
	size_t n = 0;
	bool falls = true;              /* the last instruction falls through */
	struct sc_insn in;
	for (uint32_t off = p->at; off < p->at + p->len && !p->nops; off += in.len) {
		if (sc_arch_decode(code + off, p->at + p->len - off, addr + off, &in) != 0 ||
		    n + 6 + 5 > SC_FN_REPLAY_MAX)
			return 0;
		uint8_t *o = out + n;
		falls = true;
		switch (in.kind) {
		case SC_INSN_JMP:
			o[0] = 0xe9;
			if (!put_rel32(o + 1, out_addr + n + 5, in.target))
				return 0;
			n += 5;
			falls = false;
			break;
		case SC_INSN_JCC:
			o[0] = 0x0f;
			o[1] = (uint8_t)(0x80 | in.cc);
			if (!put_rel32(o + 2, out_addr + n + 6, in.target))
				return 0;
			n += 6;
			break;
		case SC_INSN_CALL: {
			/* push $ret (low half, sign-extended), movl $high,
			 * 4(%rsp), jmp target: the return address is the
			 * function's own (fnpatch.h) */
			uint64_t ret = addr + off + in.len;
			uint32_t lo32 = (uint32_t)ret, hi32 = (uint32_t)(ret >> 32);
			if (n + 18 > SC_FN_REPLAY_MAX)
				return 0;
			o[0] = 0x68;
			memcpy(o + 1, &lo32, 4);
			o[5] = 0xc7, o[6] = 0x44, o[7] = 0x24, o[8] = 0x04;
			memcpy(o + 9, &hi32, 4);
			o[13] = 0xe9;
			if (!put_rel32(o + 14, out_addr + n + 18, in.target))
				return 0;
			n += 18;
			falls = false;
			break;
		}
		case SC_INSN_RIP:
			memcpy(o, code + off, in.len);
			if (!put_rel32(o + in.disp_off, out_addr + n + in.len, in.target))
				return 0;
			n += in.len;
			break;
		case SC_INSN_RET:
		case SC_INSN_JMP_IND:
		case SC_INSN_STOP:
			falls = false;
			/* fall through */
		default:
			memcpy(o, code + off, in.len);
			n += in.len;
			break;
		}
	}
	if (falls) {
		out[n] = 0xe9;
		if (!put_rel32(out + n + 1, out_addr + n + 5, addr + p->at + p->len))
			return 0;
		n += 5;
	}
	return n;
}

/* `op r10, disp32(%rip)`: 4c <op> 15 <rel32>, 7 bytes (op 2b sub, 3b cmp) */
static bool rip_op(uint8_t *c, uint64_t c_addr, uint8_t op, uint64_t to)
{
	c[0] = 0x4c, c[1] = op, c[2] = 0x15;
	return put_rel32(c + 3, c_addr + 7, to);
}

bool sc_arch_fn_head(uint8_t *c, uint64_t ca, uint8_t *t, uint64_t ta,
		     const struct sc_fn_refs *r)
{
	/* the counted path mirrors sc_arch_write_entry's (arch.h), with %r10
	 * kept below the stack pointer (the callee's red zone, free at its
	 * entry: a signal frame skips it) and %r11 untouched */
	static const uint8_t save_r10[5] = {0x4c, 0x89, 0x54, 0x24, 0xf8};
	static const uint8_t load_r10[5] = {0x4c, 0x8b, 0x54, 0x24, 0xf8};
	static const uint8_t save_r11[5] = {0x4c, 0x89, 0x5c, 0x24, 0xf0};
	static const uint8_t ret_r10[4] = {0x4c, 0x8b, 0x14, 0x24};     /* mov (%rsp), %r10 */
	if (r->idx >= (1u << (31 - RC_SHIFT)))
		return false;
	uint32_t imm = r->idx + 1, rec = r->idx << RC_SHIFT;
	uint32_t cnt = rec + RC_COUNT, cdn = rec + RC_COUNTDOWN;
	const uint64_t counted = ca + 29, own = ta, foreign = ta + 17;
	memcpy(c, save_r10, 5);
	memcpy(c + 5, ret_r10, 4);
	bool ok = rip_op(c + 9, ca + 9, 0x2b, r->own_lo) &&            /* sub lo, %r10 */
		  rip_op(c + 16, ca + 16, 0x3b, r->own_lo + 8);         /* cmp span, %r10 */
	c[23] = 0x0f, c[24] = 0x83;                                     /* jae foreign */
	ok = ok && put_rel32(c + 25, ca + 29, foreign);
	c[29] = 0x64, c[30] = 0x48, c[31] = 0x81, c[32] = 0x3c, c[33] = 0x25; /* cmpq $imm, %fs:lim */
	memcpy(c + 34, &r->lim_off, 4);
	memcpy(c + 38, &imm, 4);
	c[42] = 0x0f, c[43] = 0x82;                                     /* jb own (CF=1) */
	ok = ok && put_rel32(c + 44, ca + 48, own);
	c[48] = 0x64, c[49] = 0x4c, c[50] = 0x8b, c[51] = 0x14, c[52] = 0x25; /* mov %fs:recs, %r10 */
	memcpy(c + 53, &r->recs_off, 4);
	c[57] = 0x49, c[58] = 0xff, c[59] = 0x82;                       /* incq cnt(%r10) */
	memcpy(c + 60, &cnt, 4);
	c[64] = 0x41, c[65] = 0xff, c[66] = 0x8a;                       /* decl cdn(%r10) */
	memcpy(c + 67, &cdn, 4);
	c[71] = 0x0f, c[72] = 0x8e;                                     /* jle own (CF=0) */
	ok = ok && put_rel32(c + 73, ca + 77, own);
	memcpy(c + 77, load_r10, 5);
	/* own: r11 saved below r10's copy, r11 = idx << 8, the flags kept */
	memcpy(t, save_r11, 5);
	t[5] = 0x41, t[6] = 0xbb;
	memcpy(t + 7, &rec, 4);
	t[11] = 0xff, t[12] = 0x25;
	ok = ok && put_rel32(t + 13, ta + 17, r->own_ptr);
	/* foreign: a tail call from a timed call counts as its own object's;
	 * the caller's entry when it is the cached caller; else sc_slowpath
	 * with r11 = the function's number, r10 = SLOW_FUNC */
	memcpy(t + 17, ret_r10, 4);
	ok = ok && rip_op(t + 21, ta + 21, 0x3b, r->ret_ptrs);
	t[28] = 0x0f, t[29] = 0x84;                                     /* je counted */
	ok = ok && put_rel32(t + 30, ta + 34, counted);
	ok = ok && rip_op(t + 34, ta + 34, 0x3b, r->ret_ptrs + 8);
	t[41] = 0x0f, t[42] = 0x84;
	ok = ok && put_rel32(t + 43, ta + 47, counted);
	ok = ok && rip_op(t + 47, ta + 47, 0x2b, r->cache) &&
	     rip_op(t + 54, ta + 54, 0x3b, r->cache + 8);
	memcpy(t + 61, load_r10, 5);
	t[66] = 0x73, t[67] = 6;                                        /* jae miss */
	t[68] = 0xff, t[69] = 0x25;
	ok = ok && put_rel32(t + 70, ta + 74, r->cache + 16);
	uint32_t why = SLOW_FUNC;
	t[74] = 0x41, t[75] = 0xbb;
	memcpy(t + 76, &r->fn, 4);
	t[80] = 0x41, t[81] = 0xba;
	memcpy(t + 82, &why, 4);
	t[86] = 0xff, t[87] = 0x25;
	ok = ok && put_rel32(t + 88, ta + 92, r->miss_ptr);
	if (!r->own_calls) {
		/* counted: r10 back, jmp replay */
		memcpy(c + 29, load_r10, 5);
		c[34] = 0xe9;
		ok = ok && put_rel32(c + 35, ca + 39, ca + SC_FN_HEAD);
		memset(c + 39, 0xcc, SC_FN_HEAD - 39);
	}
	return ok;
}

bool sc_arch_fn_jump(uint8_t *out, uint64_t at_addr, uint64_t to, uint32_t len)
{
	out[0] = 0xe9;
	memset(out + SC_FN_JMP, 0xcc, len - SC_FN_JMP);
	return put_rel32(out + 1, at_addr + SC_FN_JMP, to);
}
