/*
 * acclib.c - libbenchacc.so for bench/accuracy.sh: library functions with
 * known shapes of call length, to compare per-API times under adaptive
 * timing with timing every call. bench/accuracy.c also builds a private
 * copy of them (under other names, ACC_LINKAGE static) as the truth.
 */
#ifndef ACC_LINKAGE
#define ACC_LINKAGE
#endif

static volatile unsigned sink;

static void work(unsigned n)
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++)
		s += i * 2654435761u;
	sink += s;
}

/* a few ns: the common case of a cheap library call */
ACC_LINKAGE unsigned acc_cheap(unsigned x) { return x * 3u + 1u; }
/* short calls of varying length (4 .. 67 iterations) */
ACC_LINKAGE void acc_short(unsigned i) { work(4 + (i * 7u) % 64); }
/* mixed: 1 % long (~5 us), 9 % medium (~200 ns), 90 % short */
ACC_LINKAGE void acc_mixed(unsigned i) { work(i % 100 == 0 ? 10000 : i % 10 == 0 ? 400 : 10); }
/* a strict period: every 64th call is long, the rest very short */
ACC_LINKAGE void acc_period(unsigned i) { work(i % 64 == 0 ? 3000 : 2); }
