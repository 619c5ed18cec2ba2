/*
 * test_entry.c - unit test of sc_arch_write_entry (arch/x86_64/arch.h),
 * the code of one shadow entry, written byte by byte:
 *  1. its bytes are what the assembler makes of the same instructions
 *     (ref_entry below, with the same constants);
 *  2. run, it does what intercept.S's sc_shadow_rare relies on: counts and
 *     jumps to the target while the gate lets it and the countdown lasts;
 *     goes to the head with the carry set, r11 = idx << 8 and nothing
 *     counted when the gate is shut (lim <= idx); and with the carry clear
 *     after counting when the countdown runs out, r10 = the records;
 *  3. sc_arch_write_bare_entry's entry (SCALER_BARE) only jumps on.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "arch.h"
#include "check.h"
#include "format.h"

/*
 * The reference, for idx 200 (an immediate and displacements too big for
 * the assembler's short forms), lim at %fs:-0x40, recs at %fs:-0x38; its
 * jumps go through ref_tgt and ref_head, 64 and 72 bytes after it.
 */
void ref_entry(void);
__asm__(".pushsection .rodata\n"
	".p2align 6\n"
	"ref_entry:\n"
	"	endbr64\n"
	"	cmpq $201, %fs:-0x40\n"
	"	jb 1f\n"
	"	movq %fs:-0x38, %r10\n"
	"	incq 51200(%r10)\n"
	"	decl 51224(%r10)\n"
	"	jle 1f\n"
	"	jmp *ref_tgt(%rip)\n"
	"1:	movl $51200, %r11d\n"
	"	jmp *ref_head(%rip)\n"
	"	int3\n"
	"	int3\n"
	"ref_tgt: .quad 0\n"
	"ref_head: .quad 0\n"
	".popsection\n");

static void same_bytes(void)
{
	uint8_t buf[80];
	memset(buf, 0, sizeof(buf));
	bool ok = sc_arch_write_entry(buf, 200, buf + 72, buf + 64, -0x40, -0x38);
	CHECK(ok, "written");
	const uint8_t *ref = (const uint8_t *)(uintptr_t)ref_entry;
	int i = 0;
	while (i < ENTRY_CODE_SIZE && buf[i] == ref[i])
		i++;
	CHECK(i == ENTRY_CODE_SIZE, "64 bytes as the assembler's (%d the same, then %02x for %02x)",
	      i, i < ENTRY_CODE_SIZE ? buf[i] : 0, i < ENTRY_CODE_SIZE ? ref[i] : 0);
}

/* what the entry reads through %fs, as the runtime's own TLS is */
static __thread uint64_t lim;
static __thread struct sc_rec *recs;

/* the target and the head: each says where the call went; the head also
 * what the entry left in the carry flag and r11 */
uint64_t seen_cf, seen_r10, seen_r11;
long test_target(void);
long test_head(void);
__asm__(".text\n"
	"test_target:\n"
	"	movl $42, %eax\n"
	"	ret\n"
	"test_head:\n"
	"	setc %al\n"
	"	movzbl %al, %eax\n"
	"	movq %rax, seen_cf(%rip)\n"
	"	movq %r10, seen_r10(%rip)\n"
	"	movq %r11, seen_r11(%rip)\n"
	"	movl $7, %eax\n"
	"	ret\n");

#define IDX 3

struct code_page {
	void *head;                     /* what the entry's tail jumps through */
	void *target[IDX + 1];          /* the entry table's targets, by idx */
	uint8_t pad[64 - 8 - 8 * (IDX + 1)];
	uint8_t code[ENTRY_CODE_SIZE];
};

/* a writable page whose entry will jump through head and target[IDX] */
static struct code_page *new_page(void)
{
	struct code_page *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap");
	if (p == MAP_FAILED)
		return NULL;
	p->head = (void *)test_head;
	p->target[IDX] = (void *)test_target;
	return p;
}

