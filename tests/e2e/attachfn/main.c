/*
 * main.c - the "attachfn" e2e test (checks/attachfn.py): a program started
 * without scaler whose static functions `scaler record -p --functions`
 * patches while it runs, and puts back at the detach.
 * sc_attachfn phases THREADS: THREADS workers and the main thread; each
 * phase k every thread calls fn_sq (a static function, called directly)
 * SQ[k] times and fn_cube (through a pointer) CUBE[k] times, the workers
 * a tenth of that; then the main thread prints "phase k SUM" and waits for
 * a line on stdin. Meanwhile one more thread sits in fn_block's read(2),
 * its next instruction inside fn_block's first 5 bytes (fn_block is
 * `mov %ecx, %eax; syscall; ret`), until the main thread writes to its
 * pipe at the end; and another was in fn_pause's pause(2) (the same
 * bytes) when a SIGUSR1 came, whose handler waits in read(2) on another
 * pipe: the context it interrupted, on its stack, holds an address inside
 * fn_pause's first bytes. Before phase 1 the main thread waits until both
 * are blocked there. Last it prints "done" and the checksum of all
 * phases.
 * sc_attachfn nest 0: one thread, with a signal stack of its own (mmap'd),
 * sits in fn_pause's pause(2) when a SIGUSR1 comes, whose handler (on the
 * thread's stack) raises SIGUSR2, whose SA_ONSTACK handler waits in
 * read(2) on the signal stack: the context interrupted inside fn_pause is
 * on the thread's stack, not on the one it runs on. The main thread says
 * "phase 1 0" and waits for a line; then lets the handler return (the
 * thread goes back into fn_pause's bytes, and returns -EINTR), calls
 * fn_sq SQ[1] times, says "phase 2 SUM", waits for a line and says "done".
 * sc_attachfn vfork 0: calls fn_sq SQ[0] times, says "phase 1 SUM" and
 * waits for a line (read(2) a byte at a time: no stdio buffer, the lines
 * are shared with the child); then a thread vforks a child that says
 * "child waiting" and waits for a line: its parent cannot stop until the
 * child ends. Then the main thread calls fn_sq SQ[1] times and says
 * "phase 2 SUM" and "done".
 * sc_attachfn exec 0: calls fn_sq SQ[0] times, says "phase 1 SUM" and
 * waits for a line (by read(2)); then another thread (in pause(2)
 * meanwhile) runs `sh -c 'read x; echo after exec $x'` by execv.
 * sc_attachfn dl 0: says "phase 1 0" and waits for a line (by read(2));
 * then dlopens libsc_dl.so, calls its dl_func 100 times, dlcloses it,
 * loads it again (at the same address, as a rule), calls dl_func 100
 * times, says "phase 2 SUM", waits for a line, and says "done".
 * sc_attachfn busy THREADS N: the main thread and THREADS workers each
 * make N rounds of both calls without a pause, then it prints "busy SUM".
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const int SQ[] = {1000, 2000, 3000}, CUBE[] = {300, 700, 900};

__attribute__((noinline, noclone)) static long fn_sq(long x)
{
	return x * x + 1;
}

__attribute__((noinline, noclone)) static long fn_cube(long x)
{
	return x * x * x - 3;
}

static long (*volatile through)(long) = fn_cube;

/* read(fd, buf, n) by system call number nr, the system call in the
 * first bytes (see the top) */
long fn_block(long fd, void *buf, long n, long nr);
__asm__(".text\n"
	".type fn_block, @function\n"
	"fn_block:\n\t"
	"mov %ecx, %eax\n\t"
	"syscall\n\t"
	"ret\n\t"
	".size fn_block, .-fn_block\n");

static long calls(int sq, int cube, long k)
{
	long s = 0;
	for (int i = 0; i < sq; i++)
		s += fn_sq(i + k);
	for (int i = 0; i < cube; i++)
		s += through(i + k);
	return s;
}

long fn_pause(long a, long b, long c, long nr);
__asm__(".text\n"
	".type fn_pause, @function\n"
	"fn_pause:\n\t"
	"mov %ecx, %eax\n\t"
	"syscall\n\t"
	"ret\n\t"
	".size fn_pause, .-fn_pause\n");

