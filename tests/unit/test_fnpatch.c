/*
 * test_fnpatch.c - unit test of arch/x86_64/fnpatch.c: which function
 * bodies are refused and why, the replay copy of the overwritten
 * instructions (rip-relative operands and branches fixed, the jump back),
 * and the per-function counting code decoding as the instructions it is
 * meant to be.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnpatch.h"
#include "offsets.h"
#include "check.h"

#define ADDR 0x400000ull

static int plan(const uint8_t *code, size_t n, struct sc_fn_plan *p, const char **why)
{
	*why = NULL;
	return sc_arch_fn_plan(code, n, ADDR, p, why, NULL, NULL);
}

static void refused(const char *what, const uint8_t *code, size_t n, const char *want)
{
	struct sc_fn_plan p;
	const char *why;
	int r = plan(code, n, &p, &why);
	CHECK(r == -1 && why && !strcmp(why, want), "%s: refused as '%s' (want '%s')", what,
	      why ? why : "-", want);
}

static int32_t rel_at(const uint8_t *c)
{
	int32_t r;
	memcpy(&r, c, 4);
	return r;
}

/*
 * Sweeps the executable sections of the ELF file at path, decoding with
 * Zydis from each instruction's end to the next, and holds the table
 * decoder to Zydis's answer wherever it gives one; 0 if the file is not
 * there. *fast gets the instructions the tables decoded, *all all.
 */
static long sweep(const char *path, long *fast, long *all)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return 0;
	}
	const uint8_t *f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return 0;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
	long bad = 0;
	for (int k = 0; k < eh->e_shnum; k++) {
		const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff) + k;
		if (!(sh->sh_flags & SHF_EXECINSTR) || sh->sh_type != SHT_PROGBITS ||
		    sh->sh_offset + sh->sh_size > (uint64_t)st.st_size)
			continue;
		const uint8_t *c = f + sh->sh_offset;
		for (uint64_t off = 0; off < sh->sh_size;) {
			struct sc_insn z, t;
			uint64_t a = sh->sh_addr + off;
			size_t left = sh->sh_size - off;
			if (sc_arch_decode_zydis(c + off, left, a, &z) != 0) {
				off++;
				continue;
			}
			(*all)++;
			if (sc_arch_decode_fast(c + off, left, a, &t) == 0) {
				(*fast)++;
				if (t.len != z.len || t.kind != z.kind || t.cc != z.cc ||
				    t.disp_off != z.disp_off || t.target != z.target) {
					if (bad++ < 5)
						fprintf(stderr, "%s+%#lx: tables %u/%u/%#lx, Zydis %u/%u/%#lx "
							"(len/kind/target), bytes %02x %02x %02x %02x\n",
							path, (unsigned long)a, t.len, t.kind,
							(unsigned long)t.target, z.len, z.kind,
							(unsigned long)z.target, c[off], c[off + 1],
							c[off + 2], c[off + 3]);
				}
			}
			off += z.len;
		}
	}
	munmap((void *)f, (size_t)st.st_size);
	return bad;
}

