/*
 * main.c - the "sigstep" e2e test: checks/sigstep.py runs this program
 * under gdb and, during the timed calls of lib_work after stepped_calls(),
 * delivers SIGUSR1 at every instruction the calls go through; the handler,
 * on a sigaltstack, calls lib_work itself. First 2000 calls of lib_call,
 * half of them left by longjmp, bury shadow frames with main's return slot
 * (a frame lost later would be found among them, with the wrong return
 * address). The output must be that of a plain run.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int lib_call(void (*cb)(int), int x);
int lib_work(int x);

static jmp_buf jb;
static volatile long hits;

static void jumper(int x)
{
	if (x % 2)
		longjmp(jb, 1);
}

static void on_usr1(int s)
{
	(void)s;
	hits += lib_work(1);
}

/* gdb steps from here to the end of the calls */
__attribute__((noinline)) void stepped_calls(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void stepped_end(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	long s = 0;
	int jumps = 0;
	for (int i = 0; i < 2000; i++) {
		if (setjmp(jb)) {
			jumps++;
			continue;
		}
		s += lib_call(jumper, i);
	}
	static char altbuf[65536];
	stack_t ss = {.ss_sp = altbuf, .ss_size = sizeof altbuf};
	sigaltstack(&ss, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK | SA_RESTART;
	sigaction(SIGUSR1, &sa, 0);
	long w = lib_work(0);      /* bound before the stepping */
	stepped_calls();
	for (int i = 0; i < 3; i++)
		w += lib_work(i);
	stepped_end();
	printf("s=%ld jumps=%d w=%ld\n", s, jumps, w);
	return 0;
}