static int pipefd[2], handler_pipe[2];
static volatile pid_t blocked_tid, paused_tid;

static void *blocked(void *arg)
{
	char c;
	(void)arg;
	blocked_tid = (pid_t)syscall(SYS_gettid);
	return (void *)fn_block(pipefd[0], &c, 1, SYS_read);
}

static void on_usr1(int sig)
{
	char c;
	(void)sig;
	if (read(handler_pipe[0], &c, 1) != 1)
		_exit(5);
}

static volatile int nested;

static void on_usr2(int sig)
{
	(void)sig;
	nested = 1;
	on_usr1(sig);
}

static void on_usr1_raise(int sig)
{
	(void)sig;
	raise(SIGUSR2);
}

static void *paused(void *arg)
{
	(void)arg;
	paused_tid = (pid_t)syscall(SYS_gettid);
	return (void *)fn_pause(0, 0, 0, SYS_pause);
}

static void *paused_alt(void *arg)
{
	stack_t ss = {.ss_size = 1 << 16};
	ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL) != 0)
		_exit(6);
	return paused(arg);
}

static void wait_blocked(volatile pid_t *tid, long nr);

/* A line of stdin, read by system calls alone (a vfork child's too) */
static bool raw_line(void)
{
	char c;
	while (syscall(SYS_read, 0, &c, 1) == 1)
		if (c == '\n')
			return true;
	return false;
}

static void *vforks(void *arg)
{
	static const char say[] = "child waiting\n";
	int st;
	(void)arg;
	pid_t c = vfork();
	if (c == 0) {
		syscall(SYS_write, 1, say, sizeof(say) - 1);
		syscall(SYS_exit_group, raw_line() ? 0 : 3);
	}
	return (void *)(long)(c > 0 && waitpid(c, &st, 0) == c && st == 0);
}

static void *pauses(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* sc_attachfn exec (see the top) */
static int exec_phase(void)
{
	pthread_t p;
	printf("phase 1 %ld\n", calls(SQ[0], 0, 0));
	fflush(stdout);
	if (pthread_create(&p, NULL, pauses, NULL) != 0 || !raw_line())
		return 4;
	execl("/bin/sh", "sh", "-c", "read x; echo after exec $x", (char *)NULL);
	return 5;
}

/* dl_func of libsc_dl.so, loaded afresh, called 100 times: the sum; -1
 * if it cannot be loaded. The handle in *h. */
static long dl_calls(void **h)
{
	*h = dlopen("libsc_dl.so", RTLD_NOW);
	int (*f)(int) = *h ? (int (*)(int))dlsym(*h, "dl_func") : NULL;
	long s = 0;
	if (!f)
		return -1;
	for (int i = 0; i < 100; i++)
		s += f(i);
	return s;
}

/* sc_attachfn dl (see the top) */
static int dl_phases(void)
{
	void *h, *h2;
	printf("phase 1 0\n");
	fflush(stdout);
	if (!raw_line())
		return 3;
	long a = dl_calls(&h);
	if (a < 0 || dlclose(h) != 0)
		return 4;
	long b = dl_calls(&h2);
	if (b < 0)
		return 4;
	printf("phase 2 %ld\n", a + b);
	fflush(stdout);
	if (!raw_line())
		return 3;
	printf("done\n");
	return 0;
}

/* sc_attachfn vfork (see the top) */
static int vfork_phases(void)
{
	pthread_t v;
	void *got;
	printf("phase 1 %ld\n", calls(SQ[0], 0, 0));
	fflush(stdout);
	if (!raw_line() || pthread_create(&v, NULL, vforks, NULL) != 0 ||
	    pthread_join(v, &got) != 0 || !got)
		return 4;
	printf("phase 2 %ld\ndone\n", calls(SQ[1], 0, 0));
	return 0;
}

/* sc_attachfn nest (see the top) */
static int nest(void)
{
	pthread_t pz;
	char line[64];
	void *got;
	struct sigaction sa = {.sa_handler = on_usr1_raise};
	sigemptyset(&sa.sa_mask);
	if (pipe(handler_pipe) != 0 || sigaction(SIGUSR1, &sa, NULL) != 0)
		return 2;
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_ONSTACK;
	if (sigaction(SIGUSR2, &sa, NULL) != 0)
		return 2;
	pthread_create(&pz, NULL, paused_alt, NULL);
	wait_blocked(&paused_tid, SYS_pause);
	pthread_kill(pz, SIGUSR1);
	wait_blocked(&paused_tid, SYS_read);        /* in the inner handler */
	if (!nested)
		return 4;
	printf("phase 1 0\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) || write(handler_pipe[1], "x", 1) != 1 ||
	    pthread_join(pz, &got) != 0 || (long)got != -EINTR)
		return 4;
	printf("phase 2 %ld\n", calls(SQ[1], 0, 0));
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 3;
	printf("done\n");
	return 0;
}

/* Until thread tid is blocked in system call nr (/proc says so; a thread
 * running says "running", not 0: read) */
static void wait_blocked(volatile pid_t *tid, long nr)
{
	char path[64], buf[64];
	for (;;) {
		FILE *f = NULL;
		if (*tid) {
			snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)*tid);
			f = fopen(path, "r");
		}
		if (f) {
			bool got = fgets(buf, sizeof(buf), f) && buf[0] >= '0' &&
				   buf[0] <= '9' && atol(buf) == nr;
			fclose(f);
			if (got)
				return;
		}
		usleep(1000);
	}
}

