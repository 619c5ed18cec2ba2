/*
 * main.c - the "sighand" e2e test: a program's own signal handlers see
 * the same thing with and without scaler, and the profile holds every
 * call made before the end.
 *   child:  installs a SIGTERM handler, calls b_mul 300 times, sends
 *           itself SIGTERM (handler prints, sets a flag), calls b_mul 100
 *           times more and exits 4
 *   parent: installs a SIGSEGV handler (prints, then _exit(3)), calls
 *           b_mul 500 times and dereferences a bad pointer
 * Exit status 3; b_mul 900 in all.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int b_mul(int x, int y);

static volatile sig_atomic_t got_term;
static volatile long acc;

static void on_term(int sig) { got_term = sig; }

static void on_segv(int sig)
{
	static const char msg[] = "SIGSEGV handler: exiting 3\n";
	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(5);
	_exit(3);
}

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		acc += b_mul(i, 7);
}

int main(int argc, char **argv)
{
	(void)argv;
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_term;
		sigaction(SIGTERM, &sa, NULL);
		calls(300);
		kill(getpid(), SIGTERM);
		calls(100);
		printf("child: got signal %d, acc=%ld\n", (int)got_term, acc);
		return 4;
	}
	int st;
	waitpid(p, &st, 0);
	printf("child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	fflush(stdout);
	signal(SIGSEGV, on_segv);
	calls(500);
	volatile int *bad = (volatile int *)(long)(argc - 1);
	*bad = (int)acc;
	return 0;
}
