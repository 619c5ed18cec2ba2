/*
 * fnown/main.c - calls of patched functions from their own object, timed
 * by scaler's register-keeping path (checks/fnown.py):
 *   fo_leaf     an assembly function that touches only %rax, called by
 *               fo_regs, which keeps sentinels in every other
 *               caller-saved register and in vector registers across
 *               each call and counts the calls after which one changed
 *               (from main and from a new thread, whose first call has no
 *               record yet). Not the flags: no compiler keeps them live
 *               across a call (GCC's -fipa-ra counts them clobbered by
 *               every call), and the entry's counting code changes them
 *   fo_mix      a static function GCC's -fipa-ra knows clobbers only
 *               %rax: fo_ipa keeps its loop's values in caller-saved
 *               registers across the call (the check reads the code)
 *   fo_outer    busy computing, calling nothing, before and after fo_inner,
 *               which is busy the same way: the program measures both
 *               with its own clock and prints their self times
 * The output must not change under scaler; "bad 0" means every register
 * came back.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

long fo_regs(long n);

/* fo_leaf: rax = (rdi + 1) * 3, touching no other register.
 * fo_regs(n): n calls of fo_leaf; returns how many changed a register. */
__asm__(".text\n"
	".type fo_leaf, @function\n"
	"fo_leaf:\n"
	"\tlea 1(%rdi), %rax\n"
	"\tlea (%rax,%rax,2), %rax\n"
	"\tret\n"
	".size fo_leaf, .-fo_leaf\n"
	".globl fo_regs\n.type fo_regs, @function\n"
	"fo_regs:\n"
	"\tpush %rbx\n\tpush %r12\n\tpush %r13\n\tpush %r14\n"
	"\tmov %rdi, %rbx\n"
	"\txor %r12d, %r12d\n"          /* calls that changed something */
	"1:\ttest %rbx, %rbx\n\tjz 9f\n"
	"\tmovabs $0x1111111111111111, %rcx\n"
	"\tmovabs $0x2222222222222222, %rdx\n"
	"\tmovabs $0x3333333333333333, %rsi\n"
	"\tmovabs $0x4444444444444444, %r8\n"
	"\tmovabs $0x5555555555555555, %r9\n"
	"\tmovabs $0x6666666666666666, %r10\n"
	"\tmovabs $0x7777777777777777, %r11\n"
	"\tmov %rbx, %rdi\n"
	"\tmovq %rcx, %xmm0\n\tmovq %rdx, %xmm1\n\tmovq %rsi, %xmm2\n\tmovq %r8, %xmm7\n"
	"\tmovq %r9, %xmm8\n\tmovq %r11, %xmm15\n"
	"\tcall fo_leaf\n"
	"\txor %r14d, %r14d\n"          /* r14 = something changed */
	"\tlea 1(%rbx), %r13\n\tlea (%r13,%r13,2), %r13\n"
	"\tcmp %r13, %rax\n\tjne 2f\n"
	"\tcmp %rbx, %rdi\n\tjne 2f\n"
	"\tmovabs $0x1111111111111111, %r13\n\tcmp %r13, %rcx\n\tjne 2f\n"
	"\tmovq %xmm0, %rax\n\tcmp %r13, %rax\n\tjne 2f\n"
	"\tmovabs $0x2222222222222222, %r13\n\tcmp %r13, %rdx\n\tjne 2f\n"
	"\tmovq %xmm1, %rax\n\tcmp %r13, %rax\n\tjne 2f\n"
	"\tmovabs $0x3333333333333333, %r13\n\tcmp %r13, %rsi\n\tjne 2f\n"
	"\tmovq %xmm2, %rax\n\tcmp %r13, %rax\n\tjne 2f\n"
	"\tmovabs $0x4444444444444444, %r13\n\tcmp %r13, %r8\n\tjne 2f\n"
	"\tmovq %xmm7, %rax\n\tcmp %r13, %rax\n\tjne 2f\n"
	"\tmovabs $0x5555555555555555, %r13\n\tcmp %r13, %r9\n\tjne 2f\n"
	"\tmovq %xmm8, %rax\n\tcmp %r13, %rax\n\tjne 2f\n"
	"\tmovabs $0x6666666666666666, %r13\n\tcmp %r13, %r10\n\tjne 2f\n"
	"\tmovabs $0x7777777777777777, %r13\n\tcmp %r13, %r11\n\tjne 2f\n"
	"\tmovq %xmm15, %rax\n\tcmp %r13, %rax\n\tjne 2f\n"
	"\tjmp 3f\n"
	"2:\tmov $1, %r14d\n"
	"3:\tadd %r14, %r12\n"
	"\tdec %rbx\n\tjmp 1b\n"
	"9:\tmov %r12, %rax\n"
	"\tpop %r14\n\tpop %r13\n\tpop %r12\n\tpop %rbx\n"
	"\tret\n"
	".size fo_regs, .-fo_regs\n");

/* what -fipa-ra sees: a function that clobbers nothing but %rax */
__attribute__((noinline)) static long fo_mix(long x)
{
	return x * 5 + 1;
}

/* its caller, with more live values than callee-saved registers to spare */
__attribute__((noinline)) static long fo_ipa(const long *a, long n)
{
	long s = 0, t = 0, u = 0, w = 7;
	for (long i = 0; i < n; i++) {
		long v = fo_mix(a[i]);
		s += v;
		t ^= v << (i & 7);
		u += i * v;
		w = w * 3 + (v & 15);
	}
	return s ^ t ^ u ^ w;
}

static long ipa_expected(const long *a, long n)
{
	long s = 0, t = 0, u = 0, w = 7;
	for (long i = 0; i < n; i++) {
		long v = a[i] * 5 + 1;
		s += v;
		t ^= v << (i & 7);
		u += i * v;
		w = w * 3 + (v & 15);
	}
	return s ^ t ^ u ^ w;
}

static long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static volatile unsigned long sink;
static long self_outer, self_inner, total_outer;

/* busy for n steps of a computation, calling nothing: its time is all
 * its caller's own */
static void busy(long n)
{
	unsigned long x = sink;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

__attribute__((noinline)) static void fo_inner(void)
{
	long t0 = now_ns();
	busy(40000);
	self_inner += now_ns() - t0;
}

__attribute__((noinline)) static void fo_outer(void)
{
	long t0 = now_ns();
	busy(20000);
	long t1 = now_ns();
	fo_inner();
	long t2 = now_ns();
	busy(20000);
	long t3 = now_ns();
	self_outer += (t1 - t0) + (t3 - t2);
	total_outer += t3 - t0;
}

static void *thread_regs(void *arg)
{
	return (void *)fo_regs((long)arg);
}

int main(void)
{
	long bad = fo_regs(5000);
	pthread_t th;
	void *r;
	if (pthread_create(&th, NULL, thread_regs, (void *)3000L) != 0 || pthread_join(th, &r) != 0)
		return 1;
	bad += (long)r;
	long a[4096];
	for (long i = 0; i < 4096; i++)
		a[i] = (i * 2654435761L) ^ (i >> 3);
	long ipa = fo_ipa(a, 4096), want = ipa_expected(a, 4096);
	for (int i = 0; i < 200; i++)
		fo_outer();
	printf("bad %ld\nipa %s\n", bad, ipa == want ? "ok" : "WRONG");
	/* the measured times go to stderr: they differ from run to run */
	fprintf(stderr, "self fo_outer %ld fo_inner %ld total fo_outer %ld\n", self_outer,
		self_inner, total_outer);
	return bad != 0 || ipa != want;
}
