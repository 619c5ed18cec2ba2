// main.cc - the "cppcb" e2e test: C++ exceptions thrown by callbacks
// *through* C library frames (a qsort comparator under libc qsort under
// libsc_lj, and a callback under lib_call) while those calls are timed,
// caught by the program. Behaviour and counts must be unchanged.
#include <cstdio>
#include <stdexcept>
extern "C" void lib_sort(int *a, int n, int (*cmp)(const void*, const void*));
extern "C" int lib_call(void (*cb)(int), int x);
static int cmp(const void *a, const void *b) { int x = *(const int*)a, y = *(const int*)b; if (x == 42 || y == 42) throw std::runtime_error("42"); return x - y; }
static void cb(int x) { if (x % 3 == 0) throw x; }
int main() {
  int caught = 0, caught2 = 0; long s = 0;
  for (int r = 0; r < 2000; r++) {
    int a[50]; for (int i = 0; i < 50; i++) a[i] = (i * 37 + r) % 100;
    try { lib_sort(a, 50, cmp); s += a[0]; } catch (const std::exception &e) { caught++; }
    try { s += lib_call(cb, r); } catch (int v) { caught2++; s += v; }
  }
  printf("caught=%d caught2=%d s=%ld\n", caught, caught2, s);
}
