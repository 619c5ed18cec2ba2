/*
 * main.c - the "vfork" e2e program: vfork children that share the
 * parent's memory (and the vforking thread's TLS, so its shadow stack and
 * records) while the parent's other thread makes timed calls.
 *   A  a worker vforks; the child calls b_mul 10 times, sleeps 100 ms in
 *      nanosleep and _exits, while main calls usleep 300 times
 *   B  main vforks; the child calls b_mul 5 times, sleeps and _exits with 3
 *   C  as A, but the child calls b_mul 7 times and execs /bin/echo
 * The child's calls are counted as the vforking thread's (doc/record.md).
 * Before the fix, the child's _exit ended the parent's image and emptied
 * main's shadow stack: main's usleep in flight returned to no address and
 * the runtime aborted. With an argument (checks/vfork_attach.py), it
 * says "phase 1" and waits for a line before A, and "phase 2" after C.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int b_mul(int x, int y);

static int started;
static long acc;

/* vforks; the child calls b_mul n times, then sleeps and _exits (exec 0)
 * or execs /bin/echo; returns the child's exit status */
static int vfork_child(int n, int exec, int status)
{
	pid_t p = vfork();
	if (p == 0) {
		for (int i = 0; i < n; i++)
			acc += b_mul(i, 3);
		if (exec)
			execl("/bin/echo", "echo", "vfork-exec", (char *)0);
		else {
			struct timespec ts = {0, 100 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		_exit(status);
	}
	int st = -1;
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WEXITSTATUS(st);
}

static void *worker(void *arg)
{
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	return (void *)(long)vfork_child(*(int *)arg ? 7 : 10, *(int *)arg, 0);
}

/* a worker vforks while main makes 300 timed calls (the child sleeps or
 * execs meanwhile); the child's exit status */
static long beside_main(int exec)
{
	pthread_t th;
	void *r = NULL;
	__atomic_store_n(&started, 0, __ATOMIC_RELAXED);
	if (pthread_create(&th, NULL, worker, &exec) != 0)
		return -1;
	while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
	for (int i = 0; i < 300; i++)
		usleep(1000);
	pthread_join(th, &r);
	return (long)r;
}

/* with phases: says "phase k" and waits for a line */
static void phase(int phases, int k)
{
	char line[8];
	if (!phases)
		return;
	printf("phase %d reached\n", k);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return;
}

int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 0; i < 100; i++)
		acc += b_mul(i, 2);
	phase(argc > 1, 1);
	fflush(stdout);
	long a = beside_main(0);
	int b = vfork_child(5, 0, 3);
	long c = beside_main(1);
	phase(argc > 1, 2);
	printf("acc=%ld A=%ld B=%d C=%ld\n", acc, a, b, c);
	return 0;
}