static void runs(void)
{
	struct code_page *p = new_page();
	if (!p)
		return;
	intptr_t lo = sc_arch_tls_offset(&lim), ro = sc_arch_tls_offset(&recs);
	CHECK(lo == (int32_t)lo && ro == (int32_t)ro, "TLS offsets %ld %ld", (long)lo, (long)ro);
	bool ok = sc_arch_write_entry(p->code, IDX, &p->head, &p->target[IDX],
				      (int32_t)lo, (int32_t)ro);
	CHECK(ok, "written");
	CHECK(mprotect(p, 4096, PROT_READ | PROT_EXEC) == 0, "mprotect");
	long (*entry)(void) = (long (*)(void))(uintptr_t)p->code;

	static struct sc_rec r[IDX + 1];
	recs = r;
	r[IDX].countdown = 2;

	lim = IDX;                      /* gate shut: lim <= idx */
	long v = entry();
	CHECK(v == 7 && seen_cf == 1 && seen_r11 == (IDX << RC_SHIFT),
	      "gate shut: %ld, CF %lu, r11 %#lx", v, (unsigned long)seen_cf,
	      (unsigned long)seen_r11);
	CHECK(r[IDX].count == 0 && r[IDX].countdown == 2, "gate shut: counted %lu",
	      (unsigned long)r[IDX].count);

	lim = IDX + 1;                  /* open: counted, then to the target */
	v = entry();
	CHECK(v == 42 && r[IDX].count == 1 && r[IDX].countdown == 1,
	      "open: %ld, count %lu, countdown %d", v, (unsigned long)r[IDX].count,
	      (int)r[IDX].countdown);

	seen_cf = 9;                    /* the countdown runs out: timed */
	v = entry();
	CHECK(v == 7 && seen_cf == 0 && seen_r11 == (IDX << RC_SHIFT),
	      "timed: %ld, CF %lu, r11 %#lx", v, (unsigned long)seen_cf,
	      (unsigned long)seen_r11);
	CHECK(seen_r10 == (uintptr_t)r, "timed: r10 = the records");
	CHECK(r[IDX].count == 2 && r[IDX].countdown == 0, "timed: count %lu, countdown %d",
	      (unsigned long)r[IDX].count, (int)r[IDX].countdown);
	CHECK(r[0].count == 0 && r[IDX - 1].count == 0, "other records untouched");

	/* out of reach: a target 4 GB away is refused, not truncated */
	uint8_t buf[ENTRY_CODE_SIZE];
	CHECK(!sc_arch_write_entry(buf, 1, buf, buf + (1ull << 32), 0, 0), "far target refused");
	CHECK(!sc_arch_write_bare_entry(buf, buf + (1ull << 32)), "bare: far target refused");
	munmap(p, 4096);
}

/* SCALER_BARE's entry: straight to the target, the gate and the records
 * never looked at (both would send a counting entry to the head) */
static void bare(void)
{
	struct code_page *p = new_page();
	if (!p)
		return;
	CHECK(sc_arch_write_bare_entry(p->code, &p->target[IDX]), "bare: written");
	CHECK(p->code[0] == 0xf3 && p->code[4] == 0xff && p->code[5] == 0x25 &&
	      p->code[ENTRY_CODE_SIZE - 1] == 0xcc, "bare: endbr64, jmp *, int3 after");
	CHECK(mprotect(p, 4096, PROT_READ | PROT_EXEC) == 0, "mprotect");
	long (*entry)(void) = (long (*)(void))(uintptr_t)p->code;
	static struct sc_rec r[IDX + 1];
	recs = r;
	lim = 0;
	long v = entry();
	CHECK(v == 42 && r[IDX].count == 0, "bare: %ld, count %lu", v, (unsigned long)r[IDX].count);
	munmap(p, 4096);
}

int main(void)
{
	same_bytes();
	runs();
	bare();
	return check_summary();
}
