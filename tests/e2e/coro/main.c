/*
 * main.c - the "coro" e2e test: two coroutines on one thread
 * (makecontext/swapcontext) switch while each is inside a timed call of
 * the other library, so calls return in an order that is not LIFO for the
 * thread: A enters lib_call, switches to B, B enters lib_call, switches
 * back, A's call returns first, then B's. Output and counts must be exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

int lib_call(void (*cb)(int), int x);
int lib_work(int x);

static ucontext_t ctx_a, ctx_b;
static long total;

static void in_a(int x) { (void)x; swapcontext(&ctx_a, &ctx_b); }
static void in_b(int x) { (void)x; swapcontext(&ctx_b, &ctx_a); }

static void coro_b(void)
{
	for (int i = 0; i < 1000; i++) {
		total += lib_call(in_b, i);
		total += lib_work(i);
	}
	swapcontext(&ctx_b, &ctx_a);
}

int main(void)
{
	static char stack[256 * 1024];
	getcontext(&ctx_b);
	ctx_b.uc_stack.ss_sp = stack;
	ctx_b.uc_stack.ss_size = sizeof(stack);
	ctx_b.uc_link = &ctx_a;
	makecontext(&ctx_b, coro_b, 0);
	for (int i = 0; i < 1000; i++) {
		total += lib_call(in_a, i);
		total += lib_work(i);
	}
	swapcontext(&ctx_a, &ctx_b);   /* let B finish its last call */
	printf("total=%ld\n", total);
	return 0;
}
