/*
 * main.c - sc_diffpair MODE: the same work in a normal way and in slow
 * ways, for the scaler diff checks (checks/diff.py). Every mode makes the
 * same dl_lookup, dl_step and dl_wait calls and the same costly dl_heavy
 * calls; the slow modes change one thing:
 *   normal  hashed lookups, short steps, poll(0)
 *   calls   scanned lookups: ~32 strcmp per lookup instead of 1
 *   longer  each dl_step does 4 times the work
 *   block   one dl_wait in 5 polls with a 1 ms timeout instead of 0
 *   appear  a dl_check call per 200 lookups, that normal never makes
 *   lock    each of the 50 dl_locked calls finds its lock held by a second
 *           thread for 1 ms (dl_hold, in lockstep): contended
 *   threads 6 more threads, each making one short dl_step
 * dl_heavy costs more than any of these changes, in every mode.
 * Prints a checksum that is the same in every mode.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

void dl_init(void);
int dl_lookup(int i, int scan);
unsigned long dl_heavy(long n);
unsigned long dl_step(long n);
unsigned long dl_check(long n);
int dl_wait(int ms);
unsigned long dl_locked(long hold, long outside);
int dl_hold(int ms, volatile int *held, int round);

#define LOCK_ROUNDS 50
static volatile int held, tried;

/* sched_yield(2) by its system call: a call of libc's would be one more
 * API in the lock mode's profile */
static void yield(void)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(24L) : "rcx", "r11", "memory");
	(void)r;
}

/* round i: once the main thread made its call of round i - 1, hold the
 * lock 1 ms (held = i while it does) */
static void *holder(void *arg)
{
	(void)arg;
	for (int i = 1; i <= LOCK_ROUNDS; i++) {
		while (tried != i - 1)
			yield();
		dl_hold(1, &held, i);
	}
	return NULL;
}

static void *stepper(void *arg)
{
	(void)arg;
	dl_step(100);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "normal";
	int scan = !strcmp(mode, "calls"), longer = !strcmp(mode, "longer");
	int block = !strcmp(mode, "block"), appear = !strcmp(mode, "appear");
	int lock = !strcmp(mode, "lock"), threads = !strcmp(mode, "threads");
	long sum = 0;
	pthread_t helper, more[6];

	if (!scan && !longer && !block && !appear && !lock && !threads &&
	    strcmp(mode, "normal")) {
		fprintf(stderr, "usage: sc_diffpair normal|calls|longer|block|appear|lock|"
			"threads\n");
		return 2;
	}
	dl_init();
	if (lock)
		pthread_create(&helper, NULL, holder, NULL);
	for (int i = 1; i <= LOCK_ROUNDS; i++) {
		while (lock && held != i)
			yield();        /* until the holder has the lock */
		dl_locked(50, 1000);
		tried = i;
	}
	if (lock)
		pthread_join(helper, NULL);
	for (int i = 0; threads && i < 6; i++)
		pthread_create(&more[i], NULL, stepper, NULL);
	for (int i = 0; threads && i < 6; i++)
		pthread_join(more[i], NULL);
	for (int i = 0; i < 40000; i++) {
		sum += dl_lookup(i, scan);
		if (i % 4 == 0)
			dl_step(longer ? 2000 : 500);
		if (i % 400 == 0) {
			dl_heavy(1000000);
			dl_wait(block && i % 2000 == 0 ? 1 : 0);
		}
		if (appear && i % 200 == 0)
			dl_check(100000);
	}
	printf("%ld\n", sum);
	return 0;
}
