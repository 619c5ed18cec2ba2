/*
 * test_gotscan.c - unit test of sc_arch_got_refs (arch/x86_64/gotscan.c):
 * each instruction form alone, at every offset of a block (the vector loop
 * and the scalar tail), and against a byte-at-a-time reference on random
 * code sprinkled with the forms' bytes and on this machine's libc.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "check.h"

struct hits {
	size_t n;
	uint64_t sum;           /* order-independent digest of (slot, call) */
	uintptr_t last;
	bool last_call;
};

static void hit(void *ctx, uintptr_t slot, bool call)
{
	struct hits *h = ctx;
	h->n++;
	h->sum += (slot * 2654435761u) ^ (call ? 0x9e3779b97f4a7c15ull : 0);
	h->last = slot;
	h->last_call = call;
}

/* the definition, one position at a time */
static void reference(const uint8_t *c, size_t len, uintptr_t lo, uintptr_t hi, struct hits *h)
{
	for (size_t i = 0; i < len; i++) {
		int32_t d;
		uintptr_t t;
		bool call;
		if (i + 6 <= len && c[i] == 0xff && (c[i + 1] == 0x15 || c[i + 1] == 0x25 || c[i + 1] == 0x35)) {
			memcpy(&d, c + i + 2, 4);
			t = (uintptr_t)(c + i + 6) + (uintptr_t)(intptr_t)d;
			call = c[i + 1] != 0x35;
		} else if (i + 7 <= len && (c[i] == 0x48 || c[i] == 0x4c) && c[i + 1] == 0x8b &&
			   (c[i + 2] & 0xc7) == 0x05) {
			memcpy(&d, c + i + 3, 4);
			t = (uintptr_t)(c + i + 7) + (uintptr_t)(intptr_t)d;
			call = false;
		} else {
			continue;
		}
		if (t >= lo && t <= hi)
			hit(h, t, call);
	}
}

/* the form this CPU gets, and each of the two: 16 positions at a time in
 * SSE2 (every x86-64 CPU), 32 in AVX2 (tested only where the CPU has it) */
static void (*const scan[3])(const uint8_t *, size_t, uintptr_t, uintptr_t, sc_got_ref_fn, void *) = {
	sc_arch_got_refs, sc_arch_got_refs_sse2, sc_arch_got_refs_avx2};
static const char *const scan_name[3] = {"", " (SSE2)", " (AVX2)"};
static int n_scans = 2;         /* 3 where the CPU has AVX2 */

/* one instruction (n bytes) at offset off of a 64-byte buffer of nops,
 * its displacement pointing at the buffer's end + 8 */
static void single(const char *what, const uint8_t *insn, size_t n, bool want_call)
{
	for (size_t off = 0; off + n <= 64; off++) {
		uint8_t buf[64];
		memset(buf, 0x90, sizeof(buf));
		memcpy(buf, insn, n);
		memmove(buf + off, buf, n);
		memset(buf, 0x90, off);
		uintptr_t slot = (uintptr_t)buf + 72;
		int32_t d = (int32_t)(slot - ((uintptr_t)buf + off + n));
		memcpy(buf + off + n - 4, &d, 4);
		for (int k = 0; k < n_scans; k++) {
			struct hits h = {0};
			scan[k](buf, sizeof(buf), slot, slot, hit, &h);
			if (h.n != 1 || h.last != slot || h.last_call != want_call) {
				CHECK(0, "%s at offset %zu%s: %zu hits", what, off, scan_name[k], h.n);
				return;
			}
		}
		struct hits h = {0};
		/* out of the range asked for: no hit */
		memset(&h, 0, sizeof(h));
		sc_arch_got_refs(buf, sizeof(buf), slot + 8, slot + 16, hit, &h);
		if (h.n) {
			CHECK(0, "%s at offset %zu: hit outside [lo, hi]", what, off);
			return;
		}
	}
	CHECK(1, "%s found at every offset, with its slot and kind", what);
}

static void compare(const char *what, const uint8_t *c, size_t len, uintptr_t lo, uintptr_t hi)
{
	for (int k = 0; k < n_scans; k++) {
		struct hits a = {0}, b = {0};
		scan[k](c, len, lo, hi, hit, &a);
		reference(c, len, lo, hi, &b);
		CHECK(a.n == b.n && a.sum == b.sum, "%s%s: %zu uses, reference %zu",
		      what, scan_name[k], a.n, b.n);
	}
}

int main(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2"))
		n_scans = 3;
	single("call *slot(%rip)", (const uint8_t *)"\xff\x15\0\0\0\0", 6, true);
	single("jmp *slot(%rip)", (const uint8_t *)"\xff\x25\0\0\0\0", 6, true);
	single("push slot(%rip)", (const uint8_t *)"\xff\x35\0\0\0\0", 6, false);
	single("mov slot(%rip),%rax", (const uint8_t *)"\x48\x8b\x05\0\0\0\0", 7, false);
	single("mov slot(%rip),%r15", (const uint8_t *)"\x4c\x8b\x3d\0\0\0\0", 7, false);

	/* mov 0(%rax),%rax (mod 00, rm 000) and a 32-bit load are not uses */
	uint8_t nope[32];
	memset(nope, 0x90, sizeof(nope));
	memcpy(nope + 3, "\x48\x8b\x00\x8b\x05\x10\x00\x00\x00\xff\xd0", 11);
	compare("not uses", nope, sizeof(nope), 0, UINTPTR_MAX);
	struct hits none = {0};
	sc_arch_got_refs(nope, sizeof(nope), 0, UINTPTR_MAX, hit, &none);
	CHECK_EQ(none.n, 0, "uses among mov (%rax), a 32-bit load and call *%rax");

	/* random code, dense in the forms' bytes; every length to 64 */
	srand(7);
	static uint8_t rnd[1 << 16];
	static const uint8_t pick[] = {0xff, 0x15, 0x25, 0x35, 0x48, 0x4c, 0x8b, 0x05, 0x3d, 0x00};
	for (size_t i = 0; i < sizeof(rnd); i++)
		rnd[i] = (rand() & 1) ? pick[rand() % sizeof(pick)] : (uint8_t)rand();
	for (int k = 0; k < n_scans; k++)
		for (size_t len = 0; len <= 100; len++) {
			struct hits a = {0}, b = {0};
			scan[k](rnd + 100, len, 0, UINTPTR_MAX, hit, &a);
			reference(rnd + 100, len, 0, UINTPTR_MAX, &b);
			if (a.n != b.n || a.sum != b.sum) {
				CHECK(0, "random code of %zu bytes%s: %zu uses, reference %zu",
				      len, scan_name[k], a.n, b.n);
				break;
			}
			if (len == 100)
				CHECK(1, "random code of 0 to 100 bytes%s: same uses as the reference",
				      scan_name[k]);
		}
	compare("64 KiB of random code, every slot", rnd, sizeof(rnd), 0, UINTPTR_MAX);

	/* real code: libc, scanned whole as one segment */
	int fd = open("/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0) {
		const uint8_t *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			compare("libc.so.6", m, (size_t)st.st_size, 0, UINTPTR_MAX);
			munmap((void *)m, (size_t)st.st_size);
		}
		close(fd);
	}
	return check_summary();
}