int main(void)
{
	const char *why = NULL;
	CHECK(sc_arch_decoder_load(&why) == 0, "Zydis loads (%s)", why ? why : "ok");
	struct sc_fn_plan p;
	uint8_t out[SC_FN_REPLAY_MAX];
	uint64_t out_addr = ADDR + 0x10000;

	/* mov 0x100(%rip),%rax; ret: the displacement follows the move */
	static const uint8_t rip[] = {0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3};
	CHECK(plan(rip, sizeof(rip), &p, &why) == 0 && p.at == 0 && p.len == 7 && !p.nops,
	      "rip-relative first instruction: at %u, %u bytes", p.at, p.len);
	size_t n = sc_arch_fn_replay(out, out_addr, rip, ADDR, &p);
	CHECK_EQ(n, 12, "rip replay: the move and a jump back");
	CHECK(!memcmp(out, rip, 3) && (int64_t)rel_at(out + 3) == (int64_t)(ADDR + 7 + 0x100) -
	      (int64_t)(out_addr + 7), "rip replay: the operand still reaches ADDR+0x107");
	CHECK(out[7] == 0xe9 && out_addr + 12 + (uint64_t)(int64_t)rel_at(out + 8) == ADDR + 7,
	      "rip replay: jumps back to ADDR+7");

	/* endbr64; je +5; mov %rdi,%rax; ... : endbr kept, je widened */
	static const uint8_t jcc[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x74, 0x05, 0x48, 0x89, 0xf8,
				      0x90, 0x90, 0xc3, 0xc3, 0xc3};
	CHECK(plan(jcc, sizeof(jcc), &p, &why) == 0 && p.at == 4 && p.len == 5,
	      "endbr64 kept: jump at +%u over %u bytes", p.at, p.len);
	n = sc_arch_fn_replay(out, out_addr, jcc, ADDR, &p);
	CHECK(n == 14 && out[0] == 0x0f && out[1] == 0x84 &&
	      out_addr + 6 + (uint64_t)(int64_t)rel_at(out + 2) == ADDR + 11,
	      "je rel8 becomes je rel32 to the same target");
	CHECK(!memcmp(out + 6, jcc + 6, 3) && out[9] == 0xe9 &&
	      out_addr + 14 + (uint64_t)(int64_t)rel_at(out + 10) == ADDR + 9,
	      "then the move, then the jump back to ADDR+9");

	/* a compiler's patch site: five bytes of nop */
	static const uint8_t nops[] = {0x0f, 0x1f, 0x44, 0x00, 0x00, 0x31, 0xc0, 0xc3};
	CHECK(plan(nops, sizeof(nops), &p, &why) == 0 && p.nops && p.len == 5, "nop patch site");
	n = sc_arch_fn_replay(out, out_addr, nops, ADDR, &p);
	CHECK(n == 5 && out[0] == 0xe9, "nop site: nothing moved, only the jump back");

	/* direct recursion: a call to the entry is a call */
	static const uint8_t rec[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf8, 0xe8, 0xf5, 0xff,
				      0xff, 0xff, 0xc3};
	CHECK(plan(rec, sizeof(rec), &p, &why) == 0, "a call to its own entry is accepted");

	static const uint8_t tiny[] = {0x8d, 0x47, 0x01, 0xc3};
	refused("4 bytes", tiny, sizeof(tiny), "shorter than the jump");
	static const uint8_t ret5[] = {0x31, 0xc0, 0xc3, 0x90, 0x90, 0x90};
	refused("ret inside the first 5 bytes", ret5, sizeof(ret5), "shorter than the jump");
	static const uint8_t loop[] = {0x48, 0xff, 0xcf, 0x75, 0xfb, 0xb8, 0x07, 0x00, 0x00, 0x00,
				       0xc3};
	refused("loop head at the entry", loop, sizeof(loop), "a branch into the overwritten bytes");
	static const uint8_t into[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf8, 0xeb, 0xfb, 0xc3};
	refused("jump into the second instruction", into, sizeof(into),
		"a branch into the overwritten bytes");
	static const uint8_t ind[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf8, 0xff, 0xe0};
	refused("jmp *%rax", ind, sizeof(ind), "an indirect jump");
	/* push %rbx; call +0x20: moved as push of its return address, jmp */
	static const uint8_t call[] = {0x53, 0xe8, 0x20, 0x00, 0x00, 0x00, 0x5b, 0xc3};
	CHECK(plan(call, sizeof(call), &p, &why) == 0 && p.len == 6,
	      "a call ending the overwritten bytes is accepted");
	n = sc_arch_fn_replay(out, out_addr, call, ADDR, &p);
	uint32_t lo32, hi32;
	memcpy(&lo32, out + 2, 4);
	memcpy(&hi32, out + 10, 4);
	CHECK(n == 19 && out[0] == 0x53 && out[1] == 0x68 &&
	      ((uint64_t)hi32 << 32 | lo32) == ADDR + 6 && out[14] == 0xe9 &&
	      out_addr + 19 + (uint64_t)(int64_t)rel_at(out + 15) == ADDR + 6 + 0x20,
	      "call replay: pushes ADDR+6 (in the function), jumps to the callee, no jump back");
	static const uint8_t callret[] = {0xe8, 0x20, 0x00, 0x00, 0x00, 0xc3};
	CHECK(plan(callret, sizeof(callret), &p, &why) == 0, "a call of exactly 5 bytes first");
	static const uint8_t callmid[] = {0x90, 0xe8, 0x20, 0x00, 0x00, 0x00, 0xc3};
	CHECK(plan(callmid, sizeof(callmid), &p, &why) == 0, "nop; call: the call ends them");
	static const uint8_t callfirst[] = {0x6a, 0x01, 0xe8, 0x20, 0x00, 0x00, 0x00, 0x90,
					    0x90, 0xc3};
	CHECK(plan(callfirst, sizeof(callfirst), &p, &why) == 0 && p.len == 7,
	      "push $1; call: accepted, %u bytes", p.len);
	static const uint8_t callind[] = {0xff, 0x15, 0x00, 0x01, 0x00, 0x00, 0xc3};
	refused("call through memory first", callind, sizeof(callind),
		"a call in the overwritten bytes");
	static const uint8_t lp[] = {0xe2, 0x10, 0x48, 0x89, 0xf8, 0xc3};
	refused("loop rel8 first", lp, sizeof(lp), "an overwritten instruction that cannot be moved");
	static const uint8_t bad[] = {0x48, 0x89, 0xf8, 0x06, 0x90, 0x90, 0xc3};
	refused("an invalid opcode", bad, sizeof(bad), "an instruction the decoder does not know");

	/* the counting code: decodes to the instructions at the offsets
	 * fnpatch.h's layout gives */
	uint8_t head[SC_FN_HEAD], tail[SC_FN_TAIL];
	const uint64_t ta = ADDR + 0x100;
	struct sc_fn_refs r = {.idx = 5, .fn = 9, .lim_off = 0x100, .recs_off = 0x108,
			       .own_lo = ADDR - 0x40, .cache = ADDR - 0x80,
			       .own_ptr = ADDR - 0x30, .miss_ptr = ADDR - 0x28,
			       .ret_ptrs = ADDR - 0x20, .own_calls = true};
	CHECK(sc_arch_fn_head(head, ADDR, tail, ta, &r), "head and tail written");
	static const unsigned hs[] = {0, 5, 9, 16, 23, 29, 42, 48, 57, 64, 71, 77, SC_FN_HEAD};
	static const unsigned ts[] = {0, 5, 11, 17, 21, 28, 34, 41, 47, 54, 61, 66, 68, 74, 80, 86,
				      SC_FN_TAIL};
	unsigned off = 0, k = 0;
	struct sc_insn in;
	while (off < SC_FN_HEAD && sc_arch_decode(head + off, SC_FN_HEAD - off, ADDR + off, &in) == 0 &&
	       off == hs[k]) {
		off += in.len;
		k++;
	}
	CHECK(off == SC_FN_HEAD && k == 12, "head: twelve instructions, %u bytes", off);
	off = k = 0;
	while (off < SC_FN_TAIL && sc_arch_decode(tail + off, SC_FN_TAIL - off, ta + off, &in) == 0 &&
	       off == ts[k]) {
		off += in.len;
		k++;
	}
	CHECK(off == SC_FN_TAIL && k == 16, "tail: sixteen instructions, %u bytes", off);
	CHECK(sc_arch_decode(head + 9, 7, ADDR + 9, &in) == 0 && in.kind == SC_INSN_RIP &&
	      in.target == ADDR - 0x40, "head: sub reads the object's lo");
	CHECK(sc_arch_decode(head + 23, 6, ADDR + 23, &in) == 0 && in.kind == SC_INSN_JCC &&
	      in.cc == 3 && in.target == ta + 17, "head: jae to the foreign path");
	CHECK(sc_arch_decode(head + 42, 6, ADDR + 42, &in) == 0 && in.kind == SC_INSN_JCC &&
	      in.cc == 2 && in.target == ta, "head: jb to the own path (no record)");
	CHECK(sc_arch_decode(head + 71, 6, ADDR + 71, &in) == 0 && in.kind == SC_INSN_JCC &&
	      in.cc == 0xe && in.target == ta, "head: jle to the own path (timed)");
	uint32_t cdn = (5u << RC_SHIFT) + RC_COUNTDOWN;
	CHECK(head[64] == 0x41 && head[65] == 0xff && head[66] == 0x8a && !memcmp(head + 67, &cdn, 4),
	      "head: decl of the record's countdown");
	int32_t own_rel = (int32_t)((ADDR - 0x30) - (ta + 17));
	CHECK(sc_arch_decode(tail + 11, 6, ta + 11, &in) == 0 && in.kind == SC_INSN_JMP_IND &&
	      !memcmp(tail + 13, &own_rel, 4), "tail: jmp through the own path's pointer");
	CHECK(sc_arch_decode(tail + 21, 7, ta + 21, &in) == 0 && in.kind == SC_INSN_RIP &&
	      in.target == ADDR - 0x20 && sc_arch_decode(tail + 34, 7, ta + 34, &in) == 0 &&
	      in.target == ADDR - 0x18, "tail: compares with both return points");
	CHECK(sc_arch_decode(tail + 28, 6, ta + 28, &in) == 0 && in.kind == SC_INSN_JCC &&
	      in.target == ADDR + 29 && sc_arch_decode(tail + 41, 6, ta + 41, &in) == 0 &&
	      in.target == ADDR + 29, "tail: a tail call from a timed call is counted as own");
	CHECK(sc_arch_decode(tail + 66, 2, ta + 66, &in) == 0 && in.kind == SC_INSN_JCC &&
	      in.target == ta + 74, "tail: jae to the miss");
	CHECK(sc_arch_decode(tail + 68, 6, ta + 68, &in) == 0 && in.kind == SC_INSN_JMP_IND,
	      "tail: jmp through the cached code");
	uint32_t slow_func = SLOW_FUNC;
	CHECK(!memcmp(tail + 76, &r.fn, 4) && !memcmp(tail + 82, &slow_func, 4),
	      "tail: r11 = the function's number, r10 = SLOW_FUNC");
	/* calls from its own object not counted (a Python extension module's
	 * default): r10 back and on to the replay copy */
	r.own_calls = false;
	CHECK(sc_arch_fn_head(head, ADDR, tail, ta, &r), "head without own calls written");
	CHECK(sc_arch_decode(head + 23, 6, ADDR + 23, &in) == 0 && in.target == ta + 17 &&
	      head[29] == 0x4c && head[30] == 0x8b && sc_arch_decode(head + 34, 5, ADDR + 34, &in) == 0 &&
	      in.kind == SC_INSN_JMP && in.target == ADDR + SC_FN_HEAD && head[39] == 0xcc,
	      "head without own calls: foreign path kept, own ones jump to the replay copy");

	/* the table decoder against Zydis on real code */
	static const char *const files[] = {"/lib/x86_64-linux-gnu/libc.so.6",
					    "/usr/bin/python3.11", "/proc/self/exe"};
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		long fast = 0, all = 0, bad = sweep(files[k], &fast, &all);
		if (!all)
			continue;
		CHECK(bad == 0 && fast * 10 > all * 9, "%s: the tables agree with Zydis on every "
		      "one of the %ld instructions they decode, of %ld (%ld differ)", files[k], fast,
		      all, bad);
	}
	return check_summary();
}
