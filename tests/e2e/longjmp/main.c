/*
 * main.c - the "longjmp" e2e test: 10000 longjmps out of intercepted calls
 * (their shadow frames must be dropped, not pile up until timing stops),
 * then 30M calls with a SIGALRM handler on a sigaltstack calling the same
 * API every 200 us, interrupting the interceptor anywhere. Output and
 * counts must be exact.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>
int lib_call(void (*cb)(int), int x);
int lib_work(int x);
static jmp_buf jb;
static void jumper(int x) { if (x % 2) longjmp(jb, 1); }
static volatile long hits;
static void on_alarm(int s) { (void)s; hits += lib_work(1); }
int main(void) {
  long s = 0; int jumps = 0;
  for (int i = 0; i < 20000; i++) {
    if (setjmp(jb)) { jumps++; continue; }
    s += lib_call(jumper, i);
  }
  stack_t ss; static char altbuf[65536]; ss.ss_sp = altbuf; ss.ss_size = sizeof altbuf; ss.ss_flags = 0; sigaltstack(&ss, 0);
  struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_handler = on_alarm; sa.sa_flags = SA_ONSTACK | SA_RESTART; sigaction(SIGALRM, &sa, 0);
  struct itimerval it = {{0, 200}, {0, 200}}; setitimer(ITIMER_REAL, &it, 0);
  long w = 0; for (long i = 0; i < 30000000; i++) w += lib_work((int)i);
  it.it_value.tv_usec = 0; it.it_interval.tv_usec = 0; setitimer(ITIMER_REAL, &it, 0);
  printf("s=%ld jumps=%d w=%ld hits>0=%d\n", s, jumps, w, hits > 0);
  return 0;
}
