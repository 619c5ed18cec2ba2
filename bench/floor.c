/*
 * floor.c - what an interposed call costs at the least on this machine,
 * piece by piece, for bench/run.sh (`make bench` part "floor"). Calls an
 * empty function in a shared library (libbenchempty.so) N times through:
 *   direct     the function pointer itself (what the PLT's jmp *GOT does)
 *   +jmp       one more indirect jump (a GOT slot aimed at a stub that
 *              jumps on: the least any GOT-patching interposer adds)
 *   +entry     a 16-byte stub (mov $idx; jmp *common) and a common stub
 *              that jumps through a table: scaler's path before its
 *              entries had their own code, no counting
 *   +count     the same with that counting (TLS load, count++ and
 *              countdown-- in the record): the counted path it had
 *   +own       an entry that counts by itself and jumps on through its
 *              own slot (TLS gate, count++, countdown--): scaler's
 *              counted path now (arch.h, sc_arch_write_entry)
 *   +2 rdtsc   direct call between two rdtsc: the least a timed call adds
 *   +ret       +2 rdtsc and the return redirected through a trampoline
 *              by overwriting the return address (the return stack
 *              predicts the wrong address)
 *   +call      +2 rdtsc, the interposer calling the function itself and
 *              returning to the caller by push + ret (scaler's way: every
 *              return predicted)
 * Prints "name mean-ns-per-call quiet-ns-per-call" lines (callrate.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

void bench_empty(void);

void *floor_target = (void *)bench_empty;
void *floor_table[4] = {(void *)bench_empty, 0, 0, 0};
struct rec { uint64_t count; int32_t countdown; uint32_t pad; } floor_rec[4];
__thread struct rec *floor_tls __attribute__((tls_model("initial-exec")));
__thread uint64_t floor_lim __attribute__((tls_model("initial-exec")));
uint64_t floor_t0, floor_sum, floor_ret;

void floor_jmp(void);
void floor_entry(void);
void floor_count(void);
void floor_own(void);
void floor_ret_call(void);
void floor_call_call(void);

__asm__(
	".text\n"
	".globl floor_jmp\n floor_jmp:\n"
	"	jmp *floor_target(%rip)\n"
	".globl floor_entry\n floor_entry:\n"
	"	movl $0, %r11d\n"
	"	jmp *floor_common_ptr(%rip)\n"
	"floor_common:\n"
	"	leaq floor_table(%rip), %r10\n"
	"	jmp *(%r10,%r11,8)\n"
	".globl floor_count\n floor_count:\n"
	"	movl $0, %r11d\n"
	"	jmp *floor_counted_ptr(%rip)\n"
	"floor_counted:\n"
	"	movq floor_tls@gottpoff(%rip), %r10\n"
	"	movq %fs:(%r10), %r10\n"
	"	shlq $4, %r11\n"
	"	addq %r10, %r11\n"
	"	incq (%r11)\n"
	"	decl 8(%r11)\n"
	"	jle 1f\n"
	"1:	subq %r10, %r11\n"
	"	shrq $1, %r11\n"
	"	leaq floor_table(%rip), %r10\n"
	"	jmp *(%r10,%r11)\n"
	/* the entry's own code, as arch.h writes it for idx 0 (the executable's
	 * TLS is reached at a fixed offset from %fs, as the runtime's is) */
	".globl floor_own\n floor_own:\n"
	"	cmpq $1, %fs:floor_lim@tpoff\n"
	"	jb 1f\n"
	"	movq %fs:floor_tls@tpoff, %r10\n"
	"	incq (%r10)\n"
	"	decl 8(%r10)\n"
	"	jle 1f\n"
	"	jmp *floor_table(%rip)\n"
	"1:	movl $0, %r11d\n"
	"	jmp *floor_table(%rip)\n"
	/* timed skeleton: rdtsc, replace the return address, call on; the
	 * trampoline reads rdtsc and jumps back */
	".globl floor_ret_call\n floor_ret_call:\n"
	"	pushq %rax\n pushq %rdx\n"
	"	movq 16(%rsp), %rax\n movq %rax, floor_ret(%rip)\n"
	"	leaq floor_tramp(%rip), %rax\n movq %rax, 16(%rsp)\n"
	"	rdtsc\n shlq $32, %rdx\n orq %rdx, %rax\n movq %rax, floor_t0(%rip)\n"
	"	popq %rdx\n popq %rax\n"
	"	jmp *floor_target(%rip)\n"
	"floor_tramp:\n"
	"	pushq %rax\n pushq %rdx\n"
	"	rdtsc\n shlq $32, %rdx\n orq %rdx, %rax\n subq floor_t0(%rip), %rax\n"
	"	addq %rax, floor_sum(%rip)\n"
	"	popq %rdx\n popq %rax\n"
	"	jmp *floor_ret(%rip)\n"
	/* the same, but the stub calls the function (its return address
	 * popped first, so the stack is as the caller left it) and returns
	 * by push + ret: calls and returns stay paired */
	".globl floor_call_call\n floor_call_call:\n"
	"	pushq %rax\n pushq %rdx\n"
	"	movq 16(%rsp), %rax\n movq %rax, floor_ret(%rip)\n"
	"	rdtsc\n shlq $32, %rdx\n orq %rdx, %rax\n movq %rax, floor_t0(%rip)\n"
	"	popq %rdx\n popq %rax\n"
	"	leaq 8(%rsp), %rsp\n"
	"	call *floor_target(%rip)\n"
	"	pushq %rax\n pushq %rdx\n"
	"	rdtsc\n shlq $32, %rdx\n orq %rdx, %rax\n subq floor_t0(%rip), %rax\n"
	"	addq %rax, floor_sum(%rip)\n"
	"	popq %rdx\n popq %rax\n"
	"	pushq floor_ret(%rip)\n"
	"	ret\n"
	".data\n"
	"floor_common_ptr: .quad floor_common\n"
	"floor_counted_ptr: .quad floor_counted\n"
	".text\n");

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Prints the mean ns per call and the fastest batch's (callrate.c says
 * why both). */
#define BATCH 10000
static void report(const char *name, double t0, double t1, double best, long n)
{
	printf("%s %.2f %.2f\n", name, (t1 - t0) / n, best < 1e300 ? best : (t1 - t0) / n);
}

static void run(const char *name, void (*volatile f)(void), long n)
{
	double t0 = now(), a = t0, best = 1e300;
	for (long i = 0; i < n; i += BATCH) {
		for (long j = 0; j < BATCH; j++)
			f();
		double b = now();
		if ((b - a) / BATCH < best)
			best = (b - a) / BATCH;
		a = b;
	}
	report(name, t0, a, best, n / BATCH * BATCH);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	floor_tls = floor_rec;
	floor_lim = 1;
	floor_rec[0].countdown = 1 << 30;
	run("direct", bench_empty, n);
	run("+jmp", floor_jmp, n);
	run("+entry", floor_entry, n);
	run("+count", floor_count, n);
	run("+own", floor_own, n);
	double t0 = now(), a = t0, best = 1e300;
	for (long i = 0; i < n; i += BATCH) {
		for (long j = 0; j < BATCH; j++) {
			uint64_t c = __rdtsc();
			bench_empty();
			floor_sum += __rdtsc() - c;
		}
		double b = now();
		if ((b - a) / BATCH < best)
			best = (b - a) / BATCH;
		a = b;
	}
	report("+2rdtsc", t0, a, best, n / BATCH * BATCH);
	run("+2rdtsc+ret", floor_ret_call, n);
	run("+2rdtsc+call", floor_call_call, n);
	return 0;
}
