/*
 * sc_rawfork: a child made by the raw fork system call, without the fork
 * handlers (as Chromium's sandbox makes its children), that then makes
 * timed calls (checks/rawfork.py). The parent writes 1000 times to
 * /dev/null (with a usleep each), forks by the fork system call and waits;
 * the child writes 20000 times (a usleep every 100) and _exits. With an
 * argument UID, the child first calls setuid(UID), and ends with 4
 * getrandom calls of 8 MB (kernel time). Prints "child signal S exit E".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* the fork system call itself, not libc's syscall(): no call of the
 * child's returns before its own */
static pid_t raw_fork(void)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_fork) : "rcx", "r11", "memory");
	return (pid_t)r;
}

int main(int argc, char **argv)
{
	int fd = open("/dev/null", O_WRONLY);
	char buf[256] = {0};

	for (int i = 0; i < 1000; i++) {
		if (write(fd, buf, sizeof(buf)) < 0)
			return 1;
		usleep(1);
	}
	pid_t p = raw_fork();
	if (p == 0) {
		if (argc > 1 && setuid((uid_t)atoi(argv[1])) != 0)
			_exit(3);
		for (int i = 0; i < 20000; i++) {
			if (write(fd, buf, sizeof(buf)) < 0)
				_exit(1);
			if (i % 100 == 0)
				usleep(1);
		}
		static char big[8 << 20];
		for (int i = 0; argc > 1 && i < 4; i++)
			if (getrandom(big, sizeof(big), 0) != (ssize_t)sizeof(big))
				_exit(4);
		_exit(0);
	}
	int st = 0;
	waitpid(p, &st, 0);
	printf("child signal %d exit %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0,
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
