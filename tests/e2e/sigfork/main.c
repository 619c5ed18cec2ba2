/*
 * main.c - the "sigfork" e2e program: children forked from a signal
 * handler that interrupted a timed select, as postgres' postmaster (15)
 * starts its walwriter and autovacuum launcher from its SIGCHLD handler.
 *
 * The parent waits in select with SIGALRM unblocked only meanwhile; the
 * timer's handler forks. Child 1 never returns from the handler: it runs
 * its own loop there (200 epoll_wait of 1 ms, one select of 1 ms) and
 * exits, as a postgres auxiliary process does. Child 2 returns from the
 * handler, so the select its parent was in returns EINTR in it, then
 * calls getppid 300,000 times, prints its CPU time on stderr and exits. Neither child made the select
 * in flight at the fork: their profiles must not book it. The parent
 * waits for both and prints what they did.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t in_select, forks, child;
static pid_t kids[2];

static void child_loop(void)
{
	struct epoll_event ev;
	struct timeval tv = {0, 1000};
	int ep = epoll_create1(0);
	for (int i = 0; i < 200; i++)
		epoll_wait(ep, &ev, 1, 1);
	select(0, NULL, NULL, NULL, &tv);   /* pg_usleep */
	exit(0);
}

static void on_alarm(int sig)
{
	(void)sig;
	if (!in_select)
		return;                         /* not inside select: try again */
	pid_t p = fork();
	if (p == 0) {
		child = forks + 1;
		if (child == 1)
			child_loop();
		return;                         /* child 2: back into select */
	}
	kids[forks++] = p;
}

static void arm(void)
{
	struct itimerval it = {{0, 0}, {0, 100000}};
	setitimer(ITIMER_REAL, &it, NULL);
}

int main(void)
{
	sigset_t block, unblock;
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, &unblock);
	sigdelset(&unblock, SIGALRM);
	while (forks < 2 && !child) {
		struct timeval tv = {10, 0};
		arm();
		in_select = 1;                  /* the timer fires 100 ms on */
		sigprocmask(SIG_SETMASK, &unblock, NULL);
		int r = select(0, NULL, NULL, NULL, &tv);
		in_select = 0;
		sigprocmask(SIG_SETMASK, &block, NULL);
		if (r != -1 || errno != EINTR)
			return 1;
	}
	if (child == 2) {
		long n = 0;
		struct timespec cpu;
		for (int i = 0; i < 300000; i++)
			n += getppid() > 0;
		/* its CPU time, which its attributed time must be
		 * (checks/sigfork.py) */
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
		fprintf(stderr, "child2_cpu_ns=%lld\n", cpu.tv_sec * 1000000000LL + cpu.tv_nsec);
		_exit(n == 300000 ? 0 : 1);
	}
	int ok = 0;
	for (int i = 0; i < 2; i++) {
		int st;
		if (waitpid(kids[i], &st, 0) == kids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
	}
	printf("children forked in select: %d, exited 0: %d\n", forks, ok);
	return ok == 2 ? 0 : 1;
}
