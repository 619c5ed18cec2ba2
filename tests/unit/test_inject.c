/*
 * test_inject.c - unit test of arch/x86_64/inject.c on a real process: a
 * forked child whose threads block in a condition wait, a mutex lock held
 * by another, nanosleep and read. Each is stopped with ptrace and
 * classified (inj_syscall_waits: the lock wait is not safe, the others
 * are); then a function of the child is called in the thread blocked in
 * read (inj_call), its registers are put back, and the read, restarted
 * by the kernel, still gets the byte written afterwards.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "inject.h"

enum { COND, LOCK, SLEEP, READ, NTHR };
static const char *const what[NTHR] = {"condition wait", "mutex lock", "nanosleep", "read"};

static int tids[2], data[2], back[2];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, held = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

static void say_tid(int k)
{
	int msg[2] = {k, (int)syscall(SYS_gettid)};
	if (write(tids[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		_exit(1);
}

static void *thread(void *arg)
{
	int k = (int)(long)arg;
	char b;
	say_tid(k);
	switch (k) {
	case COND:
		pthread_mutex_lock(&m);
		for (;;)
			pthread_cond_wait(&c, &m);
	case LOCK:
		pthread_mutex_lock(&held);
		break;
	case READ:
		if (read(data[0], &b, 1) == 1 && write(back[1], &b, 1) == 1)
			break;
		_exit(1);
	}
	for (;;)
		pause();
}

/* what the test calls inside the child */
__attribute__((noinline, used)) static long add3(long a, long b, long x)
{
	return a * 100 + b * 10 + x;
}

static void child(void)
{
	pthread_t t;
	prctl(PR_SET_PDEATHSIG, SIGKILL);       /* never outlives the test */
	pthread_mutex_lock(&held);
	for (long k = 0; k < NTHR; k++)
		if (k != SLEEP && pthread_create(&t, NULL, thread, (void *)k) != 0)
			_exit(1);
	say_tid(SLEEP);
	for (;;)
		nanosleep(&(struct timespec){100, 0}, NULL);
}

static int stop(pid_t tid)
{
	int st;
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0 ||
	    ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0 || waitpid(tid, &st, __WALL) != tid)
		return -1;
	return st >> 16 == PTRACE_EVENT_STOP ? 0 : -1;
}

int main(void)
{
	pid_t tid[NTHR] = {0};
	setvbuf(stdout, NULL, _IONBF, 0);      /* not twice from the fork */
	alarm(60);                              /* a hang fails, and ends the child */
	if (pipe(tids) || pipe(data) || pipe(back))
		return 1;
	pid_t pid = fork();
	if (pid == 0)
		child();
	for (int i = 0; i < NTHR; i++) {
		int msg[2];
		if (read(tids[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg) || msg[0] < 0 ||
		    msg[0] >= NTHR)
			return 1;
		tid[msg[0]] = msg[1];
	}
	usleep(200000);                 /* each blocks in its call */
	struct inj_regs *r[NTHR];
	for (int k = 0; k < NTHR; k++) {
		int stopped = stop(tid[k]);     /* CHECK evaluates twice: no calls in it */
		CHECK(stopped == 0, "%s: thread %d stopped", what[k], (int)tid[k]);
		r[k] = inj_save(tid[k]);
		CHECK(r[k] != NULL, "%s: registers saved", what[k]);
		if (!r[k]) {
			kill(pid, SIGKILL);
			return check_summary();
		}
		CHECK(inj_syscall(r[k]) >= 0, "%s: stopped inside a system call (%ld)", what[k],
		      inj_syscall(r[k]));
		CHECK(inj_syscall_waits(r[k]) == (k != LOCK), "%s: %s", what[k],
		      k != LOCK ? "a safe wait" : "not safe (a lock wait)");
	}

	/* a call in the reading thread, its registers back, the read goes on */
	uint64_t args[3] = {1, 2, 3}, ret = 0;
	int sigs[4], nsigs = 4;
	int e = inj_call(tid[READ], r[READ], (uint64_t)(uintptr_t)add3, args, 3,
			 inj_stack_free_top(r[READ]) - 256, &ret, sigs, &nsigs);
	CHECK(e == 0 && ret == 123, "inj_call of add3(1, 2, 3) in the child: %d, %lu", e,
	      (unsigned long)ret);
	CHECK(nsigs == 0, "no signal held (%d)", nsigs);
	e = inj_restore(tid[READ], r[READ]);
	CHECK(e == 0, "registers put back");
	for (int k = 0; k < NTHR; k++) {
		ptrace(PTRACE_DETACH, tid[k], NULL, NULL);
		inj_free(r[k]);
	}
	char b = 'x', got = 0;
	bool echoed = write(data[1], &b, 1) == 1 && read(back[0], &got, 1) == 1;
	CHECK(echoed && got == 'x', "the read, restarted after the call, got the byte (%c)",
	      got ? got : '?');
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return check_summary();
}
