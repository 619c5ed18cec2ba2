/*
 * repoint - an executable's GOT slot, once its import has been called,
 * ends up at the import's shadow entry and not on the import's stub.
 *
 * The runtime points every hooked slot at a 16-byte stub first, then at
 * the import's entry at its first call. The main executable's read-only
 * slots (-z now: RELRO) are written in batches (runtime/patch.c), and
 * meanwhile calls through them take the stub; every 64 such calls ask
 * whether the batch is due, so a program that binds nothing more does not
 * keep its hot imports there. This program binds one import, calls it for
 * 20 ms, then reads its own slot for rp_f (the JUMP_SLOT, or the GLOB_DAT
 * slot under -fno-plt) and says whether the code there is a stub:
 * scaler's stubs start with endbr64 and `mov $n, %r11d` (41 bb,
 * arch/x86_64/arch.h), which rp_f, an entry or a PLT never does. Without
 * a profiler the slot holds rp_f itself; either way the line printed is
 * the same. rp_f is called at least 2 000 001 times, every call counted.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int rp_f(int x);

static uintptr_t base;

static int first(struct dl_phdr_info *i, size_t n, void *p)
{
	(void)n;
	(void)p;
	base = i->dlpi_addr;            /* the first object is the program */
	return 1;
}

/* the loader may have relocated the dynamic section's pointers, or not */
static uintptr_t ptr(uintptr_t v)
{
	return v < base ? v + base : v;
}

static void **slot_of(const char *name)
{
	const ElfW(Rela) *rel[2] = {0, 0};
	size_t sz[2] = {0, 0};
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL;
	dl_iterate_phdr(first, NULL);
	for (const ElfW(Dyn) *d = _DYNAMIC; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_JMPREL: rel[0] = (const void *)ptr(d->d_un.d_ptr); break;
		case DT_PLTRELSZ: sz[0] = d->d_un.d_val; break;
		case DT_RELA: rel[1] = (const void *)ptr(d->d_un.d_ptr); break;
		case DT_RELASZ: sz[1] = d->d_un.d_val; break;
		case DT_SYMTAB: sym = (const void *)ptr(d->d_un.d_ptr); break;
		case DT_STRTAB: str = (const void *)ptr(d->d_un.d_ptr); break;
		}
	}
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; rel[k] && sym && str && i < sz[k] / sizeof(ElfW(Rela)); i++) {
			unsigned long t = ELF64_R_TYPE(rel[k][i].r_info);
			if (t != R_X86_64_JUMP_SLOT && t != R_X86_64_GLOB_DAT)
				continue;
			if (!strcmp(str + sym[ELF64_R_SYM(rel[k][i].r_info)].st_name, name))
				return (void **)(base + rel[k][i].r_offset);
		}
	}
	return NULL;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void)
{
	volatile int acc = rp_f(1);     /* binds it */
	long long t0 = now_ns();
	/* rounds of 100000 calls: at least 20 of them, and 20 ms */
	for (int r = 0; r < 20 || now_ns() - t0 < 20000000LL; r++)
		for (int i = 0; i < 100000; i++)
			acc += rp_f(i);
	void **s = slot_of("rp_f");
	if (!s) {
		printf("no slot for rp_f\n");
		return 1;
	}
	const unsigned char *c = *s;
	int stub = c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa &&
		   c[4] == 0x41 && c[5] == 0xbb;
	printf("rp_f's slot: %s\n", stub ? "still an import stub" : "settled");
	return stub;
}
