// functions/main.cc - the shapes of function that --functions must count
// exactly or refuse (checks/functions.py): each counts its own calls and
// the program prints the counts, which the report must match.
//   fn_ripfirst   its first instruction is rip-relative
//   fn_rsum       recursion (not a tail call: it cannot become a loop)
//   fn_cmp        a static comparator called only by libc's qsort
//   fn_tail_a/b   fn_tail_a reaches fn_tail_b by a tail call (jmp)
//   fn_loophead   a loop whose head is the first instruction (refused)
//   fn_tiny4      4 bytes long (refused: shorter than the jump)
//   fn_work       called from four threads
//   fn_jumper     left by longjmp
//   fn_thrower    throws; fn_through is unwound through
//   fn_viaptr     called only through a function pointer
//   sc::scale     a C++ name, cloned by the compiler (scale.constprop.0):
//                 demangled and grouped with its function in the report
// and in libraries: fnl_add (libsc_fnlib.so, called through the PLT: one
// count, the import's) and its static fnl_inner; fndl_step, static in
// libsc_fndl.so, loaded by dlopen and patched then.
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

extern "C" {
long fnl_add(long a, long b);
long fnl_inner_calls(void);
long fn_loophead(long n);       // below, in assembly
long fn_tiny4(long x);
}
__asm__(".text\n"
	".globl fn_loophead\n.type fn_loophead, @function\n"
	"fn_loophead:\n"
	"\tdec %rdi\n"              // the loop's head is the entry
	"\tjnz fn_loophead\n"
	"\tmov $7, %eax\n"
	"\tret\n"
	".size fn_loophead, .-fn_loophead\n"
	".globl fn_tiny4\n.type fn_tiny4, @function\n"
	"fn_tiny4:\n"
	"\tlea 1(%rdi), %eax\n"
	"\tret\n"
	".size fn_tiny4, .-fn_tiny4\n");

static long n_ripfirst, n_rsum, n_cmp, n_tail_a, n_tail_b, n_work, n_jumper, n_thrower,
	n_through, n_viaptr, n_scale;
static pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
static jmp_buf jb;

extern "C" {
__attribute__((noinline)) static void fn_ripfirst(void)
{
	n_ripfirst++;
}

__attribute__((noinline)) static long fn_rsum(int n)
{
	n_rsum++;
	if (n == 0)
		return 0;
	long r = fn_rsum(n - 1);
	__asm__ volatile("" : "+r"(r));         // no accumulator: stays a call
	return r + n;
}

__attribute__((noinline)) static int fn_cmp(const void *a, const void *b)
{
	n_cmp++;
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) static long fn_tail_b(long x)
{
	n_tail_b++;
	return x * 7 + 1;
}

__attribute__((noinline)) static long fn_tail_a(long x)
{
	n_tail_a++;
	return fn_tail_b(x + 1);
}

__attribute__((noinline)) static long fn_work(long x)
{
	__atomic_fetch_add(&n_work, 1, __ATOMIC_RELAXED);
	return x ^ (x >> 3);
}

__attribute__((noinline)) static void fn_jumper(int i)
{
	n_jumper++;
	if (i % 2)
		longjmp(jb, 1);
}

__attribute__((noinline)) static void fn_thrower(int i)
{
	n_thrower++;
	if (i % 3 == 0)
		throw i;
}

__attribute__((noinline)) static void fn_through(int i)
{
	n_through++;
	fn_thrower(i);
	__asm__ volatile("");
}

__attribute__((noinline)) static long fn_viaptr(long x)
{
	n_viaptr++;
	return x + 3;
}
}

static void *worker(void *arg)
{
	long s = 0;
	for (long i = 0; i < 2500; i++)
		s += fn_work(i + (long)arg);
	pthread_mutex_lock(&work_lock);
	pthread_mutex_unlock(&work_lock);
	return (void *)s;
}

static long (*volatile ptr)(long) = fn_viaptr;

namespace sc {
// always called with k = 3: GCC's IPA-CP clones it as .constprop.0
__attribute__((noinline)) static long scale(long x, int k, long unused)
{
	n_scale++;
	return x * k + (unused & 0);
}
}

int main()
{
	for (int i = 0; i < 1000; i++)
		fn_ripfirst();
	long sum = 0;
	for (int i = 0; i < 20; i++)
		sum += fn_rsum(50);
	int v[200];
	for (int i = 0; i < 200; i++)
		v[i] = (i * 7919) % 211;
	qsort(v, 200, sizeof(v[0]), fn_cmp);
	long t = 0;
	for (long i = 0; i < 300; i++)
		t += fn_tail_a(i);
	long lh = fn_loophead(1000) + fn_tiny4(41);
	pthread_t th[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	long w = 0;
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(th[i], &r);
		w += (long)r;
	}
	volatile int jumps = 0;
	for (volatile int i = 0; i < 40; i++)
		if (setjmp(jb) == 0)
			fn_jumper(i);
		else
			jumps++;
	int caught = 0;
	for (int i = 0; i < 30; i++) {
		try {
			fn_through(i);
		} catch (int) {
			caught++;
		}
	}
	long p = 0;
	for (long i = 0; i < 77; i++)
		p += ptr(i);
	long sc3 = 0;
	for (long i = 0; i < 31; i++)
		sc3 += sc::scale(i, 3, 0) + sc::scale(i + 1, 3, 7);
	long l = 0;
	for (long i = 0; i < 123; i++)
		l += fnl_add(i, 2);
	void *h = dlopen("libsc_fndl.so", RTLD_NOW);
	long (*run)(long) = h ? (long (*)(long))dlsym(h, "fndl_run") : NULL;
	long (*steps)(void) = h ? (long (*)(void))dlsym(h, "fndl_step_calls") : NULL;
	long dl = run && steps ? run(45) + run(5) : -1;
	printf("lib %ld dl %ld\n", l, dl);
	printf("sum %ld sorted %d %d %d tail %ld lh %ld work %ld jumps %d caught %d ptr %ld\n", sum,
	       v[0], v[100], v[199], t, lh, w, (int)jumps, caught, p);
	printf("calls fn_ripfirst %ld fn_rsum %ld fn_cmp %ld fn_tail_a %ld fn_tail_b %ld "
	       "fn_work %ld fn_jumper %ld fn_thrower %ld fn_through %ld fn_viaptr %ld\n",
	       n_ripfirst, n_rsum, n_cmp, n_tail_a, n_tail_b, n_work, n_jumper, n_thrower,
	       n_through, n_viaptr);
	printf("cxx %ld sc::scale %ld\n", sc3, n_scale);
	printf("calls fnl_inner %ld fndl_step %ld\n", fnl_inner_calls(), steps ? steps() : -1);
	return 0;
}
