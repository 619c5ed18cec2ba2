/*
 * sc_kvfork: a vfork child that changes its user, under `scaler record
 * --kernel` (checks/kernel_vfork.py). The child runs in the parent's
 * memory and thread until it execs: its setuid must leave the parent's
 * per-CPU rings and thread event alone. The child (as UID) execs dd,
 * which spends its time in the kernel while the parent blocks in
 * waitpid; then the parent makes 16 getrandom calls of 8 MB. Prints
 * "done STATUS".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

static char big[8 << 20];

int main(int argc, char **argv)
{
	uid_t uid = argc > 1 ? (uid_t)atoi(argv[1]) : 65534;
	pid_t p = vfork();

	if (p == 0) {
		if (setuid(uid) != 0)
			_exit(126);
		execl("/bin/dd", "dd", "if=/dev/zero", "of=/dev/null", "bs=1M", "count=6000",
		      "status=none", (char *)0);
		_exit(127);
	}
	int st = 0;

	waitpid(p, &st, 0);
	for (int i = 0; i < 16; i++)
		for (size_t n = 0; n < sizeof(big);) {
			ssize_t r = getrandom(big + n, sizeof(big) - n, 0);
			if (r <= 0)
				return 1;
			n += (size_t)r;
		}
	printf("done %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