static pthread_barrier_t start, end;
static int phase;
static long worker_sum[64], busy_n;

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int k = 0; k < 3; k++) {
		pthread_barrier_wait(&start);
		worker_sum[id] += calls(SQ[phase] / 10, CUBE[phase] / 10, id);
		pthread_barrier_wait(&end);
	}
	return NULL;
}

static void *busy(void *arg)
{
	long s = 0;
	for (long r = 0; r < busy_n; r++)
		s += calls(1, 1, r);
	worker_sum[(long)arg] = s;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64], b, pz;
	long total = 0;
	int n = argc > 2 ? atoi(argv[2]) : -1;
	char line[64];

	if (n < 0 || n > 64)
		return 2;
	if (argc == 3 && !strcmp(argv[1], "nest"))
		return nest();
	if (argc == 3 && !strcmp(argv[1], "vfork"))
		return vfork_phases();
	if (argc == 3 && !strcmp(argv[1], "exec"))
		return exec_phase();
	if (argc == 3 && !strcmp(argv[1], "dl"))
		return dl_phases();
	if (argc == 4 && !strcmp(argv[1], "busy")) {
		busy_n = atol(argv[3]);
		for (long i = 0; i < n; i++)
			pthread_create(&t[i], NULL, busy, (void *)(i + 1));
		busy((void *)0);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		for (int i = 0; i <= n; i++)
			total += worker_sum[i];
		printf("busy %ld\n", total);
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "phases") || pipe(pipefd) != 0)
		return 2;
	struct sigaction sa = {.sa_handler = on_usr1};
	sigemptyset(&sa.sa_mask);
	if (pipe(handler_pipe) != 0 || sigaction(SIGUSR1, &sa, NULL) != 0)
		return 2;
	pthread_create(&b, NULL, blocked, NULL);
	pthread_create(&pz, NULL, paused, NULL);
	wait_blocked(&blocked_tid, SYS_read);
	wait_blocked(&paused_tid, SYS_pause);
	pthread_kill(pz, SIGUSR1);
	wait_blocked(&paused_tid, SYS_read);        /* in the handler */
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	pthread_barrier_init(&end, NULL, (unsigned)n + 1);
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (phase = 0; phase < 3; phase++) {
		pthread_barrier_wait(&start);
		long sum = calls(SQ[phase], CUBE[phase], 100);
		pthread_barrier_wait(&end);
		for (int i = 0; i < n; i++)
			sum += worker_sum[i];
		total += sum;
		printf("phase %d %ld\n", phase + 1, sum);
		fflush(stdout);
		if (phase < 2 && !fgets(line, sizeof(line), stdin))
			return 3;
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	void *got, *gotz;
	if (write(pipefd[1], "x", 1) != 1 || pthread_join(b, &got) != 0 || (long)got != 1 ||
	    write(handler_pipe[1], "x", 1) != 1 || pthread_join(pz, &gotz) != 0 ||
	    (long)gotz != -EINTR)
		return 4;
	printf("done %ld\n", total);
	return 0;
}
