/*
 * main.c - the "sigdef" e2e test: the runtime's fatal-signal handler must
 * be invisible. The program sees SIGINT and SIGTERM as SIG_DFL, then dies
 * of a real segmentation fault: same output and same exit status (139)
 * with and without scaler.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct sigaction old;
	sigaction(SIGINT, NULL, &old);
	void (*prev)(int) = signal(SIGTERM, SIG_DFL);
	printf("SIGINT default=%d SIGTERM default=%d len=%zu\n", old.sa_handler == SIG_DFL,
	       prev == SIG_DFL, strlen(argv[0]) > 0);
	fflush(stdout);
	volatile int *p = (volatile int *)(long)(argc - 1);
	*p = 1;
	return 0;
}
