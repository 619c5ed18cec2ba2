/*
 * main.c - the "sigwork" e2e program: a signal handler that works a long
 * time inside a blocking call of the same thread. The program waits in
 * select (up to 5 s); 20 ms in, a SIGALRM handler calls getppid 300,000
 * times and write once, all into libc while the select (libc) is still
 * in flight, so they are nested in it on the same edge sc_sigwork ->
 * libc.so.6, which must count their time once. The select then returns
 * EINTR; the program prints what it saw.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/time.h>
#include <unistd.h>

#define CALLS 300000

static volatile unsigned long sum;

static void on_alarm(int sig)
{
	(void)sig;
	for (int i = 0; i < CALLS; i++)
		sum += (unsigned long)getppid();
	write(2, "handled\n", 8);
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it = {{0, 0}, {0, 20000}};
	struct timeval tv = {5, 0};

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	int r = select(0, NULL, NULL, NULL, &tv);
	printf("select %d %s, %s\n", r, r < 0 && errno == EINTR ? "EINTR" : "?",
	       sum ? "handler ran" : "no handler");
	return 0;
}
