/*
 * main.c - the "daemon" e2e test: the classic daemon start (fork, setsid,
 * fork again, chdir("/"), close every descriptor) and then files of its
 * own, which get the lowest numbers, including the ones the runtime had.
 * The daemon then makes the runtime write metadata (dlopen + dlsym) and
 * calls through it. Its log must hold exactly its own lines; the parent
 * prints the log, so the output compares equal with and without scaler.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	char log[4096], done[4096];
	snprintf(log, sizeof(log), "/tmp/sc_daemon.%d.log", (int)getpid());
	snprintf(done, sizeof(done), "%s.done", log);
	unlink(log);
	unlink(done);
	pid_t p = fork();
	if (p == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);
		if (chdir("/") != 0)
			_exit(1);
		for (int fd = 0; fd < 1024; fd++)
			close(fd);
		int fds[8];
		for (int i = 0; i < 8; i++)    /* take the lowest numbers */
			fds[i] = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		void *h = dlopen("libsc_dl.so", RTLD_NOW);
		int (*f)(int) = h ? (int (*)(int))dlsym(h, "dl_func") : NULL;
		long s = 0;
		for (int i = 0; i < 1000 && f; i++)
			s += f(i);
		char line[128] = "start";
		for (int i = 0; i < 8; i++) {
			int n = snprintf(line, sizeof(line), "daemon line %d sum %ld len %zu\n", i, s,
					 strlen(line));
			if (write(fds[i], line, (size_t)n) != n)
				_exit(2);
		}
		int d = open(done, O_WRONLY | O_CREAT, 0644);
		close(d);
		_exit(0);
	}
	waitpid(p, NULL, 0);
	for (int i = 0; i < 500 && access(done, F_OK) != 0; i++)
		usleep(10000);
	FILE *in = fopen(log, "r");
	char buf[256];
	while (in && fgets(buf, sizeof(buf), in))
		fputs(buf, stdout);
	if (in)
		fclose(in);
	unlink(log);
	unlink(done);
	return 0;
}
