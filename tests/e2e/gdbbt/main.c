/*
 * main.c - the "gdbbt" e2e test: checks/gdbbt.py stops this program under gdb
 * in stop_here(), which runs inside a timed call (main -> lib_call in
 * libsc_bt.so -> callback), and wants gdb's backtrace, with
 * scripts/scaler-gdb.py loaded, to walk past the return trampoline to
 * main. Run normally it just prints one line.
 */
#include <stdio.h>

void lib_call(void (*cb)(int), int x);

static volatile int seen;

__attribute__((noinline)) void stop_here(int x)
{
	seen += x;
	__asm__ volatile("" ::: "memory");
}

static void cb(int x) { stop_here(x); }

int main(void)
{
	lib_call(cb, 1);
	printf("seen=%d\n", seen);
	return 0;
}
