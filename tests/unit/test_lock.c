/*
 * test_lock.c - the runtime's two locks (src/runtime/lock.c), alone:
 * recursive in one thread, exclusive between threads (an exact count of
 * increments made under them while other threads contend, which makes
 * waiters sleep and wake), sc_locks_try's all or nothing, a control
 * request run at an unlock, and a fork child taking both after the
 * parent's thread forked holding them (as the prepare handler does).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "runtime.h"

int sc_control_due;
static int control_runs;
void sc_control_run(void)
{
	sc_control_due = 0;
	control_runs++;
}

#define THREADS 4
#define ROUNDS 100000
static long counter;

/* counter++ with a window between the read and the write, which an
 * unlocked increment of another thread would fall into */
static void bump(void)
{
	long c = counter;
	for (volatile int k = 0; k < 20; k++)
		;
	counter = c + 1;
}

static pthread_barrier_t start;
/* rounds in which a lock or unlock changed the thread's errno: a lock is
 * taken inside the program's calls, whose errno it must keep (futex's
 * EAGAIN and EINTR of a contended lock) */
static long errno_changed;

static void *hammer(void *arg)
{
	bool leaf = arg != NULL;
	pthread_barrier_wait(&start);   /* all at once: they contend */
	for (int i = 0; i < ROUNDS; i++) {
		errno = 12345;
		if (leaf) {
			sc_leaf_lock();
			sc_leaf_lock();         /* nested: one more depth, not a wait */
			bump();
			sc_leaf_unlock();
			sc_leaf_unlock();
		} else {
			sc_lock();
			bump();
			sc_unlock();
		}
		if (errno != 12345)
			__atomic_add_fetch(&errno_changed, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static long contended(bool leaf)
{
	pthread_t t[THREADS];
	counter = 0;
	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, hammer, leaf ? (void *)1 : NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	return counter;
}

static pthread_barrier_t held, tried;

static void *hold_leaf(void *arg)
{
	(void)arg;
	sc_leaf_lock();
	pthread_barrier_wait(&held);
	pthread_barrier_wait(&tried);
	sc_leaf_unlock();
	return NULL;
}

static void *try_both(void *arg)
{
	(void)arg;
	bool ok = sc_locks_try();
	if (ok)
		sc_locks_give();
	return (void *)(long)ok;
}

int main(void)
{
	sc_lock();
	sc_lock();
	CHECK(sc_lock_held(), "held once taken");
	sc_unlock();
	CHECK(sc_lock_held(), "still held one level down");
	sc_unlock();
	CHECK(!sc_lock_held(), "free after as many unlocks as locks");
	CHECK(!sc_leaf_held(), "the leaf lock is another lock");

	CHECK_EQ(contended(false), (long)THREADS * ROUNDS, "runtime lock: no increment lost");
	CHECK_EQ(contended(true), (long)THREADS * ROUNDS, "leaf lock, nested: no increment lost");
	CHECK_EQ(errno_changed, 0, "rounds of a contended lock that changed errno");

	/* another thread holds the leaf lock: both or nothing */
	pthread_barrier_init(&held, NULL, 2);
	pthread_barrier_init(&tried, NULL, 2);
	pthread_t h, t;
	pthread_create(&h, NULL, hold_leaf, NULL);
	pthread_barrier_wait(&held);
	void *r;
	pthread_create(&t, NULL, try_both, NULL);
	pthread_join(t, &r);
	CHECK(r == NULL, "sc_locks_try fails while another thread holds the leaf lock");
	/* it gave the runtime lock back: this thread takes it */
	sc_lock();
	CHECK(sc_lock_held(), "the runtime lock is free after the failed try");
	sc_unlock();
	pthread_barrier_wait(&tried);
	pthread_join(h, NULL);
	pthread_create(&t, NULL, try_both, NULL);
	pthread_join(t, &r);
	CHECK(r != NULL, "sc_locks_try takes both when both are free");
	CHECK(sc_locks_try(), "and in this thread too");
	CHECK(sc_lock_held() && sc_leaf_held(), "both held after the try");
	sc_locks_give();
	CHECK(!sc_lock_held() && !sc_leaf_held(), "both given back");

	sc_leaf_lock();
	sc_control_due = 1;
	sc_leaf_unlock();
	CHECK_EQ(control_runs, 1, "an unlock runs the control request that waited");

	/* the fork: the forking thread holds both, the child's copy is reset */
	sc_lock();
	sc_leaf_lock();
	pid_t pid = fork();
	if (pid == 0) {
		alarm(60);      /* stuck on its parent's lock: killed, a failure */
		sc_lock_reset_child();
		if (sc_lock_held() || sc_leaf_held())
			_exit(2);
		sc_lock();
		sc_leaf_lock();
		sc_leaf_unlock();
		sc_unlock();
		_exit(contended(true) == (long)THREADS * ROUNDS ? 0 : 3);
	}
	sc_leaf_unlock();
	sc_unlock();
	int st = -1;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a fork child takes both locks its parent held");
	return check_summary();
}
