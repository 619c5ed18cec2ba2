/*
 * main.c - the "amx" e2e program: AMX tile data loaded before a program's
 * first calls through the runtime (each an import's bind, on its slow
 * path: xsave and xrstor around C) is still there after them: the
 * runtime's save leaves the tile state out (offsets.h: XS_SKIP) and must
 * then leave it alone on the restore too. Exits 77 where the CPU or the
 * kernel offers no AMX.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cpuid.h>

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

struct tilecfg {
	uint8_t palette, start_row, reserved[14];
	uint16_t colsb[16];
	uint8_t rows[16];
} __attribute__((aligned(64)));

static uint8_t in[16 * 64] __attribute__((aligned(64)));
static uint8_t out[16 * 64] __attribute__((aligned(64)));
static const char *volatile text = "12345";

int main(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d & (1u << 24)) ||
	    syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0)
		return 77;
	struct tilecfg cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.palette = 1;
	cfg.colsb[0] = 64;
	cfg.rows[0] = 16;
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 7 + 3);
	__asm__ volatile("ldtilecfg %0" : : "m"(cfg));
	__asm__ volatile("tileloadd (%0,%1,1), %%tmm0" : : "r"(in), "r"((long)64) : "memory");
	/* first calls: each binds through the slow path */
	long acc = strtol(text, NULL, 10) + (long)getpid() % 2 + (long)strnlen(text, 3) +
		   abs(atoi(text)) % 3 + (long)getppid() % 2;
	for (int i = 0; i < 1000; i++)
		acc += (long)strnlen(text, (size_t)(i & 3));
	__asm__ volatile("tilestored %%tmm0, (%0,%1,1)" : : "r"(out), "r"((long)64) : "memory");
	__asm__ volatile("tilerelease");
	printf("%s (%ld)\n", memcmp(in, out, sizeof(in)) ? "tile data lost" : "tile data kept",
	       acc > 0 ? 1L : 0L);
	return 0;
}
