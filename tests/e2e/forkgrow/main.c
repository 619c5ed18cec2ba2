/*
 * main.c - the "forkgrow" e2e program: a fork child that calls more new
 * APIs than its thread file has room for when it starts (it covers the
 * entries its parent made: thread.c), so that it grows while the child
 * counts; every call of each is counted (see expect). The parent calls
 * none of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *volatile text = "forkgrow 12345 abc";
static const char *volatile num = "4321";

int main(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		unsigned long acc = 0;
		for (int i = 0; i < 3; i++) {
			acc += (unsigned long)strtoll(num, NULL, 10);
			acc += (unsigned long)(getpgrp() > 0);
			acc += (unsigned long)strtol(num, NULL, 10);
			acc += strtoul(num, NULL, 16);
			acc += (unsigned long)(strchr(text, 'a') - text);
			acc += (unsigned long)(strrchr(text, 'b') - text);
			acc += strspn(text, "fork");
			acc += strcspn(text, " ");
			acc += (unsigned long)(strncmp(text, "fork", 4) == 0);
			acc += (unsigned long)(strcasecmp(text, "FORKGROW 12345 ABC") == 0);
			acc += (unsigned long)(strncasecmp(text, "FORK", 4) == 0);
			acc += (unsigned long)((const char *)memchr(text, '1', 18) - text);
			acc += strnlen(text, 8);
			acc += (unsigned long)(getpid() > 0);
			acc += (unsigned long)(getppid() > 0);
			acc += (unsigned long)(getuid() == geteuid());
			acc += (unsigned long)(getgid() == getegid());
			acc += (unsigned long)umask(022);
			acc += (unsigned long)(time(NULL) > 0);
			acc += (unsigned long)(getsid(0) > 0);
			acc += (unsigned long)(strstr(text, "abc") - text);
			char *d = strdup(text);
			acc += strlen(d);
			free(d);
		}
		printf("child acc=%lu\n", acc);
		fflush(stdout);
		_exit(0);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	printf("parent child status=%d\n", WEXITSTATUS(st));
	return 0;
}
