/*
 * main.c - the "exec" e2e test: every way of starting a new image with an
 * environment of the program's own choosing (no LD_PRELOAD, no SCALER_*)
 * must still be profiled into the same directory, and the new image must
 * see exactly the variables it was given (the runtime's own aside).
 *
 * `sc_exec` runs methods 0..8 one after the other; each starts
 * `sc_exec child K` with FOO=K (or an empty environment), and that image
 * calls libsc_b.so b_mul 2^K times: the total (1023) says which image was
 * not profiled. Each child prints the variables it got, minus the
 * runtime's, so the output is the same with and without scaler.
 *   0 fork + execve         1 fork + execle        2 fork + execvpe
 *   3 fork + fexecve        4 posix_spawn          5 vfork + execve
 *   6 fork + clearenv + execv (env -i)             7 env -i FOO=7 (execvp
 *   inside coreutils' env)  8 posix_spawnp
 *   9 fork + execve with an LD_PRELOAD of its own (libsc_b.so)
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
int b_mul(int x, int y);

static int child(int k)
{
	long acc = 0;
	for (int i = 0; i < (1 << k); i++)
		acc += b_mul(i, 3);
	printf("child %d acc=%ld env:", k, acc);
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) && strncmp(*e, "SCALER_", 7))
			printf(" %s", *e);
	/* a preload of the program's own is kept, after the runtime's */
	const char *pre = getenv("LD_PRELOAD"), *last = pre ? strrchr(pre, '/') : NULL;
	if (last && !strcmp(last, "/libsc_b.so"))
		printf(" (preloads %s)", last + 1);
	printf("\n");
	return k;
}

static char self[4096];

static void wait_for(pid_t p)
{
	int st;
	fflush(stdout);
	if (p > 0 && waitpid(p, &st, 0) == p)
		printf("method status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	else
		printf("method failed\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(atoi(argv[2]));
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	char num[10][2] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
	char foo[10][8], preload[4200];
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%.*s/libsc_b.so",
		 (int)(strrchr(self, '/') - self), self);
	for (int k = 0; k < 10; k++) {
		char *cargv[] = {self, "child", num[k], NULL};
		snprintf(foo[k], sizeof(foo[k]), "FOO=%d", k);
		char *env[] = {foo[k], "BAR=x y", NULL};
		char *env9[] = {preload, foo[k], NULL};
		pid_t p = -1;
		fflush(stdout);
		switch (k) {
		case 0: if ((p = fork()) == 0) { execve(self, cargv, env); _exit(99); } break;
		case 1: if ((p = fork()) == 0) { execle(self, self, "child", "1", (char *)0, env); _exit(99); } break;
		case 2: if ((p = fork()) == 0) { execvpe(self, cargv, env); _exit(99); } break;
		case 3: if ((p = fork()) == 0) {
				int fd = open(self, O_RDONLY);
				fexecve(fd, cargv, env);
				_exit(99);
			}
			break;
		case 4: if (posix_spawn(&p, self, NULL, NULL, cargv, env) != 0) p = -1; break;
		case 5: if ((p = vfork()) == 0) { execve(self, cargv, env); _exit(99); } break;
		case 6: if ((p = fork()) == 0) { clearenv(); execv(self, cargv); _exit(99); } break;
		case 7: if ((p = fork()) == 0) {
				char *eargv[] = {"env", "-i", "FOO=7", self, "child", "7", NULL};
				execvp("env", eargv);
				_exit(99);
			}
			break;
		case 8: if (posix_spawnp(&p, self, NULL, NULL, cargv, env) != 0) p = -1; break;
		case 9: if ((p = fork()) == 0) { execve(self, cargv, env9); _exit(99); } break;
		}
		wait_for(p);
	}
	return 0;
}
