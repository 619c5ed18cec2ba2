/*
 * main.c - the "attach" e2e test (checks/attach.py): a program started
 * without scaler that `scaler record -p` attaches to and detaches from.
 * Usage: sc_attach THREADS. THREADS workers start at once and wait at a
 * barrier; each phase the main thread makes MAIN[k] b_mul calls and each
 * worker WORK[k], then the main thread prints "phase k SUM" and waits for
 * a line on stdin. The test attaches during the wait after phase 1 and
 * detaches during the wait after phase 2: exactly phase 2's calls are in
 * the profile; phase 2 also forks a child that makes 700 calls (not
 * profiled: the child of an attached process runs free) and exits with
 * their sum's low byte. Last it prints "done" and the checksum of all
 * phases.
 * sc_attach busy THREADS N: the main thread and THREADS workers each make
 * N b_mul calls without a pause (attached to and detached from while they
 * do), then it prints "busy SUM".
 * sc_attach regs N: N rounds of a loop that makes no call and checks that
 * xmm0-15, rbx, rsi, rdi, r8-r15 and the 128 bytes of red zone under the
 * stack pointer keep what it put there (a thread the attach stops in it
 * calls dlopen and gets them back), then "regs kept" or "regs changed".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int b_mul(int x, int y);

static const int MAIN[] = {1000, 2000, 3000}, WORK[] = {1000, 500, 700};
static pthread_barrier_t start, end;
static int phase;
static long worker_sum[64];

static long muls(int n, int k)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += b_mul(i, k);
	return s;
}

static long busy_n;

static void *busy(void *arg)
{
	worker_sum[(long)arg] = muls((int)busy_n, (int)(long)arg + 2);
	return NULL;
}

/* every thread calls without a pause */
static int busy_main(int n, long calls)
{
	pthread_t t[64];
	long sum = 0;

	busy_n = calls;
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, busy, (void *)i);
	for (int r = 0; r * 1000000L < calls; r++)
		sum += muls(calls - r * 1000000L < 1000000 ? (int)(calls - r * 1000000L) : 1000000, 3);
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		sum += worker_sum[i];
	}
	printf("busy %ld\n", sum);
	return 0;
}

#define XMM(n) "movq %%rax, %%xmm" #n "\n\taddq $1, %%rax\n\t"
#define XMM_CHECK(n) "movq %%xmm" #n ", %%rdx\n\tcmpq %%rax, %%rdx\n\tjne 2f\n\taddq $1, %%rax\n\t"
#define GPR(r) "movq %%rax, %%" #r "\n\taddq $1, %%rax\n\t"
#define GPR_CHECK(r) "cmpq %%rax, %%" #r "\n\tjne 2f\n\taddq $1, %%rax\n\t"
#define RZ(off) "movq %%rax, -" #off "(%%rsp)\n\taddq $1, %%rax\n\t"
#define RZ_CHECK(off) "cmpq %%rax, -" #off "(%%rsp)\n\tjne 2f\n\taddq $1, %%rax\n\t"
#define EACH16(M, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) \
	M(a) M(b) M(c) M(d) M(e) M(f) M(g) M(h) M(i) M(j) M(k) M(l) M(m) M(n) M(o) M(p)
#define XMMS(M) EACH16(M, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define GPRS(M) M(rbx) M(rsi) M(rdi) M(r8) M(r9) M(r10) M(r11) M(r12) M(r13) M(r14) M(r15)
#define RZS(M) EACH16(M, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128)
#define SEED "movabsq $0x5ca1e40000000001, %%rax\n\t"

/* 1 if a register or the red zone changed under the loop (see the top) */
__attribute__((noinline)) static int regs_loop(long rounds)
{
	/* nothing in memory: the red zone is the loop's */
	__asm__ volatile(SEED XMMS(XMM) GPRS(GPR) RZS(RZ)
			 "1:\n\t" SEED XMMS(XMM_CHECK) GPRS(GPR_CHECK) RZS(RZ_CHECK)
			 "subq $1, %%rcx\n\tjnz 1b\n\tjmp 3f\n"
			 "2:\tmovq $-1, %%rcx\n"
			 "3:"
			 : "+c"(rounds)
			 :
			 : "rax", "rdx", "rbx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13",
			   "r14", "r15", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
			   "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
			   "xmm15", "cc", "memory");
	return rounds != 0;
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int k = 0; k < 3; k++) {
		pthread_barrier_wait(&start);
		worker_sum[id] += muls(WORK[phase], (int)id + 2);
		pthread_barrier_wait(&end);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "regs")) {
		puts(regs_loop(atol(argv[2])) ? "regs changed" : "regs kept");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "busy"))
		return busy_main(atoi(argv[2]), atol(argv[3]));
	int n = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t t[64];
	long total = 0;
	char line[64];

	if (n < 0 || n > 64)
		return 2;
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	pthread_barrier_init(&end, NULL, (unsigned)n + 1);
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (phase = 0; phase < 3; phase++) {
		pthread_barrier_wait(&start);
		long sum = muls(MAIN[phase], 3);
		pthread_barrier_wait(&end);
		for (int i = 0; i < n; i++)
			sum += worker_sum[i];
		if (phase == 1) {
			int st;
			pid_t c = fork();
			if (c == 0)
				_exit((int)(muls(700, 5) & 0xff));
			if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st))
				return 4;
			sum += WEXITSTATUS(st);
		}
		total += sum;
		printf("phase %d %ld\n", phase + 1, sum);
		fflush(stdout);
		if (phase < 2 && !fgets(line, sizeof(line), stdin))
			return 3;
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("done %ld\n", total);
	return 0;
}
